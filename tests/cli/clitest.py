"""Helpers shared by the tests/cli scripts (Python 3 standard library only)."""

import json
import os
import shutil
import subprocess
import sys

# Wall-time limits are multiplied by this: a sanitizer build runs the programs many times
# slower, and its CTest sets NS3_TEST_TIMEOUT_SCALE (cmake/build-lib.cmake).
TIMEOUT_SCALE = float(os.environ.get("NS3_TEST_TIMEOUT_SCALE", "1"))


def fail(message):
    print(f"FAIL: {message}", file=sys.stderr)
    sys.exit(1)


def fresh_dir(path):
    """An empty working folder (kept after the test, for a look when it fails)."""
    shutil.rmtree(path, ignore_errors=True)
    os.makedirs(path)
    return path


def run(binary, args, cwd, timeout):
    """Runs the program; returns the CompletedProcess. A hang (TIMEOUT seconds, times
    TIMEOUT_SCALE) is a failure."""
    cmd = [binary, *args]
    timeout *= TIMEOUT_SCALE
    print("$ " + " ".join(cmd), flush=True)
    try:
        return subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        fail(f"still running after {timeout} s: {' '.join(cmd)}")


def describe_exit(code):
    if code < 0:
        return f"killed by signal {-code}"
    return f"exit code {code}"


def run_ok(binary, args, cwd, timeout):
    """Runs the program and requires exit code 0."""
    p = run(binary, args, cwd, timeout)
    if p.returncode != 0:
        print(p.stdout[-2000:])
        print(p.stderr[-2000:], file=sys.stderr)
        fail(f"{describe_exit(p.returncode)}, expected 0")
    return p


def load_summary(out_dir):
    path = os.path.join(out_dir, "summary.json")
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError) as e:
        fail(f"cannot read {path}: {e}")
