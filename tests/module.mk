# SPDX-License-Identifier: MIT
# tests/module.mk - test rules beyond the generic ones in the Makefile.
#
#   make fuzz            fuzz the topology parser (FUZZ_TIME seconds, default 600)

# Fault-injection tests: the k-th allocation on one rank fails. The
# library's calls are routed to the test's wrappers at link time, so
# production code carries no test hook.
$(BUILD)/tests/mpi/mpi_search_faults: LDFLAGS += -Wl,--wrap=realloc
$(BUILD)/tests/mpi/mpi_part_faults: LDFLAGS += -Wl,--wrap=g5_malloc -Wl,--wrap=g5_calloc
# A slow read on one rank: the edges file's reads end with a sleep there.
$(BUILD)/tests/mpi/mpi_k1_timing: LDFLAGS += -Wl,--wrap=io_edges_read_slab

# The topology parser's libFuzzer target, built with clang
# -fsanitize=fuzzer,address,undefined from the topo library files and
# common/common.c; common.h includes mpi.h, so mpicc's include and link
# flags are passed, but nothing calls MPI. `make test` runs it briefly
# (tests/scripts/fuzz-topo.sh).
FUZZ_TIME ?= 600
FUZZ_TOPO := build/fuzz/fuzz_topo
FUZZ_TOPO_SRC := topo/fuzz/fuzz_topo.c topo/topo.c topo/topo_parse.c topo/topo_build.c topo/topo_map.c common/common.c common/tmpfiles.c
FUZZ_TOPO_DEPS := $(FUZZ_TOPO_SRC) topo/topo.h topo/topo_internal.h common/common.h
FUZZ_FLAGS = -std=c11 -g -O1 -D_GNU_SOURCE -Wall -Wextra \
             -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined \
             -Itopo -Icommon $(FUZZ_MPI_CFLAGS)
# The MPI wrapper's own flags: Open MPI answers --showme:compile/link, the
# MPICH family -compile_info/-link_info (the first word is the compiler).
FUZZ_MPI_SHOW = $(if $(filter mpich,$(MPI)),$(wordlist 2,999,$(shell $(MPICC) -$(1)_info)),$(shell $(MPICC) --showme:$(1)))
FUZZ_MPI_CFLAGS = $(filter-out -c,$(call FUZZ_MPI_SHOW,compile))

.PHONY: fuzz
$(FUZZ_TOPO): $(FUZZ_TOPO_DEPS) tests/module.mk
	@mkdir -p $(@D)
	@$(if $(Q),echo "  FUZZ    $@")
	$(Q)fcc=$$(topo/fuzz/need-clang) && \
	  $$fcc $(FUZZ_FLAGS) $(FUZZ_TOPO_SRC) $(call FUZZ_MPI_SHOW,link) -o $@

tests: $(FUZZ_TOPO)

fuzz: $(FUZZ_TOPO)
	@mkdir -p build/fuzz/corpus build/fuzz/artifacts
	$(FUZZ_TOPO) -max_total_time=$(FUZZ_TIME) -max_len=4096 -timeout=10 -rss_limit_mb=4096 \
	  -dict=topo/fuzz/topo.dict -artifact_prefix=build/fuzz/artifacts/ -print_final_stats=1 \
	  build/fuzz/corpus topo/fuzz/corpus

# The write-fault library tests/scripts/write-faults.sh preloads (one rank's
# writes to a temporary file fail with ENOSPC, inside MPI-IO).
WRITE_FAULT := $(BUILD)/tests/libwrite_fault.so
$(WRITE_FAULT): tests/faults/write_fault.c
	@mkdir -p $(@D)
	@$(if $(Q),echo "  CC      $@")
	$(Q)cc -shared -fPIC -O2 -Wall -Wextra -o $@ $< -ldl
tests: $(WRITE_FAULT)

# The memory library tests/scripts/fault-sizes.sh preloads (the memory
# check sees a fake /proc/meminfo and cgroup tree).
MEMINFO_FAKE := $(BUILD)/tests/libmeminfo_fake.so
$(MEMINFO_FAKE): tests/faults/meminfo_fake.c
	@mkdir -p $(@D)
	@$(if $(Q),echo "  CC      $@")
	$(Q)cc -shared -fPIC -O2 -Wall -Wextra -o $@ $< -ldl
tests: $(MEMINFO_FAKE)

# kernels/sssp.c takes AVX-512, AVX2 or plain C at compile time (-march),
# kernels/validate_edges.c AVX-512 or plain C, so the suite's own build
# tests only the host's paths. Their tests are also linked with the file
# built for plain x86-64 (and sssp.c for x86-64-v3, AVX2); the object comes
# before the library, so the archive's is not pulled in.
# tests/scripts/isa.sh runs them where the CPU can.
ifeq ($(shell uname -m),x86_64)
ISA_BIN := $(BUILD)/isa/x86-64/mpi_kern_sssp $(BUILD)/isa/x86-64-v3/mpi_kern_sssp \
           $(BUILD)/isa/x86-64/mpi_validate_keys
.PRECIOUS: $(BUILD)/isa/%/sssp.o $(BUILD)/isa/%/validate_edges.o
$(BUILD)/isa/%/sssp.o: kernels/sssp.c $(FLAGS_FILE)
	@mkdir -p $(@D)
	@$(if $(Q),echo "  CC      $< (-march=$*)")
	$(Q)$(CC) $(CPPFLAGS) $(filter-out -march=%,$(CFLAGS)) -march=$* -MMD -MP -c $< -o $@
$(BUILD)/isa/%/validate_edges.o: kernels/validate_edges.c $(FLAGS_FILE)
	@mkdir -p $(@D)
	@$(if $(Q),echo "  CC      $< (-march=$*)")
	$(Q)$(CC) $(CPPFLAGS) $(filter-out -march=%,$(CFLAGS)) -march=$* -MMD -MP -c $< -o $@
$(BUILD)/isa/%/mpi_kern_sssp: $(BUILD)/isa/%/sssp.o $(BUILD)/tests/mpi/mpi_kern_sssp.o $(LIB)
	@$(if $(Q),echo "  LD      $@")
	$(Q)$(CC) $(LDFLAGS) $^ $(LDLIBS) -o $@
$(BUILD)/isa/%/mpi_validate_keys: $(BUILD)/isa/%/validate_edges.o \
                                  $(BUILD)/tests/mpi/mpi_validate_keys.o $(LIB)
	@$(if $(Q),echo "  LD      $@")
	$(Q)$(CC) $(LDFLAGS) $^ $(LDLIBS) -o $@
tests: $(ISA_BIN)
endif
