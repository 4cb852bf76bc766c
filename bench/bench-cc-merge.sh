#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# bench-cc-merge.sh - memory and time of the two merges of the components
# stage (tree, distributed; the command picks one by its rule), forced by
# `bench_cc --file EDGES.h5 tree|distributed` (the stage's computation
# without the write), docs/components.md "Memory per rank".
#
# For each SCALE in $SCALES and each rank count in $RANKS (one thread per
# rank), the two paths run alternately (tree, distributed, tree, ...) $REPS
# times each on the same edges file (made once with `g500 gen`, seed 1, in
# $DIR). Per run it records the largest per-rank peak RSS (`/usr/bin/time
# -v` around each rank), the peak RSS when the labels are done, before the
# duplicate count (the driver's progress line, max over ranks), and the
# compute time with its merge + label part; it prints the medians per path
# with the load average. Peak RSS does not depend on the load; the times do,
# so compare them only as ratios of runs made back to back.
#
#   SCALES="20 22" RANKS="2 4" REPS=3 bash bench/bench-cc-merge.sh
#   EDGEFACTOR=1 SCALES=22 RANKS="2 4 8" REPS=1 bash bench/bench-cc-merge.sh
# (EDGEFACTOR, default Graph500's 16: `g500 gen --edgefactor`; a sparse
# graph shows the vertex arrays, which the edge slab hides at 16.)
set -u
MPI_LAUNCH=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)/scripts/mpi-launch   # MPIRUN picks the launcher
G500=${G500:-bin/g500}
BENCH_CC=${BENCH_CC:-build/bench/bench_cc}
SCALES=${SCALES:-20 22}
RANKS=${RANKS:-2 4}
REPS=${REPS:-3}
EDGEFACTOR=${EDGEFACTOR:-16}
DIR=${DIR:-/tmp/g500-bench-cc-merge}
. "$(dirname "$0")/cc-lib.sh"
mkdir -p "$DIR"
load() { cut -d' ' -f1 /proc/loadavg; }

for S in $SCALES; do
    E="$DIR/s${S}e$EDGEFACTOR.h5"
    [ -f "$E" ] || "$G500" gen --scale "$S" --edgefactor "$EDGEFACTOR" -o "$E" -q || exit 1
    for P in $RANKS; do
        for path in tree distributed; do : >"$DIR/$path.rows"; done
        l0=$(load)
        for rep in $(seq "$REPS"); do
            for path in tree distributed; do
                err="$DIR/err"
                OMP_NUM_THREADS=1 "$MPI_LAUNCH" -n "$P" /usr/bin/time -v "$BENCH_CC" --file "$E" "$path" \
                    2>"$err" >/dev/null || { cat "$err"; exit 1; }
                rss=$(sed -nE 's/.*Maximum resident set size \(kbytes\): ([0-9]+).*/\1/p' "$err" | sort -n | tail -n 1)
                comp=$(sed -nE 's/.*computed in ([0-9.]+)s.*/\1/p' "$err")
                merge=$(sed -nE 's/.*merge ([0-9.]+)s, label ([0-9.]+)s.*/\1 \2/p' "$err" | awk '{print $1 + $2}')
                lab=$(sed -nE 's/.*peak RSS ([0-9.]+) MiB \(max over ranks\) when labelled.*/\1/p' "$err")
                echo "$rss $lab $comp $merge" >>"$DIR/$path.rows"
            done
        done
        for path in tree distributed; do
            r=$(awk '{print $1 / 1024}' "$DIR/$path.rows" | cc_median)
            lb=$(awk '{print $2}' "$DIR/$path.rows" | cc_median)
            c=$(awk '{print $3}' "$DIR/$path.rows" | cc_median)
            m=$(awk '{print $4}' "$DIR/$path.rows" | cc_median)
            printf 'SCALE %s edgefactor %s ranks=%s %-11s peak RSS per rank %7.1f MiB, when labelled %7.1f MiB; compute %6.2fs (merge+label %6.3fs) load %s-%s\n' \
                "$S" "$EDGEFACTOR" "$P" "$path" "$r" "$lb" "$c" "$m" "$l0" "$(load)"
        done
    done
done
rm -f "$DIR/err" "$DIR"/*.rows
