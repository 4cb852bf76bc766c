/* SPDX-License-Identifier: MIT */
/*
 * atomic.h - files that appear under their name only when complete. A file
 * is written as "<path>.tmp.<pid>" and renamed into place when it is whole
 * and on disk; a failure removes the temporary, and a killed writer leaves
 * at most the temporary, which no reader takes for the real file (the
 * pipeline's cache check removes stale ones).
 *
 *   g5_atomic a;
 *   if ((rc = g5_atomic_open(&a, path)) != G5_OK) return rc;
 *   fprintf(a.f, ...);                     write through a.f
 *   return g5_atomic_commit(&a);           or g5_atomic_abort(&a) to give up
 *
 * g5_atomic_open creates the temporary; g5_atomic_commit flushes, fsyncs and
 * closes it and renames it into place, checking every step (a write error
 * left in a.f's error flag fails the commit), and removes it on failure;
 * g5_atomic_abort closes and removes it. Writers that create the temporary
 * themselves (an HDF5 file, the report folder) name it with g5_tmp_path and
 * publish a file with g5_rename_into_place. Not collective: one process
 * writes; the status is that process's (agree on it when the others care).
 */
#ifndef G500_ATOMIC_H
#define G500_ATOMIC_H

#include <stddef.h>
#include <stdio.h>

#define G5_PATH_MAX 4096

typedef struct g5_atomic {
    FILE *f;                         /* open on the temporary while writing */
    int fd;                          /* the temporary's descriptor under f */
    int err;                         /* errno of the first failed write, 0 none */
    char path[G5_PATH_MAX];          /* the final name */
    char tmp[G5_PATH_MAX + 32];      /* "<path>.tmp.<pid>" */
} g5_atomic;

int g5_atomic_open(g5_atomic *a, const char *path);
int g5_atomic_commit(g5_atomic *a);
void g5_atomic_abort(g5_atomic *a);

/* "<path>.tmp.<pid>" into tmp[size]; G5_ERR_IO (path too long) if it does
 * not fit. pid: the writing process (rank 0's, for a collective file). */
int g5_tmp_path(char *tmp, size_t size, const char *path, long pid);
/* rename(tmp, path); on failure tmp is removed and G5_ERR_IO returned with a
 * message naming path. */
int g5_rename_into_place(const char *tmp, const char *path);

#endif
