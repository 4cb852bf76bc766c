#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# bench-construct.sh - kernel 1 alone (build/bench/bench_construct) at the
# SCALEs given (default 20): 1 rank x 2 threads, 2 ranks x 1 thread and
# 4 ranks x 1 thread (oversubscribed), cyclic, then 2x1 and 4x1 with the
# components-aware placement (`g500 components` + `g500 partition` on
# configs/fat-tree-2x2.conf, cached next to the edges file), streaming the
# edges file as `g500 run` does, REPS builds each (median reported); then the peak RSS of a whole validated `g500 run` (BFS + SSSP,
# ROOTS keys) at 1x2 and 2x1. Prints the load average with every line: the
# machine is shared, so elapsed times are noisy; the CPU seconds (summed over
# threads and ranks, reads excluded) are the load-independent figure.
# Usage: bench/bench-construct.sh [SCALE...]
set -u
MPI_LAUNCH=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)/scripts/mpi-launch   # MPIRUN picks the launcher
G500=${G500:-bin/g500}
BC=${BENCH_CONSTRUCT:-build/bench/bench_construct}
REPS=${REPS:-3}
ROOTS=${ROOTS:-4}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
# the launcher oversubscribes, unbinds, and makes ranks yield only past the cores
DIR=${BENCH_DIR:-results/bench-construct}
mkdir -p "$DIR"
med() { sort -g | awk '{a[NR]=$1} END {print (NR % 2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}'; }
load() { cut -d' ' -f1 /proc/loadavg; }
printf '%-6s %-6s %-10s %-10s %-10s %-10s %-10s %-10s %-12s %s\n' SCALE config dist elapsed_s count_s fill_s merge_s cpu_s build_B/edge load
for S in "${@:-20}"; do
    E="$DIR/s$S.h5"
    [ -f "$E" ] || $G500 gen -s "$S" -o "$E" -q || exit 1
    C="$DIR/c$S.h5"
    [ -f "$C" ] || "$MPI_LAUNCH" -n 2 "$G500" components -q "$E" -o "$C" || exit 1
    for np in 2 4; do
        [ -f "$DIR/p$S-$np.h5" ] || "$MPI_LAUNCH" -n 2 "$G500" partition -q "$E" "$C" --topology configs/fat-tree-2x2.conf \
            --ranks "$np" --ranks-per-node 1 -o "$DIR/p$S-$np.h5" -f >/dev/null || exit 1
    done
    for run in 1x2:cyclic 2x1:cyclic 4x1:cyclic 2x1:placement 4x1:placement; do
        cfg=${run%%:*}; dist=${run#*:}; np=${cfg%x*}; th=${cfg#*x}
        D=$dist; [ "$dist" = placement ] && D="$DIR/p$S-$np.h5"
        out="$DIR/s$S.$cfg.$dist.construct.txt"
        OMP_NUM_THREADS=$th "$MPI_LAUNCH" -n "$np" "$BC" "$E" file "$REPS" 0 "$D" >"$out" 2>&1 || { echo "$S $cfg $dist FAILED: $(tail -2 "$out")"; continue; }
        col() { awk -v c="$1" '!/^#/ && NF >= 7 {print $c}' "$out" | med; }
        b=$(grep -o '= [0-9.]* bytes' "$out" | tr -d '= a-z')
        printf '%-6s %-6s %-10s %-10s %-10s %-10s %-10s %-10s %-12s %s\n' "$S" "$cfg" "$dist" "$(col 2)" "$(col 3)" "$(col 4)" "$(col 5)" "$(col 6)" "$b" "$(load)"
    done
    for cfg in 1x2 2x1; do
        np=${cfg%x*}; th=${cfg#*x}
        out="$DIR/s$S.$cfg.run"
        OMP_NUM_THREADS=$th "$MPI_LAUNCH" -n "$np" "$G500" run "$E" --roots "$ROOTS" >"$out.txt" 2>"$out.err" || { echo "$S $cfg run FAILED: $(tail -2 "$out.err")"; continue; }
        c=$(awk '/^construction_time:/{print $2}' "$out.txt")
        m=$(grep -o 'peak RSS (max over ranks) [0-9.]* MiB = [0-9.]* bytes' "$out.err" | tail -1 | grep -o '= [0-9.]*' | tr -d '= ')
        echo "SCALE $S $cfg: validated g500 run ($ROOTS roots, BFS + SSSP): construction_time $c s, peak RSS $m bytes per input edge (load $(load))"
    done
done
