#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# isa.sh - the tests of the kernels that take vector code at compile time,
# with those files built for older CPUs, at 1, 2 and 4 ranks, so the code
# paths the host's build does not take are tested too (tests/module.mk
# builds them): the SSSP tests (tests/mpi/mpi_kern_sssp.c) with
# kernels/sssp.c for plain x86-64 and x86-64-v3 (AVX2), the batch
# validation tests (tests/mpi/mpi_validate_keys.c) with
# kernels/validate_edges.c for plain x86-64. A path the CPU cannot run is
# reported and skipped; on another architecture there is nothing to run.
# Prints "N passed, N failed".
set -u
cd "$(dirname "$0")/../.." || exit 1
BUILD=${BUILD:-build}
TIMEOUT=${MPI_TIMEOUT:-300}
pass=0; fail=0
ok() { echo "PASS $1"; pass=$((pass + 1)); }
ko() { echo "FAIL $1"; fail=$((fail + 1)); }

if [ "$(uname -m)" != x86_64 ]; then
    echo "not x86-64: no other build to test"
    echo "$pass passed, $fail failed"; exit 0
fi
for run in x86-64/mpi_kern_sssp x86-64-v3/mpi_kern_sssp x86-64/mpi_validate_keys; do
    isa=${run%/*}
    bin=$BUILD/isa/$run
    if [ ! -x "$bin" ]; then
        ko "$bin not built (make tests builds it)"; continue
    fi
    if [ "$isa" = x86-64-v3 ] && ! grep -qw avx2 /proc/cpuinfo; then
        echo "this CPU has no AVX2: $run not run"; continue
    fi
    for np in 1 2 4; do
        out=$(timeout -k 10 "$TIMEOUT" scripts/mpi-launch -n $np "$bin" 2>&1)
        rc=$?
        line=$(grep -E '^[0-9]+ passed, [0-9]+ failed' <<<"$out" | tail -n 1)
        if [ $rc -eq 0 ] && [ -n "$line" ] && [[ $line == *" 0 failed" ]]; then
            ok "$run at $np ranks: $line"
        else
            ko "$run at $np ranks (exit $rc): ${line:-no count line}"
            tail -n 20 <<<"$out"
        fi
    done
done
echo "$pass passed, $fail failed"
[ $fail -eq 0 ]
