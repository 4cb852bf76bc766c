#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# pipeline-cluster.sh - what can be tested of the cluster recipe on one
# machine: the host-list recipe (scripts/g500-hosts.sh, with the MPI the
# suite tests) on this host as a one-switch tree, 2 ranks on its one node,
# the timed run launched with the placement's rankfile (Open MPI) or
# machinefile (MPICH); and the syntax of the Slurm batch script (the real
# Slurm run is tests/slurm/slurm-test.sh). Not testable here: several hosts.
. "$(dirname "$0")/pipeline-lib.bash"

host=$(hostname)
printf 'SwitchName=s0 Nodes=%s\n' "$host" > "$TMP/site.conf"
printf '%s slots=2\n' "$host" > "$TMP/hosts"
RUN=$TMP/run
check "g500-hosts.sh runs the pipeline" bash -c "TOPO_DIR='$TMP/topo' '$ROOT/scripts/g500-hosts.sh' '$TMP/site.conf' '$TMP/hosts' 2 SCALE=10 ROOTS=4 REPEATS=1 RUN='$RUN' >>'$LOG' 2>&1"
rf=$(ls "$RUN"/placement-*-np2-rpn2.rankfile 2>/dev/null | head -1)
check "the placement wrote a rankfile" test -s "$rf"
check "the rankfile names this host for rank 0 and 1" grep -q "^rank 1=$host slot=" "$rf"
check "the placement wrote a machinefile with 2 ranks on this host" grep -qx "$host:2" "${rf%.rankfile}.machinefile"
check "the placed run was launched with the placement's files" grep -q -- "--placement ${rf%.rankfile}.h5" "$LOG"
check "the launcher uses the rankfile or machinefile" bash -c "cd '$ROOT' && MPI_LAUNCH_DRY=1 scripts/mpi-launch -n 2 --placement '${rf%.rankfile}.h5' x | grep -Eq -- '--rankfile ${rf}|-f ${rf%.rankfile}.machinefile'"
check "the rankfile run validated" grep -Eq '"validated": *(true|1)' "$RUN"/run-components-*-np2-rpn2.json
check "the job's tree went to TOPO_DIR" test -s "$(ls "$TMP"/topo/hosts-*.conf 2>/dev/null | head -1)"
check "the Slurm batch script parses" bash -n "$ROOT/scripts/g500-slurm.sbatch"
check "the Slurm batch script refuses to run outside a job" bash -c "! env -u SLURM_JOB_ID bash '$ROOT/scripts/g500-slurm.sbatch'"
finish
