/* SPDX-License-Identifier: MIT */
/*
 * meminfo_fake.c - an LD_PRELOAD library that shows g500 another machine's
 * memory, for tests/scripts/fault-sizes.sh: the memory check before each
 * stage (common/limits.c) reads /proc/meminfo, /proc/self/cgroup and the
 * cgroup files under /sys/fs/cgroup with fopen. With G5_FAKE_MEM=DIR set,
 * those opens read DIR/meminfo, DIR/cgroup and DIR/sys/fs/cgroup/...
 * instead (a file missing there is missing); without it nothing changes.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef FILE *(*fopen_fn)(const char *, const char *);

static const char *redirect(const char *path, char *buf, size_t len)
{
    const char *dir = getenv("G5_FAKE_MEM");
    if (!dir || !path)
        return path;
    if (strcmp(path, "/proc/meminfo") == 0)
        snprintf(buf, len, "%s/meminfo", dir);
    else if (strcmp(path, "/proc/self/cgroup") == 0)
        snprintf(buf, len, "%s/cgroup", dir);
    else if (strncmp(path, "/sys/fs/cgroup", 14) == 0)
        snprintf(buf, len, "%s%s", dir, path);
    else
        return path;
    return buf;
}

FILE *fopen(const char *path, const char *mode)
{
    static fopen_fn real;
    char buf[4096];
    if (!real)
        real = (fopen_fn)dlsym(RTLD_NEXT, "fopen");
    return real(redirect(path, buf, sizeof buf), mode);
}

FILE *fopen64(const char *path, const char *mode)
{
    static fopen_fn real;
    char buf[4096];
    if (!real)
        real = (fopen_fn)dlsym(RTLD_NEXT, "fopen64");
    return real(redirect(path, buf, sizeof buf), mode);
}
