#!/usr/bin/env python3
"""The programs' event machinery (FabricSimulatorImpl with BucketScheduler) gives the same
results as ns-3's own (DefaultSimulatorImpl with MapScheduler): summary.json alike but for
the wall-clock figures, the output folder and the names of the two, and every CSV the run
wrote byte for byte.

usage: implementations.py WORKDIR BINARY [ARG...]
"""

import filecmp
import json
import os
import sys

import clitest
from determinism import differences

NS3_OWN = ["--SimulatorImplementationType=ns3::DefaultSimulatorImpl",
           "--SchedulerType=ns3::MapScheduler"]


def comparable(summary, out):
    # Messages that name a file name it in the run's own folder.
    summary = json.loads(json.dumps(summary).replace(out, "OUT"))
    summary.pop("wall", None)
    summary.get("config", {}).pop("out", None)
    for key in ("SimulatorImplementationType", "SchedulerType"):
        summary.get("config", {}).get("ns3", {}).pop(key, None)
    for key in ("implementation", "scheduler"):
        summary.get("simulator", {}).pop(key, None)
    return summary


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    workdir, binary, args = sys.argv[1], sys.argv[2], sys.argv[3:]
    cwd = clitest.fresh_dir(workdir)
    outs, summaries = [], []
    for name, extra in (("fabric", []), ("ns3", NS3_OWN)):
        out = os.path.join(cwd, name)
        clitest.run_ok(binary, [*args, *extra, f"--out={out}"], cwd, timeout=60)
        summary = clitest.load_summary(out)
        outs.append(out)
        summaries.append(summary)
    used = summaries[0].get("simulator", {}).get("implementation")
    if used != "ns3::FabricSimulatorImpl":
        clitest.fail(f"the default run used {used!r}, expected ns3::FabricSimulatorImpl")
    if summaries[1].get("simulator", {}).get("implementation") != "ns3::DefaultSimulatorImpl":
        clitest.fail("the second run did not record ns3::DefaultSimulatorImpl")
    diff = differences(comparable(summaries[0], outs[0]), comparable(summaries[1], outs[1]))
    if diff:
        clitest.fail("the two implementations differ at:\n  " + "\n  ".join(diff[:20]))
    csvs = sorted(f for f in os.listdir(outs[0]) if f.endswith(".csv"))
    _, mismatch, errors = filecmp.cmpfiles(outs[0], outs[1], csvs, shallow=False)
    if mismatch or errors:
        clitest.fail(f"CSV files differ: {mismatch + errors}")
    events = summaries[0].get("simulator", {}).get("events")
    print(f"ok: same summary ({events} events) and {len(csvs)} identical CSV files")


if __name__ == "__main__":
    main()
