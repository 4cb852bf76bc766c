#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# fault-checks.sh - what is refused before any work, and what an interrupted
# stage leaves: at 1, 2 and 4 ranks where ranks matter, every launch under
# a timeout.
#  - sizes: a file larger than the free space is refused with the figures
#    (gen --scale 40 here); --threads beyond what the machine can create is
#    refused with the limit (it crashed);
#  - identities: run refuses a placement made for another edges file (same
#    SCALE, another edge factor) naming both files; --json onto the
#    placement or the topology it reads is refused and the file kept; a
#    flipped byte in the placement's /owner is found; --seed -7 is refused;
#    a bad vertex id read without weights is reported without a weight;
#  - temporary files: SIGTERM to a stage and SIGINT to mpirun remove the
#    stage's NAME.tmp.<pid>; a stale one of a dead writer is removed by the
#    next writer of the same name.
# Prints "N passed, N failed".
. "$(dirname "$0")/cli-env.bash"
ok() { echo "PASS $1"; pass=$((pass + 1)); }
ko() { echo "FAIL $1"; fail=$((fail + 1)); }
check() { if eval "$2"; then ok "$1"; else ko "$1"; sed -n 1,5p "$w/err"; fi; }
run() { local np=$1; shift; timeout -k 5 120 scripts/mpi-launch -n "$np" "$@"; }
w=$(mktemp -d /tmp/g500-fault-checks.XXXXXX)
trap 'rm -rf "$w"' EXIT
TOPO=configs/fat-tree-2x2.conf

if ! run 2 "$G500" gen -q --scale 12 -o "$w/e.h5" >"$w/log" 2>&1 ||
   ! run 2 "$G500" gen -q --scale 12 --edgefactor 8 -o "$w/e8.h5" >>"$w/log" 2>&1 ||
   ! run 2 "$G500" components -q "$w/e.h5" -o "$w/c.h5" >>"$w/log" 2>&1; then
    cat "$w/log"; ko "inputs"; echo "$pass passed, $fail failed"; exit 1
fi

for np in 1 2 4; do
    run $np "$G500" gen --scale 40 -o "$w/big.h5" >"$w/out" 2>"$w/err"; rc=$?
    check "gen --scale 40 at $np ranks refused with the figures" \
        '[ $rc = 1 ] && grep -q "SCALE 40, edgefactor 16 needs [0-9.]* TiB of disk in $w, .* free" "$w/err" && [ -z "$(ls "$w" | grep big)" ]'
    run $np "$G500" components -q "$w/e.h5" -o "$w/ct.h5" --threads 100000 >"$w/out" 2>"$w/err"; rc=$?
    check "components --threads 100000 at $np ranks refused with the limit" \
        '[ $rc = 2 ] && grep -q "threads 100000: .*\(threads-max\|ulimit -u\|memory\)" "$w/err" && [ ! -e "$w/ct.h5" ]'
done

for np in 1 2 4; do
    rm -f "$w"/p.*
    run $np "$G500" partition -q "$w/e.h5" "$w/c.h5" --topology $TOPO --ranks $np --ranks-per-node 1 \
        -o "$w/p.h5" >"$w/out" 2>"$w/err" || { ko "partition at $np ranks"; cat "$w/err"; continue; }
    run $np "$G500" run "$w/e8.h5" --placement "$w/p.h5" --roots 2 >"$w/out" 2>"$w/err"; rc=$?
    check "run at $np ranks refuses a placement of another edges file, naming both" \
        '[ $rc = 1 ] && grep -q "p.h5 was made for another edges file than .*e8.h5" "$w/err"'
    cp "$w/p.h5" "$w/p0.h5"
    run $np "$G500" run "$w/e.h5" --placement "$w/p.h5" --roots 2 --json "$w/p.h5" >"$w/out" 2>"$w/err"; rc=$?
    check "run at $np ranks refuses --json onto its placement, which stays" \
        '[ $rc = 2 ] && grep -q "is the input file" "$w/err" && cmp -s "$w/p.h5" "$w/p0.h5"'
    cp $TOPO "$w/t.conf"
    run $np "$G500" run "$w/e.h5" --topology "$w/t.conf" --roots 2 --json "$w/t.conf" >"$w/out" 2>"$w/err"; rc=$?
    check "run at $np ranks refuses --json onto its topology, which stays" \
        '[ $rc = 2 ] && cmp -s "$w/t.conf" $TOPO'
    # one flipped byte in /owner's data (a window of 32 values found once in the file)
    h5dump -d /owner -y -w 0 "$w/p.h5" | sed -n '/DATA {/,/}/p' | tr -cd '0-9,-' >"$w/owner.txt"
    python3 - "$w/p.h5" "$w/po.h5" "$w/owner.txt" >"$w/out" 2>&1 <<'PY'
import struct, sys
d = bytearray(open(sys.argv[1], "rb").read())
own = [int(x) for x in open(sys.argv[3]).read().split(",") if x]
for s in range(0, len(own) - 32):
    pat = struct.pack("<32i", *own[s:s + 32])
    if len(set(own[s:s + 32])) > 1 and d.count(pat) == 1:
        i = d.find(pat)
        d[i + 1] ^= 0x01
        open(sys.argv[2], "wb").write(d)
        break
else:
    sys.exit("no window of /owner found once")
PY
    if [ -f "$w/po.h5" ]; then
        run $np "$G500" run "$w/e.h5" --placement "$w/po.h5" --roots 2 >"$w/out" 2>"$w/err"; rc=$?
        check "run at $np ranks finds a flipped byte in the placement's /owner" \
            '[ $rc = 1 ] && grep -q "po.h5: .*/owner" "$w/err"'
    else
        [ $np = 1 ] && ko "no /owner window to flip: $(cat "$w/out")"
    fi
    rm -f "$w/po.h5"
done
"$G500" run "$w/e.h5" --seed -7 >"$w/out" 2>"$w/err"; rc=$?
check "run --seed -7 refused" '[ $rc = 2 ] && grep -q "seed must be >= 0, or -1" "$w/err"'

# a vertex id out of range, read by components (no weights): named without a weight
"$G500" gen -q --scale 6 --chunk-rows 0 -o "$w/e6.h5" >/dev/null 2>&1
first=$(h5dump -d /edges -s "0,0" -c "1,2" -y -w 0 "$w/e6.h5" | sed -n '/DATA {/,/}/p' | tr -cd '0-9,')
python3 - "$w/e6.h5" "$w/e6bad.h5" "$first" <<'PY'
import struct, sys
d = bytearray(open(sys.argv[1], "rb").read())
pat = struct.pack("<2I", *[int(x) for x in sys.argv[3].split(",") if x])
i = d.find(pat)
d[i + 3] = 0x7f
open(sys.argv[2], "wb").write(d)
PY
"$G500" components -q "$w/e6bad.h5" -o "$w/c6.h5" >"$w/out" 2>"$w/err"; rc=$?
check "components names a bad vertex id without a weight" \
    '[ $rc = 1 ] && grep -q "edge 0 is .*a vertex id outside" "$w/err" && ! grep -q weight "$w/err"'

# temporary files of interrupted stages; a stage still running 60 s after
# the signal is killed and counted as hung
reap() { for _ in $(seq 600); do kill -0 "$1" 2>/dev/null || break; sleep 0.1; done
         kill -KILL "$1" 2>/dev/null; wait "$1"; }
"$G500" gen -q --scale 22 -o "$w/s.h5" >/dev/null 2>&1 & p=$!
for _ in $(seq 50); do ls "$w" | grep -q 's.h5.tmp' && break; sleep 0.1; done
sleep 0.5; kill -TERM $p; reap $p; rc=$?
check "SIGTERM to gen removes its temporary file" '[ $rc != 0 ] && [ $rc != 137 ] && [ -z "$(ls "$w" | grep "^s.h5")" ]'
# MPICH's launcher (hydra 4.0) returns 0 for some jobs whose ranks it sent
# the Ctrl-C: there the interrupted job is told by its missing output
# (s.h5 never appears) and the launcher's "Sending Ctrl-C" line.
scripts/mpi-launch -n 2 "$G500" gen -q --scale 22 -o "$w/s.h5" >"$w/sig.out" 2>&1 & p=$!
for _ in $(seq 100); do ls "$w" | grep -q 's.h5.tmp' && break; sleep 0.1; done
sleep 0.5; kill -INT $p; reap $p; rc=$?
for _ in $(seq 50); do ls "$w" | grep -q '^s.h5' || break; sleep 0.2; done
check "SIGINT to mpirun (2 ranks) removes the temporary file" \
    '[ $rc != 137 ] && { [ $rc != 0 ] || { [ "${MPI:-openmpi}" = mpich ] && grep -q "Sending Ctrl-C" "$w/sig.out"; }; } &&
     [ -z "$(ls "$w" | grep "^s.h5")" ]'
touch "$w/s.h5.tmp.999999999"
"$G500" gen -q --scale 8 -o "$w/s.h5" >"$w/out" 2>"$w/err"
check "a stale temporary file of a dead writer is removed by the next writer" \
    '[ -f "$w/s.h5" ] && [ ! -e "$w/s.h5.tmp.999999999" ]'
echo "$pass passed, $fail failed"
[ $fail = 0 ]
