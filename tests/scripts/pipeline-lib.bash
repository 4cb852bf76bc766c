# SPDX-License-Identifier: MIT
# pipeline-lib.bash - helpers the tests/scripts/pipeline*.sh tests source
# (not a test itself: the runner runs executable *.sh only).
#   check DESC CMD...    run CMD; count and print "ok - DESC" or "FAIL - DESC"
#   pmake ARGS...        make in the repository root, quiet, output to $LOG
#   absent [-E] PATTERN [FILE]  true when grep reads FILE (or stdin) and finds
#                        no PATTERN (basic, or extended with -E); false when
#                        it finds one or cannot read FILE
#   not CMD...           true when CMD fails (to check that a check can fail)
#   kill_tree PID          SIGKILL PID and all its descendants, by id (Open
#                          MPI puts ranks in their own process groups, so a
#                          group kill would leave them running)
#   mtimes FILE...       "name mtime" lines (nanoseconds) for comparing reruns
#   explain_rerun RUN BEFORE FILE...  after a cached rerun that rebuilt
#                        something: what Make (--debug=b) and the cache
#                        check said, the stage lines, and the FILEs' time
#                        stamps before (BEFORE, from mtimes) and now
#   finish               print "N passed, N failed" and exit 0 or 1
set -u
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_mpi_yield_when_idle=1 OMPI_MCA_hwloc_base_binding_policy=none
TMP=$(mktemp -d /tmp/g500-pipeline-test-XXXXXX)
LOG=$TMP/make.log
pass=0; fail=0
trap 'rm -rf "$TMP"' EXIT

check() {
    local desc=$1; shift
    if "$@" >/dev/null 2>&1; then
        pass=$((pass + 1)); echo "ok - $desc"
    else
        fail=$((fail + 1)); echo "FAIL - $desc"
    fi
}

pmake() {
    make -C "$ROOT" --no-print-directory "$@" >>"$LOG" 2>&1
}

# `grep -- "$@"` would take an -E given here for the pattern (and the
# pattern for a file name): the check then passed whatever the file held
# and failed only when the file contained "-E" (a temporary directory
# named g500-pipeline-test-E...). Options go before the pattern, and only
# "not found" (exit 1) counts: a missing file (exit 2) is no proof.
absent() {
    local opt=() rc
    if [ "${1-}" = -E ]; then opt=(-E); shift; fi
    grep -q "${opt[@]}" -e "$1" "${@:2}"
    rc=$?
    [ $rc -eq 1 ]
}

not() {
    ! "$@"
}

descendants() {
    local c
    for c in $(ps -o pid= --ppid "$1"); do echo "$c"; descendants "$c"; done
}

kill_tree() {
    local pids
    pids="$1 $(descendants "$1")"
    # Freeze first so nothing forks or renames between listing and killing.
    kill -STOP $pids 2>/dev/null
    kill -KILL $pids 2>/dev/null
    # Wait (at most 10 s) until none is left but as a zombie.
    local t p st
    for t in $(seq 100); do
        st=0
        for p in $pids; do
            [ -e /proc/$p ] && [ "$(awk '{print $3}' /proc/$p/stat 2>/dev/null)" != Z ] && st=1
        done
        [ $st -eq 0 ] && break
        sleep 0.1
    done
    return 0
}

mtimes() {
    local f
    for f in "$@"; do stat -c '%n %.9Y' "$f" 2>/dev/null || echo "$f missing"; done
}

explain_rerun() {
    local run=$1 before=$2; shift 2
    echo "---- why the cached rerun rebuilt (make --debug=b, cache check, stages)"
    grep -E "newer than target|does not exist|Must remake target '$run|removing|g500 (gen|components|partition|run|topo|report) " "$LOG" |
        grep -v "Must remake target '$run/report" | head -40
    echo "---- time stamps before the rerun"
    echo "$before"
    echo "---- and after"
    mtimes "$@"
    ls -la --full-time "$run"
}

# The last make's output, shown when something failed, for the log.
finish() {
    if [ $fail -ne 0 ] && [ -s "$LOG" ]; then echo "---- make output (last 60 lines)"; tail -n 60 "$LOG"; fi
    echo "$pass passed, $fail failed"
    [ $fail -eq 0 ]
}
