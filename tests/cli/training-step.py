#!/usr/bin/env python3
"""training-step: a small step (Llama-3-8B shape on 64 GPUs, TP8 PP2 DP4) on TCP, RoCEv2 and
InfiniBand completes; each fabric's row adds up (compute + bubble + exposed communication =
the step), its MFU follows from the model FLOPs, every distinct collective says how it was
timed (packet, or extrapolated above --sample), TCP is the slowest and spends the most on
communication; the analytical mode runs the same step from NCCL's tuner; a second identical
run gives identical results. Replays of the shipped workloads (examples/workloads: our JSON
format and an NCCL COLL log) run on RoCEv2 and InfiniBand with rows that add up and
communication within the step.

usage: training-step.py WORKDIR BINARY
"""

import csv
import os

import clitest

WORKLOADS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "examples",
                         "workloads")
SMALL = ["--model=8B", "--gpus=64", "--tp=8", "--pp=2", "--globalBatch=16", "--sample=4MiB"]


def run(binary, cwd, name, args):
    out = os.path.join(cwd, name)
    p = clitest.run_ok(binary, [*args, f"--out={out}"], cwd, timeout=300)
    print(p.stdout)
    return clitest.load_summary(out), out


def check(name, s, problems):
    fabrics = {f["fabric"]: f for f in s.get("fabrics", [])}
    if set(fabrics) != {"tcp", "roce", "ib"}:
        problems.append(f"{name}: fabrics {sorted(fabrics)}")
        return fabrics
    flops = s["model"]["model_flops_per_step"]
    gpus = s["parallelism"]["gpus"]
    for f in fabrics.values():
        clitest.check_parts(f"{name} {f['fabric']}", f, problems)
        mfu = flops / (f["step_s"] * 989e12 * gpus)
        if abs(mfu - f["mfu"]) > 1e-9:
            problems.append(f"{name} {f['fabric']}: MFU {f['mfu']}, expected {mfu}")
        if not f["collectives"]:
            problems.append(f"{name} {f['fabric']}: no collectives listed")
        for c in f["collectives"]:
            if not (c["how"] in ("packet", "tuner") or c["how"].startswith("extrapolated")):
                problems.append(f"{name}: collective timed '{c['how']}'")
    return fabrics


def check_workloads(binary, cwd, problems):
    for name, fmt, compute in (("pipeline-2stage.json", "json", 0.024),
                               ("nccl-coll-sample.log", "nccl-log", 0.0)):
        w, _ = run(binary, cwd, fmt, [f"--workload={os.path.join(WORKLOADS, name)}",
                                      "--fabric=roce,ib"])
        if w.get("workload", {}).get("format") != fmt:
            problems.append(f"{name}: workload {w.get('workload')}")
        for f in w.get("fabrics", []):
            tag = f"{name} {f['fabric']}"
            clitest.check_parts(tag, f, problems)
            if abs(f["compute_s"] - compute) > 1e-9:
                problems.append(f"{tag}: compute {f['compute_s']}, expected {compute}")
            if not 0 < f["communication_fraction"] <= 1 + 1e-9:
                problems.append(f"{tag}: communication {f['communication_fraction']} of the step")
            if any(c["how"] != "packet" for c in f["collectives"]):
                problems.append(f"{tag}: a collective was not simulated packet by packet")
        if len(w.get("fabrics", [])) != 2:
            problems.append(f"{name}: {len(w.get('fabrics', []))} fabrics")


def main():
    binary, cwd = clitest.start(__doc__)
    problems = []

    s, out = run(binary, cwd, "packet", SMALL)
    f = check("packet", s, problems)
    if len(f) == 3:
        if not f["tcp"]["step_s"] > max(f["roce"]["step_s"], f["ib"]["step_s"]):
            problems.append("TCP is not the slowest fabric")
        if not f["tcp"]["communication_fraction"] > f["roce"]["communication_fraction"]:
            problems.append("TCP does not spend more of the step communicating")
        if f["roce"]["compute_s"] != f["tcp"]["compute_s"]:
            problems.append("compute differs between fabrics")
        hows = {c["how"].split()[0] for c in f["roce"]["collectives"]}
        if "extrapolated" not in hows or "packet" not in hows:
            problems.append(f"expected packet and extrapolated collectives, got {hows}")
    with open(os.path.join(out, "step-breakdown.csv")) as fh:
        rows = list(csv.DictReader(fh))
    if [r["fabric"] for r in rows] != ["TCP", "RoCEv2", "InfiniBand"]:
        problems.append(f"step-breakdown.csv rows {rows}")

    a, _ = run(binary, cwd, "analytical", [*SMALL, "--mode=analytical"])
    fa = check("analytical", a, problems)
    for fab in fa.values():
        if any(c["how"] != "tuner" for c in fab["collectives"]):
            problems.append("the analytical mode simulated a collective")

    again, _ = run(binary, cwd, "again", SMALL)

    def simulated(fs):
        # Wall-clock figures differ between runs; everything simulated must not.
        out = []
        for x in fs:
            x = dict(x)
            x["collectives"] = [{k: v for k, v in c.items() if k != "wall_s"}
                                for c in x["collectives"]]
            out.append(x)
        return out

    if simulated(again["fabrics"]) != simulated(s["fabrics"]):
        problems.append("a second identical run gave other results")

    check_workloads(binary, cwd, problems)

    if problems:
        clitest.fail("; ".join(problems))
    print("ok")


if __name__ == "__main__":
    main()
