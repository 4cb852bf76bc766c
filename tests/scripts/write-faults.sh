#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# write-faults.sh - a write that fails on one rank ends every rank: gen,
# components, partition and run --json at 1, 2 and 4 ranks, each under a
# timeout (a hang is a failure), must exit non-zero with one message naming
# the file and the OS error, and leave neither the output nor its
# temporary file.
#  1. Injected: build/tests/libwrite_fault.so (tests/faults/write_fault.c)
#     makes one rank's writes to the temporary file fail with ENOSPC inside
#     MPI-IO, from the first write (2 ranks) and from a later one. A run whose armed
#     rank wrote too little to reach the fault must give the same data as a
#     run without it.
#  2. A small full tmpfs, mounted here (root, mount allowed; otherwise the
#     part is skipped with the reason): the free-space check refuses each
#     file with its figures (components before its work), and with
#     --force-size the writes really fail.
# Prints "N passed, N failed".
. "$(dirname "$0")/cli-env.bash"
ok() { echo "PASS $1"; pass=$((pass + 1)); }
ko() { echo "FAIL $1"; fail=$((fail + 1)); }
BUILD=${BUILD:-build}
SHIM=$PWD/$BUILD/tests/libwrite_fault.so
run() { local np=$1; shift; timeout -k 5 120 scripts/mpi-launch -n "$np" "$@"; }
w=$(mktemp -d /tmp/g500-write-faults.XXXXXX)
full=$w/full
trap 'mountpoint -q "$full" && umount "$full"; rm -rf "$w"' EXIT
TOPO=configs/fat-tree-2x2.conf
[ -f "$SHIM" ] || { ko "no $SHIM (make tests)"; echo "$pass passed, $fail failed"; exit 1; }

if ! run 2 "$G500" gen -q --scale 12 -o "$w/e.h5" >"$w/log" 2>&1 ||
   ! run 2 "$G500" components -q "$w/e.h5" -o "$w/c.h5" >>"$w/log" 2>&1 ||
   ! run 2 "$G500" partition -q "$w/e.h5" "$w/c.h5" --topology $TOPO --ranks 4 --ranks-per-node 1 \
       -o "$w/p.h5" >>"$w/log" 2>&1; then
    cat "$w/log"; ko "inputs"; echo "$pass passed, $fail failed"; exit 1
fi

# The command writing OUT (a path under $2) for stage $1 at np ranks.
cmd_of() { # stage outdir np
    case $1 in
    gen) echo "$G500 gen -q --scale 12 -o $2/out.h5" ;;
    components) echo "$G500 components -q $w/e.h5 -o $2/out.h5" ;;
    partition) echo "$G500 partition -q $w/e.h5 $w/c.h5 --topology $TOPO --ranks $3 --ranks-per-node 1 -o $2/out.h5" ;;
    run) echo "$G500 run $w/e.h5 --roots 2 --skip-sssp --json $2/out.json" ;;
    esac
}
main_dataset() { case $1 in gen) echo /edges ;; components) echo /label ;; partition) echo /new_label ;; esac; }

# check NAME RC ERRFILE DIR SECONDS: the failure contract.
check_failed() {
    local name=$1 rc=$2 err=$3 dir=$4 secs=$5 left
    left=$(ls -A "$dir" 2>/dev/null | grep -v '^filler$' | tr '\n' ' ')
    if [ "$rc" = 124 ] || [ "$rc" = 137 ]; then
        ko "$name: hung (killed after ${secs}s)"
    elif [ "$rc" = 0 ]; then
        ko "$name: exit 0 on a failed write"
    elif [ "$rc" -gt 128 ]; then
        ko "$name: died of signal $((rc - 128))"; cat "$err"
    elif ! grep -q "No space left on device" "$err" || ! grep -q "$dir/out" "$err"; then
        ko "$name: message does not name the file and the OS error"; cat "$err"
    elif [ -n "$left" ]; then
        ko "$name: left $left"
    else
        ok "$name: exit $rc in ${secs}s, $(grep -m1 'error' "$err" | cut -c1-110)"
    fi
}

# 1. injected write errors on one rank
# (run's JSON is written by rank 0 through stdio, out of the library's
# reach: the full disk below covers it.)
for stage in gen components partition; do
    for np in 1 2 4; do
        for victim in $(printf '%s\n' 0 $((np - 1)) | sort -u); do
            for after in 0 3; do
                [ $np != 2 ] && [ $after = 0 ] && continue
                d=$w/inj; rm -rf "$d"; mkdir -p "$d"
                t0=$SECONDS
                run $np env LD_PRELOAD="$SHIM" G5_FAULT_RANK=$victim G5_FAULT_AFTER=$after \
                    $(cmd_of $stage "$d" $np) >"$w/out" 2>"$w/err"
                rc=$?
                name="$stage at $np ranks, rank $victim's writes failing from write $after"
                if [ $rc = 0 ] && [ $stage != run ] && [ $after != 0 ]; then
                    ds=$(main_dataset $stage)
                    ref=$w/ref-$stage-$np.h5
                    [ -f "$ref" ] || run $np $(cmd_of $stage "$w/refdir" $np | sed "s|$w/refdir/out.h5|$ref|") >/dev/null 2>&1
                    if h5diff "$ref" "$d/out.h5" $ds $ds >/dev/null 2>&1; then
                        ok "$name: wrote too little to reach the fault, data intact"
                    else
                        ko "$name: exit 0 and $ds differs from a run without faults"
                    fi
                else
                    check_failed "$name" $rc "$w/err" "$d" $((SECONDS - t0))
                fi
            done
        done
    done
done

# 2. a small full file system
if [ "$(id -u)" != 0 ]; then
    echo "SKIP full tmpfs: not root, cannot mount one"
elif ! { mkdir -p "$full" && mount -t tmpfs -o size=512k tmpfs "$full"; } 2>"$w/merr"; then
    echo "SKIP full tmpfs: mount not allowed here ($(head -c 120 "$w/merr"))"
else
    for stage in gen components partition; do
        for np in 1 2 4; do
            rm -f "$full"/*
            big=$(cmd_of $stage "$full" $np | sed 's/--scale 12/--scale 16/; s/ -q / -q /')
            [ $stage = gen ] || big=$(echo "$big" | sed "s|$w/e.h5|$w/e16.h5|; s|$w/c.h5|$w/c16.h5|")
            if [ $stage != gen ] && [ ! -f "$w/c16.h5" ]; then
                run 2 "$G500" gen -q --scale 16 -o "$w/e16.h5" >/dev/null 2>&1
                run 2 "$G500" components -q "$w/e16.h5" -o "$w/c16.h5" >/dev/null 2>&1
            fi
            t0=$SECONDS
            run $np $big >"$w/out" 2>"$w/err"; rc=$?
            if [ $rc != 0 ] && grep -q "of disk in $full" "$w/err" && grep -q "free" "$w/err" &&
               [ -z "$(ls -A "$full")" ]; then
                ok "$stage at $np ranks refused before writing: $(grep -m1 error "$w/err" | sed "s|$w|W|g" | cut -c1-120)"
            else
                ko "$stage at $np ranks on a small disk: rc $rc, $(cat "$w/err" | head -3)"
            fi
            t0=$SECONDS
            run $np $big --force-size >"$w/out" 2>"$w/err"; rc=$?
            check_failed "$stage at $np ranks on a full disk (--force-size)" $rc "$w/err" "$full" $((SECONDS - t0))
        done
    done
    # components refuses before it reads a single edge, not after the work
    rm -f "$full"/*
    run 2 "$G500" components "$w/e16.h5" -o "$full/out.h5" >"$w/out" 2>"$w/err"; rc=$?
    if [ $rc = 1 ] && grep -q "of disk in $full" "$w/err" && ! grep -q "components: reading" "$w/err"; then
        ok "components refused on a small disk before reading the edges"
    else
        ko "components on a small disk: rc $rc, $(grep -m2 'components' "$w/err")"
    fi
    # run --json on a disk with no byte left
    rm -f "$full"/*
    dd if=/dev/zero of="$full/filler" bs=64k >/dev/null 2>&1
    for np in 1 2 4; do
        t0=$SECONDS
        run $np $(cmd_of run "$full" $np) >"$w/out" 2>"$w/err"; rc=$?
        check_failed "run --json at $np ranks on a full disk" $rc "$w/err" "$full" $((SECONDS - t0))
    done
fi
echo "$pass passed, $fail failed"
[ $fail = 0 ]
