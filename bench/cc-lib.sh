# SPDX-License-Identifier: MIT
# cc-lib.sh - sourced by the components benchmarks (bench-cc.sh,
# bench-cc-merge.sh): Open MPI allowed to run as root (the runs go through
# scripts/mpi-launch, which unbinds, and oversubscribes with yielding ranks
# only where the ranks exceed the cores, so 1 and 2 ranks run as users run
# them), a median of a column of numbers, and cc_phase PATTERN TEXT: the
# number PATTERN's one capture group takes from the first matching progress
# line of TEXT.
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
cc_median() { sort -g | awk '{a[NR] = $1} END {print NR ? a[int((NR + 1) / 2)] : "-"}'; }
cc_phase() { sed -nE "s/.*$1.*/\\1/p" <<<"$2" | head -n 1; }
