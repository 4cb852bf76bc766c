# SPDX-License-Identifier: MIT
# pipeline-lib.bash - helpers the tests/scripts/pipeline*.sh tests source
# (not a test itself: the runner runs executable *.sh only).
#   check DESC CMD...    run CMD; count and print "ok - DESC" or "FAIL - DESC"
#   pmake ARGS...        make in the repository root, quiet, output to $LOG
#   absent PATTERN [FILE]  true when grep finds no PATTERN (stdin or FILE)
#   kill_tree PID          SIGKILL PID and all its descendants, by id (Open
#                          MPI puts ranks in their own process groups, so a
#                          group kill would leave them running)
#   mtimes FILE...       "name mtime" lines (nanoseconds) for comparing reruns
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

absent() {
    ! grep -q -- "$@"
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

# The last make's output, shown when something failed, for the log.
finish() {
    if [ $fail -ne 0 ] && [ -s "$LOG" ]; then echo "---- make output (last 60 lines)"; tail -n 60 "$LOG"; fi
    echo "$pass passed, $fail failed"
    [ $fail -eq 0 ]
}
