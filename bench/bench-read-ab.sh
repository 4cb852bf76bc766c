#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# bench-read-ab.sh - A/B of reading the edges file between two builds (e.g.
# main and a branch), for a decision on a shared machine. One file is
# generated (SCALE S, seed 1; it stays in the page cache, so this measures
# the reader's CPU cost, not the disk), then for each repetition and each
# configuration RANKSxTHREADS, A and B run back to back, their order
# alternating between repetitions:
#   read   build/bench/edges_read: open + io_edges_read_slab of each rank's
#          slab in batches of 2^20 rows, edges and weights (seconds)
#   stage  `g500 components`: the whole stage ("whole stage X s") and the
#          reader's time inside the reads ("HDF5 X s" of the progress line)
# Prints per configuration the medians and the median of the per-repetition
# ratios B/A (a load change between repetitions hits both sides alike).
#
#   bench/bench-read-ab.sh A_TREE B_TREE [SCALE [REPS [CONFIGS]]]
#   e.g. bench/bench-read-ab.sh /tmp/io-fast/old . 20 5 "1x2 2x1"
# A_TREE and B_TREE hold bin/g500 and build/bench/edges_read
# (make bin/g500 build/bench/edges_read in each).
set -u
A=$1 B=$2 S=${3:-20} REPS=${4:-5} CONFIGS=${5:-1x2 2x1}
DIR=${BENCH_DIR:-${TMPDIR:-/tmp}/g500-bench-read.$$}
. "$(dirname "$0")/cc-lib.sh"
mkdir -p "$DIR"
trap 'rm -rf "$DIR"' EXIT

median() { tr ' ' '\n' | grep -v '^$' | sort -g | awk '{a[NR]=$1} END {print (NR%2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN {printf "%.3f", b / a}'; }
one() { # TREE NP THREADS -> "read_s whole_s hdf5_s"
    local r out
    r=$(mpirun -np "$2" -x OMP_NUM_THREADS="$3" "$1/build/bench/edges_read" "$DIR/e.h5") || { echo "edges_read failed" >&2; exit 1; }
    out=$(mpirun -np "$2" -x OMP_NUM_THREADS="$3" "$1/bin/g500" components "$DIR/e.h5" -o "$DIR/c.h5" \
        --force --threads "$3" 2>&1) || { echo "components failed: $out" >&2; exit 1; }
    echo "$r $(cc_phase 'whole stage ([0-9.]+)s' "$out") $(cc_phase 'pieces, HDF5 ([0-9.]+)s' "$out")"
}

"$B/bin/g500" gen --scale "$S" -o "$DIR/e.h5" --force >/dev/null 2>&1 || { echo "gen failed"; exit 1; }
echo "A/B of reading the edges file, SCALE $S, $REPS repetitions, $(date -u '+%Y-%m-%d %H:%M UTC'), $(nproc) cores, load at start $(cut -d' ' -f1-3 /proc/loadavg)"
echo "A = $A, B = $B"
declare -A RA=() RB=() WA=() WB=() HA=() HB=() QR=() QW=() QH=()
for k in $(seq "$REPS"); do
    for c in $CONFIGS; do
        np=${c%x*} th=${c#*x}
        if (( k % 2 )); then read -r ra wa ha < <(one "$A" "$np" "$th"); read -r rb wb hb < <(one "$B" "$np" "$th")
        else read -r rb wb hb < <(one "$B" "$np" "$th"); read -r ra wa ha < <(one "$A" "$np" "$th"); fi
        RA[$c]="${RA[$c]:-} $ra" RB[$c]="${RB[$c]:-} $rb" WA[$c]="${WA[$c]:-} $wa" WB[$c]="${WB[$c]:-} $wb"
        HA[$c]="${HA[$c]:-} $ha" HB[$c]="${HB[$c]:-} $hb"
        QR[$c]="${QR[$c]:-} $(ratio "$ra" "$rb")" QW[$c]="${QW[$c]:-} $(ratio "$wa" "$wb")"
        QH[$c]="${QH[$c]:-} $(ratio "$ha" "$hb")"
        echo "rep $k $c: load $(cut -d' ' -f1 /proc/loadavg); read A $ra B $rb; stage A $wa B $wb; HDF5 A $ha B $hb" >&2
    done
done
echo
echo "| SCALE | ranks x threads | read A (s) | read B (s) | B/A | stage A (s) | stage B (s) | B/A | reader in reads A (s) | B (s) | B/A |"
echo "|---|---|---|---|---|---|---|---|---|---|---|"
for c in $CONFIGS; do
    printf "| %s | %s | %.3f | %.3f | %.2f | %.3f | %.3f | %.2f | %.3f | %.3f | %.2f |\n" "$S" "$c" \
        "$(median <<<"${RA[$c]}")" "$(median <<<"${RB[$c]}")" "$(median <<<"${QR[$c]}")" \
        "$(median <<<"${WA[$c]}")" "$(median <<<"${WB[$c]}")" "$(median <<<"${QW[$c]}")" \
        "$(median <<<"${HA[$c]}")" "$(median <<<"${HB[$c]}")" "$(median <<<"${QH[$c]}")"
done
echo
echo "load at end $(cut -d' ' -f1-3 /proc/loadavg)"
