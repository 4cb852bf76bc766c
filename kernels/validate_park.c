/* SPDX-License-Identifier: MIT */
/*
 * validate_park.c - a validation batch's keys written to a scratch file and
 * read back (kern_validate.h, "keys parked in a scratch file").
 *
 * A parking batch writes each key as it is added, from the caller's
 * arrays and the jump words, so no records are made in memory for it.
 * A parked key, per rank: a fixed header (root, verdict, value width,
 * message length, kind, the rank's vertex count), the message of a key
 * that already failed, then, for a key still valid, its parents (4 bytes
 * each, J_UNREACHED for unreached vertices) and its values (BFS depths in
 * the fewest bytes that hold the largest, or SSSP distances' float bits).
 * Planes rather than records: the depths of a BFS tree fit in one byte, so
 * a BFS key takes 5 bytes per vertex instead of 8. Both directions go
 * through a bounded staging buffer. A rank's I/O failure is agreed after
 * the key, never inside a collective, so no rank waits for another.
 */
#include "kern_validate.h"
#include "kern_impl.h"

#include "common.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#define PARK_CHUNK ((int64_t)1 << 20)   /* vertices per staging buffer */

typedef struct park_head {
    int64_t root, count;
    int32_t status, width, msglen, sssp;
} park_head;

size_t kern_vbatch_park_bytes(int64_t nvertices, int rank, int nranks, int sssp)
{
    int64_t first, count;
    g5_range_split(nvertices, rank, nranks, &first, &count);
    return sizeof(park_head) + (size_t)count * (sizeof(uint32_t) + (sssp ? 4 : 1));
}

int kern_vbatch_create_parking(MPI_Comm comm, int64_t nvertices, int sssp, io_spill *s,
                               kern_vbatch **out)
{
    int rc = kern_vbatch_create(comm, nvertices, 1, sssp, out);
    if (rc == G5_OK) {
        (*out)->spill = s;
        (*out)->parked_at = -1;
    }
    return rc;
}

int64_t kern_vbatch_parked_at(const kern_vbatch *b) { return b->parked_at; }

/* The key's value of local vertex i: BFS depth (the jump word's hops),
 * SSSP distance bits; 0 when unreached. */
static inline uint32_t key_value(const int64_t *parent, const float *dist, jwords jw, int64_t i)
{
    uint32_t v = 0;
    if (parent[i] == -1)
        return 0;
    if (dist)
        memcpy(&v, &dist[i], sizeof v);
    else
        v = j_hops(jw_get(jw, i));
    return v;
}

/* Park the key just checked in slot k of b (its local checks and depths
 * done: parents, distances and jump words as kern_vbatch_add has them)
 * straight from those arrays; b->parked_at gets its offset. Not
 * collective (the caller agrees). */
int vc_park_key(kern_vbatch *b, int k, const int64_t *parent, const float *dist, jwords jw)
{
    park_head h = {.root = b->root[k], .count = b->count, .status = b->status[k],
                   .width = 0, .msglen = 0, .sssp = b->sssp};
    if (h.status != G5_OK) {
        h.msglen = (int32_t)strlen(b->msg[k]);
    } else if (dist) {
        h.width = 4;
    } else {
        uint32_t mx = 0;
        #pragma omp parallel for schedule(static) reduction(max : mx)
        for (int64_t i = 0; i < b->count; i++) {
            uint32_t v = key_value(parent, dist, jw, i);
            mx = v > mx ? v : mx;
        }
        h.width = mx < 256 ? 1 : mx < 65536 ? 2 : 4;
    }
    uint8_t *buf = g5_malloc((size_t)PARK_CHUNK * 4, "validation staging buffer");
    if (!buf)
        return G5_ERR_NOMEM;
    int rc = io_spill_write(b->spill, &h, sizeof h, &b->parked_at);
    if (rc == G5_OK && h.msglen)
        rc = io_spill_write(b->spill, b->msg[k], (size_t)h.msglen, NULL);
    for (int plane = 0; plane < 2 && h.width && rc == G5_OK; plane++) {
        const int w = plane == 0 ? 4 : h.width;
        for (int64_t lo = 0; lo < b->count && rc == G5_OK; lo += PARK_CHUNK) {
            int64_t n = b->count - lo < PARK_CHUNK ? b->count - lo : PARK_CHUNK;
            #pragma omp parallel for schedule(static)
            for (int64_t j = 0; j < n; j++) {
                int64_t i = lo + j;
                uint32_t v = plane ? key_value(parent, dist, jw, i)
                             : parent[i] == -1 ? J_UNREACHED : (uint32_t)parent[i];
                memcpy(buf + j * w, &v, (size_t)w);    /* little-endian low bytes */
            }
            rc = io_spill_write(b->spill, buf, (size_t)(n * w), NULL);
        }
    }
    free(buf);
    return rc;
}

static int unpark_key(kern_vbatch *b, int k, io_spill *s, int64_t at, uint8_t *buf)
{
    park_head h;
    vrec *r = b->rec + k;
    const int64_t st = b->kmax;
    int rc = io_spill_read(s, at, &h, sizeof h);
    if (rc == G5_OK && (h.count != b->count || h.sssp != b->sssp || h.msglen < 0
                        || h.msglen >= VB_MSG || !(h.width == 0 || h.width == 1 || h.width == 2
                                                   || h.width == 4)))
        rc = g5_error(G5_ERR_FORMAT, "scratch file %s: the key at offset %" PRId64 " is not a "
                      "parked %s key of this rank's %" PRId64 " vertices", io_spill_path(s), at,
                      b->sssp ? "SSSP" : "BFS", b->count);
    if (rc != G5_OK)
        return rc;
    at += (int64_t)sizeof h;
    b->root[k] = h.root;
    b->status[k] = h.status;
    b->msg[k][0] = '\0';
    if (h.msglen) {
        rc = io_spill_read(s, at, b->msg[k], (size_t)h.msglen);
        b->msg[k][h.msglen] = '\0';
        at += h.msglen;
    }
    if (rc == G5_OK && !h.width) {
        #pragma omp parallel for schedule(static)
        for (int64_t i = 0; i < b->count; i++)
            r[i * st] = (vrec){.parent = J_UNREACHED, .val = 0};
    }
    /* both planes of a stretch of vertices, then each record in one store:
     * the records of a vertex lie a batch's width apart, so a plane at a
     * time would read and write every record line twice */
    const int w = h.width;
    const int64_t at_val = at + b->count * 4;
    uint8_t *vbuf = buf + (size_t)PARK_CHUNK * 4;
    for (int64_t lo = 0; lo < b->count && w && rc == G5_OK; lo += PARK_CHUNK) {
        int64_t n = b->count - lo < PARK_CHUNK ? b->count - lo : PARK_CHUNK;
        rc = io_spill_read(s, at + lo * 4, buf, (size_t)(n * 4));
        if (rc == G5_OK)
            rc = io_spill_read(s, at_val + lo * w, vbuf, (size_t)(n * w));
        if (rc != G5_OK)
            break;
        #pragma omp parallel for schedule(static)
        for (int64_t j = 0; j < n; j++) {
            vrec x = {0, 0};
            memcpy(&x.parent, buf + j * 4, 4);
            memcpy(&x.val, vbuf + j * w, (size_t)w);   /* little-endian low bytes */
            r[(lo + j) * st] = x;
        }
    }
    return rc;
}

int kern_vbatch_unpark(kern_vbatch *b, io_spill *s, int64_t at)
{
    if (b->nk >= b->kmax)
        return g5_error(G5_ERR_ARG, "%s validation: the batch is full (%d keys)",
                        b->sssp ? "SSSP" : "BFS", b->kmax);
    int rc = b->nk == 0 ? vc_batch_alloc(b) : G5_OK;
    if (rc != G5_OK)
        return rc;
    uint8_t *buf = g5_malloc((size_t)PARK_CHUNK * 8, "validation staging buffer"); /* 2 planes */
    rc = g5_agree(b->comm, buf ? G5_OK : G5_ERR_NOMEM);
    if (rc == G5_OK)
        rc = g5_agree(b->comm, unpark_key(b, b->nk, s, at, buf));
    free(buf);
    if (rc == G5_OK)
        b->nk++;
    return rc;
}
