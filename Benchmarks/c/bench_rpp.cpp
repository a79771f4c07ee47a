/* The workloads of Benchmarks/README.md on ReactivePlusPlus 2.1.1
 * (header-only, C++20, an optional peer: mk/bench.mk builds this program
 * only when its headers are in Benchmarks/peers/rpp; see "The C++ peers" in
 * Benchmarks/README.md), written as an RPP user writes them, after its
 * documentation: a `rpp::subjects::publish_subject` as the hot source (its
 * `get_observer()` to put, its `get_observable()` to subscribe),
 * `rpp::source::create` for the cold source and `rpp::source::just` for
 * W4's inner observables, the operators piped with `|` (`rpp::ops::map`,
 * `filter`, `switch_on_next`, `observe_on(rpp::schedulers::new_thread{})`),
 * and `subscribe_with_disposable` where a subscription is disposed (its
 * `composite_disposable_wrapper`). Same sizes, checksums and JSON lines as
 * bench_capi (impl "rpp").
 *
 *   bench_rpp [--reps N] [--workloads W1,W2b] [--divide N] */
#include <rpp/rpp.hpp>

#include <semaphore.h>

#include <vector>

#include "peer_driver.hpp"

namespace {

using peer::wrapping_add;

/* A cold synchronous source of 0..<n, then completion. */
auto range(int64_t n) {
    return rpp::source::create<int64_t>([n](const auto &observer) {
        for (int64_t i = 0; i < n; i++) {
            observer.on_next(i);
        }
        observer.on_completed();
    });
}

/* W1: build, subscribe, run, dispose. */
int64_t w1(int64_t n, bench_probe *p) {
    int64_t sum = 0;
    probe_begin(p);
    (range(n) | rpp::ops::map([](int64_t x) { return x + 1; }) | rpp::ops::filter([](int64_t x) { return x % 2 == 0; })
     | rpp::ops::map([](int64_t x) { return x * 2; }))
        .subscribe_with_disposable([&sum](int64_t x) { sum = wrapping_add(sum, x); })
        .dispose();
    probe_end(p);
    return sum;
}

/* W2: the mapped observable built once; each cycle subscribes, maybe puts,
 * disposes; then one more put that must reach nobody. */
int64_t w2(int64_t cycles, int64_t every, bench_probe *p) {
    int64_t sum = 0;
    rpp::subjects::publish_subject<int64_t> subject;
    auto input = subject.get_observer();
    auto mapped = subject.get_observable() | rpp::ops::map([](int64_t x) { return x + 1; });
    probe_begin(p);
    for (int64_t i = 0; i < cycles; i++) {
        auto subscription = mapped.subscribe_with_disposable([&sum](int64_t x) { sum = wrapping_add(sum, x); });
        if (i % every == 0) {
            input.on_next(i);
        }
        subscription.dispose();
    }
    input.on_next(1000000000);
    probe_end(p);
    return sum;
}

/* W2b: W2 with the pipeline built where each subscription is made. */
int64_t w2b(int64_t cycles, int64_t every, bench_probe *p) {
    int64_t sum = 0;
    rpp::subjects::publish_subject<int64_t> subject;
    auto input = subject.get_observer();
    probe_begin(p);
    for (int64_t i = 0; i < cycles; i++) {
        auto subscription = (subject.get_observable() | rpp::ops::map([](int64_t x) { return x + 1; }))
                                .subscribe_with_disposable([&sum](int64_t x) { sum = wrapping_add(sum, x); });
        if (i % every == 0) {
            input.on_next(i);
        }
        subscription.dispose();
    }
    input.on_next(1000000000);
    probe_end(p);
    return sum;
}

/* W3: `sinks` sinks directly on the subject; the puts only are timed. */
int64_t w3(int64_t sinks, int64_t puts, bench_probe *p) {
    int64_t sum = 0;
    rpp::subjects::publish_subject<int64_t> subject;
    auto input = subject.get_observer();
    std::vector<rpp::composite_disposable_wrapper> subscriptions;
    for (int64_t i = 0; i < sinks; i++) {
        subscriptions.push_back(
            subject.get_observable().subscribe_with_disposable([&sum](int64_t x) { sum = wrapping_add(sum, x); }));
    }
    probe_begin(p);
    for (int64_t i = 0; i < puts; i++) {
        input.on_next(i);
    }
    probe_end(p);
    for (auto &s : subscriptions) {
        s.dispose();
    }
    return sum;
}

/* W4: the W1 source, each value mapped to a one-value observable (`just`),
 * switched to the latest. */
int64_t w4(int64_t n, bench_probe *p) {
    int64_t sum = 0;
    probe_begin(p);
    (range(n) | rpp::ops::map([](int64_t x) { return rpp::source::just(x); }) | rpp::ops::switch_on_next())
        .subscribe_with_disposable([&sum](int64_t x) { sum = wrapping_add(sum, x); })
        .dispose();
    probe_end(p);
    return sum;
}

/* W6 (`per_subscription` false) and W6b: `count` live subscriptions, then
 * one put of 1. The vector is reserved before the measurement. */
int64_t w6_shape(int64_t count, bool per_subscription, bench_probe *p) {
    int64_t sum = 0;
    rpp::subjects::publish_subject<int64_t> subject;
    auto input = subject.get_observer();
    auto mapped = subject.get_observable() | rpp::ops::map([](int64_t x) { return x + 1; });
    std::vector<rpp::composite_disposable_wrapper> subscriptions;
    subscriptions.reserve(static_cast<size_t>(count));
    auto sink = [&sum](int64_t x) { sum = wrapping_add(sum, x); };
    probe_begin(p);
    for (int64_t i = 0; i < count; i++) {
        if (per_subscription) {
            subscriptions.push_back(
                (subject.get_observable() | rpp::ops::map([](int64_t x) { return x + 1; })).subscribe_with_disposable(sink));
        } else {
            subscriptions.push_back(mapped.subscribe_with_disposable(sink));
        }
    }
    probe_live(p);
    input.on_next(1);
    probe_end(p);
    for (auto &s : subscriptions) {
        s.dispose();
    }
    return sum;
}

int64_t w6(int64_t count, bench_probe *p) { return w6_shape(count, false, p); }
int64_t w6b(int64_t count, bench_probe *p) { return w6_shape(count, true, p); }

/* W7: the subject observed on a new thread (RPP's serial worker), a summing
 * sink that posts a semaphore on the last value; the puts from the calling
 * thread, timed to the last delivery. */
int64_t w7(int64_t n, bench_probe *p) {
    int64_t sum = 0;
    sem_t done;
    sem_init(&done, 0, 0);
    rpp::subjects::publish_subject<int64_t> subject;
    auto input = subject.get_observer();
    auto subscription = (subject.get_observable() | rpp::ops::observe_on(rpp::schedulers::new_thread{}))
                            .subscribe_with_disposable([&sum, &done, n](int64_t x) {
                                sum = wrapping_add(sum, x);
                                if (x == n - 1) {
                                    sem_post(&done);
                                }
                            });
    probe_begin(p);
    for (int64_t i = 0; i < n; i++) {
        input.on_next(i);
    }
    while (sem_wait(&done) != 0) {
    }
    probe_end(p);
    subscription.dispose();
    sem_destroy(&done);
    return sum;
}

/* W5: two subjects combined, the latest of each (a tuple per emission),
 * value i into subject i % 2, a sink summing both; the puts only are
 * timed. */
int64_t w5(int64_t n, bench_probe *p) {
    int64_t sum = 0;
    rpp::subjects::publish_subject<int64_t> a, b;
    auto input_a = a.get_observer();
    auto input_b = b.get_observer();
    auto subscription = (a.get_observable() | rpp::ops::combine_latest(b.get_observable()))
                            .subscribe_with_disposable(peer::summing_pairs(sum));
    peer::put_alternating(n, input_a, input_b, p);
    subscription.dispose();
    return sum;
}

/* W5z: two subjects zipped (a tuple per pair), value i into subject i % 2,
 * a sink summing both; the puts only are timed. */
int64_t w5z(int64_t n, bench_probe *p) {
    int64_t sum = 0;
    rpp::subjects::publish_subject<int64_t> a, b;
    auto input_a = a.get_observer();
    auto input_b = b.get_observer();
    auto subscription = (a.get_observable() | rpp::ops::zip(b.get_observable()))
                            .subscribe_with_disposable(peer::summing_pairs(sum));
    peer::put_alternating(n, input_a, input_b, p);
    subscription.dispose();
    return sum;
}

/* W5s: a subject through scan (a running sum from 0) into a summing sink;
 * the puts only are timed. */
int64_t w5s(int64_t n, bench_probe *p) {
    int64_t sum = 0;
    rpp::subjects::publish_subject<int64_t> subject;
    auto input = subject.get_observer();
    auto subscription =
        (subject.get_observable()
         | rpp::ops::scan(int64_t{0}, [](int64_t &&running, int64_t x) { return wrapping_add(running, x); }))
            .subscribe_with_disposable([&sum](int64_t x) { sum = wrapping_add(sum, x); });
    probe_begin(p);
    for (int64_t i = 0; i < n; i++) {
        input.on_next(i);
    }
    probe_end(p);
    subscription.dispose();
    return sum;
}

/* W3s: a subject shared (publish + ref_count, RPP's share) by `sinks`
 * summing subscribers; the puts only are timed. */
int64_t w3s(int64_t sinks, int64_t puts, bench_probe *p) {
    int64_t sum = 0;
    rpp::subjects::publish_subject<int64_t> subject;
    auto input = subject.get_observer();
    auto shared = subject.get_observable() | rpp::ops::publish() | rpp::ops::ref_count();
    std::vector<rpp::composite_disposable_wrapper> subscriptions;
    for (int64_t i = 0; i < sinks; i++) {
        subscriptions.push_back(shared.subscribe_with_disposable([&sum](int64_t x) { sum = wrapping_add(sum, x); }));
    }
    probe_begin(p);
    for (int64_t i = 0; i < puts; i++) {
        input.on_next(i);
    }
    probe_end(p);
    for (auto &s : subscriptions) {
        s.dispose();
    }
    return sum;
}

}  // namespace

int main(int argc, char **argv) {
    peer::peer_workloads workloads = { "rpp", w1, w2, w2b, w3, w4, w6, w6b, w7, 2000, w5z, w5s, w3s, w5 };
    return peer::peer_main(argc, argv, workloads);
}
