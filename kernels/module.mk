# SPDX-License-Identifier: MIT
# kernels: `make bench-kernels [BENCH_SCALES="20 22"]` runs g500 run side by
# side over rank/thread configurations and distributions.
BENCH_SCALES ?= 20
.PHONY: bench-kernels
bench-kernels: $(G500)
	G500=$(G500) bench/bench-kernels.sh $(BENCH_SCALES)
