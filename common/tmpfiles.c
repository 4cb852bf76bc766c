/* SPDX-License-Identifier: MIT */
/*
 * tmpfiles.c - the temporary files a writer leaves behind when it cannot
 * finish, and the ranks that can no longer finish with the others.
 *
 * Every output is written as "NAME.tmp.<pid>" and renamed when complete.
 * A writer registers its temporary name here while it is open, so that
 * SIGINT and SIGTERM (a user's ^C, mpirun forwarding one, a batch system's
 * time limit) remove it before the process dies, and so that main can
 * remove it before MPI_Abort. The table is fixed and the handler only
 * calls unlink, which is async-signal-safe.
 *
 * A temporary file of a dead process (SIGKILL, a crashed node) is stale:
 * its pid is not running, is a zombie, or is a process started after the
 * file last changed (the pid was reused). The next writer of the same NAME
 * removes it (g5_tmp_clear_stale), as `g500 report --check` does for a
 * whole directory. The pid is looked up on this host: a file of a writer
 * on another host sharing the directory is not told apart, which the
 * pipeline's lock (one pipeline per directory) makes moot.
 *
 * Stuck ranks: when a rank fails inside a library collective (HDF5 over
 * MPI-IO) and the other ranks do not come back from it to agree, the
 * failing rank gives up waiting (g5_agree_within) and marks the process
 * stuck; main then removes the temporary files and ends the job with
 * MPI_Abort instead of waiting forever.
 */
#include "common.h"

#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define G5_TMP_SLOTS 8
#define G5_TMP_PATH 4200

static char tmp_paths[G5_TMP_SLOTS][G5_TMP_PATH];
static volatile sig_atomic_t tmp_used[G5_TMP_SLOTS];
static int stuck;

void g5_tmp_add(const char *path)
{
    for (int i = 0; i < G5_TMP_SLOTS; i++)
        if (!tmp_used[i]) {
            snprintf(tmp_paths[i], G5_TMP_PATH, "%s", path);
            tmp_used[i] = 1;
            return;
        }
}

const char *g5_tmp_current(void)
{
    for (int i = G5_TMP_SLOTS - 1; i >= 0; i--)
        if (tmp_used[i])
            return tmp_paths[i];
    return "";
}

void g5_tmp_forget(const char *path)
{
    for (int i = 0; i < G5_TMP_SLOTS; i++)
        if (tmp_used[i] && strcmp(tmp_paths[i], path) == 0)
            tmp_used[i] = 0;
}

void g5_tmp_unlink_all(void)
{
    for (int i = 0; i < G5_TMP_SLOTS; i++)
        if (tmp_used[i]) {
            unlink(tmp_paths[i]);
            tmp_used[i] = 0;
        }
}

_Noreturn void g5_abort_job(int code)
{
    struct timespec pause = {0, 300 * 1000 * 1000};
    g5_tmp_unlink_all();
    fflush(stdout);
    fflush(stderr);
    nanosleep(&pause, NULL);
    MPI_Abort(MPI_COMM_WORLD, code);
    _exit(code);
}

static void on_signal(int sig)
{
    for (int i = 0; i < G5_TMP_SLOTS; i++)
        if (tmp_used[i])
            unlink(tmp_paths[i]);
    signal(sig, SIG_DFL);
    raise(sig);
}

void g5_tmp_signals(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
}

static _Atomic double stuck_at;

void g5_set_stuck(void)
{
    stuck = 1;
    if (stuck_at == 0)
        stuck_at = MPI_Wtime();
}
int g5_stuck(void) { return stuck; }
double g5_stuck_since(void) { return stuck_at; }

/* Written by the MPI-IO error handler on the main thread, read by main's
 * watchdog thread: the time is published last. */
static char write_why[256];
static _Atomic double write_failed_at;

void g5_write_error_note(const char *why)
{
    if (write_failed_at == 0) {
        snprintf(write_why, sizeof write_why, "%s", why);
        write_failed_at = MPI_Wtime();
    }
}

int g5_write_error_pending(double *since, char *why, size_t len)
{
    double t = write_failed_at;
    if (t == 0)
        return 0;
    if (since)
        *since = t;
    if (why)
        snprintf(why, len, "%s", write_why);
    return 1;
}

void g5_write_error_clear(void) { write_failed_at = 0; }

/* Is process pid alive and old enough to have written a file last changed
 * at mtime? A zombie is dead (a killed writer whose parent died too may
 * wait a moment for init), and a process started after the file's last
 * change is a later process that reused the pid. Start time: field 22 of
 * /proc/PID/stat, clock ticks after boot (btime in /proc/stat). Without
 * /proc, kill(pid, 0) decides alone. */
static int writer_alive(long pid, time_t mtime)
{
    char path[64], buf[1024];
    FILE *f;
    if (kill((pid_t)pid, 0) != 0 && errno == ESRCH)
        return 0;
    snprintf(path, sizeof path, "/proc/%ld/stat", pid);
    if (!(f = fopen(path, "r")))
        return 1;
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = '\0';
    /* The command name (field 2) may hold spaces: parse after its ')'. */
    char *p = strrchr(buf, ')');
    char state = 0;
    unsigned long long start = 0;
    if (!p || sscanf(p + 1, " %c %*s %*s %*s %*s %*s %*s %*s %*s %*s %*s %*s %*s %*s %*s "
                            "%*s %*s %*s %*s %llu", &state, &start) != 2)
        return 1;
    if (state == 'Z' || state == 'X')
        return 0;
    long hz = sysconf(_SC_CLK_TCK);
    unsigned long long btime = 0;
    if (hz > 0 && (f = fopen("/proc/stat", "r"))) {
        char line[256];
        while (fgets(line, sizeof line, f))
            if (sscanf(line, "btime %llu", &btime) == 1)
                break;
        fclose(f);
    }
    if (btime && hz > 0 && (time_t)(btime + start / (unsigned long long)hz) > mtime + 1)
        return 0;
    return 1;
}

int g5_tmp_stale(const char *path)
{
    const char *name = strrchr(path, '/');
    const char *t = strstr(name ? name : path, ".tmp.");
    struct stat st;
    char *end;
    long pid;
    if (!t)
        return 0;
    errno = 0;
    pid = strtol(t + 5, &end, 10);
    if (end == t + 5 || pid <= 0)
        return 1;
    if (lstat(path, &st) != 0)
        return 0;
    if (pid == (long)getpid())
        return 0;
    return !writer_alive(pid, st.st_mtime);
}

int g5_tmp_clear_stale(const char *final_path)
{
    char dir[G5_TMP_PATH], p[G5_TMP_PATH + 256];
    const char *slash = strrchr(final_path, '/'), *base = slash ? slash + 1 : final_path;
    size_t blen = strlen(base);
    int removed = 0;
    DIR *d;
    struct dirent *e;
    if (!slash)
        snprintf(dir, sizeof dir, ".");
    else
        snprintf(dir, sizeof dir, "%.*s", slash == final_path ? 1 : (int)(slash - final_path), final_path);
    if (!(d = opendir(dir)))
        return 0;
    while ((e = readdir(d))) {
        const char *nm = e->d_name, *q;
        if (strncmp(nm, base, blen) != 0 || strncmp(nm + blen, ".tmp.", 5) != 0)
            continue;
        for (q = nm + blen + 5; *q >= '0' && *q <= '9'; q++)
            ;
        if (*q || q == nm + blen + 5)
            continue;
        snprintf(p, sizeof p, "%s/%s", dir, nm);
        if (g5_tmp_stale(p) && unlink(p) == 0) {
            removed++;
            g5_progress("removed %s, left by a writer that is gone", p);
        }
    }
    closedir(d);
    return removed;
}
