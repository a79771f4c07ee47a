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
    /* W8: the time of each phase (subscribe, deliver, dispose), summed over
     * the rounds. */
    uint64_t phase_ns[3];
} bench_sample;

/* The phases of a W8 round (probe_phase). */
enum { BENCH_SUBSCRIBE = 0, BENCH_DELIVER = 1, BENCH_DISPOSE = 2 };

/* What bench_report adds to a line: W6's bytes, W8's phases. */
enum { BENCH_BYTES = 1, BENCH_PHASES = 2 };

/* The probe a workload fills: begin/end around the timed section, `live` at
 * the point where W6's subscriptions are all alive, `phase` where a phase of
 * a W8 round starts. */
typedef struct bench_probe {
    mc_snapshot start;
    uint64_t start_ns;
    int64_t start_heap;
    int64_t start_rss;
    int saw_live;
    int phase;
    uint64_t phase_start_ns;
    bench_sample sample;
} bench_probe;

static inline void probe_begin(bench_probe *p) {
    memset(p, 0, sizeof *p);
    p->start_heap = mc_heap_in_use();
    p->start_rss = mc_rss_bytes();
    p->start = mc_read();
    p->phase = -1;
    p->start_ns = mc_now_ns();
}

/* Starts phase `phase` (BENCH_SUBSCRIBE...), ending the current one: one
 * clock read. */
static inline void probe_phase(bench_probe *p, int phase) {
    uint64_t ns = mc_now_ns();
    if (p->phase >= 0) {
        p->sample.phase_ns[p->phase] += ns - p->phase_start_ns;
    }
    p->phase = phase;
    p->phase_start_ns = ns;
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
    if (p->phase >= 0) {
        p->sample.phase_ns[p->phase] += ns - p->phase_start_ns;
    }
    if (!p->saw_live) {
        probe_counts(p);
    }
}

static inline int compare_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

#define BENCH_MAX_REPS 64

/* The median of `reps` figures, each divided by `units` (sorts `values`). */
static inline double bench_median(double *values, int reps) {
    qsort(values, (size_t)reps, sizeof values[0], compare_double);
    return values[reps / 2];
}

/* Prints the JSON line of a workload of `units` units: the median and
 * minimum time of `reps` timed samples (run with counting off) and the
 * allocations of one `counted` sample (run with counting on); `extras`
 * (BENCH_BYTES, BENCH_PHASES) adds W6's bytes or W8's phase medians. */
static inline void bench_report(const char *impl, const char *workload, const char *unit, double units,
                                const bench_sample *samples, int reps, const bench_sample *counted,
                                int extras) {
    static const char *const phase_names[3] = { "subscribe", "deliver", "dispose" };
    double ns[BENCH_MAX_REPS];
    int i, phase;
    for (i = 0; i < reps; i++) {
        ns[i] = (double)samples[i].ns / units;
    }
    bench_median(ns, reps);
    printf("{\"impl\":\"%s\",\"workload\":\"%s\",\"unit\":\"%s\",\"units\":%.0f,\"reps\":%d,"
           "\"ns_median\":%.4f,\"ns_min\":%.4f,\"allocs_per_unit\":%.4f,\"reallocs_per_unit\":%.4f",
           impl, workload, unit, units, reps, ns[reps / 2], ns[0],
           (double)counted->mallocs / units, (double)counted->reallocs / units);
    if (extras & BENCH_PHASES) {
        for (phase = 0; phase < 3; phase++) {
            double phase_ns[BENCH_MAX_REPS];
            for (i = 0; i < reps; i++) {
                phase_ns[i] = (double)samples[i].phase_ns[phase] / units;
            }
            printf(",\"%s_ns_median\":%.4f", phase_names[phase], bench_median(phase_ns, reps));
        }
    }
    if (extras & BENCH_BYTES) {
        printf(",\"live_bytes_per_unit\":%.4f,\"heap_bytes_per_unit\":%.4f,\"rss_bytes_per_unit\":%.4f",
               (double)counted->live_bytes / units, (double)counted->heap_bytes / units,
               (double)counted->rss_bytes / units);
    }
    printf(",\"checksum\":\"ok\"}\n");
    fflush(stdout);
}

/* Runs `call` (which fills `probe`) for a warm-up and `reps` timed samples
 * with counting off, then once counted, and reports. */
#define BENCH_RUN(impl, id, unit, units, extras, expected, probe, call)       \
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
        bench_report(impl, id, unit, (double)(units), samples_, reps, &counted_, extras); \
    } while (0)

/* The order in which W8 disposes: first-made first, last-made first, or a
 * fixed random permutation. */
typedef enum dispose_order { ORDER_FIRST, ORDER_LAST, ORDER_RANDOM } dispose_order;

static const char *const ORDER_NAMES[3] = { "first", "last", "random" };

/* SplitMix64 (Steele, Lea and Flood), as BenchKit's. */
static inline uint64_t splitmix64(uint64_t *state) {
    uint64_t z = (*state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

/* The indices 0..<n in `order` (malloc'd): the same permutation as
 * BenchKit's DisposeOrder.permutation (Fisher-Yates from the end, SplitMix64
 * seeded 0x5EED, j = next() % (i + 1)). */
static inline size_t *dispose_permutation(size_t n, dispose_order order) {
    size_t *indices = (size_t *)malloc((n ? n : 1) * sizeof *indices), i;
    uint64_t state = 0x5EED;
    for (i = 0; i < n; i++) {
        indices[i] = order == ORDER_LAST ? n - 1 - i : i;
    }
    if (order == ORDER_RANDOM) {
        for (i = n; i-- > 1;) {
            size_t j = (size_t)(splitmix64(&state) % (uint64_t)(i + 1)), t = indices[i];
            indices[i] = indices[j];
            indices[j] = t;
        }
    }
    return indices;
}

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

/* The check mode (make bench-check): one figure, as a JSON line; figures
 * are differences between two sizes (see AllocCheck). */
static inline void check_line(const char *name, double value) {
    printf("{\"check\":\"%s\",\"value\":%.4f}\n", name, value);
}

/* The allocations (malloc-family calls) of a probe's sample. */
static inline int64_t allocs_of(const bench_probe *p) {
    return (int64_t)(p->sample.mallocs + p->sample.reallocs);
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
