#!/usr/bin/env python3
"""training-step --mode=job: every GPU's trace replayed as a whole job: Chakra execution traces
(--workload=PREFIX, PREFIX.<rank>.et), per-rank JSON (PREFIX.<rank>.json) and the NCCL log of
every process (one file, or PREFIX.<rank>.log).

The traces are written here by protoc (--encode, from chakra/et.proto: Chakra's field numbers),
not by the simulator, each file a GlobalMetadata and Nodes behind their varint lengths, as
chakra's protolib writes them. Four GPUs on two servers of two; process groups 1 and 2 are
the servers' TP pairs, 3 and 4 the DP pairs across them (comm-groups file). Each GPU: forward
(200 us), an all-gather on its TP group (1 MiB each), backward (400 us), an all-reduce on its
DP group (64 MiB), a memory load (left out: no memory model), the optimiser (50 us) and a
reduce-scatter on the DP group (comm_size 32 MiB: ASTRA-sim's input, so 16 MiB each); GPU 0
sends 4 MiB to GPU 2 after its forward pass.
- The step is at least its compute plus the DP all-reduce's and reduce-scatter's time at line
  rate on the rail between the two servers (2 (n-1)/n S and (n-1)/n x input per GPU), and at
  most 25 % above it; its parts add up; RoCEv2 and InfiniBand both run it.
- Every collective is found with its category: TP (one server), DP, PP (the transfer); the
  reduce-scatter (one per DP group) is 16 MiB per GPU; the memory loads are counted in a note.
- The same traces again give the same summary; the same job written as per-rank JSON (one
  file per GPU, docs/workload-format.md) gives the same step.
- The job's collectives as NCCL logs them (NCCL 2.30's format strings; a world communicator
  and TP and DP ones split from it) run back to back on each GPU: at least the DP all-reduce's
  and reduce-scatter's line-rate time, at most 25 % above it; the same lines as a log per rank
  give the same step.
- Mistakes are exit 2 with one line naming the file and node (or byte): a file cut short, a
  process group no file declares, GPUs that disagree on a collective's size, and traces
  outside --mode=job.

usage: training-step-traces.py WORKDIR BINARY
"""

import json
import os
import subprocess

import clitest

PROTO_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "chakra")
MiB = 1 << 20
RATE = 400e9
GROUPS = {"1": [0, 1], "2": [2, 3], "3": [0, 2], "4": [1, 3]}
COMPUTE_US = 200 + 400 + 50
AR_BYTES = 64 * MiB
RS_BYTES = 32 * MiB


def encode(message, text):
    p = subprocess.run(["protoc", f"--proto_path={PROTO_DIR}", f"--encode=chakra_test.{message}",
                        "et.proto"], input=text.encode(), capture_output=True, check=True)
    return p.stdout


def varint(n):
    out = bytearray()
    while True:
        b = n & 0x7F
        n >>= 7
        out.append(b | (0x80 if n else 0))
        if not n:
            return bytes(out)


def attr(name, kind, value):
    v = json.dumps(value) if isinstance(value, str) else str(value).lower()
    return f'attr {{ name: "{name}" {kind}: {v} }}'


def node(nid, name, kind, deps=(), ctrl=(), micros=0, attrs=()):
    text = f'id: {nid} name: "{name}" type: {kind} duration_micros: {micros} '
    text += " ".join(f"data_deps: {d}" for d in deps) + " "
    text += " ".join(f"ctrl_deps: {d}" for d in ctrl) + " "
    return text + " ".join(attrs)


def coll(nid, name, comm_type, size, pg, deps=(), ctrl=()):
    return node(nid, name, "COMM_COLL_NODE", deps, ctrl, attrs=(
        attr("is_cpu_op", "bool_val", False), attr("comm_type", "int64_val", comm_type),
        attr("comm_size", "int64_val", size), attr("pg_name", "string_val", pg)))


def rank_nodes(r, ar_bytes=AR_BYTES, dp_pg=None):
    tp = "1" if r < 2 else "2"
    dp = dp_pg or ("3" if r % 2 == 0 else "4")
    nodes = [
        node(1, "fwd", "COMP_NODE", micros=200),
        coll(2, "tp all-gather", 2, MiB, tp, deps=[1]),
        node(3, "bwd", "COMP_NODE", deps=[2], micros=400),
        coll(4, "dp all-reduce", 0, ar_bytes, dp, deps=[3]),
        node(5, "load", "MEM_LOAD_NODE", deps=[4], attrs=(attr("tensor_size", "uint64_val", 4096),)),
        node(6, "opt", "COMP_NODE", deps=[5], micros=50),
        coll(7, "dp reduce-scatter", 7, RS_BYTES, dp, ctrl=[6]),
    ]
    if r == 0:
        nodes.append(node(8, "send", "COMM_SEND_NODE", deps=[1], attrs=(
            attr("comm_dst", "int32_val", 2), attr("comm_size", "int64_val", 4 * MiB),
            attr("comm_tag", "int32_val", 1))))
    if r == 2:
        nodes.append(node(8, "recv", "COMM_RECV_NODE", attrs=(
            attr("comm_src", "int32_val", 0), attr("comm_size", "int64_val", 4 * MiB),
            attr("comm_tag", "int32_val", 1))))
    return nodes


def write_traces(folder, nodes_of, cut=None):
    """<folder>/job.<r>.et for each rank, and <folder>/groups.json; cut: (rank, bytes) to
    keep of one file."""
    os.makedirs(folder, exist_ok=True)
    for r in range(4):
        data = bytearray()
        for message in [encode("GlobalMetadata", 'version: "0.0.4"')] + [
                encode("Node", n) for n in nodes_of(r)]:
            data += varint(len(message)) + message
        if cut and cut[0] == r:
            data = data[:cut[1]]
        with open(os.path.join(folder, f"job.{r}.et"), "wb") as f:
            f.write(data)
    groups = os.path.join(folder, "groups.json")
    with open(groups, "w") as f:
        json.dump(GROUPS, f)
    return os.path.join(folder, "job"), groups


def write_json(folder):
    """The same job as per-rank JSON: <folder>/job.<r>.json, each with the groups' kinds."""
    os.makedirs(folder, exist_ok=True)
    comms = {g: {"kind": "tp" if g in ("1", "2") else "dp", "gpus": gpus}
             for g, gpus in GROUPS.items()}
    for r in range(4):
        tp = "1" if r < 2 else "2"
        dp = "3" if r % 2 == 0 else "4"
        ops = [
            {"id": "fwd", "compute_us": 200},
            {"id": "ag", "collective": "all_gather", "comm": tp, "bytes": MiB, "after": ["fwd"]},
            {"id": "bwd", "compute_us": 400, "after": ["ag"]},
            {"id": "ar", "collective": "all_reduce", "comm": dp, "bytes": AR_BYTES,
             "after": ["bwd"]},
            {"id": "opt", "compute_us": 50, "after": ["ar"]},
            {"id": "rs", "collective": "reduce_scatter", "comm": dp, "bytes": RS_BYTES // 2,
             "after": ["opt"]},
        ]
        if r == 0:
            ops.append({"id": "send", "send": 2, "bytes": 4 * MiB, "after": ["fwd"]})
        if r == 2:
            ops.append({"id": "recv", "recv": 0, "bytes": 4 * MiB})
        with open(os.path.join(folder, f"job.{r}.json"), "w") as f:
            json.dump({"communicators": comms, "ops": ops}, f, indent=1)
    return os.path.join(folder, "job")


def nccl_lines(r):
    """GPU r's lines: its communicators' Init COMPLETE lines, then its calls on one stream."""
    who = f"node{r // 2}:{100 + r}:{200 + r} [{r % 2}] NCCL INFO "
    world, tp, dp = f"0x{r}1", f"0x{r}2", f"0x{r}3"
    lines = [
        f"{who}ncclCommInitRank comm {world} rank {r} nranks 4 cudaDev {r % 2} nvmlDev {r % 2} "
        "busId 1b000 commId 0x5eed - Init COMPLETE",
        f"{who}ncclCommSplit comm {tp} rank {r % 2} nranks 2 cudaDev {r % 2} nvmlDev {r % 2} "
        f"busId 1b000 parent {world} splitCount 1 color {r // 2} key {r} - Init COMPLETE",
        f"{who}ncclCommSplit comm {dp} rank {r // 2} nranks 2 cudaDev {r % 2} nvmlDev {r % 2} "
        f"busId 1b000 parent {world} splitCount 2 color {r % 2} key {r} - Init COMPLETE",
    ]

    def call(op, comm, n, count, root=0):
        lines.append(f"{who}{op}: opCount 0 sendbuff 0x1 recvbuff 0x2 count {count} datatype 7 "
                     f"op 0 root {root} comm {comm} [nranks={n}] stream 0x{r}9")
    call("AllGather", tp, 2, MiB // 4)
    call("AllReduce", dp, 2, AR_BYTES // 4)
    call("ReduceScatter", dp, 2, RS_BYTES // 8)
    if r == 0:
        call("Send", world, 4, MiB, root=2)
    if r == 2:
        call("Recv", world, 4, MiB, root=0)
    return lines


def write_logs(folder):
    """The job's log, every process in one file (job.log), and a log per rank (job.<r>.log)."""
    os.makedirs(folder, exist_ok=True)
    with open(os.path.join(folder, "job.log"), "w") as f:
        for r in (2, 0, 3, 1):
            f.write("\n".join(nccl_lines(r)) + "\n")
    for r in range(4):
        with open(os.path.join(folder, f"job.{r}.log"), "w") as f:
            f.write("\n".join(nccl_lines(r)) + "\n")
    return os.path.join(folder, "job.log"), os.path.join(folder, "job")


def run(binary, cwd, name, prefix, groups, extra=()):
    out = os.path.join(cwd, name)
    groups = [f"--commGroups={groups}"] if groups else []
    p = clitest.run_ok(binary, ["--mode=job", f"--workload={prefix}", *groups,
                                "--gpusPerNode=2", f"--linkRate={RATE / 1e9:g}Gbps",
                                "--fabric=roce,ib", *extra, f"--out={out}"], cwd, timeout=300)
    print(p.stdout)
    return p.stdout, clitest.load_summary(out)


def fails(binary, cwd, args, mention, problems):
    p = clitest.run(binary, args, cwd, timeout=60)
    lines = p.stderr.strip().splitlines()
    if p.returncode != 2 or len(lines) != 1 or mention not in lines[0]:
        problems.append(f"{args}: {clitest.describe_exit(p.returncode)}, stderr {p.stderr!r}, "
                        f"expected exit 2 and one line naming {mention!r}")


def main():
    binary, cwd = clitest.start(__doc__)
    problems = []
    prefix, groups = write_traces(os.path.join(cwd, "traces"), rank_nodes)
    stdout, s = run(binary, cwd, "job", prefix, groups)

    # Line rate between the servers: the all-reduce moves 2 (n-1)/n x 64 MiB per GPU, the
    # reduce-scatter (n-1)/n x its 32 MiB input, n = 2.
    floor = COMPUTE_US * 1e-6 + (AR_BYTES + RS_BYTES / 2) * 8 / RATE
    fabrics = {f["fabric"]: f for f in s.get("fabrics", [])}
    if set(fabrics) != {"roce", "ib"}:
        problems.append(f"fabrics {sorted(fabrics)}")
    for name, f in fabrics.items():
        clitest.check_parts(name, f, problems)
        step = f["step_s"]
        print(f"{name}: step {step * 1e3:.3f} ms, line-rate floor {floor * 1e3:.3f} ms")
        if not floor <= step <= 1.25 * floor:
            problems.append(f"{name}: step {step} s, expected {floor} to 1.25x that")
        cats = {c["category"] for c in f["collectives"]}
        if cats != {"tp", "dp", "pp"}:
            problems.append(f"{name}: categories {cats}")
        rs = [c for c in f["collectives"] if c["op"] == "reduce_scatter"]
        if len(rs) != 2 or any(c["bytes_per_rank"] != RS_BYTES // 2 for c in rs):
            problems.append(f"{name}: reduce-scatter {rs}, expected {RS_BYTES // 2} bytes a GPU")
    if "4 memory loads left out" not in stdout:
        problems.append("no note of the memory load left out")
    if s.get("workload", {}).get("format") != "chakra":
        problems.append(f"workload {s.get('workload')}")

    _, again = run(binary, cwd, "again", prefix, groups)
    if json.dumps(again["fabrics"]) != json.dumps(s["fabrics"]):
        problems.append("the same traces gave another summary")

    # The same job in per-rank JSON: the same step, to the nanosecond.
    _, js = run(binary, cwd, "json", write_json(os.path.join(cwd, "json")), None)
    for f in js.get("fabrics", []):
        chakra = fabrics.get(f["fabric"], {}).get("step_s", 0)
        if abs(f["step_s"] - chakra) > 1e-9:
            problems.append(f"per-rank JSON {f['fabric']}: step {f['step_s']}, Chakra {chakra}")
    if js.get("workload", {}).get("format") != "per-rank json" or len(js.get("fabrics", [])) != 2:
        problems.append(f"per-rank JSON: {js.get('workload')}, {len(js.get('fabrics', []))} rows")

    # The NCCL log of every process: collectives only, back to back on each GPU.
    one, per_rank = write_logs(os.path.join(cwd, "logs"))
    _, log = run(binary, cwd, "log", one, None)
    comm_floor = (AR_BYTES + RS_BYTES / 2) * 8 / RATE
    for f in log.get("fabrics", []):
        print(f"log {f['fabric']}: step {f['step_s'] * 1e3:.3f} ms, floor {comm_floor * 1e3:.3f} ms")
        if not comm_floor <= f["step_s"] <= 1.25 * comm_floor or f["compute_s"] != 0:
            problems.append(f"NCCL log {f['fabric']}: step {f['step_s']}, compute "
                            f"{f['compute_s']}, expected {comm_floor} to 1.25x that")
    _, logs = run(binary, cwd, "logs", per_rank, None)
    if [f["step_s"] for f in logs.get("fabrics", [])] != [f["step_s"] for f in log["fabrics"]]:
        problems.append("a log per rank gave another step than one log of every process")
    if len(log.get("fabrics", [])) != 2:
        problems.append(f"NCCL log: {len(log.get('fabrics', []))} fabrics")

    base = ["--mode=job", "--gpusPerNode=2", "--fabric=roce"]
    cut, _ = write_traces(os.path.join(cwd, "cut"), rank_nodes, cut=(1, 40))
    fails(binary, cwd, [*base, f"--workload={cut}", f"--commGroups={groups}"],
          "job.1.et: byte", problems)
    unknown, _ = write_traces(os.path.join(cwd, "unknown"),
                              lambda r: rank_nodes(r, dp_pg="9" if r == 3 else None))
    fails(binary, cwd, [*base, f"--workload={unknown}", f"--commGroups={groups}"],
          'job.3.et: node 4 (dp all-reduce): process group "9" is in no comm-groups file',
          problems)
    sizes, _ = write_traces(os.path.join(cwd, "sizes"),
                            lambda r: rank_nodes(r, ar_bytes=AR_BYTES // (2 if r == 2 else 1)))
    fails(binary, cwd, [*base, f"--workload={sizes}", f"--commGroups={groups}"],
          "job.2.et: node 4 (dp all-reduce): call 1 on communicator \"3\"", problems)
    fails(binary, cwd, ["--mode=packet", f"--workload={prefix}", f"--commGroups={groups}"],
          "run as a whole job", problems)

    if problems:
        clitest.fail("\n".join(problems))
    print("ok")


if __name__ == "__main__":
    main()
