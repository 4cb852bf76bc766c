#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# pipeline-bench.sh - bench/bench-all.sh, behind `make bench`: every bench
# target runs, one failing does not stop the others, the stage tables are
# gathered under one header with date and commit, an old table is marked,
# the wall-time chart is drawn, and the exit status reports the failure.
# The bench targets are stand-ins (a stub make), so this takes a second.
. "$(dirname "$0")/pipeline-lib.bash"

mkdir -p "$TMP/w/results/bench"
cat > "$TMP/fakemake" <<'STUB'
#!/usr/bin/env bash
# stand-in for make: bench-X writes results/bench/X.md; bench-bad fails
t=${!#}
[ "$t" = bench-bad ] && { echo "bench-bad: broken" >&2; exit 2; }
[ "$t" = bench-cc ] && { printf 'SCALE 20 cc 0.5 s\n' > results/bench-cc-1.txt; exit 0; }
printf '# %s\n\n| SCALE | time (s) |\n| --- | --- |\n| 20 | 1.5 |\n' "${t#bench-}" > "results/bench/${t#bench-}.md"
STUB
chmod +x "$TMP/fakemake"
printf '# old\n\nan old table\n' > "$TMP/w/results/bench/old.md"
touch -d '2020-01-01' "$TMP/w/results/bench/old.md"
cd "$TMP/w"
MAKE_CMD=$TMP/fakemake "$ROOT/bench/bench-all.sh" bench-gen bench-bad bench-cc > "$TMP/out" 2>&1
rc=$?
idx=results/bench/index.md
check "exit status is non-zero when a target failed" test $rc -ne 0
check "index.md written" test -s $idx
check "index.md has the date" grep -q '^Date: [0-9]\{4\}-' $idx
check "index.md has the commit" grep -q 'Commit: `' $idx
check "the failing target is in the table" grep -q '^| bench-bad | FAILED |' $idx
check "the targets after it still ran" grep -q '^| bench-cc | ok |' $idx
check "the gen table is included, headings demoted" grep -q "^### gen" $idx
check "a failing target's console output is shown" grep -q "bench-bad: broken" $idx
check "the gen table's rows are included" grep -q '^| 20 | 1.5 |' $idx
check "a target's results/bench-x*.txt is included" grep -q '^SCALE 20 cc 0.5 s' $idx
check "and named" grep -q 'From `results/bench-cc-1.txt`' $idx
check "a table this run did not rewrite is marked" grep -q 'Not rewritten by this run: from 2020-01-01' $idx
check "the wall-time chart is drawn" test -s results/bench/bench-times.png
check "index.md links the chart" grep -q '(bench-times.png)' $idx
check "no temporary left" absent '\.tmp\.' <(ls results/bench)

# Targets Make ran before the script (a rule's `bench: bench-x`).
MAKE_CMD=$TMP/fakemake "$ROOT/bench/bench-all.sh" --already "bench-first" bench-gen > "$TMP/out" 2>&1
check "all ok: exit status 0" test $? -eq 0
check "a target run before is listed without a time" grep -q '^| bench-first | ok (ran first.* | - |' $idx
finish
