/* Shared helpers of the C benchmark programs: repetitions, medians and the
 * JSON lines Benchmarks/run.py reads. The allocation counter is
 * Sources/MallocCounter (compiled into each program; see its header). */
#ifndef BENCH_H
#define BENCH_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "MallocCounter.h"

/* What one repetition saw in its timed section. */
typedef struct bench_sample {
    uint64_t ns;
    uint64_t mallocs;
    uint64_t reallocs;
    int64_t live_bytes;
    int64_t heap_bytes;
    int64_t rss_bytes;
} bench_sample;

/* The probe a workload fills: begin/end around the timed section, `live` at
 * the point where W6's subscriptions are all alive. */
typedef struct bench_probe {
    mc_snapshot start;
    uint64_t start_ns;
    int64_t start_heap;
    int64_t start_rss;
    int saw_live;
    bench_sample sample;
} bench_probe;

static inline void probe_begin(bench_probe *p) {
    memset(p, 0, sizeof *p);
    p->start_heap = mc_heap_in_use();
    p->start_rss = mc_rss_bytes();
    p->start = mc_read();
    p->start_ns = mc_now_ns();
}

static inline void probe_counts(bench_probe *p) {
    mc_snapshot now = mc_read();
    p->sample.mallocs = now.mallocs - p->start.mallocs;
    p->sample.reallocs = now.reallocs - p->start.reallocs;
    p->sample.live_bytes = now.live_bytes - p->start.live_bytes;
}

static inline void probe_live(bench_probe *p) {
    probe_counts(p);
    p->sample.heap_bytes = mc_heap_in_use() - p->start_heap;
    p->sample.rss_bytes = mc_rss_bytes() - p->start_rss;
    p->saw_live = 1;
}

static inline void probe_end(bench_probe *p) {
    uint64_t ns = mc_now_ns();
    p->sample.ns = ns - p->start_ns;
    if (!p->saw_live) {
        probe_counts(p);
    }
}

static inline int compare_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

#define BENCH_MAX_REPS 64

/* Prints the JSON line of a workload of `units` units: the median and
 * minimum time of `reps` timed samples (run with counting off) and the
 * allocations of one `counted` sample (run with counting on). */
static inline void bench_report(const char *impl, const char *workload, const char *unit, double units,
                                const bench_sample *samples, int reps, const bench_sample *counted,
                                int with_bytes) {
    double ns[BENCH_MAX_REPS];
    int i;
    for (i = 0; i < reps; i++) {
        ns[i] = (double)samples[i].ns / units;
    }
    qsort(ns, (size_t)reps, sizeof ns[0], compare_double);
    printf("{\"impl\":\"%s\",\"workload\":\"%s\",\"unit\":\"%s\",\"units\":%.0f,\"reps\":%d,"
           "\"ns_median\":%.4f,\"ns_min\":%.4f,\"allocs_per_unit\":%.4f,\"reallocs_per_unit\":%.4f",
           impl, workload, unit, units, reps, ns[reps / 2], ns[0],
           (double)counted->mallocs / units, (double)counted->reallocs / units);
    if (with_bytes) {
        printf(",\"live_bytes_per_unit\":%.4f,\"heap_bytes_per_unit\":%.4f,\"rss_bytes_per_unit\":%.4f",
               (double)counted->live_bytes / units, (double)counted->heap_bytes / units,
               (double)counted->rss_bytes / units);
    }
    printf(",\"checksum\":\"ok\"}\n");
    fflush(stdout);
}

/* Runs `call` (which fills `probe`) for a warm-up and `reps` timed samples
 * with counting off, then once counted, and reports. */
#define BENCH_RUN(impl, id, unit, units, with_bytes, expected, probe, call)       \
    do {                                                                          \
        bench_sample samples_[BENCH_MAX_REPS], counted_;                          \
        int64_t expected_ = (expected);                                           \
        int r_;                                                                   \
        memset(&(probe), 0, sizeof(probe));                                       \
        mc_set_enabled(0);                                                        \
        bench_expect(impl, id, (call), expected_); /* warm-up */                  \
        for (r_ = 0; r_ < reps; r_++) {                                           \
            bench_expect(impl, id, (call), expected_);                            \
            samples_[r_] = (probe).sample;                                        \
        }                                                                         \
        mc_set_enabled(1);                                                        \
        bench_expect(impl, id, (call), expected_);                                \
        counted_ = (probe).sample;                                                \
        mc_set_enabled(0);                                                        \
        bench_report(impl, id, unit, (double)(units), samples_, reps, &counted_, with_bytes); \
    } while (0)

/* Fails the run on a wrong checksum. */
static inline void bench_expect(const char *impl, const char *workload, int64_t got, int64_t expected) {
    if (got != expected) {
        printf("{\"impl\":\"%s\",\"workload\":\"%s\",\"error\":\"checksum %lld != expected %lld\"}\n",
               impl, workload, (long long)got, (long long)expected);
        fflush(stdout);
        exit(1);
    }
}

/* Reads `--reps N` (default 5, at most BENCH_MAX_REPS). */
static inline int bench_reps(int argc, char **argv) {
    int i, reps = 5;
    for (i = 1; i + 1 < argc; i++) {
        if (strcmp(argv[i], "--reps") == 0) {
            reps = atoi(argv[i + 1]);
        }
    }
    if (reps < 1) {
        reps = 1;
    }
    if (reps > BENCH_MAX_REPS) {
        reps = BENCH_MAX_REPS;
    }
    return reps;
}

static inline int bench_has_flag(int argc, char **argv, const char *flag) {
    int i;
    for (i = 1; i < argc; i++) {
        if (strcmp(argv[i], flag) == 0) {
            return 1;
        }
    }
    return 0;
}

#endif
