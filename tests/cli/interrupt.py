#!/usr/bin/env python3
"""A signal during a long run stops it cleanly: the program is started on a run of minutes,
sent SIGNAL once its progress line shows the simulation running (about 2 s of wall time), and
must then exit within a few seconds with 128 + SIGNAL (130 for SIGINT, 143 for SIGTERM),
having written a summary.json that parses, says "interrupted": true and "interrupted_by":
SIGNAL, and has the simulated time reached (> 0) and the collective unfinished; every CSV
whole (a header, rows of as many fields, a final newline); no temporary file left
(AtomicFile's ".<name>.tmp.<pid>").

With --mpiexec=LAUNCHER[,FLAG...] the run is split across 2 MPI processes (LAUNCHER -np 2
BINARY ...) and each of them gets the signal, as from a terminal's Ctrl-C: they must stop at the
same simulated time, rank 0 write the merged results, and none leave before it is done (Open
MPI's mpirun aborts the job, killing the others, when one exits non-zero).

usage: interrupt.py [--mpiexec=LAUNCHER[,FLAG...]] WORKDIR SIGNAL BINARY [ARG...]
       (SIGNAL: INT or TERM)
"""

import csv
import json
import os
import signal
import subprocess
import sys
import threading
import time

import clitest
from launched import processes_running

# The wall time to wait for the progress line; a debug build builds a k=8 fat-tree slowly.
START_TIMEOUT = 60 * clitest.TIMEOUT_SCALE
# The wall time from the signal to the exit: the next progress tick (about a second at most),
# then the outputs.
STOP_TIMEOUT = 20 * clitest.TIMEOUT_SCALE


def default_signals():
    """In the child: the default actions, even if whoever started the tests ignores SIGINT
    (a background job), since an ignored signal stays ignored (RunInterrupt)."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)


def check_csv(path, problems):
    with open(path, newline="") as f:
        text = f.read()
    if not text.endswith("\n"):
        problems.append(f"{path} does not end with a newline (truncated?)")
    rows = list(csv.reader(text.splitlines()))
    if not rows:
        problems.append(f"{path} has no header")
        return
    bad = [i + 1 for i, r in enumerate(rows) if len(r) != len(rows[0])]
    if bad:
        problems.append(f"{path}: lines {bad[:5]} have not {len(rows[0])} fields")
    print(f"{os.path.basename(path)}: {len(rows) - 1} rows of {len(rows[0])} fields")


def main():
    argv = sys.argv[1:]
    launcher = []
    if argv and argv[0].startswith("--mpiexec="):
        launcher = [a for a in argv.pop(0)[len("--mpiexec="):].split(",") if a]
    if len(argv) < 3:
        sys.exit(__doc__)
    workdir, sig_name, args = argv[0], argv[1], argv[3:]
    binary = os.path.realpath(argv[2])
    sig = {"INT": signal.SIGINT, "TERM": signal.SIGTERM}[sig_name]
    cwd = clitest.fresh_dir(workdir)
    out = os.path.join(cwd, "out")
    cmd = [binary, *args, f"--out={out}"]
    if launcher:
        cmd = [launcher[0], "-np", "2", *launcher[1:], *cmd]
    print("$ " + " ".join(cmd), flush=True)
    started = time.monotonic()
    p = subprocess.Popen(cmd, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         text=True, preexec_fn=default_signals)

    # Read stderr as it comes, to see the first progress line ("sim ... ms (...%) | wall ...").
    err_lines = []
    running = threading.Event()

    def read_stderr():
        for line in p.stderr:
            err_lines.append(line)
            # mpirun --tag-output puts "[1,0]<stderr>:" before each line.
            if line.startswith("sim ") or ">:sim " in line:
                running.set()

    reader = threading.Thread(target=read_stderr, daemon=True)
    reader.start()
    stdout_box = []
    out_reader = threading.Thread(target=lambda: stdout_box.append(p.stdout.read()), daemon=True)
    out_reader.start()

    if not running.wait(START_TIMEOUT) or p.poll() is not None:
        p.kill()
        p.wait()
        clitest.fail(f"no progress line within {START_TIMEOUT} s (exit {p.returncode}); stderr:\n"
                     + "".join(err_lines))
    signalled = time.monotonic()
    print(f"progress after {signalled - started:.1f} s: {err_lines[-1].strip()}")
    targets = processes_running(p.pid, binary) if launcher else [p.pid]
    if launcher and len(targets) != 2:
        p.kill()
        p.wait()
        clitest.fail(f"found {len(targets)} processes of {binary} under {launcher[0]}, expected 2")
    for pid in targets:
        os.kill(pid, sig)
    try:
        code = p.wait(STOP_TIMEOUT)
    except subprocess.TimeoutExpired:
        p.kill()
        p.wait()
        clitest.fail(f"still running {STOP_TIMEOUT} s after SIG{sig_name}")
    ended = time.monotonic()
    reader.join(5)
    out_reader.join(5)
    stdout = stdout_box[0] if stdout_box else ""
    stderr = "".join(err_lines)
    print(stdout[-1500:])
    print(stderr[-1500:], file=sys.stderr)
    print(f"SIG{sig_name} after {signalled - started:.1f} s; exit {code} "
          f"{ended - signalled:.2f} s later; {ended - started:.1f} s in all")

    problems = []
    expected = 128 + int(sig)
    if code != expected:
        problems.append(f"{clitest.describe_exit(code)}, expected {expected}")
    stops = stderr.count(f"SIG{sig_name}: stopping the simulation")
    if stops != len(targets):
        problems.append(f"{stops} processes say on stderr that SIG{sig_name} is stopping the "
                        f"simulation, expected {len(targets)}")
    if f"interrupted by SIG{sig_name}: simulated" not in stdout:
        problems.append("stdout's last figures line does not say interrupted")

    summary = clitest.load_summary(out)
    if summary.get("interrupted") is not True:
        problems.append(f"interrupted is {summary.get('interrupted')!r}, expected true")
    if summary.get("interrupted_by") != f"SIG{sig_name}":
        problems.append(f"interrupted_by is {summary.get('interrupted_by')!r}")
    sim_us = summary.get("simulator", {}).get("sim_time_us")
    if not isinstance(sim_us, (int, float)) or sim_us <= 0:
        problems.append(f"simulator.sim_time_us is {sim_us!r}, expected > 0")
    else:
        print(f"simulated {sim_us:.1f} us before stopping")
    if "complete" in summary and summary["complete"] is not False:
        problems.append(f"complete is {summary.get('complete')!r}: a 1 GiB all-reduce cannot "
                        "have finished in a few seconds")
    for c in summary.get("collectives", []):
        if c.get("time_us") is not None:
            problems.append(f"collective {json.dumps(c)} has a time though unfinished")

    names = sorted(os.listdir(out))
    print("files:", " ".join(names))
    leftovers = [n for n in names if ".tmp." in n]
    if leftovers:
        problems.append(f"temporary files left: {leftovers}")
    for n in names:
        if n.endswith(".csv"):
            check_csv(os.path.join(out, n), problems)
    if problems:
        clitest.fail("\n  ".join(problems))
    print("ok")


if __name__ == "__main__":
    main()
