/* SPDX-License-Identifier: MIT */
/*
 * touch_pages.c - maps MIB MiB of anonymous memory, asks for transparent
 * huge pages as g500's large arrays do (kc_big_malloc), writes one byte per
 * 4 KiB page and exits. A virtual machine that hands freed memory back to
 * its host (virtio-balloon free page reporting) makes the next program pay
 * the host again for every fresh page it touches; a program started right
 * after this one reuses pages the host still backs, as on a machine without
 * a hypervisor. bench/bench-anchors.sh runs it before the "primed" runs.
 *   build/bench/touch_pages MIB
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>

int main(int argc, char **argv)
{
    char *end = NULL;
    long long mib = argc == 2 ? strtoll(argv[1], &end, 10) : -1;
    if (mib <= 0 || *end != '\0') {
        fprintf(stderr, "usage: touch_pages MIB (a positive number of MiB)\n");
        return 2;
    }
    size_t bytes = (size_t)mib << 20;
    char *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) {
        perror("touch_pages: mmap");
        return 1;
    }
#ifdef MADV_HUGEPAGE
    madvise(p, bytes, MADV_HUGEPAGE);
#endif
    for (size_t i = 0; i < bytes; i += 4096)
        p[i] = 1;
    munmap(p, bytes);
    return 0;
}
