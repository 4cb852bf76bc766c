#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# bench-cc.sh - connected components: the in-memory union-find against a
# plain union-find (union by size + path halving, in bench_cc.c) measured in
# the same run, at 1 rank x 1 and 2 threads and 2 ranks x 1 thread, all on
# the generator's own edge list (seed 1, as `g500 gen --scale S` writes it);
# `stream` (one read of the edge list) is the bandwidth ceiling. Then the
# whole stage (read, compute, write) with bin/g500 and its phase times,
# medians of REPS: "read" is the read phase (with the link, tally and
# duplicate hashing of each piece between the reads), "HDF5" the reader's
# time inside the reads, "between" the rest of the read phase, "compute"
# what is left after it; compute/read is (between + compute) / HDF5, the
# share of the stage's compute a machine that reads this fast would still
# wait for (below 1: bound by reading). At P > 1 a collective read also
# waits for the slowest rank's compute.
# Ratios are against the plain baseline of the same SCALE in this run
# (the 1 x 1 process's median); "paired" is the median over reps of the
# ratio of a plain rep and the forest rep right after it, in the same
# process (1 rank): the ratio measured side by side, which the machine's
# drift from one process to the next does not move.
# COLD=1 drops the edges file from the page cache before each whole-stage
# run (`dd iflag=nocache count=0`, best effort: what the kernel may drop),
# so that "HDF5" is a read from the storage under the file system.
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
        printf 'SCALE %s counts ranks=%s threads=%s separate %.3fs pieces %.3fs (edge counts + duplicates)\n' \
            "$s" "$(field ranks "$line")" "$(field threads "$line")" "$(field separate "$line")" \
            "$(field pieces "$line")"
    done
    if "$G500" gen --help >/dev/null 2>&1; then
        "$G500" gen -s "$s" -o "$TMP/e$s.h5" --force >/dev/null 2>&1 || { echo "gen failed"; continue; }
        m=$((16 << s))
        # the whole stage, REPS times per configuration; medians
        for cfg in "1 1" "1 2" "2 1"; do
            set -- $cfg
            : >"$TMP/whole"
            for r in $(seq "$REPS"); do
                [ "$COLD" = 1 ] && dd if="$TMP/e$s.h5" iflag=nocache count=0 status=none 2>/dev/null
                out=$(OMP_NUM_THREADS="$2" "$MPI_LAUNCH" -n "$1" "$G500" components "$TMP/e$s.h5" -o "$TMP/c$s.h5" \
                    --force --threads "$2" 2>&1) || { echo "components failed: $out"; break 2; }
                # phases from the progress lines: read (with the pieces'
                # compute between the reads), compute after the read (of
                # which the duplicate count), write, whole stage inside the
                # program, the reader's HDF5 time, peak RSS (max over
                # ranks; per edge: x P / M)
                rd=$(cc_phase 'read in ([0-9.]+)s' "$out")
                io=$(cc_phase 'pieces, HDF5 ([0-9.]+)s' "$out")
                cp=$(cc_phase 'computed in ([0-9.]+)s' "$out")
                du=$(cc_phase 'duplicates ([0-9.]+)s' "$out")
                wr=$(cc_phase 'in ([0-9.]+)s; whole stage' "$out")
                st=$(cc_phase 'whole stage ([0-9.]+)s' "$out")
                rs=$(cc_phase 'whole stage .* peak RSS ([0-9.]+) MiB' "$out")
                echo "$rd $cp $du $wr $st ${io:-$rd} ${rs:-0}" >>"$TMP/whole"
            done
            awk -v s="$s" -v p="$1" -v t="$2" -v m="$m" '
                { for (k = 1; k <= 6; k++) v[k, NR] = $k; v[8, NR] = $1 - $6; v[9, NR] = $1 - $6 + $2
                  v[10, NR] = $7 * 1048576 * p / m; n = NR }
                function med(k,   a, i, j, x) { for (i = 1; i <= n; i++) a[i] = v[k, i];
                    for (i = 2; i <= n; i++) { x = a[i]; for (j = i - 1; j >= 1 && a[j] > x; j--) a[j + 1] = a[j]; a[j + 1] = x }
                    return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2 }
                END { if (!n) exit; printf "SCALE %s whole  ranks=%s threads=%s read %.2fs (HDF5 %.2fs, between %.2fs) compute %.2fs (duplicates %.2fs) write %.2fs: stage %.2fs %.3e edges/s, compute/read %s, peak RSS %.1f B/edge\n",
                    s, p, t, med(1), med(6), med(8), med(2), med(3), med(4), med(5), m / med(5),
                    (med(6) > 0 ? sprintf("%.2f", med(9) / med(6)) : "-"), med(10) }' "$TMP/whole"
        done
    fi
done
