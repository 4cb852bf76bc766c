/* SPDX-License-Identifier: MIT */
/*
 * report_cmd.c - the `report` subcommand:
 *   g500 report RESULTS_DIR            write RESULTS_DIR/report/ (index.md,
 *                                      PNG plots, their data and script)
 *   g500 report RESULTS_DIR --summary  the comparison of the placements, the
 *                                      runs and the placement metrics on stdout
 *   g500 report RESULTS_DIR --check    check the cached files of a pipeline
 *                                      run and remove the ones not to trust
 * The work is serial and small, so rank 0 does it on MPI_COMM_SELF and the
 * status is agreed on MPI_COMM_WORLD afterwards: under mpirun every rank
 * exits with the same code.
 */
#include "cli.h"
#include "common.h"
#include "report.h"
#include "topo.h"

#include <string.h>

int report_cmd(int argc, char **argv)
{
    const char *gnuplot = "gnuplot";
    int no_plots = 0, quiet = 0, summary = 0, check = 0, dry_run = 0, scale = -1, edgefactor = -1;
    int64_t seed = -1;
    const char *topology = NULL;
    int no_data = 0;
    const g5_opt opts[] = {
        {"no-plots", 0, G5_OPT_FLAG, &no_plots, "", "write the page, data and plots.gp but do not run gnuplot"},
        {"gnuplot", 0, G5_OPT_STRING, &gnuplot, "CMD", "gnuplot program (pngcairo terminal)"},
        {"quiet", 'q', G5_OPT_FLAG, &quiet, "", "print nothing on stdout"},
        {"summary", 0, G5_OPT_FLAG, &summary, "", "print the comparison, runs and placement tables; write nothing"},
        {"check", 0, G5_OPT_FLAG, &check, "", "check the cached files instead: remove incomplete or stale ones"},
        {"scale", 's', G5_OPT_INT, &scale, "S", "--check: scale edges.h5 must have (-1: any)"},
        {"edgefactor", 'e', G5_OPT_INT, &edgefactor, "E", "--check: edgefactor edges.h5 must have (-1: any)"},
        {"seed", 0, G5_OPT_INT64, &seed, "N", "--check: seed edges.h5 must have (-1: any)"},
        {"dry-run", 0, G5_OPT_FLAG, &dry_run, "", "--check: say what would be removed, remove nothing"},
        {"topology", 't', G5_OPT_STRING, &topology, "FILE",
         "--check: placements must have been made from this topology (by content)"},
        {"no-data", 0, G5_OPT_FLAG, &no_data, "",
         "--check: check attributes only, do not read every dataset through its checksums"},
    };
    const int nopts = (int)(sizeof opts / sizeof opts[0]);
    const char *pos[2];
    int npos = 0, rank, rc;

    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    rc = cli_parse(argc, argv, opts, nopts, pos, 2, &npos,
                   "g500 report RESULTS_DIR [options]",
                   "Write RESULTS_DIR/report/index.md with the Graph500 blocks, component\n"
                   "statistics, the placements compared over their alternated runs (median\n"
                   "and range) and gnuplot PNG plots (TEPS per placement and per key, traffic\n"
                   "heat maps, bytes by hop level, BFS levels, component sizes) from the files\n"
                   "a pipeline run left in RESULTS_DIR; without gnuplot, the page says how to\n"
                   "draw them. With --summary, print the tables only. With --check, check\n"
                   "those files instead (format, identity, completeness) and remove the ones\n"
                   "a rerun must rebuild.",
                   1, "expected one RESULTS_DIR (see g500 report --help)");
    if (rc == 1)
        return 0;
    if (rc == G5_OK && rank == 0) {
        if (check) {
            rep_cache_expect e = {pos[0], scale, edgefactor, seed, dry_run, 0, 0, topology, no_data};
            int removed = 0;
            topo *t = NULL;
            if (topology && (rc = topo_load(topology, &t)) == G5_OK) {
                e.have_topology = 1;
                e.topology_id = topo_id(t);
            }
            topo_free(&t);
            if (rc == G5_OK)
                rc = rep_cache_check(&e, &removed);
            if (rc == G5_OK && !quiet && removed)
                printf("%s: %d cached file%s removed\n", pos[0], removed, removed == 1 ? "" : "s");
        } else {
            rep_options o = {pos[0], gnuplot, !no_plots, quiet, summary};
            rc = rep_write_report(&o);
        }
        fflush(stdout);
    }
    rc = g5_agree(MPI_COMM_WORLD, rc);
    return rc == G5_OK ? 0 : g5_cmd_fail("report", rc);
}
