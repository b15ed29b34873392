#!/usr/bin/env python3
"""Scenario.StrictLosslessDrop: the end-of-run conservation check and --strict. A 15:1 incast
with half the PFC headroom it needs drops lossless packets: summary.json says so in "alerts"
and "conservation" (which still balances: every drop is counted), stderr warns, and with
--strict the run exits 3; without it, 0. A clean all-reduce under --strict exits 0 with no
alert.

usage: strict.py WORKDIR FATTREE_ALLREDUCE PFC_INCAST
"""

import os
import sys

import clitest

STRICT_EXIT = 3  # ConservationCheck::STRICT_EXIT_CODE


def main():
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    work, fattree, incast = sys.argv[1:]
    cwd = clitest.fresh_dir(work)
    overflow = ["--headroomScale=0.5", "--stop=3ms"]

    out = os.path.join(work, "strict")
    p = clitest.run(incast, [*overflow, "--strict", f"--out={out}"], cwd, timeout=60)
    if p.returncode != STRICT_EXIT:
        print(p.stderr[-2000:], file=sys.stderr)
        clitest.fail(f"--strict with lossless drops: {clitest.describe_exit(p.returncode)}, "
                     f"expected exit code {STRICT_EXIT}")
    if "LOSSLESS DROPS on rocev2" not in p.stderr:
        clitest.fail(f"no lossless-drop alert on stderr: {p.stderr[-500:]}")
    s = clitest.load_summary(out)  # still balances: the drops are all counted
    c = s["conservation"]
    if c["lossless_drop_packets"] <= 0 or not s["alerts"]:
        clitest.fail(f"summary.json does not report the lossless drops: {c}, {s['alerts']}")
    by_reason = c["rocev2"]["lossless_drops"]["by_reason"]
    if "headroom_overflow" not in by_reason:
        clitest.fail(f"expected headroom_overflow among the lossless drops, got {by_reason}")
    if s["config"].get("strict") is not True:
        clitest.fail(f"config does not record --strict: {s['config']}")
    print(f"--strict: exit {STRICT_EXIT}, {c['lossless_drop_packets']} lossless drops")

    out = os.path.join(work, "warn")
    p = clitest.run_ok(incast, [*overflow, f"--out={out}"], cwd, timeout=60)
    if "warning: LOSSLESS DROPS on rocev2" not in p.stderr:
        clitest.fail(f"without --strict, no warning on stderr: {p.stderr[-500:]}")
    if clitest.load_summary(out)["alerts"] != s["alerts"]:
        clitest.fail("the same run with and without --strict reports different alerts")

    out = os.path.join(work, "clean")
    clitest.run_ok(fattree, ["--size=1MiB", "--strict", f"--out={out}"], cwd, timeout=60)
    s = clitest.load_summary(out)
    if s["alerts"] or s["conservation"]["lossless_drop_packets"] != 0:
        clitest.fail(f"a clean all-reduce has alerts: {s['alerts']}")
    print("ok")


if __name__ == "__main__":
    main()
