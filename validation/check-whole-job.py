#!/usr/bin/env python3
"""Validation.WholeJob: interference where physics says it must appear, from `training-jobs`
(every GPU of a job at once on one fabric, packet by packet), on small jobs (a 4-layer,
1024-wide Llama shape, TP8 on servers of 8 H100s with a 400 Gb/s NIC per GPU). The
derivations (docs/programs/training-jobs.md):

  - Oversubscription. One server per top-of-rack leaf, 4 servers, InfiniBand with OpenSM's
    minhop LFTs: a data-parallel ring over the 4 servers sends each server's 8 rails' flows up
    its leaf. Non-blocking (8 uplinks) each flow has an uplink; at 2:1 (4 uplinks) two flows
    share each, so a DP collective's bandwidth-bound part takes twice as long and its latency
    part the same: the mean DP collective time rises by a factor between 1.5 and 2 (its
    latency share is about 30 % at these sizes). TP stays on NVLink: factor 1.
  - Placement. 8 of 16 servers, 4 per leaf: contiguous (2 leaves) or fragmented (seeded,
    4 leaves, the ring crossing leaves at more places). On RoCEv2 the switches hash flows on
    equal-cost uplinks (ECMP), and more flows crossing more leaves collide more: the step is
    more than 5 % slower fragmented. On InfiniBand OpenSM's ftree LFTs spread destinations
    evenly over the uplinks (and adaptive routing on top of them only moves flowlets off a busy
    port): less than 3 % (and less than on RoCEv2).

Exit code 0 when every row passes. Writes WORKDIR/<run> and WORKDIR/comparison.json.

usage: check-whole-job.py WORKDIR TRAINING_JOBS_PROGRAM
"""

import json
import os

from checks import in_band, run, start

DOC = "docs/programs/training-jobs.md"
SHAPE = {"model": "8B", "tp": 8, "pp": 1, "layers": 4, "hidden": 1024, "ffn": 4096, "heads": 8,
         "kv_heads": 8, "vocab": 32000, "seq_len": 512}


def jobs_file(workdir, name, **job):
    path = os.path.join(workdir, name + ".json")
    with open(path, "w") as f:
        json.dump({"jobs": [{"name": "a", **SHAPE, **job}]}, f)
    return path


def times(summary):
    """The job's step and its communicators' mean collective times."""
    job = summary["jobs"][0]
    return job["together"]["step_s"], {c["name"]: c["together_s"] for c in job["by_communicator"]}


def main():
    workdir, binary, t = start(__doc__)

    small = jobs_file(workdir, "four-servers", gpus=32, global_batch=16)
    factor = {}
    for o in (1, 2):
        s = run(binary, workdir, f"oversubscription-{o}",
                [f"--jobs={small}", "--cluster=tor", "--nodesPerLeaf=1",
                 f"--oversubscription={o}", "--fabric=ib"])
        factor[o] = times(s)[1]
    dp = factor[2]["dp"] / factor[1]["dp"]
    tp = factor[2]["tp"] / factor[1]["tp"]
    t.add("IB 2:1 vs 1:1 leaves: DP collective time factor", dp, "1.5-2 (x2 bandwidth)",
          in_band(dp, 1.5, 2.0), DOC)
    t.add("IB 2:1 vs 1:1 leaves: TP collective time factor (NVLink)", tp, "1 +- 1 %",
          in_band(tp, 0.99, 1.01), DOC)

    # RoCEv2 hashes flows (ECMP); InfiniBand with OpenSM's ftree LFTs (what fat-trees run),
    # and with the switches' adaptive routing choosing among the ftree groups per flowlet.
    fabrics = {"roce": ["--fabric=roce"],
               "ib-ftree": ["--fabric=ib", "--ns3::IbRouting::Engine=ftree"],
               "ib-adaptive": ["--fabric=ib", "--ns3::IbRouting::Engine=ftree",
                               "--ns3::IbSwitch::AdaptiveRouting=true"]}
    slower = {}
    for fabric, args in fabrics.items():
        step = {}
        for placement in ("contiguous", "fragmented:3"):
            path = jobs_file(workdir, f"eight-servers-{placement.split(':')[0]}", gpus=64,
                             global_batch=32, placement=placement)
            s = run(binary, workdir, f"{fabric}-{placement.split(':')[0]}",
                    [f"--jobs={path}", "--cluster=tor", "--nodesPerLeaf=4", "--clusterNodes=16",
                     *args])
            step[placement] = times(s)[0]
        slower[fabric] = step["fragmented:3"] / step["contiguous"] - 1
    t.add("RoCEv2 (ECMP, DCQCN): fragmented over contiguous step, %", 100 * slower["roce"],
          "> 5", slower["roce"] > 0.05, DOC)
    for fabric, name in (("ib-ftree", "ftree"), ("ib-adaptive", "ftree + adaptive")):
        t.add(f"IB ({name}): fragmented over contiguous step, %", 100 * slower[fabric],
              "< 3 and < RoCEv2's", slower[fabric] < min(0.03, slower["roce"]), DOC)
    t.finish(workdir)


if __name__ == "__main__":
    main()
