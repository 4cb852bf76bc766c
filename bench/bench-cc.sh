#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# bench-cc.sh - connected components: the in-memory union-find against a
# plain union-find (union by size + path halving, in bench_cc.c) measured in
# the same run, at 1 rank x 1 and 2 threads and 2 ranks x 1 thread, all on
# the generator's own edge list (seed 1, as `g500 gen --scale S` writes it);
# `stream` (one read of the edge list) is the bandwidth ceiling. Then the
# whole stage (read, compute, write) with bin/g500, with its phase times,
# the slab streamed in pieces taken under the read (--overlap on: link,
# duplicate hashing and edge tally of piece k while piece k + 1 is read)
# and between the reads (off), alternated, medians of REPS. "read" is the
# read phase (with what ran in it), "HDF5" the reader's time inside the
# reads, "between" the rest of the read phase (compute not hidden under a
# read: all of the pieces' compute when off, the reader's waits when on),
# "compute" what is left after the read phase; compute/read is
# (between + compute) / HDF5, the share of the stage's compute a machine
# that reads this fast would still wait for (below 1: bound by reading).
# At P > 1 a collective read also waits for the slowest rank's compute.
# A run with more threads than cores (2 x 1 overlapped on 2 cores: a
# reader and a compute thread per rank) is flagged: its HDF5 time includes
# waits for a core, so its compute/read understates the compute.
# The CPU times tell what an idle machine would take.
# Ratios are against the plain baseline of the same SCALE in this run
# (the 1 x 1 process's median); "paired" is the median over reps of the
# ratio of a plain rep and the forest rep right after it, in the same
# process (1 rank): the ratio measured side by side, which the machine's
# drift from one process to the next does not move.
# COLD=1 drops the edges file from the page cache before each whole-stage
# run (`dd iflag=nocache count=0`, best effort: what the kernel may drop),
# so that "HDF5" is a read from the storage under the file system: on a
# machine whose storage is slower than the stage, compute/read then falls
# below 1. (On this project's VM the "storage" is the host's cache, about
# 3-4 GB/s.)
# Usage: make bench-cc [BENCH_CC_SCALES="20 22"]   (REPS=5 by default)
set -u
MPI_LAUNCH=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)/scripts/mpi-launch   # MPIRUN picks the launcher
BENCH_CC=${BENCH_CC:-build/bench/bench_cc}
G500=${G500:-bin/g500}
SCALES=${SCALES:-20 22}
REPS=${REPS:-5}
COLD=${COLD:-0}
TMP=${TMPDIR:-/tmp}/g500-bench-cc.$$
. "$(dirname "$0")/cc-lib.sh"
mkdir -p "$TMP"
trap 'rm -rf "$TMP"' EXIT
field() { sed -nE "s/.*$1=([^ ]+).*/\1/p" <<<"$2" | head -n 1; }

echo "# $(date -u +%F) $(uname -m), $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)$([ "$COLD" = 1 ] && echo ", COLD=1: the edges file dropped from the page cache before each whole-stage run")"
for s in $SCALES; do
    a=$(OMP_NUM_THREADS=1 "$MPI_LAUNCH" -n 1 "$BENCH_CC" "$s" 1 "$REPS")
    b=$(OMP_NUM_THREADS=2 "$MPI_LAUNCH" -n 1 "$BENCH_CC" "$s" 2 "$REPS")
    c=$(OMP_NUM_THREADS=1 "$MPI_LAUNCH" -n 2 "$BENCH_CC" "$s" 1 "$REPS")
    printf '%s\n%s\n%s\n' "$a" "$b" "$c"
    base=$(field edges_per_s "$(grep '^plain' <<<"$a")")
    for line in "$(grep '^stream' <<<"$a")" "$(grep '^stream' <<<"$b")" "$(grep '^stream' <<<"$c")" \
                "$(grep '^forest' <<<"$a")" "$(grep '^forest' <<<"$b")" "$(grep '^forest' <<<"$c")" \
                "$(grep '^pieces' <<<"$b")" \
                "$(grep '^stage' <<<"$a")" "$(grep '^stage' <<<"$b")" "$(grep '^stage' <<<"$c")"; do
        eps=$(field edges_per_s "$line")
        pr=$(field paired "$line")
        printf 'SCALE %s %-6s ranks=%s threads=%s %.3e edges/s = %.2fx plain (%.3e)%s\n' "$s" \
            "${line%% *}" "$(field ranks "$line")" "$(field threads "$line")" "$eps" \
            "$(awk -v a="$eps" -v b="$base" 'BEGIN{print a/b}')" "$base" \
            "${pr:+, paired ${pr}x (range $(sed -nE 's/.*range ([0-9.]+-[0-9.]+).*/\1/p' <<<"$line"))}"
    done
    for line in "$(grep '^counts' <<<"$a")" "$(grep '^counts' <<<"$b")" "$(grep '^counts' <<<"$c")"; do
        [ -n "$line" ] || continue
        printf 'SCALE %s counts ranks=%s threads=%s separate %.3fs fused %.3fs pieces %.3fs (edge counts + duplicates)\n' \
            "$s" "$(field ranks "$line")" "$(field threads "$line")" "$(field separate "$line")" \
            "$(field fused "$line")" "$(field pieces "$line")"
    done
    if "$G500" gen --help >/dev/null 2>&1; then
        "$G500" gen -s "$s" -o "$TMP/e$s.h5" --force >/dev/null 2>&1 || { echo "gen failed"; continue; }
        m=$((16 << s))
        # the whole stage with the read overlapped (--overlap on: link and
        # duplicate hashing of piece k while piece k + 1 is read) and not
        # (off: read, then compute), alternated REPS times; medians
        for cfg in "1 1" "1 2" "2 1"; do
            set -- $cfg
            : >"$TMP/whole"
            for r in $(seq "$REPS"); do
                for ov in off on; do
                    [ "$COLD" = 1 ] && dd if="$TMP/e$s.h5" iflag=nocache count=0 status=none 2>/dev/null
                    out=$(OMP_NUM_THREADS="$2" "$MPI_LAUNCH" -n "$1" "$G500" components "$TMP/e$s.h5" -o "$TMP/c$s.h5" \
                        --force --threads "$2" --overlap "$ov" 2>&1) || { echo "components failed: $out"; break 2; }
                    # phases from the progress lines: read (with what ran
                    # in it), the reader's and compute thread's CPU time
                    # in it, compute after the read (of which the duplicate
                    # count), write, whole stage inside the program, the
                    # reader's HDF5 time, peak RSS (max over ranks; per
                    # edge: x P / M), the share of the tuples the reader
                    # hashed (overlapped: set to balance the two threads)
                    rd=$(cc_phase 'read in ([0-9.]+)s' "$out")
                    io=$(cc_phase 'pieces, HDF5 ([0-9.]+)s' "$out")
                    cr=$(cc_phase 'CPU time of the reader ([0-9.]+)s' "$out")
                    cu=$(cc_phase 'of the compute thread ([0-9.]+)s' "$out")
                    cp=$(cc_phase 'computed in ([0-9.]+)s' "$out")
                    du=$(cc_phase 'duplicates ([0-9.]+)s' "$out")
                    wr=$(cc_phase 'in ([0-9.]+)s; whole stage' "$out")
                    st=$(cc_phase 'whole stage ([0-9.]+)s' "$out")
                    rs=$(cc_phase 'whole stage .* peak RSS ([0-9.]+) MiB' "$out")
                    sh=$(cc_phase 'the reader hashing the other ([0-9.]+)%' "$out")
                    echo "$ov $rd ${cr:-0} ${cu:-0} $cp $du $wr $st ${io:-$rd} ${rs:-0} ${sh:-0}" >>"$TMP/whole"
                done
            done
            for ov in off on; do
                # threads per rank: a reader and a compute thread when
                # overlapped at one thread; more than the cores, the
                # reader's HDF5 time includes waits for a core, and a
                # compute/read below 1 is then no read bound
                tpr=$2; [ "$ov" = on ] && [ "$2" = 1 ] && tpr=2
                over=$(( $1 * tpr > $(nproc) ))
                grep "^$ov " "$TMP/whole" | awk -v s="$s" -v p="$1" -v t="$2" -v m="$m" -v ov="$ov" -v over="$over" '
                    { for (k = 2; k <= 9; k++) v[k, NR] = $k; v[10, NR] = $2 - $9; v[11, NR] = $2 - $9 + $5
                      v[12, NR] = $10 * 1048576 * p / m; v[13, NR] = $11; n = NR }
                    function med(k,   a, i, j, x) { for (i = 1; i <= n; i++) a[i] = v[k, i];
                        for (i = 2; i <= n; i++) { x = a[i]; for (j = i - 1; j >= 1 && a[j] > x; j--) a[j + 1] = a[j]; a[j + 1] = x }
                        return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2 }
                    END { if (!n) exit; printf "SCALE %s whole  ranks=%s threads=%s overlap=%-3s read %.2fs (HDF5 %.2fs, between %.2fs; CPU reader %.2fs, compute thread %.2fs; reader hashed %.0f%%) compute %.2fs (duplicates %.2fs) write %.2fs: stage %.2fs %.3e edges/s, compute/read %.2f%s, peak RSS %.1f B/edge\n",
                        s, p, t, ov, med(2), med(9), med(10), med(3), med(4), med(13), med(5), med(6), med(7), med(8), m / med(8), med(11) / med(9),
                        over ? " (more threads than cores: HDF5 time includes waits for a core, not a read bound)" : "", med(12) }'
            done
        done
    fi
done
