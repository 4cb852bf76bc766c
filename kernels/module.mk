# SPDX-License-Identifier: MIT
# kernels: `make bench-kernels [BENCH_SCALES="20 22"]` runs g500 run side by
# side over rank/thread configurations and distributions;
# `make bench-construct [BENCH_SCALES="20 22"]` times kernel 1 alone
# (bench/bench-construct.sh) and measures its peak memory.
BENCH_SCALES ?= 20
BENCH_CONSTRUCT := $(BUILD)/bench/bench_construct
.PHONY: bench-kernels bench-construct
bench-kernels: $(G500)
	G500=$(G500) bench/bench-kernels.sh $(BENCH_SCALES)

$(BENCH_CONSTRUCT): $(BUILD)/bench/bench_construct.o $(LIB)
	@$(if $(Q),echo "  LD      $@")
	$(Q)$(CC) $(LDFLAGS) $^ $(LDLIBS) -o $@

bench-construct: $(BENCH_CONSTRUCT) $(G500)
	BENCH_CONSTRUCT=$(BENCH_CONSTRUCT) G500=$(G500) bench/bench-construct.sh $(BENCH_SCALES)
