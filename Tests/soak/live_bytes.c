/*
 * live_bytes.c - an LD_PRELOAD counter of the bytes a program holds from
 * malloc (issue 50, item 6), to tell growth of what the program holds from
 * growth of what glibc keeps for it.
 *
 * mallinfo2().uordblks (what the abandonment soak samples) counts a freed
 * chunk as in use while it sits in its thread's tcache (up to 7 chunks of
 * each of 64 sizes, per thread); this counts what the program asked for and
 * has not freed: malloc_usable_size of every block handed out by malloc,
 * calloc, realloc, memalign, posix_memalign, aligned_alloc, valloc and
 * pvalloc, less every block given back to free or realloc. Blocks that
 * libdispatch keeps in its per-thread continuation caches are held by the
 * program, so they count here.
 *
 * Once a second a thread of its own appends a line "seconds live_bytes
 * uordblks" to the file LIVE_BYTES_OUT (nothing without it):
 *
 *   cc -shared -fPIC -O2 -o .build-c/live_bytes.so Tests/soak/live_bytes.c -lpthread
 *   LIVE_BYTES_OUT=live.txt LD_PRELOAD=$PWD/.build-c/live_bytes.so \
 *       LD_LIBRARY_PATH=.build-c/stage/usr/lib .build-c/abandon 300 1
 *
 * glibc only: it forwards to __libc_malloc and its kin.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <malloc.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

extern void *__libc_malloc(size_t);
extern void *__libc_calloc(size_t, size_t);
extern void *__libc_realloc(void *, size_t);
extern void *__libc_memalign(size_t, size_t);
extern void __libc_free(void *);

static atomic_llong live;

static void *counted(void *p) {
    if (p != NULL) {
        atomic_fetch_add_explicit(&live, (long long)malloc_usable_size(p), memory_order_relaxed);
    }
    return p;
}

static void uncount(void *p) {
    if (p != NULL) {
        atomic_fetch_sub_explicit(&live, (long long)malloc_usable_size(p), memory_order_relaxed);
    }
}

void *malloc(size_t size) {
    return counted(__libc_malloc(size));
}

void *calloc(size_t count, size_t size) {
    return counted(__libc_calloc(count, size));
}

void *realloc(void *old, size_t size) {
    size_t before = old != NULL ? malloc_usable_size(old) : 0;
    void *p = __libc_realloc(old, size);
    if (p != NULL || size == 0) {
        /* Moved, resized or freed (size 0): the old block is gone. */
        atomic_fetch_sub_explicit(&live, (long long)before, memory_order_relaxed);
        counted(p);
    }
    return p;
}

void free(void *p) {
    uncount(p);
    __libc_free(p);
}

void *memalign(size_t alignment, size_t size) {
    return counted(__libc_memalign(alignment, size));
}

void *aligned_alloc(size_t alignment, size_t size) {
    return counted(__libc_memalign(alignment, size));
}

int posix_memalign(void **out, size_t alignment, size_t size) {
    if (alignment % sizeof(void *) != 0 || (alignment & (alignment - 1)) != 0) {
        return EINVAL;
    }
    void *p = counted(__libc_memalign(alignment, size));
    if (p == NULL && size != 0) {
        return ENOMEM;
    }
    *out = p;
    return 0;
}

void *valloc(size_t size) {
    return counted(__libc_memalign(4096, size));
}

void *pvalloc(size_t size) {
    return counted(__libc_memalign(4096, (size + 4095) & ~(size_t)4095));
}

static void *report(void *arg) {
    FILE *out = arg;
    struct timespec start, tick;
    clock_gettime(CLOCK_MONOTONIC, &start);
    tick = start;
    for (;;) {
        struct timespec now;
        clock_gettime(CLOCK_MONOTONIC, &now);
        double at = (double)(now.tv_sec - start.tv_sec) + (double)(now.tv_nsec - start.tv_nsec) / 1e9;
        fprintf(out, "%.3f %lld %zu\n", at, atomic_load_explicit(&live, memory_order_relaxed), mallinfo2().uordblks);
        fflush(out);
        tick.tv_sec += 1;
        while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &tick, NULL) != 0) {
        }
    }
    return NULL;
}

__attribute__((constructor)) static void start_reporting(void) {
    const char *path = getenv("LIVE_BYTES_OUT");
    if (path == NULL || *path == '\0') {
        return;
    }
    FILE *out = fopen(path, "w");
    if (out == NULL) {
        return;
    }
    pthread_t thread;
    if (pthread_create(&thread, NULL, report, out) == 0) {
        pthread_detach(thread);
    }
}
