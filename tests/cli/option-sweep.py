#!/usr/bin/env python3
"""Every option of every program, given the values a new user might type by mistake: the run
must end with exit code 0 (the value was fine) or 2 (a user mistake, reported on one line), or
still be running after a short time (the value was fine and the simulation runs on: it is
killed, and that is a pass). A signal (an abort, a segfault), an uncaught exception ("terminate
called") or any other exit code is a failure.

The options are read from each program's --help (its "Program Options", not the --ns3::
attributes nor the --PrintXxx options of ns-3). Each is given, one run at a time, as the last
argument after the program's base arguments (which make a run valid without it): 0, -1, an
empty value, garbage, 1e400, 99999999999999999999, nan, inf, -0, 1.5, 2^16, 2^31, 2^32, the
option alone without a value, and, when its default has a unit (100Gbps, 64MiB, 1us), 0, -1,
1, 0.5 and 99999999999999999999 of that unit. Each run has its own empty folder (as working
directory and --out), removed unless the run failed.

usage: option-sweep.py WORKDIR [--jobs=N] [--timeout=SECONDS] [--only=PROGRAM[:OPTION]]
                       [--verbose] --program=BINARY [BASE_ARG...] [--program=BINARY ...]...

--jobs: runs at a time (2); --timeout: seconds after which a run is killed as running on (1.5),
times the environment's NS3_TEST_TIMEOUT_SCALE (a sanitizer build's CTest sets it); --only:
one program's runs, or one option's; --verbose: every run's outcome.
"""

import concurrent.futures
import os
import re
import shutil
import signal
import subprocess
import sys
import time

import clitest

# Values tried on every option; None: the option alone ("--opt"), without a value.
GENERIC_VALUES = [
    "0",
    "-1",
    "",
    "zz%",
    "1e400",
    "99999999999999999999",
    "nan",
    "inf",
    "-0",
    "1.5",
    # Powers of two whose products wrap around 32 bits (65536^2, 32 x 2^31), and 2^32.
    "65536",
    "2147483648",
    "4294967296",
    None,
]

# Values tried, with the unit of the option's default, when it has one: "100Gbps" gives
# 0Gbps, -1Gbps, ...
UNIT_NUMBERS = ["0", "-1", "1", "0.5", "99999999999999999999"]

# A default with a unit: a number, then letters ("100Gbps", "64MiB", "1us", "25G", "10B/s").
UNIT_DEFAULT = re.compile(r"^[0-9]+(?:\.[0-9]+)?([A-Za-z\xb5/]+)$")

# An option line of ns-3's CommandLine help ("    --k:   fat-tree arity ... [4]").
# The default is the last bracketed text; the help may hold brackets too ("MIN:MAX[:FACTOR]").
OPTION_LINE = re.compile(r"^\s+--([A-Za-z][\w-]*):\s*(.*?)\s*(?:\[([^\[\]]*)\])?\s*$")


def parse_args(argv):
    if len(argv) < 2:
        sys.exit(__doc__)
    workdir = argv[0]
    jobs, timeout, only, verbose = 2, 1.5, None, False
    programs = []
    for a in argv[1:]:
        if a.startswith("--program="):
            programs.append((os.path.abspath(a[len("--program="):]), []))
        elif programs:
            programs[-1][1].append(a)
        elif a.startswith("--jobs="):
            jobs = int(a[len("--jobs="):])
        elif a.startswith("--timeout="):
            timeout = float(a[len("--timeout="):])
        elif a.startswith("--only="):
            only = a[len("--only="):]
        elif a == "--verbose":
            verbose = True
        else:
            sys.exit(f"unexpected argument {a!r}\n\n{__doc__}")
    if not programs:
        sys.exit(__doc__)
    return workdir, jobs, timeout * clitest.TIMEOUT_SCALE, only, verbose, programs


def program_options(binary, cwd):
    """The options of the program's --help section "Program Options:", with their defaults."""
    p = clitest.run_ok(binary, ["--help"], cwd, timeout=30)
    options = []
    section = False
    for line in p.stdout.splitlines():
        if line.strip().endswith(":") and not line.startswith(" "):
            section = line.strip() == "Program Options:"
            continue
        m = OPTION_LINE.match(line) if section else None
        if m:
            options.append((m.group(1), m.group(3) or ""))
    if not options:
        clitest.fail(f"{binary} --help lists no program options:\n{p.stdout}")
    return options


def values_for(default):
    values = list(GENERIC_VALUES)
    m = UNIT_DEFAULT.match(default)
    if m:
        values += [n + m.group(1) for n in UNIT_NUMBERS]
    return values


def argument(option, value):
    return f"--{option}" if value is None else f"--{option}={value}"


def run_one(binary, base, option, value, cwd, timeout):
    """Runs BINARY BASE... --out=CWD/out --OPTION=VALUE in CWD; returns (outcome, detail):
    outcome "ok" or "runs on" (passes) or "fail"."""
    os.makedirs(cwd)
    args = [*base, f"--out={os.path.join(cwd, 'out')}", argument(option, value)]
    # Its own session, so that a kill reaches whatever it started too (gnuplot).
    p = subprocess.Popen([binary, *args], cwd=cwd, stdout=subprocess.DEVNULL,
                         stderr=subprocess.PIPE, text=True, errors="replace",
                         start_new_session=True)
    try:
        _, err = p.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(p.pid, signal.SIGKILL)
        p.communicate()
        shutil.rmtree(cwd, ignore_errors=True)
        return "runs on", ""
    if p.returncode in (0, 2) and "terminate called" not in err:
        shutil.rmtree(cwd, ignore_errors=True)  # kept only when it fails
        return "ok", f"exit code {p.returncode}"
    with open(os.path.join(cwd, "stderr.txt"), "w") as f:
        f.write(err)
    # The line that says why: an exception's what(), an NS_ABORT's message, else the last one.
    lines = [l.strip() for l in err.splitlines() if l.strip()]
    why = next((l for l in lines if l.startswith("what():") or l.startswith("aborted.")),
               lines[-1] if lines else "nothing on stderr")
    what = clitest.describe_exit(p.returncode)
    if "terminate called after throwing" in err:
        what += ", uncaught exception"
    return "fail", f"{what}: {why}"


def main():
    workdir, jobs, timeout, only, verbose, programs = parse_args(sys.argv[1:])
    clitest.fresh_dir(workdir)
    runs = []
    for binary, base in programs:
        name = os.path.basename(binary)
        if only and only.split(":")[0] != name:
            continue
        options = program_options(binary, clitest.fresh_dir(os.path.join(workdir, name)))
        print(f"{name}: {len(options)} options: {' '.join('--' + o for o, _ in options)}")
        for option, default in options:
            if only and ":" in only and only.split(":", 1)[1] != option:
                continue
            for value in values_for(default):
                cwd = os.path.join(workdir, name, f"{len(runs):05d}")
                runs.append((name, binary, base, option, value, cwd))

    started = time.monotonic()
    outcomes = {}
    failures = []
    with concurrent.futures.ThreadPoolExecutor(max_workers=jobs) as pool:
        futures = {pool.submit(run_one, binary, base, option, value, cwd, timeout):
                   (name, option, value)
                   for name, binary, base, option, value, cwd in runs}
        for f in concurrent.futures.as_completed(futures):
            name, option, value = futures[f]
            outcome, detail = f.result()
            outcomes[outcome] = outcomes.get(outcome, 0) + 1
            if verbose:
                print(f"{name} {argument(option, value)}: {outcome} {detail}", flush=True)
            if outcome == "fail":
                shown = "(none: --" + option + " alone)" if value is None else repr(value)
                failures.append((name, "--" + option, shown, detail))
    wall = time.monotonic() - started

    counts = ", ".join(f"{n} {o}" for o, n in sorted(outcomes.items()))
    print(f"{len(runs)} runs in {wall:.0f} s ({jobs} at a time, {timeout:g} s each at most): "
          f"{counts}")
    if failures:
        failures.sort()
        rows = [("program", "option", "value", "what happened")] + failures
        widths = [max(len(r[i]) for r in rows) for i in range(3)]
        for r in rows:
            print(f"{r[0]:<{widths[0]}}  {r[1]:<{widths[1]}}  {r[2]:<{widths[2]}}  {r[3]}")
        print(f"(each failed run's folder is kept under {workdir})")
        clitest.fail(f"{len(failures)} of {len(runs)} runs neither ended with exit code 0 or 2 "
                     "nor ran on")
    print("ok")


if __name__ == "__main__":
    main()
