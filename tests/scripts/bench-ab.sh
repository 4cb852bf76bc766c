#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# bench-ab.sh - bench/ab.sh on two stand-in binaries (A prints 1.5 and
# sleeps less, B prints 3): alternated order, one line per round, medians,
# ranges and B/A, the --metric figure, a failing side stops it.
. "$(dirname "$0")/pipeline-lib.bash"

printf '#!/bin/sh\nsleep 0.02; echo "done $* in 1.5 s"\n' > "$TMP/a"
printf '#!/bin/sh\nsleep 0.2; echo "done $* in 3 s"\n' > "$TMP/b"
printf '#!/bin/sh\necho "broken: $*" >&2; exit 3\n' > "$TMP/bad"
chmod +x "$TMP/a" "$TMP/b" "$TMP/bad"
AB=$ROOT/bench/ab.sh

"$AB" -n 3 -np 0 "$TMP/a" "$TMP/b" -- gen --scale 10 > "$TMP/wall" 2>&1
check "wall time: exit status 0" test $? -eq 0
check "the command is named" grep -q '^# A/B: gen --scale 10; 3 rounds' "$TMP/wall"
check "one line per round, order alternating" grep -q '^round 2 (B A): A ' "$TMP/wall"
check "three rounds" test "$(grep -c '^round ' "$TMP/wall")" -eq 3
check "medians with ranges" grep -qE '^A median [0-9.]+ \(range [0-9.]+-[0-9.]+\)$' "$TMP/wall"
check "B is slower: per-round B/A median above 1" \
    awk '/^B\/A per round/ { exit !($5 > 1) }' "$TMP/wall"

"$AB" -n 4 -np 0 -t 2 --metric 'in ([0-9.]+) s' "$TMP/a" "$TMP/b" gen > "$TMP/metric" 2>&1
check "metric: each round shows both figures" test "$(grep -c 'A 1.5  B 3  B/A 2.000' "$TMP/metric")" -eq 4
check "metric: B/A of the medians is 2" grep -q '^B/A of the medians 2.000$' "$TMP/metric"
check "metric: the range is the figure's" grep -q '^B median 3 (range 3-3)$' "$TMP/metric"

"$AB" -n 2 -np 0 "$TMP/a" "$TMP/bad" -- x > "$TMP/fail" 2>&1
check "a failing side: non-zero exit" test $? -ne 0
check "a failing side: its output shown" grep -q 'broken: x' "$TMP/fail"
check "a failing side: no summary" absent '^A median' "$TMP/fail"
"$AB" -n 2 -np 0 --metric 'nothing ([0-9]+)' "$TMP/a" "$TMP/b" x > "$TMP/nomatch" 2>&1
check "a metric no line matches: non-zero exit" test $? -ne 0
check "a metric no line matches: said so" grep -q "no line of .* matches" "$TMP/nomatch"
finish
