#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# slurm-test.sh - the cluster recipe (scripts/g500-slurm.sbatch) under a real
# Slurm on this machine: `make test-slurm` (and `make test` when it fits the
# time budget). Needs root.
#
# 1. installs Debian's slurm-wlm and munge when missing (apt-get; package
#    scripts do not start services here);
# 2. builds g500 for each MPI tested (SLURM_TEST_MPIS, default $MPI or
#    openmpi) outside any job, as a login node would;
# 3. writes a private configuration in a scratch directory: munge key and
#    socket, slurm.conf (proctrack/linuxproc, task/none, select/cons_tres,
#    topology/tree, one node: this host, with its real cores counted twice so
#    4 ranks fit) and a topology.conf beside it; starts munged (as user
#    munge), slurmctld and slurmd, each in the foreground as a child of this
#    script on ports nothing else uses;
# 4. per MPI: sbatch the recipe (SCALE 10, 4 keys, 2 tasks), waits for it
#    under a timeout, and checks the job completed, the Graph500 block was
#    printed and validated, the job's tree came from the topology.conf beside
#    slurm.conf, and the placed run used the placement's SLURM_HOSTFILE with
#    srun --distribution=arbitrary;
# 5. stops exactly the daemons it started (by PID) and checks that none of
#    them, and no job step, is left; a second run starts from scratch again.
# Prints "N passed, N failed". SLURM_TEST_TIMEOUT: seconds per job (600).
set -u
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
cd "$ROOT" || exit 1
pass=0; fail=0
ok() { pass=$((pass + 1)); echo "ok - $1"; }
ko() { fail=$((fail + 1)); echo "FAIL - $1"; }
finish() { echo "$pass passed, $fail failed"; [ $fail -eq 0 ]; exit $?; }
MPIS=${SLURM_TEST_MPIS:-${MPI:-openmpi}}
JOB_TIMEOUT=${SLURM_TEST_TIMEOUT:-600}

if [ "$(id -u)" != 0 ]; then
    echo "slurm-test: needs root (it installs slurm-wlm and munge and starts slurmctld, slurmd and munged)"
    ko "running as root"; finish
fi

# 1. Packages.
missing=()
for c in slurmctld:slurmctld slurmd:slurmd sbatch:slurm-client munged:munge mungekey:munge; do
    command -v "${c%%:*}" >/dev/null 2>&1 || missing+=("${c#*:}")
done
if [ ${#missing[@]} -gt 0 ]; then
    echo "slurm-test: installing slurm-wlm and munge (${missing[*]} missing; log /tmp/g500-apt.log)"
    export DEBIAN_FRONTEND=noninteractive
    apt-get install -y -q --no-install-recommends slurm-wlm munge >/tmp/g500-apt.log 2>&1 || {
        apt-get update -q >>/tmp/g500-apt.log 2>&1
        apt-get install -y -q --no-install-recommends slurm-wlm munge >>/tmp/g500-apt.log 2>&1; } ||
        { tail -20 /tmp/g500-apt.log; ko "apt-get install slurm-wlm munge"; finish; }
fi
ok "slurm-wlm and munge installed ($(slurmctld -V 2>&1), munge $(munged -V 2>&1 | awk '{print $1}'))"

# 2. Build once, outside the job. A make that started this test exported
# its own MPI's compiler, launcher and HDF5 package: each MPI gets its own.
unset MPICC MPIRUN HDF5_PC MPICH_YIELD_LIB MAKEFLAGS MFLAGS MAKELEVEL
for mpi in $MPIS; do
    if make --no-print-directory -j2 MPI="$mpi" >/tmp/g500-slurm-build.$$.log 2>&1; then
        ok "g500 built for $mpi before submitting"
    else
        tail -20 /tmp/g500-slurm-build.$$.log; ko "make MPI=$mpi"; finish
    fi
    rm -f /tmp/g500-slurm-build.$$.log
done

# 3. Private configuration and daemons. One such test at a time on this
# machine (several clones may run `make test` at once): the steps of
# another's jobs would look like ours. Steps already running are not ours.
exec 9>/tmp/g500-slurm-test.lock
flock -w 1800 9 || { ko "another slurm test held /tmp/g500-slurm-test.lock for 30 min"; finish; }
before=" $(pgrep -x slurmstepd | tr '\n' ' ')"
W=$(mktemp -d /tmp/g500-slurm-XXXXXX)
chmod 755 "$W"
host=$(hostname -s)
pids=()
stop_daemons() {
    local p t
    [ -n "${SLURM_CONF:-}" ] && scancel --full --quiet -u root 2>/dev/null
    for p in "${pids[@]}"; do kill -TERM "$p" 2>/dev/null; done
    for t in $(seq 100); do
        local alive=0
        for p in "${pids[@]}"; do kill -0 "$p" 2>/dev/null && alive=1; done
        [ $alive = 0 ] && break
        sleep 0.1
    done
    for p in "${pids[@]}"; do kill -KILL "$p" 2>/dev/null; done
    wait 2>/dev/null
}
cleanup() {
    stop_daemons
    [ "${KEEP:-0}" = 1 ] || rm -rf "$W"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# Two free TCP ports for slurmctld and slurmd.
free_port() {
    local p
    for p in $(seq "$1" $(($1 + 200))); do
        ss -Htln "sport = :$p" 2>/dev/null | grep -q . || { echo "$p"; return; }
    done
}
ctld_port=$(free_port 16817)
slurmd_port=$(free_port $((ctld_port + 1)))

mkdir -p "$W/munge" "$W/munge-run" "$W/etc" "$W/state" "$W/spool" "$W/log"
mungekey --create --keyfile="$W/munge/munge.key" 2>/dev/null ||
    dd if=/dev/urandom of="$W/munge/munge.key" bs=1 count=1024 2>/dev/null
chown -R munge:munge "$W/munge" "$W/munge-run"
chmod 700 "$W/munge"; chmod 600 "$W/munge/munge.key"; chmod 755 "$W/munge-run"
SOCK=$W/munge-run/munge.socket
setpriv --reuid=munge --regid=munge --init-groups munged --foreground --socket="$SOCK" \
    --key-file="$W/munge/munge.key" --pid-file="$W/munge-run/munged.pid" \
    --log-file="$W/munge/munged.log" --seed-file="$W/munge/munged.seed" 2>>"$W/log/munged.err" 9>&- &
pids+=($!)
for t in $(seq 50); do [ -S "$SOCK" ] && break; sleep 0.1; done
if munge -S "$SOCK" -n 2>/dev/null | unmunge -S "$SOCK" >/dev/null 2>&1; then
    ok "munged runs as user munge on a private socket and key"
else
    tail -5 "$W/log/munged.err"; ko "munged"; finish
fi

cpus=$(( $(nproc) * 2 ))
cat >"$W/etc/slurm.conf" <<EOF
ClusterName=g500test
SlurmctldHost=$host
SlurmUser=root
SlurmdUser=root
SlurmctldPort=$ctld_port
SlurmdPort=$slurmd_port
AuthType=auth/munge
AuthInfo=socket=$SOCK
CredType=cred/munge
StateSaveLocation=$W/state
SlurmdSpoolDir=$W/spool
SlurmctldPidFile=$W/slurmctld.pid
SlurmdPidFile=$W/slurmd.pid
SlurmctldLogFile=$W/log/slurmctld.log
SlurmdLogFile=$W/log/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
TopologyPlugin=topology/tree
SwitchType=switch/none
MpiDefault=none
JobCompType=jobcomp/none
AccountingStorageType=accounting_storage/none
JobAcctGatherType=jobacct_gather/none
SlurmdParameters=config_overrides
ReturnToService=2
MinJobAge=600
NodeName=$host CPUs=$cpus State=UNKNOWN
PartitionName=g500 Nodes=$host Default=YES MaxTime=INFINITE State=UP
EOF
printf 'SwitchName=top Switches=leaf0\nSwitchName=leaf0 Nodes=%s\n' "$host" >"$W/etc/topology.conf"
export SLURM_CONF=$W/etc/slurm.conf

slurmctld -D -i -f "$SLURM_CONF" >"$W/log/slurmctld.out" 2>&1 9>&- &
pids+=($!)
slurmd -D -f "$SLURM_CONF" -N "$host" >"$W/log/slurmd.out" 2>&1 9>&- &
pids+=($!)
state=''
for t in $(seq 120); do
    state=$(sinfo -h -N -o '%T' 2>/dev/null | head -n 1)
    [ "$state" = idle ] && break
    sleep 0.5
done
if [ "$state" = idle ]; then
    ok "slurmctld and slurmd up, node $host idle ($cpus CPUs, ports $ctld_port/$slurmd_port)"
else
    tail -5 "$W/log/slurmctld.log" "$W/log/slurmd.log" 2>/dev/null
    ko "node not idle (state '$state')"; finish
fi

# 4. The recipe, once per MPI.
for mpi in $MPIS; do
    run=$W/run-$mpi
    srun_cmd=srun
    # Open MPI 4 takes its ranks' wire-up from PMIx, MPICH's from PMI-2.
    [ "$mpi" = mpich ] && srun_cmd='srun --mpi=pmi2' || srun_cmd='srun --mpi=pmix'
    job=$(SCALE=10 ROOTS=4 RUN=$run MPI=$mpi SRUN=$srun_cmd OMP_NUM_THREADS=1 \
          sbatch --parsable --nodes=1 --ntasks-per-node=2 --time=20 \
          --output="$W/job-$mpi-%j.out" scripts/g500-slurm.sbatch 2>"$W/sbatch.err")
    if [ -z "$job" ]; then ko "sbatch ($mpi): $(cat "$W/sbatch.err")"; continue; fi
    ok "sbatch accepted the recipe ($mpi, job $job)"
    t0=$SECONDS
    while [ -n "$(squeue -h -j "$job" 2>/dev/null)" ] && [ $((SECONDS - t0)) -lt "$JOB_TIMEOUT" ]; do sleep 2; done
    if [ -n "$(squeue -h -j "$job" 2>/dev/null)" ]; then
        ko "job $job ($mpi) still running after ${JOB_TIMEOUT}s: cancelled"; scancel "$job"; continue
    fi
    out=$W/job-$mpi-$job.out
    info=$(scontrol show job "$job" 2>/dev/null)
    if grep -q 'JobState=COMPLETED' <<<"$info" && grep -q 'ExitCode=0:0' <<<"$info"; then
        ok "job $job ($mpi) completed in $((SECONDS - t0)) s, exit 0"
    else
        ko "job $job ($mpi): $(grep -oE 'JobState=[A-Z_]+|ExitCode=[0-9:]+|Reason=[^ ]+' <<<"$info" | tr '\n' ' ')"
        tail -30 "$out" 2>/dev/null
        continue
    fi
    grep -q 'harmonic_mean_TEPS' "$out" && ok "the job printed the Graph500 block ($mpi)" || ko "no Graph500 block in $out"
    if grep -Eq '"validated": *true' "$run"/run-components-*.json 2>/dev/null &&
        grep -Eq '"validated": *true' "$run"/run-cyclic-*.json 2>/dev/null; then
        ok "both runs validated ($mpi)"
    else
        ko "validation ($mpi)"
    fi
    grep -Eq '^num_mpi_processes: *2' "$run"/run-components-*.txt 2>/dev/null &&
        ok "the placed run had 2 ranks in one MPI_COMM_WORLD ($mpi)" || ko "ranks of the placed run ($mpi): $(grep num_mpi "$run"/run-components-*.txt 2>/dev/null)"
    grep -qx "SwitchName=leaf0 Nodes=$host" "$run/job$job.conf" 2>/dev/null &&
        ok "the job's tree was cut from the topology.conf beside slurm.conf" || ko "job tree $run/job$job.conf: $(cat "$run/job$job.conf" 2>/dev/null)"
    grep -q "SLURM_HOSTFILE=.*hostfile .*--distribution=arbitrary" "$out" &&
        ok "the placed run used the placement's SLURM_HOSTFILE with --distribution=arbitrary ($mpi)" ||
        ko "no SLURM_HOSTFILE/--distribution=arbitrary launch in $out"
    [ -s "$run/report/index.md" ] && ok "the report was written ($mpi)" || ko "no report ($mpi)"
done

# 5. Stop what this test started; nothing may be left.
stop_daemons
# Job steps end with their daemon; give them 10 s to exit.
left=''
for t in $(seq 50); do
    left=''
    for p in "${pids[@]}"; do kill -0 "$p" 2>/dev/null && left="$left $p"; done
    for p in $(pgrep -x slurmstepd) $(pgrep -f "$W/" 2>/dev/null); do
        [[ "$before " == *" $p "* ]] && continue
        [ "$p" != $$ ] && [ "$p" != "$BASHPID" ] && left="$left $p"
    done
    [ -z "$left" ] && break
    sleep 0.2
done
if [ -z "$left" ]; then
    ok "munged, slurmctld and slurmd stopped; no job step or process of this test left"
else
    ko "left running:$left"; ps -o pid,args -p ${left// /,} 2>/dev/null
fi
ss -Htln "( sport = :$ctld_port or sport = :$slurmd_port )" 2>/dev/null | grep -q . &&
    ko "ports $ctld_port/$slurmd_port still listened on" || ok "ports $ctld_port and $slurmd_port free again"
finish
