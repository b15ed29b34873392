#!/usr/bin/env python3
"""Our nccl-tests against published nccl-tests curves, size by size (issue 31).

Each file of validation/nccl-curves/ is one measured curve: where it was published, on what
(GPU, NCCL version, flags), the nccl-tests options that simulate the same configuration
("# simulate:") and its rows (size_bytes, time_us: out-of-place, as printed). For each curve
this runs our nccl-tests in the packet mode over the curve's sizes and prints, per size, the
measured time, ours and the error, then the geometric mean of the absolute errors over every
size and over the sizes of 1 MiB and up, and the same for NCCL's tuner (the analytical mode,
printed in the same rows).

The issue's targets: at most 10 % over a curve, at most 5 % from 1 MiB. With --check the exit
code says whether every curve meets them (without it, 0: a report). Writes WORKDIR/<curve>/
(each run) and WORKDIR/comparison.csv. --max-bytes leaves out the larger rows (a fast subset).

usage: check-nccl-curves.py WORKDIR NCCL_TESTS_PROGRAM [--check] [--only=CURVE[,CURVE...]]
                            [--max-bytes=BYTES]
"""

import csv
import math
import os
import shutil
import sys

from checks import run

CURVES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "nccl-curves")
MIB = 1 << 20
TARGET_ALL = 0.10   # issue 31: geometric-mean error over a curve's sizes
TARGET_LARGE = 0.05  # ... over its sizes of 1 MiB and up


def read_curve(path):
    """(header fields, [(size, time_us)]) of a curve file."""
    header, rows = {}, []
    with open(path) as f:
        lines = f.read().splitlines()
    for n, line in enumerate(lines, 1):
        if line.startswith("#"):
            key, _, value = line[1:].partition(":")
            header[key.strip()] = value.strip()
        elif line and not line.startswith("size_bytes"):
            try:
                size, time_us = line.split(",")
                rows.append((int(size), float(time_us)))
            except ValueError:
                sys.exit(f"{path}:{n}: expected size_bytes,time_us, got {line!r}")
    if "simulate" not in header or not rows:
        sys.exit(f"{path}: expected a '# simulate:' line and rows of size_bytes,time_us")
    return header, rows


def geomean(errors):
    """The geometric mean of absolute relative errors (nan without any)."""
    if not errors:
        return float("nan")
    return math.exp(sum(math.log(max(abs(e), 1e-6)) for e in errors) / len(errors))


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    if len(args) != 2:
        sys.exit(__doc__)
    workdir, binary = args
    check = "--check" in sys.argv
    only = None
    max_bytes = None
    for a in sys.argv[1:]:
        if a.startswith("--only="):
            only = set(a[len("--only="):].split(","))
        elif a.startswith("--max-bytes="):
            try:
                max_bytes = int(a[len("--max-bytes="):])
            except ValueError:
                sys.exit(f"{a}: expected --max-bytes=BYTES, a whole number")
    shutil.rmtree(workdir, ignore_errors=True)
    os.makedirs(workdir)
    names = sorted(f[:-4] for f in os.listdir(CURVES) if f.endswith(".csv"))
    if only:
        unknown = only - set(names)
        if unknown:
            sys.exit(f"--only: no curve {sorted(unknown)}; expected some of {names}")
        names = [n for n in names if n in only]
    out_rows, failures = [], []
    for name in names:
        header, rows = read_curve(os.path.join(CURVES, name + ".csv"))
        if max_bytes is not None:
            rows = [(s, t) for s, t in rows if s <= max_bytes]
            if not rows:
                continue
        sizes = [s for s, _ in rows]
        summary = run(binary, workdir, name,
                      [*header["simulate"].split(), f"--b={min(sizes)}", f"--e={max(sizes)}",
                       "--f=2"])
        ours = {c["size_bytes"]: c for c in summary["collectives"]}
        print(f"\n{name}: {header.get('measured', '')}\n  source: {header.get('source', '')}")
        if "note" in header:
            print(f"  note: {header['note']}")
        print(f"  {'size (B)':>12} {'measured':>10} {'ours':>10} {'error':>8} "
              f"{'tuner':>10} {'error':>8}  algo/proto")
        errors = {"packet": [], "tuner": []}
        large = {"packet": [], "tuner": []}
        for size, measured in rows:
            c = ours.get(size)
            if c is None:
                sys.exit(f"FAIL: {name}: our run has no row of {size} bytes")
            # NCCL has no tuner for some collectives (alltoall, sendrecv): no row for it.
            tuner = c.get("tuner_time_us")
            err = {"packet": c["time_us"] / measured - 1}
            if tuner is not None:
                err["tuner"] = tuner / measured - 1
            for mode in err:
                errors[mode].append(err[mode])
                if size >= MIB:
                    large[mode].append(err[mode])
            tuner_text = (f"{tuner:>10.2f} {100 * err['tuner']:>+7.1f}%" if tuner is not None
                          else f"{'-':>10} {'-':>8}")
            print(f"  {size:>12} {measured:>10.2f} {c['time_us']:>10.2f} "
                  f"{100 * err['packet']:>+7.1f}% {tuner_text}  "
                  f"{c['algorithm']}/{c['protocol']}")
            out_rows.append({"curve": name, "size_bytes": size, "measured_us": measured,
                             "packet_us": c["time_us"], "tuner_us": c["tuner_time_us"],
                             "algorithm": c["algorithm"], "protocol": c["protocol"]})
        for mode in [m for m in ("packet", "tuner") if errors[m]]:
            g_all, g_large = geomean(errors[mode]), geomean(large[mode])
            large_text = (f"{100 * g_large:.1f} % over the {len(large[mode])} of 1 MiB and up"
                          if large[mode] else "none of 1 MiB and up")
            print(f"  {mode}: geometric-mean error {100 * g_all:.1f} % over {len(errors[mode])} "
                  f"sizes, {large_text}")
            if mode == "packet" and (g_all > TARGET_ALL or (large[mode] and g_large > TARGET_LARGE)):
                failures.append(f"{name}: {100 * g_all:.1f} % (target 10), {large_text} "
                                "(target 5)")
    with open(os.path.join(workdir, "comparison.csv"), "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(out_rows[0].keys()))
        w.writeheader()
        w.writerows(out_rows)
    print(f"\n{len(names) - len(failures)} of {len(names)} curves within issue 31's targets")
    for f in failures:
        print(f"  outside: {f}")
    sys.exit(1 if check and failures else 0)


if __name__ == "__main__":
    main()
