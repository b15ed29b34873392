#!/usr/bin/env python3
"""Validation.DcqcnFluidModel: the packet-level simulator's DCQCN against the DCQCN fluid model.

The DCQCN paper's two-flow convergence (Zhu et al., SIGCOMM 2015, section 5; CoNEXT 2016,
section 4): two senders and a receiver on one switch, 40 Gb/s links of 1 us, the paper's DCQCN
parameters (flows --ccPreset=paper) and RED Kmin 5 KB, Kmax 200 KB, Pmax 1 %; the second flow
starts 10 ms after the first. The flows program runs it (validation/dcqcn-star-40g.txt and
dcqcn-two-flows.txt) with --sample; dcqcn_fluid.py solves the fluid model of the same set-up.
After convergence (from WINDOW_START to the end) each flow's time-averaged sending rate and the
time-averaged bottleneck queue of the two must agree within 15 %.

Writes to WORKDIR: sim/ (the flows run), fluid.csv (the model's solution), comparison.json, and
dcqcn-fluid.png with its gnuplot script (rate and queue over time, both overlaid).

usage: check-dcqcn-fluid.py WORKDIR FLOWS_PROGRAM [--seed=N] [--mark-at-dequeue]
"""

import argparse
import json
import os
import shutil
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import dcqcn_fluid  # noqa: E402  (this folder's independent solver)
from dcqcn_setup import (BOTTLENECK, KMAX, KMIN, PMAX, SECOND_START, STOP,  # noqa: E402
                         WINDOW_START, fail, run_simulator, step_average)

TOLERANCE = 0.15           # the bound on the relative difference
FLUID_DT = 1e-6            # s: Euler step (1 us and 0.25 us give the same averages to 0.1 %)


def run_fluid_model(path, dequeue, stop):
    # Marking at enqueue: the mark still waits out the queue before it heads back (tau* grows
    # by q/C); at dequeue it does not.
    params = dcqcn_fluid.Params(kmin=KMIN, kmax=KMAX, pmax=PMAX, queueing_in_delay=not dequeue)
    rows = dcqcn_fluid.solve(params, [0.0, SECOND_START], stop, dt=FLUID_DT, record_every=1e-5)
    with open(path, "w") as f:
        f.write("time_us,q_bytes,rc0_gbps,rc1_gbps\n")
        for t, qb, rcs, _ in rows:
            # empty before the second flow starts (gnuplot leaves it out)
            rc1 = f"{rcs[1] / 1e9:.6f}" if t >= SECOND_START else ""
            f.write(f"{t * 1e6:.3f},{qb:.1f},{rcs[0] / 1e9:.6f},{rc1}\n")
    rates = {i: [(t, rcs[i] / 1e9) for t, _, rcs, _ in rows] for i in (0, 1)}
    queue = [(t, qb) for t, qb, _, _ in rows]
    return rates, queue


def write_plot(work, sim_dir, stop):
    rel = os.path.relpath(sim_dir, work)
    gp = os.path.join(work, "dcqcn-fluid.gp")
    with open(gp, "w") as f:
        f.write(f"""# gnuplot script written by validation/check-dcqcn-fluid.py; run it in this folder
set terminal pngcairo size 800,560 font 'sans,9'
set output 'dcqcn-fluid.png'
set datafile separator ','
set multiplot layout 2,1 title "DCQCN, two flows into one 40G port (paper parameters, RED 5 KB/200 KB/1%): simulator vs fluid model"
set grid
set lmargin at screen 0.09
set rmargin at screen 0.78
set xrange [0:{stop * 1000:g}]
set key outside right top
set format x ''
set ylabel 'sending rate (Gb/s)'
set yrange [0:42]
x0 = NaN; y0 = NaN; x1 = NaN; y1 = NaN
plot '{rel}/rates.csv' using (column(2) == 0 ? (x0 = $1/1000, y0 = $3, x0) : x0):(y0) with steps lw 1.2 lc rgb '#1f77b4' title 'sim flow 1', \\
     '{rel}/rates.csv' using (column(2) == 1 ? (x1 = $1/1000, y1 = $3, x1) : x1):(y1) with steps lw 1.2 lc rgb '#ff7f0e' title 'sim flow 2', \\
     'fluid.csv' using ($1/1000):3 with lines lw 2 dt 2 lc rgb '#08306b' title 'fluid flow 1', \\
     'fluid.csv' using ($1/1000):4 with lines lw 2 dt 3 lc rgb '#a63603' title 'fluid flow 2'
set format x '%g'
set xlabel 'time (ms)'
set ylabel 'bottleneck queue (KB)'
set yrange [0:*]
plot '{rel}/queues.csv' using ($1/1000):(column('{BOTTLENECK}:egress_B')/1000) with lines lw 1 lc rgb '#2ca02c' title 'sim', \\
     'fluid.csv' using ($1/1000):($2/1000) with lines lw 2 lc rgb '#000000' title 'fluid model'
unset multiplot
""")
    if shutil.which("gnuplot") is None:
        fail("gnuplot is not installed (Debian package gnuplot-nox)")
    p = subprocess.run(["gnuplot", "dcqcn-fluid.gp"], cwd=work, capture_output=True, text=True)
    if p.returncode != 0:
        fail(f"gnuplot failed: {p.stderr.strip()}")
    return os.path.join(work, "dcqcn-fluid.png")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("workdir")
    ap.add_argument("program", help="the built flows program")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--stop", type=float, default=STOP, help="end of both runs (s)")
    ap.add_argument("--mark-at-dequeue", action="store_true",
                    help="run the simulator's switch with marking at dequeue")
    args = ap.parse_args()
    shutil.rmtree(args.workdir, ignore_errors=True)
    os.makedirs(args.workdir)
    sim_dir = os.path.join(args.workdir, "sim")

    t = time.time()
    sim_rates, sim_queue = run_simulator(args.program, sim_dir, args.seed, args.mark_at_dequeue,
                                         args.stop)
    sim_wall = time.time() - t
    t = time.time()
    fl_rates, fl_queue = run_fluid_model(os.path.join(args.workdir, "fluid.csv"),
                                         args.mark_at_dequeue, args.stop)
    fluid_wall = time.time() - t

    # The simulator must show the set-up's dynamics, or agreeing with the model means nothing:
    # the first flow alone at line rate, both cut when the second joins.
    alone = step_average(sim_rates[0], 0.001, SECOND_START)
    if alone < 38:
        fail(f"flow 1 alone averaged {alone:.2f} Gb/s, expected about 40 (line rate)")
    lowest = min(r for t, r in sim_rates[0] + sim_rates[1] if t >= SECOND_START)
    if lowest > 30:
        fail(f"no rate cut after the second flow started (lowest rate {lowest:.2f} Gb/s)")
    # The fluid model has no PFC (DCQCN acts before PFC would); neither may the run.
    with open(os.path.join(sim_dir, "summary.json")) as f:
        pauses = json.load(f)["pfc"]["pfc_frames_sent"]
    if pauses:
        fail(f"the switch sent {pauses} PFC frames; the fluid model assumes none")

    t0, t1 = WINDOW_START, args.stop
    figures = []
    for name, sim, fluid, unit in (
        ("flow 1 rate", step_average(sim_rates[0], t0, t1), step_average(fl_rates[0], t0, t1),
         "Gb/s"),
        ("flow 2 rate", step_average(sim_rates[1], t0, t1), step_average(fl_rates[1], t0, t1),
         "Gb/s"),
        ("queue", step_average(sim_queue, t0, t1) / 1000, step_average(fl_queue, t0, t1) / 1000,
         "KB"),
    ):
        figures.append({"quantity": name, "unit": unit, "simulator": sim, "fluid_model": fluid,
                        "difference": (sim - fluid) / fluid if fluid else float("inf")})
    print(f"time averages over [{t0 * 1000:g}, {t1 * 1000:g}) ms:")
    print(f"  {'':12} {'simulator':>10} {'fluid':>10} {'diff':>8}")
    for f in figures:
        print(f"  {f['quantity']:12} {f['simulator']:10.3f} {f['fluid_model']:10.3f} "
              f"{100 * f['difference']:+7.1f}%  ({f['unit']})")
    print(f"wall: simulator {sim_wall:.1f} s, fluid model {fluid_wall:.1f} s")
    with open(os.path.join(args.workdir, "comparison.json"), "w") as f:
        json.dump({"window_ms": [t0 * 1000, t1 * 1000], "tolerance": TOLERANCE,
                   "seed": args.seed, "mark_at_dequeue": args.mark_at_dequeue,
                   "figures": figures}, f, indent=2)
    png = write_plot(args.workdir, sim_dir, args.stop)
    print(f"plot: {png}")
    bad = [f for f in figures if not abs(f["difference"]) <= TOLERANCE]
    if bad:
        fail("; ".join(f"{f['quantity']}: simulator {f['simulator']:.3f} vs fluid model "
                       f"{f['fluid_model']:.3f} {f['unit']} ({100 * f['difference']:+.1f}%)"
                       for f in bad) + f", beyond {100 * TOLERANCE:g}%")
    print("ok")


if __name__ == "__main__":
    main()
