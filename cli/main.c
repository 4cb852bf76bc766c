/* SPDX-License-Identifier: MIT */
/*
 * main.c - bin/g500, one MPI program with a subcommand per pipeline stage,
 * like git's verbs. Every subcommand is collective on MPI_COMM_WORLD and
 * returns the same exit code on every rank, so `mpirun` sees a failure on
 * all ranks and nothing hangs.
 */
#include "cli.h"
#include "common.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* How long a rank whose MPI-IO write failed may stay inside the library
 * call before the watchdog ends the job. */
#define WRITE_STUCK_SECONDS 6.0

int gen_cmd(int argc, char **argv);
int components_cmd(int argc, char **argv);
int topo_cmd(int argc, char **argv);
int run_cmd(int argc, char **argv);
int stats_cmd(int argc, char **argv);
int report_cmd(int argc, char **argv);
int partition_cmd(int argc, char **argv);

struct command {
    const char *name;
    g5_command_fn fn;
    const char *summary;
};

/* In pipeline order. */
static const struct command commands[] = {
    {"gen", gen_cmd, "generate the Kronecker edge list into an HDF5 edges file"},
    {"components", components_cmd, "connected components of an edges file, with statistics"},
    {"topo", topo_cmd, "parse a topology (Slurm topology.conf or tleaf), print tree and hops"},
    {"partition", partition_cmd, "place components on ranks and nodes by switch hops; placement file, rankfile, hostfile, machinefile"},
    {"run", run_cmd, "timed kernels: construction, BFS, SSSP, validation, Graph500 output"},
    {"report", report_cmd, "write a results directory's report (Markdown, PNG plots); --check its cache"},
    {"stats", stats_cmd, "print what a g500 file holds (components statistics, edges metadata)"},
    {0, 0, 0}
};

/* MPI-IO error handler of every file the process opens (HDF5's included):
 * notes a failed write with its OS error while the rank is still inside
 * HDF5, for the watchdog below. The error still returns to HDF5. */
static void file_error(MPI_File *fh, int *code, ...)
{
    int err = errno, len = 0;
    char why[MPI_MAX_ERROR_STRING + 64];
    (void)fh;
    if (err == ENOSPC || err == EDQUOT || err == EFBIG || err == EIO || err == EROFS) {
        snprintf(why, sizeof why, "%s", strerror(err));
    } else {
        MPI_Error_string(*code, why, &len);
        why[len] = '\0';
    }
    g5_write_error_note(why);
}

static const char *cmd_name = "";

/* A rank whose write failed inside a collective HDF5 call can stay there
 * for good: HDF5 does not always leave a collective symmetrically after a
 * local error, so the other ranks and this one wait on each other. If it
 * has not come back to an agreement WRITE_STUCK_SECONDS after the error,
 * this thread prints the error, removes the temporary files and ends the
 * job. Checks once a second; idle otherwise. */
static void *write_watchdog(void *arg)
{
    (void)arg;
    for (;;) {
        double since;
        char why[300];
        struct timespec ts = {1, 0};
        nanosleep(&ts, NULL);
        /* A stuck rank normally reaches main's MPI_Abort at once; one held
         * in a collective on the way (closing an input file) is ended here. */
        since = g5_stuck_since();
        if (since > 0 && MPI_Wtime() - since > 2.0)
            snprintf(why, sizeof why, "%s", g5_error_msg());
        else if (!g5_write_error_pending(&since, why, sizeof why) ||
                 MPI_Wtime() - since < WRITE_STUCK_SECONDS)
            continue;
        int rank = 0;
        MPI_Comm_rank(MPI_COMM_WORLD, &rank);
        if (g5_stuck())
            fprintf(stderr, "g500 %s: error (rank %d, ending the job): %s\n", cmd_name, rank, why);
        else
            fprintf(stderr, "g500 %s: error: writing %s failed on rank %d: %s; the ranks cannot "
                    "leave the HDF5 call it failed in, ending the job\n", cmd_name,
                    g5_tmp_current(), rank, why);
        g5_abort_job(1);
    }
    return NULL;
}

static void watch_writes(void)
{
    pthread_t t;
    MPI_Errhandler eh;
    MPI_File_create_errhandler(file_error, &eh);
    MPI_File_set_errhandler(MPI_FILE_NULL, eh);
#ifdef MPICH_VERSION
    /* MPICH 4.0 releases a reference to the default file handler when a
     * file that inherited it closes but takes none when the file opens
     * (an assertion in errhan_impl.c at the first close). Each get below
     * takes one, never given back: enough for the files a run opens. */
    for (int i = 0; i < 100000; i++) {
        MPI_Errhandler held;
        MPI_File_get_errhandler(MPI_FILE_NULL, &held);
    }
#endif
    if (pthread_create(&t, NULL, write_watchdog, NULL) == 0)
        pthread_detach(t);
}

static void usage(FILE *f)
{
    fprintf(f, "usage: [mpirun -np P] g500 COMMAND [options]\n\n"
               "g500 runs the Graph500 benchmark as a pipeline of stages with\n"
               "HDF5 files between them. Commands:\n");
    for (const struct command *c = commands; c->name; c++)
        fprintf(f, "  %-12s %s\n", c->name, c->summary);
    fprintf(f, "\n'g500 COMMAND --help' lists every option of a command with its default;\n"
               "'g500 --version' prints the version, commit and compiler.\n");
}

int main(int argc, char **argv)
{
    int provided, code = 2;
    const struct command *cmd = NULL;

    /* Open MPI's own MPI-IO (ompio, 4.1) reports a failed write as a
     * success, so a full disk gave a complete-looking file with holes;
     * ROMIO returns the error. A user's own choice of component stands. */
    setenv("OMPI_MCA_io", "^ompio", 0);
    MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
    /* Errors come back as return codes, never as aborts, so that every rank
     * can agree on them and exit cleanly. */
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    g5_log_init(MPI_COMM_WORLD, 0);

    if (argc < 2 || strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0) {
        if (g5_log_rank())
            usage(argc < 2 ? stderr : stdout);
        code = argc < 2 ? 2 : 0;
        goto out;
    }
    if (strcmp(argv[1], "--version") == 0) {
        if (g5_log_rank())
            printf("g500 %s (commit %s)\ncompiler: %s\n", g5_version(), g5_commit(), g5_compiler());
        code = 0;
        goto out;
    }
    for (const struct command *c = commands; c->name; c++)
        if (strcmp(c->name, argv[1]) == 0)
            cmd = c;
    if (!cmd) {
        if (g5_log_rank())
            fprintf(stderr, "g500: unknown command '%s' (see g500 --help)\n", argv[1]);
        goto out;
    }
    g5_tmp_signals();
    cmd_name = cmd->name;
    watch_writes();
    code = cmd->fn(argc - 1, argv + 1);
    if (g5_stuck()) {
        /* This rank left a collective the others are still in (or HDF5
         * cannot finalize): only MPI_Abort ends the job. */
        g5_abort_job(code ? code : 1);
    }
out:
    MPI_Finalize();
    return code;
}
