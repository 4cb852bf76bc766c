#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# kern-run.sh - end-to-end checks of `g500 run` on a small generated graph:
# validated runs at 1 and 2 ranks under cyclic and block, the output block's
# keys in order, the JSON written with its provenance (and the lines after
# the block, g500 --version), identical roots whatever the distribution,
# --no-validate (-1 validate lines, skipped per key, validated false and
# not official in the JSON), --spill (the keys parked in scratch files and
# validated after the searches: the same edge counts and roots, official,
# spill_bytes in the JSON, nothing left in the directory), and clean
# failures (missing file, bad option, a JSON path in a missing directory or
# onto the edges file, both before kernel 1, a --spill directory that is
# not there, before kernel 1) with a non-zero exit.
set -u
G500=${G500:-bin/g500}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMP_NUM_THREADS=1
export OMPI_MCA_mpi_yield_when_idle=1 OMPI_MCA_rmaps_base_oversubscribe=1
T=$(mktemp -d); trap 'rm -rf "$T"' EXIT
pass=0; fail=0
ok() { echo "PASS $1"; pass=$((pass + 1)); }
ko() { echo "FAIL $1"; fail=$((fail + 1)); }

$G500 gen -s 12 -o "$T/e.h5" -q || { echo "0 passed, 1 failed"; exit 1; }
keys='SCALE: edgefactor: NBFS: graph_generation: num_mpi_processes: construction_time: bfs  min_time: bfs  harmonic_mean_TEPS: sssp harmonic_mean_TEPS: sssp max_validate:'
for np in 1 2; do
    for p in cyclic block; do
        out="$T/out.$np.$p"
        if scripts/mpi-launch -n $np "$G500" run "$T/e.h5" --roots 4 --placement $p --json "$T/r.$np.$p.json" >"$out" 2>"$out.err"; then
            ok "run -np $np --placement $p validates and exits 0"
        else
            ko "run -np $np --placement $p (exit $?): $(tail -3 "$out.err")"
        fi
        prev=0; good=1
        for k in SCALE: edgefactor: NBFS: num_mpi_processes: construction_time: "bfs  min_time:" "bfs  harmonic_mean_TEPS:" "sssp harmonic_mean_TEPS:" "sssp max_validate:"; do
            line=$(grep -n -F "$k" "$out" | head -1 | cut -d: -f1)
            if [ -z "$line" ] || [ "$line" -le "$prev" ]; then good=0; echo "  key '$k' missing or out of order"; fi
            prev=${line:-$prev}
        done
        [ $good = 1 ] && ok "output block -np $np $p has the keys in order" || ko "output block -np $np $p"
        [ -s "$T/r.$np.$p.json" ] && ok "JSON written (-np $np $p)" || ko "no JSON (-np $np $p)"
        grep -q "^num_mpi_processes: *$np$" "$out" && ok "num_mpi_processes is $np" || ko "num_mpi_processes"
    done
done
python3 - "$T/r.2.block.json" <<'PY' && ok "JSON provenance: every key present with its type" || ko "JSON provenance"
import json, sys
p = json.load(open(sys.argv[1]))["provenance"]
for k in ("version", "commit", "compiler", "mpi_library", "hdf5_version", "binding", "date_utc", "command_line"):
    assert isinstance(p[k], str) and p[k], k
assert isinstance(p["hosts"], list) and p["hosts"] and all(isinstance(h, str) for h in p["hosts"])
assert p["ranks"] == 2 and isinstance(p["threads_per_rank"], int) and p["threads_per_rank"] >= 1
assert p["command_line"].startswith("g500 run ") and "--placement block" in p["command_line"]
# as typed: the edges file first, as the test gave it (getopt_long reorders argv)
assert p["command_line"].split()[2].endswith("e.h5"), p["command_line"]
assert len(p["inputs"]["edges"]["content_id"]) == 16
PY
grep -q "^mpi_library: " "$T/out.2.block" && grep -q "^command_line: g500 run" "$T/out.2.block" &&
    ok "provenance lines after the block" || ko "provenance lines"
v=$("$G500" --version)
grep -q "^g500 [0-9a-z.-]* (commit [0-9a-f]*\|unknown)" <<<"$v" && grep -q "^compiler: " <<<"$v" &&
    ok "g500 --version: version, commit, compiler" || ko "g500 --version: $v"
r1=$(grep -o '"roots"[^]]*' "$T/r.1.cyclic.json" | head -1)
r2=$(grep -o '"roots"[^]]*' "$T/r.2.block.json" | head -1)
[ -n "$r1" ] && [ "$r1" = "$r2" ] && ok "same roots at 1 rank cyclic and 2 ranks block" || ko "roots differ: '$r1' vs '$r2'"
# SCALE 16: the graph's memory, once released, holds the 4 keys of a pass
$G500 gen -s 16 -o "$T/e16.h5" -q || ko "gen -s 16"
for np in 1 2; do
    mkdir -p "$T/spill"
    scripts/mpi-launch -n $np "$G500" run "$T/e16.h5" --roots 4 --placement block --json "$T/r16.$np.json" >/dev/null 2>&1 ||
        ko "run -np $np on SCALE 16"
    if scripts/mpi-launch -n $np "$G500" run "$T/e16.h5" --roots 4 --placement block --spill "$T/spill" \
        --json "$T/s.$np.json" >"$T/s.$np.out" 2>"$T/s.$np.err"; then
        ok "run -np $np --spill validates and exits 0"
    else
        ko "run -np $np --spill (exit $?): $(tail -3 "$T/s.$np.err")"
    fi
    grep -q "Validation of SSSP 3 passed" "$T/s.$np.err" && grep -q "graph released; validating the parked keys" "$T/s.$np.err" &&
        ok "--spill -np $np: the keys validated after the searches" || ko "--spill -np $np: $(grep -i "validation" "$T/s.$np.err")"
    python3 - "$T/s.$np.json" "$T/r16.$np.json" <<'PY' && ok "--spill -np $np: same roots and edge counts as without, spill_bytes > 0, several keys per pass" || ko "--spill -np $np JSON"
import json, sys
a, b = (json.load(open(f)) for f in sys.argv[1:])
assert a["roots"] == b["roots"]
for k in ("bfs", "sssp"):
    assert a[k]["nedge"] == b[k]["nedge"], k
    assert all(t > 0 for t in a[k]["validate_time"]), k
assert a["validate_batch"]["spill_bytes"] > 0 and b["validate_batch"]["spill_bytes"] == 0
# the graph's memory, released, holds several keys per pass (one without --spill)
assert a["validate_batch"]["bfs"] >= 2 and a["validate_batch"]["sssp"] >= 1, a["validate_batch"]
PY
    [ -z "$(ls -A "$T/spill")" ] && ok "--spill -np $np: nothing left in the directory" || ko "--spill left $(ls -A "$T/spill")"
done
if scripts/mpi-launch -n 2 "$G500" run "$T/e.h5" --roots 2 --spill "$T/nodir" >"$T/o" 2>"$T/e"; then ko "--spill into a missing directory accepted"
else grep -q "$T/nodir" "$T/e" && ! grep -q "graph built" "$T/e" &&
    ok "--spill into a missing directory: refused before kernel 1, naming it" || ko "--spill missing directory: $(cat "$T/e")"; fi
if scripts/mpi-launch -n 2 "$G500" run "$T/none.h5" >"$T/o" 2>"$T/e"; then ko "missing file accepted"
else grep -q "none.h5" "$T/e" && ok "missing file: non-zero exit naming the file" || ko "missing file message: $(cat "$T/e")"; fi
if "$G500" run "$T/e.h5" --roots 99 >"$T/o" 2>"$T/e"; then ko "--roots 99 accepted"
else grep -q "roots" "$T/e" && ok "--roots 99 refused" || ko "--roots message"; fi
if scripts/mpi-launch -n 2 "$G500" run "$T/e.h5" --roots 2 --json "$T/nodir/r.json" >"$T/o" 2>"$T/e"; then ko "--json into a missing directory accepted"
else grep -q "nodir/r.json: cannot create: directory .*nodir does not exist" "$T/e" && ! grep -q "constructing the graph" "$T/e" &&
    ok "--json into a missing directory: refused before kernel 1, naming it" || ko "--json missing directory: $(cat "$T/e")"; fi
if scripts/mpi-launch -n 1 "$G500" run "$T/e.h5" --roots 2 --json "$T/e.h5" >"$T/o" 2>"$T/e"; then ko "--json onto the edges file accepted"
else grep -q "e.h5: is the input file" "$T/e" && h5dump -H "$T/e.h5" >/dev/null 2>&1 && ok "--json onto the edges file refused, the file intact" ||
    ko "--json onto the input: $(cat "$T/e")"; fi
scripts/mpi-launch -n 1 "$G500" run "$T/e.h5" --roots 2 --no-validate --skip-sssp --json "$T/nv.json" >"$T/o" 2>"$T/e"
grep -q "not an official result.*validation skipped" "$T/o" && ! grep -q "^sssp" "$T/o" && ok "--no-validate says so; --skip-sssp prints no sssp lines" || ko "--no-validate/--skip-sssp output"
[ "$(grep -c '^bfs  [a-z]*_validate: *-1$' "$T/o")" = 6 ] && grep -q '^bfs  stddev_validate: *0$' "$T/o" &&
    ok "--no-validate: validate lines -1 (stddev 0), as the reference prints" || ko "--no-validate validate lines: $(grep validate "$T/o")"
grep -q "Validation of BFS 1 skipped" "$T/e" && ok "--no-validate: per-key lines say skipped" || ko "per-key skipped lines"
python3 - "$T/nv.json" <<'PY' && ok "--no-validate JSON: validated false, official false with reasons" || ko "--no-validate JSON"
import json, sys
r = json.load(open(sys.argv[1]))
assert r["validated"] is False and r["official"] is False
assert any("validation skipped" in x for x in r["not_official_reasons"]), r["not_official_reasons"]
assert any("SSSP" in x for x in r["not_official_reasons"]), r["not_official_reasons"]
PY
echo "$pass passed, $fail failed"
[ $fail -eq 0 ]
