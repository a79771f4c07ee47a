/* An allocation counter for benchmark processes, without LD_PRELOAD.
 *
 * The object file that defines malloc, calloc, realloc, free, posix_memalign,
 * aligned_alloc and memalign is linked into the benchmark executable; the
 * dynamic linker binds every library's calls (the Swift runtime's,
 * libdispatch's, libsignalkit.so's) to the executable's definitions first, so
 * they all land here. Each forwards to glibc's __libc_* entry points and
 * counts: calls, and live bytes as malloc_usable_size() reports them (so a
 * realloc or free is matched exactly). Counting is process-wide and
 * thread-safe (relaxed atomics). Compiled into the C programs of Benchmarks/c
 * as well. */
#ifndef MALLOC_COUNTER_H
#define MALLOC_COUNTER_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct mc_snapshot {
    uint64_t mallocs;     /* malloc, calloc, posix_memalign, aligned_alloc, memalign */
    uint64_t reallocs;    /* realloc with a non-NULL pointer */
    uint64_t frees;       /* free of a non-NULL pointer */
    int64_t live_bytes;   /* usable bytes allocated and not yet freed */
} mc_snapshot;

/* Turns counting on (the default) or off. Timed repetitions run with it off,
 * so the counter's atomics do not weigh on the times; live_bytes is only
 * meaningful across a section that ran entirely with counting on. */
void mc_set_enabled(int on);

/* The counters now. Thread-safe. */
mc_snapshot mc_read(void);

/* Heap in use from glibc (mallinfo2().uordblks) and resident set size
 * (/proc/self/statm), in bytes. */
int64_t mc_heap_in_use(void);
int64_t mc_rss_bytes(void);

/* CLOCK_MONOTONIC in nanoseconds. */
uint64_t mc_now_ns(void);

#ifdef __cplusplus
}
#endif

#endif
