/* W1-W3, W2b, W6 and W6b of Benchmarks/README.md through the C++ header (signalkit.hpp over
 * libsignalkit.so, through pkg-config against the staged install): the same
 * pipelines, sizes, checksums and JSON lines as bench_capi.c, with lambdas
 * for every callback (typed int64_t parameters, converted by the header) and
 * RAII handles; impl "cpp". Compare with bench_capi's lines of the same run
 * (Benchmarks/README.md): the header is meant to add nothing per event.
 *
 *   bench_cpp [--reps N] [--workloads W1,W3] [--divide N]
 *   bench_cpp --check     W1's, W2's and W2b's allocations per unit, W6's and
 *                         W6b's bytes per subscription (make bench-check)
 *   bench_cpp --instructions
 *                         the cost table's rows, for callgrind (run.py check; below)
 *
 * bench.h is C; it compiles as C++ unchanged. */
#include <signalkit.hpp>
#include <signalkit_test.hpp>
#include <valgrind/callgrind.h>

#include <cstdint>
#include <vector>

#include "CostRows.h"
#include "bench.h"

namespace sk = signalkit;

#define BENCH_IMPL "cpp"

/* Wrapping addition, as the spec asks of sinks. */
static int64_t wrapping_add(int64_t a, int64_t b) {
    return static_cast<int64_t>(static_cast<uint64_t>(a) + static_cast<uint64_t>(b));
}

static int64_t expected_w1(int64_t n) {
    int64_t sum = 0;
    for (int64_t i = 0; i < n; i++) {
        if ((i + 1) % 2 == 0) {
            sum = wrapping_add(sum, (i + 1) * 2);
        }
    }
    return sum;
}

static int64_t expected_w2(int64_t cycles, int64_t every) {
    int64_t sum = 0;
    for (int64_t i = 0; i < cycles; i++) {
        if (i % every == 0) {
            sum = wrapping_add(sum, i + 1);
        }
    }
    return sum;
}

static int64_t sum_below(int64_t n) {
    int64_t sum = 0;
    for (int64_t i = 0; i < n; i++) {
        sum = wrapping_add(sum, i);
    }
    return sum;
}

/* A cold synchronous source of 0..<n, then completion. */
static sk::signal range(int64_t n) {
    return sk::create([n](const sk::subscriber &s) {
        for (int64_t i = 0; i < n; i++) {
            s.put_next(i);
        }
        s.put_completion();
    });
}

/* W1: build, subscribe, run, dispose. */
static int64_t w1(int64_t n, bench_probe *p) {
    int64_t sum = 0;
    probe_begin(p);
    {
        auto chain = range(n) | sk::map([](int64_t x) { return x + 1; })
                     | sk::filter([](int64_t x) { return x % 2 == 0; })
                     | sk::map([](int64_t x) { return x * 2; });
        chain.start([&sum](int64_t x) { sum = wrapping_add(sum, x); }).dispose();
    }
    probe_end(p);
    return sum;
}

/* W2: subscribe the (prebuilt) mapped pipe signal, maybe put, dispose. */
static int64_t w2(int64_t cycles, int64_t every, bench_probe *p) {
    int64_t sum = 0;
    auto pipe = sk::pipe::create();
    auto mapped = pipe.signal() | sk::map([](int64_t x) { return x + 1; });
    probe_begin(p);
    for (int64_t i = 0; i < cycles; i++) {
        auto subscription = mapped.start([&sum](int64_t x) { sum = wrapping_add(sum, x); });
        if (i % every == 0) {
            pipe.put(i);
        }
        subscription.dispose();
    }
    pipe.put(1000000000);
    probe_end(p);
    return sum;
}

/* W2b: W2 with the pipeline built per cycle where the subscription is made
 * (the signal and the mapped signal are temporaries, released once the
 * subscription has started), maybe put, dispose. */
static int64_t w2b(int64_t cycles, int64_t every, bench_probe *p) {
    int64_t sum = 0;
    auto pipe = sk::pipe::create();
    probe_begin(p);
    for (int64_t i = 0; i < cycles; i++) {
        auto subscription = (pipe.signal() | sk::map([](int64_t x) { return x + 1; }))
                                .start([&sum](int64_t x) { sum = wrapping_add(sum, x); });
        if (i % every == 0) {
            pipe.put(i);
        }
        subscription.dispose();
    }
    pipe.put(1000000000);
    probe_end(p);
    return sum;
}

/* W6: `count` live subscriptions of the (prebuilt) mapped pipe signal,
 * then one put; W6b (`per_subscription`): the pipeline built for each. The
 * vector holding the subscriptions is reserved before the measurement. */
static int64_t w6(int64_t count, bool per_subscription, bench_probe *p) {
    int64_t sum = 0;
    auto pipe = sk::pipe::create();
    auto mapped = pipe.signal() | sk::map([](int64_t x) { return x + 1; });
    std::vector<sk::disposable> subscriptions;
    subscriptions.reserve(static_cast<size_t>(count));
    auto sink = [&sum](int64_t x) { sum = wrapping_add(sum, x); };
    probe_begin(p);
    for (int64_t i = 0; i < count; i++) {
        if (per_subscription) {
            subscriptions.push_back((pipe.signal() | sk::map([](int64_t x) { return x + 1; })).start(sink));
        } else {
            subscriptions.push_back(mapped.start(sink));
        }
    }
    probe_live(p);
    pipe.put(1);
    probe_end(p);
    for (auto &s : subscriptions) {
        s.dispose();
    }
    return sum;
}

/* W3: `sinks` sinks on one pipe; the puts only are timed. */
static int64_t w3(int64_t sinks, int64_t puts, bench_probe *p) {
    int64_t sum = 0;
    auto pipe = sk::pipe::create();
    auto signal = pipe.signal();
    std::vector<sk::disposable> subscriptions;
    subscriptions.reserve(static_cast<size_t>(sinks));
    for (int64_t i = 0; i < sinks; i++) {
        subscriptions.push_back(signal.start([&sum](int64_t x) { sum = wrapping_add(sum, x); }));
    }
    probe_begin(p);
    for (int64_t i = 0; i < puts; i++) {
        pipe.put(i);
    }
    probe_end(p);
    for (auto &s : subscriptions) {
        s.dispose();
    }
    return sum;
}

static int64_t W1_EVENTS = 5000000, W2_CYCLES = 1000000, W2_EVERY = 100000, W3_SINKS = 1000, W3_PUTS = 10000,
               W6_SUBSCRIPTIONS = 100000;

static int64_t at_least(int64_t value, int64_t minimum) { return value < minimum ? minimum : value; }

static const char *selected_workloads;

static int selected(const char *id) { return selected_workloads == nullptr || strstr(selected_workloads, id) != nullptr; }

#define RUN(id, unit, units, with_bytes, expected, call)                                          \
    do {                                                                                          \
        if (selected(id)) {                                                                       \
            BENCH_RUN(BENCH_IMPL, id, unit, units, with_bytes, expected, probe_, call);           \
        }                                                                                         \
    } while (0)

/* The check mode (make bench-check): allocations per unit, differences
 * between two sizes as in bench_capi --check. */
static void run_checks() {
    bench_probe a, b;
    bench_expect("cpp", "W1", w1(100000, &a), expected_w1(100000));
    bench_expect("cpp", "W1", w1(200000, &b), expected_w1(200000));
    check_line("cpp.w1.allocs_per_event", static_cast<double>(allocs_of(&b) - allocs_of(&a)) / 100000);
    bench_expect("cpp", "W2", w2(10000, 1000000, &a), expected_w2(10000, 1000000));
    bench_expect("cpp", "W2", w2(20000, 1000000, &b), expected_w2(20000, 1000000));
    check_line("cpp.w2.allocs_per_cycle", static_cast<double>(allocs_of(&b) - allocs_of(&a)) / 10000);
    bench_expect("cpp", "W2b", w2b(10000, 1000000, &a), expected_w2(10000, 1000000));
    bench_expect("cpp", "W2b", w2b(20000, 1000000, &b), expected_w2(20000, 1000000));
    check_line("cpp.w2b.allocs_per_cycle", static_cast<double>(allocs_of(&b) - allocs_of(&a)) / 10000);
    for (bool per_subscription : {false, true}) {
        const char *name = per_subscription ? "W6b" : "W6";
        bench_expect("cpp", name, w6(100, per_subscription, &a), 200);
        bench_expect("cpp", name, w6(10000, per_subscription, &a), 20000);
        bench_expect("cpp", name, w6(20000, per_subscription, &b), 40000);
        check_line(per_subscription ? "cpp.w6b.bytes_per_subscription" : "cpp.w6.bytes_per_subscription",
                   static_cast<double>(b.sample.live_bytes - a.sample.live_bytes) / 10000);
    }
    fflush(stdout);
}

/* OP (issue 41): the cost table's C++ rows, as bench_capi.c's C rows (one
 * operator between a pipe and a plain subscriber, a lambda taking a
 * value_view; CostRows.h's arguments; 2,000 and 4,000 puts counted under
 * callgrind as "op:ROW n" and "op:ROW 2n"; allocations and deliveries per
 * put printed). Every operator's row comes from cost_operators.hpp, which
 * tools/api/operators.py writes from the operator table and the shapes; the
 * two rows that are no operator are below. */
struct cost_args {
    const char *row;
    sk::signal s;
    mutable sk::pipe other_pipe;
    mutable sk::test::virtual_queue used_queue;
    mutable bool has_queue = false;

    std::size_t count() const { return static_cast<std::size_t>(cost_count(row)); }
    bool (*predicate() const)(int64_t) {
        if (cost_predicate_holds(row)) {
            return [](int64_t) { return true; };
        }
        return [](int64_t) { return false; };
    }
    int64_t (*map() const)(int64_t) {
        if (cost_constant_key(row)) {
            return [](int64_t) -> int64_t { return 0; };
        }
        return [](int64_t x) { return x + 1; };
    }
    int64_t (*fold() const)(int64_t, int64_t) {
        return [](int64_t a, int64_t b) { return wrapping_add(a, b); };
    }
    void (*look() const)(int64_t) {
        return [](int64_t) {};
    }
    void (*work() const)() {
        return [] {};
    }
    /* The signal function's: a one-value signal (catch's: never called). */
    sk::signal (*inner() const)(int64_t) {
        return [](int64_t x) { return sk::signal::single(sk::value(x)); };
    }
    sk::take_action (*action() const)(int64_t) {
        return [](int64_t) { return sk::take_pass; };
    }
    /* deferred's: the pipe's signal at each start. */
    auto make() const {
        sk::signal source = s;
        return [source] { return source; };
    }
    sk::signal other() const {
        other_pipe = sk::pipe::create(cost_replaying_other(row));
        if (cost_replaying_other(row)) {
            other_pipe.put(0);
        }
        return other_pipe.signal();
    }
    const sk::queue &queue() const {
        if (!has_queue) {
            used_queue = sk::test::virtual_queue::create("cost");
            has_queue = true;
        }
        return used_queue;
    }
};

struct cost_operator {
    const char *row;
    bool signals; /* its input is a signal of signals: each put is one */
    sk::signal (*build)(const cost_args &);
};

#include "cost_operators.hpp"

/* The rows that are no operator: the bare pipe (the base every row
 * includes), buffer_count of 100 and deliver_on with a dispatch per value
 * (cost_advance_each_put). */
static const cost_operator cost_by_hand[] = {
    {"bare", false, [](const cost_args &a) { return a.s; }},
    {"buffer_count_100", false, [](const cost_args &a) { return a.s.buffer_count(100); }},
    {"deliver_on_each", false, [](const cost_args &a) { return a.s.deliver_on(a.queue()); }},
};

/* One row: build, start, `puts` puts, dispose; the values delivered. */
static int64_t cost_row(const cost_operator &op, int64_t puts) {
    int64_t deliveries = 0;
    auto pipe = sk::pipe::create();
    cost_args a{op.row, pipe.signal(), sk::pipe(), sk::test::virtual_queue(), false};
    bool signals = op.signals;
    sk::value one_signal = signals ? sk::value(sk::signal::single(sk::value(1))) : sk::value();
    sk::signal made = op.build(a);
    auto subscription = made.start([&deliveries](sk::value_view) { deliveries++; });
    if (a.has_queue) {
        a.used_queue.advance_by(COST_ADVANCE);
    }
    // Decided once: a string compare per put would count in every row.
    const bool advance_each = cost_advance_each_put(op.row);
    for (int64_t i = 0; i < puts; i++) {
        if (signals) {
            pipe.put(one_signal);
        } else {
            pipe.put(i);
        }
        if (advance_each) {
            a.used_queue.advance_by(COST_ADVANCE);
        }
    }
    if (a.has_queue) {
        a.used_queue.advance_by(COST_ADVANCE);
    }
    subscription.dispose();
    return deliveries;
}

static void cost_measure(const cost_operator &op) {
    char label[80], check[120];
    cost_row(op, 100);
    snprintf(label, sizeof label, "op:%s n", op.row);
    mc_snapshot s0 = mc_read();
    CALLGRIND_ZERO_STATS;
    CALLGRIND_TOGGLE_COLLECT;
    int64_t a = cost_row(op, COST_PUTS);
    CALLGRIND_TOGGLE_COLLECT;
    CALLGRIND_DUMP_STATS_AT(label);
    mc_snapshot s1 = mc_read();
    snprintf(label, sizeof label, "op:%s 2n", op.row);
    CALLGRIND_ZERO_STATS;
    CALLGRIND_TOGGLE_COLLECT;
    int64_t b = cost_row(op, 2 * COST_PUTS);
    CALLGRIND_TOGGLE_COLLECT;
    CALLGRIND_DUMP_STATS_AT(label);
    mc_snapshot s2 = mc_read();
    int64_t expected = int64_t(COST_PUTS) * cost_deliveries_hundredths(op.row) / 100;
    if (b - a != expected) {
        printf("{\"impl\":\"cpp\",\"workload\":\"op:%s\",\"error\":\"%lld more deliveries for %d more puts, expected %lld\"}\n",
               op.row, static_cast<long long>(b - a), COST_PUTS, static_cast<long long>(expected));
        fflush(stdout);
        exit(1);
    }
    snprintf(check, sizeof check, "cpp.op.%s.allocs_per_put", op.row);
    check_line(check, static_cast<double>(static_cast<int64_t>(s2.mallocs + s2.reallocs - s1.mallocs - s1.reallocs) -
                                          static_cast<int64_t>(s1.mallocs + s1.reallocs - s0.mallocs - s0.reallocs)) /
                          COST_PUTS);
    printf("{\"row\":\"%s\",\"impl\":\"cpp\",\"deliveries_per_put\":%.2f}\n", op.row,
           static_cast<double>(b - a) / COST_PUTS);
}

static void run_operator_instructions() {
    for (const cost_operator &op : cost_by_hand) {
        cost_measure(op);
    }
    for (const cost_operator &op : cost_operators) {
        cost_measure(op);
    }
    fflush(stdout);
}

int main(int argc, char **argv) {
    if (bench_has_flag(argc, argv, "--instructions")) {
        try {
            run_operator_instructions();
        } catch (const sk::error &e) {
            fprintf(stderr, "signalkit error %d: %s\n", e.code(), e.what());
            return 1;
        }
        return sk_live_objects() == 0 ? 0 : (fprintf(stderr, "live objects left: %ld\n", sk_live_objects()), 1);
    }
    if (bench_has_flag(argc, argv, "--check")) {
        try {
            run_checks();
        } catch (const sk::error &e) {
            fprintf(stderr, "signalkit error %d: %s\n", e.code(), e.what());
            return 1;
        }
        return sk_live_objects() == 0 ? 0 : (fprintf(stderr, "live objects left: %ld\n", sk_live_objects()), 1);
    }
    int reps = bench_reps(argc, argv);
    bench_probe probe_;
    for (int i = 1; i + 1 < argc; i++) {
        if (strcmp(argv[i], "--divide") == 0 && atoi(argv[i + 1]) > 1) {
            int64_t d = atoi(argv[i + 1]);
            W1_EVENTS = at_least(W1_EVENTS / d, 1);
            W2_CYCLES = at_least(W2_CYCLES / d, 1);
            W2_EVERY = at_least(W2_EVERY / d, 1);
            W3_PUTS = at_least(W3_PUTS / d, 1);
            W6_SUBSCRIPTIONS = at_least(W6_SUBSCRIPTIONS / d, 1);
        } else if (strcmp(argv[i], "--workloads") == 0) {
            selected_workloads = argv[i + 1];
        }
    }
    try {
        RUN("W1", "event", W1_EVENTS, 0, expected_w1(W1_EVENTS), w1(W1_EVENTS, &probe_));
        RUN("W2", "cycle", W2_CYCLES, 0, expected_w2(W2_CYCLES, W2_EVERY), w2(W2_CYCLES, W2_EVERY, &probe_));
        RUN("W2b", "cycle", W2_CYCLES, 0, expected_w2(W2_CYCLES, W2_EVERY), w2b(W2_CYCLES, W2_EVERY, &probe_));
        RUN("W3", "delivery", W3_SINKS * W3_PUTS, 0, W3_SINKS * sum_below(W3_PUTS), w3(W3_SINKS, W3_PUTS, &probe_));
        RUN("W6", "subscription", W6_SUBSCRIPTIONS, BENCH_BYTES, 2 * W6_SUBSCRIPTIONS, w6(W6_SUBSCRIPTIONS, false, &probe_));
        RUN("W6b", "subscription", W6_SUBSCRIPTIONS, BENCH_BYTES, 2 * W6_SUBSCRIPTIONS, w6(W6_SUBSCRIPTIONS, true, &probe_));
    } catch (const sk::error &e) {
        fprintf(stderr, "signalkit error %d: %s\n", e.code(), e.what());
        return 1;
    }
    if (sk_live_objects() != 0) {
        fprintf(stderr, "live objects left: %ld\n", sk_live_objects());
        return 1;
    }
    return 0;
}
