#!/usr/bin/env python3
"""Scenario.ScenarioFiles: the scenario program on the shipped PFC deadlock cases.

The ring of four switches with clockwise routes deadlocks: deadlock.json holds exactly one
deadlock, a cycle of four queues, formed within 10 ms and detected within Persist plus one
sampling interval; nothing is delivered after the senders stop. The flows it names (by their
index in the file) are exactly those whose data is routed through an edge of the cycle, plus
acknowledgements of flows whose acknowledgements are. Its controls (three flows,
counter-rotating routes, a 15:1 incast on an up-down fat-tree, a link failure with rerouting)
report none. A link failure loses packets but every flow finishes; a NIC's pause storm stalls
a victim flow unless the PFC watchdog is on. In a 2-tier Clos, link failures that make traffic
bounce down-up deadlock on one cycle (leaf2 -> spine1 -> leaf3 -> spine0, priority 3) that
outlives the senders; the same file with Tagger's retagging reports none although the same
links pause, and every flow finishes.

Collectives: a ring all-reduce whose ring edges are two or three hops of the clockwise ring
deadlocks it, and the report names the collective's ranks routed through the cycle; with the
ranks in ring order it finishes. On an up-down fat-tree under an incast it finishes with no
report, and summary.json has the keys fattree-allreduce writes for it.

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


# The keys of a collectives[] entry in fattree-allreduce's summary.json.
COLLECTIVE_KEYS = ("op", "algo", "bytes", "count", "type", "ranks", "start_us", "bound_us",
                   "time_us", "algbw_GBps", "busbw_GBps", "efficiency")


def through_cycle(scenario, cycle, src, dst):
    """Whether the static route from host src to host dst enters a cycle switch through the
    cycle queue's port and leaves it toward the next queue's switch (an edge of the cycle)."""
    peers = {}  # node -> neighbours in port order (ports are numbered in link order)
    for link in scenario["links"]:
        a, b = link["between"]
        peers.setdefault(a, []).append(b)
        peers.setdefault(b, []).append(a)
    edges = {}
    for i, q in enumerate(cycle):
        node, port, _ = q.split(":")
        edges[(node, int(port))] = cycle[(i + 1) % len(cycle)].split(":")[0]
    prev, node = src, peers[src][0]
    for _ in range(len(peers)):
        if node == dst:
            return False
        nxt = scenario["routing"]["static"][node][dst][0]
        if edges.get((node, peers[node].index(prev))) == nxt:
            return True
        prev, node = node, nxt
    return False


def check_named_flows(name, scenario, d, connections, key):
    """The deadlock's flows must carry labels; the ids (key) of its data flows must be exactly
    the connections routed through the cycle, its acknowledgements only of connections whose
    acknowledgements are. connections: id -> (src host, dst host)."""
    data = {i for i, (a, b) in connections.items() if through_cycle(scenario, d["cycle"], a, b)}
    acks = {i for i, (a, b) in connections.items() if through_cycle(scenario, d["cycle"], b, a)}
    named = set()
    for f in d["flows"]:
        if key not in f or f.get("direction") not in ("data", "ack"):
            clitest.fail(f"{name}: flow {f} carries no {key!r} and direction")
        i = f[key]
        if (f["src"], f["dst"]) != connections[i]:
            clitest.fail(f"{name}: {f} names the wrong hosts, expected {connections[i]}")
        if f["direction"] == "data":
            named.add(i)
        elif i not in acks:
            clitest.fail(f"{name}: acknowledgements of {key} {i} named, but not routed through "
                         f"the cycle {d['cycle']}")
    if named != data:
        clitest.fail(f"{name}: data of {key} {sorted(named)} named, expected {sorted(data)} "
                     f"(routed through the cycle {d['cycle']})")
    return sorted(named)


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
    if not 1000 - 1e-6 <= late <= 1000 + deadlock["interval_us"] + 1e-6:  # floating-point us
        clitest.fail(f"ring4-deadlock: detected {late} us after forming, expected Persist + one interval")
    if summary["drops"] and sum(summary["drops"].values()) != 0:
        clitest.fail(f"ring4-deadlock: PFC dropped packets: {summary['drops']}")
    scenario = json.load(open(os.path.join(scenarios, "ring4-deadlock.json")))
    flows = {i: (f["src"], f["dst"]) for i, f in enumerate(scenario["flows"])}
    named = check_named_flows("ring4-deadlock", scenario, d, flows, "flow")
    print(f"ring4-deadlock: {' -> '.join(d['cycle'])}, formed {d['formed_us']:.1f} us, "
          f"flows {named}")
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
    # A ring all-reduce deadlocks the ring when its edges cross each other's links.
    deadlock, summary = run(program, work, os.path.join(scenarios, "ring4-allreduce-deadlock.json"))
    found = deadlock["deadlocks"]
    if len(found) != 1 or len(found[0]["cycle"]) != 4:
        clitest.fail(f"ring4-allreduce-deadlock: {found}, expected one cycle of four queues")
    scenario = json.load(open(os.path.join(scenarios, "ring4-allreduce-deadlock.json")))
    ranks = scenario["collectives"][0]["ranks"]
    edges = {r: (ranks[r], ranks[(r + 1) % len(ranks)]) for r in range(len(ranks))}
    if any(f.get("collective") != 0 or f.get("channel") != 0 for f in found[0]["flows"]):
        clitest.fail(f"ring4-allreduce-deadlock: flows {found[0]['flows']} not all collective 0")
    named = check_named_flows("ring4-allreduce-deadlock", scenario, found[0], edges, "rank")
    c = summary["collectives"][0]
    if c["time_us"] is not None:
        clitest.fail(f"ring4-allreduce-deadlock: the collective finished: {c}")
    print(f"ring4-allreduce-deadlock: formed {found[0]['formed_us']:.1f} us, ranks {named}")
    # The controls: ranks in ring order on the ring; a fat-tree with up-down routes and an
    # incast. The collective finishes, nothing is reported.
    for control, min_samples in (("ring4-allreduce-ring-order", 0),
                                 ("fattree-allreduce-updown", 1)):
        deadlock, summary = run(program, work, os.path.join(scenarios, control + ".json"))
        if deadlock["deadlocks"] or deadlock["samples"] < min_samples:
            clitest.fail(f"{control}: {deadlock['deadlocks']}, {deadlock['samples']} samples")
        c = summary["collectives"][0]
        missing = [k for k in COLLECTIVE_KEYS if k not in c]
        if missing or not c["busbw_GBps"] > 0 or not 0 < c["efficiency"] <= 1:
            clitest.fail(f"{control}: collectives[0] = {c}, missing {missing}")
        if summary["flows"]["finished"] != summary["flows"]["total"]:
            clitest.fail(f"{control}: flows {summary['flows']}")
        print(f"{control}: {c['time_us']:.1f} us, busbw {c['busbw_GBps']:.2f} GB/s, "
              f"no deadlock ({deadlock['samples']} samples)")
    check_clos_bounce(program, work, scenarios)
    print("ok")


def rotations(cycle):
    return [cycle[i:] + cycle[:i] for i in range(len(cycle))]


def check_clos_bounce(program, work, scenarios):
    """Bounced traffic deadlocks a Clos; Tagger's retagging prevents it."""
    deadlock, summary = run(program, work, os.path.join(scenarios, "clos-bounce-deadlock.json"))
    found = deadlock["deadlocks"]
    if len(found) != 1:
        clitest.fail(f"clos-bounce-deadlock: {len(found)} deadlocks reported, expected 1")
    d = found[0]
    # Wait order, as switch:ingress port:priority: leaf2's queue from spine0 waits for spine1's
    # from leaf2, that for leaf3's from spine1, that for spine0's from leaf3, and around.
    expected = ["leaf2:0:3", "spine1:2:3", "leaf3:1:3", "spine0:3:3"]
    if d["cycle"] not in rotations(expected):
        clitest.fail(f"clos-bounce-deadlock: cycle {d['cycle']}, expected a rotation of {expected}")
    if not d["formed_us"] < 6000:
        clitest.fail(f"clos-bounce-deadlock: formed at {d['formed_us']} us, expected before the "
                     "senders stop at 6 ms")
    late = d["detected_us"] - d["formed_us"]
    if not 1000 - 1e-6 <= late <= 1000 + deadlock["interval_us"] + 1e-6:  # floating-point us
        clitest.fail(f"clos-bounce-deadlock: detected {late} us after forming, expected Persist + "
                     "one interval")
    # A true deadlock: it outlives the senders (they stop at 6 ms, the run ends at 10 ms) and no
    # flow ever finishes; PFC dropped nothing.
    if summary["flows"]["finished"] != 0:
        clitest.fail(f"clos-bounce-deadlock: flows {summary['flows']}, expected none finished")
    if sum(summary["drops"].values()) != 0:
        clitest.fail(f"clos-bounce-deadlock: packets dropped: {summary['drops']}")
    print(f"clos-bounce-deadlock: {' -> '.join(d['cycle'])}, formed {d['formed_us']:.1f} us")

    name = "clos-bounce-tagger"
    deadlock, summary = run(program, work, os.path.join(scenarios, name + ".json"))
    if deadlock["deadlocks"]:
        clitest.fail(f"{name}: deadlock reported: {deadlock['deadlocks']}")
    # Not for want of looking: switches paused each other, so the detector sampled the graph.
    if deadlock["samples"] == 0:
        clitest.fail(f"{name}: the detector never sampled (no switch was paused)")
    if summary.get("tagger", {}).get("retagged", 0) == 0:
        clitest.fail(f"{name}: no packet retagged: {summary.get('tagger')}")
    if sum(summary["drops"].values()) != 0:
        clitest.fail(f"{name}: packets dropped: {summary['drops']}")
    rows = list(csv.DictReader(open(os.path.join(work, name, "fct.csv"))))
    unfinished = [f"{r['src']}->{r['dst']}" for r in rows if r["fct_us"] == ""]
    if len(rows) != 4 or unfinished or summary["flows"]["finished"] != 4:
        clitest.fail(f"{name}: flows {summary['flows']}, unfinished {unfinished}")
    fcts = ", ".join(f"{r['src']}->{r['dst']} {float(r['fct_us']):.0f} us" for r in rows)
    print(f"{name}: no deadlock ({deadlock['samples']} samples), "
          f"{summary['tagger']['retagged']} packets retagged; FCT {fcts}")


if __name__ == "__main__":
    main()
