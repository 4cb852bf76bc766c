#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# bench-cc.sh - connected components: the in-memory union-find against a
# plain union-find (union by size + path halving, in bench_cc.c) measured in
# the same run, at 1 rank x 1 and 2 threads and 2 ranks x 1 thread; then the
# whole stage (read, compute, write) with bin/g500 when the gen stage exists.
# Ratios are against the plain baseline of the same SCALE in this run.
# Usage: make bench-cc [BENCH_CC_SCALES="20 22"]   (REPS=5 by default)
set -u
BENCH_CC=${BENCH_CC:-build/bench/bench_cc}
G500=${G500:-bin/g500}
SCALES=${SCALES:-20 22}
REPS=${REPS:-5}
TMP=${TMPDIR:-/tmp}/g500-bench-cc.$$
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_mpi_yield_when_idle=1 OMPI_MCA_hwloc_base_binding_policy=none
export OMPI_MCA_rmaps_base_oversubscribe=1 OMP_WAIT_POLICY=passive
mkdir -p "$TMP"
trap 'rm -rf "$TMP"' EXIT
field() { sed -nE "s/.*$1=([^ ]+).*/\1/p" <<<"$2" | head -n 1; }

echo "# $(date -u +%F) $(uname -m), $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
for s in $SCALES; do
    a=$(mpirun -np 1 -x OMP_NUM_THREADS=1 "$BENCH_CC" "$s" 1 "$REPS")
    b=$(mpirun -np 1 -x OMP_NUM_THREADS=2 "$BENCH_CC" "$s" 2 "$REPS")
    c=$(mpirun -np 2 -x OMP_NUM_THREADS=1 "$BENCH_CC" "$s" 1 "$REPS")
    printf '%s\n%s\n%s\n' "$a" "$b" "$c"
    base=$(field edges_per_s "$(grep '^plain' <<<"$a")")
    for line in "$(grep '^forest' <<<"$a")" "$(grep '^forest' <<<"$b")" "$(grep '^forest' <<<"$c")" \
                "$(grep '^stage' <<<"$a")" "$(grep '^stage' <<<"$b")" "$(grep '^stage' <<<"$c")"; do
        eps=$(field edges_per_s "$line")
        printf 'SCALE %s %-6s ranks=%s threads=%s %.3e edges/s = %.2fx plain (%.3e)\n' "$s" \
            "${line%% *}" "$(field ranks "$line")" "$(field threads "$line")" "$eps" \
            "$(awk -v a="$eps" -v b="$base" 'BEGIN{print a/b}')" "$base"
    done
    if "$G500" gen --help >/dev/null 2>&1; then
        "$G500" gen -s "$s" -o "$TMP/e$s.h5" --force >/dev/null 2>&1 || { echo "gen failed"; continue; }
        m=$((16 << s))
        for cfg in "1 1" "1 2" "2 1"; do
            set -- $cfg
            t0=$(date +%s.%N)
            mpirun -np "$1" -x OMP_NUM_THREADS="$2" "$G500" components "$TMP/e$s.h5" -o "$TMP/c$s.h5" \
                --force --threads "$2" -q || { echo "components failed"; break; }
            t1=$(date +%s.%N)
            awk -v s="$s" -v p="$1" -v t="$2" -v a="$t0" -v b="$t1" -v m="$m" \
                'BEGIN{printf "SCALE %s whole  ranks=%s threads=%s %.2f s (mpirun included) %.3e edges/s\n", s, p, t, b-a, m/(b-a)}'
        done
    fi
done
