#!/usr/bin/env python3
"""Same seed, same results: two runs with one seed must write the same summary.json once
the wall-clock figures ("wall") and the output folder (config.out) are set aside. A run
with another seed must also succeed (its results may or may not differ).

usage: determinism.py WORKDIR BINARY [ARG...]
"""

import json
import os
import sys

import clitest


def comparable(summary):
    summary.pop("wall", None)
    summary.get("config", {}).pop("out", None)
    return summary


def differences(a, b, path="$"):
    """JSON paths where a and b differ (at most a few)."""
    if isinstance(a, dict) and isinstance(b, dict):
        out = []
        for key in sorted(set(a) | set(b)):
            if key not in a or key not in b:
                out.append(f"{path}.{key} (only in run {'1' if key in a else '2'})")
            else:
                out += differences(a[key], b[key], f"{path}.{key}")
        return out
    if isinstance(a, list) and isinstance(b, list) and len(a) == len(b):
        out = []
        for i, (x, y) in enumerate(zip(a, b)):
            out += differences(x, y, f"{path}[{i}]")
        return out
    return [] if a == b else [f"{path}: {json.dumps(a)} vs {json.dumps(b)}"]


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    workdir, binary, args = sys.argv[1], sys.argv[2], sys.argv[3:]
    cwd = clitest.fresh_dir(workdir)
    summaries = []
    for name, seed in (("seed1-a", 1), ("seed1-b", 1), ("seed2", 2)):
        out = os.path.join(cwd, name)
        clitest.run_ok(binary, [*args, f"--seed={seed}", f"--out={out}"], cwd, timeout=15)
        summaries.append(comparable(clitest.load_summary(out)))

    diff = differences(summaries[0], summaries[1])
    if diff:
        clitest.fail("two runs with --seed=1 differ at:\n  " + "\n  ".join(diff[:20]))
    if summaries[2].get("config", {}).get("seed") != 2:
        clitest.fail("the --seed=2 run does not record seed 2 in config.seed")
    print(f"ok: seed 1 twice, identical; seed 2 ran "
          f"({len(differences(summaries[0], summaries[2]))} differing values vs seed 1)")


if __name__ == "__main__":
    main()
