#!/usr/bin/env python3
"""training-jobs: two small jobs side by side on one cluster, every GPU at once.

- On the shipped rail-optimised cluster, where each job's traffic stays on its rail leaves (or
  its servers' NVLink), neither job slows the other: slowdown 1 within 1 %.
- On a 2:1 oversubscribed top-of-rack cluster with two servers per leaf, where each job's
  data-parallel traffic crosses the same leaf uplinks (InfiniBand, whose LFT routes spread it
  evenly, so the slowdown is the sharing and not ECMP luck), each job is at least 10 % slower
  beside the other than alone, and no faster than twice alone (two jobs share the uplinks).
- With --jitter=uniform:0.2 each job's step is longer than without, by at most 20 % of its
  compute (and 2 % of the step).
- A dense job beside an MoE job (examples/jobs/dense-and-moe.json): the MoE job's expert
  all-to-alls run (exposed EP time, EP 4 in its summary, all-to-alls in its --timeline), the
  dense job has none; each timeline has every GPU of its job.
- The link report: on rails nothing climbs to a spine; on the shared uplinks they carry load.
  Flows per link: as many go down as up, none spread better than evenly, a NIC's not at all.
  jobs.png and links.png are drawn; the heat map's cells are links.csv's directions.
- --stop before the jobs end: exit 0, each job marked stopped with the operation instances it
  finished (some, not all), no step, the packet balance of what ran holding.
- Every row adds up (compute + bubble + exposed communication = the step); the jobs' nodes
  are disjoint; the packet balance holds; on the shared uplinks TP's collectives (NVLink) take
  their time alone and DP's up to twice it; a second identical run gives identical results.

usage: training-jobs.py WORKDIR BINARY JOBS_FILE MOE_JOBS_FILE
"""

import csv
import json
import os
import sys

import clitest


def run(binary, cwd, name, args):
    out = os.path.join(cwd, name)
    p = clitest.run_ok(binary, [*args, f"--out={out}"], cwd, timeout=300)
    print(p.stdout)
    return clitest.load_summary(out)


def check_rows(name, s, problems):
    jobs = s.get("jobs", [])
    if len(jobs) != 2:
        problems.append(f"{name}: {len(jobs)} jobs, expected 2")
        return jobs
    nodes = [n for j in jobs for n in j["nodes"]]
    if len(nodes) != len(set(nodes)):
        problems.append(f"{name}: jobs share nodes {[j['nodes'] for j in jobs]}")
    for j in jobs:
        for run_name in ("together", "alone"):
            # Compute spans run in whole nanoseconds of ns-3's clock; the breakdown counts
            # their exact durations: a few ns apart over a step.
            clitest.check_parts(f"{name} {j['name']} {run_name}", j[run_name], problems, 1e-5)
        if abs(j["slowdown"] - j["together"]["step_s"] / j["alone"]["step_s"]) > 1e-12:
            problems.append(f"{name} {j['name']}: slowdown {j['slowdown']} is not together/alone")
    return jobs


def check_flows(name, tiers, problems):
    """Every flow that leaves a host enters one, and climbs down as many tiers as it climbed
    up; a NIC has one link, so its flows cannot spread better; an even spread is never worse
    than the real one."""
    if not tiers["host->leaf"]["flows"] > 0:
        problems.append(f"{name}: no flows counted: {tiers['host->leaf']}")
    for up, down in (("host->leaf", "leaf->host"), ("leaf->spine", "spine->leaf")):
        if up in tiers and tiers[up]["flows"] != tiers[down]["flows"]:
            problems.append(f"{name}: {tiers[up]['flows']} flows {up}, "
                            f"{tiers[down]['flows']} {down}")
    for t in tiers.values():
        if not t["ideal_max_flows"] <= t["max_flows"]:
            problems.append(f"{name}: {t['tier']} max {t['max_flows']} flows per link below "
                            f"an even spread's {t['ideal_max_flows']}")
    host = tiers["host->leaf"]
    if host["ideal_max_flows"] != host["max_flows"]:
        problems.append(f"{name}: host->leaf {host}: one link per NIC, nothing to spread")


def main():
    if len(sys.argv) != 5:
        sys.exit(__doc__)
    cwd = clitest.fresh_dir(sys.argv[1])
    binary, jobs_file, moe_file = sys.argv[2], sys.argv[3], sys.argv[4]
    problems = []

    rail = run(binary, cwd, "rail", [f"--jobs={jobs_file}"])
    for j in check_rows("rail", rail, problems):
        if abs(j["slowdown"] - 1) > 0.01:
            problems.append(f"rail {j['name']}: slowdown {j['slowdown']}, expected 1 "
                            "(no link shared)")
    # The link report: on rails the jobs' all-reduces stay on their leaves, so nothing climbs
    # to a spine; on the oversubscribed ToR leaves (below) the uplinks carry them.
    rail_tiers = {t["tier"]: t for t in rail["fabric"]["links"]["tiers"]}
    if rail_tiers.get("leaf->spine", {}).get("used") != 0 or not rail_tiers["host->leaf"]["used"]:
        problems.append(f"rail: links {rail_tiers}")
    if not os.path.exists(os.path.join(cwd, "rail", "links.csv")):
        problems.append("rail: no links.csv")
    check_flows("rail (RoCEv2)", rail_tiers, problems)

    # Compute jitter (stragglers): every collective waits for its slowest GPU, so a step with
    # jitter is longer, by at most the jitter's 20 % of the compute (give or take 2 %).
    jittered = run(binary, cwd, "jitter", [f"--jobs={jobs_file}", "--jitter=uniform:0.2"])
    for nominal, j in zip(rail.get("jobs", []), check_rows("jitter", jittered, problems)):
        base = nominal["together"]
        bound = base["step_s"] + 0.2 * base["compute_s"] + 0.02 * base["step_s"]
        if not base["step_s"] < j["together"]["step_s"] <= bound or j["jitter"] != "uniform:0.2":
            problems.append(f"jitter {j['name']}: step {j['together']['step_s']} against "
                            f"{base['step_s']} without (at most {bound}), {j['jitter']}")

    shared = ["--cluster=tor", "--nodesPerLeaf=2", "--oversubscription=2", "--fabric=ib"]
    tor = run(binary, cwd, "tor", [f"--jobs={jobs_file}", *shared])
    for j in check_rows("tor", tor, problems):
        if not 1.1 <= j["slowdown"] <= 2.0:
            problems.append(f"tor {j['name']}: slowdown {j['slowdown']}, expected 1.1 to 2 "
                            "(two jobs on the same oversubscribed uplinks)")
        # Where the slowdown comes from: TP stays on the servers' NVLink (no interference);
        # DP's all-reduces cross the uplinks two jobs now share, 16 flows on a leaf's 8
        # uplinks instead of 8: their bandwidth-bound part takes twice as long.
        factors = {c["name"]: c.get("interference") for c in j["by_communicator"]}
        if factors.get("tp") is None or abs(factors["tp"] - 1) > 0.01:
            problems.append(f"tor {j['name']}: TP interference {factors.get('tp')}, expected 1")
        if factors.get("dp") is None or not 1.3 <= factors["dp"] <= 2.1:
            problems.append(f"tor {j['name']}: DP interference {factors.get('dp')}, "
                            "expected 1.3 to 2.1")
    tor_tiers = {t["tier"]: t for t in tor["fabric"]["links"]["tiers"]}
    if not tor_tiers.get("leaf->spine", {}).get("max_utilisation", 0) > 0:
        problems.append(f"tor: nothing crossed the uplinks: {tor_tiers}")
    check_flows("tor (InfiniBand)", tor_tiers, problems)
    if not tor_tiers["leaf->spine"]["flows"] > 0:
        problems.append(f"tor: no flow crossed the uplinks: {tor_tiers['leaf->spine']}")
    if tor["cluster"]["kind"] != "top-of-rack":
        problems.append(f"tor: cluster kind {tor['cluster']['kind']}")
    # The plots: each job's step together and alone; the heat map a row per tier pair, each
    # direction a cell whose utilisation is the one links.csv gives it.
    for name in ("jobs", "links"):
        png = tor.get("plots", {}).get(name, "")
        if not png.endswith(f"{name}.png") or not os.path.getsize(png) > 0:
            problems.append(f"tor: no {name}.png ({png})")
    with open(os.path.join(cwd, "tor", "jobs.csv")) as f:
        runs = [r["run"] for r in csv.DictReader(f)]
    if runs != ["a together", "a alone", "b together", "b alone"]:
        problems.append(f"tor: jobs.csv rows {runs}")
    with open(os.path.join(cwd, "tor", "links-heat.csv")) as f:
        cells = list(csv.DictReader(f))
    with open(os.path.join(cwd, "tor", "links.csv")) as f:
        directions = {(r["link"], r["from"]): r["utilisation"] for r in csv.DictReader(f)}
    if len(cells) != len(directions) or any(
            directions.get((c["link"], c["from"])) != c["utilisation"] for c in cells):
        problems.append("tor: links-heat.csv's cells are not links.csv's directions")

    again = run(binary, cwd, "tor-again", [f"--jobs={jobs_file}", *shared])
    if json.dumps(again["jobs"]) != json.dumps(tor["jobs"]):
        problems.append("a second identical run gave other jobs results")

    moe = run(binary, cwd, "moe", [f"--jobs={moe_file}", *shared, "--timeline"])
    jobs = {j["name"]: j for j in check_rows("moe", moe, problems)}
    if set(jobs) == {"dense", "moe"}:
        if jobs["moe"]["ep"] != 4 or not jobs["moe"]["together"]["exposed_s"]["ep"] > 0:
            problems.append(f"moe: EP {jobs['moe']['ep']}, exposed "
                            f"{jobs['moe']['together']['exposed_s']}")
        if jobs["dense"]["together"]["exposed_s"]["ep"] != 0:
            problems.append("moe: the dense job has expert all-to-alls")
        for name, j in jobs.items():
            with open(j["timeline"]) as f:
                events = json.load(f)["traceEvents"]
            spans = [e for e in events if e["ph"] == "X"]
            gpus = {e["pid"] for e in spans}
            cats = {e["cat"] for e in spans}
            if len(gpus) != j["gpus"] or ("ep" in cats) != (name == "moe"):
                problems.append(f"moe: {name}'s timeline has GPUs {sorted(gpus)}, kinds {cats}")
    else:
        problems.append(f"moe: jobs {sorted(jobs)}")

    stopped = run(binary, cwd, "stopped", [f"--jobs={jobs_file}", "--stop=1ms"])
    for j in stopped["jobs"]:
        if not (j.get("stopped") and 0 < j.get("finished_instances", 0) < j["instances"]):
            problems.append(f"--stop=1ms: job {j['name']}: stopped {j.get('stopped')}, "
                            f"{j.get('finished_instances')} of {j['instances']} instances")

    for p in problems:
        print(f"FAIL: {p}", file=sys.stderr)
    sys.exit(1 if problems else 0)


if __name__ == "__main__":
    main()
