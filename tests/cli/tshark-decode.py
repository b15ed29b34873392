#!/usr/bin/env python3
"""Wireshark reads our pcap files: runs PCAP_WRITER (tests/cli/pcap-writer.cc: a 2:1 RoCEv2
incast through one switch that pauses the senders), then decodes each sender's pcap with
tshark and checks, against what the program printed:
  - RoCEv2 data packets decode as InfiniBand BTH (UDP 4791) with an RDMA WRITE opcode
    (6..11), the destination QP of the receiver's queue pair and consecutive PSNs from the
    first PSN, as many as the QP sent;
  - the ACKs coming back carry opcode 17 and the sender's QP;
  - PFC frames decode as MAC Control opcode 0x0101 to 01:80:c2:00:00:01 with a class-enable
    vector of priority 3 only and a priority-3 pause time of 65535 (XOFF) or 0 (XON), as
    many as the sender's port received, the first an XOFF;
  - nothing is malformed.
Wireshark field names (tshark -G fields): infiniband.bth.opcode, infiniband.bth.destqp,
infiniband.bth.psn, macc.opcode, macc.cbfc.enbv, macc.cbfc.pause_time.c0..c7.

usage: tshark-decode.py WORKDIR PCAP_WRITER
"""

import os
import shutil
import subprocess
import sys

import clitest

FIELDS = [
    "frame.number",
    "frame.protocols",
    "eth.dst",
    "eth.type",
    "ip.src",
    "ip.dst",
    "udp.dstport",
    "infiniband.bth.opcode",
    "infiniband.bth.destqp",
    "infiniband.bth.psn",
    "macc.opcode",
    "macc.cbfc.enbv",
    "_ws.malformed",
] + [f"macc.cbfc.pause_time.c{p}" for p in range(8)]

WRITE_OPCODES = range(6, 12)  # RC RDMA WRITE First .. Only with Immediate (IBTA Table 38)
ACK_OPCODE = 17
PFC_OPCODE = 0x0101
PFC_DST = "01:80:c2:00:00:01"


def find_tshark():
    path = shutil.which("tshark")
    if not path:
        clitest.fail("tshark not found on PATH: install Debian's tshark package "
                     "(apt-get install tshark) to run this test")
    return path


def number(text):
    """An integer field as tshark prints it (decimal, or 0x... for hex fields)."""
    return int(text, 0)


def parse_flows(stdout):
    flows = []
    for line in stdout.splitlines():
        if line.startswith("flow "):
            flows.append(dict(kv.split("=", 1) for kv in line.split()[1:]))
    return flows


def decode(tshark, pcap):
    """One dict per frame, field name -> value ('' when absent)."""
    cmd = [tshark, "-r", pcap, "-T", "fields", "-E", "separator=\t", "-E", "occurrence=f"]
    for f in FIELDS:
        cmd += ["-e", f]
    # tshark run as root warns on stderr; only its exit code and stdout matter.
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=60)
    if p.returncode != 0:
        clitest.fail(f"tshark failed on {pcap} (exit {p.returncode}): {p.stderr[-1000:]}")
    frames = []
    for line in p.stdout.splitlines():
        values = line.split("\t")
        values += [""] * (len(FIELDS) - len(values))
        frames.append(dict(zip(FIELDS, values)))
    return frames


def check_sender(tshark, pcap, flow):
    name = os.path.basename(pcap)
    frames = decode(tshark, pcap)
    if not frames:
        clitest.fail(f"{name}: tshark decoded no frames")
    malformed = [fr["frame.number"] for fr in frames if fr["_ws.malformed"]]
    if malformed:
        clitest.fail(f"{name}: tshark reports malformed frames: {' '.join(malformed[:10])}")
    data, acks, pfc = [], [], []
    for fr in frames:
        if fr["eth.type"] == "0x8808":
            pfc.append(fr)
        elif fr["ip.src"] == flow["src"]:
            data.append(fr)
        elif fr["ip.src"] == flow["dst"]:
            acks.append(fr)
        else:
            clitest.fail(f"{name} frame {fr['frame.number']}: unexpected frame {fr}")

    # RoCEv2 data: BTH decoded, WRITE opcodes, the receiver's QP, consecutive PSNs.
    if len(data) != int(flow["packets"]):
        clitest.fail(f"{name}: {len(data)} data packets decoded, the QP sent {flow['packets']}")
    psn = int(flow["first_psn"])
    for fr in data:
        where = f"{name} frame {fr['frame.number']}"
        if "infiniband" not in fr["frame.protocols"].split(":"):
            clitest.fail(f"{where}: not decoded as RoCE/InfiniBand ({fr['frame.protocols']})")
        if fr["udp.dstport"] != "4791" or fr["ip.dst"] != flow["dst"]:
            clitest.fail(f"{where}: UDP port {fr['udp.dstport']}, to {fr['ip.dst']}")
        if not fr["infiniband.bth.opcode"]:
            clitest.fail(f"{where}: no infiniband.bth.opcode field")
        opcode = number(fr["infiniband.bth.opcode"])
        if opcode not in WRITE_OPCODES:
            clitest.fail(f"{where}: BTH opcode {opcode}, expected an RDMA WRITE (6..11)")
        if number(fr["infiniband.bth.destqp"]) != int(flow["dest_qp"]):
            clitest.fail(f"{where}: destination QP {fr['infiniband.bth.destqp']}, the program "
                         f"printed {flow['dest_qp']}")
        if number(fr["infiniband.bth.psn"]) != psn:
            clitest.fail(f"{where}: PSN {fr['infiniband.bth.psn']}, expected {psn}")
        psn = (psn + 1) & 0xFFFFFF
    first = number(data[0]["infiniband.bth.opcode"])
    last = number(data[-1]["infiniband.bth.opcode"])
    if len(data) > 1 and (first != 6 or last not in (8, 9)):
        clitest.fail(f"{name}: a multi-packet WRITE must open with opcode 6 and close with 8 or 9, "
                     f"got {first} .. {last}")

    # ACKs from the receiver to the sender's QP.
    if not acks:
        clitest.fail(f"{name}: no ACK came back")
    for fr in acks:
        where = f"{name} frame {fr['frame.number']}"
        if number(fr["infiniband.bth.opcode"] or "-1") != ACK_OPCODE:
            clitest.fail(f"{where}: BTH opcode {fr['infiniband.bth.opcode']} from the receiver, "
                         f"expected ACK ({ACK_OPCODE})")
        if number(fr["infiniband.bth.destqp"]) != int(flow["src_qp"]):
            clitest.fail(f"{where}: ACK to QP {fr['infiniband.bth.destqp']}, expected "
                         f"{flow['src_qp']}")

    # PFC frames received from the switch.
    if len(pfc) != int(flow["pfc_rx"]):
        clitest.fail(f"{name}: {len(pfc)} PFC frames decoded, the port received {flow['pfc_rx']}")
    if not pfc:
        clitest.fail(f"{name}: no PFC frame in the capture (the switch never paused the sender)")
    times = []
    for fr in pfc:
        where = f"{name} frame {fr['frame.number']}"
        if fr["eth.dst"] != PFC_DST:
            clitest.fail(f"{where}: PFC frame to {fr['eth.dst']}, expected {PFC_DST}")
        if not fr["macc.opcode"] or number(fr["macc.opcode"]) != PFC_OPCODE:
            clitest.fail(f"{where}: MAC Control opcode {fr['macc.opcode']!r}, expected 0x0101")
        if not fr["macc.cbfc.enbv"] or number(fr["macc.cbfc.enbv"]) != 1 << 3:
            clitest.fail(f"{where}: class-enable vector {fr['macc.cbfc.enbv']!r}, expected "
                         f"0x0008 (priority 3)")
        for p in range(8):
            value = number(fr[f"macc.cbfc.pause_time.c{p}"] or "-1")
            if p != 3 and value != 0:
                clitest.fail(f"{where}: pause time of priority {p} is {value}, expected 0")
        t3 = number(fr["macc.cbfc.pause_time.c3"] or "-1")
        if t3 not in (65535, 0):
            clitest.fail(f"{where}: priority-3 pause time {t3}, expected 65535 or 0")
        times.append(t3)
    if times[0] != 65535:
        clitest.fail(f"{name}: the first PFC frame is not an XOFF (pause time {times[0]})")

    return len(data), len(acks), times.count(65535), times.count(0)


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    workdir, program = sys.argv[1], sys.argv[2]
    tshark = find_tshark()
    cwd = clitest.fresh_dir(workdir)
    out = os.path.join(cwd, "pcap")
    os.makedirs(out)
    p = clitest.run_ok(program, [f"--out={out}"], cwd, timeout=30)
    print(p.stdout, end="")
    flows = parse_flows(p.stdout)
    if len(flows) != 2:
        clitest.fail(f"expected two 'flow' lines from {program}, got {len(flows)}")
    for flow in flows:
        pcap = os.path.join(out, f"{flow['host']}-0.pcap")
        if not os.path.isfile(pcap):
            clitest.fail(f"{pcap} was not written")
        data, acks, xoff, xon = check_sender(tshark, pcap, flow)
        print(f"ok: {os.path.basename(pcap)}: {data} RoCEv2 WRITE packets (QP {flow['dest_qp']}, "
              f"PSN {flow['first_psn']}..), {acks} ACKs, {xoff} XOFF + {xon} XON frames")


if __name__ == "__main__":
    main()
