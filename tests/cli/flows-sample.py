#!/usr/bin/env python3
"""Scenario.FlowsSampling: flows --sample writes rates.csv and queues.csv that agree with the
run: with DCQCN on a 4:1 incast the senders' rates fall below line rate and the receiver's
ToR downlink queues up past the marking threshold; every row parses, rows are in time order,
each flow's rows lie within its lifetime; without congestion control each flow has exactly two
rows at line rate (repeats are left out); the same seed gives the same bytes.

usage: flows-sample.py WORKDIR PROGRAM FLOWFILE
"""
import csv
import json
import os
import sys

import clitest

LINE_GBPS = 100.0             # flows' default --linkRate
KMIN_100G = 400e3             # RoceSwitch EcnKmin default, 100 KB per 25 Gb/s, at 100 Gb/s
INTERVAL_US = 10.0
# examples/flows-incast.txt: receivers are hosts 0 and 2 of the k=4 fat-tree, behind edge
# switches edge0-0 and edge0-1 (port 0 faces the first host of each).
DEFAULT_PORTS = ["edge0-0:0", "edge0-1:0"]


def read_csv(path):
    with open(path) as f:
        rows = list(csv.reader(f))
    if not rows:
        clitest.fail(f"{path} is empty")
    return rows[0], rows[1:]


def run(program, work, name, args):
    out = os.path.join(work, name)
    clitest.run_ok(program, ["--out=" + out, "--sample=10us"] + args, work, timeout=60)
    return out


def check_rates(out, nflows):
    header, rows = read_csv(os.path.join(out, "rates.csv"))
    if header != ["time_us", "flow", "rate_gbps"]:
        clitest.fail(f"rates.csv header {header}")
    fct = {int(r["id"]): r for r in csv.DictReader(open(os.path.join(out, "fct.csv")))}
    by_flow = {}
    last_t = -1.0
    for n, r in enumerate(rows, 2):
        try:
            t, flow, rate = float(r[0]), int(r[1]), float(r[2])
        except (ValueError, IndexError):
            clitest.fail(f"rates.csv line {n} does not parse: {r}")
        if t < last_t:
            clitest.fail(f"rates.csv line {n}: time {t} before {last_t}")
        last_t = t
        if not 0 <= flow < nflows:
            clitest.fail(f"rates.csv line {n}: no flow {flow}")
        if not 0 < rate <= LINE_GBPS + 1e-9:
            clitest.fail(f"rates.csv line {n}: rate {rate} Gb/s outside (0, {LINE_GBPS}]")
        start = float(fct[flow]["start_us"])
        end = start + float(fct[flow]["fct_us"])
        if t < start or t > end:
            clitest.fail(f"rates.csv line {n}: flow {flow} sampled at {t} us, outside its "
                         f"lifetime [{start}, {end}]")
        by_flow.setdefault(flow, []).append((t, rate))
    for flow in range(nflows):
        pts = by_flow.get(flow, [])
        if len(pts) < 2:
            clitest.fail(f"flow {flow} has {len(pts)} rows in rates.csv, expected >= 2")
        if pts[0][0] > float(fct[flow]["start_us"]) + INTERVAL_US:
            clitest.fail(f"flow {flow}'s first row at {pts[0][0]} us, more than one interval "
                         "after its start")
        for (t1, r1), (t2, r2) in zip(pts, pts[1:-1]):
            if r1 == r2:
                clitest.fail(f"flow {flow} repeats rate {r1} at {t2} us (repeats are left out)")
    return rows, by_flow


def check_queues(out, ports):
    header, rows = read_csv(os.path.join(out, "queues.csv"))
    expected = ["time_us"]
    for p in ports:
        expected += [p + ":egress_B", p + ":ingress_B", p + ":paused", p + ":pausing"]
    for sw in dict.fromkeys(p.split(":")[0] for p in ports):  # switches in order of appearance
        expected.append(sw + ":buffer_B")
    if header != expected:
        clitest.fail(f"queues.csv header {header}, expected {expected}")
    last_t = -1.0
    for n, r in enumerate(rows, 2):
        try:
            values = [float(r[0])] + [int(v) for v in r[1:]]
        except ValueError:
            clitest.fail(f"queues.csv line {n} does not parse: {r}")
        if len(values) != len(header) or values[0] <= last_t or min(values[1:]) < 0:
            clitest.fail(f"queues.csv line {n}: {r}")
        last_t = values[0]
    return header, rows


def main():
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    work, program, flowfile = sys.argv[1], sys.argv[2], sys.argv[3]
    clitest.fresh_dir(work)
    nflows = sum(1 for line in open(flowfile) if line.strip() and not line.startswith("#"))

    # DCQCN: rates fall, the incast queue builds.
    out = run(program, work, "dcqcn", ["--flows=" + flowfile, "--cc=dcqcn"])
    rows, by_flow = check_rates(out, nflows)
    lowest = min(float(r[2]) for r in rows)
    if lowest >= LINE_GBPS:
        clitest.fail("with DCQCN no sender's rate ever fell below line rate")
    header, qrows = check_queues(out, DEFAULT_PORTS)
    col = header.index("edge0-0:0:egress_B")
    peak = max(int(r[col]) for r in qrows)
    if peak <= KMIN_100G:
        clitest.fail(f"the incast receiver's downlink peaked at {peak} B, not past Kmin "
                     f"({KMIN_100G:g} B), yet senders were cut")
    summary = clitest.load_summary(out)
    sampling = summary.get("sampling", {})
    if sampling.get("rates_rows") != len(rows) or sampling.get("queue_ports") != DEFAULT_PORTS:
        clitest.fail(f"summary.json sampling {sampling} disagrees with the CSVs "
                     f"({len(rows)} rows, ports {DEFAULT_PORTS})")
    png = os.path.join(out, "timeseries.png")
    if not os.path.isfile(png) or os.path.getsize(png) == 0:
        clitest.fail("no timeseries.png")
    print(f"dcqcn: {len(rows)} rate rows, lowest {lowest:.3f} Gb/s; queue peak {peak} B")

    # Same seed, same bytes.
    again = run(program, work, "dcqcn-again", ["--flows=" + flowfile, "--cc=dcqcn"])
    for name in ("rates.csv", "queues.csv"):
        if open(os.path.join(out, name), "rb").read() != open(os.path.join(again, name),
                                                              "rb").read():
            clitest.fail(f"{name} differs between two runs with the same seed")

    # No congestion control: line rate throughout, two rows per flow; --samplePorts.
    out = run(program, work, "none",
              ["--flows=" + flowfile, "--cc=none", "--samplePorts=edge0-0:0,edge0-0:2"])
    rows, by_flow = check_rates(out, nflows)
    for flow, pts in by_flow.items():
        if len(pts) != 2 or any(rate != LINE_GBPS for _, rate in pts):
            clitest.fail(f"without CC flow {flow} has rows {pts}, expected two at line rate")
    check_queues(out, ["edge0-0:0", "edge0-0:2"])
    print("ok")


if __name__ == "__main__":
    main()
