# SPDX-License-Identifier: MIT
# kernels: `make bench-kernels [BENCH_SCALES="20 22"]` runs g500 run side by
# side over rank/thread configurations and distributions.
BENCH_SCALES ?= 20
.PHONY: bench-kernels
bench-kernels: $(G500)
	G500=$(G500) bench/bench-kernels.sh $(BENCH_SCALES)

# kernel 2 alone: `make bench-bfs [BENCH_SCALES=20]` (bench/bench-bfs.sh);
# build/bench/bench_bfs is also the callgrind target for BFS changes.
BENCH_BFS := $(BUILD)/bench/bench_bfs
$(BENCH_BFS): $(BUILD)/bench/bench_bfs.o $(LIB)
	@$(if $(Q),echo "  LD      $@")
	$(Q)$(CC) $(LDFLAGS) $^ $(LDLIBS) -o $@
.PHONY: bench-bfs
bench-bfs: $(BENCH_BFS) $(G500)
	BENCH_BFS=$(BENCH_BFS) G500=$(G500) bench/bench-bfs.sh $(BENCH_SCALES)
