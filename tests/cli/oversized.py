#!/usr/bin/env python3
"""A request too large for the memory limit must be refused before anything is built: exit
code 2 within a second of wall time, one line on stderr with what was asked, "needs about" and
the estimate, and no output folder.

usage: oversized.py WORKDIR MENTION BINARY [ARG...]
"""

import os
import re
import sys
import time

import clitest


def main():
    if len(sys.argv) < 4:
        sys.exit(__doc__)
    workdir, mention, binary, args = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4:]
    cwd = clitest.fresh_dir(workdir)
    start = time.monotonic()
    p = clitest.run(binary, args, cwd, timeout=20)
    wall = time.monotonic() - start
    print(f"exit code: {p.returncode}\nwall: {wall:.3f} s\nstderr: {p.stderr!r}")

    problems = []
    if p.returncode != 2:
        problems.append(f"{clitest.describe_exit(p.returncode)}, expected exit code 2")
    if wall >= 1.0:
        problems.append(f"took {wall:.2f} s, expected under 1 s")
    lines = p.stderr.splitlines()
    if len(lines) != 1:
        problems.append(f"{len(lines)} lines on stderr, expected exactly one")
    if mention not in p.stderr:
        problems.append(f"stderr does not mention {mention!r}")
    if not re.search(r"needs about [0-9.]+ [KMGTPE]?i?B of memory", p.stderr):
        problems.append("stderr has no estimate (\"needs about N GiB of memory\")")
    if "--maxMemory" not in p.stderr:
        problems.append("stderr does not say how to lift the limit (--maxMemory)")
    if os.path.exists(os.path.join(cwd, "out")):
        problems.append("an output folder was created: something ran before the check")
    if problems:
        clitest.fail("; ".join(problems))
    print("ok")


if __name__ == "__main__":
    main()
