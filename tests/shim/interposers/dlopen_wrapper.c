/* A preloaded library shaped like compute-sanitizer's and ncu's injection libraries: it defines
 * dlopen, finds the next one with dlsym(RTLD_NEXT, "dlopen") from its constructor (before any
 * other library is initialised) and uses it there. At exit it says how many dlopen calls it saw,
 * on stderr. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>

static void* (*next_dlopen)(const char*, int);
static int calls;

void* dlopen(const char* file, int flags) {
    if (next_dlopen == NULL) next_dlopen = (void* (*)(const char*, int))dlsym(RTLD_NEXT, "dlopen");
    ++calls;
    return next_dlopen(file, flags);
}

static void report(void) {
    fprintf(stderr, "dlopen_wrapper: %d dlopen calls\n", calls);
}

__attribute__((constructor)) static void init(void) {
    next_dlopen = (void* (*)(const char*, int))dlsym(RTLD_NEXT, "dlopen");
    if (next_dlopen == NULL || dlopen("libm.so.6", RTLD_NOW) == NULL) {
        fprintf(stderr, "dlopen_wrapper: no dlopen after this library\n");
        abort();
    }
    atexit(report);
}
