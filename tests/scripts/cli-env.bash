# SPDX-License-Identifier: MIT
# cli-env.bash - the setting the command-line tests (tests/scripts/*-cmd.sh,
# partition-errors.sh) source (not a test itself: the runner runs executable
# *.sh only): bash -u, the repository root as working directory, G500 (the
# binary under test, bin/g500 unless set), Open MPI allowed as root,
# oversubscribed, yielding when idle and unbound (two shared cores), and
# the counters pass=0 fail=0 that each test prints as "N passed, N failed".
set -u
cd "$(dirname "${BASH_SOURCE[0]}")/../.." || exit 1
G500=${G500:-bin/g500}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_rmaps_base_oversubscribe=1 OMPI_MCA_mpi_yield_when_idle=1
export OMPI_MCA_hwloc_base_binding_policy=none
pass=0; fail=0
