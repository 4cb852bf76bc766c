#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# topo-cmd.sh - end-to-end checks of `g500 topo`: every shipped config is
# understood (counts and hop histograms as worked out by hand), the rank
# maps print, and bad input gives one clear message and a non-zero exit on
# every rank, also under mpirun. Prints "N passed, N failed".
. "$(dirname "$0")/cli-env.bash"
work=$(mktemp -d /tmp/g500-topo-cmd.XXXXXX)
trap 'rm -rf "$work"' EXIT

# expect NAME WANT_EXIT PATTERN... -- CMD...: run CMD, check exit code and
# that stdout+stderr match every pattern (grep -E).
expect() {
    local name=$1 want=$2; shift 2
    local pats=()
    while [ "$1" != "--" ]; do pats+=("$1"); shift; done
    shift
    timeout -k 5 120 "$@" >"$work/out" 2>&1
    local rc=$? bad=""
    [ $rc -eq "$want" ] || bad="exit $rc, expected $want"
    for p in "${pats[@]}"; do
        grep -qE -- "$p" "$work/out" || bad="$bad; no match for /$p/"
    done
    if [ -z "$bad" ]; then echo "PASS $name"; pass=$((pass + 1));
    else echo "FAIL $name: $bad"; sed 's/^/    /' "$work/out" | head -30; fail=$((fail + 1)); fi
}

expect single-switch 0 "nodes 8, switches 1 \(1 leaf\), levels 1, max hops 1" "^ +1 +28 100.00%" \
    -- "$G500" topo configs/single-switch.conf
expect fat-tree 0 "nodes 16, switches 5 \(4 leaf\), levels 2" "leaf0  n\[00-03\] \(4 nodes\)" \
    "^ +1 +24 " "^ +3 +96 " -- "$G500" topo configs/fat-tree-4x4.conf
expect three-level 0 "nodes 64, switches 21 \(16 leaf\), levels 3, max hops 5" \
    "^ +1 +96 " "^ +3 +384 " "^ +5 +1536 " -- "$G500" topo configs/three-level-4x4x4.conf
expect irregular 0 "nodes 17, switches 10 \(6 leaf\), levels 4, max hops 6" "gpu\[02-03,10\]" \
    "^ +1 +21 " "^ +3 +20 " "^ +4 +25 " "^ +5 +35 " "^ +6 +35 " -- "$G500" topo configs/irregular.conf
expect tleaf 0 "\(tleaf\)" "nodes 16, switches 5" "node\[000-003\]" -- "$G500" topo configs/tleaf-4x4.conf
expect rank-map 0 "64 ranks at 4 per node on 16 of 16 nodes" "ranks 0-3 -> n00 \(node 0, leaf leaf0\)" \
    "ranks 60-63 -> n15" "^ +0 +96 " "^ +1 +384 " "^ +3 +1536 " \
    -- "$G500" topo configs/fat-tree-4x4.conf --ranks 64 --ranks-per-node 4
expect rank-map-not-multiple 1 "error: configs/fat-tree-4x4.conf: 10 ranks is not a multiple of 4" \
    -- scripts/mpi-launch -n 2 "$G500" topo configs/fat-tree-4x4.conf --ranks 10 -k 4
expect rank-map-too-few-nodes 1 "need 17 nodes, the topology has only 16" \
    -- scripts/mpi-launch -n 2 "$G500" topo configs/fat-tree-4x4.conf --ranks 68 -k 4
printf 'SwitchName=a Nodes=n[0-3]\nSwitchName=b Nodes=n[3-5]\nSwitchName=t Switches=a,b\n' >"$work/bad.conf"
expect bad-file-every-rank 1 "error: .*bad.conf:2: node 'n3' is under two leaf switches" \
    -- scripts/mpi-launch -n 2 "$G500" topo "$work/bad.conf"
[ "$(grep -c 'error:' "$work/out")" = 1 ] && { echo "PASS one message, not one per rank"; pass=$((pass+1)); } ||
    { echo "FAIL bad file printed $(grep -c 'error:' "$work/out") error lines"; fail=$((fail+1)); }
expect missing-file 1 "error: $work/none.conf: cannot open" -- "$G500" topo "$work/none.conf"
printf 'SwitchName=l0 Nodes=%s,other1\nSwitchName=l1 Nodes=other[2-3]\nSwitchName=top Switches=l[0-1]\n' \
    "$(hostname)" >"$work/here.conf"
expect by-name 0 "this job's 2 ranks by processor name" "ranks 0-1 -> $(hostname) \(node 0, leaf l0\)" \
    -- scripts/mpi-launch -n 2 "$G500" topo "$work/here.conf" --by-name
expect by-name-missing 1 "host '$(hostname)' \(rank 0\) is not a node of the topology" \
    -- scripts/mpi-launch -n 2 "$G500" topo configs/fat-tree-4x4.conf --by-name
expect help 0 "--ranks-per-node K" "default 1" -- "$G500" topo --help
expect usage-error 2 "expected one topology FILE" -- "$G500" topo
expect unknown-option 2 "unknown option '--rank'" -- "$G500" topo configs/fat-tree-4x4.conf --rank 3
echo "$pass passed, $fail failed"
[ $fail -eq 0 ]
