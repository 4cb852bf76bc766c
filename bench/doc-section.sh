# SPDX-License-Identifier: MIT
# doc-section.sh - sourced by the benchmarks that keep a generated section of
# docs/performance.md (bench-anchors.sh, bench-official.sh).
#
# doc_section NAME SECTION DOC: put the file SECTION, which starts with
# "<!-- NAME:begin -->" and ends with "<!-- NAME:end -->", in place of DOC's
# section of that name, or at DOC's end when DOC has none yet. Nothing else
# of DOC changes; DOC is replaced whole, never left half-written.
doc_section() {
    local name=$1 sec=$2 doc=$3
    if grep -q "<!-- $name:begin -->" "$doc"; then
        awk -v sec="$sec" -v b="<!-- $name:begin -->" -v e="<!-- $name:end -->" '
            $0 == b {while ((getline l < sec) > 0) print l; skip = 1; next}
            $0 == e {skip = 0; next}
            !skip' "$doc" >"$doc.tmp"
    else
        { cat "$doc"; echo; cat "$sec"; } >"$doc.tmp"
    fi && mv "$doc.tmp" "$doc"
}
