#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# components-cli.sh - end to end: g500 gen -> g500 components at 1 to 4
# ranks, 1 and 2 threads, both merges (the tree at edge factor 16, the
# distributed merge at edge factor 1 on 4 ranks, as the rule takes them)
# and the slab in pieces (--piece) gives identical datasets; g500 stats prints the
# table, JSON and a PNG plot; bad input (not HDF5, not an edges file, a
# damaged edges file, an existing output, the input as output, an output
# in a missing directory (the last three before any work), a components
# file from other edges) fails with one clear message on every rank and leaves no output.
set -u
G500=${G500:-bin/g500}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_mpi_yield_when_idle=1 OMPI_MCA_hwloc_base_binding_policy=none
export OMPI_MCA_rmaps_base_oversubscribe=1
T=$(mktemp -d /tmp/g500-cc-cli.XXXXXX)
trap 'rm -rf "$T"' EXIT
pass=0; fail=0
ok() { echo "PASS $1"; pass=$((pass + 1)); }
ko() { echo "FAIL $1"; fail=$((fail + 1)); }
check() { if eval "$2"; then ok "$1"; else ko "$1"; fi; }
run() { timeout -k 5 300 scripts/mpi-launch -n "$1" "${@:2}"; }

"$G500" gen -s 11 --seed 5 -o "$T/e.h5" -q || ko "gen"
"$G500" gen -s 11 --seed 6 -o "$T/e6.h5" -q || ko "gen seed 6"
"$G500" gen -s 11 --seed 5 -e 1 -o "$T/e1.h5" -q || ko "gen edge factor 1"

# Root attributes without the stage record (elapsed_seconds, ranks), which
# differ from run to run by design.
attrs() {
    h5dump -A "$1" | tail -n +2 | awk '/ATTRIBUTE "(elapsed_seconds|ranks)"/ { skip = 1; depth = 0 }
        skip { depth += gsub(/{/, "{") - gsub(/}/, "}"); if (depth <= 0) skip = 0; next } { print }'
}

# fields: edges file, ranks, threads, the merge the rule takes (checked in
# the progress log), then optionally edges per read piece (1000-edge pieces:
# 33 pieces of the 32768-edge list); the first run of each file is the
# reference
for cfg in "e 1 1 tree" "e 1 2 tree" "e 2 1 tree" "e 4 1 tree" "e 2 2 tree" "e 3 1 tree" "e 1 2 tree 1000" \
           "e 1 1 tree 1000" "e 2 2 tree 1000" "e 4 1 tree 1000" "e1 1 1 tree" "e1 2 1 tree" \
           "e1 4 1 distributed" "e1 4 2 distributed" "e1 4 1 distributed 500"; do
    set -- $cfg
    c="$T/c$1-$2x$3${5:-}.h5"
    OMP_NUM_THREADS=$3 run "$2" "$G500" components "$T/$1.h5" -o "$c" --threads "$3" --piece "${5:-0}" \
        2>"$T/err" >/dev/null || { ko "components of $1 at $2 ranks x $3 threads: $(cat "$T/err")"; continue; }
    grep -q "$4 merge" "$T/err" || ko "components of $1 at $2 ranks x $3 threads took the $4 merge: $(cat "$T/err")"
    ref="$T/c$1-1x1.h5"
    if [ "$c" != "$ref" ]; then
        same=1
        for d in /label /component_vertices /component_edges; do
            cmp -s <(h5dump -d "$d" -y "$ref" | tail -n +2) <(h5dump -d "$d" -y "$c" | tail -n +2) || same=0
        done
        cmp -s <(attrs "$ref") <(attrs "$c") || same=0
        check "identical datasets and attributes for $1 at $2 ranks x $3 threads, $4 merge${5:+, pieces of $5}" '[ $same = 1 ]'
    fi
done
cp "$T/ce-1x1.h5" "$T/c1x1.h5"
perr=$(run 4 "$G500" components "$T/e1.h5" -o "$T/cp.h5" 2>&1 >/dev/null)
plog=$(OMP_NUM_THREADS=2 run 2 "$G500" components "$T/e.h5" -o "$T/cp.h5" --force --threads 2 --piece 1000 2>&1 >/dev/null)
check "the progress log shows the pieces and what ran between the reads" \
    'grep -q "read in .* 17 pieces, HDF5 .*); linked and tallied in" <<<"$plog" && grep -q "computed in .* after the read" <<<"$plog"'
slog=$(OMP_NUM_THREADS=1 run 2 "$G500" components "$T/e.h5" -o "$T/cp.h5" --force --threads 1 --piece 1000 2>&1 >/dev/null)
check "the progress log shows the pieces taken between the reads at one thread" \
    'grep -q "read in .* 17 pieces, HDF5 .*); linked and tallied in .* hashed in .* between the reads" <<<"$slog"'
check "the progress log names the merge path taken" 'grep -q "distributed merge" <<<"$perr" && grep -q "hooking rounds" <<<"$perr"'

out=$("$G500" stats "$T/c1x1.h5" 2>&1)
check "stats table shows the giant share" 'grep -q "in the giant component.*% of non-isolated" <<<"$out"'
check "stats table shows isolated vertices and duplicates" 'grep -q "isolated (no edge but self-loops)" <<<"$out" && grep -q "duplicates" <<<"$out"'
check "stats table has the log2 histogram" 'grep -q "log2 bins" <<<"$out"'
json=$("$G500" stats "$T/c1x1.h5" --json -)
check "stats --json is one object with the counts" 'grep -q "\"isolated_vertices\": [0-9]" <<<"$json" && [ "${json:0:1}" = "{" ]'
iso_attr=$(h5dump -a /isolated_vertices "$T/c1x1.h5" | sed -nE 's/^ *\(0\): ([0-9]+)/\1/p')
check "stats --json agrees with the file attribute" 'grep -q "\"isolated_vertices\": $iso_attr," <<<"$json"'
"$G500" stats "$T/c1x1.h5" --plot "$T/sizes.png" >/dev/null 2>"$T/err"
check "stats --plot writes a PNG" '[ "$(head -c 4 "$T/sizes.png" | tail -c 3)" = PNG ]'
check "stats --edges accepts the matching edges file" '"$G500" stats "$T/c1x1.h5" --edges "$T/e.h5" | grep -q "matches edges file"'
eout=$("$G500" stats "$T/e.h5")
check "stats on an edges file shows its metadata" 'grep -q "SCALE 11" <<<"$eout" && grep -q "edge list" <<<"$eout"'

# bad input: one clear message, non-zero exit, no output left behind
expect_fail() { # name, expected message regex, command...
    local name=$1 re=$2; shift 2
    "$@" >"$T/out" 2>"$T/err"; local rc=$?
    local n; n=$(grep -c "error:" "$T/err")
    if [ $rc -ne 0 ] && grep -qE -e "$re" "$T/err" && [ "$n" = 1 ]; then ok "$name"
    else ko "$name (exit $rc, message: $(cat "$T/err"))"; fi
}
echo "not hdf5" >"$T/text.h5"
expect_fail "components refuses a non-HDF5 file" "text.h5: not an HDF5 file" \
    run 2 "$G500" components "$T/text.h5" -o "$T/x.h5"
expect_fail "components refuses a components file as input" "is a 'g500-components' file, expected 'g500-edges'" \
    run 2 "$G500" components "$T/c1x1.h5" -o "$T/x.h5"
cp "$T/e.h5" "$T/damaged.h5"
sz=$(stat -c %s "$T/damaged.h5")
printf '\x55\xaa\x55\xaa\x55\xaa\x55\xaa%.0s' $(seq 64) | dd of="$T/damaged.h5" bs=1 seek=$((sz / 2)) conv=notrunc status=none
expect_fail "components detects a damaged edges file" "damaged.h5" \
    run 2 "$G500" components "$T/damaged.h5" -o "$T/x.h5"
cp "$T/e1.h5" "$T/damaged1.h5"
sz1=$(stat -c %s "$T/damaged1.h5")
printf '\x55\xaa\x55\xaa\x55\xaa\x55\xaa%.0s' $(seq 64) | dd of="$T/damaged1.h5" bs=1 seek=$((sz1 / 2)) conv=notrunc status=none
expect_fail "components detects a damaged edges file on the distributed merge" "damaged1.h5" \
    run 4 "$G500" components "$T/damaged1.h5" -o "$T/x.h5"
expect_fail "components detects a damaged edges file read in pieces at 2 threads" "damaged.h5: reading rows .*damaged chunk" \
    env OMP_NUM_THREADS=2 timeout -k 5 300 scripts/mpi-launch -n 2 "$G500" components "$T/damaged.h5" -o "$T/x.h5" --threads 2 --piece 1000
expect_fail "components detects a damaged edges file streamed at one thread (pieces read and taken in turn)" \
    "damaged.h5: reading rows .*damaged chunk" \
    env OMP_NUM_THREADS=1 timeout -k 5 300 scripts/mpi-launch -n 1 "$G500" components "$T/damaged.h5" -o "$T/x.h5" --threads 1 --piece 1000
expect_fail "components detects a damaged edges file streamed at 4 ranks" "damaged.h5: reading rows .*damaged chunk" \
    env OMP_NUM_THREADS=1 timeout -k 5 300 scripts/mpi-launch -n 4 "$G500" components "$T/damaged.h5" -o "$T/x.h5" --threads 1 --piece 1000
expect_fail "components rejects an unknown option" "unknown option '--overlap'" \
    run 2 "$G500" components "$T/e.h5" -o "$T/x.h5" --overlap yes
check "no output or temporary file left after failures" '! ls "$T"/x.h5* >/dev/null 2>&1'
expect_fail "components refuses an existing output without --force" "exists" \
    run 2 "$G500" components "$T/e.h5" -o "$T/c1x1.h5"
check "the existing output is refused before the read, not after the work" '! grep -q "read in" "$T/err"'
cp "$T/e.h5" "$T/e-copy.h5"
expect_fail "components refuses its input as output, even with --force" "e-copy.h5: is the input file" \
    run 2 "$G500" components "$T/e-copy.h5" -o "$T/e-copy.h5" --force
check "the input given as output is left as it was" 'cmp -s "$T/e.h5" "$T/e-copy.h5"'
expect_fail "components refuses an output in a missing directory before the read" \
    "nodir/x.h5: cannot create: directory .*nodir does not exist" \
    run 2 "$G500" components "$T/e.h5" -o "$T/nodir/x.h5"
check "the missing directory is found before the read" '! grep -q "read in" "$T/err"'
expect_fail "stats --edges refuses components of other edges" "c1x1.h5 was computed from seed 5, but .*e6.h5 has seed 6" \
    run 2 "$G500" stats "$T/c1x1.h5" --edges "$T/e6.h5"
expect_fail "components has no --merge (the merge follows its rule)" "unknown option '--merge'" \
    run 2 "$G500" components "$T/e.h5" -o "$T/x.h5" --merge star
expect_fail "components rejects a missing -o" "-o COMPONENTS.h5 is required" \
    run 1 "$G500" components "$T/e.h5"

echo "$pass passed, $fail failed"
[ $fail -eq 0 ]
