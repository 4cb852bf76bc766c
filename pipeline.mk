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
#   RUN_FLAGS                  extra options for g500 run (e.g. --skip-sssp)
#
# Files (all under RUN; each stage writes a temporary name and renames it,
# so a present file is a complete one):
#   edges.h5                   gen
#   components.h5              components (depends on edges.h5)
#   topo-PLACE.txt             g500 topo's check and rank map (depends on TOPO)
#   placement-PLACE.h5         partition (+ .rankfile/.hostfile beside it)
#   run-components-PLACE.json  run on that placement (+ .txt, the Graph500 block)
#   run-cyclic-PLACE.json      run on the cyclic baseline, same ranks and tree
#   report/index.md            g500 report (+ PNG plots)
# where PLACE = <topo name>-np<NP>-rpn<RANKS_PER_NODE>. The binary is an
# order-only prerequisite: rebuilding bin/g500 never regenerates a large
# edges file; `make kernels` is how to rerun with a new binary.
# Before Make looks at time stamps, `g500 report --check` removes cached
# files that do not open, do not belong to this run, or were left half
# written by an interrupted stage (see report/rep_cache.c).

SCALE ?= 16
EDGEFACTOR ?= 16
SEED ?= 1
TOPO ?= configs/fat-tree-2x2.conf
NP ?= 4
RANKS_PER_NODE ?= 1
ROOTS ?= 64
RUN ?= results/s$(SCALE)-ef$(EDGEFACTOR)-seed$(SEED)
THREADS ?= $(shell n=$$(nproc 2>/dev/null || echo 1); t=$$((n / $(NP))); echo $$((t > 0 ? t : 1)))
MPIRUN ?= mpirun
MPIRUN_PLACED ?= $(MPIRUN)
PLACE_RANKS ?=
RUN_FLAGS ?=

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
P_REPORT := $(RUN)/report/index.md
P_FILES := $(P_EDGES) $(P_COMP) $(P_TOPO_TXT) $(P_PLACEMENT) $(P_RUN_COMP) $(P_RUN_CYC) $(P_REPORT)
P_MPI := OMP_NUM_THREADS=$(THREADS) scripts/mpi-launch -n $(NP) $(G500)
P_MPI_PLACED := OMP_NUM_THREADS=$(THREADS) MPIRUN='$(MPIRUN_PLACED)' scripts/mpi-launch -n $(NP) \
	$(if $(filter 1 yes,$(PLACE_RANKS)),--placement $(P_PLACEMENT)) $(G500)
# Without gnuplot the report keeps its tables and plots.gp and says so.
P_PLOTS := $(if $(shell command -v gnuplot),,--no-plots)
P_NO_PLOTS_MSG := report: gnuplot not found, plots skipped (install gnuplot-nox or load a gnuplot module; then run gnuplot plots.gp in $(RUN)/report)
# `make kernels` sets P_FORCE_KERNELS=1 in its sub-make: the runs' JSON then
# depend on a phony target and are always remade.
P_FORCE := $(if $(P_FORCE_KERNELS),p-force)

.PHONY: pipeline pipeline-files kernels report pipeline-clean p-check p-force

# The cache check runs before a sub-make so that Make stats the files only
# after untrustworthy ones are gone.
p-check: $(G500)
	@test -f '$(TOPO)' || { echo "pipeline: TOPO=$(TOPO) does not exist (configs/ has: $$(ls configs 2>/dev/null | tr '\n' ' '))" >&2; exit 2; }
	@$(G500) report '$(RUN)' --check --scale $(SCALE) --edgefactor $(EDGEFACTOR) --seed $(SEED)

# Two sub-makes: the stage files first, then the report, so the report's
# time stamp is compared with inputs that all exist and are final.
pipeline: p-check
	@$(MAKE) --no-print-directory $(filter-out $(P_REPORT),$(P_FILES))
	@$(MAKE) --no-print-directory $(P_REPORT)
	@echo
	@echo "==== Graph500 result: components-aware placement $(P_PLACE)"
	@cat $(P_RUN_COMP:.json=.txt)
	@echo
	@echo "==== Connected components"
	@$(G500) stats $(P_COMP)
	@echo
	@sed -n '/^## Kernel runs/,/^Harmonic/p; /^## Placement comparison/,/^Cut edges/p' $(P_REPORT) | grep -v '^Harmonic\|^Cut edges'
	@echo "==== Files in $(RUN)/"
	@ls -l $(RUN) | tail -n +2
	@echo "Report: $(P_REPORT) (plots beside it)"

pipeline-files: $(P_FILES)

kernels: p-check
	@$(MAKE) --no-print-directory P_FORCE_KERNELS=1 $(P_RUN_COMP) $(P_RUN_CYC)
	@$(MAKE) --no-print-directory $(P_REPORT)
	@sed -n '/^## Kernel runs/,/^Harmonic/p' $(P_REPORT) | grep -v '^Harmonic'

report: $(G500)
	$(G500) report '$(RUN)' $(P_PLOTS)

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
# The two runs never overlap each other or another stage (timings).
p_run = $(2) run $(P_EDGES) $(1) --roots $(ROOTS) --seed $(SEED) $(RUN_FLAGS) \
	  --json $@.tmp.$$$$.json > $(@:.json=.txt).tmp.$$$$ && \
	mv $(@:.json=.txt).tmp.$$$$ $(@:.json=.txt) && mv $@.tmp.$$$$.json $@

$(P_RUN_COMP): $(P_EDGES) $(P_PLACEMENT) $(P_FORCE) | $(G500)
	$(call p_run,--placement $(P_PLACEMENT),$(P_MPI_PLACED))

$(P_RUN_CYC): $(P_EDGES) $(TOPO) $(P_FORCE) | $(G500) $(P_RUN_COMP)
	$(call p_run,--placement cyclic --topology $(TOPO) --ranks-per-node $(RANKS_PER_NODE),$(P_MPI))

$(P_REPORT): $(P_EDGES) $(P_COMP) $(P_PLACEMENT) $(P_RUN_COMP) $(P_RUN_CYC) | $(G500)
	$(G500) report '$(RUN)' --quiet $(P_PLOTS)
	@$(if $(P_PLOTS),echo '$(P_NO_PLOTS_MSG)')

