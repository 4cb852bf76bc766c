/* SPDX-License-Identifier: MIT */
/*
 * atomic.c - files that appear under their name only when complete
 * (atomic.h): written to "<path>.tmp.<pid>", synced, renamed into place.
 */
#include "atomic.h"

#include <errno.h>
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

int g5_atomic_open(g5_atomic *a, const char *path)
{
    a->f = NULL;
    a->tmp[0] = '\0';
    if (snprintf(a->path, sizeof a->path, "%s", path) >= (int)sizeof a->path)
        return g5_error(G5_ERR_IO, "%s: path too long", path);
    int rc = g5_tmp_path(a->tmp, sizeof a->tmp, path, (long)getpid());
    if (rc != G5_OK)
        return rc;
    g5_tmp_clear_stale(path);
    a->f = fopen(a->tmp, "w");
    if (!a->f)
        return g5_error(G5_ERR_IO, "%s: cannot create %s: %s", path, a->tmp, strerror(errno));
    g5_tmp_add(a->tmp);   /* removed on SIGINT/SIGTERM */
    return G5_OK;
}

int g5_atomic_commit(g5_atomic *a)
{
    if (!a->f)
        return g5_error(G5_ERR_INTERNAL, "%s: no file open to commit", a->path);
    errno = 0;
    int bad = fflush(a->f) != 0 || ferror(a->f);
    int e = errno;
    if (fsync(fileno(a->f)) != 0 && !bad) {
        bad = 1;
        e = errno;
    }
    if (fclose(a->f) != 0 && !bad) {
        bad = 1;
        e = errno;
    }
    a->f = NULL;
    g5_tmp_forget(a->tmp);
    if (bad) {
        unlink(a->tmp);
        return g5_error(G5_ERR_IO, "%s: write failed: %s", a->path,
                        e ? strerror(e) : "error writing the file");
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
