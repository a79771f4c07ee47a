/* See include/MallocCounter.h. */
#define _GNU_SOURCE
#include "MallocCounter.h"

#include <errno.h>
#include <malloc.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

extern void *__libc_malloc(size_t size);
extern void *__libc_calloc(size_t count, size_t size);
extern void *__libc_realloc(void *pointer, size_t size);
extern void __libc_free(void *pointer);
extern void *__libc_memalign(size_t alignment, size_t size);

static uint64_t mallocs;
static uint64_t reallocs;
static uint64_t frees;
static int64_t live_bytes;
static int enabled = 1;

void mc_set_enabled(int on) {
    __atomic_store_n(&enabled, on, __ATOMIC_SEQ_CST);
}

static inline int counting(void) {
    return __atomic_load_n(&enabled, __ATOMIC_RELAXED);
}

static void *counted(void *pointer) {
    if (pointer != NULL && counting()) {
        __atomic_fetch_add(&mallocs, 1, __ATOMIC_RELAXED);
        __atomic_fetch_add(&live_bytes, (int64_t)malloc_usable_size(pointer), __ATOMIC_RELAXED);
    }
    return pointer;
}

void *malloc(size_t size) {
    return counted(__libc_malloc(size));
}

void *calloc(size_t count, size_t size) {
    return counted(__libc_calloc(count, size));
}

void *memalign(size_t alignment, size_t size) {
    return counted(__libc_memalign(alignment, size));
}

void *aligned_alloc(size_t alignment, size_t size) {
    return counted(__libc_memalign(alignment, size));
}

int posix_memalign(void **out, size_t alignment, size_t size) {
    if (alignment < sizeof(void *) || (alignment & (alignment - 1)) != 0) {
        return EINVAL;
    }
    void *pointer = counted(__libc_memalign(alignment, size));
    if (pointer == NULL && size != 0) {
        return ENOMEM;
    }
    *out = pointer;
    return 0;
}

void free(void *pointer) {
    if (pointer == NULL) {
        return;
    }
    if (!counting()) {
        __libc_free(pointer);
        return;
    }
    __atomic_fetch_add(&frees, 1, __ATOMIC_RELAXED);
    __atomic_fetch_sub(&live_bytes, (int64_t)malloc_usable_size(pointer), __ATOMIC_RELAXED);
    __libc_free(pointer);
}

void *realloc(void *pointer, size_t size) {
    if (pointer == NULL) {
        return counted(__libc_malloc(size));
    }
    if (!counting()) {
        return __libc_realloc(pointer, size);
    }
    size_t before = malloc_usable_size(pointer);
    void *result = __libc_realloc(pointer, size);
    if (size == 0 && result == NULL) {
        __atomic_fetch_add(&frees, 1, __ATOMIC_RELAXED);
        __atomic_fetch_sub(&live_bytes, (int64_t)before, __ATOMIC_RELAXED);
        return NULL;
    }
    if (result != NULL) {
        __atomic_fetch_add(&reallocs, 1, __ATOMIC_RELAXED);
        __atomic_fetch_add(&live_bytes, (int64_t)malloc_usable_size(result) - (int64_t)before, __ATOMIC_RELAXED);
    }
    return result;
}

mc_snapshot mc_read(void) {
    mc_snapshot snapshot;
    snapshot.mallocs = __atomic_load_n(&mallocs, __ATOMIC_RELAXED);
    snapshot.reallocs = __atomic_load_n(&reallocs, __ATOMIC_RELAXED);
    snapshot.frees = __atomic_load_n(&frees, __ATOMIC_RELAXED);
    snapshot.live_bytes = __atomic_load_n(&live_bytes, __ATOMIC_RELAXED);
    return snapshot;
}

int64_t mc_heap_in_use(void) {
    struct mallinfo2 info = mallinfo2();
    return (int64_t)info.uordblks + (int64_t)info.hblkhd;
}

int64_t mc_rss_bytes(void) {
    long pages = 0, resident = 0;
    FILE *file = fopen("/proc/self/statm", "r");
    if (file == NULL) {
        return -1;
    }
    if (fscanf(file, "%ld %ld", &pages, &resident) != 2) {
        resident = -1;
    }
    fclose(file);
    return resident < 0 ? -1 : (int64_t)resident * (int64_t)sysconf(_SC_PAGESIZE);
}

uint64_t mc_now_ns(void) {
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (uint64_t)now.tv_sec * 1000000000u + (uint64_t)now.tv_nsec;
}
