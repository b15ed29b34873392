#!/usr/bin/env python3
"""A mistake in the options must end the run with exit code 2 and exactly one line on
stderr that names the offending option (no crash, no help text).

usage: bad-input.py WORKDIR MENTION BINARY [ARG...]
"""

import os
import sys

import clitest

HELP_MARKERS = ("Program Options:", "General Arguments:", "--PrintAttributes=[typeid]")


def main():
    if len(sys.argv) < 4:
        sys.exit(__doc__)
    workdir, mention, binary, args = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4:]
    # Runs in an empty folder: if the input were accepted, the run's default out/ lands
    # there, and a core file would show up there too.
    cwd = clitest.fresh_dir(workdir)
    p = clitest.run(binary, args, cwd, timeout=10)
    print(f"exit code: {p.returncode}\nstdout: {p.stdout!r}\nstderr: {p.stderr!r}")

    problems = []
    if p.returncode != 2:
        problems.append(f"{clitest.describe_exit(p.returncode)}, expected exit code 2")
    lines = p.stderr.splitlines()
    if len(lines) != 1 or not lines[0].strip():
        problems.append(f"{len(lines)} lines on stderr, expected exactly one")
    if mention not in p.stderr:
        problems.append(f"stderr does not mention {mention!r}")
    for marker in HELP_MARKERS:
        if marker in p.stdout or marker in p.stderr:
            problems.append(f"the help text was printed ({marker!r})")
            break
    cores = [f for f in os.listdir(cwd) if f == "core" or f.startswith("core.")]
    if cores:
        problems.append(f"core dump left behind: {cores}")
    if problems:
        clitest.fail("; ".join(problems))
    print("ok")


if __name__ == "__main__":
    main()
