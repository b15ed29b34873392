#!/usr/bin/env python3
"""The default fattree-allreduce scenario reaches the alpha-beta bound within 10 %: the
all-reduce of SIZE bytes completes, nothing is dropped, and its efficiency (bound time /
simulated time, = busbw / bound busbw) is in [0.90, 1.0]. The bound is a true lower
bound on the time, so an efficiency above 1 means the model is wrong.

usage: allreduce-bound.py [--min-efficiency=E] WORKDIR SIZE_BYTES BINARY [ARG...]

--min-efficiency lowers the 0.90 for a size where the latency term dominates.
"""

import os
import sys

import clitest

MIN_EFFICIENCY = 0.90
MAX_EFFICIENCY = 1.0


def main():
    argv = sys.argv[1:]
    min_efficiency = MIN_EFFICIENCY
    if argv and argv[0].startswith("--min-efficiency="):
        min_efficiency = float(argv.pop(0).split("=", 1)[1])
    if len(argv) < 3:
        sys.exit(__doc__)
    workdir, size, binary, args = argv[0], int(argv[1]), argv[2], argv[3:]
    cwd = clitest.fresh_dir(workdir)
    out = os.path.join(cwd, "out")
    p = clitest.run_ok(binary, [*args, f"--out={out}"], cwd, timeout=50)
    print(p.stdout)
    s = clitest.load_summary(out)

    problems = []
    if s.get("complete") is not True:
        problems.append(f"complete is {s.get('complete')!r}, expected true")
    drops = s.get("drops", {}).get("total")
    if drops != 0:
        problems.append(f"drops.total is {drops!r}, expected 0")
    colls = [c for c in s.get("collectives", [])
             if c.get("op") == "all_reduce" and c.get("bytes") == size]
    if len(colls) != 1:
        problems.append(f"{len(colls)} all_reduce entries of {size} bytes in collectives, "
                        "expected 1")
    else:
        c = colls[0]
        eff, busbw = c.get("efficiency"), c.get("busbw_GBps")
        print(f"all_reduce {size} B: time {c.get('time_us')} us, bound {c.get('bound_us')} us, "
              f"busbw {busbw} GB/s, efficiency {eff}")
        if not isinstance(eff, (int, float)) or not isinstance(busbw, (int, float)):
            problems.append(f"efficiency {eff!r} / busbw_GBps {busbw!r} are not numbers")
        else:
            if eff < min_efficiency:
                problems.append(f"efficiency {eff:.4f} < {min_efficiency}: busbw {busbw:.3f} "
                                f"GB/s is more than {1 - min_efficiency:.0%} below the bound")
            if eff > MAX_EFFICIENCY:
                problems.append(f"efficiency {eff:.4f} > {MAX_EFFICIENCY}: faster than the "
                                "lower bound, the model is wrong")
            # efficiency must be what the other fields say it is
            t, bound = c.get("time_us"), c.get("bound_us")
            if isinstance(t, (int, float)) and isinstance(bound, (int, float)) and t > 0:
                if abs(bound / t - eff) > 1e-6 * max(1.0, eff):
                    problems.append(f"efficiency {eff} != bound_us/time_us = {bound / t}")
    if problems:
        clitest.fail("; ".join(problems))
    print("ok")


if __name__ == "__main__":
    main()
