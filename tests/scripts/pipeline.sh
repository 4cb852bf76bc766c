#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# pipeline.sh - `make pipeline` end to end at a tiny SCALE: every stage's file
# exists, both kernel runs validated, the report and its plots were written;
# a second run rebuilds nothing (and says why if it does); files stamped
# with one and the same time are up to date, one second newer edges.h5
# reruns what was made from it (so the no-stage check can fail); `make
# kernels` reruns only the kernels; a new topology rebuilds only the
# placement and the runs.
. "$(dirname "$0")/pipeline-lib.bash"

RUN=$TMP/run
VARS=(SCALE=10 EDGEFACTOR=16 SEED=3 NP=4 RANKS_PER_NODE=1 ROOTS=8 REPEATS=2 RUN=$RUN TOPO=configs/fat-tree-4x4.conf)
P=fat-tree-4x4-np4-rpn1
STAGE_FILES=("$RUN/edges.h5" "$RUN/components.h5" "$RUN/topo-$P.txt" "$RUN/placement-$P.h5")
RUN_FILES=("$RUN/run-components-$P.json" "$RUN/run-components-$P.txt"
           "$RUN/run-cyclic-$P.json" "$RUN/run-cyclic-$P.txt"
           "$RUN/run-components-$P.r2.json" "$RUN/run-components-$P.r2.txt"
           "$RUN/run-cyclic-$P.r2.json" "$RUN/run-cyclic-$P.r2.txt")
KEY_FILES=("$RUN/run-components-$P.key" "$RUN/run-cyclic-$P.key")
REPORT=$RUN/report/index.md
ALL=("${STAGE_FILES[@]}" "${RUN_FILES[@]}" "${KEY_FILES[@]}" "$REPORT")

check "make pipeline succeeds" pmake pipeline "${VARS[@]}"
for f in "${ALL[@]}"; do check "$(basename "$f") exists" test -s "$f"; done
for s in components cyclic; do
    check "$s run: Graph500 block printed" grep -q '^bfs  harmonic_mean_TEPS: *!' "$RUN/run-$s-$P.txt"
    check "$s run: SSSP block printed" grep -q '^sssp harmonic_mean_TEPS: *!' "$RUN/run-$s-$P.txt"
    check "$s run: no invalid-run line" absent 'No results printed for invalid run' "$RUN/run-$s-$P.txt"
    check "$s run: JSON says validated" grep -Eq '"validated": *(true|1)' "$RUN/run-$s-$P.json"
    check "$s run: report row says validated" grep -Eq "^\| $s-$P \|.*\| yes \| (yes|no) \| [0-9-]+ [0-9:]+ \|$" "$REPORT"
done
for png in components teps-bfs teps-sssp teps-placements heatmap-components-$P heatmap-cyclic-$P hops bfs-levels; do
    check "report plot $png.png drawn" test -s "$RUN/report/$png.png"
    check "index.md links $png.png" grep -q "($png.png)" "$REPORT"
done
check "report has the placement table" grep -q "^| placement-$P.h5 | placement |" "$REPORT"
check "make pipeline printed the Graph500 block" grep -q '^bfs  harmonic_mean_TEPS' "$LOG"
check "make pipeline printed the placement table" grep -q '^| placement-.*| cyclic |' "$LOG"
check "make pipeline compared the placements over 2 runs each" grep -q "^| components-$P | 2 | " "$LOG"
check "make pipeline said where the files went" grep -q "Report: $REPORT" "$LOG"
check "no temporary file left" absent '\.tmp\.' <(ls -a "$RUN")

# Cached rerun: nothing at all is rebuilt. Make says why it would remake
# anything (--debug=b), and a failure prints that with the time stamps. A
# stage is a command line Make echoes ("... bin/g500 run ..."), not the
# provenance line "command_line: g500 run ..." of a printed block.
echo "make[1]: '/tmp/g500-pipeline-test-E1x2/run/edges.h5' is up to date." > "$TMP/e.log"
check "the stage check is not fooled by '-E' in the log (a directory g500-pipeline-test-E...)" \
    absent -E '^[^:]*g500 (gen|components|partition|run) ' "$TMP/e.log"
before=$(mtimes "${ALL[@]}")
: > "$LOG"
fails=$fail
check "second make pipeline succeeds" pmake --debug=b pipeline "${VARS[@]}"
check "second run rebuilt nothing (time stamps unchanged)" test "$before" = "$(mtimes "${ALL[@]}")"
check "second run ran no stage" absent -E '^[^:]*g500 (gen|components|partition|run) ' "$LOG"
[ $fail -eq $fails ] || explain_rerun "$RUN" "$before" "${ALL[@]}"
check "make -q says the files are up to date" pmake -q pipeline-files "${VARS[@]}"

# Outputs written within one time-stamp tick of their inputs (a coarse
# clock, or a file system with 1-second stamps) carry the same time: Make
# must take them as up to date, and the cache check must not remove them.
# One stamp newer than what was made from it must still be remade.
t=$(( $(date +%s) - 60 ))
touch -d "@$t" "${ALL[@]}"
: > "$LOG"
check "equal time stamps: make -q says up to date" pmake -q pipeline-files "${VARS[@]}"
check "equal time stamps: make pipeline runs no stage" pmake pipeline "${VARS[@]}"
check "equal time stamps: no stage ran, nothing removed" absent -E '^[^:]*g500 (gen|components|partition|run) |removing' "$LOG"
# And the stage check can fail: one second newer edges.h5 reruns the
# stages made from it, and the same pattern sees them.
touch -d "@$((t + 1))" "$RUN/edges.h5"
check "edges.h5 one second newer: make -q says out of date" not pmake -q pipeline-files "${VARS[@]}"
: > "$LOG"
check "edges.h5 one second newer: make pipeline succeeds" pmake pipeline "${VARS[@]}"
check "edges.h5 one second newer: the stage check sees components rerun" \
    not absent -E '^[^:]*g500 (gen|components|partition|run) ' "$LOG"
check "edges.h5 one second newer: gen did not run" absent -E 'g500 gen ' "$LOG"

# make kernels: only the two runs (and the report) are redone.
stages_before=$(mtimes "${STAGE_FILES[@]}")
runs_before=$(mtimes "${RUN_FILES[@]}")
sleep 1
check "make kernels succeeds" pmake kernels "${VARS[@]}"
check "make kernels kept edges, components, topology and placement" test "$stages_before" = "$(mtimes "${STAGE_FILES[@]}")"
for f in "${RUN_FILES[@]}" "$REPORT"; do
    check "make kernels rewrote $(basename "$f")" test "$f" -nt "$RUN/placement-$P.h5"
done

# Another topology: edges and components are reused, a placement is added.
P2=tleaf-4x4-np4-rpn1
g=$(mtimes "$RUN/edges.h5" "$RUN/components.h5")
check "make pipeline with another TOPO succeeds" pmake pipeline "${VARS[@]}" TOPO=configs/tleaf-4x4.conf
check "edges and components reused for a new topology" test "$g" = "$(mtimes "$RUN/edges.h5" "$RUN/components.h5")"
check "new placement written" test -s "$RUN/placement-$P2.h5"
check "new runs written" test -s "$RUN/run-components-$P2.json"
check "report compares both topologies" grep -q "^| placement-$P2.h5 | placement |" "$REPORT"
finish
