# SPDX-License-Identifier: MIT
# gen/module.mk - the generator's benchmark: `make bench-gen` runs
# bench/bench-gen.sh (generation + write throughput at SCALE 20 and 22, 1
# and 2 ranks, against a plain sequential write of the same bytes, and the
# chunk/checksum layout sweep) and writes results/bench/gen.md.
.PHONY: bench bench-gen
GEN_RATE := $(BUILD)/bench/gen_rate
EDGES_READ := $(BUILD)/bench/edges_read

$(BUILD)/bench/%.o: bench/%.c $(FLAGS_FILE)
	@mkdir -p $(@D)
	@$(if $(Q),echo "  CC      $<")
	$(Q)$(CC) $(CPPFLAGS) $(CFLAGS) -MMD -MP -c $< -o $@

$(GEN_RATE): $(BUILD)/bench/gen_rate.o $(LIB)
	@$(if $(Q),echo "  LD      $@")
	$(Q)$(CC) $(LDFLAGS) $^ $(LDLIBS) -o $@

$(EDGES_READ): $(BUILD)/bench/edges_read.o $(LIB)
	@$(if $(Q),echo "  LD      $@")
	$(Q)$(CC) $(LDFLAGS) $^ $(LDLIBS) -o $@

bench-gen: $(G500) $(GEN_RATE) $(EDGES_READ)
	$(Q)G500=$(G500) GEN_RATE=$(GEN_RATE) EDGES_READ=$(EDGES_READ) bench/bench-gen.sh
