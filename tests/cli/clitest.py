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


def check_conservation(summary, path):
    """Every run ends with the packet balance of each stack it simulated (summary.json
    "conservation", written by RunOutput::WriteSummary): it must hold in every scenario.
    Lossless drops are the test's own business (some scenarios make them on purpose), but
    they must be in "alerts" exactly when they happened."""
    c = summary.get("conservation")
    if not isinstance(c, dict) or "holds" not in c:
        fail(f"{path} has no conservation check")
    alerts = summary.get("alerts")
    if not isinstance(alerts, list):
        fail(f"{path} has no alerts list")
    if not c["holds"]:
        fail(f"{path}: conservation does not hold: " + "; ".join(alerts))
    for stack, account in c.items():
        if not isinstance(account, dict):
            continue
        if account["imbalance"] != {"packets": 0, "bytes": 0}:
            fail(f"{path}: {stack} does not balance: {account['imbalance']}")
        parts = ["delivered", "dropped", "in_flight"]
        for unit in ("packets", "bytes"):
            if account["injected"][unit] != sum(account[p][unit] for p in parts):
                fail(f"{path}: {stack} {unit}: injected != delivered + dropped + in flight")
    lossless_alerts = [a for a in alerts if a.startswith("LOSSLESS DROPS")]
    if bool(lossless_alerts) != (c["lossless_drop_packets"] > 0):
        fail(f"{path}: {c['lossless_drop_packets']} lossless drops but alerts {alerts}")


def load_summary(out_dir, conservation=True):
    """The run's summary.json; unless told otherwise, its conservation check must hold."""
    path = os.path.join(out_dir, "summary.json")
    try:
        with open(path) as f:
            summary = json.load(f)
    except (OSError, ValueError) as e:
        fail(f"cannot read {path}: {e}")
    if conservation:
        check_conservation(summary, path)
    return summary


def check_parts(tag, step, problems, tolerance=1e-6):
    """A step's parts (compute + bubble + each category's exposed communication, summary.json's
    compute_s, bubble_s and exposed_s) add up to its step_s, within a relative tolerance."""
    parts = step["compute_s"] + step["bubble_s"] + sum(step["exposed_s"].values())
    if abs(parts - step["step_s"]) > tolerance * step["step_s"]:
        problems.append(f"{tag}: parts {parts} != step {step['step_s']}")


def start(doc):
    """A test's arguments WORKDIR BINARY (else its usage, doc): (binary, a fresh WORKDIR)."""
    if len(sys.argv) != 3:
        sys.exit(doc)
    return sys.argv[2], fresh_dir(sys.argv[1])
