# SPDX-License-Identifier: MIT
# cc-lib.sh - sourced by the components benchmarks (bench-cc.sh,
# bench-cc-merge.sh): Open MPI set for oversubscribed
# runs of 1-8 ranks on a small machine (as root, no binding, ranks yield
# and OpenMP threads wait passively when idle), a median of a column of
# numbers, and cc_phase PATTERN TEXT: the number PATTERN's one capture
# group takes from the first matching progress line of TEXT.
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_mpi_yield_when_idle=1 OMPI_MCA_hwloc_base_binding_policy=none
export OMPI_MCA_rmaps_base_oversubscribe=1 OMP_WAIT_POLICY=passive
cc_median() { sort -g | awk '{a[NR] = $1} END {print NR ? a[int((NR + 1) / 2)] : "-"}'; }
cc_phase() { sed -nE "s/.*$1.*/\\1/p" <<<"$2" | head -n 1; }
