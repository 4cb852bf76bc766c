# SPDX-License-Identifier: MIT
# topo/module.mk - the topology parser's libFuzzer target.
#
#   make fuzz            fuzz the topology parser (FUZZ_TIME seconds, default 600)
#
# The target is built with clang -fsanitize=fuzzer,address,undefined from
# the topo library files and common/common.c; common.h includes
# mpi.h, so mpicc's include and link flags are passed, but nothing calls
# MPI. `make test` runs it briefly (tests/scripts/fuzz-topo.sh).

FUZZ_TIME ?= 600
FUZZ_TOPO := build/fuzz/fuzz_topo
FUZZ_TOPO_SRC := topo/fuzz/fuzz_topo.c topo/topo.c topo/topo_map.c common/common.c
FUZZ_TOPO_DEPS := $(FUZZ_TOPO_SRC) topo/topo.h topo/topo_internal.h common/common.h
FUZZ_FLAGS = -std=c11 -g -O1 -D_GNU_SOURCE -Wall -Wextra \
             -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined \
             -Itopo -Icommon $(shell $(MPICC) --showme:compile)

.PHONY: fuzz
$(FUZZ_TOPO): $(FUZZ_TOPO_DEPS) topo/module.mk
	@mkdir -p $(@D)
	@$(if $(Q),echo "  FUZZ    $@")
	$(Q)fcc=$$(topo/fuzz/need-clang) && \
	  $$fcc $(FUZZ_FLAGS) $(FUZZ_TOPO_SRC) $(shell $(MPICC) --showme:link) -o $@

tests: $(FUZZ_TOPO)

fuzz: $(FUZZ_TOPO)
	@mkdir -p build/fuzz/corpus build/fuzz/artifacts
	$(FUZZ_TOPO) -max_total_time=$(FUZZ_TIME) -max_len=4096 -timeout=10 -rss_limit_mb=4096 \
	  -dict=topo/fuzz/topo.dict -artifact_prefix=build/fuzz/artifacts/ -print_final_stats=1 \
	  build/fuzz/corpus topo/fuzz/corpus

# Benchmark: parse time and hop lookups per second for 1e3..1e6 nodes.
#   make bench-topo
.PHONY: bench bench-topo
$(BUILD)/bench/bench_topo: bench/bench_topo.c $(LIB) $(FLAGS_FILE)
	@mkdir -p $(@D)
	@$(if $(Q),echo "  CC      $<")
	$(Q)$(CC) $(CPPFLAGS) $(CFLAGS) $(LDFLAGS) $< $(LIB) $(LDLIBS) -o $@

bench-topo: $(BUILD)/bench/bench_topo
	$(BUILD)/bench/bench_topo

