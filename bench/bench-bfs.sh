#!/bin/bash
# SPDX-License-Identifier: MIT
# bench-bfs.sh - kernel 2 (BFS) alone, side by side over rank x thread
# configurations and distributions, from one edges file per SCALE.
#
#   BENCH_BFS=build/bench/bench_bfs G500=bin/g500 bench/bench-bfs.sh [SCALES...]
#   (make bench-bfs BENCH_SCALES="20 22")
#
# For each SCALE: generate /tmp/g500-bench-bfs/sS.h5 if missing, then run
# bench_bfs (graph built once, 16 keys x 3 repetitions, median per key) for
# CONFIGS (default 1x1 1x2 2x1 4x1: ranks x threads; 4 ranks are
# oversubscribed on a 2-core machine) under DISTS (default cyclic and
# block), in ROUNDS alternating rounds, and print one line per run with the
# harmonic-mean MTEPS and the load average. mpirun is told not to bind
# (a 1-rank run bound to one core would put both threads on it).
# Two builds compared: bench/ab.sh with --metric 'harmonic_mean_MTEPS ([0-9.]+)'.
# The machine is shared: compare within a round, quote medians over rounds.
# bench_bfs does not validate: `g500 run` does (every key); this script
# times only.
set -u
MPI_LAUNCH=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)/scripts/mpi-launch   # MPIRUN picks the launcher
BENCH_BFS=${BENCH_BFS:-build/bench/bench_bfs}
G500=${G500:-bin/g500}
ROUNDS=${ROUNDS:-3}
ROOTS=${ROOTS:-16}
REPS=${REPS:-3}
CONFIGS=${CONFIGS:-1x1 1x2 2x1 4x1}
DISTS=${DISTS:-cyclic block}
DIR=${BENCH_DIR:-/tmp/g500-bench-bfs}
SCALES=${*:-20}
export OMPI_MCA_hwloc_base_binding_policy=none
if [ "$(id -u)" = 0 ]; then
    export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
fi
# one run: harmonic-mean MTEPS of binary $1 at config $2, dist $3, file $4
one() {
    local np=${2%x*} th=${2#*x} out
    out=$(OMP_NUM_THREADS=$th "$MPI_LAUNCH" -n "$np" "$1" "$4" "$3" "$ROOTS" "$REPS") || return 1
    echo "$out" | awk '/^harmonic_mean_MTEPS/ {print $2}'
}
mkdir -p "$DIR"
echo "# $(uname -m), $(nproc) cores, $(date -u +%Y-%m-%d), bench_bfs $ROOTS keys x $REPS reps"
for s in $SCALES; do
    f=$DIR/s$s.h5
    [ -f "$f" ] || "$G500" gen --scale "$s" -o "$f" >/dev/null || exit 1
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
