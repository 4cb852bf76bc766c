#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# topo-subset.sh - cut a site's Slurm topology.conf (topology/tree) down to
# the nodes a job holds, so the pipeline places ranks on those nodes only.
#
#   scripts/topo-subset.sh TOPOLOGY.conf HOST... > job-topology.conf
#   scripts/topo-subset.sh TOPOLOGY.conf --hostfile FILE > job-topology.conf
#
# g500 numbers nodes in switch-tree walk order and puts rank r on node
# r / RANKS_PER_NODE; on a cluster those nodes must be the allocated ones.
# This keeps, for every leaf switch (SwitchName=... Nodes=...), the listed
# nodes the job holds, in the file's order; drops leaves left empty; then
# drops empty inner switches (Switches=...) until none is left, and writes
# every kept switch with its members as plain comma lists. Keys are
# case-insensitive, '#' starts a comment, other keys (LinkSpeed) are kept.
# Hostlists ("n[00-03,12]", "rack[1-2]n[0-1]") are expanded here, in bash,
# so no Slurm command is needed (zero padding is kept as written).
# A host of the job that no leaf lists is an error (exit 1, names it).
set -euo pipefail

die() { echo "topo-subset: $*" >&2; exit 1; }

# Expand one hostlist expression into one name per line.
expand_item() {
    local s=$1 pre body post part lo hi w i
    if [[ $s != *\[* ]]; then echo "$s"; return; fi
    pre=${s%%\[*}; body=${s#*\[}; post=${body#*\]}; body=${body%%\]*}
    IFS=, read -ra parts <<<"$body"
    for part in "${parts[@]}"; do
        if [[ $part == *-* ]]; then
            lo=${part%-*}; hi=${part#*-}; w=${#lo}
            [[ $lo =~ ^[0-9]+$ && $hi =~ ^[0-9]+$ ]] || die "bad range '$part' in '$s'"
            for ((i = 10#$lo; i <= 10#$hi; i++)); do
                expand_item "$pre$(printf "%0${w}d" "$i")$post"
            done
        else
            expand_item "$pre$part$post"
        fi
    done
}

# Split a list on the commas outside brackets, expand each item.
expand_list() {
    local s=$1 depth=0 cur="" c i
    for ((i = 0; i < ${#s}; i++)); do
        c=${s:i:1}
        case $c in
        \[) depth=$((depth + 1)); cur+=$c ;;
        \]) depth=$((depth - 1)); cur+=$c ;;
        ,) if [ $depth -eq 0 ]; then [ -n "$cur" ] && expand_item "$cur"; cur=""; else cur+=$c; fi ;;
        *) cur+=$c ;;
        esac
    done
    [ -n "$cur" ] && expand_item "$cur"
    return 0
}

[ $# -ge 2 ] || die "usage: topo-subset.sh TOPOLOGY.conf HOST... | --hostfile FILE"
conf=$1; shift
[ -r "$conf" ] || die "$conf: cannot read"
declare -A want=() used=()
if [ "$1" = --hostfile ]; then
    [ -r "${2:-}" ] || die "${2:-}: cannot read the host file"
    # Open MPI hostfile ("host slots=N") or one host per line.
    while read -r h _; do [[ -n $h && $h != \#* ]] && want[$h]=1; done < "$2"
else
    for h in "$@"; do want[$h]=1; done
fi

declare -a names=() kinds=() members=() extras=()
lineno=0
while IFS= read -r line || [ -n "$line" ]; do
    lineno=$((lineno + 1))
    line=${line%%#*}
    [[ $line =~ [^[:space:]] ]] || continue
    name="" kind="" list="" extra=""
    for tok in $line; do
        key=${tok%%=*}; val=${tok#*=}
        case ${key,,} in
        switchname) name=$val ;;
        nodes) kind=nodes; list=$val ;;
        switches) kind=switches; list=$val ;;
        *) extra+=" $tok" ;;
        esac
    done
    [ -n "$name" ] || die "$conf:$lineno: no SwitchName"
    [ -n "$kind" ] || die "$conf:$lineno: switch $name has neither Nodes= nor Switches="
    names+=("$name"); kinds+=("$kind"); extras+=("$extra")
    members+=("$(expand_list "$list" | tr '\n' ' ')")
done < "$conf"

declare -A alive=()
for i in "${!names[@]}"; do
    [ "${kinds[$i]}" = nodes ] || continue
    kept=""
    for n in ${members[$i]}; do
        if [ -n "${want[$n]:-}" ]; then kept+="$n "; used[$n]=1; fi
    done
    members[$i]=$kept
    [ -n "$kept" ] && alive[${names[$i]}]=1
done
for h in "${!want[@]}"; do
    [ -n "${used[$h]:-}" ] || die "host $h of the job is under no leaf switch of $conf"
done
# Inner switches live while they have a living child; repeat to a fixed point.
changed=1
while [ $changed -eq 1 ]; do
    changed=0
    for i in "${!names[@]}"; do
        [ "${kinds[$i]}" = switches ] || continue
        kept=""
        for s in ${members[$i]}; do [ -n "${alive[$s]:-}" ] && kept+="$s "; done
        if [ -n "$kept" ] && [ -z "${alive[${names[$i]}]:-}" ]; then
            alive[${names[$i]}]=1; changed=1
        fi
    done
done

echo "# $(basename "$conf") cut to the job's ${#want[@]} nodes by scripts/topo-subset.sh"
for i in "${!names[@]}"; do
    [ -n "${alive[${names[$i]}]:-}" ] || continue
    kept=""
    for m in ${members[$i]}; do
        if [ "${kinds[$i]}" = nodes ] || [ -n "${alive[$m]:-}" ]; then kept+="${kept:+,}$m"; fi
    done
    key=Nodes; [ "${kinds[$i]}" = switches ] && key=Switches
    echo "SwitchName=${names[$i]} $key=$kept${extras[$i]}"
done
