# SPDX-License-Identifier: MIT
# g500: one non-recursive Makefile. Objects under $(BUILD), automatic header
# dependencies, a rebuild when flags change, quiet unless V=1, sanitizers as
# a switch (make SANITIZE=address|undefined builds into build/<sanitizer>).
# Sources are found by wildcard; test rules are in tests/module.mk, the
# benchmarks in bench/bench.mk, the pipeline in pipeline.mk.
#
#   make              build bin/g500 (installs missing Debian packages as root)
#   make test         unit tests (Criterion) and MPI tests at 1, 2 and 4 ranks
#   make pipeline     the whole pipeline on a small default (see README)
#   make bench        the benchmarks (bench/bench.mk)

SHELL := /bin/bash
.DEFAULT_GOAL := all

# Setup: check the tool chain once per make run; on Debian as root the script
# installs what is missing, elsewhere it stops with the list to load.
ifeq ($(filter clean help,$(MAKECMDGOALS)),)
DEPS_STATUS := $(shell scripts/install-deps >&2 && echo ok)
ifneq ($(DEPS_STATUS),ok)
$(error missing build dependencies (see the list above))
endif
endif

SANITIZE ?=
BUILD ?= build$(if $(SANITIZE),/$(SANITIZE))
BINDIR := $(if $(SANITIZE),$(BUILD)/bin,bin)
G500 := $(BINDIR)/g500

MPICC ?= mpicc
CC := $(MPICC)
HDF5_PC := $(shell pkg-config --exists hdf5-openmpi && echo hdf5-openmpi || echo hdf5)
HDF5_CFLAGS := $(shell pkg-config --cflags $(HDF5_PC))
HDF5_LIBS := $(shell pkg-config --libs $(HDF5_PC))
CRITERION_CFLAGS := $(shell pkg-config --cflags criterion)
CRITERION_LIBS := $(shell pkg-config --libs criterion)

MODULES := common io gen components topo partition kernels report cli
OPT ?= -O3 -march=native
SAN_FLAGS := $(if $(SANITIZE),-fsanitize=$(SANITIZE) -fno-omit-frame-pointer -fno-sanitize-recover=all)
CPPFLAGS := -D_GNU_SOURCE $(addprefix -I,$(MODULES)) $(HDF5_CFLAGS)
CFLAGS := -std=c11 $(OPT) -g -fopenmp -Wall -Wextra $(SAN_FLAGS)
LDFLAGS := -fopenmp $(SAN_FLAGS)
LDLIBS := $(HDF5_LIBS) -lm

ifeq ($(V),1)
Q :=
else
Q := @
endif

MAIN_SRC := cli/main.c
LIB_SRC := $(filter-out $(MAIN_SRC),$(wildcard $(addsuffix /*.c,$(MODULES))))
LIB_OBJ := $(LIB_SRC:%.c=$(BUILD)/%.o)
LIB := $(BUILD)/libg500.a

UNIT_SRC := $(wildcard tests/unit/test_*.c)
UNIT_BIN := $(UNIT_SRC:tests/unit/%.c=$(BUILD)/tests/unit/%)
MPI_SRC := $(wildcard tests/mpi/mpi_*.c)
MPI_BIN := $(MPI_SRC:tests/mpi/%.c=$(BUILD)/tests/mpi/%)

# Rebuild everything when the flags change.
FLAGS_LINE := $(CC) $(CPPFLAGS) $(CFLAGS) $(LDFLAGS) $(LDLIBS)
FLAGS_FILE := $(BUILD)/.flags
$(shell mkdir -p $(BUILD) && { [ -f $(FLAGS_FILE) ] && [ "$$(cat $(FLAGS_FILE))" = '$(FLAGS_LINE)' ] || echo '$(FLAGS_LINE)' > $(FLAGS_FILE); })

# The version `g500 --version` and every run's provenance print: git
# describe (with -dirty) and the commit at build time, the compiler and
# flags, in a generated header rewritten only when it changes, so that
# what includes it (common/version.c) is rebuilt then; outside git a
# fallback. Quotes and backslashes are dropped from the strings.
G500_VERSION := $(shell git describe --always --dirty 2>/dev/null || echo 0-nogit)
G500_COMMIT := $(shell git rev-parse HEAD 2>/dev/null || echo unknown)
VERSION_H := $(BUILD)/g500_version.h
VERSION_TEXT := \#define G500_VERSION "$(G500_VERSION)"|\#define G500_COMMIT "$(G500_COMMIT)"|\#define G500_BUILD_FLAGS "$(subst ",,$(subst \,,$(strip $(CC) $(CFLAGS))))"
$(shell printf '%s\n' '$(VERSION_TEXT)' | tr '|' '\n' > $(VERSION_H).new; cmp -s $(VERSION_H).new $(VERSION_H) && rm -f $(VERSION_H).new || mv $(VERSION_H).new $(VERSION_H))
$(BUILD)/common/version.o: CPPFLAGS += -I$(BUILD)

.PHONY: all test tests clean help
# Object files are intermediate for the test binaries: keep them (a bare
# .SECONDARY: would also keep stale pipeline outputs whose inputs vanished).
.PRECIOUS: $(BUILD)/%.o $(BUILD)/tests/unit/%.o $(BUILD)/tests/mpi/%.o $(BUILD)/bench/%.o
all: $(G500)

$(BUILD)/%.o: %.c $(FLAGS_FILE)
	@mkdir -p $(@D)
	@$(if $(Q),echo "  CC      $<")
	$(Q)$(CC) $(CPPFLAGS) $(CFLAGS) -MMD -MP -c $< -o $@

$(LIB): $(LIB_OBJ)
	@$(if $(Q),echo "  AR      $@")
	$(Q)rm -f $@ && ar rcs $@ $^

$(G500): $(BUILD)/cli/main.o $(LIB)
	@mkdir -p $(@D)
	@$(if $(Q),echo "  LD      $@")
	$(Q)$(CC) $(LDFLAGS) $^ $(LDLIBS) -o $@

$(BUILD)/tests/unit/%.o: tests/unit/%.c $(FLAGS_FILE)
	@mkdir -p $(@D)
	@$(if $(Q),echo "  CC      $<")
	$(Q)$(CC) $(CPPFLAGS) -Itests/unit $(CRITERION_CFLAGS) $(CFLAGS) -MMD -MP -c $< -o $@

$(BUILD)/tests/unit/%: $(BUILD)/tests/unit/%.o $(LIB)
	@$(if $(Q),echo "  LD      $@")
	$(Q)$(CC) $(LDFLAGS) $^ $(LDLIBS) $(CRITERION_LIBS) -o $@

$(BUILD)/tests/mpi/%.o: tests/mpi/%.c $(FLAGS_FILE)
	@mkdir -p $(@D)
	@$(if $(Q),echo "  CC      $<")
	$(Q)$(CC) $(CPPFLAGS) -Itests/mpi $(CFLAGS) -MMD -MP -c $< -o $@

$(BUILD)/tests/mpi/%: $(BUILD)/tests/mpi/%.o $(LIB)
	@$(if $(Q),echo "  LD      $@")
	$(Q)$(CC) $(LDFLAGS) $^ $(LDLIBS) -o $@

tests: $(G500) $(UNIT_BIN) $(MPI_BIN)

# The README's test command. Runs as root on CI, so Open MPI is told that is fine.
export OMPI_ALLOW_RUN_AS_ROOT := 1
export OMPI_ALLOW_RUN_AS_ROOT_CONFIRM := 1
test: tests
	$(Q)BUILD=$(BUILD) G500=$(G500) SANITIZE=$(SANITIZE) tests/run-tests.sh

clean:
	rm -rf build bin

help:
	@sed -n 's/^#   //p' Makefile

include tests/module.mk bench/bench.mk pipeline.mk
-include $(shell find $(BUILD) -name '*.d' 2>/dev/null)
