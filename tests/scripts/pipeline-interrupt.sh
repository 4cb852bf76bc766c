#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# pipeline-interrupt.sh - every interruption is safe: a stage killed
# mid-write (SIGKILL, so it cannot clean up) leaves no file a later run takes
# for complete, and the next `make pipeline` redoes that stage and ends valid.
# Also: a damaged cached file (truncated, as by a full disk or a half copy)
# and a file from another graph are detected and rebuilt, not trusted.
. "$(dirname "$0")/pipeline-lib.bash"

RUN=$TMP/run
# SCALE 18 keeps the rerun short (few roots, no SSSP); gen is killed as soon
# as its temporary file exists, which is mid-write whatever the machine's
# speed (on a quiet machine gen at SCALE 18 takes well under a second).
VARS=(SCALE=18 SEED=5 NP=4 RANKS_PER_NODE=1 ROOTS=2 RUN=$RUN TOPO=configs/fat-tree-4x4.conf
      RUN_FLAGS=--skip-sssp REPEATS=1)
P=fat-tree-4x4-np4-rpn1

# Kill make, mpirun and the ranks while gen writes, as a crash would.
make -C "$ROOT" --no-print-directory "$RUN/edges.h5" "${VARS[@]}" >>"$LOG" 2>&1 &
maker=$!
for _ in $(seq 1 3000); do
    ls "$RUN" 2>/dev/null | grep -q '^edges\.h5\.tmp\.' && break
    kill -0 "$maker" 2>/dev/null || break
    sleep 0.02
done
check "gen was still running when its temporary file appeared" kill -0 "$maker"
kill_tree "$maker"
wait "$maker" 2>/dev/null
sleep 1
check "killed gen left no edges.h5" test ! -e "$RUN/edges.h5"
ls "$RUN" 2>/dev/null | sed 's/^/  left behind: /'
check "killed gen left its temporary file" bash -c "ls '$RUN' | grep -q '^edges.h5.tmp.'"

check "make pipeline after the kill succeeds" pmake pipeline "${VARS[@]}"
check "edges.h5 redone" test -s "$RUN/edges.h5"
check "the run validated" grep -Eq '"validated": *(true|1)' "$RUN/run-components-$P.json"
check "Graph500 block printed" grep -q '^bfs  harmonic_mean_TEPS: *!' "$RUN/run-components-$P.txt"
check "no temporary file left after the rerun" absent '\.tmp\.' <(ls -a "$RUN")

# A truncated components.h5 (its time stamp still newer than edges.h5, so
# Make alone would trust it) is caught by the cache check and rebuilt.
truncate -s 4096 "$RUN/components.h5"
touch "$RUN/components.h5"
: > "$LOG"
check "make pipeline with a truncated components.h5 succeeds" pmake pipeline "${VARS[@]}"
check "the check named the damaged file" grep -q "removing .*components.h5" "$LOG"
check "components.h5 rebuilt and readable" "$ROOT/${G500:-bin/g500}" stats "$RUN/components.h5"
check "the placement was rebuilt after it" test "$RUN/placement-$P.h5" -nt "$RUN/components.h5"

# A placement made for another graph (copied in from another run) is not reused.
OTHER=$TMP/other
check "a second, smaller run for the swap" pmake "$OTHER/placement-$P.h5" SCALE=10 SEED=5 NP=4 RANKS_PER_NODE=1 RUN="$OTHER" TOPO=configs/fat-tree-4x4.conf
cp "$OTHER/placement-$P.h5" "$RUN/placement-$P.h5"
touch "$RUN/placement-$P.h5"
: > "$LOG"
check "make pipeline with a foreign placement succeeds" pmake pipeline "${VARS[@]}"
check "the foreign placement was named and removed" grep -q "removing .*placement-$P.h5: made from another edges file" "$LOG"
check "the run after it validated" grep -Eq '"validated": *(true|1)' "$RUN/run-components-$P.json"
finish
