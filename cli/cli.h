/* SPDX-License-Identifier: MIT */
/*
 * cli.h - what every subcommand shares: its option table, parsed with
 * getopt_long, and its help; how a command fails; where its JSON goes.
 *
 * Options: a subcommand declares a table of g5_opt, each pointing at a
 * field of its config struct that already holds the default.
 * g5_opts_parse fills the fields and collects positional arguments;
 * g5_opts_help prints every option with its current (default) value.
 * Accepted forms (getopt_long): --name VALUE, --name=VALUE, -x VALUE, -xVALUE,
 * flags bundled (-fq), --name for flags, options and positional arguments
 * in any order, "--" ends options. A short letter means one thing in every
 * subcommand that has it:
 *   -o output file   -f force   -q quiet   -s scale   -e edgefactor
 *   -t topology      -r ranks   -k ranks per node     -p placement   -j json
 * --json PATH writes a command's result as JSON to PATH; "-" is standard
 * output, where the JSON replaces the human-readable output.
 */
#ifndef G500_CLI_H
#define G500_CLI_H

#include <mpi.h>
#include <stdint.h>
#include <stdio.h>

enum g5_opt_type { G5_OPT_INT, G5_OPT_INT64, G5_OPT_DOUBLE, G5_OPT_STRING, G5_OPT_FLAG };

typedef struct g5_opt {
    const char *name;    /* long name without dashes, e.g. "scale"   */
    char short_name;     /* 0 if none                                  */
    enum g5_opt_type type;
    void *dest;          /* int*, int64_t*, double*, const char**, int* */
    const char *meta;    /* value placeholder in help, e.g. "S"        */
    const char *help;    /* one line                                   */
} g5_opt;

/* Parse argv[1..argc-1] (argv[0] is the subcommand name; argv may be
 * reordered, options first). Positional arguments are stored in
 * pos[0..*npos-1] (at most maxpos, pointers into argv). Returns G5_OK,
 * G5_ERR_ARG with a message, or 1 if --help/-h was given (the caller prints
 * help and exits 0). Not collective: every rank parses the same argv and
 * reaches the same result. */
int g5_opts_parse(int argc, char **argv, const g5_opt *opts, int nopts,
                  const char **pos, int maxpos, int *npos);
void g5_opts_help(FILE *f, const char *usage, const char *summary,
                  const g5_opt *opts, int nopts);
/* What a command does first: g5_opts_parse, and on --help the help table
 * on stdout from the printing rank (g5_log_rank), then 1. want >= 0: the
 * number of positional arguments the command takes; another number is
 * G5_ERR_ARG with the message want_error. Then cli_threads_env_check, so
 * that no command starts OpenMP threads the machine cannot create. */
int cli_parse(int argc, char **argv, const g5_opt *opts, int nopts, const char **pos, int maxpos,
              int *npos, const char *usage, const char *summary, int want, const char *want_error);
/* OMP_NUM_THREADS (its first level) through g5_threads_check: G5_OK when
 * unset, G5_ERR_ARG naming the variable and the limit otherwise. Not
 * collective (every rank of a node sees the same answer). */
int cli_threads_env_check(void);

/* Subcommand entry points. Each is collective on MPI_COMM_WORLD and
 * returns a process exit code (0 success). */
typedef int (*g5_command_fn)(int argc, char **argv);

/* After an agreed failure, print "g500 CMD: error: MSG" on rank 0 (stderr)
 * and return the exit code main returns on every rank (2 for a usage
 * error, 1 otherwise). Not collective. */
int g5_cmd_fail(const char *cmd, int status);

/* --json PATH. cli_json_stdout: 1 for "-" (the JSON goes to standard
 * output, in place of the human-readable output there). cli_json_check,
 * collective: a PATH that could not be written (missing directory, one of
 * the inputs) is refused before any work. cli_json_write, collective: rank
 * 0 writes the JSON through emit(f, ctx) to standard output or to PATH
 * (atomically: the file appears whole or not at all, replacing an older
 * one); every rank returns the agreed status. */
int cli_json_stdout(const char *path);
int cli_json_check(MPI_Comm comm, const char *path, const char *input);
int cli_json_write(MPI_Comm comm, const char *path, void (*emit)(FILE *f, const void *ctx),
                   const void *ctx);

/* Each stage's estimate of its peak memory per rank in bytes, for
 * g5_memory_check before its heavy work (cli_memory.c; formulas from the
 * stages' docs pages): gen from its parameters and P ranks; components,
 * partition (C components, bfs: the bfs order) and run (in_process:
 * components and placement inside kernel 1; placed: any placement, a file
 * or in process) from the edges file's N and M. */
/* "PATH (SCALE S, M edges)": what an input file's estimate follows from,
 * for the message (a static buffer). */
const char *cli_mem_what(const char *path, int scale, int64_t nedges);
double cli_mem_gen(int scale, int edgefactor, int64_t chunk_rows, int P);
double cli_mem_components(int64_t N, int64_t M, int P);
double cli_mem_partition(int64_t N, int64_t M, int64_t C, int P, int bfs);
double cli_mem_run(int64_t N, int64_t M, int P, int in_process, int placed);

#endif
