#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# json-escape.sh - every command with JSON output writes JSON that
# `python3 -m json.tool` accepts when the file names hold a double quote,
# a backslash and a newline: stats --json on an edges, components and
# placement file, components --json, partition --json, and run --json
# (whose JSON names its inputs). --json means the same in every command:
# PATH gets the JSON (the table still printed), "-" puts it on standard
# output in place of the table. Prints "N passed, N failed".
. "$(dirname "$0")/cli-env.bash"
export OMP_NUM_THREADS=1
ok() { echo "PASS $1"; pass=$((pass + 1)); }
ko() { echo "FAIL $1"; fail=$((fail + 1)); }
run() { timeout -k 5 300 scripts/mpi-launch -n "$@"; }
w=$(mktemp -d /tmp/g500-json-escape.XXXXXX)
trap 'rm -rf "$w"' EXIT
odd="$w/we\"i\\rd
name"
parses() { python3 -m json.tool "$1" >/dev/null 2>"$w/pyerr"; }
check() { # $1 = what, $2 = file with the JSON
    if parses "$2" && grep -q 'we\\"i\\\\rd\\nname' "$2"; then ok "$1: valid JSON naming the file"
    else ko "$1: $(head -c 300 "$2") $(cat "$w/pyerr")"; fi
}

if ! run 1 "$G500" gen -q --scale 9 -o "$odd.e.h5" >"$w/log" 2>&1; then
    cat "$w/log"; ko "gen with an odd name"; echo "$pass passed, $fail failed"; exit 1
fi
run 1 "$G500" stats --json - "$odd.e.h5" >"$w/s1" 2>"$w/err" && check "stats --json (edges)" "$w/s1" || ko "stats edges: $(cat "$w/err")"
run 2 "$G500" components --json - "$odd.e.h5" -o "$odd.c.h5" >"$w/s2" 2>"$w/err" && check "components --json" "$w/s2" || ko "components: $(cat "$w/err")"
run 1 "$G500" stats --json - "$odd.c.h5" >"$w/s3" 2>"$w/err" && check "stats --json (components)" "$w/s3" || ko "stats components: $(cat "$w/err")"
if run 2 "$G500" partition -q --json - "$odd.e.h5" "$odd.c.h5" --topology configs/fat-tree-2x2.conf \
    --ranks-per-node 1 -o "$odd.p.h5" >"$w/s4" 2>"$w/err"; then
    parses "$w/s4" && ok "partition --json: valid JSON" || ko "partition --json: $(cat "$w/s4")"
else ko "partition: $(cat "$w/err")"; fi
run 1 "$G500" stats --json - "$odd.p.h5" >"$w/s5" 2>"$w/err" && check "stats --json (placement)" "$w/s5" || ko "stats placement: $(cat "$w/err")"
if run 2 "$G500" run "$odd.e.h5" --roots 2 --placement "$odd.p.h5" --json "$odd.r.json" >"$w/o" 2>"$w/err"; then
    check "run --json" "$odd.r.json"
else ko "run: $(tail -3 "$w/err")"; fi

# --json PATH: the same JSON as "-", written to the file, the table still on stdout
run 1 "$G500" stats --json "$w/s3.json" "$odd.c.h5" >"$w/t3" 2>"$w/err" && cmp -s "$w/s3.json" "$w/s3" &&
    grep -q "giant" "$w/t3" && ! grep -q '^{' "$w/t3" && ok "stats --json FILE: the JSON of -, the table on stdout" ||
    ko "stats --json FILE: $(cat "$w/err")"
run 2 "$G500" components -q --json "$w/c.json" "$odd.e.h5" -o "$odd.c2.h5" >"$w/t2" 2>"$w/err" && parses "$w/c.json" &&
    [ ! -s "$w/t2" ] && ok "components -q --json FILE: valid JSON, nothing on stdout" ||
    ko "components --json FILE: $(cat "$w/err")"
if run 2 "$G500" partition -q -fj "$w/p.json" "$odd.e.h5" "$odd.c.h5" --topology configs/fat-tree-2x2.conf \
    --ranks-per-node 1 -o "$odd.p.h5" >"$w/t4" 2>"$w/err"; then
    cmp -s "$w/p.json" "$w/s4" && grep -q "placement quality" "$w/t4" &&
        ok "partition -j FILE: the JSON of -, the table on stdout" || ko "partition -j FILE: $(cat "$w/t4")"
else ko "partition -j FILE: $(cat "$w/err")"; fi
run 1 "$G500" run "$odd.e.h5" --roots 2 --skip-sssp --json - >"$w/r" 2>"$w/err" && parses "$w/r" &&
    grep -q '"bfs"\|"nroots"' "$w/r" && ok "run --json -: the JSON alone on stdout" ||
    ko "run --json -: $(head -c 300 "$w/r") $(tail -2 "$w/err")"
echo "$pass passed, $fail failed"
[ $fail -eq 0 ]
