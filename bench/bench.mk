# SPDX-License-Identifier: MIT
# bench/bench.mk - every benchmark: its programs (bench/*.c, built into
# $(BUILD)/bench/) and its targets. Timings are noisy on a shared machine:
# the scripts alternate what they compare and print medians and ranges.
#
#   make bench                 every bench-* target below, one after the
#                              other, gathered in results/bench/index.md
#   make bench-gen             generation + write throughput (bench/bench-gen.sh)
#   make bench-cc              connected components (BENCH_CC_SCALES="20 22")
#   make bench-topo            topology parse time and hop lookups per second
#   make bench-partition       placement quality and time (bench/bench-partition.sh)
#   make bench-kernels         `g500 run` over ranks x threads and distributions
#   make bench-construct       kernel 1 alone, with its peak memory
#   make bench-bfs             kernel 2 alone (bench/bench-bfs.sh)
#   make bench-sssp            kernel 3 alone, delta values alternated
#   make bench-validate        the validators alone, 1, 4 and 16 keys per pass
#   make bench-anchors         kernel 1 against the Graph500 reference built
#                              from ../shared/anchors, SSSP at 2x1 and 4x1
#                              against 1x2 (BENCH_ANCHOR_SCALES="20 22");
#                              rewrites its section of docs/performance.md
#   make bench-official        one full official run (64 keys, validated) at
#                              BENCH_OFFICIAL_SCALE (26: about 16 GiB of memory,
#                              65 GB of disk), timed end to end and by part;
#                              rewrites its section of docs/performance.md
#
# Two builds compared: bench/ab.sh A B -- ARGS runs `A ARGS` and `B ARGS`
# alternately and prints per-run times, medians, ranges and B/A.

BENCH_SCALES ?= 20
BENCH_CC_SCALES ?= 20 22
BENCH_SSSP_FILE ?= /tmp/g500-bench/s18.h5
BENCH_SSSP_DELTAS ?= 0.05 0.1
BENCH_ANCHOR_SCALES ?= 20 22
BENCH_OFFICIAL_SCALE ?= 26

# One program per bench/<name>.c, linked with the library.
BENCH_PROGS := $(patsubst bench/%.c,$(BUILD)/bench/%,$(wildcard bench/*.c))

$(BUILD)/bench/%.o: bench/%.c $(FLAGS_FILE)
	@mkdir -p $(@D)
	@$(if $(Q),echo "  CC      $<")
	$(Q)$(CC) $(CPPFLAGS) $(CFLAGS) -MMD -MP -c $< -o $@

$(BENCH_PROGS): $(BUILD)/bench/%: $(BUILD)/bench/%.o $(LIB)
	@$(if $(Q),echo "  LD      $@")
	$(Q)$(CC) $(LDFLAGS) $^ $(LDLIBS) -o $@

# Built with the tests, so that a change that breaks a bench program shows
# there (tests/scripts/bench-cc-smoke.sh also runs bench_cc small).
tests: $(BENCH_PROGS)

B := $(BUILD)/bench

.PHONY: bench bench-gen bench-cc bench-topo bench-partition bench-kernels \
        bench-construct bench-bfs bench-sssp bench-validate bench-anchors bench-official

bench-gen: $(G500) $(B)/gen_rate $(B)/edges_read
	$(Q)G500=$(G500) GEN_RATE=$(B)/gen_rate EDGES_READ=$(B)/edges_read bench/bench-gen.sh

bench-cc: $(B)/bench_cc $(G500)
	BENCH_CC=$(B)/bench_cc G500=$(G500) SCALES="$(BENCH_CC_SCALES)" bench/bench-cc.sh

bench-topo: $(B)/bench_topo
	$(B)/bench_topo

bench-partition: $(G500)
	G500=$(G500) bench/bench-partition.sh

bench-kernels: $(G500)
	G500=$(G500) bench/bench-kernels.sh $(BENCH_SCALES)

bench-construct: $(B)/bench_construct $(G500)
	BENCH_CONSTRUCT=$(B)/bench_construct G500=$(G500) bench/bench-construct.sh $(BENCH_SCALES)

bench-bfs: $(B)/bench_bfs $(G500)
	BENCH_BFS=$(B)/bench_bfs G500=$(G500) bench/bench-bfs.sh $(BENCH_SCALES)

bench-sssp: $(B)/bench_sssp $(G500)
	@mkdir -p $(dir $(BENCH_SSSP_FILE))
	@test -f $(BENCH_SSSP_FILE) || $(G500) gen --scale 18 -o $(BENCH_SSSP_FILE)
	$(B)/bench_sssp $(BENCH_SSSP_FILE) 8 $(BENCH_SSSP_DELTAS)

bench-validate: $(B)/bench_validate
	OMP_NUM_THREADS=2 scripts/mpi-launch -n 1 $(B)/bench_validate $(BENCH_SCALES) 3 1 4 16
	OMP_NUM_THREADS=1 scripts/mpi-launch -n 2 $(B)/bench_validate $(BENCH_SCALES) 3 1 4 16

bench-anchors: $(G500) $(B)/touch_pages
	G500=$(G500) TOUCH=$(B)/touch_pages bench/bench-anchors.sh --doc $(BENCH_ANCHOR_SCALES)

bench-official: $(G500)
	G500=$(G500) bench/bench-official.sh --doc $(BENCH_OFFICIAL_SCALE)

# ---- make bench ------------------------------------------------------------
# Every bench-* target of this file, one after the other (timings must not
# overlap); a failing one is reported and the others still run.
# bench/bench-all.sh gathers their tables into results/bench/index.md.
# A rule may add `bench: bench-x` to run bench-x first (the script then
# only lists it).
# (Regenerating docs/performance.md from those tables belongs here, after
# bench-all.sh.)
BENCH_TARGETS := $(filter-out bench,$(shell sed -n 's/^\(bench-[A-Za-z0-9_-]*\):.*/\1/p' bench/bench.mk))
ifneq ($(filter bench,$(MAKECMDGOALS)),)
BENCH_T0 := $(shell date +%s)
endif
bench: $(G500)
	@MAKE_CMD='$(MAKE_COMMAND)' bench/bench-all.sh --since '$(BENCH_T0)' \
	  --already '$(filter bench-%,$^)' $(filter-out $^,$(BENCH_TARGETS))
