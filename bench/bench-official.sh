#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# bench-official.sh - `make bench-official`: one full official run on this
# machine (64 keys of BFS and SSSP, every key validated, `g500 run` at
# RANKS x THREADS, the keys' validation records parked with --spill), timed
# end to end, and where its time went: kernel 1 (construction_time, reads
# apart), the 128 searches, validation (each key's own checks and parking,
# reading back and the passes over the edges), the rest (reading the roots,
# releasing memory, output). The edges file is made by `g500 gen` in the
# scratch folder when missing, timed apart (a file made earlier is said to
# be reused); it is evicted from the page cache before the run, as a first
# run on a cluster would find it. The load average is sampled every 30 s.
# With --doc it rewrites the section between the bench-official markers of
# docs/performance.md (command, machine, commit, date, table).
#
#   bench/bench-official.sh [--doc] [SCALE]        (default SCALE: 26)
# Environment: G500 (bin/g500), BENCH_SCRATCH (default /tmp/g500-official:
# the edges file sSCALE.h5, the scratch files, the run's outputs), RANKS
# (1), THREADS (2), MPIRUN (the launcher scripts/mpi-launch uses).
# SCALE 26 needs about 16 GiB of memory, 13 GB for the file and 52 GiB of
# scratch space per rank's node.
set -u
. "$(dirname "$0")/doc-section.sh"
DOC=0
[ "${1:-}" = --doc ] && { DOC=1; shift; }
SCALE=${1:-26}
REPO=$(cd "$(dirname "$0")/.." && pwd)
G500=${G500:-bin/g500}
case $G500 in /*) ;; *) G500=$REPO/$G500 ;; esac
SCRATCH=${BENCH_SCRATCH:-/tmp/g500-official}
RANKS=${RANKS:-1}
THREADS=${THREADS:-2}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
mkdir -p "$SCRATCH/spill" || exit 1
E=$SCRATCH/s$SCALE.h5 OUT=$SCRATCH/run-s$SCALE
now() { date +%s.%N; }

gen_note="made earlier (reused; its generation time is in the file: generation_time in the JSON)"
if [ ! -f "$E" ]; then
    echo "bench-official: generating SCALE $SCALE into $E" >&2
    t0=$(now)
    OMP_NUM_THREADS=$THREADS "$REPO/scripts/mpi-launch" -n "$RANKS" "$G500" gen -s "$SCALE" -o "$E" >&2 || exit 1
    gen_note="made by this run in $(awk "BEGIN {printf \"%.1f\", $(now) - $t0}") s (not part of the run's time)"
fi
python3 - "$E" <<'PY' || echo "bench-official: could not evict $E from the page cache" >&2
import os, sys
fd = os.open(sys.argv[1], os.O_RDONLY)
os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
os.close(fd)
PY

# the build measured: the commit now, not when the run ends
commit=$(git -C "$REPO" rev-parse --short HEAD 2>/dev/null || echo unknown)
git -C "$REPO" diff --quiet HEAD 2>/dev/null || commit="$commit+dirty"
start=$(date -u '+%Y-%m-%d %H:%M UTC')
( while :; do cut -d' ' -f1 /proc/loadavg; sleep 30; done ) >"$OUT.load" &
sampler=$!
echo "bench-official: g500 run at ${RANKS}x$THREADS, SCALE $SCALE, 64 keys, --spill (progress: $OUT.err)" >&2
t0=$(now)
OMP_NUM_THREADS=$THREADS "$REPO/scripts/mpi-launch" -n "$RANKS" "$G500" run "$E" --spill "$SCRATCH/spill" \
    --json "$OUT.json" >"$OUT.out" 2>"$OUT.err"
rc=$?
wall=$(awk "BEGIN {print $(now) - $t0}")
kill $sampler 2>/dev/null
[ $rc = 0 ] || { echo "bench-official: g500 run failed (exit $rc):" >&2; tail -5 "$OUT.err" >&2; exit 1; }

TABLE=$SCRATCH/table.md
python3 - "$OUT.json" "$OUT.err" "$OUT.load" "$wall" "$RANKS" "$THREADS" >"$TABLE" <<'PY' || exit 1
import json, re, statistics, sys
r = json.load(open(sys.argv[1]))
err = open(sys.argv[2]).read()
loads = [float(x) for x in open(sys.argv[3]).read().split()] or [0.0]
wall, ranks, threads = float(sys.argv[4]), sys.argv[5], sys.argv[6]
k1, reads = r["construction_time"], r.get("read_time") or 0.0
bfs, sssp = sum(r["bfs"]["time"]), sum(r["sssp"]["time"])
val = sum(r["bfs"]["validate_time"]) + sum(r["sssp"]["validate_time"])
passes = [float(x) for x in re.findall(r"Validation pass over the edges for \S+ \d+ to \d+ \(\d+ keys\): ([0-9.]+) s", err)]
rest = wall - k1 - reads - bfs - sssp - val
m = lambda s: f"{s / 60:.1f} min" if s >= 60 else f"{s:.1f} s"
official = "yes" if r["official"] else "no: " + "; ".join(r.get("not_official_reasons") or [])
print(f"| SCALE | ranks x threads | official | wall, end to end | kernel 1 | its reads | BFS, 64 searches | SSSP, 64 searches | validation, 128 keys (of it: {len(passes)} passes over the edges) | rest | keys per pass BFS / SSSP | peak bytes per input edge | load median (max) |")
print("|---|---|---|---|---|---|---|---|---|---|---|---|---|")
print(f"| {r['scale']} | {ranks}x{threads} | {official} | **{m(wall)}** | {m(k1)} | {m(reads)} | {m(bfs)} | {m(sssp)} | "
      f"{m(val)} ({m(sum(passes))}) | {m(rest)} | {r['validate_batch']['bfs']} / {r['validate_batch']['sssp']} | "
      f"{r['bytes_per_input_edge']:.1f} | {statistics.median(loads):.1f} ({max(loads):.1f}) |")
print()
print(f"Per search (medians): BFS {statistics.median(r['bfs']['time']):.3f} s, SSSP "
      f"{statistics.median(r['sssp']['time']):.3f} s; harmonic mean TEPS BFS "
      f"{r['bfs']['harmonic_mean_teps']:.3g}, SSSP {r['sssp']['harmonic_mean_teps']:.3g}.")
PY
echo
echo "edges file: $gen_note"
cat "$TABLE"

[ "$DOC" = 1 ] || exit 0
DOCF=$REPO/docs/performance.md
model=$(awk -F': *' '/^model name/ {print $2; exit}' /proc/cpuinfo)
mem=$(awk '/^MemTotal/ {printf "%.1f GiB", $2 / 1048576}' /proc/meminfo)
SEC=$SCRATCH/section.md
{
echo "<!-- bench-official:begin -->"
echo "## a full official run (generated by \`make bench-official\`)"
echo
echo "Command \`make bench-official BENCH_OFFICIAL_SCALE=$SCALE\` (\`g500 run sS.h5 --spill DIR\`,"
echo "64 keys, every key validated, at ${RANKS}x$THREADS; the edges file evicted from the page"
echo "cache first; the file $gen_note);"
echo "commit \`$commit\`; started $start; machine: $(nproc) cores ($model), $mem."
echo "Wall time from the launch to the exit; validation is the sum of the keys'"
echo "validate times (own checks and parking, reading back, share of a pass); rest"
echo "is the wall time outside the parts. The load average, sampled every 30 s,"
echo "includes the run itself (about $THREADS per rank)."
echo
cat "$TABLE"
echo "<!-- bench-official:end -->"
} >"$SEC"
doc_section bench-official "$SEC" "$DOCF"
echo "bench-official: rewrote the section of $DOCF" >&2
