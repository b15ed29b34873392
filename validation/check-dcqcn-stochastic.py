#!/usr/bin/env python3
"""Validation.DcqcnShortTermFairness: how unequal two DCQCN flows are over 1 ms windows.

The fluid model (check-dcqcn-fluid.py) holds the two flows of the DCQCN paper's set-up at
exactly equal rates once converged; it cannot say how far apart they wander over short windows,
because it replaces random marks by their expectation. dcqcn_stochastic.py keeps the marks
random (and everything else of the fluid model), so it is the independent reference for that:
this check runs the packet-level simulator on SIM_SEEDS seeds and the stochastic model on
MODEL_SEEDS seeds, and compares, over the 1 ms windows from 60 to 200 ms, the spread of the two
flows' shares, |x - y| / (x + y), pooled over seeds: its mean and its 95th percentile must
agree within a factor FACTOR, and the mean queue within 15 %. It also reports how many runs keep
Jain's index >= 0.99 in every window (the fluid model does so trivially).

Writes to WORKDIR: sim-<seed>/ (the flows runs), fairness.json, fairness-cdf.png and its gnuplot
script (the distribution of the per-window Jain index, simulator and model).

usage: check-dcqcn-stochastic.py WORKDIR FLOWS_PROGRAM
"""

import argparse
import json
import os
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import dcqcn_fluid  # noqa: E402
import dcqcn_stochastic  # noqa: E402
from dcqcn_setup import (KMAX, KMIN, PMAX, SECOND_START, STOP, WINDOW_START,  # noqa: E402
                         fail, run_simulator, step_average)

SIM_SEEDS = range(1, 5)
MODEL_SEEDS = range(1, 9)
WINDOW = 1e-3              # s: the fairness window
FACTOR = 1.5               # the spread statistics must agree within this factor
QUEUE_TOLERANCE = 0.15


def window_averages(points, t0, t1, width):
    """Averages of a step function (sorted (t, value) points) over consecutive windows."""
    n = int(round((t1 - t0) / width))
    sums = [0.0] * n
    for k, (t, v) in enumerate(points):
        end = points[k + 1][0] if k + 1 < len(points) else t1
        a, b = max(t, t0), min(end, t1)
        while b > a:
            w = min(n - 1, int((a - t0) / width + 1e-9))
            edge = min(b, t0 + (w + 1) * width)
            sums[w] += v * (edge - a)
            a = edge
    return [s / width for s in sums]


def jain(x, y):
    return (x + y) ** 2 / (2 * (x * x + y * y))


def summarise(pairs):
    """Spread and Jain statistics of a list of per-window (x, y) rate pairs."""
    spread = sorted(abs(x - y) / (x + y) for x, y in pairs)
    js = sorted(jain(x, y) for x, y in pairs)
    return {
        "windows": len(pairs),
        "spread_mean": sum(spread) / len(spread),
        "spread_p95": spread[int(0.95 * (len(spread) - 1))],
        "jain_min": js[0],
        "jain_p5": js[int(0.05 * (len(js) - 1))],
        "fraction_below_0_99": sum(j < 0.99 for j in js) / len(js),
        "jain_sorted": js,
    }


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("workdir")
    ap.add_argument("program", help="the built flows program")
    args = ap.parse_args()
    shutil.rmtree(args.workdir, ignore_errors=True)
    os.makedirs(args.workdir)
    t0, t1 = WINDOW_START, STOP

    sim_pairs, sim_queue, sim_all_fair = [], [], 0
    for seed in SIM_SEEDS:
        rates, queue = run_simulator(args.program, os.path.join(args.workdir, f"sim-{seed}"),
                                     seed, False, STOP)
        pairs = list(zip(window_averages(rates[0], t0, t1, WINDOW),
                         window_averages(rates[1], t0, t1, WINDOW)))
        sim_all_fair += all(jain(x, y) >= 0.99 for x, y in pairs)
        sim_pairs += pairs
        sim_queue.append(step_average(queue, t0, t1))

    params = dcqcn_fluid.Params(kmin=KMIN, kmax=KMAX, pmax=PMAX)
    model_pairs, model_queue, model_all_fair = [], [], 0
    for seed in MODEL_SEEDS:
        rows, windows = dcqcn_stochastic.simulate(params, [0.0, SECOND_START], STOP, seed)
        first, last = int(round(t0 / WINDOW)), int(round(t1 / WINDOW))
        pairs = [tuple(windows[w]) for w in range(first, last)]
        model_all_fair += all(jain(x, y) >= 0.99 for x, y in pairs)
        model_pairs += pairs
        model_queue.append(step_average([(t, qb) for t, qb, _ in rows], t0, t1))

    sim, model = summarise(sim_pairs), summarise(model_pairs)
    sim["mean_queue_bytes"] = sum(sim_queue) / len(sim_queue)
    model["mean_queue_bytes"] = sum(model_queue) / len(model_queue)
    sim["runs_fair_in_every_window"] = f"{sim_all_fair}/{len(SIM_SEEDS)}"
    model["runs_fair_in_every_window"] = f"{model_all_fair}/{len(MODEL_SEEDS)}"
    print(f"1 ms windows over [{t0 * 1000:g}, {t1 * 1000:g}) ms, pooled over seeds:")
    print(f"  {'':28} {'simulator':>10} {'model':>10}")
    for key in ("spread_mean", "spread_p95", "jain_p5", "jain_min", "fraction_below_0_99",
                "mean_queue_bytes", "runs_fair_in_every_window"):
        a, b = sim[key], model[key]
        fmt = (lambda v: f"{v:10}") if isinstance(a, str) else (lambda v: f"{v:10.4f}")
        print(f"  {key:28} {fmt(a)} {fmt(b)}")

    with open(os.path.join(args.workdir, "fairness.json"), "w") as f:
        json.dump({"window_ms": [t0 * 1000, t1 * 1000], "factor": FACTOR,
                   "sim_seeds": list(SIM_SEEDS), "model_seeds": list(MODEL_SEEDS),
                   "simulator": {k: v for k, v in sim.items() if k != "jain_sorted"},
                   "model": {k: v for k, v in model.items() if k != "jain_sorted"}},
                  f, indent=2)
    write_cdf(args.workdir, sim["jain_sorted"], model["jain_sorted"])

    problems = []
    for key in ("spread_mean", "spread_p95"):
        ratio = sim[key] / model[key]
        if not 1 / FACTOR <= ratio <= FACTOR:
            problems.append(f"{key}: simulator {sim[key]:.4f} vs model {model[key]:.4f}")
    dq = sim["mean_queue_bytes"] / model["mean_queue_bytes"] - 1
    if abs(dq) > QUEUE_TOLERANCE:
        problems.append(f"mean queue: simulator {sim['mean_queue_bytes']:.0f} vs model "
                        f"{model['mean_queue_bytes']:.0f} bytes ({100 * dq:+.1f}%)")
    if problems:
        fail("; ".join(problems))
    print("ok")


def write_cdf(work, sim_js, model_js):
    for name, js in (("sim", sim_js), ("model", model_js)):
        with open(os.path.join(work, f"jain-{name}.csv"), "w") as f:
            f.write("jain,cdf\n")
            for k, j in enumerate(js):
                f.write(f"{j:.6f},{(k + 1) / len(js):.6f}\n")
    with open(os.path.join(work, "fairness-cdf.gp"), "w") as f:
        f.write("""# gnuplot script written by validation/check-dcqcn-stochastic.py; run it in this folder
set terminal pngcairo size 640,420 font 'sans,9'
set output 'fairness-cdf.png'
set datafile separator ','
set title "DCQCN, two flows at 40G (paper parameters): Jain's index per 1 ms window, 60-200 ms"
set grid
set key top left
set xlabel "Jain's fairness index of the two flows' rates over 1 ms"
set ylabel 'fraction of windows'
set xrange [0.95:1]
set arrow from 0.99, graph 0 to 0.99, graph 1 nohead dt 2
plot 'jain-sim.csv' using 1:2 skip 1 with steps lw 2 title 'packet simulator', \\
     'jain-model.csv' using 1:2 skip 1 with steps lw 2 dt 2 title 'stochastic DCQCN model'
""")
    if shutil.which("gnuplot") is None:
        fail("gnuplot is not installed (Debian package gnuplot-nox)")
    p = subprocess.run(["gnuplot", "fairness-cdf.gp"], cwd=work, capture_output=True, text=True)
    if p.returncode != 0:
        fail(f"gnuplot failed: {p.stderr.strip()}")


if __name__ == "__main__":
    main()
