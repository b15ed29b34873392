#!/bin/sh
# usage: ns3-run.sh NS3 OUT
# The documented command for a split run (docs/distributed.md), ./ns3 run '...' --command-template='mpirun -np 2 %s':
# it must run the MPI build (without --mpi) as 2 processes that split the run.
ns3=$1
out=$2
rm -rf "$out"
if ! "$ns3" run --no-build "fattree-allreduce --k=4 --size=256KiB --out=$out" \
    --command-template='mpirun -np 2 %s'; then
    echo "FAIL: ./ns3 run under mpirun failed"
    exit 1
fi
python3 - "$out/summary.json" <<'PY'
import json, sys
part = json.load(open(sys.argv[1])).get("partitions", {})
if part.get("count") != 2 or part.get("emulated") is not False or part.get("remote_events", 0) <= 0:
    sys.exit(f"FAIL: summary.json's partitions are {part}, expected 2 MPI processes")
print(f"ok: {part}")
PY
