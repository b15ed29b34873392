#!/usr/bin/env python3
"""A run split into 2 and 4 partitions (--partitions, emulated in one process as MPI ranks
would run them: events between partitions held to the end of their lookahead window) gives the
results of the unsplit run in the same event order (--partitions=1): summary.json alike but for
the wall-clock figures, the output folder and the partitions block, and every CSV byte for
byte. BINARY is fattree-allreduce or flows (their options follow). The split runs must have sent events across partitions, and MIN_PAUSES asks for that many
PFC frames at least (the contended case, where the order of same-time events matters).

With --mpiexec=LAUNCHER (a launcher and its options, separated by commas, e.g.
"mpirun,--oversubscribe"), the 2 and 4 partitions are that many MPI processes instead, and one
process of the launcher must give the results of --partitions=1 as well (the MPI build,
tests/mpi): the summary merged by rank 0 must be the one-process run's (its packet balance and
InfiniBand's report included), and the CSVs rank 0 writes for the whole run (MERGED_CSVS) the
same.

--upto=N: split into 2 and 4 partitions, or only 2 (--upto=2: a long run, where 2 processes
exercise every path between processes).

usage: partitions.py WORKDIR MIN_PAUSES [--mpiexec=LAUNCHER] [--upto=N] BINARY [ARG...]
"""

import filecmp
import json
import os
import sys

import clitest
from determinism import differences

# The CSVs rank 0 writes for the whole run of a split across processes.
MERGED_CSVS = ("collectives.csv", "fct.csv", "fct-bins.csv", "pfc.csv", "ib-ports.csv",
               "ib-credits.csv", "ib-congestion.csv", "ib-port-waits.csv", "jobs.csv",
               "links.csv", "links-heat.csv", "step-breakdown.csv")
# Of those, the logs of events merged by time (RunOutput::MergeCsvAcross).
EVENT_LOGS = ("pfc.csv", "ib-credits.csv")


def same_rows(dir_a, dir_b, name):
    """Whether two CSVs have the same header and the same rows in any order."""
    rows = []
    for d in (dir_a, dir_b):
        with open(os.path.join(d, name)) as f:
            lines = f.read().splitlines()
        rows.append((lines[:1], sorted(lines[1:])))
    return rows[0] == rows[1]


def comparable(summary, out):
    summary = json.loads(json.dumps(summary).replace(out, "OUT"))
    summary.pop("wall", None)
    summary.pop("partitions", None)
    summary.get("config", {}).pop("out", None)
    summary.get("config", {}).pop("partitions", None)
    return summary


def main():
    if len(sys.argv) < 4:
        sys.exit(__doc__)
    workdir, min_pauses, rest = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
    mpiexec = []
    if rest[0].startswith("--mpiexec="):
        mpiexec = [a for a in rest[0][len("--mpiexec="):].split(",") if a]
        rest = rest[1:]
    upto = 4
    if rest[0].startswith("--upto="):
        upto = int(rest[0][len("--upto="):])
        rest = rest[1:]
    binary, args = rest[0], rest[1:]
    cwd = clitest.fresh_dir(workdir)
    runs = {}
    # Under MPI, one process of the launcher too ("mpi1"): it must run as --partitions=1.
    for n in tuple(k for k in (1, 2, 4) if k <= upto) + (("mpi1",) if mpiexec else ()):
        out = os.path.join(cwd, f"p{n}")
        if mpiexec and n != 1:
            np = 1 if n == "mpi1" else n
            clitest.run_ok(mpiexec[0], [*mpiexec[1:], "-np", str(np), binary, *args,
                                        f"--out={out}"], cwd, timeout=300)
        else:
            clitest.run_ok(binary, [*args, f"--partitions={n}", f"--out={out}"], cwd, timeout=120)
        # The packet balance must hold: across processes, each audits its own nodes and rank 0
        # their sum (ConservationCheck::MergeAcross).
        runs[n] = (out, clitest.load_summary(out))
    out1, one = runs[1]
    pauses = one.get("pfc", {}).get("pfc_frames_sent", 0)
    if pauses < min_pauses:
        clitest.fail(f"{pauses} PFC frames in the unsplit run; the test asks for {min_pauses}")
    for n in [k for k in runs if k != 1]:
        out, summary = runs[n]
        part = summary.get("partitions", {})
        if n == "mpi1":
            if part.get("count") != 1:
                clitest.fail(f"one MPI process: the summary says {part}, expected 1 partition")
        elif (part.get("count") != n or part.get("remote_events", 0) <= 0
                or part.get("emulated") != (not mpiexec)):
            clitest.fail(f"{n} partitions: the summary says {part}, expected {n} partitions "
                         f"exchanging events, {'MPI processes' if mpiexec else 'emulated'}")
        diff = differences(comparable(one, out1), comparable(summary, out))
        if diff:
            clitest.fail(f"{n} partitions differ from one at:\n  " + "\n  ".join(diff[:20]))
        csvs = sorted(f for f in os.listdir(out1)
                      if f.endswith(".csv") and (not mpiexec or f in MERGED_CSVS))
        # Merged event logs: rows of the same time from different processes are in rank order,
        # so across processes they are compared as the same rows.
        unordered = [f for f in csvs if mpiexec and n != "mpi1" and f in EVENT_LOGS]
        _, mismatch, errors = filecmp.cmpfiles(
            out1, out, [f for f in csvs if f not in unordered], shallow=False)
        mismatch += [f for f in unordered if same_rows(out1, out, f) is False]
        if mismatch or errors:
            clitest.fail(f"{n} partitions: CSV files differ: {mismatch + errors}")
        print(f"ok: {1 if n == 'mpi1' else n} {'MPI processes' if mpiexec else 'partitions'}, "
              f"{part['remote_events']} events across them, "
              f"{one['simulator']['events']} events and {pauses} PFC frames as unsplit")


if __name__ == "__main__":
    main()
