#!/bin/bash
# SPDX-License-Identifier: MIT
# bench-bfs.sh - kernel 2 (BFS) alone, side by side over rank x thread
# configurations and distributions, from one edges file per SCALE; or an
# alternated A/B of two bench_bfs binaries.
#
#   BENCH_BFS=build/bench/bench_bfs G500=bin/g500 bench/bench-bfs.sh [SCALES...]
#   (make bench-bfs BENCH_SCALES="20 22")
#   BASE=/path/to/other/build/bench/bench_bfs bench/bench-bfs.sh [SCALES...]
#   (make bench-bfs BASE=... : A/B against another checkout's binary)
#   AB=build/bench/bench_bfs_ab bench/bench-bfs.sh [SCALES...]
#   (make bench-bfs-ab BFS_BASE=REV : both versions of bfs.c in one process)
#
# For each SCALE: generate /tmp/g500-bench-bfs/sS.h5 if missing, then run
# bench_bfs (graph built once, 16 keys x 3 repetitions, median per key) for
# CONFIGS (default 1x1 1x2 2x1 4x1: ranks x threads; 4 ranks are
# oversubscribed on a 2-core machine) under DISTS (default cyclic and
# block), in ROUNDS alternating rounds, and print one line per run with the
# harmonic-mean MTEPS and the load average. mpirun is told not to bind
# (a 1-rank run bound to one core would put both threads on it).
#
# With BASE set, every (config, dist) runs BASE then this tree's binary,
# ROUNDS times alternated (default 5: A,B,A,B,...), and a summary line per
# (config, dist) gives both medians over the rounds and their ratio; each
# run's figure is the harmonic mean over the keys of the per-key median.
# With AB set, each configuration runs bench_bfs_ab (REV's bfs.c as A and
# this tree's as B, alternating key by key on one graph) ROUNDS times
# (default 3) and the median of its B/A ratios is printed: the comparison
# to trust on a shared machine, since both versions see the same load.
# The machine is shared: compare within a round, quote medians over rounds.
# bench_bfs does not validate: `g500 run` does (every key); this script
# times only.
set -u
BENCH_BFS=${BENCH_BFS:-build/bench/bench_bfs}
G500=${G500:-bin/g500}
BASE=${BASE:-}
AB=${AB:-}
ROUNDS=${ROUNDS:-$([ -n "$BASE" ] && echo 5 || echo 3)}
ROOTS=${ROOTS:-16}
REPS=${REPS:-3}
CONFIGS=${CONFIGS:-1x1 1x2 2x1 4x1}
DISTS=${DISTS:-cyclic block}
DIR=${BENCH_DIR:-/tmp/g500-bench-bfs}
SCALES=${*:-20}
MPIRUN="mpirun --oversubscribe"
export OMPI_MCA_hwloc_base_binding_policy=none
if [ "$(id -u)" = 0 ]; then
    export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
fi
med() { sort -g | awk '{a[NR]=$1} END {print (NR % 2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}'; }
# one run: harmonic-mean MTEPS of binary $1 at config $2, dist $3, file $4
one() {
    local np=${2%x*} th=${2#*x} out
    out=$(OMP_NUM_THREADS=$th $MPIRUN -np "$np" "$1" "$4" "$3" "$ROOTS" "$REPS") || return 1
    echo "$out" | awk '/^harmonic_mean_MTEPS/ {print $2}'
}
mkdir -p "$DIR"
echo "# $(uname -m), $(nproc) cores, $(date -u +%Y-%m-%d), bench_bfs $ROOTS keys x $REPS reps${BASE:+, A = $BASE, B = $BENCH_BFS}${AB:+ (in one process: $AB)}"
for s in $SCALES; do
    f=$DIR/s$s.h5
    [ -f "$f" ] || "$G500" gen --scale "$s" -o "$f" >/dev/null || exit 1
    if [ -n "$AB" ]; then
        for cfg in $CONFIGS; do
            np=${cfg%x*} th=${cfg#*x} ratios=()
            for r in $(seq "$ROUNDS"); do
                load=$(cut -d' ' -f1 /proc/loadavg)
                out=$(OMP_NUM_THREADS=$th $MPIRUN -np "$np" "$AB" "$f" "$ROOTS" "$((REPS < 5 ? 5 : REPS))") || {
                    echo "SCALE $s $cfg A/B: FAILED"; echo "$out"; exit 1; }
                echo "SCALE $s round $r $cfg cyclic $out  load $load"
                ratios+=("$(echo "$out" | awk '{for (i = 1; i < NF; i++) if ($i == "B/A") print $(i + 1)}')")
            done
            printf "SCALE %s %s cyclic B/A median %s over %s rounds (load %s)\n" "$s" "$cfg" \
                "$(printf '%s\n' "${ratios[@]}" | med)" "$ROUNDS" "$(cut -d' ' -f1 /proc/loadavg)"
        done
        continue
    fi
    if [ -n "$BASE" ]; then
        for cfg in $CONFIGS; do
            for dist in $DISTS; do
                a=() b=()
                for r in $(seq "$ROUNDS"); do
                    for side in A B; do
                        bin=$BENCH_BFS; [ $side = A ] && bin=$BASE
                        load=$(cut -d' ' -f1 /proc/loadavg)
                        h=$(one "$bin" "$cfg" "$dist" "$f") || { echo "SCALE $s $cfg $dist $side: FAILED"; exit 1; }
                        printf "SCALE %s round %s %s %-6s %s BFS %8s MTEPS  load %s\n" "$s" "$r" "$cfg" "$dist" "$side" "$h" "$load"
                        if [ $side = A ]; then a+=("$h"); else b+=("$h"); fi
                    done
                done
                ma=$(printf '%s\n' "${a[@]}" | med) mb=$(printf '%s\n' "${b[@]}" | med)
                printf "SCALE %s %s %-6s median A %s  B %s MTEPS  B/A %s  (%s rounds, load %s)\n" "$s" "$cfg" "$dist" \
                    "$ma" "$mb" "$(awk -v a="$ma" -v b="$mb" 'BEGIN {printf "%.3f", b / a}')" "$ROUNDS" \
                    "$(cut -d' ' -f1 /proc/loadavg)"
            done
        done
        continue
    fi
    for r in $(seq "$ROUNDS"); do
        for cfg in $CONFIGS; do
            for dist in $DISTS; do
                load=$(cut -d' ' -f1 /proc/loadavg)
                h=$(one "$BENCH_BFS" "$cfg" "$dist" "$f") || { echo "SCALE $s $cfg $dist: FAILED"; exit 1; }
                printf "SCALE %s round %s %s %-6s BFS %8s MTEPS  load %s\n" "$s" "$r" "$cfg" "$dist" "$h" "$load"
            done
        done
    done
done
