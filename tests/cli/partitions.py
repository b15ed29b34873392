#!/usr/bin/env python3
"""A run split into 2 and 4 partitions (--partitions, emulated in one process as MPI ranks
would run them: events between partitions held to the end of their lookahead window) gives the
results of the unsplit run in the same event order (--partitions=1): summary.json alike but for
the wall-clock figures, the output folder and the partitions block, and every CSV byte for
byte. The split runs must have sent events across partitions, and MIN_PAUSES asks for that many
PFC frames at least (the contended case, where the order of same-time events matters).

usage: partitions.py WORKDIR MIN_PAUSES BINARY [ARG...]
"""

import filecmp
import json
import os
import sys

import clitest
from determinism import differences


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
    workdir, min_pauses, binary, args = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4:]
    cwd = clitest.fresh_dir(workdir)
    runs = {}
    for n in (1, 2, 4):
        out = os.path.join(cwd, f"p{n}")
        clitest.run_ok(binary, [*args, f"--partitions={n}", f"--out={out}"], cwd, timeout=120)
        runs[n] = (out, clitest.load_summary(out))
    out1, one = runs[1]
    pauses = one.get("pfc", {}).get("pfc_frames_sent", 0)
    if pauses < min_pauses:
        clitest.fail(f"{pauses} PFC frames in the unsplit run; the test asks for {min_pauses}")
    for n in (2, 4):
        out, summary = runs[n]
        part = summary.get("partitions", {})
        if part.get("count") != n or part.get("remote_events", 0) <= 0:
            clitest.fail(f"--partitions={n}: the summary says {part}, expected {n} partitions "
                         "exchanging events")
        diff = differences(comparable(one, out1), comparable(summary, out))
        if diff:
            clitest.fail(f"{n} partitions differ from one at:\n  " + "\n  ".join(diff[:20]))
        csvs = sorted(f for f in os.listdir(out1) if f.endswith(".csv"))
        _, mismatch, errors = filecmp.cmpfiles(out1, out, csvs, shallow=False)
        if mismatch or errors:
            clitest.fail(f"{n} partitions: CSV files differ: {mismatch + errors}")
        print(f"ok: {n} partitions, {part['remote_events']} events across them, "
              f"{one['simulator']['events']} events and {pauses} PFC frames as unsplit")


if __name__ == "__main__":
    main()
