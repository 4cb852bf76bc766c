#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# pipeline-faults.sh - the pipeline's cache trusts nothing unchecked
# (SCALE 10, 2 ranks, one repeat):
#  - a byte flipped in edges.h5's first chunk, time stamp kept: the next
#    `make pipeline` finds the checksum failing, removes the file and what
#    was made from it, and rebuilds them;
#  - the topology edited under the same name with an older time stamp: the
#    placement (its topology_id) and the runs made with it are redone;
#  - `make kernels` failing removes the run's earlier JSON and block;
#  - a second `make pipeline` on the same RUN while one runs is refused,
#    naming the holder; a run that had to wait for another kernel run of
#    this checkout says so in its block, its JSON (waited_for_other_run)
#    and the report.
# Prints "N passed, N failed".
. "$(dirname "$0")/cli-env.bash"
ok() { echo "PASS $1"; pass=$((pass + 1)); }
ko() { echo "FAIL $1"; fail=$((fail + 1)); }
w=$(mktemp -d /tmp/g500-pipeline-faults.XXXXXX)
trap 'rm -rf "$w"' EXIT
R=$w/run T=$w/t.conf
cp configs/fat-tree-2x2.conf "$T"
mk() { timeout -k 5 600 make --no-print-directory "$@" SCALE=10 NP=2 REPEATS=1 RUN="$R" TOPO="$T" G500="$G500"; }
if ! mk pipeline >"$w/log" 2>&1; then tail -20 "$w/log"; ko "first pipeline"; echo "$pass passed, $fail failed"; exit 1; fi
E=$R/edges.h5
first=$(h5dump -d /edges -s "0,0" -c "2,2" -y -w 0 "$E" | sed -n '/DATA {/,/}/p' | tr -cd '0-9,')
python3 - "$E" "$first" <<'PY'
import os, struct, sys
p = sys.argv[1]
st = os.stat(p)
d = bytearray(open(p, "rb").read())
pat = struct.pack("<4I", *[int(x) for x in sys.argv[2].split(",") if x])
i = d.find(pat)
assert i >= 0 and d.count(pat) == 1
d[i + 3] ^= 0x40
open(p, "wb").write(d)
os.utime(p, (st.st_atime, st.st_mtime))
PY
mk pipeline >"$w/log" 2>&1; rc=$?
if [ $rc = 0 ] && grep -q "removing $E: .*fail their checksum" "$w/log" && grep -q " gen " "$w/log" &&
   grep -q " components " "$w/log" && grep -q " partition " "$w/log" && h5dump -d /edges "$E" >/dev/null 2>&1; then
    ok "a flipped byte in cached edges.h5 (time stamp kept): removed and rebuilt with its dependents"
else
    ko "flipped byte in edges.h5: rc $rc"; grep -E "removing|error" "$w/log" | head -5
fi
sed -i 's/n\[0-1\]/n[0-1],n9/' "$T"; touch -d 2020-01-01 "$T"
mk pipeline >"$w/log" 2>&1; rc=$?
if [ $rc = 0 ] && grep -q "made from another topology than $T" "$w/log" && grep -q " partition " "$w/log"; then
    ok "a topology edited under the same name with an older time stamp: placement redone"
else
    ko "edited topology: rc $rc"; grep -E "removing|error" "$w/log" | head -5
fi
mk kernels RUN_FLAGS=--no-such-option >"$w/log" 2>&1; rc=$?
if [ $rc != 0 ] && [ ! -e "$R/run-components-t-np2-rpn1.json" ] && [ ! -e "$R/run-components-t-np2-rpn1.txt" ]; then
    ok "make kernels failing leaves no earlier run JSON or block"
else
    ko "failing kernels: rc $rc, $(ls "$R" | grep run-components)"
fi
mk pipeline >"$w/log" 2>&1
exec 8>>"$R/.pipeline.lock"; flock 8; echo "pid $$ on test" >"$R/.pipeline.lock"
mk pipeline >"$w/log" 2>&1; rc=$?
exec 8>&-
if [ $rc != 0 ] && grep -q "is in use by another pipeline (pid $$ on test)" "$w/log"; then
    ok "a second pipeline on the same RUN is refused, naming the holder"
else
    ko "second pipeline: rc $rc"; tail -3 "$w/log"
fi
K=/tmp/g500-kernels-$(pwd | sha256sum | cut -c1-16).lock
# Another kernel run holds the lock until this one says it waits (at most
# 120 s), and a second after.
: >"$w/log"
(flock "$K" timeout 120 sh -c 'until grep -q "g500-lock: waiting" "$1"; do sleep 0.2; done; sleep 1' sh "$w/log") &
sleep 0.5
mk kernels >"$w/log" 2>&1; rc=$?
wait
if [ $rc = 0 ] && grep -q "note: this run waited .* for another g500 kernel run" "$R/run-components-t-np2-rpn1.txt"; then
    ok "a kernel run that waited for another of this checkout says so in its block"
else
    ko "kernel lock: rc $rc"; tail -3 "$w/log"
fi
if python3 - "$R/run-components-t-np2-rpn1.json" "$R/run-cyclic-t-np2-rpn1.json" <<'PY'
import json, sys
w = json.load(open(sys.argv[1]))["waited_for_other_run"]
assert w["seconds"] >= 1 and w["holder"], w
assert json.load(open(sys.argv[2]))["waited_for_other_run"] is None
PY
then
    ok "the run JSON says so too (waited_for_other_run, with seconds and holder; null for the run that did not wait)"
else
    ko "waited_for_other_run in the run JSON"
fi
if grep -q "^components-t-np2-rpn1 waited [0-9]* s for another g500 kernel run" "$w/log" &&
   grep -q "^components-t-np2-rpn1 waited [0-9]* s for another g500 kernel run" "$R/report/index.md" &&
   ! grep -q "^cyclic-t-np2-rpn1 waited" "$R/report/index.md"; then
    ok "the summary and the report say which run waited"
else
    ko "the report on the run that waited"; grep waited "$w/log" "$R/report/index.md"
fi
echo "$pass passed, $fail failed"
[ $fail = 0 ]
