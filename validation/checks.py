"""What the validation scripts share: running a program into its own folder and reading its
summary.json, and the measured-vs-expected table they print and save."""

import json
import os
import shutil
import subprocess
import sys
import time

# Wall-time limits are multiplied by this: a sanitizer build runs the programs many times
# slower, and its CTest sets NS3_TEST_TIMEOUT_SCALE (cmake/build-lib.cmake).
TIMEOUT_SCALE = float(os.environ.get("NS3_TEST_TIMEOUT_SCALE", "1"))


def start(usage):
    """The script's WORKDIR and PROGRAM arguments (exit with USAGE without them), WORKDIR
    emptied, and an empty table."""
    if len(sys.argv) != 3:
        sys.exit(usage)
    workdir, binary = sys.argv[1], sys.argv[2]
    shutil.rmtree(workdir, ignore_errors=True)
    os.makedirs(workdir)
    return workdir, binary, Table()


def run(binary, workdir, name, args, timeout=900):
    """Run BINARY ARGS --out=WORKDIR/NAME; exit on failure; return its summary.json."""
    out = os.path.join(workdir, name)
    cmd = [binary, *args, f"--out={out}"]
    start = time.time()
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout * TIMEOUT_SCALE)
    wall = time.time() - start
    if p.returncode != 0:
        print(p.stdout, p.stderr)
        sys.exit(f"FAIL: {' '.join(cmd)} exited with {p.returncode}")
    with open(os.path.join(out, "summary.json")) as f:
        summary = json.load(f)
    # A measurement from a run that lost or invented packets is no measurement.
    if not summary.get("conservation", {}).get("holds", False):
        sys.exit(f"FAIL: {' '.join(cmd)}: conservation does not hold: {summary.get('alerts')}")
    print(f"  ran {name} in {wall:.1f} s wall: {' '.join(args)}")
    return summary


def in_band(value, lo, hi, slack=0.0):
    return lo * (1 - slack) <= value <= hi * (1 + slack)


class Table:
    """Rows of check, measured, expected, ok and source."""

    def __init__(self):
        self.rows = []
        self.failures = 0

    def add(self, what, measured, expected, ok, source):
        self.rows.append({"check": what, "measured": measured, "expected": expected,
                          "ok": ok, "source": source})
        if not ok:
            self.failures += 1

    def show(self):
        print(f"\n  {'check':<58} {'measured':>9}   {'expected':<22} {'':4} source")
        for r in self.rows:
            print(f"  {r['check']:<58} {r['measured']:9.2f}   {r['expected']:<22} "
                  f"{'ok' if r['ok'] else 'FAIL':4} {r['source']}")

    def finish(self, workdir):
        """Print the table, write WORKDIR/comparison.json, exit non-zero on a failure."""
        self.show()
        with open(os.path.join(workdir, "comparison.json"), "w") as f:
            json.dump(self.rows, f, indent=1)
        if self.failures:
            sys.exit(f"FAIL: {self.failures} check(s) failed")
        print("ok")
