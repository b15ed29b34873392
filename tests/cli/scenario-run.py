#!/usr/bin/env python3
"""Scenario.ScenarioFiles: the scenario program on the shipped PFC deadlock cases.

The ring of four switches with clockwise routes deadlocks: deadlock.json holds exactly one
deadlock, a cycle of four queues, formed within 10 ms and detected within Persist plus one
sampling interval; nothing is delivered after the senders stop. Its controls (three flows,
counter-rotating routes, a 15:1 incast on an up-down fat-tree, a link failure with rerouting)
report none. A link failure loses packets but every flow finishes; a NIC's pause storm stalls
a victim flow unless the PFC watchdog is on.

usage: scenario-run.py WORKDIR PROGRAM SCENARIO_DIR
"""
import csv
import json
import os
import sys

import clitest


def run(program, work, scenario):
    out = os.path.join(work, os.path.basename(scenario).replace(".json", ""))
    clitest.run_ok(program, ["--config=" + scenario, "--out=" + out], work, timeout=120)
    return json.load(open(os.path.join(out, "deadlock.json"))), clitest.load_summary(out)


def main():
    work, program, scenarios = sys.argv[1], sys.argv[2], sys.argv[3]
    work = clitest.fresh_dir(work)
    deadlock, summary = run(program, work, os.path.join(scenarios, "ring4-deadlock.json"))
    found = deadlock["deadlocks"]
    if len(found) != 1:
        clitest.fail(f"ring4-deadlock: {len(found)} deadlocks reported, expected 1")
    d = found[0]
    if len(d["cycle"]) != 4 or sorted(q.split(":")[0] for q in d["cycle"]) != ["s0", "s1", "s2", "s3"]:
        clitest.fail(f"ring4-deadlock: cycle {d['cycle']}, expected one queue on each switch")
    if not d["formed_us"] < 10000:
        clitest.fail(f"ring4-deadlock: formed at {d['formed_us']} us, expected within 10 ms")
    late = d["detected_us"] - d["formed_us"]
    if not 1000 <= late <= 1000 + deadlock["interval_us"]:
        clitest.fail(f"ring4-deadlock: detected {late} us after forming, expected Persist + one interval")
    if summary["drops"] and sum(summary["drops"].values()) != 0:
        clitest.fail(f"ring4-deadlock: PFC dropped packets: {summary['drops']}")
    print(f"ring4-deadlock: {' -> '.join(d['cycle'])}, formed {d['formed_us']:.1f} us")
    for control in ("ring4-three-flows", "ring4-counter-rotating", "fattree-incast-updown",
                    "fattree-link-failure"):
        deadlock, _ = run(program, work, os.path.join(scenarios, control + ".json"))
        if deadlock["deadlocks"]:
            clitest.fail(f"{control}: false report {deadlock['deadlocks']}")
        print(f"{control}: no deadlock ({deadlock['samples']} samples)")
    # A link fails and routes converge: packets are lost on the dead link, every flow finishes.
    summary = clitest.load_summary(os.path.join(work, "fattree-link-failure"))
    if summary["drops"].get("link_down", 0) == 0 or summary["flows"]["finished"] != 4:
        clitest.fail(f"fattree-link-failure: drops {summary['drops']}, flows {summary['flows']}")
    # A NIC's pause storm stalls a victim flow two switches away; the PFC watchdog frees it.
    for name, victim_done in (("pause-storm", False), ("pause-storm-watchdog", True)):
        out = os.path.join(work, name)
        clitest.run_ok(program, ["--config=" + os.path.join(scenarios, name + ".json"),
                                 "--out=" + out], work, timeout=120)
        rows = list(csv.DictReader(open(os.path.join(out, "fct.csv"))))
        done = rows[1]["fct_us"] != ""
        if done != victim_done:
            clitest.fail(f"{name}: victim h2 -> h3 finished={done}, expected {victim_done}")
        print(f"{name}: victim finished={done}")
    print("ok")


if __name__ == "__main__":
    main()
