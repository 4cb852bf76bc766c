/* SPDX-License-Identifier: MIT */
/*
 * io.h - everything HDF5: the schemas of the pipeline's files, collective
 * parallel reads and writes by slab, atomic writes, and the checks made on
 * every file read.
 *
 * Errors: as everywhere in g500 (common.h), functions return G5_OK or a
 * negative G5_ERR_* with a message naming the file and the problem. Every
 * function marked "collective" returns the same status on every rank.
 *
 * Atomic writes: a writer creates "<path>.tmp.<pid-of-rank-0>", and only
 * io_*_commit renames it to <path> after every rank has written and the file
 * is closed. io_*_abort (or a failed commit) removes the temporary file. An
 * existing <path> is refused with G5_ERR_EXISTS unless force has
 * IO_FORCE_REPLACE (1, so force = 1 keeps its old meaning); a file larger
 * than the free space of its directory is refused before it is created
 * unless force has IO_FORCE_SIZE. A writer's temporary file is removed on
 * SIGINT and SIGTERM (g5_tmp_add), and a stale one of a dead writer of the
 * same path is removed when the next writer creates it.
 *
 * Write failures: a rank that fails inside an HDF5 write waits at most a few
 * seconds for the others to agree (g5_agree_within); when they cannot leave
 * the collective it left, the process is marked stuck and main ends the job
 * with MPI_Abort, after removing the temporary file. Messages name the file
 * and the OS error ("No space left on device").
 */

/*
 * ---- File formats (version 1) ---------------------------------------------
 *
 * edges.h5 (written by gen)
 *   /edges    int64   [M][2]  (u, v) per edge, original vertex ids in [0, N)
 *   /weights  float32 [M]     uniform in [0, 1)
 *   root attributes: format="g500-edges", version=1, scale, edgefactor,
 *   nvertices (N = 2^scale), nedges (M), seed, rmat_a, rmat_b, rmat_c,
 *   generator (string), content_id (uint64: an order-independent hash of
 *   every (index, u, v, weight bits), computed at generation; downstream
 *   files record it to refuse a mismatched pair).
 *
 * components.h5 (written by components)
 *   /label               int64 [N]  component id of each vertex; ids ordered
 *                                   by component size (vertices), largest 0,
 *                                   ties by smallest member vertex; isolated
 *                                   vertices (no edge but self-loops) get -1
 *   /component_vertices  int64 [C]  vertices per non-isolated component
 *   /component_edges     int64 [C]  non-self-loop input tuples per component
 *                                   (duplicates counted: the TEPS edge count)
 *   root attributes: format="g500-components", version=1, scale, nvertices,
 *   nedges, seed, edges_content_id, and the statistics (see components/).
 *
 * placement-<topo>.h5 (written by partition)
 *   /owner        int32 [N]    rank owning each original vertex, -1 for
 *                              isolated vertices
 *   /new_label    int64 [N]    new id of each original vertex: non-isolated
 *                              vertices get [0, n_active), rank r owning
 *                              [rank_offsets[r], rank_offsets[r+1]) with its
 *                              giant-component vertices first, then its small
 *                              components; isolated vertices get
 *                              [n_active, N) in original id order
 *   /rank_offsets int64 [R+1]
 *   /rank_node    int32 [R]    node index of each rank
 *   /node_names   string [nnodes_used]  fixed length IO_NODE_NAME_MAX,
 *                              NUL-terminated; rank_node indexes this list
 *   /node_hops    int32 [nnodes_used][nnodes_used]  switches crossed
 *   /metrics/<placement|cyclic|block>: attributes total_edges, cut_edges,
 *                              hop_cut, edge_imbalance, vertex_imbalance,
 *                              bytes_per_vertex; datasets rank_edges,
 *                              rank_vertices int64 [R]
 *   root attributes: format="g500-placement", version=1, nranks,
 *   ranks_per_node (0: mapped by host name), nnodes (used), n_active,
 *   n_giant, nvertices, scale, topology (path), topology_id (uint64),
 *   edges_content_id, tolerance. Metric definitions: partition/part.h.
 */
#ifndef G500_IO_H
#define G500_IO_H

#include <hdf5.h>
#include <mpi.h>
#include <stdint.h>

/* ---- generic building blocks (io_file.c) ---------------------------------
 * Every stage file is an io_file: an HDF5 file opened with the MPI-IO driver
 * on a communicator, carrying root attributes format and version. Dataset
 * and attribute names are absolute HDF5 paths ("/label", "/metrics/cyclic");
 * missing groups are created on write. */
typedef struct io_file io_file;

/* Bits of the `force` argument of every writer. */
#define IO_FORCE_REPLACE 1   /* replace an existing output               */
#define IO_FORCE_SIZE 2      /* skip the free-space check (io_file_check_space) */

/* Collective. Refuse (G5_ERR_IO) to write a file of about `bytes` bytes
 * where its directory has less free space (statvfs, rank 0 looks), with the
 * figures: "PATH: WHAT needs 16.0 TiB of disk in DIR, 245 GiB free". `what`
 * names what the size follows from ("SCALE 40, edgefactor 16"). A no-op
 * when force has IO_FORCE_SIZE. The writers (edges, components, placement)
 * call it with their file's size before creating it. */
int io_file_check_space(MPI_Comm comm, const char *path, const char *what, double bytes,
                        int force);
/* Collective: the agreement a writer built on io_file makes after its own
 * phase of HDF5 writes (g5_agree_within with the io layer's time limit). */
int io_file_agree(io_file *f, int rc);

/* Collective. Create "<path>.tmp.<id>" for an atomic write of a file of the
 * given format and version (stored as root attributes at once). force:
 * replace an existing path; without it an existing path is G5_ERR_EXISTS. An
 * unwritable directory is G5_ERR_IO naming the path. */
int io_file_create(MPI_Comm comm, const char *path, const char *format,
                   int version, int force, io_file **out);
/* Collective. The checks io_file_create makes, made before a stage's work
 * so that a run does not compute for minutes and then refuse its output:
 * an empty or too long path is G5_ERR_ARG; an existing path without force
 * G5_ERR_EXISTS; the input itself (input non-NULL and the same file, even
 * with force) G5_ERR_ARG; a directory that is missing or not writable
 * G5_ERR_IO, naming the path. Rank 0 looks, every rank gets the answer. */
int io_file_check_output(MPI_Comm comm, const char *path, int force, const char *input);
/* Collective. Close and rename to the final path; on any failure the
 * temporary file is removed. Frees *f, sets it to NULL. */
int io_file_commit(io_file **f);
/* Collective. Close and remove the temporary file. Accepts *f == NULL. */
void io_file_abort(io_file **f);
/* Collective. Open for reading and check that it is an HDF5 file whose
 * format attribute equals `format` (NULL: accept any g500 format) and whose
 * version is supported (<= version). Not HDF5, truncated, another format:
 * G5_ERR_FORMAT with the path and what was found. */
int io_file_open(MPI_Comm comm, const char *path, const char *format,
                 int version, io_file **out);
/* Collective. Accepts *f == NULL. */
void io_file_close(io_file **f);
/* Read every dataset of an open file in full, in pieces of at most 64 MiB,
 * with Fletcher32 checksums verified where the dataset has them: a damaged
 * chunk is G5_ERR_FORMAT naming file and dataset. Costs one read of the
 * whole file. Not collective: open the file on MPI_COMM_SELF. */
int io_file_read_all(io_file *f);
/* Reads verify Fletcher32 checksums by default. A reader that has already
 * read every chunk once with verification (kernel 1 reads the whole edge
 * list) may switch it off for later passes (validation streams the list
 * again for every search key), saving the checksum's cost on every pass.
 * Not collective; every rank should pass the same value. */
void io_file_set_checksum_verify(io_file *f, int verify);
hid_t io_file_hid(const io_file *f);
const char *io_file_path(const io_file *f);   /* the final path */
MPI_Comm io_file_comm(const io_file *f);
/* The format attribute ("g500-edges", ...) of an open file. */
const char *io_file_format(const io_file *f);

/* Attributes on object `obj` ("/" for the root, or a group path). Writes are
 * collective (every rank passes the same value). Reads are collective and a
 * missing or mistyped attribute is G5_ERR_FORMAT naming file and attribute. */
int io_attr_write_int64(io_file *f, const char *obj, const char *name, int64_t v);
int io_attr_write_uint64(io_file *f, const char *obj, const char *name, uint64_t v);
int io_attr_write_double(io_file *f, const char *obj, const char *name, double v);
int io_attr_write_string(io_file *f, const char *obj, const char *name, const char *v);
int io_attr_write_int64_array(io_file *f, const char *obj, const char *name,
                              const int64_t *v, int64_t n);
int io_attr_read_int64(io_file *f, const char *obj, const char *name, int64_t *v);
int io_attr_read_uint64(io_file *f, const char *obj, const char *name, uint64_t *v);
int io_attr_read_double(io_file *f, const char *obj, const char *name, double *v);
/* Copies at most len-1 characters and a NUL. */
int io_attr_read_string(io_file *f, const char *obj, const char *name, char *buf, size_t len);
/* *n in: capacity of v; out: number of elements. Too small: G5_ERR_FORMAT. */
int io_attr_read_int64_array(io_file *f, const char *obj, const char *name,
                             int64_t *v, int64_t *n);
int io_attr_exists(io_file *f, const char *obj, const char *name);
/* The stage record every stage's output carries as root attributes:
 * <prefix>elapsed_seconds (float64, the stage's wall time up to writing
 * its output) and <prefix>ranks (integer, the processes it ran on); a
 * placement file also carries its components stage's, prefixed
 * "components_". Write: collective on f, rank 0's values. Read: seconds
 * and ranks -1 when absent (files written before the record existed). */
int io_stage_write(io_file *f, const char *prefix, double elapsed_seconds, int ranks);
int io_stage_read(io_file *f, const char *prefix, double *elapsed_seconds, int *ranks);

/* Collective. Create dataset `name` of element type `type` (e.g.
 * H5T_STD_I64LE, H5T_IEEE_F32LE) and shape dims[0..ndims-1] (ndims 1 or 2).
 * chunk_rows > 0: chunked along dim 0 with Fletcher32 checksums, so a
 * damaged chunk is detected on read; 0: contiguous. */
int io_dataset_create(io_file *f, const char *name, hid_t type, int ndims,
                      const hsize_t *dims, hsize_t chunk_rows);
/* The same with the Fletcher32 checksums of chunked data switched off
 * (checksums = 0), for layout benchmarks. */
int io_dataset_create_ex(io_file *f, const char *name, hid_t type, int ndims,
                         const hsize_t *dims, hsize_t chunk_rows, int checksums);
/* Collective: every rank calls it the same number of times with its own
 * rows [first, first+count) along dim 0 (count may be 0); a row is all of
 * dims[1] for a 2-D dataset. memtype: H5T_NATIVE_INT64, ... */
int io_write_rows(io_file *f, const char *name, hid_t memtype, int64_t first,
                  int64_t count, const void *buf);
int io_read_rows(io_file *f, const char *name, hid_t memtype, int64_t first,
                 int64_t count, void *buf);
/* Collective. Check that dataset `name` exists with type class `cls`
 * (H5T_INTEGER, H5T_FLOAT), element size `size`, ndims dimensions, and, for
 * every dims[i] >= 0, that extent; the actual extents are returned in dims.
 * Each mismatch is G5_ERR_FORMAT naming file, dataset, expected and found. */
int io_dataset_check(io_file *f, const char *name, H5T_class_t cls, size_t size,
                     int ndims, int64_t *dims);

/* ---- placement file (io_placement.c) ------------------------------------ */
#define IO_PLACEMENT_FORMAT "g500-placement"
#define IO_PLACEMENT_VERSION 1
#define IO_NODE_NAME_MAX 64
#define IO_PLACEMENT_NSCHEMES 3   /* placement, cyclic, block: in that order */

/* "placement", "cyclic", "block" for 0, 1, 2. */
const char *io_placement_scheme_name(int scheme);

typedef struct io_placement_meta {
    int version;
    int nranks;                 /* R                                       */
    int ranks_per_node;         /* 0 when ranks were mapped by host name   */
    int nnodes;                 /* nodes used: rows of /node_hops          */
    int scale;
    int64_t nvertices, n_active, n_giant;
    uint64_t topology_id, edges_content_id;
    double tolerance;
    char topology[1024];        /* the topology file's path                */
    /* stage records (io_stage_write) of the partition stage and of the
     * components stage whose file it read; -1 unknown */
    double elapsed_seconds, components_elapsed_seconds;
    int ranks, components_ranks;
} io_placement_meta;

typedef struct io_placement_metrics {
    int64_t total_edges, cut_edges, hop_cut;
    double edge_imbalance, vertex_imbalance, bytes_per_vertex;
    int64_t *rank_edges, *rank_vertices;   /* [nranks]; caller's memory */
} io_placement_metrics;

/* Collective. Create the temporary placement file with every root attribute
 * of m and all datasets; commit with io_file_commit, or io_file_abort. */
int io_placement_create(MPI_Comm comm, const char *path, const io_placement_meta *m,
                        int force, io_file **out);
/* Collective; every rank passes the same replicated arrays (rank 0 writes):
 * rank_offsets [R+1], rank_node [R], node_names [nnodes][IO_NODE_NAME_MAX],
 * node_hops [nnodes][nnodes], metrics [IO_PLACEMENT_NSCHEMES]. */
int io_placement_write_ranks(io_file *f, const io_placement_meta *m,
                             const int64_t *rank_offsets, const int32_t *rank_node,
                             const char *node_names, const int32_t *node_hops,
                             const io_placement_metrics *metrics);
/* Collective: each rank writes rows [first, first+count) of /new_label and
 * /owner. */
int io_placement_write_vertices(io_file *f, int64_t first, int64_t count,
                                const int64_t *new_label, const int32_t *owner);
/* Collective. Open and check a placement file (format, version, root
 * attributes, every dataset's type and shape against them); fills *m. */
int io_placement_open(MPI_Comm comm, const char *path, io_file **out, io_placement_meta *m);
/* Collective. The same checks on a file already open (e.g. by `g500 stats`). */
int io_placement_read_meta(io_file *f, io_placement_meta *m);
/* Collective; every rank reads the full arrays (any may be NULL), sized as
 * for io_placement_write_ranks. metrics[s].rank_edges/rank_vertices may be
 * NULL to skip them. */
int io_placement_read_ranks(io_file *f, const io_placement_meta *m, int64_t *rank_offsets,
                            int32_t *rank_node, char *node_names, int32_t *node_hops);
int io_placement_read_metrics(io_file *f, const io_placement_meta *m,
                              io_placement_metrics *metrics);
/* Collective: each rank reads rows [first, first+count) (either may be NULL). */
int io_placement_read_vertices(io_file *f, int64_t first, int64_t count,
                               int64_t *new_label, int32_t *owner);

#define IO_EDGES_FORMAT "g500-edges"
#define IO_EDGES_VERSION 2

typedef struct io_edges_meta {
    int version;
    int scale;
    int edgefactor;
    int64_t nvertices;   /* 2^scale */
    int64_t nedges;      /* edgefactor * 2^scale */
    uint64_t seed;
    double rmat_a, rmat_b, rmat_c;
    uint64_t content_id;
    double generation_seconds;  /* wall time gen took (informational); -1 if absent */
    char generator[128];
} io_edges_meta;

/* Rows per chunk of /edges and /weights (see docs/gen.md for the
 * measurement behind it). 2^18 - 1 rows, not 2^18: with the 4-byte
 * Fletcher32 suffix a chunk is then at most 2 MiB (/edges with uint32 ids;
 * 4 MiB with int64) or 1 MiB (/weights), so the 1 MiB file alignment wastes
 * nothing (2^18 rows made the
 * SCALE-22 file 1.75 GiB instead of 1.25 GiB). Writers that give each rank
 * whole chunks avoid shared chunks in collective filtered writes. */
#define IO_EDGES_CHUNK_ROWS (((int64_t)1 << 18) - 1)

/* Bytes per vertex id in /edges of a file of this version and scale: 4
 * (uint32) from version 2 on when scale <= 32, else 8 (int64). */
size_t io_edges_id_bytes(int version, int scale);

/* ---- edges: writing --------------------------------------------------- */
typedef struct io_edges_writer io_edges_writer;

/* Collective. Create the temporary file for meta->nedges edges (content_id
 * may be filled in later, at commit). force: replace an existing path. The
 * writer is freed by commit or abort. */
int io_edges_create(MPI_Comm comm, const char *path, const io_edges_meta *meta,
                    int force, io_edges_writer **out);
/* The same with a chosen layout, for benchmarks: chunk_rows rows per chunk
 * (0: contiguous, no checksums) and checksums on or off for chunked data. */
int io_edges_create_ex(MPI_Comm comm, const char *path, const io_edges_meta *meta,
                       int force, int64_t chunk_rows, int checksums,
                       io_edges_writer **out);
/* Collective. The free-space check io_edges_create_ex makes (scale,
 * edgefactor and nedges of meta are read), for a writer that checks
 * memory after disk and before creating (gen). */
int io_edges_check_space(MPI_Comm comm, const char *path, const io_edges_meta *meta,
                         int64_t chunk_rows, int checksums, int force);
/* Not collective. Record the generation time stored at commit as the root
 * attribute generation_seconds (rank 0's value is written). */
void io_edges_set_seconds(io_edges_writer *w, double seconds);
/* Collective: every rank calls it the same number of times, each with its
 * own slab [first, first+count) (count may be 0). edges is [count][2]. */
int io_edges_write_slab(io_edges_writer *w, int64_t first, int64_t count,
                        const int64_t *edges, const float *weights);
/* Collective. Store content_id, close, rename to the final path. On failure
 * the temporary file is removed. Frees *w and sets it to NULL. */
int io_edges_commit(io_edges_writer **w, uint64_t content_id);
/* Collective. Close and remove the temporary file; accepts *w == NULL. */
void io_edges_abort(io_edges_writer **w);

/* The HDF5 library's version ("1.10.8"), into buf. Not collective. */
void io_hdf5_version(char *buf, size_t len);

/* ---- edges: reading --------------------------------------------------- */
typedef struct io_edges io_edges;

/* Collective. Open and check an edges file (format, version, datasets,
 * types, shapes, attributes agree with each other). */
int io_edges_open(MPI_Comm comm, const char *path, io_edges **out);
const io_edges_meta *io_edges_get_meta(const io_edges *f);
const char *io_edges_path(const io_edges *f);
/* Rows per chunk of /edges (0 if the dataset is contiguous), read at open:
 * a reader that splits its slab into pieces cuts them at multiples of it,
 * so no chunk is read and checksummed twice. Not collective. */
int64_t io_edges_chunk_rows(const io_edges *f);
/* io_file_set_checksum_verify for the edges file. */
void io_edges_set_checksum_verify(io_edges *f, int verify);
/* Collective: every rank calls it the same number of times with its own
 * [first, first+count) (count may be 0). edges is [count][2]; weights may be
 * NULL to skip them. A damaged chunk (checksum) is reported as G5_ERR_FORMAT.
 * Datasets in gen's layout (chunks with Fletcher32 only) are read by each
 * rank's own direct chunk reads, verified by our vectorised Fletcher32
 * (io_chunks.c); any other layout by collective H5Dread. */
int io_edges_read_slab(io_edges *f, int64_t first, int64_t count,
                       int64_t *edges, float *weights);
/* Collective. Accepts *f == NULL. */
void io_edges_close(io_edges **f);

/* ---- components file (io_components.c) ---------------------------------- */
#define IO_COMPONENTS_FORMAT "g500-components"
#define IO_COMPONENTS_VERSION 1
#define IO_HIST_BINS 40   /* log2 size bins: bin k holds sizes [2^k, 2^(k+1)) */

/* Root attributes of components.h5: the identity of the edges file it was
 * computed from, then the statistics (components/cc.h fills them). */
typedef struct io_components_meta {
    int version;
    int scale;
    int64_t nvertices, nedges;
    uint64_t seed, edges_content_id;
    int64_t ncomponents;            /* C: components with >= 1 non-loop edge */
    int64_t ncomponents_all;        /* C + isolated vertices                  */
    int64_t isolated_vertices;      /* no edge other than self-loops          */
    int64_t self_loops;             /* tuples (u, u)                          */
    int64_t nonloop_edges;          /* tuples (u, v), u != v                  */
    int64_t distinct_edges;         /* distinct unordered pairs {u, v}, u != v */
    int64_t duplicate_edges;        /* nonloop_edges - distinct_edges         */
    int64_t giant_vertices, giant_edges;
    double giant_vertex_share;      /* of all vertices                        */
    double giant_active_share;      /* of non-isolated vertices               */
    double giant_edge_share;        /* of non-loop tuples                     */
    int64_t second_vertices, second_edges; /* largest non-giant component     */
    int64_t size_hist[IO_HIST_BINS];/* components by log2(vertices), isolated in bin 0 */
    double elapsed_seconds;         /* the stage record (io_stage_write); -1 unknown */
    int ranks;
} io_components_meta;

typedef struct io_components_writer io_components_writer;
typedef struct io_components io_components;

/* Collective. Whether a components file of m->nvertices vertices (and
 * m->scale) and ncomp components fits the free space where path goes
 * (io_file_check_space; IO_FORCE_SIZE in force skips it). With ncomp 0
 * before the work (the labels are most of the file), exact at create. */
int io_components_check_space(MPI_Comm comm, const char *path, const io_components_meta *m,
                              int64_t ncomp, int force);
/* Collective. Create the temporary components file for m->nvertices
 * vertices and ncomp components, with every attribute of m (its size
 * checked first, as above). */
int io_components_create(MPI_Comm comm, const char *path, const io_components_meta *m,
                         int64_t ncomp, int force, io_components_writer **out);
/* Collective: each rank writes its rows [first, first+count) of /label
 * (int32 in memory: ids are below 2^30; stored as int64). */
int io_components_write_labels(io_components_writer *w, int64_t first, int64_t count,
                               const int32_t *label);
/* Collective: every rank passes the same full arrays [ncomp]; rank 0 writes. */
int io_components_write_sizes(io_components_writer *w, const int64_t *comp_vertices,
                              const int64_t *comp_edges);
/* Collective. Close and rename; frees *w. On failure the temporary is removed. */
int io_components_commit(io_components_writer **w);
/* Collective. Accepts *w == NULL. */
void io_components_abort(io_components_writer **w);

/* Collective. Open and check a components file (format, version, shapes of
 * /label, /component_vertices, /component_edges, attributes). */
int io_components_open(MPI_Comm comm, const char *path, io_components **out);
const io_components_meta *io_components_get_meta(const io_components *c);
int64_t io_components_ncomp(const io_components *c);
const char *io_components_path(const io_components *c);
/* Collective: each rank reads its rows [first, first+count) of /label. */
int io_components_read_labels(io_components *c, int64_t first, int64_t count, int64_t *label);
/* Collective: every rank reads the full arrays [ncomp] (either may be NULL). */
int io_components_read_sizes(io_components *c, int64_t *comp_vertices, int64_t *comp_edges);
/* Not collective (compares metadata both ranks hold). G5_ERR_MISMATCH
 * naming both files and the first differing field (scale, nvertices, nedges,
 * seed, content_id) when the components file was not computed from e. */
int io_components_check_edges(const io_components *c, const io_edges *e);
/* Collective. Accepts *c == NULL. */
void io_components_close(io_components **c);

/* ---- scratch files (io_spill.c) -------------------------------------------
 * A rank's raw scratch file (not HDF5) for data that waits on a local disk
 * instead of in memory: the validation records of `g500 run --spill DIR`.
 * Made in DIR as g500-spill-XXXXXX and unlinked at once, so it takes disk
 * only while open and vanishes when closed or when the process dies,
 * however it dies. Appended in sequence, read back at any offset. Errors
 * name the file and the OS error. */
typedef struct io_spill io_spill;
/* Collective. Each rank's scratch file in dir (a directory every rank can
 * write; node-local disks are meant). Refused (G5_ERR_IO, the same on every
 * rank) when dir is unusable, or when its file system has less free space
 * than `bytes` (the expected size per rank; 0: no check) times the ranks of
 * the node: "DIR: WHAT need about 52 GiB of disk on this node, 34 GiB free". */
int io_spill_open(MPI_Comm comm, const char *dir, double bytes, const char *what, io_spill **out);
/* Not collective. Append n bytes; *at (may be NULL) gets their offset. */
int io_spill_write(io_spill *s, const void *p, size_t n, int64_t *at);
/* Not collective. n bytes at offset at (within what was written). */
int io_spill_read(io_spill *s, int64_t at, void *p, size_t n);
/* Bytes written so far, the file's (unlinked) name, and whether its
 * directory is a RAM file system (tmpfs, ramfs: the file takes memory). */
int64_t io_spill_size(const io_spill *s);
const char *io_spill_path(const io_spill *s);
int io_spill_in_memory(const io_spill *s);
void io_spill_close(io_spill **s);   /* accepts NULL, *s == NULL */

#endif
