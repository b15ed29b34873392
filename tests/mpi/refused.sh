#!/bin/sh
# usage: refused.sh EXPECTED COMMAND [ARG...]
# Passes when COMMAND (mpirun and a program) exits with code 2 and prints EXPECTED: bad input
# gets a clear error and exit 2 from every rank (mpirun returns the first failed rank's code).
expected=$1
shift
out=$("$@" 2>&1)
rc=$?
printf '%s\n' "$out"
if [ "$rc" -ne 2 ]; then
    echo "FAIL: exit code $rc, expected 2"
    exit 1
fi
if ! printf '%s\n' "$out" | grep -qF -- "$expected"; then
    echo "FAIL: the output does not say: $expected"
    exit 1
fi
