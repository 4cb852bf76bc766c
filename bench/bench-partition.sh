#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# bench-partition.sh - `make bench-partition`: for each SCALE in
# BENCH_SCALES (default "20 22"), generate the edges and components once
# (cached in BENCH_DIR, default results/bench-cache), then plan R = 16 ranks
# on configs/fat-tree-4x4.conf and R = 64 on configs/three-level-4x4x4.conf
# (one rank per node) with NP processes (default 2), for each giant order
# in BENCH_ORDERS (default "leaves id bfs degree"), and log the partition time and
# the quality table (placement vs cyclic vs block) to
# results/bench-partition-<date>.txt. The machine, date and commit head the
# log; timings on a shared machine are noisy, so compare within one run.
set -eu
MPI_LAUNCH=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)/scripts/mpi-launch   # MPIRUN picks the launcher
cd "$(dirname "$0")/.."
G500=${G500:-bin/g500}
NP=${NP:-2}
SCALES=${BENCH_SCALES:-20 22}
ORDERS=${BENCH_ORDERS:-leaves id bfs degree}
DIR=${BENCH_DIR:-results/bench-cache}
# scripts/mpi-launch unbinds, and oversubscribes with yielding ranks only
# where NP exceeds the cores, so the ranks run as users run them
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
mkdir -p "$DIR" results
LOG=results/bench-partition-$(date +%Y%m%d-%H%M%S).txt
{
    echo "# g500 partition benchmark, $(date -u '+%Y-%m-%d %H:%M UTC')"
    echo "# machine: $(nproc) cores, $(free -g | awk '/Mem:/{print $2}') GiB, $(. /etc/os-release; echo "$PRETTY_NAME"), $(${MPIRUN:-mpirun} --version | head -1)"
    echo "# commit: $(git rev-parse --short HEAD 2>/dev/null || echo unknown); NP=$NP processes"
} | tee "$LOG"
for S in $SCALES; do
    E=$DIR/edges-s$S.h5 C=$DIR/components-s$S.h5
    [ -f "$E" ] || "$MPI_LAUNCH" -n "$NP" "$G500" gen -q --scale "$S" -o "$E"
    [ -f "$C" ] || "$MPI_LAUNCH" -n "$NP" "$G500" components -q "$E" -o "$C"
    for cfg in "16 configs/fat-tree-4x4.conf" "64 configs/three-level-4x4x4.conf"; do
        set -- $cfg
        for O in $ORDERS; do
            P=$DIR/placement-s$S-r$1-$O.h5
            echo | tee -a "$LOG"
            echo "## SCALE $S, R = $1 on $2, order $O: scripts/mpi-launch -n $NP $G500 partition $E $C --topology $2 --ranks $1 --ranks-per-node 1 --order $O -o $P -f" | tee -a "$LOG"
            "$MPI_LAUNCH" -n "$NP" "$G500" partition -q "$E" "$C" --topology "$2" --ranks "$1" \
                --ranks-per-node 1 --order "$O" -o "$P" -f 2>&1 | tee -a "$LOG"
        done
    done
done
echo "log: $LOG"
