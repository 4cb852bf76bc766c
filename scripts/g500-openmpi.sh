#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# g500-openmpi.sh - the whole g500 pipeline on a set of hosts with Open MPI's
# mpirun, placing the timed run's ranks with the placement's rankfile.
#
#   scripts/g500-openmpi.sh TOPOLOGY.conf HOSTFILE [RANKS_PER_NODE] [make variables...]
#   scripts/g500-openmpi.sh /etc/slurm/topology.conf hosts.txt 4 SCALE=24
#
# HOSTFILE lists the hosts to use, one per line (an Open MPI hostfile with
# "slots=" works too); their names must be the ones TOPOLOGY.conf uses.
# The tree is cut to those hosts (scripts/topo-subset.sh), NP = hosts x
# RANKS_PER_NODE (default 1); gen, components, partition and the cyclic
# baseline run with `mpirun --hostfile HOSTFILE --map-by ppr:K:node`; the
# components-aware run with `mpirun --rankfile <placement>.rankfile`
# ("rank r=host slot=s", each rank on the host the placement chose).
# Extra arguments are passed to make (SCALE=, SEED=, ROOTS=, RUN=, ...).
# TESTED HERE: on one host (the 2-core development machine) with a
# one-switch tree naming it, 2 ranks per node (tests/scripts/pipeline-cluster.sh:
# the rankfile run validates). UNTESTED: several hosts (ssh launch, host
# name matching across a real network).
set -euo pipefail

[ $# -ge 2 ] || { sed -n 's/^#   //p' "$0" >&2; exit 2; }
TOPOLOGY=$1 HOSTFILE=$2; shift 2
RPN=1
if [ $# -gt 0 ] && [[ $1 =~ ^[0-9]+$ ]]; then RPN=$1; shift; fi
[ -r "$TOPOLOGY" ] || { echo "g500-openmpi: cannot read $TOPOLOGY" >&2; exit 2; }
[ -r "$HOSTFILE" ] || { echo "g500-openmpi: cannot read $HOSTFILE" >&2; exit 2; }
mapfile -t HOSTS < <(awk '!/^[[:space:]]*(#|$)/ {print $1}' "$HOSTFILE")
NHOSTS=${#HOSTS[@]}
NP=$((NHOSTS * RPN))
cd "$(dirname "$0")/.."

# The run directory is chosen by make (RUN=... may come in "$@"); the job's
# tree lives in TOPO_DIR (default results/topologies), named by a hash of
# the hosts' names.
tag=$(printf '%s\n' "${HOSTS[@]}" | cksum | cut -d' ' -f1)
TOPO_DIR=${TOPO_DIR:-results/topologies}
mkdir -p "$TOPO_DIR"
JOBTOPO=$TOPO_DIR/hosts-$tag.conf
scripts/topo-subset.sh "$TOPOLOGY" "${HOSTS[@]}" > "$JOBTOPO.tmp.$$"
# Keep the old file (and its time stamp) when the tree did not change, so
# cached placements stay valid.
if cmp -s "$JOBTOPO.tmp.$$" "$JOBTOPO"; then rm -f "$JOBTOPO.tmp.$$"; else mv "$JOBTOPO.tmp.$$" "$JOBTOPO"; fi

[ "$(id -u)" = 0 ] && export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
hosts_csv=$(IFS=,; echo "${HOSTS[*]/%/:$RPN}")
make --no-print-directory pipeline \
    TOPO="$JOBTOPO" NP="$NP" RANKS_PER_NODE="$RPN" \
    MPIRUN="mpirun --host $hosts_csv --map-by ppr:$RPN:node --bind-to none -x OMP_NUM_THREADS -np $NP" \
    MPIRUN_PLACED='mpirun --rankfile $(P_RANKFILE) --bind-to none -x OMP_NUM_THREADS -np $(NP)' \
    "$@"
