#!/usr/bin/env python3
"""training-step --mode=job: the whole job on one fabric, its step measured.

A small Llama shape (--layers=4 --hidden=1024 ..., TP8 PP2 DP2 on 4 servers) on RoCEv2 and
InfiniBand:
- each fabric's row adds up (compute + bubble + exposed communication = the step), every
  distinct collective says it was measured with every group at once, and the default fabric
  list's TCP gets a line saying the whole job runs on the RDMA fabrics only;
- the sanity case of issue 30: one dense job, contiguous, on a non-blocking rail-optimised
  fabric, where no two groups can meet on a link, so the measured step is within 2 % of the
  step --mode=packet composes from each collective timed alone;
- the shape options reach the model (summary.json's layers and parameters);
- --stop before the step ends: each fabric's row says it stopped there and how far it got;
- a replayed workload (examples/workloads/pipeline-2stage.json: its two ranks the stages, its
  tp, pp and dp communicators of 8, 2 and 4 GPUs) runs as a whole job of 64 GPUs, within 2 %
  of its composed step too, with MFU over the workload's 64 GPUs;
- the packet and analytical modes say their step is composed, blind to congestion.

usage: training-step-job.py WORKDIR BINARY
"""

import os

import clitest

WORKLOAD = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "examples",
                        "workloads", "pipeline-2stage.json")
SMALL = ["--model=8B", "--gpus=32", "--tp=8", "--pp=2", "--layers=4", "--hidden=1024",
         "--ffn=4096", "--heads=8", "--kvHeads=8", "--vocab=32000", "--seqLen=512",
         "--globalBatch=16"]


def run(binary, cwd, name, args):
    out = os.path.join(cwd, name)
    p = clitest.run_ok(binary, [*args, f"--out={out}"], cwd, timeout=300)
    print(p.stdout)
    return p.stdout, clitest.load_summary(out)


def rows_add_up(name, s, problems):
    fabrics = {f["fabric"]: f for f in s.get("fabrics", [])}
    for f in fabrics.values():
        clitest.check_parts(f"{name} {f['fabric']}", f, problems)
    return fabrics


def within(name, measured, composed, problems):
    """Each fabric's measured step within 2 % of its composed one."""
    if set(measured) != set(composed) or not measured:
        problems.append(f"{name}: fabrics {sorted(measured)} measured, {sorted(composed)} composed")
    for fabric in sorted(set(measured) & set(composed)):
        m, c = measured[fabric]["step_s"], composed[fabric]["step_s"]
        print(f"{name} {fabric}: measured {m * 1e3:.3f} ms, composed {c * 1e3:.3f} ms "
              f"({100 * (m / c - 1):+.2f} %)")
        if abs(m / c - 1) > 0.02:
            problems.append(f"{name} {fabric}: measured step {m} is not within 2 % of the "
                            f"composed {c}")


def main():
    binary, cwd = clitest.start(__doc__)
    problems = []

    stdout, job = run(binary, cwd, "job", [*SMALL, "--mode=job"])
    measured = rows_add_up("job", job, problems)
    if set(measured) != {"roce", "ib"}:
        problems.append(f"job: fabrics {sorted(measured)}, expected roce and ib")
    if "--mode=job runs the RDMA fabrics only" not in stdout:
        problems.append("job: no line on TCP's row")
    if job.get("mode") != "job" or "measured" not in job.get("simulated", ""):
        problems.append(f"job: mode {job.get('mode')}, simulated {job.get('simulated')}")
    if job["model"]["layers"] != 4 or job["model"]["hidden"] != 1024:
        problems.append(f"job: the shape options did not reach the model: {job['model']}")
    for f in measured.values():
        hows = {c["how"].split(":")[0] for c in f["collectives"]}
        if hows != {"measured"}:
            problems.append(f"job {f['fabric']}: collectives timed {hows}")
        if {c["category"] for c in f["collectives"]} != {"tp", "pp", "dp"}:
            problems.append(f"job {f['fabric']}: categories of {f['collectives']}")

    stdout, packet = run(binary, cwd, "packet", [*SMALL, "--fabric=roce,ib"])
    composed = rows_add_up("packet", packet, problems)
    if "congestion-unaware" not in stdout or "congestion-unaware" in job.get("simulated", ""):
        problems.append("the packet mode does not say its step is composed, blind to congestion")
    within("generated", measured, composed, problems)

    _, replay = run(binary, cwd, "replay", [f"--workload={WORKLOAD}", "--mode=job",
                                             "--fabric=roce,ib"])
    _, replay_composed = run(binary, cwd, "replay-packet", [f"--workload={WORKLOAD}",
                                                             "--fabric=roce,ib"])
    replayed = rows_add_up("replay", replay, problems)
    within("replay", replayed, rows_add_up("replay-packet", replay_composed, problems), problems)
    for f in replayed.values():
        mfu = 9.1e14 / (f["step_s"] * 989e12 * 64)  # the file's model_flops over its gpus
        if abs(f["mfu"] - mfu) > 1e-9:
            problems.append(f"replay {f['fabric']}: MFU {f['mfu']}, expected {mfu} over 64 GPUs")

    # --stop before the step ends: every fabric runs to it, says how far it got, exit 0.
    stdout, stopped = run(binary, cwd, "stopped", [*SMALL, "--mode=job", "--stop=300us"])
    rows = stopped.get("fabrics", [])
    if [r["fabric"] for r in rows] != ["roce", "ib"] or not all(
            r.get("interrupted") and "stopped by --stop at 0.300 ms" in r.get("stopped", "")
            for r in rows):
        problems.append(f"--stop=300us: rows {[(r['fabric'], r.get('stopped')) for r in rows]}")

    if problems:
        clitest.fail("; ".join(problems))
    print("ok")


if __name__ == "__main__":
    main()
