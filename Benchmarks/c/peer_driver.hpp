/* What the C++ peers' benchmark programs (bench_rxcpp.cpp, bench_rpp.cpp)
 * share: the sizes of Benchmarks/README.md, the checksums computed plainly,
 * the sink's arithmetic, the command line (--reps N, --divide N,
 * --workloads W1,W2b) and the JSON lines of bench.h. Each program defines
 * its workloads (`struct peer_workloads` below) in its library's own idiom
 * and calls peer_main. No SignalKit code is involved.
 *
 * The workloads: W1, W2 (the mapped observable built once, as our W2), W2b
 * (built per cycle), W3, W4 (map to a one-value observable, switch to the
 * latest), W6 and W6b (as W2 and W2b, kept alive), W7 (hop to a serial
 * worker), and the operators a user chains (issue 41): W5 (two subjects
 * combined, the latest of each), W5z (two subjects zipped), W5s (a subject
 * through scan), W3s (a subject shared by 100 subscribers). */
#ifndef PEER_DRIVER_HPP
#define PEER_DRIVER_HPP

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <exception>
#include <tuple>

#include "bench.h"

namespace peer {

/* Wrapping addition, as the spec asks of sinks. */
inline int64_t wrapping_add(int64_t a, int64_t b) {
    return static_cast<int64_t>(static_cast<uint64_t>(a) + static_cast<uint64_t>(b));
}

/* W1: map +1, keep the even, map *2, summed. */
inline int64_t expected_w1(int64_t n) {
    int64_t sum = 0;
    for (int64_t i = 0; i < n; i++) {
        if ((i + 1) % 2 == 0) {
            sum = wrapping_add(sum, (i + 1) * 2);
        }
    }
    return sum;
}

/* W2, W2b: the values i + 1 of the cycles i where i % every == 0. */
inline int64_t expected_w2(int64_t cycles, int64_t every) {
    int64_t sum = 0;
    for (int64_t i = 0; i < cycles; i++) {
        if (i % every == 0) {
            sum = wrapping_add(sum, i + 1);
        }
    }
    return sum;
}

inline int64_t sum_below(int64_t n) {
    int64_t sum = 0;
    for (int64_t i = 0; i < n; i++) {
        sum = wrapping_add(sum, i);
    }
    return sum;
}

/* W5: value i into subject i % 2; once both have a value, each put emits
 * the latest of both, summed. */
inline int64_t expected_w5(int64_t n) {
    int64_t latest[2] = { 0, 0 }, sum = 0;
    bool seen[2] = { false, false };
    for (int64_t i = 0; i < n; i++) {
        latest[i % 2] = i;
        seen[i % 2] = true;
        if (seen[0] && seen[1]) {
            sum = wrapping_add(sum, wrapping_add(latest[0], latest[1]));
        }
    }
    return sum;
}

/* W5z: value i into subject i % 2, pairs summed: each odd value and the
 * even one before it. */
inline int64_t expected_w5zip(int64_t n) { return sum_below(n - n % 2); }

/* W5s: the running sums of 0..<n, added up. */
inline int64_t expected_w5scan(int64_t n) {
    int64_t running = 0, sum = 0;
    for (int64_t i = 0; i < n; i++) {
        running = wrapping_add(running, i);
        sum = wrapping_add(sum, running);
    }
    return sum;
}

/* W5's and W5z's sink: adds both values of each pair into `sum`. */
inline auto summing_pairs(int64_t &sum) {
    return [&sum](const std::tuple<int64_t, int64_t> &pair) {
        sum = wrapping_add(sum, wrapping_add(std::get<0>(pair), std::get<1>(pair)));
    };
}

/* W5's and W5z's puts, timed: value i into `first` when i is even, into
 * `second` otherwise (each an input with `on_next`). */
template <typename First, typename Second>
void put_alternating(int64_t n, First &first, Second &second, bench_probe *p) {
    probe_begin(p);
    for (int64_t i = 0; i < n; i++) {
        if (i % 2 == 0) {
            first.on_next(i);
        } else {
            second.on_next(i);
        }
    }
    probe_end(p);
}

/* A workload run: one repetition, the probe filled, the checksum returned. */
typedef int64_t (*w1_fn)(int64_t n, bench_probe *p);
typedef int64_t (*w2_fn)(int64_t cycles, int64_t every, bench_probe *p);
typedef int64_t (*w3_fn)(int64_t sinks, int64_t puts, bench_probe *p);

struct peer_workloads {
    const char *impl;
    w1_fn w1;
    w2_fn w2;  /* the mapped observable built once */
    w2_fn w2b; /* built per cycle */
    w3_fn w3;
    w1_fn w4;
    w1_fn w6;  /* `n` live subscriptions of the observable built once */
    w1_fn w6b; /* built per subscription */
    w1_fn w7;
    /* At most this many W6 and W6b subscriptions (0: the standard 100,000).
     * Both peers' subjects copy their list of observers on every subscribe
     * (copy on write), so W6 is quadratic in the count for them (RxCpp: 39
     * us per subscription at 1,000, 1.3 ms at 10,000 on the shared machine;
     * RPP 81 us at 1,000): 100,000 would take hours. The bytes per
     * subscription do not depend on the count (the list's slot aside: one
     * pointer or two per observer). */
    int64_t w6_max;
    w1_fn w5z;  /* W5z: zip of two subjects, `n` puts */
    w1_fn w5s;  /* W5s: scan over a subject, `n` puts */
    w3_fn w3s;  /* W3s: a subject shared by `sinks` subscribers, `puts` puts */
    w1_fn w5;   /* W5: combine-latest of two subjects, `n` puts */
};

inline const char *selected_workloads = nullptr;

/* Whether `id` is in the --workloads list (all when there is none). */
inline bool selected(const char *id) {
    if (selected_workloads == nullptr) {
        return true;
    }
    size_t length = strlen(id);
    for (const char *item = selected_workloads; *item != '\0';) {
        size_t item_length = strcspn(item, ",");
        if (item_length == length && strncmp(item, id, length) == 0) {
            return true;
        }
        item += item_length + (item[item_length] == ',');
    }
    return false;
}

inline int64_t at_least(int64_t value, int64_t minimum) { return value < minimum ? minimum : value; }

#define PEER_RUN(impl, id, unit, units, extras, expected, call)                 \
    do {                                                                        \
        if (peer::selected(id)) {                                               \
            BENCH_RUN(impl, id, unit, units, extras, expected, probe_, call);   \
        }                                                                       \
    } while (0)

inline int peer_main(int argc, char **argv, const peer_workloads &w) {
    int reps = bench_reps(argc, argv);
    bench_probe probe_;
    int64_t W1_EVENTS = 5000000, W2_CYCLES = 1000000, W2_EVERY = 100000, W3_SINKS = 1000, W3_PUTS = 10000,
            W4_EVENTS = 1000000, W6_SUBSCRIPTIONS = 100000, W7_EVENTS = 1000000, W5_PUTS = 1000000,
            W3S_SINKS = 100, W3S_PUTS = 100000;
    for (int i = 1; i + 1 < argc; i++) {
        if (strcmp(argv[i], "--divide") == 0 && atoi(argv[i + 1]) > 1) {
            int64_t d = atoi(argv[i + 1]);
            W1_EVENTS = at_least(W1_EVENTS / d, 1);
            W2_CYCLES = at_least(W2_CYCLES / d, 1);
            W2_EVERY = at_least(W2_EVERY / d, 1);
            W3_PUTS = at_least(W3_PUTS / d, 1);
            W4_EVENTS = at_least(W4_EVENTS / d, 1);
            W6_SUBSCRIPTIONS = at_least(W6_SUBSCRIPTIONS / d, 1);
            W7_EVENTS = at_least(W7_EVENTS / d, 1);
            W5_PUTS = at_least(W5_PUTS / d, 2);
            W3S_PUTS = at_least(W3S_PUTS / d, 1);
        } else if (strcmp(argv[i], "--workloads") == 0) {
            selected_workloads = argv[i + 1];
        }
    }
    if (w.w6_max > 0 && W6_SUBSCRIPTIONS > w.w6_max) {
        W6_SUBSCRIPTIONS = w.w6_max;
    }
    try {
        PEER_RUN(w.impl, "W1", "event", W1_EVENTS, 0, expected_w1(W1_EVENTS), w.w1(W1_EVENTS, &probe_));
        PEER_RUN(w.impl, "W2", "cycle", W2_CYCLES, 0, expected_w2(W2_CYCLES, W2_EVERY), w.w2(W2_CYCLES, W2_EVERY, &probe_));
        PEER_RUN(w.impl, "W2b", "cycle", W2_CYCLES, 0, expected_w2(W2_CYCLES, W2_EVERY), w.w2b(W2_CYCLES, W2_EVERY, &probe_));
        PEER_RUN(w.impl, "W3", "delivery", W3_SINKS * W3_PUTS, 0, W3_SINKS * sum_below(W3_PUTS),
                 w.w3(W3_SINKS, W3_PUTS, &probe_));
        PEER_RUN(w.impl, "W4", "event", W4_EVENTS, 0, sum_below(W4_EVENTS), w.w4(W4_EVENTS, &probe_));
        PEER_RUN(w.impl, "W6", "subscription", W6_SUBSCRIPTIONS, BENCH_BYTES, 2 * W6_SUBSCRIPTIONS,
                 w.w6(W6_SUBSCRIPTIONS, &probe_));
        PEER_RUN(w.impl, "W6b", "subscription", W6_SUBSCRIPTIONS, BENCH_BYTES, 2 * W6_SUBSCRIPTIONS,
                 w.w6b(W6_SUBSCRIPTIONS, &probe_));
        PEER_RUN(w.impl, "W7", "event", W7_EVENTS, 0, sum_below(W7_EVENTS), w.w7(W7_EVENTS, &probe_));
        PEER_RUN(w.impl, "W5", "put", W5_PUTS, 0, expected_w5(W5_PUTS), w.w5(W5_PUTS, &probe_));
        PEER_RUN(w.impl, "W5z", "put", W5_PUTS, 0, expected_w5zip(W5_PUTS), w.w5z(W5_PUTS, &probe_));
        PEER_RUN(w.impl, "W5s", "put", W5_PUTS, 0, expected_w5scan(W5_PUTS), w.w5s(W5_PUTS, &probe_));
        PEER_RUN(w.impl, "W3s", "delivery", W3S_SINKS * W3S_PUTS, 0, W3S_SINKS * sum_below(W3S_PUTS),
                 w.w3s(W3S_SINKS, W3S_PUTS, &probe_));
    } catch (const std::exception &e) {
        printf("{\"impl\":\"%s\",\"workload\":\"-\",\"error\":\"exception: %s\"}\n", w.impl, e.what());
        return 1;
    }
    return 0;
}

}  // namespace peer

#endif
