#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# bench-gen-ab.sh - A/B of `g500 gen` between two binaries (e.g. main and a
# branch), for a decision on a shared machine: for each repetition and each
# configuration RANKSxTHREADS, A and B run back to back (their order
# alternating between repetitions), then one plain write of the same bytes
# (dd from /dev/zero, conv=fdatasync). Time = gen's own time (barrier before
# create .. rename) + `sync FILE`, as in bench-gen.sh. Prints per
# configuration the medians of A, B, dd, the ratios gen/dd and the median
# of the per-repetition ratios B/A (a load change between repetitions hits
# both sides of one ratio alike).
#
#   bench/bench-gen-ab.sh A_BINARY B_BINARY [SCALE [REPS [CONFIGS]]]
#   e.g. bench/bench-gen-ab.sh /tmp/old/bin/g500 bin/g500 22 5 "1x2 2x1 1x1"
#
# Environment: BENCH_DIR (build/bench-gen: the disk under test), GEN_OPTS
# (extra gen options for both sides, e.g. --no-checksums).
set -u
A=$1 B=$2 S=${3:-22} REPS=${4:-5} CONFIGS=${5:-1x2 2x1}
DIR=${BENCH_DIR:-build/bench-gen}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_rmaps_base_oversubscribe=1 OMPI_MCA_hwloc_base_binding_policy=none
mkdir -p "$DIR"
trap 'rm -f "$DIR"/ab.h5 "$DIR"/plain' EXIT

median() { tr ' ' '\n' | grep -v '^$' | sort -g | awk '{a[NR]=$1} END {print (NR%2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}'; }
now() { date +%s.%N; }
run() { # BINARY NP THREADS -> "seconds_to_disk bytes"
    local f=$DIR/ab.h5 out t0 t1 secs
    rm -f "$f"
    out=$(mpirun --oversubscribe -np "$2" -x OMP_NUM_THREADS="$3" "$1" gen --scale "$S" -o "$f" ${GEN_OPTS:-} 2>/dev/null)
    t0=$(now); sync "$f"; t1=$(now)
    secs=$(sed -nE 's/.* in ([0-9.]+) s .*/\1/p' <<<"$out")
    echo "$(awk -v a="$secs" -v b="$t0" -v c="$t1" 'BEGIN {printf "%.3f", a + c - b}') $(stat -c %s "$f")"
    rm -f "$f"
}
plain() { # BYTES -> seconds of dd with fdatasync
    local mib=$(( ($1 + 1048575) / 1048576 )) t0 t1
    t0=$(now); dd if=/dev/zero of="$DIR/plain" bs=1M count="$mib" conv=fdatasync status=none; t1=$(now)
    rm -f "$DIR/plain"
    awk -v a="$t0" -v b="$t1" 'BEGIN {printf "%.3f", b - a}'
}

echo "A/B of g500 gen, SCALE $S, $REPS repetitions, $(date -u '+%Y-%m-%d %H:%M UTC'), load at start $(cut -d' ' -f1-3 /proc/loadavg)"
echo "A = $A, B = $B, options: ${GEN_OPTS:-(default layout)}"
declare -A TA=() TB=() RQ=()
D=""
for k in $(seq "$REPS"); do
    for c in $CONFIGS; do
        np=${c%x*} th=${c#*x}
        if (( k % 2 )); then read -r a bytes < <(run "$A" "$np" "$th"); read -r b _ < <(run "$B" "$np" "$th")
        else read -r b bytes < <(run "$B" "$np" "$th"); read -r a _ < <(run "$A" "$np" "$th"); fi
        TA[$c]="${TA[$c]:-} $a"; TB[$c]="${TB[$c]:-} $b"
        RQ[$c]="${RQ[$c]:-} $(awk -v a="$a" -v b="$b" 'BEGIN {printf "%.3f", b / a}')"
    done
    D="$D $(plain "$bytes")"
    echo "rep $k: load $(cut -d' ' -f1 /proc/loadavg); $(for c in $CONFIGS; do printf '%s A %s B %s; ' "$c" "${TA[$c]##* }" "${TB[$c]##* }"; done)dd ${D##* }" >&2
done
dm=$(median <<<"$D")
echo
echo "| ranks x threads | A (s) | B (s) | dd (s) | A/dd | B/dd | B/A (median of per-rep ratios) |"
echo "|---|---|---|---|---|---|---|"
for c in $CONFIGS; do
    am=$(median <<<"${TA[$c]}") bm=$(median <<<"${TB[$c]}")
    printf "| %s | %.2f | %.2f | %.2f | %.2f | %.2f | %.2f |\n" "$c" "$am" "$bm" "$dm" \
        "$(awk -v a="$am" -v b="$dm" 'BEGIN {print a / b}')" "$(awk -v a="$bm" -v b="$dm" 'BEGIN {print a / b}')" \
        "$(median <<<"${RQ[$c]}")"
done
echo
echo "load at end $(cut -d' ' -f1-3 /proc/loadavg)"
