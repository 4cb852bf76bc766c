#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# partition-cmd.sh - end-to-end checks of `g500 partition`: the placement
# file, rankfile and hostfile are identical at 1, 2 and 4 processes for a
# fixed R; the file passes its own checks and holds a bijection; bad input
# (R not a multiple of K, too few nodes, mismatched files, R != P without
# K, an existing output) fails on every rank with one clear message and no
# output left behind; stale scheduler files beside a missing placement file
# are replaced. Prints "N passed, N failed".
. "$(dirname "$0")/cli-env.bash"
ok() { echo "PASS $1"; pass=$((pass + 1)); }
ko() { echo "FAIL $1"; fail=$((fail + 1)); }
run() { timeout -k 5 300 scripts/mpi-launch -n "$@"; }
w=$(mktemp -d /tmp/g500-partition-cmd.XXXXXX)
trap 'rm -rf "$w"' EXIT
TOPO=configs/fat-tree-4x4.conf

# Inputs: a SCALE 11 graph, its components, and a second graph's components.
if ! run 2 "$G500" gen -q --scale 11 --seed 3 -o "$w/e.h5" >"$w/log" 2>&1 ||
   ! run 2 "$G500" components -q "$w/e.h5" -o "$w/c.h5" >>"$w/log" 2>&1 ||
   ! run 1 "$G500" gen -q --scale 11 --seed 4 -o "$w/e4.h5" >>"$w/log" 2>&1 ||
   ! run 1 "$G500" components -q "$w/e4.h5" -o "$w/c4.h5" >>"$w/log" 2>&1; then
    cat "$w/log"; ko "inputs (gen, components)"; echo "$pass passed, $fail failed"; exit 1
fi

# 1. identical outputs at 1, 2, 4 processes for R = 8 (2 ranks per node)
for np in 1 2 4; do
    if run $np "$G500" partition -q "$w/e.h5" "$w/c.h5" --topology $TOPO --ranks 8 \
        --ranks-per-node 2 -o "$w/p$np.h5" >"$w/out$np" 2>"$w/err$np"; then
        ok "partition at $np processes"
    else
        ko "partition at $np processes"; cat "$w/err$np"
    fi
done
same=1
for np in 2 4; do
    for d in /new_label /owner /rank_offsets /rank_node /node_hops /node_names \
             /metrics/placement/rank_edges /metrics/cyclic/rank_vertices; do
        h5diff "$w/p1.h5" "$w/p$np.h5" "$d" "$d" >/dev/null 2>&1 || { same=0; echo "  $d differs at $np"; }
    done
    h5diff "$w/p1.h5" "$w/p$np.h5" /metrics/placement /metrics/placement >/dev/null 2>&1 || same=0
    cmp -s "$w/p1.rankfile" "$w/p$np.rankfile" || same=0
    cmp -s "$w/p1.hostfile" "$w/p$np.hostfile" || same=0
    cmp -s "$w/p1.machinefile" "$w/p$np.machinefile" || same=0
done
[ $same = 1 ] && ok "placement, rankfile and hostfile identical at 1, 2, 4 processes" || ko "outputs differ across process counts"

# 2. the scheduler files: R lines, ranks 2k and 2k+1 on node k of the walk
if [ "$(wc -l <"$w/p1.hostfile")" = 8 ] && [ "$(sed -n 3p "$w/p1.hostfile")" = n01 ] &&
   grep -qx 'rank 3=n01 slot=1' "$w/p1.rankfile" &&
   [ "$(wc -l <"$w/p1.machinefile")" = 4 ] && [ "$(sed -n 2p "$w/p1.machinefile")" = n01:2 ]; then
    ok "rankfile, hostfile and machinefile place 2 ranks per node in walk order"
else
    ko "rankfile/hostfile/machinefile content"; cat "$w/p1.rankfile" "$w/p1.hostfile" "$w/p1.machinefile"
fi

# 3. the file: a bijection, isolated vertices last, owner -1 exactly for them
python3 - "$w/p1.h5" "$w/c.h5" >"$w/py" 2>&1 <<'EOF'
import sys, subprocess
def ds(f, d):
    out = subprocess.run(["h5dump", "-y", "-w", "0", "-d", d, f], capture_output=True, text=True).stdout
    body = out[out.index("DATA {") + 6: out.rindex("}")]
    body = body[:body.rindex("}")]
    return [int(x) for x in body.replace(",", " ").split() if x.lstrip("-").isdigit()]
nl, ow, lab = ds(sys.argv[1], "/new_label"), ds(sys.argv[1], "/owner"), ds(sys.argv[2], "/label")
n = len(nl); act = sum(1 for l in lab if l >= 0)
assert sorted(nl) == list(range(n)), "new_label is not a bijection"
assert all((ow[v] == -1) == (lab[v] == -1) for v in range(n)), "owner -1 must mark exactly the isolated"
assert all((nl[v] >= act) == (lab[v] == -1) for v in range(n)), "isolated vertices must come last"
iso = [nl[v] for v in range(n) if lab[v] == -1]
assert iso == sorted(iso), "isolated vertices keep id order"
print("ok", n, act)
EOF
grep -q '^ok' "$w/py" && ok "new_label is a bijection with exactly the isolated vertices last" || { ko "file contents"; cat "$w/py"; }

# 4. bad input: one clear message, non-zero exit, no output
bad() { # name, expected message regex, command...
    local name=$1 re=$2; shift 2
    rm -f "$w/bad.h5" "$w/bad.rankfile" "$w/bad.hostfile"
    "$@" -o "$w/bad.h5" >"$w/bout" 2>"$w/berr"
    local rc=$?
    if [ $rc -ne 0 ] && grep -qE "$re" "$w/berr" && [ "$(grep -c 'error:' "$w/berr")" = 1 ] &&
       ! ls "$w"/bad.* >/dev/null 2>&1; then
        ok "$name"
    else
        ko "$name (exit $rc)"; cat "$w/berr"
    fi
}
bad "R not a multiple of ranks-per-node" "multiple" \
    run 2 "$G500" partition -q "$w/e.h5" "$w/c.h5" --topology $TOPO --ranks 6 --ranks-per-node 4
bad "a topology with too few nodes" "node" \
    run 2 "$G500" partition -q "$w/e.h5" "$w/c.h5" --topology configs/single-switch.conf --ranks 64 --ranks-per-node 1
bad "components of another graph" "c4.h5.*e.h5|e.h5.*c4.h5" \
    run 2 "$G500" partition -q "$w/e.h5" "$w/c4.h5" --topology $TOPO --ranks 8 --ranks-per-node 1
bad "R different from P without ranks-per-node" "ranks-per-node" \
    run 2 "$G500" partition -q "$w/e.h5" "$w/c.h5" --topology $TOPO --ranks 8
bad "a missing topology file" "nonexistent.conf" \
    run 2 "$G500" partition -q "$w/e.h5" "$w/c.h5" --topology "$w/nonexistent.conf" --ranks 8 --ranks-per-node 1
if run 2 "$G500" partition -q "$w/e.h5" "$w/c.h5" --topology $TOPO --ranks 8 --ranks-per-node 2 \
       -o "$w/p1.h5" >/dev/null 2>"$w/berr"; then
    ko "an existing output is refused without --force"
else
    grep -q "force" "$w/berr" && ok "an existing output is refused without --force" || { ko "existing output message"; cat "$w/berr"; }
fi

# The rankfile and hostfile follow the placement file: a stale pair beside a
# removed placement file (as the pipeline's cache check leaves) is replaced.
rm -f "$w/q.h5" "$w/q.rankfile" "$w/q.hostfile"
echo "rank 0=stale slot=0" >"$w/q.rankfile"
echo "stale" >"$w/q.hostfile"
if run 2 "$G500" partition -q "$w/e.h5" "$w/c.h5" --topology $TOPO --ranks 8 --ranks-per-node 2 \
       -o "$w/q.h5" >/dev/null 2>"$w/berr" && cmp -s "$w/q.rankfile" "$w/p1.rankfile" &&
   cmp -s "$w/q.hostfile" "$w/p1.hostfile"; then
    ok "a stale rankfile and hostfile beside a missing placement file are replaced"
else
    ko "stale scheduler files"; cat "$w/berr"
fi

echo "$pass passed, $fail failed"
[ $fail -eq 0 ]
