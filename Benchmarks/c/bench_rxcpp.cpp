/* The workloads of Benchmarks/README.md on RxCpp 4.1.1 (header-only, an
 * optional peer: mk/bench.mk builds this program only when its headers are
 * in Benchmarks/peers/rxcpp; see "The C++ peers" in Benchmarks/README.md),
 * written as an RxCpp user writes them, after its documentation: a
 * `rxcpp::subjects::subject` as the hot source (its `get_subscriber()` to
 * put, its `get_observable()` to subscribe), `observable<>::create` for the
 * cold source, the member operators `.map`, `.filter`, `.switch_on_next()`,
 * `.observe_on(observe_on_new_thread())`, and the `composite_subscription`
 * that `subscribe` returns, unsubscribed to dispose. Same sizes, checksums
 * and JSON lines as bench_capi (impl "rxcpp").
 *
 *   bench_rxcpp [--reps N] [--workloads W1,W2b] [--divide N] */
#include <rxcpp/rx.hpp>

#include <semaphore.h>

#include <vector>

#include "peer_driver.hpp"

namespace {

using peer::wrapping_add;

/* A cold synchronous source of 0..<n, then completion. */
rxcpp::observable<int64_t> range(int64_t n) {
    return rxcpp::observable<>::create<int64_t>([n](rxcpp::subscriber<int64_t> s) {
        for (int64_t i = 0; i < n; i++) {
            s.on_next(i);
        }
        s.on_completed();
    });
}

/* W1: build, subscribe, run, dispose. */
int64_t w1(int64_t n, bench_probe *p) {
    int64_t sum = 0;
    probe_begin(p);
    range(n)
        .map([](int64_t x) { return x + 1; })
        .filter([](int64_t x) { return x % 2 == 0; })
        .map([](int64_t x) { return x * 2; })
        .subscribe([&sum](int64_t x) { sum = wrapping_add(sum, x); })
        .unsubscribe();
    probe_end(p);
    return sum;
}

/* W2: the mapped observable built once; each cycle subscribes, maybe puts,
 * unsubscribes; then one more put that must reach nobody. */
int64_t w2(int64_t cycles, int64_t every, bench_probe *p) {
    int64_t sum = 0;
    rxcpp::subjects::subject<int64_t> subject;
    auto input = subject.get_subscriber();
    auto mapped = subject.get_observable().map([](int64_t x) { return x + 1; });
    probe_begin(p);
    for (int64_t i = 0; i < cycles; i++) {
        auto subscription = mapped.subscribe([&sum](int64_t x) { sum = wrapping_add(sum, x); });
        if (i % every == 0) {
            input.on_next(i);
        }
        subscription.unsubscribe();
    }
    input.on_next(1000000000);
    probe_end(p);
    return sum;
}

/* W2b: W2 with the pipeline built where each subscription is made. */
int64_t w2b(int64_t cycles, int64_t every, bench_probe *p) {
    int64_t sum = 0;
    rxcpp::subjects::subject<int64_t> subject;
    auto input = subject.get_subscriber();
    probe_begin(p);
    for (int64_t i = 0; i < cycles; i++) {
        auto subscription = subject.get_observable()
                                .map([](int64_t x) { return x + 1; })
                                .subscribe([&sum](int64_t x) { sum = wrapping_add(sum, x); });
        if (i % every == 0) {
            input.on_next(i);
        }
        subscription.unsubscribe();
    }
    input.on_next(1000000000);
    probe_end(p);
    return sum;
}

/* W3: `sinks` sinks directly on the subject; the puts only are timed. */
int64_t w3(int64_t sinks, int64_t puts, bench_probe *p) {
    int64_t sum = 0;
    rxcpp::subjects::subject<int64_t> subject;
    auto input = subject.get_subscriber();
    std::vector<rxcpp::composite_subscription> subscriptions;
    for (int64_t i = 0; i < sinks; i++) {
        subscriptions.push_back(subject.get_observable().subscribe([&sum](int64_t x) { sum = wrapping_add(sum, x); }));
    }
    probe_begin(p);
    for (int64_t i = 0; i < puts; i++) {
        input.on_next(i);
    }
    probe_end(p);
    for (auto &s : subscriptions) {
        s.unsubscribe();
    }
    return sum;
}

/* W4: the W1 source, each value mapped to a one-value observable (`just`),
 * switched to the latest. */
int64_t w4(int64_t n, bench_probe *p) {
    int64_t sum = 0;
    probe_begin(p);
    range(n)
        .map([](int64_t x) { return rxcpp::observable<>::just(x); })
        .switch_on_next()
        .subscribe([&sum](int64_t x) { sum = wrapping_add(sum, x); })
        .unsubscribe();
    probe_end(p);
    return sum;
}

/* W6 (`per_subscription` false) and W6b: `count` live subscriptions, then
 * one put of 1. The vector is reserved before the measurement. */
int64_t w6_shape(int64_t count, bool per_subscription, bench_probe *p) {
    int64_t sum = 0;
    rxcpp::subjects::subject<int64_t> subject;
    auto input = subject.get_subscriber();
    auto mapped = subject.get_observable().map([](int64_t x) { return x + 1; });
    std::vector<rxcpp::composite_subscription> subscriptions;
    subscriptions.reserve(static_cast<size_t>(count));
    auto sink = [&sum](int64_t x) { sum = wrapping_add(sum, x); };
    probe_begin(p);
    for (int64_t i = 0; i < count; i++) {
        if (per_subscription) {
            subscriptions.push_back(subject.get_observable().map([](int64_t x) { return x + 1; }).subscribe(sink));
        } else {
            subscriptions.push_back(mapped.subscribe(sink));
        }
    }
    probe_live(p);
    input.on_next(1);
    probe_end(p);
    for (auto &s : subscriptions) {
        s.unsubscribe();
    }
    return sum;
}

int64_t w6(int64_t count, bench_probe *p) { return w6_shape(count, false, p); }
int64_t w6b(int64_t count, bench_probe *p) { return w6_shape(count, true, p); }

/* W7: the subject observed on a new thread (RxCpp's serial worker), a
 * summing sink that posts a semaphore on the last value; the puts from the
 * calling thread, timed to the last delivery. */
int64_t w7(int64_t n, bench_probe *p) {
    int64_t sum = 0;
    sem_t done;
    sem_init(&done, 0, 0);
    rxcpp::subjects::subject<int64_t> subject;
    auto input = subject.get_subscriber();
    auto subscription = subject.get_observable()
                            .observe_on(rxcpp::observe_on_new_thread())
                            .subscribe([&sum, &done, n](int64_t x) {
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
    subscription.unsubscribe();
    sem_destroy(&done);
    return sum;
}

/* W5: two subjects combined, the latest of each (a tuple per emission),
 * value i into subject i % 2, a sink summing both; the puts only are
 * timed. */
int64_t w5(int64_t n, bench_probe *p) {
    int64_t sum = 0;
    rxcpp::subjects::subject<int64_t> a, b;
    auto input_a = a.get_subscriber();
    auto input_b = b.get_subscriber();
    auto subscription = a.get_observable().combine_latest(b.get_observable()).subscribe(peer::summing_pairs(sum));
    peer::put_alternating(n, input_a, input_b, p);
    subscription.unsubscribe();
    return sum;
}

/* W5z: two subjects zipped (a tuple per pair), value i into subject i % 2,
 * a sink summing both; the puts only are timed. */
int64_t w5z(int64_t n, bench_probe *p) {
    int64_t sum = 0;
    rxcpp::subjects::subject<int64_t> a, b;
    auto input_a = a.get_subscriber();
    auto input_b = b.get_subscriber();
    auto subscription = a.get_observable().zip(b.get_observable()).subscribe(peer::summing_pairs(sum));
    peer::put_alternating(n, input_a, input_b, p);
    subscription.unsubscribe();
    return sum;
}

/* W5s: a subject through scan (a running sum from 0) into a summing sink;
 * the puts only are timed. */
int64_t w5s(int64_t n, bench_probe *p) {
    int64_t sum = 0;
    rxcpp::subjects::subject<int64_t> subject;
    auto input = subject.get_subscriber();
    auto subscription = subject.get_observable()
                            .scan(int64_t{0}, [](int64_t running, int64_t x) { return wrapping_add(running, x); })
                            .subscribe([&sum](int64_t x) { sum = wrapping_add(sum, x); });
    probe_begin(p);
    for (int64_t i = 0; i < n; i++) {
        input.on_next(i);
    }
    probe_end(p);
    subscription.unsubscribe();
    return sum;
}

/* W3s: a subject shared (publish + ref_count, RxCpp's share) by `sinks`
 * summing subscribers; the puts only are timed. */
int64_t w3s(int64_t sinks, int64_t puts, bench_probe *p) {
    int64_t sum = 0;
    rxcpp::subjects::subject<int64_t> subject;
    auto input = subject.get_subscriber();
    auto shared = subject.get_observable().publish().ref_count();
    std::vector<rxcpp::composite_subscription> subscriptions;
    for (int64_t i = 0; i < sinks; i++) {
        subscriptions.push_back(shared.subscribe([&sum](int64_t x) { sum = wrapping_add(sum, x); }));
    }
    probe_begin(p);
    for (int64_t i = 0; i < puts; i++) {
        input.on_next(i);
    }
    probe_end(p);
    for (auto &s : subscriptions) {
        s.unsubscribe();
    }
    return sum;
}

}  // namespace

int main(int argc, char **argv) {
    peer::peer_workloads workloads = { "rxcpp", w1, w2, w2b, w3, w4, w6, w6b, w7, 2000, w5z, w5s, w3s, w5 };
    return peer::peer_main(argc, argv, workloads);
}
