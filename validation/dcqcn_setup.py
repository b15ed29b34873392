"""The DCQCN paper's two-flow set-up, shared by the DCQCN validation checks.

Two senders and a receiver on one switch, 40 Gb/s links of 1 us, the paper's DCQCN parameters
(flows --ccPreset=paper) and RED Kmin 5 KB, Kmax 200 KB, Pmax 1 %; the second flow starts
10 ms after the first (validation/dcqcn-star-40g.txt and dcqcn-two-flows.txt). This module runs
the flows program on it and reads back its sending rates and bottleneck queue.
"""

import csv
import os
import subprocess
import sys

from checks import TIMEOUT_SCALE

HERE = os.path.dirname(os.path.abspath(__file__))

STOP = 0.2                 # s: both runs end here
SECOND_START = 0.01        # s: as tests/rocev2/test-dcqcn-scenario.cc
# s: 50 ms after the second flow started. Both have converged: the simulator's flows reach
# their fair share about 22 ms after the second flow starts, the fluid model's queue is within
# 4 % of its fixed point (68.2 KB, reached at about 100 ms).
WINDOW_START = 0.06
SAMPLE = "10us"            # the flows program's --sample

# The RED marking of the set-up, given to both.
KMIN, KMAX, PMAX = 5000, 200000, 0.01
SIM_ARGS = [
    "--topology=" + os.path.join(HERE, "dcqcn-star-40g.txt"),
    "--flows=" + os.path.join(HERE, "dcqcn-two-flows.txt"),
    "--cc=dcqcn",
    "--ccPreset=paper",
    f"--ns3::RoceSwitch::EcnKmin={KMIN}",
    f"--ns3::RoceSwitch::EcnKmax={KMAX}",
    f"--ns3::RoceSwitch::EcnPmax={PMAX}",
    "--ns3::RoceSwitch::EcnReferenceRate=40Gbps",
    # The paper's switch marks a packet as it joins the queue (the simulator's default is at
    # dequeue, as the HPCC artifact's; --mark-at-dequeue compares that instead).
    f"--sample={SAMPLE}",
]
BOTTLENECK = "node3:0"     # the switch port facing the receiver (node 0)


def fail(message):
    print(f"FAIL: {message}", file=sys.stderr)
    sys.exit(1)


def step_average(points, t0, t1):
    """Time average over [t0, t1) of a step function given as sorted (t, value) points (each
    value holds until the next point; the last until t1)."""
    total = 0.0
    for k, (t, v) in enumerate(points):
        end = points[k + 1][0] if k + 1 < len(points) else t1
        a, b = max(t, t0), min(end, t1)
        if b > a:
            total += v * (b - a)
    return total / (t1 - t0)


def run_simulator(program, out, seed, dequeue, stop):
    cmd = [program, f"--out={out}", f"--seed={seed}", f"--stop={stop * 1000:g}ms"] + SIM_ARGS
    cmd.append(f"--ns3::RoceSwitch::EcnMarkAtDequeue={'true' if dequeue else 'false'}")
    print("$ " + " ".join(cmd), flush=True)
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=120 * TIMEOUT_SCALE)
    print(p.stdout)
    if p.returncode != 0:
        fail(f"flows exited {p.returncode}: {p.stderr.strip()}")
    rates = {}
    with open(os.path.join(out, "rates.csv")) as f:
        for row in csv.DictReader(f):
            rates.setdefault(int(row["flow"]), []).append(
                (float(row["time_us"]) * 1e-6, float(row["rate_gbps"])))
    col = BOTTLENECK + ":egress_B"
    queue = []
    with open(os.path.join(out, "queues.csv")) as f:
        reader = csv.DictReader(f)
        if col not in reader.fieldnames:
            fail(f"queues.csv has no column {col}: {reader.fieldnames}")
        for row in reader:
            queue.append((float(row["time_us"]) * 1e-6, float(row[col])))
    if sorted(rates) != [0, 1]:
        fail(f"rates.csv has flows {sorted(rates)}, expected 0 and 1")
    return rates, queue
