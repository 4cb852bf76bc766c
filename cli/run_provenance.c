/* SPDX-License-Identifier: MIT */
/*
 * run_provenance.c - what made a run's result (stub, filled below).
 */
#include "run.h"

#include "common.h"

#include <stdlib.h>

int run_provenance(MPI_Comm comm, int argc, char **argv, rep_provenance *p)
{
    (void)comm; (void)argc; (void)argv; (void)p;
    return G5_OK;
}

void run_provenance_free(rep_provenance *p)
{
    (void)p;
}
