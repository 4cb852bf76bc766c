#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# bench-all.sh - `make bench`: run every stage's bench target in turn and
# gather their tables into one page, results/bench/index.md.
#
#   bench/bench-all.sh [--since EPOCH] [--already "bench-x ..."] bench-gen bench-cc ...
#
# MAKE_CMD names make. --already lists targets Make ran before this script
# (a rule may add `bench: bench-x`); they get a row without a time.
# --since: when `make bench` started (tables older than that are marked).
#
# A bench-<stage> target may write results/bench/<stage>.md (and PNGs
# there), or results/bench-<stage>*.txt, or just print its table: each
# target's section takes the first of these this run produced. The targets run one after the other, never together, since
# they time things. The page starts with the date, the commit
# (git rev-parse --short HEAD, "+dirty" when the tree has changes), the
# machine, and a table of every target's status and wall time; then each
# stage's table, marked when it is older than this run (its target failed
# or did not write it); then every PNG in results/bench/. A bar chart of the
# targets' wall times is drawn with gnuplot (bench-times.png).
# Exit status: 0 if every target succeeded, 1 otherwise (the page is still
# written).
set -u
MAKE=${MAKE_CMD:-make}
OUT=results/bench
mkdir -p "$OUT"
start=$(date +%s)
already=""
while [ $# -gt 0 ]; do
    case $1 in
    --since) start=$2; shift 2 ;;
    --already) already=$2; shift 2 ;;
    *) break ;;
    esac
done
stamp=$(mktemp)
touch -d "@$start" "$stamp"
names=(); status=(); secs=()
failed=0

for t in $already; do
    names+=("$t"); status+=("ok (ran first, as a prerequisite of bench)"); secs+=("-")
done
if [ $# -eq 0 ] && [ -z "$already" ]; then
    echo "bench: no bench-* target is defined in bench/bench.mk" >&2
fi
for t in "$@"; do
    echo "==== $t" >&2
    t0=$(date +%s.%N)
    # Keep the target's console output: most stages print their table.
    $MAKE --no-print-directory "$t" 2>&1 | tee "$OUT/$t.log"
    if [ "${PIPESTATUS[0]}" -eq 0 ]; then st=ok; else st=FAILED; failed=1; fi
    t1=$(date +%s.%N)
    names+=("$t"); status+=("$st"); secs+=("$(awk -v a="$t0" -v b="$t1" 'BEGIN{printf "%.1f", b-a}')")
done

commit=$(git rev-parse --short HEAD 2>/dev/null || echo unknown)
git diff --quiet HEAD 2>/dev/null || commit="$commit+dirty"
rm -f "$OUT/bench-times.png"
dat=$OUT/bench-times.dat
: > "$dat"
if [ ${#names[@]} -gt 0 ] && command -v gnuplot >/dev/null; then
    for i in "${!names[@]}"; do
        [ "${secs[$i]}" = - ] || echo "\"${names[$i]}\" ${secs[$i]}"
    done > "$dat"
fi
if [ -s "$dat" ]; then
    gnuplot <<EOF || failed=1
set terminal pngcairo size 700,400 noenhanced
set output '$OUT/bench-times.png'
set title 'make bench: wall time per target ($commit)'
set ylabel 'seconds'
set style fill solid 0.6
set boxwidth 0.6
set yrange [0:*]
unset key
plot '$dat' using 0:2:xtic(1) with boxes
EOF
fi
tmp=$OUT/index.md.tmp.$$
{
    echo "# g500 benchmarks"
    echo
    echo "Date: $(date -u '+%Y-%m-%d %H:%M UTC'). Commit: \`$commit\`."
    echo "Machine: $(nproc) cores, $(awk '/MemTotal/ {printf "%.0f GiB", $2/1048576}' /proc/meminfo),"\
         "$(. /etc/os-release 2>/dev/null && echo "$PRETTY_NAME"), $(${MPIRUN:-mpirun} --version 2>/dev/null | head -1)."
    echo "Load average at the end: $(cut -d' ' -f1-3 /proc/loadavg) (a shared machine makes timings noisy;"\
         "compare ratios measured in one run)."
    echo
    echo "Command: \`make bench\` (targets: ${already:+$already }${*:-})."
    echo
    echo "| target | status | wall time (s) |"
    echo "| --- | --- | ---: |"
    for i in "${!names[@]}"; do
        echo "| ${names[$i]} | ${status[$i]} | ${secs[$i]} |"
    done
    # Each target's results: its results/bench/<stage>.md if this run wrote
    # one, else a results/<target>*.txt this run wrote, else its console
    # output (last 80 lines). Tables older than this run follow, marked.
    declare -A shown=()
    for t in "${names[@]}"; do
        stem=${t#bench-}
        echo
        echo "## $t"
        echo
        md=$OUT/$stem.md
        txt=$(ls -t results/"$t"*.txt 2>/dev/null | head -1)
        if [ -f "$md" ] && [ "$md" -nt "$stamp" ]; then
            shown[$md]=1
            sed 's/^#/###/' "$md"
        elif [ -n "$txt" ] && [ "$txt" -nt "$stamp" ]; then
            echo "From \`$txt\`:"
            echo
            echo '```'
            head -n 200 "$txt"
            echo '```'
        elif [ -s "$OUT/$t.log" ] && [ "$OUT/$t.log" -nt "$stamp" ]; then
            echo "Console output (last 80 lines; all of it in \`$OUT/$t.log\`):"
            echo
            echo '```'
            tail -n 80 "$OUT/$t.log"
            echo '```'
        else
            echo "(Its output went to the console: it ran before this script.)"
        fi
    done
    for f in "$OUT"/*.md; do
        [ -e "$f" ] || continue
        [ "$(basename "$f")" = index.md ] && continue
        [ -n "${shown[$f]:-}" ] && continue
        echo
        echo "## $(basename "$f" .md)"
        if [ "$f" -ot "$stamp" ]; then
            echo
            echo "*(Not rewritten by this run: from $(date -u -r "$f" '+%Y-%m-%d %H:%M UTC').)*"
        fi
        echo
        # Demote the stage page's headings under this page's section.
        sed 's/^#/###/' "$f"
    done
    if [ -s "$OUT/bench-times.png" ]; then
        echo
        echo "![wall time per bench target](bench-times.png)"
    fi
    for p in "$OUT"/*.png; do
        [ -e "$p" ] || continue
        [ "$(basename "$p")" = bench-times.png ] && continue
        echo
        echo "![$(basename "$p" .png)]($(basename "$p"))"
    done
} > "$tmp" && mv "$tmp" "$OUT/index.md"

rm -f "$stamp"
echo "bench: wrote $OUT/index.md" >&2
exit $failed
