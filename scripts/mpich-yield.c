/* SPDX-License-Identifier: MIT */
/*
 * mpich-yield.c - yield the core while MPICH waits, for ranks that share
 * cores (more ranks than cores: the test suite on a 2-core machine).
 *
 * MPICH's ch4 device over UCX waits for a message by calling
 * ucp_worker_progress() in a loop and never gives the core away: a waiting
 * rank keeps it until the scheduler's time slice ends, while the rank it
 * waits for is not running. Open MPI has mpi_yield_when_idle for this; the
 * MPICH 4.0 of Debian 12 has no such setting (MPIR_CVAR_POLLS_BEFORE_YIELD
 * belongs to ch3 and changes nothing here). This library, preloaded by
 * scripts/mpi-launch for an oversubscribed MPICH run (LD_PRELOAD), wraps
 * ucp_worker_progress: after 16 calls in a row that found nothing it sleeps
 * 20 microseconds. A sleep, not sched_yield(): with many runnable tasks the
 * scheduler hands a yielding task its core straight back, a sleeping one
 * leaves it to the others. Results are unchanged; only waiting gets
 * cheaper. Built by `make MPI=mpich` as $(BUILD)/mpich-yield.so; not
 * linked into g500.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <time.h>

typedef unsigned (*progress_fn)(void *worker);

unsigned ucp_worker_progress(void *worker);

unsigned ucp_worker_progress(void *worker)
{
    static progress_fn real;
    static unsigned idle;
    unsigned n;

    if (!real)
        real = (progress_fn)dlsym(RTLD_NEXT, "ucp_worker_progress");
    if (!real)
        return 0;
    n = real(worker);
    if (n != 0)
        idle = 0;
    else if (++idle >= 16) {
        struct timespec nap = {0, 20000};
        idle = 0;
        nanosleep(&nap, NULL);
    }
    return n;
}
