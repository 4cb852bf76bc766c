/* SPDX-License-Identifier: MIT */
/*
 * kern_impl.h - private to kernels/: the layouts of kern_dist and kern_graph,
 * the inline id arithmetic used in the hot loops, growable vectors and the
 * counted all-to-all exchange shared by construction, BFS and SSSP; then
 * the state each kernel's files share: kernel 1 (construct*.c), kernel 3
 * (sssp*.c) and the validators (validate_*.c).
 */
#ifndef G500_KERN_IMPL_H
#define G500_KERN_IMPL_H

#include "common.h"
#include "kern.h"

#include <stdlib.h>
#include <string.h>

struct kern_dist {
    int kind, nranks, rank;
    int64_t nvertices, n_active;
    int64_t *nlocal;        /* [P] */
    int64_t *first;         /* [P+1]: block: first original id; placement: rank_offsets */
    int64_t *base;          /* [P+1]: first pid of each rank (multiple of 64); base[P] = pid space */
    uint32_t *new_of_old;   /* placement: [N] new label (UINT32_MAX: isolated) */
    uint32_t *old_of_new;   /* placement: [n_active] original id of each new label */
};

struct kern_graph {
    MPI_Comm comm;
    int rank, nranks;
    const kern_dist *dist;
    int64_t nlocal, nnz, nnz_global;
    int64_t base;           /* this rank's first pid */
    int64_t *rowptr;        /* [nlocal+1] */
    uint32_t *col;          /* [nnz] pids */
    /* Weights, read only through kern_w / kern_wkey below. When every weight
     * of the graph (all ranks) is k * 2^-24 with k an integer in [0, 2^24),
     * as the generator makes them (gen_rmat.c: the top 24 bits of a random
     * word times 2^-24), w24 = 1 and w3 holds k in 3 little-endian bytes per
     * entry (exact: 3 bytes per entry instead of 4); otherwise w24 = 0 and
     * w holds the floats (any other edges file). */
    int w24;
    uint8_t *w3;            /* [3 nnz + 8] when w24 (padding: 4- and 32-byte loads) */
    float *w;               /* [nnz] when !w24 */
    /* The raw degree (non-loop input tuples per row, duplicates counted:
     * the TEPS count of kern_reached_edges) is the kept degree plus the
     * duplicates merged away, read through kern_rawdeg below: one byte per
     * row, 255 meaning "look in dup_big", a sorted table of row << 32 |
     * count keys for the rare rows (hubs) that merged 255 or more. */
    uint8_t *dup;           /* [nlocal] duplicates merged away per row, 255: see dup_big */
    uint64_t *dup_big;      /* [ndup_big] row << 32 | count, by increasing row */
    int64_t ndup_big;
    double build_time[6];   /* kern_graph_build_times */
    int64_t *bytes_to;      /* [P] bytes sent to each rank by the kernels */
    int rows_by_weight;     /* 1: every row sorted by (weight, column) (csr_sort.c) */
};

/* Duplicates merged away from local row l when dup[l] is 255 (a binary
 * search of dup_big; construct.c). */
int64_t kern_graph_dup_big(const kern_graph *g, int64_t l);
/* The raw degree of local row l: kept entries + merged duplicates. */
static inline int64_t kern_rawdeg(const kern_graph *g, int64_t l)
{
    int64_t d = g->rowptr[l + 1] - g->rowptr[l];
    return d + (g->dup[l] < 255 ? g->dup[l] : kern_graph_dup_big(g, l));
}

/* The weight arrays by value, for hot loops that keep them in registers
 * (stores through other pointers cannot alias locals), and the weight of
 * entry i (exact in both layouts). */
typedef struct kern_wts {
    int w24;
    const uint8_t *w3;
    const float *w;
} kern_wts;
static inline kern_wts kern_weights(const kern_graph *g)
{
    kern_wts t = {g->w24, g->w3, g->w};
    return t;
}
/* The 24-bit integer of entry i: one unaligned 4-byte load masked (the
 * array has one byte of padding) on little-endian machines. */
static inline uint32_t kern_w3_get(const uint8_t *w3, int64_t i)
{
    const uint8_t *p = w3 + 3 * i;
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    uint32_t u;
    memcpy(&u, p, 4);
    return u & 0xFFFFFFu;
#else
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16;
#endif
}
static inline float kern_wts_get(kern_wts t, int64_t i)
{
    if (t.w24) return (float)(int32_t)kern_w3_get(t.w3, i) * 0x1p-24f;
    return t.w[i];
}
static inline float kern_w(const kern_graph *g, int64_t i) { return kern_wts_get(kern_weights(g), i); }

/* A 32-bit key of entry i's weight that orders like the weight (k in the
 * 24-bit layout, the float's bits otherwise: weights are non-negative), and
 * its inverse: store the weight of key `key` at entry i. */
static inline uint32_t kern_wkey(const kern_graph *g, int64_t i)
{
    if (g->w24) return kern_w3_get(g->w3, i);
    uint32_t u;
    memcpy(&u, &g->w[i], 4);
    return u;
}
static inline void kern_wkey_set(kern_graph *g, int64_t i, uint32_t key)
{
    if (g->w24) {
        uint8_t *p = g->w3 + 3 * i;
        p[0] = (uint8_t)key; p[1] = (uint8_t)(key >> 8); p[2] = (uint8_t)(key >> 16);
    } else {
        memcpy(&g->w[i], &key, 4);
    }
}

/* Owner rank of a pid: the last r with base[r] <= pid (binary search over
 * P+1 entries; P is small next to the work per edge). */
static inline int kern_owner_of_pid(const kern_dist *d, uint64_t pid)
{
    int lo = 0, hi = d->nranks - 1;
    while (lo < hi) {
        int mid = (lo + hi + 1) / 2;
        if ((uint64_t)d->base[mid] <= pid) lo = mid; else hi = mid - 1;
    }
    return lo;
}

/* Not collective. Sort every row of g by increasing (weight, column), in
 * place with OpenMP, and set g->rows_by_weight. G5_OK or G5_ERR_NOMEM (a
 * per-thread scratch of the longest row). Row contents are unchanged as sets. */
int kern_graph_sort_rows_by_weight(kern_graph *g);
/* Sort n 64-bit keys ascending in place (quicksort, insertion sort for short
 * runs; construct.c). Not collective; no allocation. */
void kern_sort_u64(uint64_t *a, int64_t n);

/* kern_to_original with conv_chunk local vertices per round (< 1: the
 * default); the result does not depend on it (convert.c). Collective. */
int kern_to_original_ex(kern_graph *g, const int64_t *parent, const float *dist,
                        int64_t *parent_out, float *dist_out, int64_t conv_chunk);

/* A growable array of fixed-size elements. */
typedef struct kvec {
    char *p;
    size_t n, cap, esize;
    int fail;               /* an allocation failed; contents truncated */
} kvec;

static inline void kvec_init(kvec *v, size_t esize)
{
    v->p = NULL; v->n = v->cap = 0; v->esize = esize; v->fail = 0;
}
static inline void kvec_free(kvec *v) { free(v->p); v->p = NULL; v->n = v->cap = 0; }
static inline int kvec_reserve(kvec *v, size_t want)
{
    if (want <= v->cap) return 1;
    size_t cap = v->cap ? v->cap : 256;
    while (cap < want) cap *= 2;
    char *p = realloc(v->p, cap * v->esize);
    if (!p) { v->fail = 1; return 0; }
    v->p = p; v->cap = cap;
    return 1;
}
static inline void *kvec_push(kvec *v)
{
    if (v->n == v->cap && !kvec_reserve(v, v->n + 1)) return NULL;
    return v->p + (v->n++) * v->esize;
}

/* Collective. Exchange variable-size blocks of `esize`-byte records:
 * sendbuf holds the records for rank 0, then rank 1, ... (sendcounts[P]
 * records each). The received records (all ranks' blocks for this rank in
 * rank order) are placed in *recv (grown as needed, capacity *recvcap
 * records) and their number in *nrecv. Bytes sent to other ranks are added
 * to bytes_to. `ok` is this rank's state on entry (0: it failed earlier and
 * sends nothing); the return value is 1 when every rank is ok after the
 * exchange, 0 otherwise, the same on every rank. */
int kern_exchange(MPI_Comm comm, size_t esize, const void *sendbuf,
                  const int64_t *sendcounts, void **recv, size_t *recvcap,
                  int64_t *nrecv, int64_t *bytes_to, int ok);

/* ---- kernel 1's construction state (construct.c, construct_merge.c) ---- */

#define KERN_SHORT_ROW 24                        /* insertion sort below this */
#define KERN_BLOCK_ROWS_LOG 10                   /* rows per block: at most 2^10 */

static inline uint32_t kc_f2u(float f) { uint32_t u; memcpy(&u, &f, 4); return u; }

/* 1 when the weight is k * 2^-24 for an integer k in [0, 2^24), exactly
 * (bit for bit: -0.0 and NaN do not qualify). On the bits alone, so the
 * check vectorizes: 0, or a normal float of biased exponent E in
 * [103, 126] (a value in [2^-24, 1); the sign bit makes E larger) whose
 * value (2^23 + mantissa) * 2^(E - 150) has no bit below 2^-24, i.e. whose
 * low 126 - E mantissa bits are zero. */
static inline int weight_is_w24(float f)
{
    uint32_t u = kc_f2u(f), e = u >> 23, m = u & 0x7FFFFFu;
    uint32_t low = ((uint32_t)1 << ((126 - e) & 31)) - 1;
    return (u == 0) | ((e >= 103) & (e <= 126) & ((m & low) == 0));
}

/* Store the 3 little-endian bytes of k at p (byte stores: the neighbours
 * may belong to another thread's row). */
static inline void rec_put3(uint8_t *p, uint32_t k)
{
    p[0] = (uint8_t)k; p[1] = (uint8_t)(k >> 8); p[2] = (uint8_t)(k >> 16);
}

/* Store the 3 little-endian bytes of k at entry i of a 24-bit weight array. */
static inline void w3_put(uint8_t *w3, int64_t i, uint32_t k)
{
    uint8_t *p = w3 + 3 * i;
    p[0] = (uint8_t)k; p[1] = (uint8_t)(k >> 8); p[2] = (uint8_t)(k >> 16);
}

/* The rank whose range [B[r], B[r+1]) of a non-decreasing bounds array
 * B[0..P] holds x, in O(1): a table gives the rank holding the first x of
 * each of up to KERN_RANK_TABLE equal slices of [0, B[P]), and a forward
 * walk (skipping empty ranks, or crossing a bound inside the slice) is
 * rarely more than a predicted not-taken branch. A binary search over P+1
 * bounds per endpoint cost ~30 instructions and mispredicted. */
#define KERN_RANK_TABLE 1024
typedef struct kc_rank_table {
    const int64_t *B;
    int shift;
    int32_t first[KERN_RANK_TABLE];
} kc_rank_table;

/* Where the endpoints go, without a call per endpoint: cyclic with a
 * power-of-two P is a mask and a shift; a placement is one load from its
 * new_of_old map (prefetched a few edges ahead by the caller: the map is
 * N entries, far larger than the caches) and a rank table lookup on the new
 * label; block (and cyclic with another P) take kern_dist_locate. Same
 * results as kern_dist_locate. */
typedef struct kc_finder {
    const kern_dist *d;
    int shift;              /* log2 P for cyclic with P a power of two, else -1 */
    uint64_t n;
    const uint32_t *label;  /* placement: new_of_old */
    const int64_t *first;   /* placement: first new label of each rank */
    const kc_rank_table *by_label; /* placement: ranks of new labels */
} kc_finder;

/* log2 of the rows per block of a construction whose columns take pbits
 * bits, with S threads, nl local rows and count edges read by this rank:
 * 32 - pbits (at most 10), or up to 40 - pbits when 8-byte records give
 * the lower peak (fewer cursors; construct.c). */
int kc_block_rows_log(int pbits, int S, int64_t nl, int64_t count);

/* The state of one construction. */
typedef struct kc_build {
    MPI_Comm comm;
    const kern_dist *d;
    int P, me, S;
    int64_t nl;
    int64_t *rowptr;        /* [nl+1] the graph's, filled by the merge */
    int rb;                 /* log2 rows per block */
    int pbits;              /* bits of a column pid in a pass-2 record */
    int64_t nb;             /* blocks: ceil(nl / 2^rb) */
    int64_t *bptr;          /* [nb+1] first record of each block (after pass 1) */
    int64_t *cur;           /* [S][nb] per slice and block: pass 1 counts, pass 2 the
                               next record of the slice's stretch inside the block */
    kc_finder find;            /* where the endpoints go */
    kc_rank_table by_label;    /* placement: owner of a new label */
    kc_rank_table by_pid;      /* owner of a pid */
    uint32_t *pid;          /* P > 1: [2 * chunk] both endpoints' pids (self-loops: unset) */
    int64_t nraw;           /* entries before merging */
    uint64_t hash[2];       /* digest of the edges seen by pass 1 and pass 2 */
    int w24ok;              /* pass 1: every non-loop weight seen here is k * 2^-24 */
    int w24;                /* the layout (agreed after pass 1) */
    uint8_t *pk;            /* [rs nraw + 8] entries as records of rs little-endian bytes:
                               pass 2: column | weight key << pbits | row in block <<
                               (pbits + wbits), appended per block; after the merge:
                               column | weight key << 32, rows in order */
    size_t pkbytes;         /* pk's mapping */
    int rs;                 /* record size: 7 (24-bit weight keys), 8 (float bits, or
                               24-bit keys with more row bits: kc_block_rows_log) */
    int wbits;              /* bits of a weight key: 24 or 32 */
    uint8_t *dup;           /* [nl] the graph's dup: duplicates merged away per row */
    kvec big;               /* the graph's dup_big: row << 32 | count for rows of 255+ */
    int64_t *scnt;          /* [2][S][P] records per destination, then offsets */
    int64_t *dest;          /* [P] records per destination this round */
    char *sendbuf;
    size_t sendcap;         /* bytes */
    void *recv;
    size_t recvcap;         /* records */
    int esize_recv;         /* record size the recv capacity was counted in */
    int64_t bad;            /* first bad edge (slab index), -1 */
    int64_t bad_u, bad_v;
    int bad_code;
    int overflow;           /* pass 2 found more entries for a row than pass 1 */
    int nomem;              /* an allocation failed here */
} kc_build;

/* construct_merge.c: merge pass 2's records into rows (kept[blk]: the
 * block's kept entries; returns nnz or -1), split them into the graph's
 * arrays, and the weight layout checks. */
int64_t kc_merge_rows(kc_build *b, int64_t *kept);
int kc_split(kc_build *b, kern_graph *g, const int64_t *kept);
int kc_all_w24(const float *w, int64_t n);
void kc_floats_to_w3(kern_graph *g);
/* construct.c: malloc aligned on a huge page (a cache line when smaller)
 * asking for transparent huge pages; free() releases it. */
void *kc_big_malloc(size_t bytes);

/* ---- kernel 3's state (sssp.c, sssp_setup.c) ---- */

typedef struct sssp_msg { uint32_t c, p; float d; } sssp_msg;

#define GHOST_INIT (((uint64_t)0x7fffffffu << 32) | 0xffffffffu)
#define GHOST_QUEUED ((uint64_t)1 << 63)
#define FUSE_MAX 1024           /* bucket fusion: own bucket-k entries expanded at once below this */
#define UB_SCALE 64.0f          /* bound bytes: ceil(distance * 64) (file comment) */
#define PAR_MIN 64              /* fewer entries than this: one thread (no fork/join) */
#define CHUNK 256               /* list entries a thread takes at a time */
#define NCAND 128               /* deferred local relaxations per thread (relax_defer) */
#define PF_FAR 16               /* prefetch distance of compose and apply_messages, in entries */
#define PF_STATE 24             /* prefetch distances of expand_range, in entries */
#define PF_BOUND 16
#define PF_NEAR 8
#define PF_CAND 16              /* state words prefetched ahead in relax_flush, in candidates */
#define RESERVE 65536           /* bytes a list keeps between searches (workspace_trim) */

typedef struct sssp_tctx {
    kvec *b;                /* [nb] uint64 entries per bucket */
    int64_t nb;
    kvec settled;           /* uint64 entries expanded in the current bucket */
    kvec cur;               /* fusion scratch (uint64 entries) */
    kvec *queued;           /* [P] uint32 ghost pids queued this round, by destination */
    int fail;
    char pad[64];           /* keep threads' fields on separate cache lines */
} sssp_tctx;

struct kern_sssp {
    kern_graph *g;
    double delta, inv_delta;
    float fdelta;
    int nt, P;
    int64_t nl;
    uint64_t *st;           /* [nl] state words */
    uint8_t *ub;            /* [nl] bound byte of l's distance (file comment); when
                             * gdirect, ubx + base */
    uint64_t *rbits;        /* [nl / 16 + 1] four bits per row (sssp_row_bits) */
    uint64_t *hrows;        /* [nl / 64 + 1] a bit per row with a heavy edge */
    uint64_t *pc;           /* [nl / 64 + 1] rows a pull may still improve (pull_pass) */
    uint64_t *sbits;        /* [nsw] by pid: the bucket being pulled from */
    uint32_t *scnt;         /* [nsw] when P > 1: bits of sbits below each word */
    int64_t nsw, nheavy, npc;   /* words of sbits; bits set in hrows and in pc */
    kvec sl_send, sl_recv;  /* when P > 1: the bucket's (pid << 32 | distance bits), this
                             * rank's and all ranks' in pid order (pull_gather) */
    int heavy_ready;        /* the heavy list was just gathered (next_round) */
    sssp_tctx *tc;               /* [nt] */
    uint64_t *gidx;         /* [npid / 32 + 1] when P > 1 and not gdirect: ghost index (ghost_slot) */
    uint64_t *ghost;        /* [nghw] when P > 1: best (distance, parent) sent; by ghost
                             * slot, or when gdirect by pid without the local range */
    uint8_t *gub;           /* [nghost] when P > 1: ghost's distance as a ub byte;
                             * when gdirect, ubx: indexed by pid */
    uint8_t *ubx;           /* [npid + 4] when gdirect: every pid's bound byte */
    int gdirect;            /* P > 1 and npid <= local CSR entries / 4 (kern_sssp_create) */
    int64_t npid, nghost, nghw;   /* pids, ghosts, ghost words (npid - nl when gdirect) */
    kvec *fseg, *hseg;      /* [nt] light entries of bucket k; heavy list (gather_list) */
    int64_t *fck, *hck;     /* [nt + 1] chunks before each segment (local_pass) */
    sssp_msg *sendbuf, *recv;
    int64_t sendcap, recvcap;
    int64_t *hs, *hr;       /* [3P] words sent to and received from each rank (exchange) */
    int *sc, *sd, *rc, *rd; /* [P] Alltoallv counts and displacements */
    MPI_Datatype mtype;
    int mtype_ok;
    kern_sssp_stats stats;
};

/* The ghost slot of remote pid c (c must be a ghost: a column of a local
 * row). Word c / 32 of the index holds the ghost bits of pids 32w..32w+31
 * (low half) and the number of ghosts below pid 32w (high half), so the
 * slot is that count plus the ghosts below c within the word: one aligned
 * 8-byte load, like the direct index it replaces. */
static inline uint32_t ghost_slot(const uint64_t *gidx, uint32_t c)
{
    uint64_t w = gidx[c >> 5];
    return (uint32_t)(w >> 32) + (uint32_t)__builtin_popcount((uint32_t)w & ((1u << (c & 31)) - 1u));
}

/* sssp_setup.c: bytes held by the bucket lists and by the whole
 * workspace; release bucket k's lists; trim the lists between searches. */
int64_t sssp_lists_bytes(const kern_sssp *s);
int64_t sssp_workspace_bytes(const kern_sssp *s);
void sssp_bucket_release(kern_sssp *s, int64_t k);
uint64_t sssp_row_bits(const kern_sssp *s, int64_t l, int alone);
void sssp_workspace_trim(kern_sssp *s);

/* ---- the validators' state (validate_core.c, validate_edges.c) ---- */

#include <math.h>
#include "kern_validate.h"

#define TOL_ABS 1e-6
#define TOL_REL 1e-6
#define MAX_JUMP_ROUNDS 62

/* The jump word: ancestor in the low 32 bits, hops in the high 32. */
#define J_UNREACHED 0xFFFFFFFFu      /* ancestor of a vertex with parent -1 */
#define J_BROKEN 0xFFFFFFFEu         /* its chain was found broken */
#define J_MAX_N ((int64_t)0xFFFFFFFD)
static inline uint32_t j_anc(uint64_t x) { return (uint32_t)x; }
static inline uint32_t j_hops(uint64_t x) { return (uint32_t)(x >> 32); }
static inline uint64_t j_word(uint32_t anc, uint64_t hops)
{
    return (hops > 0xFFFFFFFFu ? 0xFFFFFFFFu : hops) << 32 | anc;   /* cycles may saturate */
}
/* Where the words live: 8 bytes each for BFS (w), whose depths are the
 * hops; SSSP needs only the ancestor, so 4 bytes each (a), read back with
 * 0 hops. */
typedef struct jwords {
    uint64_t *w;
    uint32_t *a;
} jwords;
/* Relaxed atomics: a round's parallel pass reads words other threads are
 * replacing (either value is a correct answer; plain moves on x86-64). */
static inline uint64_t jw_get(jwords j, int64_t i)
{
    return j.a ? (uint64_t)__atomic_load_n(&j.a[i], __ATOMIC_RELAXED)
               : __atomic_load_n(&j.w[i], __ATOMIC_RELAXED);
}

enum check {
    C_RANGE,
    C_ROOT,
    C_ROOTDIST,
    C_AGREE,
    C_CHAIN,
    C_REACH,
    C_RELAX,
    C_TREE,
    C_NONE
};

/* The failure of the highest priority seen on this rank, and among those
 * the one of the smallest key (the vertex or the global edge index), so the
 * report does not depend on the thread count or on timing. */
typedef struct vfail {
    int check;
    int64_t key;
    char detail[400];
} vfail;

static inline int fail_before(int check, int64_t key, const vfail *f)
{
    return check < f->check || (check == f->check && key < f->key);
}

/* Reusable buffers for one all-to-all exchange pattern. */
typedef struct xbuf {
    void *p;
    size_t cap; /* bytes */
} xbuf;

/* One key's result for one vertex, as the edge stream reads it: the
 * parent (J_UNREACHED: unreached) and the value, the BFS depth or the
 * SSSP distance's float bits. A batch keeps a vertex's records for all its
 * keys side by side, so one cache line of an endpoint serves every key. */
typedef struct vrec {
    uint32_t parent;
    uint32_t val;
} vrec;
_Static_assert(sizeof(vrec) == 8, "records are 8 bytes");
static inline double rec_dist(vrec r)
{
    float d;
    memcpy(&d, &r.val, sizeof d);
    return d;
}

/* A batch of keys' results (kern_validate.h): their records, roots and
 * verdicts so far. */
#define VB_MSG 1024
struct kern_vbatch {
    MPI_Comm comm;
    int rank, nranks, sssp, kmax, nk;
    int nchecked;                        /* keys of the last check (their messages) */
    int64_t n, first, count;
    vrec *rec;                           /* [count][kmax] */
    int64_t root[KERN_VBATCH_MAX];
    int status[KERN_VBATCH_MAX];
    char msg[KERN_VBATCH_MAX][VB_MSG];
    io_spill *spill;                     /* a parking batch: keys go here as added */
    int64_t parked_at;                   /* the last parked key's offset */
};
/* Collective. The records of batch b, allocated for its first key. */
int vc_batch_alloc(kern_vbatch *b);
/* validate_park.c: write key k of a parking batch from the arrays it was
 * checked with (not collective; the caller agrees). */
int vc_park_key(kern_vbatch *b, int k, const int64_t *parent, const float *dist, jwords jw);

typedef struct vctx {
    MPI_Comm comm;
    int rank, nranks;
    int64_t n, first, count;
    int sssp;
    int nk, stride;         /* keys in the batch; records per vertex in rec */
    const vrec *rec;        /* [count][stride] this rank's records */
    int *scount, *sdispl, *rcount, *rdispl, *cursor; /* [nranks] each */
    MPI_Datatype t_i64, t_info;   /* t_info: one vertex's nk records */
} vctx;

static inline int is_tight(double dv, double du_w)
{
    return fabs(dv - du_w) <= TOL_ABS + TOL_REL * fabs(du_w);
}

/* Vertex v (known to be in [0, N)) is in this rank's block. */
static inline int is_mine(const vctx *c, int64_t v)
{
    return (uint64_t)(v - c->first) < (uint64_t)c->count;
}

/* Owner of vertex v (in [0, N), N < 2^32) under the block distribution,
 * with the divisions by P hoisted: one 32-bit division per vertex. */
typedef struct vowner {
    uint32_t q, big;       /* N / P, and the vertices held by the ranks with q + 1 */
    int rem;               /* N % P */
} vowner;

static inline vowner vowner_of(const vctx *c)
{
    int64_t q = c->n / c->nranks, rem = c->n % c->nranks;
    return (vowner){.q = (uint32_t)q, .big = (uint32_t)(rem * (q + 1)), .rem = (int)rem};
}

static inline int vowner_get(vowner o, int64_t v)
{
    uint32_t x = (uint32_t)v;
    return x < o.big ? (int)(x / (o.q + 1)) : o.rem + (int)((x - o.big) / o.q);
}

/* The bit of vertex i in a bitmap. */
static inline int bit_get(const uint8_t *b, int64_t i) { return b[i >> 3] >> (i & 7) & 1; }

/* validate_core.c: record a failure (kept if it comes first), merge a
 * thread's record, grow a buffer, the counted exchange and its reply, the
 * displacements from the counts, and the counting sort's offsets. */
__attribute__((format(printf, 4, 5)))
void vc_fail(vfail *f, int check, int64_t key, const char *fmt, ...);
void vc_fail_merge(vfail *f, const vfail *t);
int vc_xbuf_need(xbuf *b, size_t bytes, const char *what);
int vc_exchange(vctx *c, const void *sbuf, MPI_Datatype type, size_t size, xbuf *rb,
                int64_t *nrecv, const char *what);
int vc_reply(vctx *c, const void *sbuf, MPI_Datatype type, void *rbuf, const char *what);
void vc_displs_from_counts(vctx *c);
int64_t vc_bucket_offsets(vctx *c, int *bcount, int nb, int64_t *own_lo, int64_t *own_n);
/* validate_edges.c: phase 3, the edge stream for the batch's c->nk keys
 * (see there): per key k, nedge[k] and the failure f[k]; confirmed bit
 * i * nk + k for vertex i of the block and key k. */
int vc_check_edges(vctx *c, const kern_edge_reader *rd, uint8_t *confirmed, int64_t *nedge,
                   vfail *f);

#endif
