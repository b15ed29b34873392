#!/usr/bin/env python3
"""nccl-tests: a small sweep on 2 nodes x 2 GPUs completes on RoCEv2 and InfiniBand, printing
one nccl-tests row per size (size, count, type, redop, root, time, algbw, busbw, algo/proto,
tuner) whose algbw and busbw follow from size and time with nccl-tests' factors; summary.json
has the same keys on both fabrics, a collectives[] entry per row, the connections the
communicator made (NVLink, network, PXN), no drop, no retransmission; nccl-tests.csv has the
rows. The analytical mode prints the tuner's time as the time. all_gather runs nccl-tests'
aligned sizes. Two identical runs give identical results.

usage: nccl-tests.py WORKDIR BINARY
"""

import csv
import json
import os
import re
import sys

import clitest

ROW = re.compile(r"^\s+(\d+)\s+(\d+)\s+(\w+)\s+(\w+)\s+(-?\d+)\s+([\d.]+)\s+([\d.]+)\s+([\d.]+)"
                 r"\s+(\w+)/(\w+)\s+([\d.]+|-)$")
SMALL = ["--nodes=2", "--gpus=2", "--linkRate=100Gbps", "-b", "1K", "-e", "4M", "-f", "4"]


def run(binary, cwd, name, args):
    out = os.path.join(cwd, name)
    p = clitest.run_ok(binary, [*args, f"--out={out}"], cwd, timeout=100)
    print(p.stdout)
    rows = [ROW.match(l) for l in p.stdout.splitlines()]
    return [r for r in rows if r], clitest.load_summary(out), out


def check_rows(name, rows, summary, factor, problems):
    if len(rows) != len(summary.get("collectives", [])):
        problems.append(f"{name}: {len(rows)} rows printed, "
                        f"{len(summary.get('collectives', []))} in summary.json")
    for r, c in zip(rows, summary.get("collectives", [])):
        size, t, algbw, busbw = int(r[1]), float(r[6]), float(r[7]), float(r[8])
        if c.get("size_bytes") != size or c.get("time_us") is None:
            problems.append(f"{name}: row {r[0]!r} vs summary {c!r}")
            continue
        want = size / (c["time_us"] * 1e-6) / 1e9
        if abs(algbw - want) > 0.006 + 0.001 * want:
            problems.append(f"{name}: algbw {algbw} for {size} B in {t} us, expected {want:.2f}")
        if abs(busbw - want * factor) > 0.006 + 0.001 * want * factor:
            problems.append(f"{name}: busbw {busbw}, expected {want * factor:.2f}")
        if c.get("algorithm") != r[9] or c.get("protocol") != r[10]:
            problems.append(f"{name}: row says {r[9]}/{r[10]}, summary {c.get('algorithm')}/"
                            f"{c.get('protocol')}")


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    workdir, binary = sys.argv[1], sys.argv[2]
    cwd = clitest.fresh_dir(workdir)
    problems = []
    ranks = 4
    factor = 2 * (ranks - 1) / ranks

    roce_rows, roce, roce_dir = run(binary, cwd, "roce", [*SMALL, "--fabric=roce"])
    ib_rows, ib, _ = run(binary, cwd, "ib", [*SMALL, "--fabric=ib"])
    for name, rows, s in (("roce", roce_rows, roce), ("ib", ib_rows, ib)):
        sizes = [int(r[1]) for r in rows]
        if sizes != [1024 * 4 ** i for i in range(7)]:
            problems.append(f"{name}: sizes {sizes}")
        check_rows(name, rows, s, factor, problems)
        if s.get("complete") is not True or s.get("drops", {}).get("total") != 0:
            problems.append(f"{name}: complete {s.get('complete')!r}, drops {s.get('drops')!r}")
        if s.get("retransmitted_packets") != 0:
            problems.append(f"{name}: {s.get('retransmitted_packets')} retransmitted packets")
        comm = s.get("communicator", {})
        if comm.get("ranks") != ranks or comm.get("network_connections", 0) == 0 \
                or comm.get("nvlink_connections", 0) == 0:
            problems.append(f"{name}: communicator {comm!r}")
        # Large messages: the busbw grows with the size and the tuner is within 25 %.
        last = s["collectives"][-1]
        if not last["busbw_GBps"] > s["collectives"][-2]["busbw_GBps"]:
            problems.append(f"{name}: busbw does not grow at the largest sizes")
        if abs(last["time_us"] / last["tuner_time_us"] - 1) > 0.25:
            problems.append(f"{name}: 4 MiB took {last['time_us']} us, tuner "
                            f"{last['tuner_time_us']} us")
    if set(roce) != set(ib):
        problems.append(f"summary keys differ: {sorted(set(roce) ^ set(ib))}")
    with open(os.path.join(roce_dir, "nccl-tests.csv")) as f:
        table = list(csv.DictReader(f))
    if [int(r["size_bytes"]) for r in table] != [int(r[1]) for r in roce_rows]:
        problems.append("nccl-tests.csv does not hold the printed rows")

    # The analytical mode: the tuner's time is the time; nothing is simulated.
    ana_rows, ana, _ = run(binary, cwd, "analytical", [*SMALL, "--mode=analytical"])
    if ana.get("mode") != "analytical" or ana.get("simulator", {}).get("events", 1) != 0:
        problems.append(f"analytical: mode {ana.get('mode')!r}, simulator {ana.get('simulator')!r}")
    for r in ana_rows:
        if r[6] != r[11]:
            problems.append(f"analytical: time {r[6]} is not the tuner's {r[11]}")
    check_rows("analytical", ana_rows, ana, factor, problems)

    # all_gather: each rank's part is rounded down to a multiple of 4 elements, as nccl-tests
    # does: 1000 bytes = 250 floats, 250 / (4 x 4 ranks) x 4 = 60 per rank, 960 bytes.
    ag_rows, ag, _ = run(binary, cwd, "allgather",
                         ["--op=all_gather", "--nodes=2", "--gpus=2", "-b", "1000", "-e", "1000"])
    if [(int(r[1]), int(r[2]), r[4], r[9]) for r in ag_rows] != [(960, 60, "none", "Ring")]:
        problems.append(f"all_gather rows {[r.groups() for r in ag_rows]}")
    check_rows("all_gather", ag_rows, ag, (ranks - 1) / ranks, problems)

    # Determinism: the same run again gives the same results.
    _, again, _ = run(binary, cwd, "again", [*SMALL, "--fabric=roce"])
    if again["collectives"] != roce["collectives"]:
        problems.append("a second identical run gave other results")

    if problems:
        clitest.fail("; ".join(problems))
    print("ok")


if __name__ == "__main__":
    main()
