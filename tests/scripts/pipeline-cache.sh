#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# pipeline-cache.sh - the pipeline's cache is keyed on every run parameter
# and on the binary: `make pipeline ROOTS=8` then `make pipeline` reruns the
# kernels (NBFS: 64) and not gen, components or partition; a reused run is
# said to be reused with its date; a touched binary and other RUN_FLAGS
# rerun the kernels; the default comparison alternates 3 runs of each
# placement, prints medians with ranges and, on fewer than 4 cores, says
# the 4 ranks are oversubscribed; a smaller REPEATS drops the extra runs; a
# topology edited under the same name with an older time stamp redoes the
# cached runs, the cyclic one included.
. "$(dirname "$0")/pipeline-lib.bash"

RUN=$TMP/run
# A copy of the binary, so that touching it leaves the repository's alone.
mkdir -p "$TMP/bin" && cp -p "$ROOT/bin/g500" "$TMP/bin/g500"
BIN=$TMP/bin/g500
VARS=(SCALE=9 EDGEFACTOR=8 SEED=2 NP=4 RANKS_PER_NODE=1 RUN=$RUN TOPO=configs/fat-tree-2x2.conf G500=$BIN)
P=fat-tree-2x2-np4-rpn1
COMP=$RUN/run-components-$P
STAGES=("$RUN/edges.h5" "$RUN/components.h5" "$RUN/placement-$P.h5")
nbfs() { sed -n 's/^NBFS: *//p' "$1.txt"; }
newer() { [ "$(stat -c %.9Y "$1")" != "$2" ]; }

check "make pipeline ROOTS=8 REPEATS=1" pmake pipeline "${VARS[@]}" ROOTS=8 REPEATS=1
check "that run searched 8 keys" test "$(nbfs "$COMP")" = 8
stages=$(mtimes "${STAGES[@]}")
: > "$LOG"
check "make pipeline REPEATS=1 (ROOTS back to 64)" pmake pipeline "${VARS[@]}" REPEATS=1
check "the kernels reran with 64 keys" test "$(nbfs "$COMP")" = 64
check "the summary printed NBFS: 64" grep -q '^NBFS: *64$' "$LOG"
check "gen, components and partition were reused" test "$stages" = "$(mtimes "${STAGES[@]}")"
check "no stage but the runs ran" absent -E '^[^:]*g500 (gen|components|partition) ' "$LOG"
check "the new runs are not called reused" absent '^reused:' "$LOG"

# The rest with 4 keys (quicker): another ROOTS reruns, the same does not.
check "make pipeline ROOTS=4" pmake pipeline "${VARS[@]}" REPEATS=1 ROOTS=4
check "that run searched 4 keys" test "$(nbfs "$COMP")" = 4
VARS+=(ROOTS=4)
t=$(stat -c %.9Y "$COMP.json")
: > "$LOG"
check "make pipeline again, nothing changed" pmake pipeline "${VARS[@]}" REPEATS=1
check "the run was reused" test "$t" = "$(stat -c %.9Y "$COMP.json")"
check "the summary says reused, with the date it was made" \
    grep -Eq "^reused: run-components-$P.json, made [0-9]{4}-[0-9]{2}-[0-9]{2} [0-9:]{8} UTC" "$LOG"

sleep 1; touch "$BIN"
check "make pipeline after touching the binary" pmake pipeline "${VARS[@]}" REPEATS=1
check "the touched binary reran the kernels" newer "$COMP.json" "$t"
check "and not the stages before them" test "$stages" = "$(mtimes "${STAGES[@]}")"

t=$(stat -c %.9Y "$COMP.json")
check "make pipeline RUN_FLAGS=--skip-sssp" pmake pipeline "${VARS[@]}" REPEATS=1 RUN_FLAGS=--skip-sssp
check "other flags reran the kernels" newer "$COMP.json" "$t"
check "without SSSP" absent '^sssp harmonic_mean_TEPS' "$COMP.txt"
check "make pipeline without the flag" pmake pipeline "${VARS[@]}" REPEATS=1
check "SSSP is back" grep -q '^sssp harmonic_mean_TEPS' "$COMP.txt"
t=$(stat -c %.9Y "$COMP.json")
check "make pipeline THREADS=2" pmake pipeline "${VARS[@]}" REPEATS=1 THREADS=2
check "another thread count reran the kernels" newer "$COMP.json" "$t"

# The default comparison: 3 alternated runs of each placement.
: > "$LOG"
check "make pipeline with the default REPEATS" pmake pipeline "${VARS[@]}"
order=$(ls -1 --time=ctime -tr --full-time "$COMP.json" "$RUN/run-cyclic-$P.json" "$COMP.r2.json" \
        "$RUN/run-cyclic-$P.r2.json" "$COMP.r3.json" "$RUN/run-cyclic-$P.r3.json" 2>/dev/null |
        sed 's/.*run-//' | tr '\n' ' ')
want="components-$P.json cyclic-$P.json components-$P.r2.json cyclic-$P.r2.json components-$P.r3.json cyclic-$P.r3.json "
check "the runs alternated (components, cyclic, components, ...)" test "$order" = "$want"
check "medians and ranges of 3 runs per placement" \
    grep -Eq "^\| components-$P \| 3 \| [0-9.e+]+ \| [0-9.e+]+ - [0-9.e+]+ \|" "$LOG"
check "the cyclic baseline too" grep -Eq "^\| cyclic-$P \| 3 \| [0-9.e+]+ \| [0-9.e+]+ - [0-9.e+]+ \|" "$LOG"
check "a verdict for BFS" grep -Eq '^- BFS: .*(do not overlap|no difference can be stated)' "$LOG"
if [ "$(nproc)" -lt 4 ]; then
    check "4 ranks on $(nproc) cores: the summary says oversubscribed" grep -q '^OVERSUBSCRIBED: .*not representative' "$LOG"
    check "and so does the report" grep -q 'OVERSUBSCRIBED: .*not representative' "$RUN/report/index.md"
else
    check "4 ranks on $(nproc) cores: not oversubscribed" absent 'OVERSUBSCRIBED' "$LOG"
fi
check "REPEATS=1 drops the extra runs" pmake pipeline "${VARS[@]}" REPEATS=1
check "no .r2 or .r3 left" absent '\.r[23]\.' <(ls "$RUN")
check "and the report no longer shows them" absent '\.r[23] |' "$RUN/report/index.md"

# A topology edited under the same name with an older time stamp (n2 moved
# under leaf0: other hops): the cached runs, the cyclic one included (its
# hop-weighted bytes come from the topology), are redone, not kept.
T=$TMP/topo/fat-tree-2x2.conf
mkdir -p "$TMP/topo" && cp -p configs/fat-tree-2x2.conf "$T"
VARS=("${VARS[@]/#TOPO=*/TOPO=$T}")
check "make pipeline with a copy of the topology" pmake pipeline "${VARS[@]}" REPEATS=1
CYC=$RUN/run-cyclic-$P
hop() { grep -o '"total_hop_bytes": *[0-9]*' "$1.json" | tr -cd '0-9'; }
tc=$(stat -c %.9Y "$COMP.json") ty=$(stat -c %.9Y "$CYC.json") hy=$(hop "$CYC")
sed -i 's/^SwitchName=leaf0 Nodes=n\[0-1\]/SwitchName=leaf0 Nodes=n[0-2]/; s/^SwitchName=leaf1 Nodes=n\[2-3\]/SwitchName=leaf1 Nodes=n3/' "$T"
touch -d 2020-01-01 "$T"
: > "$LOG"
check "make pipeline after the edit" pmake pipeline "${VARS[@]}" REPEATS=1
check "the check names the cyclic run made with the old topology" \
    grep -q "removing $CYC.json: made with another topology than $T" "$LOG"
check "the cyclic run was redone" newer "$CYC.json" "$ty"
check "its hop-weighted bytes follow the new topology" test "$(hop "$CYC")" != "$hy"
check "the components-aware run was redone" newer "$COMP.json" "$tc"
finish
