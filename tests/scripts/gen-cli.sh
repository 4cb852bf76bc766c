#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# gen-cli.sh - end-to-end checks of `bin/g500 gen`: --help lists every
# option with its default; bad parameters give one message, a non-zero exit
# on every rank and no file; the datasets are byte-identical for 1, 2 and 4
# ranks and 1 or 2 threads (compared with h5dump's binary output, which is
# independent of g500's own reader).
set -u
G500=${G500:-bin/g500}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_rmaps_base_oversubscribe=1 OMPI_MCA_hwloc_base_binding_policy=none
export OMPI_MCA_mpi_yield_when_idle=1
D=$(mktemp -d /tmp/g500-gen-cli-XXXXXX)
trap 'rm -rf "$D"' EXIT
pass=0; fail=0
ok() { pass=$((pass + 1)); echo "PASS $1"; }
bad() { fail=$((fail + 1)); echo "FAIL $1"; }
run() { timeout -k 5 120 scripts/mpi-launch -n "$@"; }

help=$($G500 gen --help 2>&1); rc=$?
missing=""
for o in "--scale S" "(default 16)" "--edgefactor K" "--seed N" "(default 1)" "-o, --output FILE" "--force" "--quiet" "--chunk-rows R" "(default 262143)"; do
    grep -qF -- "$o" <<<"$help" || missing="$missing '$o'"
done
[ $rc -eq 0 ] && [ -z "$missing" ] && ok "help lists every option with its default" || bad "help (exit $rc, missing:$missing)"

# getopt_long's forms: a value glued to its short option, bundled flags,
# options after the output; the same file as the long spelling.
if $G500 gen -s10 -e4 --seed 3 -qfo "$D/glued.h5" && $G500 gen --scale 10 --edgefactor 4 \
    --seed 3 --quiet --output "$D/long.h5" && h5dump -d /edges -b LE -o "$D/glued.bin" "$D/glued.h5" >/dev/null &&
    h5dump -d /edges -b LE -o "$D/long.bin" "$D/long.h5" >/dev/null && [ -s "$D/glued.bin" ] &&
    cmp -s "$D/glued.bin" "$D/long.bin"; then
    ok "gen -s10 -e4 -qfo FILE: the file --scale 10 --edgefactor 4 writes"
else
    bad "gen -s10 -e4 -qfo FILE"
fi

# bad_case NAME EXPECTED-WORDS ARGS...: 2 ranks, non-zero exit, the error
# printed once (rank 0 only), nothing left in $D.
bad_case() {
    local name=$1 words=$2; shift 2
    rm -rf "$D/out"; mkdir -p "$D/out"
    local before after err rc n
    before=$(ls -A "$D/out" | wc -l)
    err=$(run 2 $G500 gen "$@" 2>&1 >/dev/null); rc=$?
    n=$(grep -c 'g500 gen: error:' <<<"$err")
    after=$(ls -A "$D/out" | grep -v '^keep.h5$' | wc -l)
    if [ $rc -ne 0 ] && [ $rc -ne 124 ] && [ "$n" = 1 ] && grep -qF -- "$words" <<<"$err" && [ "$after" = 0 ]; then
        ok "$name"
    else
        bad "$name (exit $rc, $n error lines, $after files left): $err"
    fi
}
bad_case "scale 0 is refused" "SCALE 0 is outside 1..42" --scale 0 -o "$D/out/x.h5"
bad_case "scale 43 is refused" "SCALE 43 is outside 1..42" --scale 43 -o "$D/out/x.h5"
bad_case "edgefactor 0 is refused" "edgefactor 0 must be at least 1" --scale 4 --edgefactor 0 -o "$D/out/x.h5"
bad_case "a non-number is refused" "'1x' is not an integer" --scale 1x -o "$D/out/x.h5"
bad_case "an unknown option is refused" "unknown option '--scael'" --scael 4 -o "$D/out/x.h5"
bad_case "a missing output is refused" "no output file" --scale 4
bad_case "a negative seed is refused" "seed -3 must be >= 0" --scale 4 --seed -3 -o "$D/out/x.h5"
bad_case "an unwritable directory is refused" "$D/out/no/such/dir/x.h5: cannot create" --scale 4 -o "$D/out/no/such/dir/x.h5"

# An existing output: refused without --force (and untouched), replaced with it.
mkdir -p "$D/out"; echo keep > "$D/out/keep.h5"
err=$(run 2 $G500 gen --scale 4 -o "$D/out/keep.h5" 2>&1 >/dev/null); rc=$?
if [ $rc -ne 0 ] && grep -q "exists (use --force" <<<"$err" && [ "$(cat "$D/out/keep.h5")" = keep ] \
   && [ "$(ls -A "$D/out" | wc -l)" = 1 ]; then ok "an existing output is refused and untouched"
else bad "existing output (exit $rc): $err"; fi
if run 2 $G500 gen --scale 4 -q --force -o "$D/out/keep.h5" && h5ls "$D/out/keep.h5" | grep -q '^edges'; then
    ok "--force replaces an existing output"
else bad "--force"; fi

# Identity across ranks and threads. SCALE 12 with edgefactor 5 (shuffle
# cycle-walks) and small chunks, so every rank owns several chunks.
ref=""
for np in 1 2 4; do
    for t in 1 2; do
        f="$D/e-$np-$t.h5"
        out=$(OMP_NUM_THREADS=$t run $np $G500 gen --scale 12 --edgefactor 5 --seed 9 \
              --chunk-rows 3000 -o "$f" 2>/dev/null); rc=$?
        cid=$(sed -nE 's/.*content_id ([0-9a-f]+).*/\1/p' <<<"$out")
        h5dump -b LE -d /edges -o "$f.edges" "$f" >/dev/null 2>&1 && \
        h5dump -b LE -d /weights -o "$f.weights" "$f" >/dev/null 2>&1
        sum="$cid $(cat "$f.edges" "$f.weights" 2>/dev/null | md5sum | cut -d' ' -f1) $(stat -c %s "$f.edges" 2>/dev/null)"
        if [ $rc -ne 0 ] || [ -z "$cid" ]; then bad "gen at $np ranks, $t threads (exit $rc)"; continue; fi
        if [ -z "$ref" ]; then ref=$sum
            [ "$(stat -c %s "$f.edges")" = $((5 * 4096 * 8)) ] && ok "h5dump reads 5*2^12 edges of two uint32 ids" \
                || bad "h5dump size $(stat -c %s "$f.edges")"
        elif [ "$sum" = "$ref" ]; then ok "datasets at $np ranks, $t threads equal 1 rank, 1 thread"
        else bad "datasets at $np ranks, $t threads differ: $sum vs $ref"; fi
    done
done
# A different seed gives different data (the comparison above can fail).
run 1 $G500 gen --scale 12 --edgefactor 5 --seed 10 --chunk-rows 3000 -q -o "$D/s10.h5" && \
    h5dump -b LE -d /edges -o "$D/s10.edges" "$D/s10.h5" >/dev/null 2>&1
if ! cmp -s "$D/s10.edges" "$D/e-1-1.h5.edges"; then ok "another seed gives other edges"; else bad "seed ignored"; fi

echo "$pass passed, $fail failed"
[ $fail -eq 0 ]
