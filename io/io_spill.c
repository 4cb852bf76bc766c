/* SPDX-License-Identifier: MIT */
/*
 * io_spill.c - a rank's raw scratch file (io.h, "scratch files"): data that
 * waits on a local disk instead of in memory.
 *
 * The file is made with mkstemp in the given directory and unlinked at
 * once, so it holds disk only while it is open and disappears when the
 * process ends, however it ends (a crash, SIGKILL, a batch system's time
 * limit): nothing is left to clean up. Writes append with write(2) and
 * reads use pread(2); both loop over partial transfers and EINTR, and a
 * failure names the file and the OS error ("No space left on device").
 */
#include "io.h"

#include "atomic.h"
#include "common.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/statfs.h>
#include <sys/statvfs.h>
#include <unistd.h>

struct io_spill {
    int fd;
    int in_memory;         /* the directory is on tmpfs or ramfs */
    int64_t size;          /* bytes appended */
    char path[G5_PATH_MAX];
};

int io_spill_open(MPI_Comm comm, const char *dir, double bytes, const char *what, io_spill **out)
{
    *out = NULL;
    int local = g5_node_ranks(comm);
    int rc = G5_OK;
    io_spill *s = calloc(1, sizeof *s);
    if (!s)
        rc = g5_error(G5_ERR_NOMEM, "%s: cannot allocate a scratch file", dir);
    struct statvfs sv;
    if (rc == G5_OK && statvfs(dir, &sv) != 0)
        rc = g5_error(G5_ERR_IO, "%s: cannot use it for scratch files: %s", dir, strerror(errno));
    if (rc == G5_OK && bytes > 0) {
        /* the ranks of a node share its disk */
        double avail = (double)sv.f_bavail * (double)sv.f_frsize, need = bytes * local;
        char n[32], h[32];
        if (need > avail)
            rc = g5_error(G5_ERR_IO, "%s: %s need about %s of disk on this node, %s free",
                          dir, what, g5_format_bytes(n, sizeof n, need),
                          g5_format_bytes(h, sizeof h, avail));
    }
    if (rc == G5_OK) {
        struct statfs fs;
        /* TMPFS_MAGIC, RAMFS_MAGIC (linux/magic.h) */
        s->in_memory = statfs(dir, &fs) == 0
                       && ((unsigned long)fs.f_type == 0x01021994UL
                           || (unsigned long)fs.f_type == 0x858458f6UL);
        s->fd = -1;
        int len = snprintf(s->path, sizeof s->path, "%s/g500-spill-XXXXXX", dir);
        if (len < 0 || (size_t)len >= sizeof s->path)
            rc = g5_error(G5_ERR_IO, "%s: directory name too long for a scratch file", dir);
        else if ((s->fd = mkstemp(s->path)) < 0)
            rc = g5_error(G5_ERR_IO, "%s: cannot create a scratch file: %s", dir, strerror(errno));
        else if (unlink(s->path) != 0)
            rc = g5_error(G5_ERR_IO, "%s: cannot unlink the scratch file just made: %s", s->path,
                          strerror(errno));
    }
    rc = g5_agree(comm, rc);
    if (rc != G5_OK) {
        if (s && s->fd >= 0) {
            unlink(s->path);
            close(s->fd);
        }
        free(s);
        return rc;
    }
    *out = s;
    return G5_OK;
}

int io_spill_write(io_spill *s, const void *p, size_t n, int64_t *at)
{
    if (at)
        *at = s->size;
    const char *c = p;
    size_t done = 0;
    while (done < n) {
        size_t part = n - done > (size_t)1 << 30 ? (size_t)1 << 30 : n - done;
        ssize_t w = write(s->fd, c + done, part);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return g5_error(G5_ERR_IO, "scratch file %s (unlinked): cannot write %zu bytes at "
                            "offset %lld: %s", s->path, n - done, (long long)(s->size + (int64_t)done),
                            w < 0 ? strerror(errno) : "nothing written");
        done += (size_t)w;
    }
    s->size += (int64_t)n;
    return G5_OK;
}

int io_spill_read(io_spill *s, int64_t at, void *p, size_t n)
{
    char *c = p;
    size_t done = 0;
    if (at < 0 || at + (int64_t)n > s->size)
        return g5_error(G5_ERR_ARG, "scratch file %s: %zu bytes at offset %lld are outside its "
                        "%lld bytes", s->path, n, (long long)at, (long long)s->size);
    while (done < n) {
        size_t part = n - done > (size_t)1 << 30 ? (size_t)1 << 30 : n - done;
        ssize_t r = pread(s->fd, c + done, part, (off_t)(at + (int64_t)done));
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            return g5_error(G5_ERR_IO, "scratch file %s (unlinked): cannot read %zu bytes at "
                            "offset %lld: %s", s->path, n - done, (long long)(at + (int64_t)done),
                            r < 0 ? strerror(errno) : "unexpected end of file");
        done += (size_t)r;
    }
    return G5_OK;
}

int64_t io_spill_size(const io_spill *s) { return s ? s->size : 0; }

int io_spill_in_memory(const io_spill *s) { return s && s->in_memory; }

const char *io_spill_path(const io_spill *s) { return s ? s->path : ""; }

void io_spill_close(io_spill **s)
{
    if (!s || !*s)
        return;
    close((*s)->fd);
    free(*s);
    *s = NULL;
}
