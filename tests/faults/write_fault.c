/* SPDX-License-Identifier: MIT */
/*
 * write_fault.c - an LD_PRELOAD library that makes writes fail on one rank,
 * as a full disk or a failing device does: for tests/scripts/write-faults.sh.
 *
 * The writes that matter happen inside the MPI library's MPI-IO component
 * (a shared object calling libc's pwrite/pwritev), out of reach of the
 * -Wl,--wrap link trick the allocation-fault tests use on the library's own
 * calls; a preloaded definition of the libc functions reaches them. Only
 * writes to a g500 temporary file ("...NAME.tmp.<digits>") fail, with
 * errno ENOSPC, on the rank G5_FAULT_RANK (read from OMPI_COMM_WORLD_RANK,
 * PMI_RANK or SLURM_PROCID), from its G5_FAULT_AFTER-th such write on
 * (default 0: the first). Without G5_FAULT_RANK nothing fails.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/uio.h>
#include <unistd.h>

static int armed = -1;
static long after, seen;

static int my_rank(void)
{
    const char *v[] = {"OMPI_COMM_WORLD_RANK", "PMI_RANK", "SLURM_PROCID"};
    for (int i = 0; i < 3; i++)
        if (getenv(v[i]))
            return atoi(getenv(v[i]));
    return 0;
}

static int should_fail(int fd)
{
    char link[64], target[4096], *q;
    ssize_t n;
    if (armed < 0) {
        const char *r = getenv("G5_FAULT_RANK"), *a = getenv("G5_FAULT_AFTER");
        armed = r && atoi(r) == my_rank();
        after = a ? atol(a) : 0;
    }
    if (!armed)
        return 0;
    snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
    if ((n = readlink(link, target, sizeof target - 1)) < 0)
        return 0;
    target[n] = '\0';
    if (!(q = strstr(target, ".tmp.")) || !q[5])
        return 0;
    for (q += 5; *q; q++)
        if (*q < '0' || *q > '9')
            return 0;
    return seen++ >= after;
}

typedef ssize_t (*write_fn)(int, const void *, size_t);
typedef ssize_t (*pwrite_fn)(int, const void *, size_t, off_t);
typedef ssize_t (*writev_fn)(int, const struct iovec *, int);
typedef ssize_t (*pwritev_fn)(int, const struct iovec *, int, off_t);
#define REAL(name, type) static type real_##name; if (!real_##name) real_##name = (type)dlsym(RTLD_NEXT, #name)

ssize_t write(int fd, const void *b, size_t n)
{
    REAL(write, write_fn);
    if (should_fail(fd)) { errno = ENOSPC; return -1; }
    return real_write(fd, b, n);
}

ssize_t pwrite(int fd, const void *b, size_t n, off_t o)
{
    REAL(pwrite, pwrite_fn);
    if (should_fail(fd)) { errno = ENOSPC; return -1; }
    return real_pwrite(fd, b, n, o);
}

ssize_t pwrite64(int fd, const void *b, size_t n, off_t o) { return pwrite(fd, b, n, o); }

ssize_t writev(int fd, const struct iovec *v, int c)
{
    REAL(writev, writev_fn);
    if (should_fail(fd)) { errno = ENOSPC; return -1; }
    return real_writev(fd, v, c);
}

ssize_t pwritev(int fd, const struct iovec *v, int c, off_t o)
{
    REAL(pwritev, pwritev_fn);
    if (should_fail(fd)) { errno = ENOSPC; return -1; }
    return real_pwritev(fd, v, c, o);
}

ssize_t pwritev64(int fd, const struct iovec *v, int c, off_t o) { return pwritev(fd, v, c, o); }
