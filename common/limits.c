/* SPDX-License-Identifier: MIT */
/*
 * limits.c - what the machine lets a run have, checked before the work:
 * OpenMP threads (g5_threads_check) and memory per rank (g5_memory_check).
 *
 * Memory a node offers: MemAvailable of /proc/meminfo, or the memory limit
 * of the process's cgroup when lower (cgroup v2 memory.max, v1
 * memory.limit_in_bytes, the lowest along the path to the root: Slurm
 * confines a job and its steps this way), shared evenly by the ranks of
 * the job on that node (MPI_COMM_TYPE_SHARED). A stage's estimate of its
 * peak per rank (cli/cli_memory.c, the formulas of each stage's docs page)
 * is compared with that share.
 */
#include "common.h"

#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

static long read_long(const char *path, const char *key)
{
    FILE *f = fopen(path, "r");
    char line[256];
    long v = -1;
    if (!f)
        return -1;
    while (fgets(line, sizeof line, f))
        if (!key ? sscanf(line, "%ld", &v) == 1 : strncmp(line, key, strlen(key)) == 0 &&
                                                   sscanf(line + strlen(key), " %ld", &v) == 1)
            break;
    fclose(f);
    return v;
}
int g5_threads_check(int threads, const char *what)
{
    struct rlimit rl;
    long max_kernel = read_long("/proc/sys/kernel/threads-max", NULL);
    long mem_kib = read_long("/proc/meminfo", "MemTotal:");
    long swap_kib = read_long("/proc/meminfo", "SwapTotal:");
    char stack[32], mem[32];
    if (threads <= 0)
        return G5_OK;
    if (max_kernel > 0 && threads > max_kernel)
        return g5_error(G5_ERR_ARG, "%s %d: the kernel creates at most %ld threads (threads-max)", what,
                        threads, max_kernel);
    if (getrlimit(RLIMIT_NPROC, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY && (rlim_t)threads > rl.rlim_cur)
        return g5_error(G5_ERR_ARG, "%s %d: this user may run at most %llu threads (ulimit -u)", what,
                        threads, (unsigned long long)rl.rlim_cur);
    if (getrlimit(RLIMIT_STACK, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY && mem_kib > 0) {
        double need = (double)threads * (double)rl.rlim_cur;
        double have = 1024.0 * (double)(mem_kib + (swap_kib > 0 ? swap_kib : 0));
        if (need > have)
            return g5_error(G5_ERR_ARG, "%s %d: %d thread stacks of %s need %s, more than the "
                            "machine's memory (%s)", what, threads, threads,
                            g5_format_bytes(stack, sizeof stack, (double)rl.rlim_cur),
                            g5_format_bytes(mem, sizeof mem, need),
                            g5_format_bytes((char[32]){0}, 32, have));
    }
    return G5_OK;
}


/* The lowest memory limit (bytes) of this process's cgroup and its
 * parents, or -1 when none is set. */
static double cgroup_limit(void)
{
    FILE *f = fopen("/proc/self/cgroup", "r");
    char line[4096], dir[4400];
    double best = -1;
    if (!f)
        return -1;
    while (fgets(line, sizeof line, f)) {
        /* v2: "0::/path"; v1: "N:memory:/path" (maybe "N:cpu,memory:/path") */
        line[strcspn(line, "\n")] = '\0';
        char *c1 = strchr(line, ':'), *c2 = c1 ? strchr(c1 + 1, ':') : NULL;
        const char *base, *file;
        if (!c2)
            continue;
        *c2 = '\0';
        if (c2 == c1 + 1) {
            base = "/sys/fs/cgroup";
            file = "memory.max";
        } else if (strstr(c1 + 1, "memory")) {
            base = "/sys/fs/cgroup/memory";
            file = "memory.limit_in_bytes";
        } else {
            continue;
        }
        char *path = c2 + 1;
        for (;;) {
            char v[64];
            FILE *m;
            snprintf(dir, sizeof dir, "%s%s/%s", base, strcmp(path, "/") == 0 ? "" : path, file);
            if ((m = fopen(dir, "r"))) {
                /* "max" (v2) or a huge number (v1): no limit */
                if (fgets(v, sizeof v, m) && strncmp(v, "max", 3) != 0) {
                    double b = strtod(v, NULL);
                    if (b > 0 && b < 1e18 && (best < 0 || b < best))
                        best = b;
                }
                fclose(m);
            }
            char *slash = strrchr(path, '/');
            if (!slash || (slash == path && !path[1]))
                break;
            if (slash == path)
                path[1] = '\0';
            else
                *slash = '\0';
        }
    }
    fclose(f);
    return best;
}

double g5_memory_offered(void)
{
    long avail_kib = read_long("/proc/meminfo", "MemAvailable:");
    double have = avail_kib > 0 ? 1024.0 * (double)avail_kib : -1, cg = cgroup_limit();
    if (cg > 0 && (have < 0 || cg < have))
        have = cg;
    return have;
}

int g5_node_ranks(MPI_Comm comm)
{
    MPI_Comm node;
    int local = 1;
    if (MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node) == MPI_SUCCESS) {
        MPI_Comm_size(node, &local);
        MPI_Comm_free(&node);
    }
    return local;
}

int g5_memory_check(MPI_Comm comm, const char *what, double bytes, int force)
{
    int local, rc = G5_OK;
    if (force)
        return G5_OK;
    local = g5_node_ranks(comm);
    double have = g5_memory_offered(), need = bytes + G5_MEM_PROCESS;
    if (have > 0 && need > have / local) {
        char n[32], h[32];
        rc = g5_error(G5_ERR_NOMEM, "%s needs %s of memory per rank, this node offers %s for %d rank%s "
                      "(--force-size to try anyway)", what, g5_format_bytes(n, sizeof n, need),
                      g5_format_bytes(h, sizeof h, have), local, local == 1 ? "" : "s");
    }
    return g5_agree(comm, rc);
}
