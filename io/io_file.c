/* SPDX-License-Identifier: MIT */
/*
 * io_file.c - the generic HDF5 layer every stage file is built on: atomic
 * creation (temporary name, rename on commit), checked opening, attributes,
 * and collective reads and writes of row slabs.
 *
 * All files are opened with the MPI-IO driver on a communicator, with
 * collective metadata reads and writes (rank 0 reads metadata and broadcasts
 * it, so every rank sees the same answer and errors are symmetric). Raw data
 * moves with collective transfers; filtered (Fletcher32) datasets require
 * them in parallel HDF5. A transfer larger than IO_PIECE_BYTES on any rank is
 * split into pieces, the number of pieces agreed across ranks first, because
 * MPI-IO implementations mishandle single requests near 2 GiB.
 *
 * Atomicity (common/atomic.h): a file is written as "<path>.tmp.<pid of
 * rank 0>" (g5_tmp_path); commit closes
 * it (collective flush), every rank fdatasyncs what it wrote, and rank 0
 * renames it. A killed writer (or a crash before the rename) leaves only a
 * .tmp. file, which no reader takes for the real one.
 *
 * Writeback: after each collective write a rank asks the kernel to start
 * writing its dirty pages (sync_file_range, no wait), so a writer that
 * computes between writes (gen) keeps the disk busy meanwhile and the
 * commit's fdatasync finds little left to do.
 */
#include "io.h"
#include "io_direct.h"

#include "atomic.h"
#include "common.h"

#include <errno.h>
#include <dirent.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#define IO_PIECE_BYTES ((int64_t)256 << 20)
/* How long a rank that failed inside an HDF5 write waits for the others to
 * come out of it before it gives up on them (g5_agree_within). */
#define IO_STUCK_SECONDS 3.0


static void quiet_hdf5(void)
{
    /* Errors are reported through g5_error with the file's name; HDF5's own
     * stack traces would print once per rank. */
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
}

/* Why an HDF5 call that writes failed, for the message: the OS error when
 * the failing write left one (errno, saved right after the call), else the
 * innermost description on HDF5's error stack (MPI-IO's error string). */
static herr_t innermost(unsigned n, const H5E_error2_t *e, void *data)
{
    if (n == 0 && e->desc && *e->desc)
        snprintf((char *)data, 200, "%s", e->desc);
    return 0;
}

const char *io_write_reason(int err)
{
    static char why[256];
    if (err == ENOSPC || err == EDQUOT || err == EFBIG || err == EIO || err == EROFS ||
        err == ENOMEM || err == EACCES || err == ENOENT)
        return strerror(err);
    why[0] = '\0';
    H5Ewalk2(H5E_DEFAULT, H5E_WALK_UPWARD, innermost, why);
    return why[0] ? why : "unknown error (disk full or an I/O error)";
}

/* The agreement after a phase of HDF5 writes: a rank that failed inside
 * HDF5 may have left others inside a collective they cannot leave. */
static int agree_write(MPI_Comm comm, int rc)
{
    return g5_agree_within(comm, rc, IO_STUCK_SECONDS);
}

int io_file_agree(io_file *f, int rc)
{
    return agree_write(f->comm, rc);
}

static hid_t make_fapl(MPI_Comm comm)
{
    hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
    if (fapl < 0)
        return fapl;
    H5Pset_fapl_mpio(fapl, comm, MPI_INFO_NULL);
    H5Pset_all_coll_metadata_ops(fapl, 1);
    H5Pset_coll_metadata_write(fapl, 1);
    /* 1 MiB alignment of large objects: file-system stripes and MPI-IO
     * aggregators then see aligned, contiguous requests. */
    H5Pset_alignment(fapl, 1 << 20, 1 << 20);
    return fapl;
}

static int rank_of(MPI_Comm comm)
{
    int r;
    MPI_Comm_rank(comm, &r);
    return r;
}

/* Writer, not collective. Starts the kernel's writeback of what this
 * process has written so far (SYNC_FILE_RANGE_WRITE: queue the dirty pages,
 * do not wait), so the disk works while the caller computes the next
 * batch instead of taking the whole file after the last write; a file
 * smaller than the kernel's dirty threshold would otherwise sit in the page
 * cache until commit. Best effort: a file system without sync_file_range
 * just skips it. */
static void start_writeback(io_file *f)
{
#ifdef SYNC_FILE_RANGE_WRITE
    if (f->wb_fd < 0)
        f->wb_fd = open(f->tmp, O_RDONLY | O_CLOEXEC);
    if (f->wb_fd >= 0)
        (void)sync_file_range(f->wb_fd, 0, 0, SYNC_FILE_RANGE_WRITE);
#else
    (void)f;
#endif
}

/* Writer, not collective: this process's writes reach stable storage
 * (fdatasync) before the rename publishes the file, so a crash or power
 * loss cannot leave a complete-looking name over missing data. */
static int sync_written(io_file *f)
{
    int rc = G5_OK;
    if (f->wb_fd < 0)
        f->wb_fd = open(f->tmp, O_RDONLY | O_CLOEXEC);
    if (f->wb_fd < 0 || fdatasync(f->wb_fd) != 0)
        rc = g5_error(G5_ERR_IO, "%s: flushing %s to disk failed: %s", f->path, f->tmp, strerror(errno));
    return rc;
}

static void close_writeback(io_file *f)
{
    if (f->wb_fd >= 0)
        close(f->wb_fd);
    f->wb_fd = -1;
}

int io_file_check_output(MPI_Comm comm, const char *path, int force, const char *input)
{
    int rc = G5_OK;
    if (!path || !*path || strlen(path) >= IO_PATH_MAX)
        rc = g5_error(G5_ERR_ARG, "output path is empty or too long");
    else if (rank_of(comm) == 0) {
        struct stat so, si;
        char dir[IO_PATH_MAX];
        const char *slash = strrchr(path, '/');
        if (!slash)
            snprintf(dir, sizeof dir, ".");
        else if (slash == path)
            snprintf(dir, sizeof dir, "/");
        else
            snprintf(dir, sizeof dir, "%.*s", (int)(slash - path), path);
        if (stat(path, &so) == 0) {
            if (input && stat(input, &si) == 0 && si.st_dev == so.st_dev && si.st_ino == so.st_ino)
                rc = g5_error(G5_ERR_ARG, "%s: is the input file; give another output path", path);
            else if (!(force & IO_FORCE_REPLACE))
                rc = g5_error(G5_ERR_EXISTS, "%s: exists (use --force to replace it)", path);
        }
        if (rc == G5_OK && access(dir, W_OK | X_OK) != 0)
            rc = g5_error(G5_ERR_IO, "%s: cannot create: directory %s %s", path, dir,
                          errno == ENOENT ? "does not exist" : "is not writable");
    }
    return g5_agree(comm, rc);
}

int io_file_check_space(MPI_Comm comm, const char *path, const char *what, double bytes,
                        int force)
{
    int rc = G5_OK;
    if ((force & IO_FORCE_SIZE) || bytes <= 0)
        return G5_OK;
    if (rank_of(comm) == 0) {
        struct statvfs sv;
        char dir[IO_PATH_MAX], need[32], have[32];
        const char *slash = strrchr(path, '/');
        if (!slash)
            snprintf(dir, sizeof dir, ".");
        else
            snprintf(dir, sizeof dir, "%.*s", slash == path ? 1 : (int)(slash - path), path);
        if (statvfs(dir, &sv) == 0) {
            double avail = (double)sv.f_bavail * (double)sv.f_frsize;
            long bits = pathconf(dir, _PC_FILESIZEBITS);
            g5_format_bytes(need, sizeof need, bytes);
            g5_format_bytes(have, sizeof have, avail);
            if (bytes > avail)
                rc = g5_error(G5_ERR_IO, "%s: %s needs %s of disk in %s, %s free "
                              "(--force-size to write anyway)", path, what, need, dir, have);
            else if (bits > 0 && bits < 64 && bytes >= (double)((uint64_t)1 << (bits - 1)))
                rc = g5_error(G5_ERR_IO, "%s: %s needs a %s file; the file system of %s holds "
                              "at most %ld-bit file sizes (--force-size to write anyway)",
                              path, what, need, dir, bits);
        }
    }
    return g5_agree(comm, rc);
}

int io_file_create(MPI_Comm comm, const char *path, const char *format,
                   int version, int force, io_file **out)
{
    int rc = G5_OK;
    io_file *f = NULL;
    hid_t fapl = -1;
    long pid = 0;

    quiet_hdf5();
    *out = NULL;
    if (!path || !*path || strlen(path) >= IO_PATH_MAX) {
        rc = g5_error(G5_ERR_ARG, "output path is empty or too long");
        goto agree;
    }
    if (rank_of(comm) == 0) {
        pid = (long)getpid();
        if (!(force & IO_FORCE_REPLACE) && access(path, F_OK) == 0)
            rc = g5_error(G5_ERR_EXISTS, "%s: exists (use --force to replace it)", path);
        else
            g5_tmp_clear_stale(path);
    }
agree:
    rc = g5_agree(comm, rc);
    if (rc != G5_OK)
        return rc;
    MPI_Bcast(&pid, 1, MPI_LONG, 0, comm);

    f = g5_calloc(1, sizeof *f, "io_file");
    rc = f ? G5_OK : G5_ERR_NOMEM;
    rc = g5_agree(comm, rc);
    if (rc != G5_OK) {
        free(f);
        return rc;
    }
    f->comm = comm;
    f->writing = 1;
    f->wb_fd = -1;
    snprintf(f->path, sizeof f->path, "%s", path);
    g5_tmp_path(f->tmp, sizeof f->tmp, path, pid);
    snprintf(f->format, sizeof f->format, "%s", format);
    g5_tmp_add(f->tmp);
    fapl = make_fapl(comm);
    errno = 0;
    f->fid = H5Fcreate(f->tmp, H5F_ACC_TRUNC, H5P_DEFAULT, fapl);
    if (f->fid < 0)
        rc = g5_error(G5_ERR_IO, "%s: cannot create %s: %s", path, f->tmp, io_write_reason(errno));
    H5Pclose(fapl);
    if (f->fid >= 0) {
        struct stat st;
        if (stat(f->tmp, &st) == 0) {
            f->tmp_dev = st.st_dev;
            f->tmp_ino = st.st_ino;
        }
    }
    rc = agree_write(comm, rc);
    if (rc != G5_OK) {
        io_file_abort(&f);
        return rc;
    }
    rc = io_attr_write_string(f, "/", "format", format);
    if (rc == G5_OK)
        rc = io_attr_write_int64(f, "/", "version", version);
    rc = agree_write(comm, rc);
    if (rc != G5_OK) {
        io_file_abort(&f);
        return rc;
    }
    *out = f;
    return G5_OK;
}

/* Writer, not collective: point this process's descriptors of the temporary
 * file at an anonymous memory file, so that what HDF5 still writes while
 * closing a file being discarded cannot fail (a full disk, a failing
 * device): a close that fails on one rank only leaves the others waiting in
 * its collective flush, and HDF5 1.10 cannot recover from a failed close
 * (see close_written). What it writes then is metadata, a few KiB. Linux:
 * /proc/self/fd and memfd_create; elsewhere the close is tried as it is. */
static void detach_discarded(io_file *f)
{
#ifdef MFD_CLOEXEC
    DIR *d;
    struct dirent *e;
    int mem = -1;
    if (f->tmp_ino == 0 || !(d = opendir("/proc/self/fd")))
        return;
    while ((e = readdir(d))) {
        struct stat st;
        int fd = atoi(e->d_name);
        if (e->d_name[0] < '0' || e->d_name[0] > '9' || fd == dirfd(d) || fstat(fd, &st) != 0 ||
            st.st_dev != f->tmp_dev || st.st_ino != f->tmp_ino)
            continue;
        if (mem < 0 && (mem = memfd_create("g500-discarded", MFD_CLOEXEC)) < 0)
            break;
        if (fd != f->wb_fd)
            (void)dup2(mem, fd);
    }
    closedir(d);
    if (mem >= 0)
        close(mem);
#else
    (void)f;
#endif
}

/* Writer: close the HDF5 file. A failed H5Fclose leaves HDF5 1.10 with a
 * file id whose object is half destroyed: the library's own cleanup at
 * MPI_Finalize then crashes on it, so the process is marked stuck and main
 * ends it with MPI_Abort instead. */
static int close_written(io_file *f)
{
    int rc = G5_OK;
    errno = 0;
    if (f->fid >= 0 && H5Fclose(f->fid) < 0) {
        rc = g5_error(G5_ERR_IO, "%s: writing %s failed: %s", f->path, f->tmp, io_write_reason(errno));
        g5_set_stuck();
    }
    f->fid = -1;
    return rc;
}

int io_file_commit(io_file **fp)
{
    io_file *f = *fp;
    int rc = G5_OK;
    if (!f)
        return g5_error(G5_ERR_INTERNAL, "io_file_commit: no file");
    rc = close_written(f);
    if (rc == G5_OK)
        rc = sync_written(f);
    close_writeback(f);
    rc = agree_write(f->comm, rc);
    if (g5_stuck()) {
        /* Others wait inside HDF5: no further collective; main aborts. */
        unlink(f->tmp);
        free(f);
        *fp = NULL;
        return rc;
    }
    if (rank_of(f->comm) == 0) {
        if (rc == G5_OK)
            rc = g5_rename_into_place(f->tmp, f->path);
        else
            unlink(f->tmp);
    }
    rc = g5_agree(f->comm, rc);
    g5_tmp_forget(f->tmp);
    free(f);
    *fp = NULL;
    return rc;
}

void io_file_abort(io_file **fp)
{
    io_file *f = fp ? *fp : NULL;
    if (!f)
        return;
    if (f->writing && !g5_stuck())
        detach_discarded(f);
    if (g5_stuck())
        f->fid = -1;   /* H5Fclose is collective: the others cannot come */
    else if (f->writing)
        (void)close_written(f);
    else if (f->fid >= 0)
        H5Fclose(f->fid);
    close_writeback(f);
    if (f->writing)
        unlink(f->tmp);   /* every rank: one of them may be stuck */
    if (!g5_stuck())
        MPI_Barrier(f->comm);
    if (f->writing)
        g5_tmp_forget(f->tmp);
    free(f);
    *fp = NULL;
}

int io_file_open(MPI_Comm comm, const char *path, const char *format,
                 int version, io_file **out)
{
    int rc = G5_OK;
    io_file *f = NULL;
    hid_t fapl;
    int64_t v = 0;

    quiet_hdf5();
    *out = NULL;
    if (rank_of(comm) == 0) {
        htri_t is;
        if (!path || !*path)
            rc = g5_error(G5_ERR_ARG, "no input file given");
        else if (access(path, R_OK) != 0)
            rc = g5_error(G5_ERR_IO, "%s: cannot read: %s", path, strerror(errno));
        else if ((is = H5Fis_hdf5(path)) <= 0)
            rc = g5_error(G5_ERR_FORMAT, "%s: not an HDF5 file", path);
    }
    rc = g5_agree(comm, rc);
    if (rc != G5_OK)
        return rc;
    f = g5_calloc(1, sizeof *f, "io_file");
    rc = g5_agree(comm, f ? G5_OK : G5_ERR_NOMEM);
    if (rc != G5_OK) {
        free(f);
        return rc;
    }
    f->comm = comm;
    f->wb_fd = -1;
    snprintf(f->path, sizeof f->path, "%s", path);
    fapl = make_fapl(comm);
    f->fid = H5Fopen(path, H5F_ACC_RDONLY, fapl);
    H5Pclose(fapl);
    if (f->fid < 0)
        rc = g5_error(G5_ERR_FORMAT, "%s: cannot open as HDF5 (truncated or damaged?)", path);
    rc = g5_agree(comm, rc);
    if (rc != G5_OK)
        goto fail;
    if (!io_attr_exists(f, "/", "format")) {
        rc = g5_error(G5_ERR_FORMAT, "%s: not a g500 file (no format attribute)", path);
        goto fail;
    }
    rc = io_attr_read_string(f, "/", "format", f->format, sizeof f->format);
    if (rc == G5_OK && format && strcmp(f->format, format) != 0)
        rc = g5_error(G5_ERR_FORMAT, "%s: is a '%s' file, expected '%s'", path, f->format, format);
    if (rc == G5_OK)
        rc = io_attr_read_int64(f, "/", "version", &v);
    if (rc == G5_OK && (v < 1 || v > version))
        rc = g5_error(G5_ERR_FORMAT, "%s: %s version %lld is not supported (this g500 reads up to %d)",
                      path, f->format, (long long)v, version);
    if (rc != G5_OK)
        goto fail;
    *out = f;
    return G5_OK;
fail:
    if (f->fid >= 0)
        H5Fclose(f->fid);
    free(f);
    return rc;
}

typedef struct read_all_ctx {
    io_file *f;
    int rc;
} read_all_ctx;

static herr_t read_one(hid_t loc, const char *name, const H5O_info_t *info, void *data)
{
    read_all_ctx *x = data;
    hid_t d, sp, t, mt, msp;
    hsize_t dims[8] = {0}, start[8] = {0}, cnt[8];
    int nd;
    (void)loc;
    if (info->type != H5O_TYPE_DATASET || x->rc != G5_OK)
        return 0;
    if ((d = H5Dopen2(x->f->fid, name, H5P_DEFAULT)) < 0) {
        x->rc = g5_error(G5_ERR_FORMAT, "%s: cannot open dataset /%s", x->f->path, name);
        return 1;
    }
    sp = H5Dget_space(d);
    t = H5Dget_type(d);
    nd = H5Sget_simple_extent_ndims(sp);
    if (nd < 0 || nd > 8)
        nd = 0;
    H5Sget_simple_extent_dims(sp, dims, NULL);
    size_t row = H5Tget_size(t);
    for (int i = 1; i < nd; i++)
        row *= dims[i];
    hsize_t rows_per = row ? ((hsize_t)64 << 20) / row : 1;
    if (rows_per < 1)
        rows_per = 1;
    char *buf = malloc(nd == 0 ? H5Tget_size(t) : (size_t)(rows_per < dims[0] ? rows_per : dims[0]) * row + 1);
    mt = t;
    if (!buf)
        x->rc = g5_error(G5_ERR_NOMEM, "%s: no memory to read /%s", x->f->path, name);
    else if (nd == 0) {
        if (H5Dread(d, mt, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf) < 0)
            x->rc = g5_error(G5_ERR_FORMAT, "%s: reading /%s failed", x->f->path, name);
    }
    for (hsize_t r0 = 0; nd > 0 && x->rc == G5_OK && r0 < dims[0]; r0 += rows_per) {
        for (int i = 0; i < nd; i++) {
            start[i] = 0;
            cnt[i] = dims[i];
        }
        start[0] = r0;
        cnt[0] = dims[0] - r0 < rows_per ? dims[0] - r0 : rows_per;
        msp = H5Screate_simple(nd, cnt, NULL);
        H5Sselect_hyperslab(sp, H5S_SELECT_SET, start, NULL, cnt, NULL);
        if (H5Dread(d, mt, msp, sp, H5P_DEFAULT, buf) < 0)
            x->rc = g5_error(G5_ERR_FORMAT, "%s: /%s rows %llu..%llu fail their checksum or "
                             "cannot be read (damaged)", x->f->path, name, (unsigned long long)r0,
                             (unsigned long long)(r0 + cnt[0]));
        H5Sclose(msp);
    }
    free(buf);
    H5Tclose(t);
    H5Sclose(sp);
    H5Dclose(d);
    return x->rc == G5_OK ? 0 : 1;
}

int io_file_read_all(io_file *f)
{
    read_all_ctx x = {f, G5_OK};
    if (H5Ovisit(f->fid, H5_INDEX_NAME, H5_ITER_NATIVE, read_one, &x) < 0 && x.rc == G5_OK)
        x.rc = g5_error(G5_ERR_FORMAT, "%s: cannot list its datasets", f->path);
    return x.rc;
}

void io_file_close(io_file **fp)
{
    io_file *f = fp ? *fp : NULL;
    if (!f)
        return;
    if (f->fid >= 0)
        H5Fclose(f->fid);
    free(f);
    *fp = NULL;
}

void io_file_set_checksum_verify(io_file *f, int verify) { f->skip_checksums = !verify; }

hid_t io_file_hid(const io_file *f) { return f->fid; }
const char *io_file_path(const io_file *f) { return f->path; }
MPI_Comm io_file_comm(const io_file *f) { return f->comm; }
const char *io_file_format(const io_file *f) { return f->format; }

/* ---- datasets ------------------------------------------------------------ */

int io_dataset_create(io_file *f, const char *name, hid_t type, int ndims,
                      const hsize_t *dims, hsize_t chunk_rows)
{
    return io_dataset_create_ex(f, name, type, ndims, dims, chunk_rows, 1);
}

int io_dataset_create_ex(io_file *f, const char *name, hid_t type, int ndims,
                         const hsize_t *dims, hsize_t chunk_rows, int checksums)
{
    int rc = G5_OK;
    hid_t sp, dcpl, lcpl, d;
    if (ndims < 1 || ndims > 2)
        return g5_error(G5_ERR_INTERNAL, "io_dataset_create: %d dimensions", ndims);
    sp = H5Screate_simple(ndims, dims, NULL);
    dcpl = H5Pcreate(H5P_DATASET_CREATE);
    lcpl = H5Pcreate(H5P_LINK_CREATE);
    H5Pset_create_intermediate_group(lcpl, 1);
    /* Every byte is written by some rank: skip the fill pass. */
    H5Pset_fill_time(dcpl, H5D_FILL_TIME_NEVER);
    if (chunk_rows > 0 && dims[0] > 0) {
        hsize_t cd[2] = {chunk_rows < dims[0] ? chunk_rows : dims[0], ndims > 1 ? dims[1] : 1};
        H5Pset_chunk(dcpl, ndims, cd);
        if (checksums)
            H5Pset_fletcher32(dcpl);
    }
    errno = 0;
    d = H5Dcreate2(f->fid, name, type, sp, lcpl, dcpl, H5P_DEFAULT);
    if (d < 0)
        rc = g5_error(G5_ERR_IO, "%s: cannot create dataset %s: %s", f->path, name,
                      io_write_reason(errno));
    else
        H5Dclose(d);
    H5Pclose(lcpl);
    H5Pclose(dcpl);
    H5Sclose(sp);
    return rc;
}

/* Move rows [first, first+count) between memory and dataset `name` in
 * pieces; every rank takes part in the same number of collective calls. */
static int transfer_rows(io_file *f, const char *name, hid_t memtype, int64_t first,
                         int64_t count, void *buf, int writing)
{
    int rc = G5_OK, ndims, agreed = 0;
    hid_t d, fsp, dxpl;
    hsize_t dims[2] = {0, 1};
    int64_t rowbytes, rows_per_piece, npieces, maxpieces;
    char *p = buf;

    d = H5Dopen2(f->fid, name, H5P_DEFAULT);
    if (d < 0) {
        rc = g5_error(G5_ERR_FORMAT, "%s: missing dataset %s", f->path, name);
        /* Take part in the agreement only: nobody transfers. */
        return g5_agree(f->comm, rc);
    }
    fsp = H5Dget_space(d);
    ndims = H5Sget_simple_extent_ndims(fsp);
    H5Sget_simple_extent_dims(fsp, dims, NULL);
    if (ndims < 1 || ndims > 2)
        dims[1] = 1;
    rowbytes = (int64_t)H5Tget_size(memtype) * (int64_t)(ndims == 2 ? dims[1] : 1);
    if (first < 0 || count < 0 || (hsize_t)(first + count) > dims[0])
        rc = g5_error(G5_ERR_FORMAT, "%s: rows %lld..%lld of %s are out of range (%llu rows)",
                      f->path, (long long)first, (long long)(first + count), name,
                      (unsigned long long)dims[0]);
    rows_per_piece = IO_PIECE_BYTES / (rowbytes ? rowbytes : 1);
    if (rows_per_piece < 1)
        rows_per_piece = 1;
    npieces = rc == G5_OK ? (count + rows_per_piece - 1) / rows_per_piece : 0;
    MPI_Allreduce(&npieces, &maxpieces, 1, MPI_INT64_T, MPI_MAX, f->comm);

    dxpl = H5Pcreate(H5P_DATASET_XFER);
    H5Pset_dxpl_mpio(dxpl, H5FD_MPIO_COLLECTIVE);
    if (!writing && f->skip_checksums)
        H5Pset_edc_check(dxpl, H5Z_DISABLE_EDC);
    for (int64_t k = 0; k < maxpieces; k++) {
        int64_t r0 = first + k * rows_per_piece;
        int64_t n = k < npieces ? count - k * rows_per_piece : 0;
        hsize_t start[2] = {(hsize_t)r0, 0}, cnt[2] = {0, dims[1]};
        hid_t msp;
        herr_t st;
        if (n > rows_per_piece)
            n = rows_per_piece;
        cnt[0] = (hsize_t)n;
        if (n > 0) {
            msp = H5Screate_simple(ndims, cnt, NULL);
            H5Sselect_hyperslab(fsp, H5S_SELECT_SET, start, NULL, cnt, NULL);
        } else {
            hsize_t one[2] = {1, dims[1]};
            msp = H5Screate_simple(ndims, one, NULL);
            H5Sselect_none(msp);
            H5Sselect_none(fsp);
        }
        errno = 0;
        if (writing)
            st = H5Dwrite(d, memtype, msp, fsp, dxpl, p);
        else
            st = H5Dread(d, memtype, msp, fsp, dxpl, p);
        if (st < 0 && rc == G5_OK) {
            if (writing)
                rc = g5_error(G5_ERR_IO, "%s: writing rows %lld..%lld of %s failed: %s",
                              f->path, (long long)r0, (long long)(r0 + n), name,
                              io_write_reason(errno));
            else
                rc = g5_error(G5_ERR_FORMAT,
                              "%s: reading rows %lld..%lld of %s failed (damaged chunk: checksum mismatch, or truncated file)",
                              f->path, (long long)r0, (long long)(r0 + n), name);
        }
        H5Sclose(msp);
        if (n > 0)
            p += n * rowbytes;
        /* A write error stops every rank after this piece, before the next
         * collective write, which a failed rank may not be able to join. */
        if (writing) {
            rc = agree_write(f->comm, rc);
            agreed = 1;
            if (rc != G5_OK)
                break;
        }
    }
    H5Pclose(dxpl);
    H5Sclose(fsp);
    if (!g5_stuck())
        H5Dclose(d);
    if (writing && rc == G5_OK)
        start_writeback(f);
    if (writing)
        return agreed ? rc : agree_write(f->comm, rc);
    return g5_agree(f->comm, rc);
}

int io_write_rows(io_file *f, const char *name, hid_t memtype, int64_t first,
                  int64_t count, const void *buf)
{
    return transfer_rows(f, name, memtype, first, count, (void *)buf, 1);
}

int io_read_rows(io_file *f, const char *name, hid_t memtype, int64_t first,
                 int64_t count, void *buf)
{
    return transfer_rows(f, name, memtype, first, count, buf, 0);
}

int io_dataset_check(io_file *f, const char *name, H5T_class_t cls, size_t size,
                     int ndims, int64_t *dims)
{
    int rc = G5_OK, nd;
    hid_t d, t, sp;
    hsize_t got[8];
    if (H5Lexists(f->fid, name, H5P_DEFAULT) <= 0 || (d = H5Dopen2(f->fid, name, H5P_DEFAULT)) < 0)
        return g5_error(G5_ERR_FORMAT, "%s: missing dataset %s", f->path, name);
    t = H5Dget_type(d);
    sp = H5Dget_space(d);
    nd = H5Sget_simple_extent_ndims(sp);
    if (H5Tget_class(t) != cls || H5Tget_size(t) != size) {
        rc = g5_error(G5_ERR_FORMAT, "%s: dataset %s has type %s of %zu bytes, expected %s of %zu bytes",
                      f->path, name, H5Tget_class(t) == H5T_INTEGER ? "integer" :
                      H5Tget_class(t) == H5T_FLOAT ? "float" : "another class",
                      H5Tget_size(t), cls == H5T_INTEGER ? "integer" : "float", size);
    } else if (nd != ndims || nd > 8) {
        rc = g5_error(G5_ERR_FORMAT, "%s: dataset %s has %d dimensions, expected %d",
                      f->path, name, nd, ndims);
    } else {
        H5Sget_simple_extent_dims(sp, got, NULL);
        for (int i = 0; i < nd && rc == G5_OK; i++) {
            if (dims[i] >= 0 && (hsize_t)dims[i] != got[i])
                rc = g5_error(G5_ERR_FORMAT, "%s: dataset %s has extent %llu in dimension %d, expected %lld",
                              f->path, name, (unsigned long long)got[i], i, (long long)dims[i]);
            dims[i] = (int64_t)got[i];
        }
    }
    H5Sclose(sp);
    H5Tclose(t);
    H5Dclose(d);
    return rc;
}

void io_hdf5_version(char *buf, size_t len)
{
    unsigned maj = 0, min = 0, rel = 0;
    H5get_libversion(&maj, &min, &rel);
    snprintf(buf, len, "%u.%u.%u", maj, min, rel);
}

int io_stage_write(io_file *f, const char *prefix, double elapsed_seconds, int ranks)
{
    char a[96], b[96];
    double s = elapsed_seconds;
    int64_t r = ranks;
    MPI_Bcast(&s, 1, MPI_DOUBLE, 0, io_file_comm(f));
    MPI_Bcast(&r, 1, MPI_INT64_T, 0, io_file_comm(f));
    snprintf(a, sizeof a, "%selapsed_seconds", prefix);
    snprintf(b, sizeof b, "%sranks", prefix);
    int rc = io_attr_write_double(f, "/", a, s);
    if (rc == G5_OK)
        rc = io_attr_write_int64(f, "/", b, r);
    return rc;
}

int io_stage_read(io_file *f, const char *prefix, double *elapsed_seconds, int *ranks)
{
    char a[96], b[96];
    int64_t r = -1;
    int rc = G5_OK;
    snprintf(a, sizeof a, "%selapsed_seconds", prefix);
    snprintf(b, sizeof b, "%sranks", prefix);
    *elapsed_seconds = -1;
    if (io_attr_exists(f, "/", a))
        rc = io_attr_read_double(f, "/", a, elapsed_seconds);
    if (rc == G5_OK && io_attr_exists(f, "/", b))
        rc = io_attr_read_int64(f, "/", b, &r);
    *ranks = (int)r;
    return rc;
}
