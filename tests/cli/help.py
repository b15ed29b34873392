#!/usr/bin/env python3
"""--help exits 0 and lists the program's options.

usage: help.py WORKDIR BINARY OPTION...
"""

import re
import sys

import clitest


def main():
    if len(sys.argv) < 4:
        sys.exit(__doc__)
    workdir, binary, options = sys.argv[1], sys.argv[2], sys.argv[3:]
    p = clitest.run_ok(binary, ["--help"], clitest.fresh_dir(workdir), timeout=10)
    print(p.stdout)
    missing = [o for o in options if not re.search(re.escape(o) + r"(?![\w-])", p.stdout)]
    if missing:
        clitest.fail(f"--help output on stdout does not list {', '.join(missing)}")
    print("ok")


if __name__ == "__main__":
    main()
