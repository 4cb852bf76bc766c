/* SPDX-License-Identifier: MIT */
/*
 * report_stats.c - the summary statistics the Graph500 reference code
 * (v3.0.1, src/main.c get_statistics) prints for times, edge counts and TEPS.
 *
 * Order statistics on a sorted copy: the quartiles and the median are the
 * mean of the two middle order statistics, x[(n-1)/4] and x[n/4] for the
 * first quartile, x[(n-1)/2] and x[n/2] for the median, x[n-1-(n-1)/4] and
 * x[n-1-n/4] for the third. The standard deviation divides by n-1.
 *
 * TEPS statistics are taken on seconds per edge s_i = t_i / m_i, so that the
 * mean of s is the reciprocal of the harmonic mean of the TEPS, and the
 * harmonic standard deviation is Norris's first-order error
 *   stddev(s) / (mean(s)^2 * sqrt(n-1))
 * (N. Norris, "The Standard Errors of the Geometric and Harmonic Means and
 * Their Application to Index Numbers", Ann. Math. Statist. 11(4), 1940,
 * 445-448), as the Graph500 specification and reference code use.
 *
 * Departures from the reference, both for n < 2 only: the stddev of one
 * sample is 0 (the reference divides 0 by 0), and the harmonic stddev is 0.
 */
#include "rep_run.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static void stats_sorted(const double *xs, int n, rep_stats *out)
{
    out->min = xs[0];
    out->firstquartile = 0.5 * (xs[(n - 1) / 4] + xs[n / 4]);
    out->median = 0.5 * (xs[(n - 1) / 2] + xs[n / 2]);
    out->thirdquartile = 0.5 * (xs[n - 1 - (n - 1) / 4] + xs[n - 1 - n / 4]);
    out->max = xs[n - 1];
}

void rep_stats_of(const double *x, int n, rep_stats *out)
{
    if (n <= 0 || !x) {
        out->min = out->firstquartile = out->median = out->thirdquartile = NAN;
        out->max = out->mean = out->stddev = NAN;
        return;
    }
    double sum = 0;
    for (int i = 0; i < n; i++)
        sum += x[i];
    double mean = sum / n, ss = 0;
    for (int i = 0; i < n; i++)
        ss += (x[i] - mean) * (x[i] - mean);
    out->mean = mean;
    out->stddev = n > 1 ? sqrt(ss / (n - 1)) : 0.0;

    /* A stack copy for the usual n <= 64 roots; a heap copy beyond. */
    double small[128];
    double *xs = n <= 128 ? small : malloc((size_t)n * sizeof *xs);
    if (!xs) {
        /* Out of memory for a sort copy of statistics input: report NaN
         * order statistics rather than failing the whole run's output. */
        out->min = out->firstquartile = out->median = out->thirdquartile = out->max = NAN;
        return;
    }
    memcpy(xs, x, (size_t)n * sizeof *xs);
    qsort(xs, (size_t)n, sizeof *xs, cmp_double);
    stats_sorted(xs, n, out);
    if (xs != small)
        free(xs);
}

void rep_teps_stats(const double *time, const int64_t *nedge, int n, rep_stats *out,
                     double *hmean, double *hstddev)
{
    double small[128];
    double *spe = n <= 128 ? small : malloc((size_t)(n > 0 ? n : 1) * sizeof *spe);
    rep_stats s;
    if (n <= 0 || !spe) {
        rep_stats_of(NULL, 0, out);
        if (hmean) *hmean = NAN;
        if (hstddev) *hstddev = NAN;
        if (spe && spe != small) free(spe);
        return;
    }
    for (int i = 0; i < n; i++)
        spe[i] = time[i] / (double)nedge[i];
    rep_stats_of(spe, n, &s);
    if (spe != small)
        free(spe);
    out->min = 1.0 / s.max;
    out->firstquartile = 1.0 / s.thirdquartile;
    out->median = 1.0 / s.median;
    out->thirdquartile = 1.0 / s.firstquartile;
    out->max = 1.0 / s.min;
    out->mean = 1.0 / s.mean;
    out->stddev = n > 1 ? s.stddev / (s.mean * s.mean * sqrt((double)(n - 1))) : 0.0;
    if (hmean) *hmean = out->mean;
    if (hstddev) *hstddev = out->stddev;
}
