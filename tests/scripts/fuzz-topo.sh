#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# fuzz-topo.sh - the short fuzz run of `make test`: replay the seed corpus
# through the libFuzzer target (each seed must run clean), then fuzz the
# topology parser for FUZZ_SECONDS (default 20) from a scratch copy of the
# corpus. Any crash, leak, sanitizer report or timeout fails. `make fuzz`
# is the long run. Prints "N passed, N failed".
set -u
cd "$(dirname "$0")/../.." || exit 1
BUILD=${BUILD:-build}
FUZZ=build/fuzz/fuzz_topo
SECS=${FUZZ_SECONDS:-20}
pass=0; fail=0
ok() { echo "PASS $1"; pass=$((pass + 1)); }
ko() { echo "FAIL $1"; fail=$((fail + 1)); }

if [ ! -x "$FUZZ" ]; then
    ko "fuzz target $FUZZ not built (make tests builds it)"
    echo "$pass passed, $fail failed"; exit 1
fi
work=$(mktemp -d /tmp/g500-fuzz-topo.XXXXXX)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/corpus" "$work/artifacts"

# 1. every seed replays without a report
for f in topo/fuzz/corpus/*; do
    if "$FUZZ" -runs=1 "$f" >"$work/replay.log" 2>&1; then
        ok "seed $(basename "$f") replays clean"
    else
        ko "seed $(basename "$f")"; tail -20 "$work/replay.log"
    fi
done

# 2. a short fuzzing run
"$FUZZ" -max_total_time="$SECS" -max_len=4096 -timeout=10 -rss_limit_mb=2048 \
    -dict=topo/fuzz/topo.dict -artifact_prefix="$work/artifacts/" -print_final_stats=1 \
    "$work/corpus" topo/fuzz/corpus >"$work/fuzz.log" 2>&1
rc=$?
runs=$(sed -nE 's/^stat::number_of_executed_units: *([0-9]+).*/\1/p' "$work/fuzz.log")
if [ $rc -eq 0 ] && [ -z "$(ls -A "$work/artifacts")" ] && [ "${runs:-0}" -gt 0 ]; then
    ok "fuzzed the topology parser for ${SECS}s: ${runs} inputs, no crash, leak or hang"
else
    ko "fuzzing found a problem (exit $rc)"
    grep -E 'ERROR|SUMMARY|Test unit written|==[0-9]+==' "$work/fuzz.log" | head -20
    mkdir -p "$BUILD/fuzz/found" && cp "$work"/artifacts/* "$BUILD/fuzz/found/" 2>/dev/null &&
        echo "inputs kept in $BUILD/fuzz/found"
fi
echo "$pass passed, $fail failed"
[ $fail -eq 0 ]
