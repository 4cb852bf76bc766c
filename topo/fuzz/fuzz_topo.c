/* SPDX-License-Identifier: MIT */
/*
 * fuzz_topo.c - libFuzzer target for the topology parser (topo_parse).
 * Any input must give either G5_OK with a tree that passes topo_check and
 * answers every query in range, or a G5_ERR_TOPO whose message names the
 * source and leaves *out NULL; never a crash, a leak, undefined behaviour
 * or a hang. Inputs are capped at 4 KiB (also -max_len) so one run stays
 * short; the parser's own limits (1 Mi nodes) bound the expansion of
 * hostlists such as n[0-999999].
 * Build and run: make fuzz (long) or tests/scripts/fuzz-topo.sh (short).
 */
#include "common.h"
#include "topo.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text;
    topo *t = (topo *)&size;
    int rc;
    if (size > 4096)
        return 0;
    text = malloc(size + 1);
    if (!text)
        return 0;
    memcpy(text, data, size);
    text[size] = '\0';
    rc = topo_parse(text, "fuzz.conf", &t);
    if (rc != G5_OK) {
        if (t != NULL || (rc != G5_ERR_TOPO && rc != G5_ERR_NOMEM) ||
            strncmp(g5_error_msg(), "fuzz.conf", 9) != 0)
            abort();
    } else {
        int n = topo_num_nodes(t), nsw = topo_num_switches(t), map[8];
        if (topo_check(t) != G5_OK || n < 1 || nsw < 1)
            abort();
        for (int a = 0; a < n && a < 64; a++) {
            int b = (int)((a * 7919u) % (unsigned)n);
            int h = topo_hops_between(t, a, b);
            if (h < 0 || h > topo_max_hops(t) || h != topo_hops_between(t, b, a))
                abort();
            if (topo_node_index(t, topo_node_name(t, a)) != a)
                abort();
        }
        for (int s = 0; s < nsw && s < 64; s++)
            if (!topo_switch_name(t, s) || topo_switch_distance(t, s, 0) != topo_switch_depth(t, s))
                abort();
        if (n >= 8 && topo_map_ranks_per_node(t, 8, 1, map) != G5_OK)
            abort();
        topo_free(&t);
    }
    free(text);
    return 0;
}
