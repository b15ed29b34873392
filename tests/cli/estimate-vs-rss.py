#!/usr/bin/env python3
"""The memory estimate must be within 30 % of the peak RSS of the build it estimates.

Runs BINARY ARGS --maxMemory=1KiB to read the estimate from the refusal ("needs about N MiB"),
then BINARY ARGS --stop=1ns (built and routed, nothing sent) and takes its peak RSS from
getrusage.

usage: estimate-vs-rss.py WORKDIR BINARY [ARG...]
"""

import re
import resource
import sys

import clitest

UNITS = {"B": 1, "KiB": 2**10, "MiB": 2**20, "GiB": 2**30, "TiB": 2**40}


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    workdir, binary, args = sys.argv[1], sys.argv[2], sys.argv[3:]
    cwd = clitest.fresh_dir(workdir)
    p = clitest.run(binary, [*args, "--maxMemory=1KiB"], cwd, timeout=20)
    m = re.search(r"needs about ([0-9.]+) ([KMGT]?i?B) of memory", p.stderr)
    if p.returncode != 2 or not m:
        clitest.fail(f"no estimate in the refusal: {clitest.describe_exit(p.returncode)}, "
                     f"stderr {p.stderr!r}")
    estimate = float(m.group(1)) * UNITS[m.group(2)]
    clitest.run_ok(binary, [*args, "--stop=1ns"], cwd, timeout=100)
    # ru_maxrss of the children: the largest, which is this run (the refusal stayed small).
    peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss * 1024
    ratio = estimate / peak
    print(f"estimate {estimate / 2**20:.1f} MiB, peak RSS {peak / 2**20:.1f} MiB, "
          f"ratio {ratio:.2f}")
    if not 0.7 <= ratio <= 1.3:
        clitest.fail(f"the estimate is {ratio:.2f} x the measured peak, expected within 30 %")
    print("ok")


if __name__ == "__main__":
    main()
