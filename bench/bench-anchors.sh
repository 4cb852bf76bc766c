#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# bench-anchors.sh - `make bench-anchors`: g500's kernels against the
# Graph500 reference code, side by side on this machine, and the ratios the
# kernels are held to, from one run:
#   kernel 1: the reference's construction_time (1 rank) / g500's (1 rank x
#             2 threads; construction_time of the block, reads excluded),
#             each side in two states of the machine: "idle", started
#             after IDLE seconds without work, and "primed", started right
#             after touch_pages touched and freed 40 bytes per input edge
#             of huge-page memory. A virtual machine that hands freed
#             memory back to its host (virtio-balloon free page reporting)
#             makes an idle run pay the host again for its fresh pages; a
#             primed run reuses pages the host still backs, as on a
#             machine without a hypervisor;
#   SSSP:     g500's median time per search at 1x2 / at 2x1 (the speed kept
#             at 2 ranks x 1 thread), and 1x2 / 4x1 (oversubscribed);
#   BFS:      g500's median time per search at each configuration;
#   rounds:   g500's SSSP rounds per search (median over keys), and peak
#             RSS per input edge (the largest rank's peak times the rank
#             count, over M).
# The reference is built by this script from ANCHORS (default
# ../shared/anchors relative to the repository) into a scratch folder
# outside the repository, unmodified except for -fcommon (its README); it
# generates its own Kronecker graph of the same SCALE and edge factor and
# is stopped once it prints its construction_time. g500 reads a file made
# by `g500 gen` in the scratch folder. The runs alternate (reference idle
# and primed, 1x2 idle and primed (the primed one only for its kernel 1,
# one key), 2x1, 4x1, then again) REPS times per SCALE; medians and ranges are
# printed with the load average before each run. With --doc it then
# rewrites the section between the bench-anchors markers of
# docs/performance.md (command, machine, commit, date, table).
#
#   bench/bench-anchors.sh [--doc] [--redoc] [SCALE...]   (default SCALEs: 20 22)
# --redoc: no runs; the table (and with --doc the section) again from the
# figures the last run left in BENCH_SCRATCH.
# Environment: G500 (bin/g500), ANCHORS, BENCH_SCRATCH (default
# /tmp/g500-anchors), REPS (3), ROOTS (keys per g500 run, 8), MPIRUN
# (the launcher scripts/mpi-launch uses; default mpirun), IDLE (7 s),
# TOUCH (build/bench/touch_pages).
set -u
. "$(dirname "$0")/doc-section.sh"
MPI_LAUNCH=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)/scripts/mpi-launch   # MPIRUN picks the launcher
DOC=0 REDOC=0
while [ $# -gt 0 ]; do
    case $1 in
    --doc) DOC=1; shift ;;
    --redoc) REDOC=1; shift ;;
    *) break ;;
    esac
done
SCALES=${*:-20 22}
REPO=$(cd "$(dirname "$0")/.." && pwd)
G500=${G500:-bin/g500}
ANCHORS=${ANCHORS:-$REPO/../shared/anchors}
SCRATCH=${BENCH_SCRATCH:-/tmp/g500-anchors}
REPS=${REPS:-3}
ROOTS=${ROOTS:-8}
IDLE=${IDLE:-7}
TOUCH=${TOUCH:-$REPO/build/bench/touch_pages}
[ "$REDOC" = 1 ] || [ -x "$TOUCH" ] || { echo "bench-anchors: missing $TOUCH (make $TOUCH)" >&2; exit 1; }
# ranks yield only when the launcher finds the cores oversubscribed (4x1), as users run
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
TARBALL=$ANCHORS/graph500-reference-3.0.1.tar.gz

# ---- the reference, built outside the repository ----
if [ ! -f "$TARBALL" ]; then
    echo "bench-anchors: missing $TARBALL (the Graph500 reference 3.0.1 tarball; set ANCHORS=DIR to" \
         "the folder that holds it, see its README)" >&2
    exit 1
fi
mkdir -p "$SCRATCH" || exit 1
SCRATCH=$(cd "$SCRATCH" && pwd)
case "$SCRATCH/" in "$REPO"/*) echo "bench-anchors: BENCH_SCRATCH=$SCRATCH is inside the repository" >&2; exit 1 ;; esac
REFDIR=$SCRATCH/graph500-reference-3.0.1/src
REF=$REFDIR/graph500_reference_bfs_sssp
if [ ! -x "$REF" ]; then
    echo "bench-anchors: building the reference in $REFDIR" >&2
    rm -rf "$SCRATCH/graph500-reference-3.0.1"
    tar xzf "$TARBALL" -C "$SCRATCH" || exit 1
    sed -i 's/^CFLAGS = /CFLAGS = -fcommon /' "$REFDIR/Makefile"
    make -C "$REFDIR" graph500_reference_bfs_sssp >"$SCRATCH/reference-build.log" 2>&1 ||
        { echo "bench-anchors: the reference did not build (see $SCRATCH/reference-build.log)" >&2; exit 1; }
fi

load() { cut -d' ' -f1 /proc/loadavg; }
# median and range of the numbers on stdin: "median (min-max)"
stat() { sort -g | awk '{a[NR]=$1} END {if (!NR) {print "-"; exit}
    m = (NR % 2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2; printf "%.4g (%.4g-%.4g)", m, a[1], a[NR]}'; }
fmt() { awk '{printf "%.3g", $1}'; }
med() { sort -g | awk '{a[NR]=$1} END {if (!NR) {print "nan"; exit} print (NR % 2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN {if (a !~ /^[0-9]/ || b !~ /^[0-9]/ || b == 0) print "-"; else printf "%.2f", a / b}'; }

# The two states a kernel 1 starts in (see the top): idle, or primed with
# 40 bytes per input edge of SCALE $1 touched and freed just before.
idle() { sleep "$IDLE"; }
prime() { "$TOUCH" $(( (40 << $1) * 16 >> 20 )); }

# One reference run to its construction_time; prints the seconds.
ref_construct() {
    local S=$1
    local out=$SCRATCH/ref-s$S.err
    SKIP_VALIDATION=1 "$MPI_LAUNCH" -n 1 "$REF" "$S" 16 >/dev/null 2>"$out" &
    local pid=$!
    while kill -0 "$pid" 2>/dev/null && ! grep -q '^construction_time:' "$out"; do sleep 0.2; done
    kill "$pid" 2>/dev/null
    wait "$pid" 2>/dev/null
    awk '/^construction_time:/ {print $2; exit}' "$out"
}

# One g500 run: P ranks x T threads [KEYS]; prints "construction bfs_median sssp_median rounds_median bytes_per_edge".
g500_run() {
    local S=$1 P=$2 T=$3 K=${4:-$ROOTS}
    local out=$SCRATCH/g500-s$S-${P}x$T
    OMP_NUM_THREADS=$T "$MPI_LAUNCH" -n "$P" "$G500" run "$SCRATCH/s$S.h5" --roots "$K" \
        --no-validate --json "$out.json" >"$out.txt" 2>"$out.err" || { echo "FAILED"; return; }
    local c b s r m
    c=$(awk '/^construction_time:/ {print $2}' "$out.txt")
    b=$(awk '/^bfs  median_time:/ {print $3}' "$out.txt")
    s=$(awk '/^sssp median_time:/ {print $3}' "$out.txt")
    r=$(grep -o '"sssp_rounds": *\[[^]]*\]' "$out.json" | grep -o '[0-9][0-9]*' | med)
    m=$(grep -o '"bytes_per_input_edge": *[0-9.e+]*' "$out.json" | grep -o '[0-9.e+]*$' |
        awk -v p="$P" '{print $1 * p}')
    echo "$c $b $s $r ${m:-nan}"
}

CONFIGS="1x2 2x1 4x1"
TABLE=$SCRATCH/table.md
{
echo "| SCALE | reference construction (1x1), idle / primed | g500 construction 1x2, idle / primed | **kernel 1 ratio**, idle / primed | g500 BFS per search 1x2 / 2x1 / 4x1 | g500 SSSP per search 1x2 / 2x1 / 4x1 | **SSSP 2x1 speed / 1x2** | SSSP 4x1 / 1x2 | SSSP rounds per search 1x2 / 2x1 / 4x1 | peak bytes per input edge 1x2 / 2x1 / 4x1 | load |"
echo "|---|---|---|---|---|---|---|---|---|---|---|"
} >"$TABLE"
for S in $SCALES; do
    [ "$REDOC" = 1 ] || [ -f "$SCRATCH/s$S.h5" ] || "$G500" gen -s "$S" -o "$SCRATCH/s$S.h5" -q || exit 1
    [ "$REDOC" = 1 ] || rm -f "$SCRATCH"/res-s$S-*
    loads=""
    [ "$REDOC" = 1 ] && loads=$(cat "$SCRATCH/res-s$S-load" 2>/dev/null)
    for rep in $(seq "$REPS"); do
        [ "$REDOC" = 1 ] && break
        l=$(load); loads="$loads $l"
        idle
        t=$(ref_construct "$S")
        echo "SCALE $S round $rep: reference construction_time, idle: ${t:-FAILED} s (load $l)"
        [ -n "$t" ] && echo "$t" >>"$SCRATCH/res-s$S-ref"
        prime "$S"
        t=$(ref_construct "$S")
        echo "SCALE $S round $rep: reference construction_time, primed: ${t:-FAILED} s"
        [ -n "$t" ] && echo "$t" >>"$SCRATCH/res-s$S-ref2"
        for cfg in $CONFIGS; do
            l=$(load); loads="$loads $l"
            [ "$cfg" = 1x2 ] && idle
            r=$(g500_run "$S" "${cfg%x*}" "${cfg#*x}")
            echo "SCALE $S round $rep: g500 $cfg: construction, BFS median, SSSP median, SSSP rounds, bytes/edge: $r (load $l)"
            [ "$r" = FAILED ] && { echo "see $SCRATCH/g500-s$S-$cfg.err" >&2; continue; }
            echo "$r" >>"$SCRATCH/res-s$S-$cfg"
            [ "$cfg" = 1x2 ] || continue
            prime "$S"
            r=$(g500_run "$S" 1 2 1)
            echo "SCALE $S round $rep: g500 1x2 primed (one key): construction $r"
            [ "$r" = FAILED ] || echo "$r" >>"$SCRATCH/res-s$S-1x2primed"
        done
    done
    [ "$REDOC" = 1 ] || echo "$loads" >"$SCRATCH/res-s$S-load"
    col() { awk -v c="$2" '{print $c}' "$SCRATCH/res-s$S-$1" 2>/dev/null; }
    ref=$(med <"$SCRATCH/res-s$S-ref" 2>/dev/null)
    ref2=$(med <"$SCRATCH/res-s$S-ref2" 2>/dev/null)
    c12=$(col 1x2 1 | med); c12r=$(col 1x2primed 1 | med)
    s12=$(col 1x2 3 | med); s21=$(col 2x1 3 | med); s41=$(col 4x1 3 | med)
    echo "| $S | $(stat <"$SCRATCH/res-s$S-ref") / $(stat <"$SCRATCH/res-s$S-ref2" 2>/dev/null) s |" \
         "$(col 1x2 1 | stat) / $(col 1x2primed 1 | stat) s | **$(ratio "$ref" "$c12")x / $(ratio "$ref2" "$c12r")x** |" \
         "$(col 1x2 2 | med | fmt) / $(col 2x1 2 | med | fmt) / $(col 4x1 2 | med | fmt) s |" \
         "$(col 1x2 3 | stat) / $(col 2x1 3 | stat) / $(col 4x1 3 | stat) s |" \
         "**$(ratio "$s12" "$s21")** | $(ratio "$s12" "$s41") |" \
         "$(col 1x2 4 | med) / $(col 2x1 4 | med) / $(col 4x1 4 | med) |" \
         "$(col 1x2 5 | med | fmt) / $(col 2x1 5 | med | fmt) / $(col 4x1 5 | med | fmt) |" \
         "$(echo $loads | tr ' ' '\n' | stat) |" >>"$TABLE"
done
echo
cat "$TABLE"

[ "$DOC" = 1 ] || exit 0
# ---- docs/performance.md: the section between the markers ----
DOCF=$REPO/docs/performance.md
commit=$(git -C "$REPO" rev-parse --short HEAD 2>/dev/null || echo unknown)
git -C "$REPO" diff --quiet HEAD 2>/dev/null || commit="$commit+dirty"
model=$(awk -F': *' '/^model name/ {print $2; exit}' /proc/cpuinfo)
mem=$(awk '/^MemTotal/ {printf "%.1f GiB", $2 / 1048576}' /proc/meminfo)
SEC=$SCRATCH/section.md
{
echo "<!-- bench-anchors:begin -->"
echo "## kernels against the reference (generated by \`make bench-anchors\`)"
echo
echo "Command \`make bench-anchors BENCH_ANCHOR_SCALES=\"$SCALES\"\` (REPS=$REPS rounds, each: the"
echo "reference to its construction_time idle and primed, then \`g500 run --roots $ROOTS --no-validate\` at 1x2"
echo "idle (then primed with one key, for its kernel 1), 2x1 and 4x1, oversubscribed); commit \`$commit\`; $(date -u '+%Y-%m-%d %H:%M UTC'); machine:"
echo "$(nproc) cores ($model), $mem. Medians over the rounds, ranges in"
echo "parentheses; per-search figures are each run's median over its keys. The"
echo "reference builds its own graph of the same SCALE and edge factor. Kernel 1"
echo "ratio = reference construction / g500's at 1x2, both idle (started after"
echo "$IDLE s without work: where the machine hands freed memory back to a"
echo "hypervisor, as this one does, the run pays the host again for its fresh"
echo "pages) and both primed (started right after 40 bytes per input edge of"
echo "huge-page memory were touched and freed by \`build/bench/touch_pages\`: the"
echo "pages are still backed, as on a machine without a hypervisor); SSSP 2x1"
echo "speed / 1x2 = (time per search at 1x2) / (at 2x1), the same for 4x1. The"
echo "load average (median and range over the runs) includes the run itself"
echo "(about 2)."
echo
cat "$TABLE"
echo "<!-- bench-anchors:end -->"
} >"$SEC"
doc_section bench-anchors "$SEC" "$DOCF"
echo "bench-anchors: rewrote the section of $DOCF" >&2
