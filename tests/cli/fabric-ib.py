#!/usr/bin/env python3
"""fattree-allreduce --fabric=ib: the same ring all-reduce on InfiniBand completes without a
drop within 10 % of its alpha-beta bound; its summary.json has the same top-level keys as a
RoCEv2 run's, with IB's drop reasons and IB's per-packet overhead (34 bytes) in the bound;
the printed table has the same columns. With the default 64 KiB per VL on 400 Gb/s links of
1 us the program warns that the links run below line rate; without a buffer given it sizes
one that covers the credit round trip. --pcap writes a file per port; --cc=ib-cct warns that
switches mark nothing without a threshold. The IB run reports its ports (credit wait,
utilisation), the congestion tree and a PNG; --ibGeneration=ndr sets 400G and 130 ns.

usage: fabric-ib.py WORKDIR BINARY [ARG...]   (ARG: e.g. --k=4 --size=4MiB)
"""

import os
import re
import sys

import clitest

ROW = re.compile(r"^\s+\d+\s+\d+\s+float\s+sum\s+[\d.]+\s+[\d.]+\s+[\d.]+\s+[\d.]+\s+[\d.]+%$")


def run(binary, cwd, name, args):
    out = os.path.join(cwd, name)
    p = clitest.run_ok(binary, [*args, f"--out={out}"], cwd, timeout=50)
    print(p.stdout)
    return p.stdout, clitest.load_summary(out)


def table(stdout):
    """The column header lines and the data rows."""
    lines = stdout.splitlines()
    header = [l for l in lines if l.startswith("#         size") or l.startswith("#          (B)")]
    rows = [l for l in lines if ROW.match(l)]
    return header, rows


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    workdir, binary, args = sys.argv[1], sys.argv[2], sys.argv[3:]
    cwd = clitest.fresh_dir(workdir)
    problems = []

    roce_out, roce = run(binary, cwd, "roce", [*args, "--fabric=roce"])
    ib_out, ib = run(binary, cwd, "ib", [*args, "--fabric=ib"])

    if set(ib) != set(roce):
        problems.append(f"top-level keys differ: only IB {sorted(set(ib) - set(roce))}, "
                        f"only RoCEv2 {sorted(set(roce) - set(ib))}")
    if ib.get("complete") is not True:
        problems.append(f"IB complete is {ib.get('complete')!r}")
    drops = ib.get("drops", {})
    if drops.get("total") != 0:
        problems.append(f"IB drops.total is {drops.get('total')!r}, expected 0")
    reasons = set(drops.get("by_reason", {}))
    if not {"credit_overrun", "unroutable"} <= reasons:
        problems.append(f"IB drop reasons {sorted(reasons)} lack credit_overrun/unroutable")
    if ib.get("retransmitted_packets") != 0:
        problems.append(f"IB retransmitted {ib.get('retransmitted_packets')!r} packets")
    fab = ib.get("fabric", {})
    if fab.get("name") != "ib" or fab.get("packet_overhead_bytes") != 34:
        problems.append(f"IB fabric entry {fab!r}: expected name ib, 34 bytes per packet")
    if roce.get("fabric", {}).get("packet_overhead_bytes") != 82:
        problems.append(f"RoCEv2 fabric entry {roce.get('fabric')!r}: expected 82 bytes")
    rate = ib["topology"]["link_rate_bps"]
    expected_b = rate / 8 * 4096 / (4096 + 34) / 1e9
    got_b = ib.get("bound", {}).get("payload_bandwidth_GBps")
    if not isinstance(got_b, (int, float)) or abs(got_b - expected_b) > 1e-9 * expected_b:
        problems.append(f"IB payload bandwidth {got_b!r} GB/s, expected {expected_b}")
    if "cut-through" not in ib.get("bound", {}).get("formula", ""):
        problems.append("IB bound formula does not describe cut-through switches")
    for c in ib.get("collectives", []):
        eff = c.get("efficiency")
        print(f"IB {c.get('bytes')} B: {c.get('time_us')} us, bound {c.get('bound_us')} us, "
              f"efficiency {eff}")
        if not isinstance(eff, (int, float)) or not 0.90 <= eff <= 1.0:
            problems.append(f"IB efficiency {eff!r} outside [0.90, 1.0]")
    roce_header, roce_rows = table(roce_out)
    ib_header, ib_rows = table(ib_out)
    if ib_header != roce_header or len(ib_header) != 2:
        problems.append(f"IB table header {ib_header!r} differs from RoCEv2's {roce_header!r}")
    if len(ib_rows) != len(roce_rows) or not ib_rows:
        problems.append(f"{len(ib_rows)} IB table rows, {len(roce_rows)} RoCEv2 rows")
    if "# Ring all-reduce, 16 ranks (one per host), InfiniBand, 1 channel" not in ib_out:
        problems.append("the IB run does not name InfiniBand above its table")
    if not re.search(r"^# InfiniBand: \d+ bytes of receive buffer per VL", ib_out, re.M):
        problems.append("the IB run does not print its VL buffer")

    # Observability: port counters, congestion tree, CSVs and a plot.
    obs = fab.get("infiniband", {}).get("observability", {})
    ib_dir = os.path.join(cwd, "ib")
    for name in ("ib-ports.csv", "ib-credits.csv", "ib-congestion.csv", "ib-port-waits.csv"):
        if not os.path.isfile(os.path.join(ib_dir, name)):
            problems.append(f"the IB run wrote no {name}")
    ports = obs.get("ports", {})
    if ports.get("count") != 96:
        problems.append(f"observability counts {ports.get('count')!r} ports, expected 96")
    util = ports.get("max_utilisation")
    if not isinstance(util, (int, float)) or not 0.5 < util <= 1.0:
        problems.append(f"busiest port utilisation {util!r}, expected a ring link near 1")
    vls = obs.get("vls", [])
    if not vls or vls[0].get("vl") != 0 or vls[0].get("xmit_data_bytes", 0) <= 0:
        problems.append(f"per-VL figures {vls!r}: expected VL 0 to have carried the bytes")
    tree = obs.get("congestion_tree", {})
    if not isinstance(tree.get("max_depth"), int) or not isinstance(
            tree.get("max_congested_ports"), int):
        problems.append(f"congestion tree entry {tree!r}")
    plot = obs.get("plot", "")
    if not plot.endswith("ib-fabric.png") or not os.path.isfile(plot):
        problems.append(f"no IB plot: {plot!r}")
    if "# InfiniBand: worst credit wait" not in ib_out:
        problems.append("the IB run does not print its credit-wait line")
    # --ibGeneration: the generation's rate and switch latency.
    ndr_out, ndr = run(binary, cwd, "ndr", ["--fabric=ib", "--size=1MiB", "--ibGeneration=ndr"])
    ndr_ib = ndr.get("fabric", {}).get("infiniband", {})
    if (ndr["topology"]["link_rate_bps"] != 400e9 or ndr_ib.get("generation") != "ndr"
            or ndr_ib.get("switch_latency_ns") != 130):
        problems.append(f"--ibGeneration=ndr: rate {ndr['topology']['link_rate_bps']}, "
                        f"entry {ndr_ib!r}")
    edr_out, edr = run(binary, cwd, "edr", ["--fabric=ib", "--size=1MiB", "--ibGeneration=edr",
                                            "--linkRate=200Gbps"])
    if (edr["topology"]["link_rate_bps"] != 200e9
            or edr.get("fabric", {}).get("infiniband", {}).get("switch_latency_ns") != 90):
        problems.append("--ibGeneration=edr --linkRate=200Gbps: the given rate must win and "
                        "EDR's 90 ns switch latency apply")
    # A buffer too small for 400 Gb/s on 1 us links: a warning, and the fraction in the summary.
    small_out, small = run(binary, cwd, "small", ["--fabric=ib", "--linkRate=400Gbps",
                                                  "--size=1MiB",
                                                  "--ns3::IbNetDevice::VlBufferBytes=65536"])
    frac = small.get("fabric", {}).get("infiniband", {}).get("max_line_rate_fraction")
    if "# warning:" not in small_out or not isinstance(frac, float) or not 0.4 < frac < 0.6:
        problems.append(f"64 KiB at 400G: no warning or fraction {frac!r} not near 56%")
    # No buffer given: sized for the round trip (at most IB's 2048 credits), no warning.
    sized_out, sized = run(binary, cwd, "sized", ["--fabric=ib", "--linkRate=400Gbps",
                                                  "--size=1MiB"])
    ibj = sized.get("fabric", {}).get("infiniband", {})
    if "# warning:" in sized_out or ibj.get("vl_buffer_bytes") != 131072:
        problems.append(f"400G sized buffer: {ibj!r}, expected 131072 bytes and no warning")
    # --pcap on IB: one file per port (16 HCAs and 20 switches of 4 ports).
    pcap = os.path.join(cwd, "pcap")
    run(binary, cwd, "pcap", ["--fabric=ib", "--size=64KiB", f"--pcap={pcap}"])
    files = [f for f in os.listdir(pcap) if f.endswith(".pcap")] if os.path.isdir(pcap) else []
    if len(files) != 96:
        problems.append(f"--pcap wrote {len(files)} files, expected 96")
    # --cc on IB: a warning while switches do not mark.
    cc_out, _ = run(binary, cwd, "cc", ["--fabric=ib", "--size=64KiB", "--cc=ib-cct"])
    if "CcThreshold" not in cc_out:
        problems.append("--cc=ib-cct without a marking threshold printed no warning")
    if problems:
        clitest.fail("; ".join(problems))
    print("ok")


if __name__ == "__main__":
    main()
