/* A preloaded library that wraps cuLaunchKernel the way simple CUDA tracing tools do: it defines
 * the entry point and calls the next definition, found with dlsym(RTLD_NEXT). At exit it says how
 * many launches went through it, on stderr. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>

typedef int (*launch_fn)(void*, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned,
                         unsigned, void*, void**, void**);
static int launches;

int cuLaunchKernel(void* f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by,
                   unsigned bz, unsigned shared, void* stream, void** params, void** extra) {
    static launch_fn next;
    if (next == NULL) next = (launch_fn)dlsym(RTLD_NEXT, "cuLaunchKernel");
    if (next == NULL) {
        fprintf(stderr, "launch_wrapper: no cuLaunchKernel after this library\n");
        abort();
    }
    ++launches;
    return next(f, gx, gy, gz, bx, by, bz, shared, stream, params, extra);
}

static void report(void) {
    fprintf(stderr, "launch_wrapper: %d launches\n", launches);
}

__attribute__((constructor)) static void init(void) {
    atexit(report);
}
