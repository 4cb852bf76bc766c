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

# kernel 2 alone: `make bench-bfs [BENCH_SCALES=20] [BASE=other/bench_bfs]`
# (bench/bench-bfs.sh; with BASE, an alternated A/B of the two binaries);
# build/bench/bench_bfs is also the callgrind target for BFS changes.
BENCH_BFS := $(BUILD)/bench/bench_bfs
$(BENCH_BFS): $(BUILD)/bench/bench_bfs.o $(LIB)
	@$(if $(Q),echo "  LD      $@")
	$(Q)$(CC) $(LDFLAGS) $^ $(LDLIBS) -o $@
.PHONY: bench-bfs
bench-bfs: $(BENCH_BFS) $(G500)
	BENCH_BFS=$(BENCH_BFS) G500=$(G500) BASE=$(BASE) bench/bench-bfs.sh $(BENCH_SCALES)

# Two versions of kernel 2 in one process: `make bench-bfs-ab
# [BFS_BASE=main] [BENCH_SCALES=20]` builds build/bench/bench_bfs_ab from
# BFS_BASE's kernels/bfs.c (public names prefixed A_) and this tree's (B_),
# then bench/bench-bfs.sh runs it (AB=) over its configurations. Always
# rebuilt: BFS_BASE names a revision, not a file make can date.
BFS_BASE ?= main
BENCH_BFS_AB := $(BUILD)/bench/bench_bfs_ab
BFS_AB_NAMES := kern_bfs_create kern_bfs_free kern_bfs_run kern_bfs_parent kern_bfs_scratch kern_levels_free
.PHONY: bench-bfs-ab $(BENCH_BFS_AB)
$(BENCH_BFS_AB): $(BUILD)/bench/bench_bfs_ab.o $(LIB)
	$(Q)git show $(BFS_BASE):kernels/bfs.c > $(BUILD)/bench/bfs_base.c
	$(Q)$(CC) $(CPPFLAGS) -Ikernels $(CFLAGS) $(foreach f,$(BFS_AB_NAMES),-D$(f)=A_$(f)) -c $(BUILD)/bench/bfs_base.c -o $(BUILD)/bench/bfs_base.o
	$(Q)$(CC) $(CPPFLAGS) $(CFLAGS) $(foreach f,$(BFS_AB_NAMES),-D$(f)=B_$(f)) -c kernels/bfs.c -o $(BUILD)/bench/bfs_this.o
	@$(if $(Q),echo "  LD      $@ (A: $(BFS_BASE), B: this tree)")
	$(Q)$(CC) $(LDFLAGS) $(BUILD)/bench/bench_bfs_ab.o $(BUILD)/bench/bfs_base.o $(BUILD)/bench/bfs_this.o $(LIB) $(LDLIBS) -o $@
bench-bfs-ab: $(BENCH_BFS_AB) $(G500)
	AB=$(BENCH_BFS_AB) G500=$(G500) bench/bench-bfs.sh $(BENCH_SCALES)

# The BFS fault test makes the k-th realloc on one rank fail: the library's
# calls are routed to the test's wrapper at link time (no hook in bfs.c).
$(BUILD)/tests/mpi/mpi_bfs_faults: LDFLAGS += -Wl,--wrap=realloc

# kernel 3 alone: `make bench-sssp [BENCH_SSSP_FILE=... BENCH_SSSP_DELTAS="0.05 0.1"]`
# alternates delta values root by root in one process (wall and CPU time).
BENCH_SSSP := $(BUILD)/bench/bench_sssp
BENCH_SSSP_FILE ?= /tmp/g500-bench/s18.h5
BENCH_SSSP_DELTAS ?= 0.05 0.1
$(BENCH_SSSP): $(BUILD)/bench/bench_sssp.o $(LIB)
	@$(if $(Q),echo "  LD      $@")
	$(Q)$(CC) $(LDFLAGS) $^ $(LDLIBS) -o $@
.PHONY: bench-sssp
bench-sssp: $(BENCH_SSSP) $(G500)
	@mkdir -p $(dir $(BENCH_SSSP_FILE))
	@test -f $(BENCH_SSSP_FILE) || $(G500) gen --scale 18 -o $(BENCH_SSSP_FILE)
	$(BENCH_SSSP) $(BENCH_SSSP_FILE) 8 $(BENCH_SSSP_DELTAS)
# The validators alone: `make bench-validate [BENCH_SCALES=18]` runs
# bench/bench_validate.c (validated input edges per second on an in-memory
# R-MAT list) at 1 rank x 2 threads and 2 ranks x 1 thread;
# bench/bench-validate-ab.sh alternates two g500 binaries on a file.
BENCH_VALIDATE := $(BUILD)/bench/bench_validate
$(BENCH_VALIDATE): $(BUILD)/bench/bench_validate.o $(LIB)
	@$(if $(Q),echo "  LD      $@")
	$(Q)$(CC) $(LDFLAGS) $^ $(LDLIBS) -o $@
.PHONY: bench-validate
bench-validate: $(BENCH_VALIDATE)
	mpirun --bind-to none -np 1 -x OMP_NUM_THREADS=2 $(BENCH_VALIDATE) $(BENCH_SCALES) 3
	mpirun --bind-to none --oversubscribe -np 2 -x OMP_NUM_THREADS=1 $(BENCH_VALIDATE) $(BENCH_SCALES) 3

$(BENCH_CONSTRUCT): $(BUILD)/bench/bench_construct.o $(LIB)
	@$(if $(Q),echo "  LD      $@")
	$(Q)$(CC) $(LDFLAGS) $^ $(LDLIBS) -o $@

bench-construct: $(BENCH_CONSTRUCT) $(G500)
	BENCH_CONSTRUCT=$(BENCH_CONSTRUCT) G500=$(G500) bench/bench-construct.sh $(BENCH_SCALES)
