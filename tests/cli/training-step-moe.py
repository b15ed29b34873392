#!/usr/bin/env python3
"""training-step with mixture-of-experts models, in the analytical mode (NCCL's tuner):

- Mixtral 8x7B on 64 GPUs, TP1 PP4 EP8 (Megatron-LM's recipe): each fabric's row adds up
  with its exposed EP, the table and step-breakdown.csv have an EP column, the EP group's
  all-to-all is 8 MiB per GPU pair (4096 tokens x top-2 / 8 experts, one expert per GPU, 4096 x
  2 bytes) inside a node, the experts' gradients go over expert-DP groups of 2, TP 1 moves
  nothing, and MFU's model FLOPs count the active parameters (6 x (12.88B - the input
  embedding) x tokens + 12 L s h x tokens);
- DeepSeek-V3 on 2048 GPUs, PP16 with a one-layer last stage, EP64 of 8 GPUs on each of 8
  nodes: 671B parameters, 7 MiB per GPU pair.

usage: training-step-moe.py WORKDIR BINARY
"""

import csv
import os

import clitest

MIXTRAL = ["--model=mixtral-8x7b", "--gpus=64", "--tp=1", "--pp=4", "--ep=8", "--globalBatch=64",
           "--mode=analytical"]
DEEPSEEK = ["--model=deepseek-v3", "--gpus=2048", "--tp=1", "--pp=16", "--ep=64",
            "--lastStageLayers=1", "--globalBatch=256", "--mode=analytical", "--fabric=ib"]


def run(binary, cwd, name, args):
    out = os.path.join(cwd, name)
    p = clitest.run_ok(binary, [*args, f"--out={out}"], cwd, timeout=120)
    print(p.stdout)
    return p.stdout, clitest.load_summary(out), out


def ep_collectives(fabric):
    return [c for c in fabric["collectives"] if c["category"] == "ep"]


def check_mixtral(binary, cwd, problems):
    stdout, s, out = run(binary, cwd, "mixtral", MIXTRAL)
    if " exp.DP  exp.EP " not in stdout:
        problems.append("mixtral: no exp.EP column in the table")
    if "EP groups of 8 GPUs inside a node (NVLink)" not in stdout:
        problems.append("mixtral: the EP group is not said to be inside a node")
    par = s["parallelism"]
    if (par.get("ep"), par.get("expert_dp"), par.get("ep_gpus_per_node")) != (8, 2, 8):
        problems.append(f"mixtral: parallelism {par}")
    active = s["model"]["moe"]["active_parameters"]
    if abs(active - 12.9e9) > 0.01 * 12.9e9:
        problems.append(f"mixtral: {active} active parameters, published 12.9B")
    tokens = 64 * 4096
    flops = 6 * (active - 32000 * 4096) * tokens + 12 * 32 * 4096 * 4096 * tokens
    if abs(s["model"]["model_flops_per_step"] - flops) > 1e-9 * flops:
        problems.append(f"mixtral: model FLOPs {s['model']['model_flops_per_step']}, by hand {flops}")
    for f in s["fabrics"]:
        tag = f"mixtral {f['fabric']}"
        clitest.check_parts(tag, f, problems)
        if not f["exposed_s"]["ep"] > 0 or not f["communication_s"]["ep"] > 0:
            problems.append(f"{tag}: no EP time {f['exposed_s']} {f['communication_s']}")
        mfu = flops / (f["step_s"] * 989e12 * 64)
        if abs(mfu - f["mfu"]) > 1e-9:
            problems.append(f"{tag}: MFU {f['mfu']}, expected {mfu}")
        ep = ep_collectives(f)
        if [(c["op"], c["ranks"], c["bytes_per_rank"], c["how"]) for c in ep] != \
                [("alltoall", 8, 8 << 20, "tuner")]:
            problems.append(f"{tag}: EP collectives {ep}")
        if not any(c["communicator"] == "edp" and c["ranks"] == 2 for c in f["collectives"]):
            problems.append(f"{tag}: no expert-DP collective over 2 GPUs")
        if any(c["communicator"] == "tp" and c["how"] != "none: a group of one GPU"
               for c in f["collectives"]):
            problems.append(f"{tag}: TP 1 timed as moving data")
    with open(os.path.join(out, "step-breakdown.csv")) as fh:
        header = next(csv.reader(fh))
    if header[-1] != "ep_s":
        problems.append(f"mixtral: step-breakdown.csv columns {header}")


def check_deepseek(binary, cwd, problems):
    stdout, s, _ = run(binary, cwd, "deepseek", DEEPSEEK)
    if "EP groups of 64 GPUs, 8 per node on 8 nodes" not in stdout:
        problems.append("deepseek: the EP group is not said to be 8 per node on 8 nodes")
    if abs(s["model"]["parameters"] - 671e9) > 0.01 * 671e9:
        problems.append(f"deepseek: {s['model']['parameters']} parameters, published 671B")
    if s["parallelism"].get("last_stage_layers") != 1:
        problems.append(f"deepseek: parallelism {s['parallelism']}")
    for f in s["fabrics"]:
        ep = ep_collectives(f)
        if [(c["ranks"], c["bytes_per_rank"]) for c in ep] != [(64, 7 << 20)]:
            problems.append(f"deepseek: EP collectives {ep}")
        clitest.check_parts("deepseek", f, problems)


def main():
    binary, cwd = clitest.start(__doc__)
    problems = []
    check_mixtral(binary, cwd, problems)
    check_deepseek(binary, cwd, problems)
    if problems:
        clitest.fail("; ".join(problems))
    print("ok")


if __name__ == "__main__":
    main()
