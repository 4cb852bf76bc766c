/* SPDX-License-Identifier: MIT */
/*
 * atomic.c - files that appear under their name only when complete
 * (atomic.h): written to "<path>.tmp.<pid>", synced, renamed into place.
 */
#include "atomic.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include "common.h"

int g5_tmp_path(char *tmp, size_t size, const char *path, long pid)
{
    int n = snprintf(tmp, size, "%s.tmp.%ld", path, pid);
    if (n < 0 || (size_t)n >= size)
        return g5_error(G5_ERR_IO, "%s: path too long", path);
    return G5_OK;
}

int g5_rename_into_place(const char *tmp, const char *path)
{
    if (rename(tmp, path) == 0)
        return G5_OK;
    int e = errno;
    unlink(tmp);
    return g5_error(G5_ERR_IO, "%s: cannot rename %s into place: %s", path, tmp, strerror(e));
}

/* a.f writes through these, so that the first failed write's errno (a
 * full disk) is kept: stdio reports a failed write of its buffer only by
 * its error flag, and errno is gone by the time the commit looks. */
static ssize_t atomic_write(void *cookie, const char *buf, size_t n)
{
    g5_atomic *a = cookie;
    size_t done = 0;
    while (done < n) {
        ssize_t w = write(a->fd, buf + done, n - done);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0) {
            if (!a->err)
                a->err = w < 0 ? errno : EIO;
            return (ssize_t)done;
        }
        done += (size_t)w;
    }
    return (ssize_t)done;
}

static int atomic_close(void *cookie)
{
    g5_atomic *a = cookie;
    int rc = close(a->fd);
    if (rc != 0 && !a->err)
        a->err = errno;
    a->fd = -1;
    return rc;
}

int g5_atomic_open(g5_atomic *a, const char *path)
{
    a->f = NULL;
    a->fd = -1;
    a->err = 0;
    a->tmp[0] = '\0';
    if (snprintf(a->path, sizeof a->path, "%s", path) >= (int)sizeof a->path)
        return g5_error(G5_ERR_IO, "%s: path too long", path);
    int rc = g5_tmp_path(a->tmp, sizeof a->tmp, path, (long)getpid());
    if (rc != G5_OK)
        return rc;
    g5_tmp_clear_stale(path);
    a->fd = open(a->tmp, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (a->fd < 0)
        return g5_error(G5_ERR_IO, "%s: cannot create %s: %s", path, a->tmp, strerror(errno));
    a->f = fopencookie(a, "w", (cookie_io_functions_t){.write = atomic_write, .close = atomic_close});
    if (!a->f) {
        int e = errno;
        close(a->fd);
        unlink(a->tmp);
        return g5_error(G5_ERR_IO, "%s: cannot create %s: %s", path, a->tmp, strerror(e));
    }
    g5_tmp_add(a->tmp);   /* removed on SIGINT/SIGTERM */
    return G5_OK;
}

int g5_atomic_commit(g5_atomic *a)
{
    if (!a->f)
        return g5_error(G5_ERR_INTERNAL, "%s: no file open to commit", a->path);
    int bad = fflush(a->f) != 0 || ferror(a->f) || a->err;
    if (!bad && fsync(a->fd) != 0) {
        bad = 1;
        a->err = errno;
    }
    if (fclose(a->f) != 0)
        bad = 1;
    a->f = NULL;
    g5_tmp_forget(a->tmp);
    if (bad) {
        unlink(a->tmp);
        return g5_error(G5_ERR_IO, "%s: write failed: %s", a->path,
                        a->err ? strerror(a->err) : "error writing the file");
    }
    return g5_rename_into_place(a->tmp, a->path);
}

void g5_atomic_abort(g5_atomic *a)
{
    if (a->f) {
        fclose(a->f);
        a->f = NULL;
    }
    if (a->tmp[0]) {
        unlink(a->tmp);
        g5_tmp_forget(a->tmp);
    }
    a->tmp[0] = '\0';
}
