#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# pipeline-topo-subset.sh - scripts/topo-subset.sh, which cuts a site's
# topology.conf to a job's nodes for the cluster recipes: hostlist
# expansion (ranges, zero padding, lists, two bracket groups), case-
# insensitive keys, dropping empty leaves and inner switches, and errors.
. "$(dirname "$0")/pipeline-lib.bash"
S=$ROOT/scripts/topo-subset.sh

cat > "$TMP/site.conf" <<'CONF'
# a three-level tree
SwitchName=l0 Nodes=n[00-03] LinkSpeed=100
switchname=l1 nodes=n[04-05,07],x1
SwitchName=l2 Nodes=r[1-2]c[0-1]
SwitchName=p0 Switches=l[0-1]
SwitchName=p1 Switches=l2
SwitchName=top Switches=p[0-1]
CONF
out=$("$S" "$TMP/site.conf" n01 n03 x1 2>&1)
check "keeps the job's nodes in file order, plain lists" grep -qx 'SwitchName=l0 Nodes=n01,n03 LinkSpeed=100' <<<"$out"
check "lowercase keys are read" grep -qx 'SwitchName=l1 Nodes=x1' <<<"$out"
check "an empty leaf is dropped" absent 'SwitchName=l2' <<<"$out"
check "an inner switch left empty is dropped" absent 'SwitchName=p1' <<<"$out"
check "inner switches keep living children only" grep -qx 'SwitchName=top Switches=p0' <<<"$out"
out=$("$S" "$TMP/site.conf" r2c1 n07 2>&1)
check "two bracket groups expand" grep -qx 'SwitchName=l2 Nodes=r2c1' <<<"$out"
check "a range with a gap (04-05,07) expands" grep -qx 'SwitchName=l1 Nodes=n07' <<<"$out"
printf 'n02 slots=4\n# comment\nr1c0\n' > "$TMP/hosts"
out=$("$S" "$TMP/site.conf" --hostfile "$TMP/hosts" 2>&1)
check "an Open MPI hostfile is read" grep -qx 'SwitchName=top Switches=p0,p1' <<<"$out"
check "a host under no leaf is an error" bash -c "! '$S' '$TMP/site.conf' n01 nothere 2>/dev/null"
check "the error names the host" bash -c "'$S' '$TMP/site.conf' nothere 2>&1 | grep -q 'host nothere'"
printf 'SwitchName=a Nodes=n[3-x]\n' > "$TMP/bad.conf"
check "a bad range is an error" bash -c "! '$S' '$TMP/bad.conf' n3 2>/dev/null"
printf 'SwitchName=a LinkSpeed=1\n' > "$TMP/bad.conf"
check "a switch with no members is an error naming the line" bash -c "'$S' '$TMP/bad.conf' n3 2>&1 | grep -q 'bad.conf:1:'"
finish
