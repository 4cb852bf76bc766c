#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# run-tests.sh - the test runner behind `make test`.
#
# 1. every Criterion binary under $BUILD/tests/unit (each test in its own
#    process; Criterion prints its synthesis line);
# 2. every MPI test program under $BUILD/tests/mpi at 1, 2 and 4 ranks,
#    oversubscribed, each under a timeout so a hang is a failure, not a stall;
#    a program prints "N passed, N failed" (cases agreed across ranks);
# 3. any executable tests/scripts/*.sh (end-to-end checks of bin/g500), each
#    printing "N passed, N failed" as its last line;
# 4. the real-Slurm test when it fits the budget (see below).
# Ranks are started by scripts/mpi-launch with the launcher of MPIRUN/MPI.
# Each line says how long that binary (or that rank count, or that script)
# took; before the last line come the slowest ones and the whole suite's
# wall time against its budget (TEST_BUDGET seconds, default 900: `make
# test` should stay under 15 minutes on the 2-core machine), also kept in
# $BUILD/test-logs/times.txt. Nothing fails on time: a slow test is shown,
# not counted.
# It ends with one line "tests: N passed, N failed" and fails if any failed.
set -u
BUILD=${BUILD:-build}
G500=${G500:-bin/g500}
export G500 BUILD
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
# Two cores: keep Open MPI from busy-polling and from binding ranks to cores.
export OMPI_MCA_mpi_yield_when_idle=1 OMPI_MCA_hwloc_base_binding_policy=none
export OMPI_MCA_rmaps_base_oversubscribe=1
# PMIx's shared-memory store (gds ds12) can fail to take its lock when many
# short jobs start one after another ("PMIX ERROR ... gds_ds12_lock_pthread.c"):
# the tests use the plain hash store.
export PMIX_MCA_gds=${PMIX_MCA_gds:-hash}
# The test programs write HDF5 through the MPI-IO component g500 takes
# (ROMIO; cli/main.c): Open MPI's ompio also keeps a named semaphore per
# file in /dev/shm, and one left by a killed writer made a later writer of
# the same temporary name (same pid) wait for ever.
export OMPI_MCA_io=${OMPI_MCA_io:-^ompio}
# Ranks x threads exceed the cores: idle OpenMP threads sleep instead of
# spinning at barriers, where they would take the CPU from the thread or
# rank everyone waits for (on a loaded machine that made runs of many small
# rounds 100x slower).
export OMP_WAIT_POLICY=${OMP_WAIT_POLICY:-passive}
[ -n "${SANITIZE:-}" ] && export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=0}
MPI_TIMEOUT=${MPI_TIMEOUT:-600}
TEST_BUDGET=${TEST_BUDGET:-900}
LOG=$BUILD/test-logs
mkdir -p "$LOG"
pass=0; fail=0; failed=()
times=()   # "seconds name" per binary, rank count and script

# Wall seconds since $1 (an EPOCHREALTIME reading), one decimal (bash
# writes the locale's decimal mark: make it a point for awk).
since() {
    local a=${1/,/.} b=${EPOCHREALTIME/,/.}
    awk -v a="$a" -v b="$b" 'BEGIN { printf "%.1f", b - a }'
}
suite_t0=$EPOCHREALTIME

count_line() { # $1 = file; adds its last "N passed, N failed" line
    local line p f
    line=$(grep -E '[0-9]+ passed, [0-9]+ failed' "$1" | tail -n 1)
    if [ -z "$line" ]; then return 1; fi
    p=$(grep -oE '[0-9]+ passed' <<<"$line" | tail -n 1 | cut -d' ' -f1)
    f=$(sed -E 's/.* ([0-9]+) failed.*/\1/' <<<"$line")
    pass=$((pass + p)); fail=$((fail + f))
    return 0
}

for t in "$BUILD"/tests/unit/test_*; do
    [ -x "$t" ] && [ "${t%.o}" = "$t" ] && [ "${t%.d}" = "$t" ] || continue
    name=$(basename "$t")
    [ -f "tests/unit/$name.c" ] || continue   # a binary left from a removed test
    out="$LOG/$name.log"
    t0=$EPOCHREALTIME
    "$t" --jobs 2 >"$out" 2>&1
    rc=$?
    dt=$(since "$t0"); times+=("$dt unit $name")
    syn=$(grep 'Synthesis' "$out" | tail -n 1)
    p=$(sed -nE 's/.*Passing: ([0-9]+).*/\1/p' <<<"$syn"); p=${p:-0}
    f=$(sed -nE 's/.*Failing: ([0-9]+).*/\1/p' <<<"$syn"); f=${f:-0}
    c=$(sed -nE 's/.*Crashing: ([0-9]+).*/\1/p' <<<"$syn"); c=${c:-0}
    pass=$((pass + p)); fail=$((fail + f))
    if [ $rc -ne 0 ] || [ -z "$syn" ] || [ "$f" != 0 ]; then
        [ -z "$syn" ] && fail=$((fail + 1))
        failed+=("$name")
        grep -E '\[----\]|\[FAIL\]|error|Warning' "$out" | head -40
    fi
    syn=${syn#*Synthesis: }
    echo "unit  $name: ${syn% } (${dt} s)"
done

for t in "$BUILD"/tests/mpi/mpi_*; do
    [ -x "$t" ] && [ "${t%.o}" = "$t" ] && [ "${t%.d}" = "$t" ] || continue
    name=$(basename "$t")
    [ -f "tests/mpi/$name.c" ] || continue
    for np in 1 2 4; do
        out="$LOG/$name.np$np.log"
        t0=$EPOCHREALTIME
        timeout -k 10 "$MPI_TIMEOUT" scripts/mpi-launch -n "$np" "$t" >"$out" 2>&1
        rc=$?
        dt=$(since "$t0"); times+=("$dt mpi $name -np $np")
        if ! count_line "$out"; then fail=$((fail + 1)); rc=${rc/#0/1}; fi
        last=$(grep -E '[0-9]+ passed, [0-9]+ failed' "$out" | tail -n 1)
        if [ $rc -ne 0 ]; then
            failed+=("$name@$np")
            [ $rc -eq 124 ] && echo "  $name at $np ranks: timed out after ${MPI_TIMEOUT}s"
            grep -E 'FAIL|error' "$out" | head -20
        fi
        echo "mpi   $name -np $np: ${last:-no result (exit $rc)} (${dt} s)"
    done
done

for t in tests/scripts/*.sh; do
    [ -x "$t" ] || continue
    name=$(basename "$t" .sh)
    out="$LOG/$name.log"
    t0=$EPOCHREALTIME
    timeout -k 10 1200 "$t" >"$out" 2>&1
    rc=$?
    dt=$(since "$t0"); times+=("$dt e2e $name")
    if ! count_line "$out"; then fail=$((fail + 1)); fi
    last=$(grep -E '[0-9]+ passed, [0-9]+ failed' "$out" | tail -n 1)
    if [ $rc -ne 0 ]; then failed+=("$name"); grep -E 'FAIL' "$out" | head -20; fi
    echo "e2e   $name: ${last:-no result (exit $rc)} (${dt} s)"
done

# 4. the cluster recipe under a real Slurm (tests/slurm/slurm-test.sh, as
#    `make test-slurm`) when it fits: root, TEST_SLURM not "no", and about
#    two minutes left of the budget (TEST_SLURM=yes runs it regardless).
slurm_skip=''
if [ "${TEST_SLURM:-auto}" = no ]; then slurm_skip="TEST_SLURM=no"
elif [ "$(id -u)" != 0 ]; then slurm_skip="not root"
elif [ -n "${SANITIZE:-}" ]; then slurm_skip="a SANITIZE build (the recipe runs the plain binary)"
elif [ "${TEST_SLURM:-auto}" != yes ] &&
     awk -v t="$(since "$suite_t0")" -v b="$TEST_BUDGET" 'BEGIN { exit !(t + 150 > b) }'; then
    slurm_skip="less than 150 s of the ${TEST_BUDGET} s budget left"
fi
if [ -z "$slurm_skip" ]; then
    out="$LOG/slurm-test.log"
    t0=$EPOCHREALTIME
    timeout -k 10 1800 tests/slurm/slurm-test.sh >"$out" 2>&1
    rc=$?
    dt=$(since "$t0"); times+=("$dt e2e slurm-test")
    if ! count_line "$out"; then fail=$((fail + 1)); fi
    last=$(grep -E '[0-9]+ passed, [0-9]+ failed' "$out" | tail -n 1)
    if [ $rc -ne 0 ]; then failed+=(slurm-test); grep -E 'FAIL' "$out" | head -20; fi
    echo "e2e   slurm-test: ${last:-no result (exit $rc)} (${dt} s)"
else
    echo "e2e   slurm-test: skipped ($slurm_skip; make test-slurm runs it)"
fi

# The slowest, and the whole run against the budget (load average too:
# the machine is shared, so a slow line may be the load, not the test).
total=$(since "$suite_t0")
printf '%s\n' "${times[@]}" | sort -rn >"$LOG/times.txt"
echo "slowest (of ${#times[@]}; all in $LOG/times.txt):"
head -n "${TEST_SLOWEST:-8}" "$LOG/times.txt" | awk '{ t = $1; sub(/^[^ ]+ /, ""); printf "  %7.1f s  %s\n", t, $0 }'
load=$(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null)
awk -v t="$total" -v b="$TEST_BUDGET" -v l="${load:-?}" 'BEGIN {
    printf "suite wall time %d min %02d s, budget %d min (load average %s)%s\n", t / 60, t % 60, b / 60, l,
           (t > b ? ": OVER BUDGET" : "") }'

[ ${#failed[@]} -gt 0 ] && echo "failed: ${failed[*]} (logs in $LOG)"
echo "tests: $pass passed, $fail failed"
[ $fail -eq 0 ] && [ ${#failed[@]} -eq 0 ]
