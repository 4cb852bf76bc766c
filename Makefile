# SPDX-License-Identifier: MIT
# g500: one non-recursive Makefile. Objects under $(BUILD), automatic header
# dependencies, a rebuild when flags change, quiet unless V=1, sanitizers as
# a switch (make SANITIZE=address|undefined builds into build/<sanitizer>).
# Sources are found by wildcard; test rules are in tests/module.mk, the
# benchmarks in bench/bench.mk, the pipeline in pipeline.mk.
#
#   make              build bin/g500 (needs an MPI C compiler and parallel HDF5)
#   make test         unit tests (Criterion) and MPI tests at 1, 2 and 4 ranks
#   make test-slurm   the cluster recipe under a real Slurm on this machine (root)
#   make pipeline     the whole pipeline on a small default (see README)
#   make bench        the benchmarks (bench/bench.mk)
#   make install PREFIX=DIR   bin/g500, configs and docs under DIR
#   make MPI=mpich ...        any target with MPICH (build/mpich, bin/mpich/g500)
#   HDF5_DIR=DIR make         a parallel HDF5 outside pkg-config (also h5pcc)
#   MPIRUN='srun' make ...    the launcher (mpirun, mpiexec or srun) for runs

SHELL := /bin/bash
.DEFAULT_GOAL := all

# Which MPI: its compiler wrapper, its HDF5 package and its launcher (any
# of them can be given: MPICC=cc MPIRUN=srun HDF5_DIR=... for a Cray or a
# site's modules). Each MPI builds into its own folder.
MPI ?= openmpi
ifeq ($(MPI),openmpi)
MPICC ?= mpicc
MPIRUN ?= mpirun
MPI_DIR :=
else ifeq ($(MPI),mpich)
# Debian names MPICH's tools *.mpich (installed by install-deps if missing).
MPI_DEBIAN := $(shell command -v mpicc.mpich || command -v apt-get)
MPICC ?= $(if $(MPI_DEBIAN),mpicc.mpich,mpicc)
MPIRUN ?= $(if $(MPI_DEBIAN),mpiexec.mpich,mpiexec)
MPI_DIR := /mpich
else
$(error MPI=$(MPI): use MPI=openmpi or MPI=mpich (another MPI: MPICC=..., MPIRUN=..., HDF5_DIR=...))
endif
HDF5_PC ?= hdf5-$(MPI)
export MPI MPICC MPIRUN HDF5_PC

# Setup: check what the goals need, once per make run (scripts/install-deps:
# on Debian as root it installs what is missing, elsewhere it stops with the
# list to load). The build needs only MPICC and a parallel HDF5; the tests
# add Criterion and their tools; runs need the launcher.
DEPS_NEEDS := $(sort build \
  $(if $(filter test tests,$(MAKECMDGOALS)),test run) \
  $(if $(filter pipeline kernels report bench bench-%,$(MAKECMDGOALS)),run plots))
# PREBUILT=1: run the binary built before (a batch job on a compute node,
# scripts/g500-slurm.sbatch): no checks, nothing compiled.
PREBUILT ?=
DEPS_SKIP := $(PREBUILT)$(and $(MAKECMDGOALS),$(if $(filter-out clean help pipeline-clean,$(MAKECMDGOALS)),,yes))
HDF5_GIVEN := HDF5_DIR='$(HDF5_DIR)' HDF5_CFLAGS='$(HDF5_CFLAGS)' HDF5_LIBS='$(HDF5_LIBS)'
DEPS_ENV := MPI='$(MPI)' MPICC='$(MPICC)' MPIRUN='$(MPIRUN)' HDF5_PC='$(HDF5_PC)' $(HDF5_GIVEN)
ifeq ($(DEPS_SKIP),)
DEPS_STATUS := $(shell $(DEPS_ENV) scripts/install-deps $(DEPS_NEEDS) >&2 && echo ok)
ifneq ($(DEPS_STATUS),ok)
$(error missing dependencies (see the list above))
endif
endif

SANITIZE ?=
BUILD ?= build$(MPI_DIR)$(if $(SANITIZE),/$(SANITIZE))
BINDIR := $(if $(SANITIZE),$(BUILD)/bin,bin$(MPI_DIR))
G500 := $(BINDIR)/g500

CC := $(MPICC)
# HDF5: HDF5_DIR, HDF5_CFLAGS/HDF5_LIBS, pkg-config or h5pcc; a serial one is
# refused (scripts/find-hdf5). Asked only when something is compiled.
HDF5_CFLAGS := $(if $(DEPS_STATUS),$(shell $(DEPS_ENV) scripts/find-hdf5 --cflags))
HDF5_LIBS := $(if $(DEPS_STATUS),$(shell $(DEPS_ENV) scripts/find-hdf5 --libs))
# Only the test programs need Criterion (expanded when they are built).
CRITERION_CFLAGS = $(shell pkg-config --cflags criterion)
CRITERION_LIBS = $(shell pkg-config --libs criterion)

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
$(if $(PREBUILT),,$(shell mkdir -p $(BUILD) && { [ -f $(FLAGS_FILE) ] && [ "$$(cat $(FLAGS_FILE))" = '$(FLAGS_LINE)' ] || echo '$(FLAGS_LINE)' > $(FLAGS_FILE); }))

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

.PHONY: all test tests test-slurm install clean help
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

ifeq ($(PREBUILT),)
$(G500): $(BUILD)/cli/main.o $(LIB)
	@mkdir -p $(@D)
	@$(if $(Q),echo "  LD      $@")
	$(Q)$(CC) $(LDFLAGS) $^ $(LDLIBS) -o $@
else
$(G500):
	@test -x $@ || { echo "$@ is missing: build it before submitting (make$(if $(MPI_DIR), MPI=$(MPI)), with the modules loaded)" >&2; exit 1; }
endif

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

# MPICH never yields while it waits: ranks sharing cores preload this
# (scripts/mpi-launch; see scripts/mpich-yield.c).
ifeq ($(MPI),mpich)
MPICH_YIELD_LIB := $(BUILD)/mpich-yield.so
export MPICH_YIELD_LIB := $(abspath $(MPICH_YIELD_LIB))
all tests: $(MPICH_YIELD_LIB)
$(MPICH_YIELD_LIB): scripts/mpich-yield.c
	@mkdir -p $(@D)
	@$(if $(Q),echo "  CC      $<")
	$(Q)$(CC) -std=c11 -O2 -Wall -Wextra -shared -fPIC $< -o $@ -ldl
endif

# The README's test command. Runs as root on CI, so Open MPI is told that is fine.
export OMPI_ALLOW_RUN_AS_ROOT := 1
export OMPI_ALLOW_RUN_AS_ROOT_CONFIRM := 1
test: tests
	$(Q)BUILD=$(BUILD) G500=$(G500) SANITIZE=$(SANITIZE) tests/run-tests.sh

# The cluster recipe under a real Slurm started on this machine (root: it
# installs slurm-wlm and munge when missing; tests/slurm/slurm-test.sh).
test-slurm: $(G500)
	$(Q)tests/slurm/slurm-test.sh

# bin/g500, the topology configs and the docs under PREFIX (a module's root;
# the README's links to docs/ still work there).
PREFIX ?= /usr/local
install: $(G500)
	install -d '$(DESTDIR)$(PREFIX)/bin' '$(DESTDIR)$(PREFIX)/share/g500/configs' '$(DESTDIR)$(PREFIX)/share/doc/g500/docs'
	install -m 755 $(G500) '$(DESTDIR)$(PREFIX)/bin/g500'
	install -m 644 $(wildcard configs/*.conf configs/*.md) '$(DESTDIR)$(PREFIX)/share/g500/configs/'
	install -m 644 README.md $(wildcard LICENSE) '$(DESTDIR)$(PREFIX)/share/doc/g500/'
	install -m 644 docs/*.md '$(DESTDIR)$(PREFIX)/share/doc/g500/docs/'

clean:
	rm -rf build bin

help:
	@sed -n 's/^#   //p' Makefile

include tests/module.mk bench/bench.mk pipeline.mk
-include $(shell find $(BUILD) -name '*.d' 2>/dev/null)
