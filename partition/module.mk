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

