#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# ab.sh - compare two builds on one command: run `A ARGS` and `B ARGS`
# alternately N times (A B, B A, A B, ...: a change of load between rounds
# hits both sides alike), then print every run's figure, the median and
# range of each side and the ratio B/A (of the medians, and the median of
# the per-round ratios, the one to quote on a shared machine).
#
#   bench/ab.sh [options] A B [--] ARGS...
#   e.g. bench/ab.sh -n 5 -np 2 /tmp/old/bin/g500 bin/g500 -- gen --scale 20 -o /tmp/x.h5 --force
#        bench/ab.sh -np 1 -t 2 --metric 'harmonic_mean_MTEPS ([0-9.]+)' \
#            old/build/bench/bench_bfs build/bench/bench_bfs -- s20.h5 cyclic 16 3
#
# Options:
#   -n N            rounds (default 5)
#   -np P           ranks: each run is `scripts/mpi-launch -n P ...` (default 1);
#                   -np 0 runs the binary directly, without a launcher
#   -t T            OMP_NUM_THREADS of each run (default: unset)
#   --metric REGEX  the figure is REGEX's one capture group, taken from the
#                   first matching line of the run's stdout and stderr
#                   (default: the run's wall time in seconds)
# Environment: MPIRUN, the launcher scripts/mpi-launch uses (default mpirun).
# A failing run stops the script with its output and a non-zero status.
set -u
MPI_LAUNCH=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)/scripts/mpi-launch   # MPIRUN picks the launcher
usage() { sed -n '3,23p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2; }
N=5 NP=1 T="" METRIC=""
while [ $# -gt 0 ]; do
    case $1 in
    -n) N=$2; shift 2 ;;
    -np) NP=$2; shift 2 ;;
    -t) T=$2; shift 2 ;;
    --metric) METRIC=$2; shift 2 ;;
    -h|--help) usage ;;
    -*) echo "ab.sh: unknown option $1" >&2; usage ;;
    *) break ;;
    esac
done
[ $# -ge 2 ] || usage
A=$1 B=$2; shift 2
[ "${1:-}" = -- ] && shift
case $N in ''|*[!0-9]*|0) echo "ab.sh: -n needs a positive count" >&2; exit 2 ;; esac
if [ "$(id -u)" = 0 ]; then
    export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
fi
OUT=$(mktemp)
trap 'rm -f "$OUT"' EXIT

# one BINARY -> its figure on stdout
one() {
    local t0 t1 launch=()
    [ "$NP" = 0 ] || launch=("$MPI_LAUNCH" -n "$NP")
    t0=$(date +%s.%N)
    if [ -n "$T" ]; then
        OMP_NUM_THREADS=$T "${launch[@]}" "$1" "${ARGS[@]}" >"$OUT" 2>&1
    else
        "${launch[@]}" "$1" "${ARGS[@]}" >"$OUT" 2>&1
    fi || { echo "ab.sh: $1 failed:" >&2; cat "$OUT" >&2; exit 1; }
    t1=$(date +%s.%N)
    if [ -n "$METRIC" ]; then
        local v
        v=$(sed -nE "s/.*$METRIC.*/\\1/p" "$OUT" | head -n 1)
        [ -n "$v" ] || { echo "ab.sh: no line of $1's output matches '$METRIC':" >&2; cat "$OUT" >&2; exit 1; }
        echo "$v"
    else
        awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f", b - a }'
    fi
}
ARGS=("$@")
# median and range of the numbers on stdin: "median min max"
stats() {
    sort -g | awk '{ a[NR] = $1 } END {
        m = (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2
        printf "%.4g %.4g %.4g", m, a[1], a[NR] }'
}
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.3f", b / a }'; }

what=${METRIC:+figure /$METRIC/}
echo "# A/B: ${ARGS[*]}; $N rounds, $([ "$NP" = 0 ] && echo "no launcher" || echo "$NP ranks")${T:+, $T threads}; ${what:-wall seconds}"
echo "# A = $A"
echo "# B = $B"
echo "# $(nproc) cores, load at start $(cut -d' ' -f1-3 /proc/loadavg)"
fa=() fb=() rq=()
for k in $(seq "$N"); do
    if (( k % 2 )); then a=$(one "$A") || exit 1; b=$(one "$B") || exit 1; order="A B"
    else b=$(one "$B") || exit 1; a=$(one "$A") || exit 1; order="B A"; fi
    fa+=("$a") fb+=("$b") rq+=("$(ratio "$a" "$b")")
    printf "round %d (%s): A %s  B %s  B/A %s  load %s\n" "$k" "$order" "$a" "$b" "${rq[-1]}" \
        "$(cut -d' ' -f1 /proc/loadavg)"
done
read -r ma loa hia < <(printf '%s\n' "${fa[@]}" | stats)
read -r mb lob hib < <(printf '%s\n' "${fb[@]}" | stats)
read -r mq loq hiq < <(printf '%s\n' "${rq[@]}" | stats)
echo "A median $ma (range $loa-$hia)"
echo "B median $mb (range $lob-$hib)"
echo "B/A of the medians $(ratio "$ma" "$mb")"
echo "B/A per round: median $mq (range $loq-$hiq)"
echo "# load at end $(cut -d' ' -f1-3 /proc/loadavg)"
