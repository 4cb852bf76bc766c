#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# bench-cc-smoke.sh - `make bench-cc`'s programs on a tiny graph, so that a
# change that breaks them shows in `make test` (the bench itself is never
# run there): bench_cc at 1 rank x 2 threads prints plain and forest with
# the paired ratio (a positive median inside its range) and the same
# components count as the plain union-find's sets; at 2 ranks forest has
# no paired ratio (plain runs at one rank only); bench/bench-cc.sh at
# SCALE 12, one rep, prints the paired column and the three whole-stage
# lines (1 x 1, 1 x 2, 2 x 1), each with its compute/read, with COLD=1
# too; bench/bench-cc-merge.sh prints a line per merge.
. "$(dirname "${BASH_SOURCE[0]}")/cli-env.bash"
BENCH_CC=${BUILD:-build}/bench/bench_cc
T=$(mktemp -d); trap 'rm -rf "$T"' EXIT
ok() { echo "PASS $1"; pass=$((pass + 1)); }
ko() { echo "FAIL $1"; fail=$((fail + 1)); }
field() { sed -nE "s/.*$1=([^ ]+).*/\1/p" <<<"$2" | head -n 1; }

if [ ! -x "$BENCH_CC" ]; then
    ko "$BENCH_CC not built (make tests builds it)"
    echo "$pass passed, $fail failed"
    exit 1
fi
export OMP_WAIT_POLICY=passive
out=$(OMP_NUM_THREADS=2 scripts/mpi-launch -n 1 "$BENCH_CC" 12 2 3 2>&1)
plain=$(grep '^plain' <<<"$out"); forest=$(grep '^forest' <<<"$out")
pr=$(field paired "$forest")
lo=$(sed -nE 's/.*range ([0-9.]+)-([0-9.]+).*/\1/p' <<<"$forest")
hi=$(sed -nE 's/.*range ([0-9.]+)-([0-9.]+).*/\2/p' <<<"$forest")
if [ -n "$plain" ] && [ -n "$pr" ] && awk -v p="$pr" -v l="$lo" -v h="$hi" 'BEGIN {exit !(p > 0 && l <= p && p <= h)}'; then
    ok "bench_cc 1x2 prints plain and forest with a paired ratio ($pr, range $lo-$hi)"
else
    ko "bench_cc 1x2: $out"
fi
stage=$(grep '^stage' <<<"$out")
if [ "$(field sets "$plain")" = "$(field components "$stage")" ] && [ -n "$(field sets "$plain")" ]; then
    ok "the plain union-find's sets equal the stage's components ($(field sets "$plain"))"
else
    ko "sets '$(field sets "$plain")' against components '$(field components "$stage")'"
fi
out2=$(OMP_NUM_THREADS=1 scripts/mpi-launch -n 2 "$BENCH_CC" 12 1 3 2>&1)
f2=$(grep '^forest' <<<"$out2")
if [ -n "$f2" ] && ! grep -q paired= <<<"$f2" && ! grep -q '^plain' <<<"$out2"; then
    ok "bench_cc at 2 ranks: forest without a paired ratio, no plain line"
else
    ko "bench_cc 2x1: $out2"
fi
for cold in 0 1; do
    sh_out=$(COLD=$cold SCALES=12 REPS=1 TMPDIR="$T" BENCH_CC="$BENCH_CC" G500="$G500" bash bench/bench-cc.sh 2>&1)
    nwhole=$(grep -c '^SCALE 12 whole' <<<"$sh_out")
    if grep -q '^SCALE 12 forest ranks=1 threads=2 .*paired [0-9.]*x (range' <<<"$sh_out" && [ "$nwhole" = 3 ] &&
        { [ "$cold" = 0 ] || head -1 <<<"$sh_out" | grep -q 'COLD=1'; }; then
        ok "bench-cc.sh COLD=$cold: the paired column and three whole-stage lines"
    else
        ko "bench-cc.sh COLD=$cold ($nwhole whole-stage lines): $sh_out"
    fi
    w21=$(grep '^SCALE 12 whole  ranks=2 threads=1 ' <<<"$sh_out")
    w12=$(grep '^SCALE 12 whole  ranks=1 threads=2 ' <<<"$sh_out")
    if grep -q 'compute/read [-0-9.]*, peak RSS' <<<"$w21" && grep -q 'compute/read [-0-9.]*, peak RSS' <<<"$w12"; then
        ok "bench-cc.sh COLD=$cold: 2 x 1 and 1 x 2 lines with their compute/read"
    else
        ko "bench-cc.sh COLD=$cold: whole-stage lines '$w21' / '$w12'"
    fi
done
mg=$(SCALES=12 RANKS=2 REPS=1 DIR="$T/merge" BENCH_CC="$BENCH_CC" G500="$G500" bash bench/bench-cc-merge.sh 2>&1)
if grep -q '^SCALE 12 edgefactor 16 ranks=2 tree .*peak RSS per rank' <<<"$mg" &&
    grep -q '^SCALE 12 edgefactor 16 ranks=2 distributed .*merge+label' <<<"$mg"; then
    ok "bench-cc-merge.sh: a line per merge"
else
    ko "bench-cc-merge.sh: $mg"
fi
echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
