#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# partition-errors.sh - bad topologies and placement requests the topology
# cannot hold, end to end, with the exit code of EVERY rank recorded.
#
# For one file of each kind the topology parser rejects (syntax, hostlists,
# names, tree structure, tleaf lines, size limits, not a text file, not a
# file), `g500 partition` and `g500 topo` must stop with exactly one
# "error:" line naming the file (and the line) and the problem, the same
# non-zero exit code on every rank, no output file and no hang (each run is
# under a timeout). The same for requests: fewer nodes than R / K, R not a
# multiple of K, R != P without K, this host not in the topology, more
# ranks than vertices, a node name too long for the placement file, a bad
# --ranks, an output in a missing directory, the components file as output
# (even with --force; it stays intact). The two commands alternate between 2 and 4 processes. And an
# edges file and a components file damaged where only the last rank (or
# the upper half of the ranks) reads them.
# Prints "N passed, N failed".
# shellcheck disable=SC2046,SC2059  # $(part ...) splits on purpose; case texts are formats
. "$(dirname "$0")/cli-env.bash"
w=$(mktemp -d /tmp/g500-partition-errors.XXXXXX)
trap 'rm -rf "$w"' EXIT
mkdir -p "$w/out" "$w/rc"
export RCDIR=$w/rc

# expect NAME NP CODE REGEX CMD...: run CMD on NP ranks, each rank writing
# its exit code to $RCDIR/<rank>; every rank must exit CODE, stderr must
# hold one "error:" line matching REGEX, and $w/out must stay empty.
expect() {
    local name=$1 np=$2 code=$3 re=$4; shift 4
    local bad="" rc n
    rm -f "$RCDIR"/* "$w"/out/* "$w"/out/.[!.]* 2>/dev/null
    timeout -k 5 120 scripts/mpi-launch -n "$np" \
        sh -c '"$@"; echo $? >"$RCDIR/${OMPI_COMM_WORLD_RANK:-${PMI_RANK:-$SLURM_PROCID}}"' sh "$@" >"$w/stdout" 2>"$w/stderr"
    rc=$?
    [ $rc -eq 124 ] && bad="timed out (a rank hangs)"
    n=$(ls "$RCDIR" | wc -l)
    [ "$n" = "$np" ] || bad="$bad; $n of $np ranks reported an exit code"
    for r in "$RCDIR"/*; do
        [ -f "$r" ] && [ "$(cat "$r")" != "$code" ] && bad="$bad; rank $(basename "$r") exited $(cat "$r"), not $code"
    done
    n=$(grep -c 'error:' "$w/stderr")
    [ "$n" = 1 ] || bad="$bad; $n error lines"
    grep -qE -- "$re" "$w/stderr" || bad="$bad; no match for /$re/"
    [ -z "$(ls -A "$w/out")" ] || bad="$bad; left behind: $(ls -A "$w/out" | tr '\n' ' ')"
    if [ -z "$bad" ]; then
        echo "PASS $name ($np ranks)"; pass=$((pass + 1))
    else
        echo "FAIL $name ($np ranks): ${bad#; }"; sed 's/^/    /' "$w/stderr" | head -10; fail=$((fail + 1))
    fi
}

if ! scripts/mpi-launch -n 2 "$G500" gen -q --scale 8 --seed 2 -o "$w/e.h5" >"$w/log" 2>&1 ||
   ! scripts/mpi-launch -n 2 "$G500" components -q "$w/e.h5" -o "$w/c.h5" >>"$w/log" 2>&1; then
    cat "$w/log"; echo "FAIL inputs (gen, components)"; echo "$pass passed, 1 failed"; exit 1
fi
part() { # topology, more options...
    local t=$1; shift
    echo "$G500" partition -q "$w/e.h5" "$w/c.h5" --topology "$t" "$@" -o "$w/out/p.h5"
}

# 1. broken topology files: name | text (printf format) | message regex
long=$(printf 'y%.0s' $(seq 65))
cases=(
    "duplicate switch|SwitchName=a Nodes=n1\nSwitchName=b Nodes=n2\nSwitchName=a Nodes=n3\nSwitchName=t Switches=a,b\n|bad.conf:3: .*duplicate switch name 'a'"
    "nodes and switches|SwitchName=a Nodes=n1\nSwitchName=t Switches=a Nodes=n2\n|bad.conf:2: .*both Nodes= and Switches="
    "neither nodes nor switches|SwitchName=a Nodes=n1\nSwitchName=t LinkSpeed=5\n|bad.conf:2: .*neither Nodes= nor Switches="
    "unknown child switch|SwitchName=a Nodes=n1\nSwitchName=t Switches=a,b\n|bad.conf:2: .*unknown switch 'b'"
    "node under two leaves|SwitchName=a Nodes=n[1-3]\nSwitchName=b Nodes=n[3-4]\nSwitchName=t Switches=a,b\n|bad.conf:2: .*node 'n3' is under two leaf switches"
    "node listed twice|SwitchName=a Nodes=n[1-3],n2\n|bad.conf:1: .*lists node 'n2' twice"
    "switch with two parents|SwitchName=a Nodes=n1\nSwitchName=m1 Switches=a\nSwitchName=m2 Switches=a\nSwitchName=t Switches=m1,m2\n|bad.conf:3: .*switch 'a' has two parents"
    "two top switches|SwitchName=a Nodes=n1\nSwitchName=b Nodes=n2\n|bad.conf:2: .*not connected"
    "cycle|SwitchName=t Switches=x\nSwitchName=x Nodes=n1\nSwitchName=a Switches=b\nSwitchName=b Switches=a\n|bad.conf:3: .*cycle"
    "no top switch|SwitchName=a Switches=b\nSwitchName=b Switches=a\n|bad.conf:1: .*no top switch"
    "switch lists itself|SwitchName=a Switches=a\n|bad.conf:1: .*lists itself"
    "empty file|# only a comment\n\n|bad.conf.*empty topology"
    "name too long|SwitchName=a Nodes=n1\nSwitchName=$long Switches=a\n|bad.conf:2: .*longer than 64"
    "malformed hostlist|# x\nSwitchName=s Nodes=n[0-3\n|bad.conf:2: .*unbalanced '\\['"
    "reversed range|SwitchName=s Nodes=n[3-1]\n|bad.conf:1: .*reversed range '3-1'"
    "unknown key|SwitchName=a Node=n1\n|bad.conf:1: .*unknown key 'Node'"
    "not KEY=VALUE|SwitchName=a Nodes=n1 extra\n|bad.conf:1: .*expected KEY=VALUE"
    "no SwitchName|\nNodes=n1\n|bad.conf:2: .*no SwitchName="
    "bad link speed|SwitchName=a Nodes=n1 LinkSpeed=fast\n|bad.conf:1: .*LinkSpeed 'fast'"
    "tleaf arity|# c\ntleaf 2 4 1 4\n|bad.conf:2: .*needs 4 numbers"
    "text after tleaf|tleaf 2 4 1 4 1\nSwitchName=a Nodes=n1\n|bad.conf:2: .*text after the tleaf"
    "too many nodes|tleaf 2 2000 1 2000 1\n|bad.conf:1: .*more than"
    "NUL byte|SwitchName=a\0 Nodes=n1\n|bad.conf: contains a NUL byte"
)
i=0
for c in "${cases[@]}"; do
    name=${c%%|*}; rest=${c#*|}; text=${rest%%|*}; re=${rest#*|}
    printf "$text" >"$w/bad.conf"
    np=$((2 + 2 * (i % 2))); other=$((6 - np)); i=$((i + 1))
    expect "partition: $name" $np 1 "$re" $(part "$w/bad.conf" --ranks 8 --ranks-per-node 1)
    expect "topo: $name" $other 1 "$re" "$G500" topo "$w/bad.conf"
done
mkdir -p "$w/dir.conf"
expect "partition: a directory as topology" 2 1 "dir.conf: is a directory" \
    $(part "$w/dir.conf" --ranks 8 --ranks-per-node 1)
expect "partition: a missing topology" 4 1 "none.conf: cannot open" $(part "$w/none.conf" --ranks 8 --ranks-per-node 1)

# 2. requests the topology cannot hold
expect "fewer nodes than R / K" 2 1 "single-switch.conf: 64 ranks at 1 per node need 64 nodes, the topology has only 8" \
    $(part configs/single-switch.conf --ranks 64 --ranks-per-node 1)
expect "fewer nodes than R / K" 4 1 "fat-tree-4x4.conf: 36 ranks at 2 per node need 18 nodes, the topology has only 16" \
    $(part configs/fat-tree-4x4.conf --ranks 36 --ranks-per-node 2)
expect "R not a multiple of K" 4 1 "6 ranks is not a multiple of 4 ranks per node" \
    $(part configs/fat-tree-4x4.conf --ranks 6 --ranks-per-node 4)
expect "R different from P without K" 2 2 "--ranks 8 differs from the 2 processes running" \
    $(part configs/fat-tree-4x4.conf --ranks 8)
expect "this host is not in the topology" 4 1 "fat-tree-4x4.conf: host '.*' \(rank 0\) is not a node of the topology" \
    $(part configs/fat-tree-4x4.conf)
expect "more ranks than vertices" 2 2 "e.h5: 256 vertices, fewer than the 1024 ranks" \
    $(part configs/three-level-4x4x4.conf --ranks 1024 --ranks-per-node 16)
expect "negative ranks" 4 2 "--ranks and --ranks-per-node must be positive" \
    $(part configs/fat-tree-4x4.conf --ranks -4 --ranks-per-node 1)
expect "an output in a missing directory, refused before the work" 2 1 "nodir/p.h5: cannot create: directory .*nodir does not exist" \
    "$G500" partition -q "$w/e.h5" "$w/c.h5" --topology configs/fat-tree-4x4.conf --ranks 8 --ranks-per-node 1 \
    -o "$w/out/nodir/p.h5"
cp "$w/c.h5" "$w/c-copy.h5"
expect "the components file as output, even with --force" 4 2 "c-copy.h5: is the input file" \
    "$G500" partition -q "$w/e.h5" "$w/c-copy.h5" --topology configs/fat-tree-4x4.conf --ranks 8 --ranks-per-node 1 \
    --force -o "$w/c-copy.h5"
if cmp -s "$w/c.h5" "$w/c-copy.h5"; then echo "PASS the components file given as output is intact"; pass=$((pass + 1))
else echo "FAIL the components file given as output was changed"; fail=$((fail + 1)); fi
printf 'SwitchName=a Nodes=%s,n1\n' "$(printf 'z%.0s' $(seq 64))" >"$w/long.conf"
expect "a node name too long for the placement file" 2 1 "long.conf: node name 'z+' is longer than 63 characters" \
    $(part "$w/long.conf" --ranks 2 --ranks-per-node 1)

# damaged NAME REGEX EDGES COMPONENTS: partition of a damaged input on 2 and
# on 4 ranks (8 ranks placed, 2 per node) fails as `expect` requires.
damaged() {
    local np
    for np in 2 4; do
        expect "$1" $np 1 "$2" "$G500" partition -q "$3" "$4" --topology configs/fat-tree-4x4.conf \
            --ranks 8 --ranks-per-node 2 -o "$w/out/p.h5"
    done
}
# not_made WHAT: the damaged input could not be made, a failure.
not_made() {
    cat "$w/log"; echo "FAIL $1 (cannot make it)"; fail=$((fail + 1))
}

# 3. a damaged file read by one rank only: a flipped byte in the last chunk
# of /edges fails its Fletcher32 checksum on the rank whose slab holds it.
if scripts/mpi-launch -n 2 "$G500" gen -q --scale 8 --seed 2 --chunk-rows 256 -o "$w/e256.h5" >"$w/log" 2>&1 &&
   scripts/mpi-launch -n 2 "$G500" components -q "$w/e256.h5" -o "$w/c256.h5" >>"$w/log" 2>&1 &&
   last=$(h5dump -d /edges -s "4094,0" -c "2,2" -y -w 0 "$w/e256.h5" | sed -n '/DATA {/,/}/p' | tr -cd '0-9,') &&
   python3 - "$w/e256.h5" "$w/damaged.h5" "$last" >>"$w/log" 2>&1 <<'EOF'
import struct, sys
d = bytearray(open(sys.argv[1], "rb").read())
pat = struct.pack("<4I", *[int(x) for x in sys.argv[3].split(",") if x])
i = d.find(pat)
assert i >= 0 and d.count(pat) == 1, "the last rows are not found once"
d[i + 3] ^= 0x40
open(sys.argv[2], "wb").write(d)
EOF
then
    damaged "a damaged edges chunk on the last rank only" \
        "damaged.h5: reading rows [0-9]+\.\.4096 of /edges failed \(damaged chunk" "$w/damaged.h5" "$w/c256.h5"
else
    not_made "a damaged edges file"
fi

# The same for the components file: /label is stored in chunks of 2^16
# rows, so at SCALE 17 (edge factor 1, a small file) its second chunk is
# read only by the ranks whose vertex block lies in the upper half; h5ls
# gives the chunk's address.
if scripts/mpi-launch -n 2 "$G500" gen -q --scale 17 --edgefactor 1 --seed 2 -o "$w/e17.h5" >"$w/log" 2>&1 &&
   scripts/mpi-launch -n 2 "$G500" components -q "$w/e17.h5" -o "$w/c17.h5" >>"$w/log" 2>&1 &&
   addr=$(h5ls -va "$w/c17.h5/label" | awk '/\[65536, 0\]/ {print $3}') && [ -n "$addr" ] &&
   cp "$w/c17.h5" "$w/damaged-c.h5" &&
   printf '\177' | dd of="$w/damaged-c.h5" bs=1 seek=$((addr + 1001)) conv=notrunc 2>>"$w/log"; then
    damaged "a damaged label chunk read by the upper ranks only" \
        "damaged-c.h5: reading rows [0-9]+\.\.(98304|131072) of /label failed \(damaged chunk" \
        "$w/e17.h5" "$w/damaged-c.h5"
else
    not_made "a damaged components file"
fi

echo "$pass passed, $fail failed"
[ $fail -eq 0 ]
