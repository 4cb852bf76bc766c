#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# fault-sizes.sh - what a stage needs of the machine, checked before its
# work, at 1, 2 and 4 ranks, every launch under a timeout:
#  - memory per rank: gen, components, partition and run (cyclic and with
#    components inside kernel 1) refuse with the figures when their
#    estimate exceeds what the node offers each of its ranks; the node is
#    shown a small MemAvailable, or a cgroup limit (v1 and v2, set on a
#    parent) through build/tests/libmeminfo_fake.so (tests/faults/
#    meminfo_fake.c); --force-size goes on; the real machine runs a small
#    graph unrefused, and gen --scale 40 is refused (disk first);
#  - threads: OMP_NUM_THREADS beyond what the machine can create is
#    refused with the limit by every command, not a crash; a value that is
#    not a number too.
# Prints "N passed, N failed".
. "$(dirname "$0")/cli-env.bash"
ok() { echo "PASS $1"; pass=$((pass + 1)); }
ko() { echo "FAIL $1"; fail=$((fail + 1)); }
check() { if eval "$2"; then ok "$1"; else ko "$1"; sed -n 1,5p "$w/err"; fi; }
run() { local np=$1; shift; timeout -k 5 120 scripts/mpi-launch -n "$np" "$@"; }
BUILD=${BUILD:-build}
FAKE=$PWD/$BUILD/tests/libmeminfo_fake.so
w=$(mktemp -d /tmp/g500-fault-sizes.XXXXXX)
trap 'rm -rf "$w"' EXIT
TOPO=configs/fat-tree-2x2.conf
[ -f "$FAKE" ] || { ko "no $FAKE (make tests)"; echo "$pass passed, $fail failed"; exit 1; }

if ! run 2 "$G500" gen -q --scale 12 -o "$w/e.h5" >"$w/log" 2>&1 ||
   ! run 2 "$G500" components -q "$w/e.h5" -o "$w/c.h5" >>"$w/log" 2>&1; then
    cat "$w/log"; ko "inputs"; echo "$pass passed, $fail failed"; exit 1
fi

# A node with 16 MiB available: less than any stage needs.
mkdir -p "$w/small"
printf 'MemTotal:       33554432 kB\nMemFree:           16384 kB\nMemAvailable:      16384 kB\n' >"$w/small/meminfo"
small() { run "$1" env LD_PRELOAD="$FAKE" G5_FAKE_MEM="$w/small" "${@:2}"; }
ranks() { [ "$1" = 1 ] && echo "1 rank" || echo "$1 ranks"; }
notmp() { [ -z "$(ls "$w" | grep '\.tmp\.')" ]; }

for np in 1 2 4; do
    R=$(ranks $np)
    rm -f "$w/g.h5" "$w/c2.h5"
    small $np "$G500" gen --scale 12 -o "$w/g.h5" >"$w/out" 2>"$w/err"; rc=$?
    check "gen at $np ranks refused with the memory figures" \
        '[ $rc = 1 ] && grep -q "g500 gen: error: SCALE 12, edgefactor 16 needs [0-9.]* MiB of memory per rank, this node offers 16.0 MiB for $R (--force-size to try anyway)" "$w/err" && [ ! -e "$w/g.h5" ] && notmp'
    [ $(grep -c "error:" "$w/err") = 1 ] && ok "gen at $np ranks: one message" || ko "gen at $np ranks: $(grep -c error: "$w/err") messages"
    small $np "$G500" components -q "$w/e.h5" -o "$w/c2.h5" >"$w/out" 2>"$w/err"; rc=$?
    check "components at $np ranks refused with the memory figures, naming the file" \
        '[ $rc = 1 ] && grep -q "g500 components: error: $w/e.h5 (SCALE 12, 65536 edges) needs .* of memory per rank, this node offers 16.0 MiB for $R" "$w/err" && [ ! -e "$w/c2.h5" ]'
    small $np "$G500" partition -q "$w/e.h5" "$w/c.h5" --topology $TOPO --ranks $np --ranks-per-node 1 \
        -o "$w/p.h5" >"$w/out" 2>"$w/err"; rc=$?
    check "partition at $np ranks refused with the memory figures" \
        '[ $rc = 1 ] && grep -q "g500 partition: error: $w/e.h5 (SCALE 12, 65536 edges) needs .* of memory per rank, this node offers 16.0 MiB for $R" "$w/err" && [ ! -e "$w/p.h5" ]'
    for pl in cyclic components; do
        small $np "$G500" run "$w/e.h5" --placement $pl --topology $TOPO --roots 2 --json "$w/r.json" >"$w/out" 2>"$w/err"; rc=$?
        check "run --placement $pl at $np ranks refused with the memory figures" \
            '[ $rc = 1 ] && grep -q "g500 run: error: $w/e.h5 (SCALE 12, 65536 edges) needs .* of memory per rank, this node offers 16.0 MiB for $R" "$w/err" && [ ! -e "$w/r.json" ]'
    done
    # --force-size: the same node, the stages go on and finish
    small $np "$G500" gen -q --scale 12 --force-size -o "$w/g.h5" --force >"$w/out" 2>"$w/err"; rc=$?
    check "gen --force-size at $np ranks goes on past the memory check" '[ $rc = 0 ] && [ -s "$w/g.h5" ]'
    small $np "$G500" components -q "$w/e.h5" --force-size -o "$w/c2.h5" --force >"$w/out" 2>"$w/err"; rc=$?
    check "components --force-size at $np ranks goes on" '[ $rc = 0 ] && [ -s "$w/c2.h5" ]'
    small $np "$G500" run "$w/e.h5" --roots 2 --force-size >"$w/out" 2>"$w/err"; rc=$?
    check "run --force-size at $np ranks goes on" '[ $rc = 0 ] && grep -q "^bfs  harmonic_mean_TEPS" "$w/out"'
    # the real node: a small run is not refused
    run $np "$G500" run "$w/e.h5" --roots 2 >"$w/out" 2>"$w/err"; rc=$?
    check "run at $np ranks on this node is not refused" '[ $rc = 0 ] && ! grep -q "of memory per rank" "$w/err"'
    # a size this node has neither the disk nor the memory for: disk first
    run $np "$G500" gen --scale 40 -o "$w/big.h5" >"$w/out" 2>"$w/err"; rc=$?
    check "gen --scale 40 at $np ranks refused before any work" \
        '[ $rc = 1 ] && grep -q "SCALE 40, edgefactor 16 needs .* of \(disk\|memory\)" "$w/err" && [ -z "$(ls "$w" | grep big)" ]'
done

# cgroup limits (Slurm confines jobs this way): 20 GiB available, but the
# job's cgroup, a parent of the process's, holds 16 MiB.
for v in 1 2; do
    d=$w/cg$v
    printf 'MemTotal:       33554432 kB\nMemAvailable:   20971520 kB\n' | install -D /dev/stdin "$d/meminfo"
    if [ $v = 1 ]; then
        printf '5:cpu:/\n4:memory:/job/step\n' >"$d/cgroup"
        install -D <(echo 16777216) "$d/sys/fs/cgroup/memory/job/memory.limit_in_bytes"
        install -D <(echo 9223372036854771712) "$d/sys/fs/cgroup/memory/job/step/memory.limit_in_bytes"
    else
        printf '0::/job/step\n' >"$d/cgroup"
        install -D <(echo 16777216) "$d/sys/fs/cgroup/job/memory.max"
        install -D <(echo max) "$d/sys/fs/cgroup/job/step/memory.max"
    fi
    run 2 env LD_PRELOAD="$FAKE" G5_FAKE_MEM="$d" "$G500" components -q "$w/e.h5" -o "$w/c3.h5" >"$w/out" 2>"$w/err"; rc=$?
    check "components at 2 ranks refused by a cgroup v$v limit on a parent" \
        '[ $rc = 1 ] && grep -q "this node offers 16.0 MiB for 2 ranks" "$w/err" && [ ! -e "$w/c3.h5" ]'
done
d=$w/cg1
echo 68719476736 >"$d/sys/fs/cgroup/memory/job/memory.limit_in_bytes"
run 2 env LD_PRELOAD="$FAKE" G5_FAKE_MEM="$d" "$G500" components -q "$w/e.h5" -o "$w/c3.h5" >"$w/out" 2>"$w/err"; rc=$?
check "a cgroup limit above MemAvailable leaves MemAvailable the figure" '[ $rc = 0 ] && [ -s "$w/c3.h5" ]'

# Threads: every command that runs OpenMP, before any work.
max=$(cat /proc/sys/kernel/threads-max)
big=$((max + 1))
for np in 1 2 4; do
    rm -f "$w"/t.*
    for cmd in "gen -q --scale 10 -o $w/t.e.h5" "components -q $w/e.h5 -o $w/t.c.h5" \
               "partition -q $w/e.h5 $w/c.h5 --topology $TOPO --ranks $np --ranks-per-node 1 -o $w/t.p.h5" \
               "run $w/e.h5 --roots 2 --json $w/t.r.json" "stats $w/e.h5"; do
        OMP_NUM_THREADS=$big run $np "$G500" $cmd >"$w/out" 2>"$w/err"; rc=$?
        check "OMP_NUM_THREADS=$big: ${cmd%% *} at $(ranks $np) refused with the limit" \
            '[ $rc = 2 ] && grep -q "OMP_NUM_THREADS $big: the kernel creates at most $max threads (threads-max)" "$w/err" && [ -z "$(ls "$w" | grep "^t\.")" ]'
    done
    OMP_NUM_THREADS=100000 run $np "$G500" run "$w/e.h5" --roots 2 >"$w/out" 2>"$w/err"; rc=$?
    check "OMP_NUM_THREADS=100000: run at $np ranks refused with a limit, no crash" \
        '[ $rc = 2 ] && grep -q "OMP_NUM_THREADS 100000: .*\(threads-max\|ulimit -u\|memory\)" "$w/err"'
    run $np env OMP_NUM_THREADS=lots "$G500" gen -q --scale 10 -o "$w/t.e.h5" >"$w/out" 2>"$w/err"; rc=$?
    check "OMP_NUM_THREADS=lots at $np ranks refused" \
        '[ $rc = 2 ] && grep -q "OMP_NUM_THREADS=.lots. is not a positive number of threads" "$w/err" && [ ! -e "$w/t.e.h5" ]'
done
echo "$pass passed, $fail failed"
[ $fail = 0 ]
