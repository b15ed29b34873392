#!/usr/bin/env python3
"""rdma-latency: a small RDMA WRITE through one switch on InfiniBand and RoCEv2. Both rows
are printed and recorded; with the default NDR parameters InfiniBand's one-way latency is
about 1 us (0.85-1.1 us): the HCAs' 0.405 + 0.405 us, the cables, the switch's 130 ns; each
fabric's completion (the ACK back) comes after its one-way latency; the network part is the
one-way latency less the hosts'. RoCEv2's switch (store-and-forward and 300 ns) makes it
slower than InfiniBand's (cut-through, 130 ns). --fabric=ib runs InfiniBand only, and --ibGeneration=edr
sets 100 Gb/s links and a 90 ns switch.

usage: rdma-latency.py WORKDIR BINARY
"""

import os

import clitest


def run(binary, cwd, name, args):
    out = os.path.join(cwd, name)
    p = clitest.run_ok(binary, [*args, f"--out={out}"], cwd, timeout=20)
    print(p.stdout)
    return p.stdout, clitest.load_summary(out)


def main():
    binary, cwd = clitest.start(__doc__)
    problems = []

    stdout, s = run(binary, cwd, "default", [])
    rows = {r.get("fabric"): r for r in s.get("latency", [])}
    if sorted(rows) != ["ib", "roce"]:
        problems.append(f"latency rows for {sorted(rows)}, expected ib and roce")
    for fabric, r in rows.items():
        one, done = r.get("one_way_us"), r.get("completion_us")
        tx, rx, net = r.get("host_tx_us"), r.get("host_rx_us"), r.get("network_us")
        if not all(isinstance(v, (int, float)) for v in (one, done, tx, rx, net)):
            problems.append(f"{fabric}: non-numeric entries {r!r}")
            continue
        if not done > one:
            problems.append(f"{fabric}: completion {done} us not after one-way {one} us")
        if abs(one - tx - rx - net) > 1e-9 or net <= 0:
            problems.append(f"{fabric}: one-way {one} != host {tx} + {rx} + network {net}")
        if f"  {r.get('name')}" not in stdout:
            problems.append(f"{fabric}: no printed row for {r.get('name')}")
    ib = rows.get("ib", {})
    if not 0.85 <= ib.get("one_way_us", 0) <= 1.1:
        problems.append(f"IB one-way {ib.get('one_way_us')} us, expected about 1 us")
    if ib.get("host_tx_us") != 0.405 or ib.get("host_rx_us") != 0.405:
        problems.append(f"IB host latency {ib.get('host_tx_us')}/{ib.get('host_rx_us')} us")
    # 2 x 10 ns of cable + 130 ns of switch + serialisation of 86 bytes at 400G (about 2 ns).
    if not 0.150 <= ib.get("network_us", 0) <= 0.155:
        problems.append(f"IB network part {ib.get('network_us')} us, expected 0.150-0.155")
    if s.get("ib_switch_latency_ns") != 130:
        problems.append(f"ib_switch_latency_ns {s.get('ib_switch_latency_ns')!r}, expected 130")
    # RoCEv2: the same hosts, a store-and-forward switch with 300 ns port to port: slower.
    roce = rows.get("roce", {})
    if s.get("roce_switch_latency_ns") != 300 or not 0.320 <= roce.get("network_us", 0) <= 0.330:
        problems.append(f"RoCEv2 network part {roce.get('network_us')} us with a "
                        f"{s.get('roce_switch_latency_ns')} ns switch, expected 0.320-0.330")
    if not roce.get("one_way_us", 0) > ib.get("one_way_us", 1e9):
        problems.append("RoCEv2 is not slower than InfiniBand through one switch")

    _, edr = run(binary, cwd, "edr", ["--fabric=ib", "--ibGeneration=edr"])
    rows = edr.get("latency", [])
    if [r.get("fabric") for r in rows] != ["ib"]:
        problems.append(f"--fabric=ib ran {[r.get('fabric') for r in rows]}")
    if edr.get("topology", {}).get("link_rate_bps") != 100e9 or edr.get(
            "ib_switch_latency_ns") != 90:
        problems.append(f"--ibGeneration=edr: rate {edr.get('topology', {}).get('link_rate_bps')}"
                        f", switch {edr.get('ib_switch_latency_ns')} ns; expected 100G, 90 ns")
    if problems:
        clitest.fail("; ".join(problems))
    print("ok")


if __name__ == "__main__":
    main()
