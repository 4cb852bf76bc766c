#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# g500-hosts.sh - the whole g500 pipeline on a set of hosts with mpirun
# (Open MPI) or mpiexec (MPICH), placing the timed run's ranks with the
# placement's rankfile or machinefile.
#
#   scripts/g500-hosts.sh TOPOLOGY.conf HOSTFILE [RANKS_PER_NODE] [make variables...]
#   scripts/g500-hosts.sh /etc/slurm/topology.conf hosts.txt 4 SCALE=24
#   MPI=mpich scripts/g500-hosts.sh /etc/slurm/topology.conf hosts.txt 4
#
# HOSTFILE lists the hosts to use, one per line (an Open MPI hostfile with
# "slots=" works too); their names must be the ones TOPOLOGY.conf uses.
# The tree is cut to those hosts (scripts/topo-subset.sh), NP = hosts x
# RANKS_PER_NODE (default 1). gen, components, partition and the cyclic
# baseline run K ranks per host in host order (Open MPI: mpirun --host
# h1:K,... --map-by ppr:K:node; MPICH: mpiexec -hosts h1:K,...); the
# components-aware run on the hosts the placement chose (PLACE_RANKS=1:
# mpirun --rankfile <placement>.rankfile, or mpiexec -f
# <placement>.machinefile), all through scripts/mpi-launch. MPI (openmpi
# or mpich) picks the launcher, like make's MPI=; the binary is built first
# if needed. Extra arguments are passed to make (SCALE=, SEED=, ROOTS=, RUN=, ...).
# TESTED HERE: on one host (the 2-core development machine) with a
# one-switch tree naming it, 2 ranks per node, both MPIs
# (tests/scripts/pipeline-cluster.sh: the placed run validates).
# UNTESTED: several hosts (ssh launch, host name matching across a real
# network).
set -euo pipefail

[ $# -ge 2 ] || { sed -n 's/^#   //p' "$0" >&2; exit 2; }
TOPOLOGY=$1 HOSTFILE=$2; shift 2
RPN=1
if [ $# -gt 0 ] && [[ $1 =~ ^[0-9]+$ ]]; then RPN=$1; shift; fi
[ -r "$TOPOLOGY" ] || { echo "g500-hosts: cannot read $TOPOLOGY" >&2; exit 2; }
[ -r "$HOSTFILE" ] || { echo "g500-hosts: cannot read $HOSTFILE" >&2; exit 2; }
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

hosts_k=$(IFS=,; echo "${HOSTS[*]/%/:$RPN}")
if [ "${MPI:-openmpi}" = mpich ]; then
    launcher=$(command -v mpiexec.mpich || echo mpiexec)
    hosts_opt="-hosts $hosts_k"
else
    launcher=mpirun
    hosts_opt="--host $hosts_k --map-by ppr:$RPN:node"
fi
make --no-print-directory pipeline MPI="${MPI:-openmpi}" \
    TOPO="$JOBTOPO" NP="$NP" RANKS_PER_NODE="$RPN" \
    MPIRUN="$launcher $hosts_opt" MPIRUN_PLACED="$launcher" PLACE_RANKS=1 \
    "$@"
