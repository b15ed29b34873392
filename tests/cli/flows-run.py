#!/usr/bin/env python3
"""Scenario.FlowsProgram: the flows program runs a flow file end to end: every flow finishes,
fct.csv has one row per flow with slowdown >= 1, fct-bins.csv and summary.json agree.

usage: flows-run.py WORKDIR PROGRAM FLOWFILE NFLOWS [PROGRAM ARGS...]
"""
import csv
import os
import shutil
import subprocess
import sys

import clitest


def main():
    work, program, flowfile, nflows = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    out = os.path.join(work, "out")
    proc = subprocess.run([program, "--flows=" + flowfile, "--out=" + out] + sys.argv[5:],
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                          timeout=60 * clitest.TIMEOUT_SCALE)
    if proc.returncode != 0:
        sys.exit(f"flows exited {proc.returncode}: {proc.stderr}")
    summary = clitest.load_summary(out)
    flows = summary["flows"]
    if flows["total"] != nflows or flows["finished"] != nflows:
        sys.exit(f"expected {nflows} finished flows, summary says {flows}")
    rows = list(csv.DictReader(open(os.path.join(out, "fct.csv"))))
    if len(rows) != nflows:
        sys.exit(f"fct.csv has {len(rows)} rows, expected {nflows}")
    slowdowns = sorted(float(r["slowdown"]) for r in rows)
    if slowdowns[0] < 0.999:
        sys.exit(f"a flow beat its ideal FCT: slowdown {slowdowns[0]}")
    if abs(slowdowns[-1] - flows["slowdown_max"]) > 1e-9:
        sys.exit("summary.json's slowdown_max disagrees with fct.csv")
    bins = list(csv.DictReader(open(os.path.join(out, "fct-bins.csv"))))
    if sum(int(b["flows"]) for b in bins) != nflows:
        sys.exit("fct-bins.csv does not cover every flow")
    print(f"{nflows} flows finished, slowdown {slowdowns[0]:.3f}..{slowdowns[-1]:.3f}")


if __name__ == "__main__":
    main()
