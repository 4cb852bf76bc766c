#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# bench-kernels.sh - `g500 run` side by side: 1 rank x 2 threads, 1 x 1,
# 2 ranks x 1 thread, 4 ranks x 1 thread (oversubscribed on 2 cores),
# cyclic and block, at the SCALEs given (default 20). Prints construction
# time, BFS and SSSP harmonic-mean TEPS and peak RSS per input edge, one
# line per configuration. Usage: bench/bench-kernels.sh [SCALE...]
set -u
MPI_LAUNCH=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)/scripts/mpi-launch   # MPIRUN picks the launcher
G500=${G500:-bin/g500}
ROOTS=${ROOTS:-16}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
# the launcher oversubscribes, unbinds, and makes ranks yield only past the cores
DIR=${BENCH_DIR:-results/bench-kernels}
mkdir -p "$DIR"
printf '%-6s %-8s %-6s %-10s %-12s %-12s %-12s %s\n' SCALE config dist constr_s bfs_MTEPS sssp_MTEPS B/edge validated
for S in "${@:-20}"; do
    E="$DIR/s$S.h5"
    [ -f "$E" ] || $G500 gen -s "$S" -o "$E" -q || exit 1
    for cfg in 1x2 1x1 2x1 4x1; do
        np=${cfg%x*}; th=${cfg#*x}
        for dist in cyclic block; do
            out="$DIR/s$S.$cfg.$dist"
            OMP_NUM_THREADS=$th "$MPI_LAUNCH" -n "$np" "$G500" run "$E" --roots "$ROOTS" --placement $dist \
                --json "$out.json" >"$out.txt" 2>"$out.err" || { echo "$S $cfg $dist FAILED: $(tail -2 "$out.err")"; continue; }
            c=$(awk '/^construction_time:/{print $2}' "$out.txt")
            b=$(awk '/^bfs  harmonic_mean_TEPS:/{printf "%.1f", $4/1e6}' "$out.txt")
            s=$(awk '/^sssp harmonic_mean_TEPS:/{printf "%.1f", $4/1e6}' "$out.txt")
            m=$(grep -o 'peak RSS (max over ranks) [0-9.]* MiB = [0-9.]* bytes' "$out.err" | tail -1 | grep -o '= [0-9.]*' | tr -d '= ')
            printf '%-6s %-8s %-6s %-10s %-12s %-12s %-12s %s\n' "$S" "$cfg" "$dist" "$c" "$b" "$s" "$m" yes
        done
    done
done
