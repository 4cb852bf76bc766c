#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# bench-gen.sh - throughput of `g500 gen` (run by `make bench-gen`).
#
# 1. In-memory generation rate (no I/O) at 1 and 2 OpenMP threads.
# 2. Generation + write of edges.h5 at each SCALE: 1 rank x 1 thread, and
#    the two ways of using 2 cores, 1 rank x 2 threads and 2 ranks x 1
#    thread (at 2 ranks also without checksums and contiguous), against a
#    plain sequential write of the same number
#    of bytes to the same directory (dd from /dev/zero, conv=fdatasync).
#    Both sides are timed to stable storage: gen's own time (barrier before
#    create .. rename) plus an fsync of the file right after (`sync FILE`,
#    not a global sync, which waits for other users' writes too); dd's time
#    includes its fdatasync. The runs of
#    one repetition are interleaved, so a load change on the shared machine
#    hits every configuration alike; medians of REPS repetitions.
# 3. Layout sweep at the first SCALE, 2 ranks: rows per chunk, Fletcher32
#    on or off, contiguous; median time to stable storage, file size, and
#    the time to read the whole file back with the checked reader at 2
#    ranks (the file is in the page cache then: the CPU side of reading,
#    checksum verification included, not the disk).
# Writes a Markdown table to results/bench/gen.md (and prints it).
#
# Environment: BENCH_SCALES (default "20 22"), BENCH_REPS (3), BENCH_DIR
# (build/bench-gen: the disk under test), G500, GEN_RATE.
set -u
MPI_LAUNCH=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)/scripts/mpi-launch   # MPIRUN picks the launcher
G500=${G500:-bin/g500}
GEN_RATE=${GEN_RATE:-build/bench/gen_rate}
EDGES_READ=${EDGES_READ:-build/bench/edges_read}
SCALES=${BENCH_SCALES:-20 22}
REPS=${BENCH_REPS:-3}
DIR=${BENCH_DIR:-build/bench-gen}
OUT=results/bench/gen.md
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_rmaps_base_oversubscribe=1 OMPI_MCA_hwloc_base_binding_policy=none
mkdir -p "$DIR" "$(dirname "$OUT")"
trap 'rm -f "$DIR"/*.h5 "$DIR"/plain' EXIT

median() { tr ' ' '\n' | grep -v '^$' | sort -g | awk '{a[NR]=$1} END {print (NR%2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}'; }
now() { date +%s.%N; }
# gen_run NP THREADS SCALE FILE [extra gen options]: prints "seconds_to_disk bytes peak_rss_mib"
gen_run() {
    local np=$1 th=$2 s=$3 f=$4; shift 4
    rm -f "$f"
    local out t0 t1 secs
    out=$(OMP_NUM_THREADS="$th" "$MPI_LAUNCH" -n "$np" "$G500" gen --scale "$s" -o "$f" "$@" 2>/dev/null)
    t0=$(now); sync "$f"; t1=$(now)
    secs=$(sed -nE 's/.* in ([0-9.]+) s .*/\1/p' <<<"$out")
    rss=$(sed -nE 's/.*peak memory per rank ([0-9.]+) MiB.*/\1/p' <<<"$out")
    echo "$(awk -v a="$secs" -v b="$t0" -v c="$t1" 'BEGIN {printf "%.3f", a + c - b}') $(stat -c %s "$f") $rss"
}
plain_run() { # BYTES -> seconds of dd with fdatasync
    local mib=$(( ($1 + 1048575) / 1048576 )) t0 t1
    rm -f "$DIR/plain"
    t0=$(now); dd if=/dev/zero of="$DIR/plain" bs=1M count=$mib conv=fdatasync status=none; t1=$(now)
    rm -f "$DIR/plain"
    awk -v a="$t0" -v b="$t1" 'BEGIN {printf "%.3f", b - a}'
}

{
echo "# g500 gen benchmark"
echo
echo "$(date -u +%Y-%m-%d), $(nproc)-core $(uname -m), $(free -g | awk '/Mem:/ {print $2}') GiB, load average at start $(cut -d' ' -f1 /proc/loadavg) (machine shared with other jobs), repetitions: $REPS (medians)."
echo
echo "## In-memory generation (no I/O)"
echo
echo "| SCALE | edges | 1 thread (edges/s) | 2 threads (edges/s) | speed-up |"
echo "|---|---|---|---|---|"
for s in $SCALES; do
    r1=""; r2=""
    for k in $(seq "$REPS"); do
        r1="$r1 $(OMP_NUM_THREADS=1 "$GEN_RATE" "$s" | cut -d' ' -f1)"
        r2="$r2 $(OMP_NUM_THREADS=2 "$GEN_RATE" "$s" | cut -d' ' -f1)"
    done
    m1=$(median <<<"$r1"); m2=$(median <<<"$r2")
    printf "| %s | %d | %.3g | %.3g | %.2f |\n" "$s" $((16 << s)) "$m1" "$m2" "$(awk -v a="$m1" -v b="$m2" 'BEGIN {print b / a}')"
done
echo
echo "## Generation + write to stable storage vs a plain write of the same bytes"
echo
echo "| SCALE | ranks x threads | layout | file bytes | gen+write (s) | edges/s | plain dd write (s) | ratio gen/dd | peak RSS per rank (MiB) |"
echo "|---|---|---|---|---|---|---|---|---|"
configs=("1|1|default (Fletcher32)|" "1|2|default (Fletcher32)|" "2|1|default (Fletcher32)|"
         "2|1|chunked, no checksums|--no-checksums" "2|1|contiguous|--chunk-rows 0")
for s in $SCALES; do
    declare -A T=() R=() BY=(); plain=""
    for k in $(seq "$REPS"); do
        for i in "${!configs[@]}"; do
            IFS='|' read -r np th _ opt <<<"${configs[$i]}"
            read -r t b rss < <(gen_run "$np" "$th" "$s" "$DIR/g.h5" $opt)
            T[$i]="${T[$i]:-} $t"; R[$i]=$rss; BY[$i]=$b
        done
        plain="$plain $(plain_run "${BY[0]}")"
    done
    pm=$(median <<<"$plain")
    for i in "${!configs[@]}"; do
        IFS='|' read -r np th name _ <<<"${configs[$i]}"
        tm=$(median <<<"${T[$i]}")
        printf "| %s | %d x %d | %s | %d | %.2f | %.3g | %.2f | %.2f | %s |\n" "$s" "$np" "$th" "$name" "${BY[$i]}" "$tm" \
            "$(awk -v m=$((16 << s)) -v t="$tm" 'BEGIN {print m / t}')" "$pm" \
            "$(awk -v a="$tm" -v b="$pm" 'BEGIN {print a / b}')" "${R[$i]}"
    done
    unset T R BY
done
s0=${SCALES%% *}
echo
echo "## Layout at SCALE $s0, 2 ranks x 1 thread (time to stable storage)"
echo
echo "| layout | file bytes | gen+write (s) | relative to contiguous | read back, 2 ranks (s) |"
echo "|---|---|---|---|---|"
layouts=("contiguous, no checksums|--chunk-rows 0"
         "2^16-1 rows, Fletcher32|--chunk-rows 65535"
         "2^18-1 rows, Fletcher32 (default)|--chunk-rows 262143"
         "2^18 rows, Fletcher32|--chunk-rows 262144"
         "2^20-1 rows, Fletcher32|--chunk-rows 1048575"
         "2^18-1 rows, no checksums|--chunk-rows 262143 --no-checksums")
declare -A L=() LB=() LR=()
for k in $(seq "$REPS"); do
    for i in "${!layouts[@]}"; do
        read -r t b _ < <(gen_run 2 1 "$s0" "$DIR/l.h5" ${layouts[$i]#*|})
        L[$i]="${L[$i]:-} $t"; LB[$i]=$b
        LR[$i]="${LR[$i]:-} $(OMP_NUM_THREADS=1 "$MPI_LAUNCH" -n 2 "$EDGES_READ" "$DIR/l.h5")"
    done
done
base=$(median <<<"${L[0]}")
for i in "${!layouts[@]}"; do
    tm=$(median <<<"${L[$i]}")
    printf "| %s | %d | %.2f | %.2f | %.2f |\n" "${layouts[$i]%%|*}" "${LB[$i]}" "$tm" "$(awk -v a="$tm" -v b="$base" 'BEGIN {print a / b}')" "$(median <<<"${LR[$i]}")"
done
echo
echo "Command: \`make bench-gen\` (BENCH_SCALES=\"$SCALES\" BENCH_REPS=$REPS), directory $DIR."
} | tee "$OUT.tmp"
mv "$OUT.tmp" "$OUT"
