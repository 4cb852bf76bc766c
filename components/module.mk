# SPDX-License-Identifier: MIT
# components/module.mk - the connected-components benchmark.
#   make bench-cc [BENCH_CC_SCALES="20 22"]   in-memory union-find vs a plain
#                                             one, and the whole stage
BENCH_CC := $(BUILD)/bench/bench_cc
BENCH_CC_SCALES ?= 20 22

$(BUILD)/bench/%.o: bench/%.c $(FLAGS_FILE)
	@mkdir -p $(@D)
	@$(if $(Q),echo "  CC      $<")
	$(Q)$(CC) $(CPPFLAGS) $(CFLAGS) -MMD -MP -c $< -o $@

$(BENCH_CC): $(BUILD)/bench/bench_cc.o $(LIB)
	@$(if $(Q),echo "  LD      $@")
	$(Q)$(CC) $(LDFLAGS) $^ $(LDLIBS) -o $@

# built with the tests: tests/scripts/bench-cc-smoke.sh runs it small
tests: $(BENCH_CC)

.PHONY: bench-cc
bench-cc: $(BENCH_CC) $(G500)
	BENCH_CC=$(BENCH_CC) G500=$(G500) SCALES="$(BENCH_CC_SCALES)" bench/bench-cc.sh
