#!/usr/bin/env python3
"""Validation.TrainingStep: issue 8's step-time figures for the default training step (a
Llama-70B-shaped model on 1024 H100s, TP8 PP4 DP32, 400 Gb/s per GPU), from
`training-step` in the packet mode, against the derivation of docs/training-step.md
(shared/reference/nccl.md 4.2, anchored on Llama 2 and Llama 3's reported MFU of 38-43 %):

  - RoCEv2 and InfiniBand: a step of 4.25 s +- 15 %, MFU 38-44 % (Llama 3 405B's 38-43 %,
    Llama 2 70B's 43.5 %), exposed communication 15-30 % of the step (the tensor-parallel
    all-gathers and reduce-scatters at the 64 MiB times one H100 node measures,
    validation/nccl-curves);
  - compute: 6 N T FLOPs at 60 % of 989 TFLOPS is 2.90 s, attention adds about 7.7 % (3.12 s);
  - the largest DP bucket's busbw within 10 % of NCCL's tuner for it (the buckets, 80 MB
    reduce-scatters and all-gathers over 32 ranks, stay below the 46-48 GB/s per 400G NIC
    that nccl-tests#290 measures at 1 GiB); the two fabrics' times differ (they come from the
    RoCEv2 and InfiniBand models, nothing typed into the step model);
  - TCP on 100 GbE, one NIC per GPU: the data-parallel sync (the busiest stage's DP
    collectives) at least 1.9 s (8.48 GB per GPU at NCCL's measured 4.5 GB/s over TCP) and
    communication at least 35 % of the step;
  - the analytical mode (NCCL's tuner for each collective) within 10 % of the packet mode on
    RoCEv2 and InfiniBand.

Exit code 0 when every row passes. Writes WORKDIR/packet, WORKDIR/analytical and
WORKDIR/comparison.json.

usage: check-training-step.py WORKDIR TRAINING_STEP_PROGRAM
"""


from checks import in_band, run, start

DERIVATION = "docs/training-step.md"


def main():
    workdir, binary, t = start(__doc__)
    packet = {f["fabric"]: f for f in run(binary, workdir, "packet", [])["fabrics"]}
    analytical = {f["fabric"]: f for f in
                  run(binary, workdir, "analytical", ["--mode=analytical"])["fabrics"]}

    for fabric in ("roce", "ib"):
        f = packet[fabric]
        name = f["display_name"]
        t.add(f"{name}: step (s)", f["step_s"], "4.25 +- 15%",
              in_band(f["step_s"], 4.25 * 0.85, 4.25 * 1.15), DERIVATION)
        t.add(f"{name}: MFU (%)", 100 * f["mfu"], "[38, 44]", in_band(f["mfu"], 0.38, 0.44),
              "Llama 3: 38-43 %, Llama 2: 43.5 %")
        t.add(f"{name}: exposed communication (% of step)", 100 * f["exposed_fraction"],
              "[15, 30]", in_band(f["exposed_fraction"], 0.15, 0.30), DERIVATION)
        dp = [c for c in f["collectives"] if c["category"] == "dp"]
        largest = max(dp, key=lambda c: c["bytes_per_rank"])
        tuned = [c for c in analytical[fabric]["collectives"]
                 if (c["op"], c["bytes_per_rank"], c["category"]) ==
                 (largest["op"], largest["bytes_per_rank"], "dp")][0]
        ratio = largest["busbw_GBps"] / tuned["busbw_GBps"]
        t.add(f"{name}: largest DP bucket, busbw packet / tuner", ratio, "1 +- 10%",
              abs(ratio - 1) <= 0.10, f"NCCL 2.30.7 tuner ({tuned['busbw_GBps']:.1f} GB/s)")
        a = analytical[fabric]["step_s"]
        t.add(f"{name}: analytical / packet step", a / f["step_s"], "1 +- 10%",
              abs(a / f["step_s"] - 1) <= 0.10, "NCCL 2.30.7 tuner")

    compute = packet["roce"]["compute_s"]
    t.add("compute (s)", compute, "[2.90, 3.20]", in_band(compute, 2.90, 3.20),
          "6NT at 60% of 989 TFLOPS + attention")
    differ = sum(1 for r, i in zip(packet["roce"]["collectives"], packet["ib"]["collectives"])
                 if r["how"] != "tuner" and r["time_us"] != i["time_us"])
    t.add("collectives whose RoCEv2 and InfiniBand times differ", differ,
          ">= 1", differ >= 1, "the fabrics' models")

    tcp = packet["tcp"]
    t.add("TCP 100GbE: DP sync of the busiest stage (s)", tcp["dp_sync_s"], ">= 1.9",
          tcp["dp_sync_s"] >= 1.9, DERIVATION)
    t.add("TCP 100GbE: communication (% of step)", 100 * tcp["communication_fraction"],
          ">= 35", tcp["communication_fraction"] >= 0.35, DERIVATION)
    t.add("TCP 100GbE: step / RoCEv2 step", tcp["step_s"] / packet["roce"]["step_s"], "> 1",
          tcp["step_s"] > packet["roce"]["step_s"], "")
    t.finish(workdir)


if __name__ == "__main__":
    main()
