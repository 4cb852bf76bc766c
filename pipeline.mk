# SPDX-License-Identifier: MIT
# pipeline.mk - the whole pipeline as Make file targets, for a user.
#
#   make pipeline     gen -> components -> topo -> partition -> run (the
#                     components-aware placement and the cyclic baseline)
#                     -> report, on a small default; cached files are reused
#   make kernels      rerun only the timed kernels (both placements) on the
#                     cached files, then the report
#   make report       rewrite RUN/report/ from what RUN holds
#   make pipeline-clean   remove RUN
#
# Variables (make pipeline SCALE=20 TOPO=configs/x.conf NP=16 ...):
#   SCALE EDGEFACTOR SEED      the graph (RUN's name encodes them)
#   TOPO                       Slurm topology.conf or tleaf file
#   NP RANKS_PER_NODE          ranks, and ranks per emulated node
#   ROOTS                      search keys for BFS and SSSP
#   RUN                        run directory (default results/sS-efE-seedN)
#   MPIRUN                     the launcher: mpirun (Open MPI), mpiexec (MPICH
#                              family) or srun, with options of your own;
#                              scripts/mpi-launch adds the rank count and the
#                              launcher's own oversubscription/binding options
#   PLACE_RANKS=1              launch the components-aware run on the hosts the
#                              placement chose (its .rankfile, .machinefile or
#                              .hostfile as SLURM_HOSTFILE, by launcher): TOPO
#                              must name real hosts (scripts/g500-*.sh do)
#   MPIRUN_PLACED              launcher of that run (default MPIRUN)
#   THREADS                    OpenMP threads per rank (default cores / NP)
#   DELTA                      delta-stepping bucket width (empty: g500's default)
#   RUN_FLAGS                  extra options for g500 run (e.g. --skip-sssp)
#   REPEATS                    runs of each placement, alternated (default 3)
#
# Files (all under RUN; each stage writes a temporary name and renames it,
# so a present file is a complete one):
#   edges.h5                   gen
#   components.h5              components (depends on edges.h5)
#   topo-PLACE.txt             g500 topo's check and rank map (depends on TOPO)
#   placement-PLACE.h5         partition (+ .rankfile/.hostfile/.machinefile)
#   run-components-PLACE.json  run with that placement computed inside kernel 1
#                              (+ .txt, the Graph500 block)
#   run-cyclic-PLACE.json      run on the cyclic baseline, same ranks and tree
#   run-*-PLACE.rI.json        repeat I = 2..REPEATS of each, alternated:
#                              components 1, cyclic 1, components 2, ...
#   run-*-PLACE.key            what the runs depend on besides files: the
#                              command (launcher, threads, roots, seed, delta,
#                              flags) and the binary's identity
#   report/index.md            g500 report (+ PNG plots)
# where PLACE = <topo name>-np<NP>-rpn<RANKS_PER_NODE>. The binary is an
# order-only prerequisite of gen, components and partition (a rebuilt
# bin/g500 never regenerates a large edges file); the runs depend on their
# .key file, rewritten only when its text changes, so a new binary (version,
# size, time stamp, sha256) or another run parameter reruns the runs alone.
# Before Make looks at time stamps, `g500 report --check` removes cached
# files that do not open, fail a checksum on a full read, do not belong to
# this run (a placement of another TOPO content included), or were left
# half written by an interrupted stage (see report/rep_cache.c).

SCALE ?= 16
EDGEFACTOR ?= 16
SEED ?= 1
TOPO ?= configs/fat-tree-2x2.conf
NP ?= 4
RANKS_PER_NODE ?= 1
ROOTS ?= 64
RUN ?= results/s$(SCALE)-ef$(EDGEFACTOR)-seed$(SEED)
THREADS ?= $(shell n=$$(env -u OMP_NUM_THREADS -u OMP_THREAD_LIMIT nproc 2>/dev/null || echo 1); t=$$((n / $(NP))); echo $$((t > 0 ? t : 1)))
MPIRUN ?= mpirun
MPIRUN_PLACED ?= $(MPIRUN)
PLACE_RANKS ?=
DELTA ?=
RUN_FLAGS ?=
REPEATS ?= 3

P_TOPO_NAME := $(basename $(notdir $(TOPO)))
P_PLACE := $(P_TOPO_NAME)-np$(NP)-rpn$(RANKS_PER_NODE)
P_EDGES := $(RUN)/edges.h5
P_COMP := $(RUN)/components.h5
P_TOPO_TXT := $(RUN)/topo-$(P_PLACE).txt
P_PLACEMENT := $(RUN)/placement-$(P_PLACE).h5
P_RANKFILE := $(P_PLACEMENT:.h5=.rankfile)
P_HOSTFILE := $(P_PLACEMENT:.h5=.hostfile)
P_MACHINEFILE := $(P_PLACEMENT:.h5=.machinefile)
P_RUN_COMP := $(RUN)/run-components-$(P_PLACE).json
P_RUN_CYC := $(RUN)/run-cyclic-$(P_PLACE).json
# Repeat I of each placement (1 keeps the plain name), and the one before.
P_SEQ := $(shell seq 1 $(REPEATS) 2>/dev/null)
ifeq ($(P_SEQ),)
$(error REPEATS=$(REPEATS): the runs of each placement must be a number >= 1)
endif
p_rep = $(if $(filter 1,$(2)),$(RUN)/run-$(1)-$(P_PLACE).json,$(RUN)/run-$(1)-$(P_PLACE).r$(2).json)
p_prev = $(word $(1),0 $(P_SEQ))
P_RUNS := $(foreach i,$(P_SEQ),$(call p_rep,components,$(i)) $(call p_rep,cyclic,$(i)))
P_KEY_COMP := $(RUN)/run-components-$(P_PLACE).key
P_KEY_CYC := $(RUN)/run-cyclic-$(P_PLACE).key
P_REPORT := $(RUN)/report/index.md
P_FILES := $(P_EDGES) $(P_COMP) $(P_TOPO_TXT) $(P_PLACEMENT) $(P_RUNS) $(P_REPORT)
P_MPI := OMP_NUM_THREADS=$(THREADS) scripts/mpi-launch -n $(NP) $(G500)
P_MPI_PLACED := OMP_NUM_THREADS=$(THREADS) MPIRUN='$(MPIRUN_PLACED)' scripts/mpi-launch -n $(NP) \
	$(if $(filter 1 yes,$(PLACE_RANKS)),--placement $(P_PLACEMENT)) $(G500)
# `make kernels` sets P_FORCE_KERNELS=1 in its sub-make: the runs' JSON then
# depend on a phony target and are always remade.
P_FORCE := $(if $(P_FORCE_KERNELS),p-force)
# The time this make started: a run file older than that was reused.
ifneq ($(filter pipeline kernels p-pipeline p-kernels,$(MAKECMDGOALS)),)
P_T0 := $(shell date +%s)
endif
# One pipeline at a time per RUN (a second is refused, naming the holder);
# timed runs of one checkout wait for each other, machine-wide, and say so
# in their block when they had to (scripts/g500-lock).
P_LOCK := $(RUN)/.pipeline.lock
P_KLOCK := /tmp/g500-kernels-$(shell pwd | sha256sum | cut -c1-16).lock

.PHONY: pipeline pipeline-files kernels report pipeline-clean p-check p-force p-prune p-pipeline p-kernels

# The cache check runs before a sub-make so that Make stats the files only
# after untrustworthy ones are gone.
p-check: $(G500)
	@test -f '$(TOPO)' || { echo "pipeline: TOPO=$(TOPO) does not exist (configs/ has: $$(ls configs 2>/dev/null | tr '\n' ' '))" >&2; exit 2; }
	@$(G500) report '$(RUN)' --check --scale $(SCALE) --edgefactor $(EDGEFACTOR) --seed $(SEED) --topology '$(TOPO)'

# Repeats beyond REPEATS of this PLACE are dropped (and the report that
# showed them): the comparison holds only runs made with this make's
# parameters.
p-prune: p-check
	@for f in $(RUN)/run-*-$(P_PLACE).r*.json; do k=$${f##*.r}; k=$${k%.json}; \
	  case $$k in *[!0-9]*|'') continue;; esac; \
	  [ $$k -le $(REPEATS) ] || rm -rf "$$f" "$${f%.json}.txt" $(RUN)/report; done

# The summary's notes on reused runs: "reused: FILE, made DATE".
p_reused = for f in $(1); do t=$$(stat -c %Y "$$f" 2>/dev/null) || continue; \
	  [ $$t -ge $(P_T0) ] || echo "reused: $$(basename $$f), made $$(date -u -d @$$t '+%Y-%m-%d %H:%M:%S UTC') (nothing it depends on changed; make kernels reruns it)"; done

# Two sub-makes: the stage files first, then the report, so the report's
# time stamp is compared with inputs that all exist and are final.
pipeline:
	@scripts/g500-lock --refuse '$(P_LOCK)' -- $(MAKE) --no-print-directory p-pipeline

kernels:
	@scripts/g500-lock --refuse '$(P_LOCK)' -- $(MAKE) --no-print-directory p-kernels

p-pipeline: p-prune
	@$(MAKE) --no-print-directory $(filter-out $(P_REPORT),$(P_FILES))
	@$(MAKE) --no-print-directory $(P_REPORT)
	@echo
	@echo "==== Graph500 result: components-aware placement $(P_PLACE) (run 1 of $(REPEATS))"
	@cat $(P_RUN_COMP:.json=.txt)
	@$(call p_reused,$(P_RUNS))
	@echo
	@echo "==== Connected components"
	@$(G500) stats $(P_COMP)
	@echo
	@$(G500) report '$(RUN)' --summary
	@echo "==== Files in $(RUN)/"
	@ls -l $(RUN) | tail -n +2
	@echo "Report: $(P_REPORT) (plots beside it)"

pipeline-files: $(P_FILES)

p-kernels: p-prune
	@$(MAKE) --no-print-directory P_FORCE_KERNELS=1 $(P_RUNS)
	@$(MAKE) --no-print-directory $(P_REPORT)
	@$(G500) report '$(RUN)' --summary

report: $(G500)
	$(G500) report '$(RUN)'

pipeline-clean:
	rm -rf '$(RUN)'

p-force:

$(P_EDGES): | $(G500)
	@mkdir -p $(@D)
	$(P_MPI) gen --scale $(SCALE) --edgefactor $(EDGEFACTOR) --seed $(SEED) -o $@ --force

$(P_COMP): $(P_EDGES) | $(G500)
	@rm -f $@
	$(P_MPI) components $(P_EDGES) -o $@

$(P_TOPO_TXT): $(TOPO) | $(G500)
	@mkdir -p $(@D)
	$(G500) topo $(TOPO) --ranks $(NP) --ranks-per-node $(RANKS_PER_NODE) > $@.tmp.$$$$ && mv $@.tmp.$$$$ $@

$(P_PLACEMENT): $(P_EDGES) $(P_COMP) $(TOPO) $(P_TOPO_TXT) | $(G500)
	@rm -f $@
	$(P_MPI) partition $(P_EDGES) $(P_COMP) --topology $(TOPO) --ranks $(NP) --ranks-per-node $(RANKS_PER_NODE) -o $@

# The run prints its Graph500 block on stdout (kept as .txt) and writes the
# JSON; the JSON is renamed last, so its presence means both are complete.
# No two runs overlap each other or another stage (timings): each waits for
# the one before it in the alternation (order-only, so an up-to-date run is
# not redone because an earlier one is).
# The components-aware run computes its components and placement inside
# kernel 1 from the edge list (an official Graph500 figure); the partition
# stage's file is the same placement, kept for its statistics, the report
# and the launcher's host order (PLACE_RANKS).
P_ARGS_COMP := --placement components --topology $(TOPO) --ranks-per-node $(RANKS_PER_NODE)
P_ARGS_CYC := --placement cyclic --topology $(TOPO) --ranks-per-node $(RANKS_PER_NODE)
p_cmd = $(2) run $(P_EDGES) $(1) --roots $(ROOTS) --seed $(SEED)$(if $(DELTA), --delta $(DELTA)) $(RUN_FLAGS)
# A failed run leaves no result: its earlier JSON and block go too.
p_run = scripts/g500-lock --wait $(P_KLOCK) -- $(call p_cmd,$(1),$(2)) \
	  --json $@.tmp.$$$$.json > $(@:.json=.txt).tmp.$$$$ && \
	mv $(@:.json=.txt).tmp.$$$$ $(@:.json=.txt) && mv $@.tmp.$$$$.json $@ || \
	{ rm -f $@ $(@:.json=.txt) $@.tmp.$$$$.json $(@:.json=.txt).tmp.$$$$; exit 1; }

# The key: the run's command and the binary's identity, one line each,
# rewritten when its text differs (Make then sees a newer prerequisite). It
# is computed when Make reads this file, only for the goals that run the
# kernels, so `make -q` still answers and an unchanged key keeps its time.
p_sq = '$(subst ','\'',$(1))'
p_key = k="$$(printf '%s\n' $(call p_sq,command: $(2)) $(call p_sq,binary: $(P_BIN_ID)))"; \
	[ -f $(1) ] && [ "$$(cat $(1))" = "$$k" ] || { mkdir -p $(RUN) && printf '%s\n' "$$k" > $(1); }
ifneq ($(filter pipeline kernels p-pipeline p-kernels pipeline-files $(P_RUNS),$(MAKECMDGOALS)),)
ifneq ($(wildcard $(G500)),)
P_BIN_ID := $(shell $(G500) --version 2>/dev/null | head -1; stat -c 'size %s mtime %Y' $(G500); echo sha256 $$(sha256sum < $(G500) | cut -c1-64))
$(shell $(call p_key,$(P_KEY_COMP),$(call p_cmd,$(P_ARGS_COMP),$(P_MPI_PLACED))))
$(shell $(call p_key,$(P_KEY_CYC),$(call p_cmd,$(P_ARGS_CYC),$(P_MPI))))
endif
endif
$(P_KEY_COMP) $(P_KEY_CYC): ;

define p_rep_rules
$(call p_rep,components,$(1)): $(P_EDGES) $(P_PLACEMENT) $(P_KEY_COMP) $(P_FORCE) | $(G500) $(if $(filter-out 0,$(call p_prev,$(1))),$(call p_rep,cyclic,$(call p_prev,$(1))))
	$$(call p_run,$$(P_ARGS_COMP),$$(P_MPI_PLACED))

$(call p_rep,cyclic,$(1)): $(P_EDGES) $(TOPO) $(P_KEY_CYC) $(P_FORCE) | $(G500) $(call p_rep,components,$(1))
	$$(call p_run,$$(P_ARGS_CYC),$$(P_MPI))
endef
$(foreach i,$(P_SEQ),$(eval $(call p_rep_rules,$(i))))

$(P_REPORT): $(P_EDGES) $(P_COMP) $(P_PLACEMENT) $(P_RUNS) | $(G500)
	$(G500) report '$(RUN)' --quiet
