#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# pipeline-cluster.sh - what can be tested of the cluster recipe on one
# machine: the Open MPI rankfile variant (scripts/g500-openmpi.sh) on this
# host as a one-switch tree, 2 ranks on its one node, the timed run launched
# with the placement's rankfile; and the syntax of the Slurm batch script.
# Not testable here: srun, SLURM_HOSTFILE, several hosts.
. "$(dirname "$0")/pipeline-lib.bash"

host=$(hostname)
printf 'SwitchName=s0 Nodes=%s\n' "$host" > "$TMP/site.conf"
printf '%s slots=2\n' "$host" > "$TMP/hosts"
RUN=$TMP/run
check "g500-openmpi.sh runs the pipeline" bash -c "TOPO_DIR='$TMP/topo' '$ROOT/scripts/g500-openmpi.sh' '$TMP/site.conf' '$TMP/hosts' 2 SCALE=10 ROOTS=4 RUN='$RUN' >>'$LOG' 2>&1"
rf=$(ls "$RUN"/placement-*-np2-rpn2.rankfile 2>/dev/null | head -1)
check "the placement wrote a rankfile" test -s "$rf"
check "the rankfile names this host for rank 0 and 1" grep -q "^rank 1=$host slot=" "$rf"
check "the rankfile run was launched with --rankfile" grep -q -- "--rankfile $rf" "$LOG"
check "the rankfile run validated" grep -Eq '"validated": *(true|1)' "$RUN"/run-components-*-np2-rpn2.json
check "the job's tree went to TOPO_DIR" test -s "$(ls "$TMP"/topo/hosts-*.conf 2>/dev/null | head -1)"
check "the Slurm batch script parses" bash -n "$ROOT/scripts/g500-slurm.sbatch"
check "the Slurm batch script refuses to run outside a job" bash -c "! env -u SLURM_JOB_ID bash '$ROOT/scripts/g500-slurm.sbatch'"
finish
