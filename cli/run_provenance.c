/* SPDX-License-Identifier: MIT */
/*
 * run_provenance.c - what made a run's result, so that a result file can be
 * recognised and reproduced later: the binary (version from git describe at
 * build time, commit, compiler and flags), the MPI library
 * (MPI_Get_library_version, first line) and HDF5 versions, the distinct
 * host names (MPI_Get_processor_name), ranks and threads per rank, the
 * binding (each rank's CPU affinity: "none" when every rank may run on
 * every online CPU of its node), the UTC date and the command line.
 */
#include "run.h"

#include "common.h"

#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <omp.h>

/* "0-3,6" for an affinity mask; *all = 1 when it holds every online CPU. */
static void cpu_list(char *buf, size_t len, int *all)
{
    cpu_set_t set;
    size_t n = 0;
    buf[0] = '\0';
    *all = 1;
    if (sched_getaffinity(0, sizeof set, &set) != 0) {
        snprintf(buf, len, "unknown");
        return;
    }
    long online = sysconf(_SC_NPROCESSORS_ONLN);
    *all = CPU_COUNT(&set) >= online;
    for (int c = 0; c < CPU_SETSIZE && n + 16 < len; c++) {
        if (!CPU_ISSET(c, &set))
            continue;
        int e = c;
        while (e + 1 < CPU_SETSIZE && CPU_ISSET(e + 1, &set))
            e++;
        n += (size_t)snprintf(buf + n, len - n, n ? ",%d" : "%d", c);
        if (e > c)
            n += (size_t)snprintf(buf + n, len - n, "-%d", e);
        c = e;
    }
}

/* "g500 run ARG ...", each argument single-quoted when it holds anything
 * but [A-Za-z0-9_./=:+,-]. */
static char *command_line(int argc, char **argv)
{
    size_t len = 8;
    for (int i = 0; i < argc; i++)
        len += 4 * strlen(argv[i]) + 3;
    char *s = malloc(len), *p = s;
    if (!s)
        return NULL;
    p += sprintf(p, "g500");
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i];
        int plain = *a != '\0';
        for (const char *c = a; *c; c++)
            if (!strchr("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_./=:+,-", *c))
                plain = 0;
        *p++ = ' ';
        if (plain) {
            p += sprintf(p, "%s", a);
            continue;
        }
        *p++ = '\'';
        for (const char *c = a; *c; c++) {
            if (*c == '\'')
                p += sprintf(p, "'\\''");
            else
                *p++ = *c;
        }
        *p++ = '\'';
    }
    *p = '\0';
    return s;
}

/* Collective. Distinct processor names in rank order of first appearance,
 * and the binding, gathered from every rank. */
static int hosts_and_binding(MPI_Comm comm, rep_provenance *p)
{
    int P, len = 0, all_mine, all_every;
    MPI_Comm_size(comm, &P);
    char name[MPI_MAX_PROCESSOR_NAME + 1] = "", cpus[256];
    MPI_Get_processor_name(name, &len);
    cpu_list(cpus, sizeof cpus, &all_mine);
    MPI_Allreduce(&all_mine, &all_every, 1, MPI_INT, MPI_MIN, comm);
    char *names = malloc((size_t)P * sizeof name), *lists = malloc((size_t)P * sizeof cpus);
    int rc = g5_agree(comm, names && lists ? G5_OK : g5_error(G5_ERR_NOMEM, "run: provenance"));
    if (rc == G5_OK) {
        MPI_Allgather(name, sizeof name, MPI_CHAR, names, sizeof name, MPI_CHAR, comm);
        MPI_Allgather(cpus, sizeof cpus, MPI_CHAR, lists, sizeof cpus, MPI_CHAR, comm);
        p->hosts = calloc((size_t)P, sizeof(char *));
        size_t blen = all_every ? 64 : (size_t)P * (sizeof cpus + 16);
        p->binding = malloc(blen);
        rc = p->hosts && p->binding ? G5_OK : g5_error(G5_ERR_NOMEM, "run: provenance");
    }
    for (int r = 0; rc == G5_OK && r < P; r++) {
        const char *h = names + (size_t)r * sizeof name;
        int seen = 0;
        for (int i = 0; i < p->nhosts; i++)
            seen |= strcmp(p->hosts[i], h) == 0;
        if (!seen && !(p->hosts[p->nhosts++] = strdup(h)))
            rc = g5_error(G5_ERR_NOMEM, "run: provenance");
    }
    if (rc == G5_OK) {
        if (all_every) {
            snprintf(p->binding, 64, "none");
        } else {
            size_t n = 0;
            for (int r = 0; r < P; r++)
                n += (size_t)sprintf(p->binding + n, "%srank %d: cpus %s", r ? "; " : "", r,
                                     lists + (size_t)r * sizeof cpus);
        }
    }
    free(names);
    free(lists);
    return g5_agree(comm, rc);
}

int run_provenance(MPI_Comm comm, int argc, char **argv, rep_provenance *p)
{
    char buf[MPI_MAX_LIBRARY_VERSION_STRING + 1] = "";
    int len = 0;
    memset(p, 0, sizeof *p);
    p->version = g5_version();
    p->commit = g5_commit();
    p->compiler = g5_compiler();
    MPI_Get_library_version(buf, &len);
    buf[strcspn(buf, "\n")] = '\0';
    p->mpi_library = strdup(buf);
    io_hdf5_version(buf, sizeof buf);
    p->hdf5_version = strdup(buf);
    MPI_Comm_size(comm, &p->ranks);
    p->threads_per_rank = omp_get_max_threads();
    time_t now = time(NULL);
    struct tm tm;
    strftime(p->date_utc, sizeof p->date_utc, "%Y-%m-%dT%H:%M:%SZ", gmtime_r(&now, &tm));
    p->command_line = command_line(argc, argv);
    int rc = p->mpi_library && p->hdf5_version && p->command_line
                 ? G5_OK : g5_error(G5_ERR_NOMEM, "run: provenance");
    rc = g5_agree(comm, rc);
    if (rc == G5_OK)
        rc = hosts_and_binding(comm, p);
    return rc;
}

void run_provenance_free(rep_provenance *p)
{
    for (int i = 0; p->hosts && i < p->nhosts; i++)
        free(p->hosts[i]);
    free(p->hosts);
    free(p->mpi_library);
    free(p->hdf5_version);
    free(p->binding);
    free(p->command_line);
    memset(p, 0, sizeof *p);
}
