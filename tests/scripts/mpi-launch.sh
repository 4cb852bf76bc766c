#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# mpi-launch.sh - scripts/mpi-launch tells ranks to yield while they wait
# only when ranks x threads exceed this host's cores, counted without
# OMP_NUM_THREADS (which GNU nproc would otherwise report as the core
# count): 1-thread ranks up to the core count busy-poll as MPI libraries
# do on a cluster node; one rank more yields. Checked on the environment
# each rank starts with. Prints "N passed, N failed".
set -u
cd "$(dirname "$0")/../.."
pass=0 fail=0
ok() { echo "PASS $1"; pass=$((pass + 1)); }
ko() { echo "FAIL $1"; fail=$((fail + 1)); }
cores=$(env -u OMP_NUM_THREADS -u OMP_THREAD_LIMIT nproc)
MPI=${MPI:-openmpi}
# what each rank sees: Open MPI's yield setting, MPICH's preload
probe='echo "yield=${OMPI_MCA_mpi_yield_when_idle:-} preload=${LD_PRELOAD:-}"'
launch() { # NP THREADS -> one line per rank
    env -u OMPI_MCA_mpi_yield_when_idle -u LD_PRELOAD OMP_NUM_THREADS="$2" \
        timeout -k 5 60 scripts/mpi-launch -n "$1" sh -c "$probe" 2>/dev/null
}
yields() { # lines -> 0 if every rank was told to yield
    if [ "$MPI" = mpich ]; then ! grep -qv 'preload=.*mpich-yield' <<<"$1"
    else ! grep -qv '^yield=1 ' <<<"$1"; fi
}
polls() { ! grep -qE '^yield=1 |mpich-yield' <<<"$1"; }

out=$(launch "$cores" 1)
if [ "$(grep -c '^yield=' <<<"$out")" = "$cores" ] && polls "$out"; then
    ok "$cores ranks x 1 thread on $cores cores: no yield (OMP_NUM_THREADS=1 is not the core count)"
else ko "$cores ranks x 1 thread on $cores cores: $out"; fi

out=$(launch $((cores + 1)) 1)
if [ "$(grep -c '^yield=' <<<"$out")" = $((cores + 1)) ] && yields "$out"; then
    ok "$((cores + 1)) ranks x 1 thread on $cores cores: every rank yields"
else ko "$((cores + 1)) ranks x 1 thread on $cores cores: $out"; fi

out=$(launch 1 $((cores + 1)))
if [ "$(grep -c '^yield=' <<<"$out")" = 1 ] && yields "$out"; then
    ok "1 rank x $((cores + 1)) threads on $cores cores: yields"
else ko "1 rank x $((cores + 1)) threads: $out"; fi

echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
