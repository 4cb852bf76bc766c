#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# bench-cc-dup.sh - the duplicate count inside `g500 components`, first
# touch included: each run is a fresh process, so its regions and receive
# buffer are fresh pages (the kernel zeroes them on first touch, ~1 ns a
# byte on the VM of docs/components.md), which bench_cc's "counts" measure
# (reps in one process) partly hides. docs/components.md "Duplicate count".
#
# For each SCALE in $SCALES and each ranks x threads in $CONFIGS, the
# command runs $REPS times on the same edges file (made once with `g500
# gen`, seed 1, in $DIR); per run it records the "duplicates" phase, the
# compute after the read, the whole stage, and the driver's peak RSS lines
# (max over ranks: when labelled, before the duplicate count; and the
# whole stage's). It prints the medians with the load average. With
# G500_B set, that binary runs alternately with $G500 (A, B, A, B, ...) and
# both are printed: compare times only as such A/B ratios on a loaded
# machine; peak RSS does not depend on the load.
#
#   SCALES="20 22" REPS=5 bash bench/bench-cc-dup.sh
#   G500_B=/tmp/old/g500 SCALES=20 CONFIGS="1x1 2x1" bash bench/bench-cc-dup.sh
set -u
MPI_LAUNCH=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)/scripts/mpi-launch   # MPIRUN picks the launcher
G500=${G500:-bin/g500}
G500_B=${G500_B:-}
SCALES=${SCALES:-20 22}
CONFIGS=${CONFIGS:-1x1 1x2 2x1}
REPS=${REPS:-5}
DIR=${DIR:-/tmp/g500-bench-cc-dup}
. "$(dirname "$0")/cc-lib.sh"
mkdir -p "$DIR"
bins=A
[ -n "$G500_B" ] && bins="A B"

echo "# $(date -u +%F) $(uname -m), $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
for s in $SCALES; do
    [ -f "$DIR/e$s.h5" ] || "$G500" gen --scale "$s" -o "$DIR/e$s.h5" --force >/dev/null 2>&1 ||
        { echo "gen failed"; exit 1; }
    for cfg in $CONFIGS; do
        np=${cfg%x*} nt=${cfg#*x}
        for b in $bins; do : >"$DIR/runs.$b"; done
        for r in $(seq "$REPS"); do
            for b in $bins; do
                exe=$G500
                [ "$b" = B ] && exe=$G500_B
                out=$(OMP_NUM_THREADS="$nt" "$MPI_LAUNCH" -n "$np" "$exe" components "$DIR/e$s.h5" \
                      -o "$DIR/c$s.$b.h5" --force 2>&1 >/dev/null)
                d=$(cc_phase 'duplicates ([0-9.]+)s' "$out")
                c=$(cc_phase 'computed in ([0-9.]+)s after' "$out")
                w=$(cc_phase 'whole stage ([0-9.]+)s' "$out")
                l=$(cc_phase 'peak RSS ([0-9.]+) MiB.*when labelled' "$out")
                p=$(cc_phase 'whole stage.*peak RSS ([0-9.]+) MiB' "$out")
                echo "${d:--} ${c:--} ${w:--} ${l:--} ${p:--}" >>"$DIR/runs.$b"
            done
        done
        for b in $bins; do
            exe=$G500
            [ "$b" = B ] && exe=$G500_B
            f=$DIR/runs.$b
            printf 'SCALE %s %s %s: duplicates %ss, compute %ss, whole %ss; peak RSS %s MiB labelled, %s MiB (%.1f B per edge x P)\n' \
                "$s" "$cfg" "$exe" "$(cut -d' ' -f1 "$f" | cc_median)" "$(cut -d' ' -f2 "$f" | cc_median)" \
                "$(cut -d' ' -f3 "$f" | cc_median)" "$(cut -d' ' -f4 "$f" | cc_median)" "$(cut -d' ' -f5 "$f" | cc_median)" \
                "$(awk -v p="$(cut -d' ' -f5 "$f" | cc_median)" -v np="$np" -v s="$s" \
                   'BEGIN {print p * 1048576 * np / (16 * 2 ^ s)}')"
        done
    done
done
echo "# load $(cut -d' ' -f1-3 /proc/loadavg)"
