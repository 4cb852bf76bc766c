#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# run-placed.sh - `g500 run --placement components`: the components and the
# placement computed inside kernel 1 at 1, 2 and 4 ranks; 64 keys of BFS
# and SSSP validate (exit 0), the block is official, kernel 1's parts
# (components, placement, build, search structures) are each positive, add
# up to construction_time in the JSON and have a progress line each; a
# cyclic run has no components or placement part; no --topology is a
# usage error; a run from a cached placement file prints
# strict_construction_time (construction + the recorded stage times) right
# after the block and is labelled. Prints "N passed, N failed".
. "$(dirname "$0")/cli-env.bash"
export OMP_NUM_THREADS=1
ok() { echo "PASS $1"; pass=$((pass + 1)); }
ko() { echo "FAIL $1"; fail=$((fail + 1)); }
run() { timeout -k 5 300 scripts/mpi-launch -n "$@"; }
w=$(mktemp -d /tmp/g500-run-placed.XXXXXX)
trap 'rm -rf "$w"' EXIT
TOPO=configs/fat-tree-2x2.conf

run 1 "$G500" gen -q --scale 11 -o "$w/e.h5" >"$w/log" 2>&1 || { cat "$w/log"; echo "0 passed, 1 failed"; exit 1; }
parts() { # $1 = JSON, $2 = 1 if components and placement must be positive
python3 - "$1" "$2" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
p = r["construction_parts"]
total = p["components"] + p["placement"] + p["build"] + p["search_structures"]
assert abs(total - r["construction_time"]) <= 1e-9 * max(1.0, total), (total, r["construction_time"])
assert p["build"] > 0 and p["search_structures"] > 0, p
if sys.argv[2] == "1":
    assert p["components"] > 0 and p["placement"] > 0, p
    assert r["placement_in_process"] is True and r["official"] is True, r["not_official_reasons"]
    assert len(r["provenance"]["inputs"]["topology"]["topology_id"]) == 16, r["provenance"]["inputs"]
else:
    assert p["components"] == 0 and p["placement"] == 0, p
assert r["bfs"]["validate_time"][0] >= 0 and r["sssp"]["validate_time"][63] >= 0
PY
}
for np in 1 2 4; do
    if run $np "$G500" run "$w/e.h5" --placement components --topology $TOPO --ranks-per-node 1 \
        --json "$w/r$np.json" >"$w/o$np" 2>"$w/e$np"; then
        ok "placed run at $np ranks: 64 BFS and SSSP keys validate"
    else
        ko "placed run at $np ranks (exit $?): $(tail -3 "$w/e$np")"; continue
    fi
    grep -q "^NBFS: *64$" "$w/o$np" && grep -q "^official result" "$w/o$np" &&
        ok "$np ranks: official block of 64 keys" || ko "$np ranks: block $(tail -5 "$w/o$np")"
    parts "$w/r$np.json" 1 2>"$w/py" && ok "$np ranks: the parts add up to construction_time" ||
        ko "$np ranks: parts $(cat "$w/py")"
    for part in components placement build; do
        grep -q "kernel 1: $part [0-9.]* s" "$w/e$np" || { ko "$np ranks: no progress line for $part"; continue 2; }
    done
    ok "$np ranks: a progress line per part"
done
if run 2 "$G500" run "$w/e.h5" --roots 64 --json "$w/cy.json" >"$w/o" 2>"$w/e"; then
    parts "$w/cy.json" 0 2>"$w/py" && ok "cyclic run: no components or placement part, parts add up" ||
        ko "cyclic parts: $(cat "$w/py")"
else ko "cyclic run: $(tail -3 "$w/e")"; fi
# A cached placement: every stage's file records its wall time and ranks;
# the run prints the strict figure right after the block, labelled.
has_stage() { h5dump -H "$1" | grep -q "ATTRIBUTE \"$2elapsed_seconds\"" && h5dump -H "$1" | grep -q "ATTRIBUTE \"$2ranks\""; }
if run 2 "$G500" components -q "$w/e.h5" -o "$w/c.h5" >"$w/log" 2>&1 &&
   run 2 "$G500" partition -q "$w/e.h5" "$w/c.h5" --topology $TOPO --ranks-per-node 1 -o "$w/p.h5" >>"$w/log" 2>&1; then
    has_stage "$w/e.h5" "" && has_stage "$w/c.h5" "" && has_stage "$w/p.h5" "" && has_stage "$w/p.h5" components_ &&
        ok "edges, components and placement files record elapsed_seconds and ranks" || ko "stage attributes"
    if run 2 "$G500" run "$w/e.h5" --roots 4 --placement "$w/p.h5" --json "$w/rp.json" >"$w/o" 2>"$w/e"; then
        after=$(grep -A1 "^sssp stddev_validate:" "$w/o" | tail -1)
        [[ "$after" =~ ^strict_construction_time:\ [0-9.e+-]+$ ]] && grep -q "^cached placement: " "$w/o" &&
            grep -q "not an official result.*cached file" "$w/o" &&
            ok "cached placement: strict_construction_time right after the block, labelled" || ko "cached placement output: $(tail -8 "$w/o")"
        python3 - "$w/rp.json" <<'PY' 2>"$w/py" && ok "cached placement JSON: strict = construction + recorded stages" || ko "strict JSON: $(cat "$w/py")"
import json, sys
r = json.load(open(sys.argv[1]))
s = r["placement_stages"]
assert s["components_ranks"] == 2 and s["partition_ranks"] == 2, s
assert s["components_elapsed_seconds"] > 0 and s["partition_elapsed_seconds"] > 0, s
want = r["construction_time"] + s["components_elapsed_seconds"] + s["partition_elapsed_seconds"]
assert abs(r["strict_construction_time"] - want) <= 1e-9 * want, (r["strict_construction_time"], want)
assert r["official"] is False and r["placement_cached"] is True
i = r["provenance"]["inputs"]
assert i["placement"]["edges_content_id"] == i["edges"]["content_id"] and len(i["placement"]["topology_id"]) == 16, i
PY
    else ko "run on the cached placement: $(tail -3 "$w/e")"; fi
else cat "$w/log"; ko "components and partition for the cached placement"; fi
if run 1 "$G500" run "$w/e.h5" --placement components >"$w/o" 2>"$w/e"; then ko "components without --topology accepted"
else grep -q "needs --topology" "$w/e" && ok "components without --topology: a usage error" || ko "message: $(cat "$w/e")"; fi
echo "$pass passed, $fail failed"
[ $fail -eq 0 ]
