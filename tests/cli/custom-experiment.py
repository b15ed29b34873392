#!/usr/bin/env python3
"""Scenario.CustomExperiment: examples/custom-experiment.cc, the starting point of a user's own
study, stays under 80 lines and runs: an N:1 incast on a leaf-spine with DCQCN, one line per
flow with its FCT at least its ideal, every flow finished, nothing dropped (PFC), the packet
balance holds, fct.csv has every flow.

usage: custom-experiment.py WORKDIR PROGRAM SOURCE
"""
import csv
import os
import sys

import clitest


def run(work, program, senders, args):
    out = os.path.join(work, f"out-{senders}")
    p = clitest.run_ok(program, [f"--out={out}", f"--senders={senders}", *args], work, 60)
    print(p.stdout)
    rows = [l.split() for l in p.stdout.splitlines() if l and not l.startswith("#")]
    if len(rows) != senders:
        clitest.fail(f"{len(rows)} flow lines, expected {senders}")
    for src, dst, fct, ideal in rows:
        if dst != "0" or not int(src) >= senders:
            clitest.fail(f"flow {src} -> {dst}: expected hosts {senders}.. writing to host 0")
        if float(fct) < float(ideal) * 0.999:
            clitest.fail(f"flow {src}: FCT {fct} us beat its ideal {ideal} us")
    summary = clitest.load_summary(out)
    if summary["drops"]["total"] != 0:
        clitest.fail(f"drops under PFC: {summary['drops']}")
    if summary["config"]["cc"] != "dcqcn":
        clitest.fail(f"the congestion control is {summary['config']['cc']}, expected dcqcn")
    with open(os.path.join(out, "fct.csv")) as f:
        fcts = list(csv.DictReader(f))
    if len(fcts) != senders or any(r["fct_us"] == "" for r in fcts):
        clitest.fail(f"fct.csv: {len(fcts)} rows, expected {senders} finished flows")


def main():
    work, program, source = sys.argv[1], sys.argv[2], sys.argv[3]
    clitest.fresh_dir(work)
    with open(source) as f:
        lines = len(f.read().splitlines())
    if lines >= 80:
        clitest.fail(f"{source} has {lines} lines; the starting point of a study stays under 80")
    run(work, program, 4, [])
    run(work, program, 2, ["--flowSize=64KiB"])
    print(f"{source}: {lines} lines; runs")


if __name__ == "__main__":
    main()
