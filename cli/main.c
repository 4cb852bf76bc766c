/* SPDX-License-Identifier: MIT */
/*
 * main.c - bin/g500, one MPI program with a subcommand per pipeline stage,
 * like git's verbs. Every subcommand is collective on MPI_COMM_WORLD and
 * returns the same exit code on every rank, so `mpirun` sees a failure on
 * all ranks and nothing hangs.
 */
#include "cli.h"
#include "common.h"

#include <stdlib.h>
#include <string.h>

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
    code = cmd->fn(argc - 1, argv + 1);
out:
    MPI_Finalize();
    return code;
}
