#!/bin/bash
# SPDX-License-Identifier: MIT
# bench-validate-ab.sh - validation time of two g500 binaries, alternated, on
# the edges file (what `g500 run` validates: every key of both kernels,
# streamed from the file).
#
#   OLD=/tmp/g500.old NEW=bin/g500 bench/bench-validate-ab.sh FILE [CONFIGS...]
#   (CONFIGS: ranks x threads, default "1x2 2x1 4x1"; ROUNDS=3, ROOTS=4)
#
# Each round runs, per configuration, `g500 run FILE --roots ROOTS
# --placement cyclic` with OLD and NEW back to back, the order swapped every
# round (A B, B A, ...), and prints the mean BFS and SSSP validation seconds
# per key of each run, its peak RSS per input edge and the load average.
# The last lines give, per configuration, the medians over rounds and the
# ratio OLD/NEW. On a shared machine only the ratios of runs made side by
# side mean something; quote them with the load.
set -u
OLD=${OLD:?set OLD to the reference binary}
NEW=${NEW:-bin/g500}
ROUNDS=${ROUNDS:-3}
ROOTS=${ROOTS:-4}
FILE=${1:?usage: bench-validate-ab.sh FILE [CONFIGS...]}
shift
CONFIGS=${*:-1x2 2x1 4x1}
if [ "$(id -u)" = 0 ]; then
    export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
fi
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

run() { # $1 binary, $2 config -> "bfs_validate sssp_validate bytes_per_edge"
    local np=${2%x*} th=${2#*x} out
    out=$(mpirun --oversubscribe --bind-to none -np "$np" -x OMP_NUM_THREADS="$th" \
          "$1" run "$FILE" --roots "$ROOTS" --placement cyclic 2>"$TMP/err") || {
        echo "FAILED: $1 $2" >&2; cat "$TMP/err" >&2; exit 1; }
    local b s m
    b=$(awk '/^bfs  mean_validate/ {print $NF}' <<<"$out")
    s=$(awk '/^sssp mean_validate/ {print $NF}' <<<"$out")
    m=$(sed -nE 's/.*peak RSS \(max over ranks\).* = ([0-9.]+) bytes per input edge.*/\1/p' "$TMP/err" | tail -n 1)
    echo "$b $s $m"
}

median() { sort -g | awk '{a[NR] = $1} END {print (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2}'; }

echo "# $(uname -m), $(nproc) cores, $(date -u '+%Y-%m-%d %H:%M UTC'), $FILE, $ROOTS keys, OLD=$OLD NEW=$NEW"
for r in $(seq "$ROUNDS"); do
    for cfg in $CONFIGS; do
        if [ $((r % 2)) = 1 ]; then order="OLD NEW"; else order="NEW OLD"; fi
        for which in $order; do
            bin=$OLD; [ "$which" = NEW ] && bin=$NEW
            load=$(cut -d' ' -f1 /proc/loadavg)
            read -r b s m <<<"$(run "$bin" "$cfg")"
            printf "round %s %s %s  BFS validate %8.3f s  SSSP validate %8.3f s  peak %s B/edge  load %s\n" \
                "$r" "$cfg" "$which" "$b" "$s" "$m" "$load"
            echo "$b" >>"$TMP/$cfg.$which.bfs"
            echo "$s" >>"$TMP/$cfg.$which.sssp"
        done
    done
done
for cfg in $CONFIGS; do
    ob=$(median <"$TMP/$cfg.OLD.bfs") nb=$(median <"$TMP/$cfg.NEW.bfs")
    os=$(median <"$TMP/$cfg.OLD.sssp") ns=$(median <"$TMP/$cfg.NEW.sssp")
    printf "median %s: BFS %.3f -> %.3f s (%.2fx)  SSSP %.3f -> %.3f s (%.2fx)\n" "$cfg" \
        "$ob" "$nb" "$(echo "$ob / $nb" | bc -l)" "$os" "$ns" "$(echo "$os / $ns" | bc -l)"
done
