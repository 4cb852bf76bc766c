# SPDX-License-Identifier: MIT
# partition/module.mk - the placement benchmark.
#
#   make bench-partition   SCALE 20 and 22 (BENCH_SCALES), R = 16 on the
#                          two-level 4x4 fat tree and R = 64 on the
#                          three-level tree: partition time and the quality
#                          table, placement vs cyclic vs block, per order
#                          (BENCH_ORDERS); log in results/bench-partition-*.txt
.PHONY: bench bench-partition
bench-partition: $(G500)
	G500=$(G500) bench/bench-partition.sh


# The fault-injection test makes the k-th g5_malloc/g5_calloc fail on one
# rank: the library's calls are routed to the test's wrappers at link time,
# so production code carries no test hook.
$(BUILD)/tests/mpi/mpi_part_faults: LDFLAGS += -Wl,--wrap=g5_malloc -Wl,--wrap=g5_calloc
