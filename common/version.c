/* SPDX-License-Identifier: MIT */
/*
 * version.c - what built this binary: the version (git describe --always
 * --dirty at build time), the commit, the compiler and flags, from the
 * header the Makefile generates (build/g500_version.h, rewritten only when
 * it changes).
 */
#include "common.h"

#include "g500_version.h"

const char *g5_version(void) { return G500_VERSION; }
const char *g5_commit(void) { return G500_COMMIT; }

const char *g5_compiler(void)
{
#ifdef __VERSION__
    return __VERSION__ ", flags: " G500_BUILD_FLAGS;
#else
    return "flags: " G500_BUILD_FLAGS;
#endif
}
