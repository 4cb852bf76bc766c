#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# bench-phase-rss.sh - resident memory of each phase of `g500 run`, which
# the peak-RSS lines of the driver cannot show once construction holds the
# peak (every later peak hides under it).
#
#   bench/bench-phase-rss.sh EDGES.h5 NP [more g500 run options]
#
# Runs `OMP_NUM_THREADS=2/NP "$MPI_LAUNCH" -n NP g500 run EDGES.h5 --roots 2`
# and samples VmRSS of every rank every 10 ms from /proc; each sample is
# put in the phase named by the driver's last progress line (construction,
# BFS search, BFS validation, SSSP search, SSSP validation). Prints per
# phase the maximum over ranks and samples in MiB, and in bytes per local
# vertex (nlocal = N / NP) above the CSR of rank 0 (the driver's "CSR ...
# MiB on rank 0"): what the phase adds to the graph, the process baseline
# (~30 MiB: MPI, HDF5) and fixed buffers included. Sampling misses peaks
# shorter than 10 ms; the per-vertex arrays live for whole searches and
# validations, so they are seen. Environment: G500 (default bin/g500).
set -u
MPI_LAUNCH=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)/scripts/mpi-launch   # MPIRUN picks the launcher
G500=${G500:-bin/g500}
[ $# -ge 2 ] || { echo "usage: $0 EDGES.h5 NP [g500 run options]" >&2; exit 2; }
edges=$1 np=$2
shift 2
t=$((2 / np)); [ "$t" -ge 1 ] || t=1
tmp=$(mktemp -d /tmp/g500-phase-rss.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
OMP_NUM_THREADS="$t" "$MPI_LAUNCH" -n "$np" "$G500" run "$edges" \
    --roots 2 "$@" >"$tmp/out" 2>"$tmp/err" &
mp=$!
declare -A peak
order="construction bfs-search bfs-validation sssp-search sssp-validation"
while kill -0 "$mp" 2>/dev/null; do
    last=$(grep -E "constructing|Running BFS|Validating BFS|Running SSSP|Validating SSSP" \
           "$tmp/err" 2>/dev/null | tail -1)
    case "$last" in
        *"Validating SSSP"*) ph=sssp-validation ;;
        *"Running SSSP"*) ph=sssp-search ;;
        *"Validating BFS"*) ph=bfs-validation ;;
        *"Running BFS"*) ph=bfs-search ;;
        *) ph=construction ;;
    esac
    m=0
    for pid in $(pgrep -P "$mp" -f "run $edges"); do
        r=$(awk '/^VmRSS:/ {print $2}' "/proc/$pid/status" 2>/dev/null)
        [ -n "$r" ] && [ "$r" -gt "$m" ] && m=$r
    done
    [ "$m" -gt "${peak[$ph]:-0}" ] && peak[$ph]=$m
    sleep 0.01
done
wait "$mp"
rc=$?
[ $rc -eq 0 ] || { echo "g500 run failed ($rc):" >&2; tail -3 "$tmp/err" >&2; exit 1; }
n=$(awk '/^SCALE:/ {print 2 ^ $2; exit}' "$tmp/out")
nl=$((n / np))
csr=$(grep -oE "CSR [0-9.]+ MiB on rank 0" "$tmp/err" | awk '{printf "%d", $2 * 1024}')
echo "$edges np $np threads $t: N $n, CSR $((csr / 1024)) MiB on rank 0," \
     "load $(cut -d' ' -f1-3 /proc/loadavg)"
grep -E "peak RSS" "$tmp/err" | sed 's/^/  driver: /'
for ph in $order; do
    k=${peak[$ph]:-0}
    [ "$k" -gt 0 ] || continue
    awk -v ph="$ph" -v k="$k" -v b="$csr" -v nl="$nl" 'BEGIN {
        printf "  %-16s max RSS %8.1f MiB  above the CSR %6.1f bytes per local vertex\n",
               ph, k / 1024, (k - b) * 1024 / nl }'
done
