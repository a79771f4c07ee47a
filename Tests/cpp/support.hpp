/*
 * support.hpp - shared helpers of the C++ suite (Tests/cpp, make test-cpp).
 *
 * - SK_TEST(suite, name) { body }: a test (Tests/harness/harness.h) whose
 *   body runs in a function of its own, so that every handle it made is
 *   gone when the end-of-test check runs: every tracked callable destroyed
 *   (waited for, with a deadline, as releases may run on other threads),
 *   and sk_live_objects() == 0. The harness runs each test in its own
 *   process.
 * - track(f): f wrapped in a type derived from it that counts constructions
 *   and destructions (copies and moves included), so that "each callable is
 *   destroyed exactly once" is `alive() == 0` once the C side let go of it
 *   (a double destruction would make it negative, and ASan would see it).
 * - events: a thread-safe log of next / error / completed with deadline
 *   waits on a condition variable (never a sleep).
 */
#ifndef SK_CPP_TEST_SUPPORT_HPP
#define SK_CPP_TEST_SUPPORT_HPP

#include <poll.h>
#include <signalkit.hpp>

#include "../harness/harness.h"

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace sk = signalkit;

namespace sk_test {

/* Every wait for something asynchronous has this deadline. */
constexpr std::chrono::seconds deadline{10};

/* Constructions and destructions of tracked callables. */
struct tracker {
    std::mutex mutex;
    std::condition_variable changed;
    long made = 0;
    long destroyed = 0;
    std::thread::id last_destroyer;

    static tracker &shared() {
        static tracker t;
        return t;
    }
    void on_made() {
        std::lock_guard<std::mutex> lock(mutex);
        made++;
    }
    void on_destroyed() {
        {
            std::lock_guard<std::mutex> lock(mutex);
            destroyed++;
            last_destroyer = std::this_thread::get_id();
        }
        changed.notify_all();
    }
    long alive() {
        std::lock_guard<std::mutex> lock(mutex);
        return made - destroyed;
    }
    /* Waits until at most `count` tracked callables are alive. */
    bool wait_alive_at_most(long count) {
        std::unique_lock<std::mutex> lock(mutex);
        return changed.wait_for(lock, deadline, [&] { return made - destroyed <= count; });
    }
};

inline long alive() { return tracker::shared().alive(); }

template <class F> struct tracked : F {
    explicit tracked(F f) : F(std::move(f)) { tracker::shared().on_made(); }
    tracked(const tracked &other) : F(static_cast<const F &>(other)) { tracker::shared().on_made(); }
    tracked(tracked &&other) noexcept : F(static_cast<F &&>(other)) { tracker::shared().on_made(); }
    tracked &operator=(const tracked &) = delete;
    ~tracked() { tracker::shared().on_destroyed(); }
};

/* `f`, counted. */
template <class F> tracked<F> track(F f) { return tracked<F>(std::move(f)); }

/* The end-of-test check. */
inline void expect_clean() {
    cr_assert(tracker::shared().wait_alive_at_most(0), "tracked callables still alive: %ld", alive());
    cr_assert_eq(tracker::shared().made - tracker::shared().destroyed, 0);
    cr_assert_eq(sk::live_objects(), 0, "live objects left: %ld", sk::live_objects());
}

/* A thread-safe log of a subscription's events. */
struct events {
    std::mutex mutex;
    std::condition_variable changed;
    std::vector<sk::value> values;
    std::vector<sk::value> errors;
    int completions = 0;
    std::vector<std::thread::id> threads;

    void next(const sk::value &v) {
        {
            std::lock_guard<std::mutex> lock(mutex);
            values.push_back(v);
            threads.push_back(std::this_thread::get_id());
        }
        changed.notify_all();
    }
    void error(const sk::value &e) {
        {
            std::lock_guard<std::mutex> lock(mutex);
            errors.push_back(e);
        }
        changed.notify_all();
    }
    void completed() {
        {
            std::lock_guard<std::mutex> lock(mutex);
            completions++;
        }
        changed.notify_all();
    }
    template <class P> bool wait(P predicate) {
        std::unique_lock<std::mutex> lock(mutex);
        return changed.wait_for(lock, deadline, [&] { return predicate(*this); });
    }
    bool wait_values(std::size_t n) {
        return wait([n](const events &e) { return e.values.size() >= n; });
    }
    bool wait_terminated() {
        return wait([](const events &e) { return e.completions > 0 || !e.errors.empty(); });
    }
    /* The values as int64 (asserts on the test thread). */
    std::vector<std::int64_t> ints() {
        std::lock_guard<std::mutex> lock(mutex);
        std::vector<std::int64_t> out;
        for (const auto &v : values) {
            out.push_back(v.as<std::int64_t>());
        }
        return out;
    }
};

/* Starts `s` with tracked callables logging into `log` (shared: the
 * callables may outlive the test's frame on another thread). */
inline sk::disposable record(const sk::signal &s, const std::shared_ptr<events> &log) {
    return s.start(track([log](const sk::value &v) { log->next(v); }),
                   track([log](const sk::value &e) { log->error(e); }),
                   track([log] { log->completed(); }));
}

/* A cold synchronous source of the given integers, then completion. */
inline sk::signal ints(std::vector<std::int64_t> items) {
    return sk::create(track([items](sk::subscriber s) {
        for (auto n : items) {
            s.put_next(n);
        }
        s.put_completion();
    }));
}

inline std::vector<std::int64_t> v(std::initializer_list<std::int64_t> items) { return items; }

/* A source that fails with "again" on its first two starts, then sends the
 * attempt's number (3) and completes; *attempts counts the starts. */
inline sk::signal fails_twice(const std::shared_ptr<int> &attempts) {
    return sk::create(track([attempts](sk::subscriber sub) {
        if (++*attempts < 3) {
            sub.put_error("again");
        } else {
            sub.put_next(*attempts);
            sub.put_completion();
        }
    }));
}

/* Drains the host-drained queue `q` as its descriptor fires (poll, with the
 * suite's deadline) until `done()` holds. @return whether it did. */
template <class P> bool drain_until(const sk::queue &q, P done) {
    auto end = std::chrono::steady_clock::now() + deadline;
    while (!done()) {
        auto left = std::chrono::duration_cast<std::chrono::milliseconds>(end - std::chrono::steady_clock::now());
        if (left.count() <= 0) {
            return false;
        }
        struct pollfd p = {q.fd(), POLLIN, 0};
        if (poll(&p, 1, static_cast<int>(left.count())) > 0) {
            q.drain();
        }
    }
    return true;
}

} // namespace sk_test

#define SK_TEST(suite, name) SK_TEST_WITH(suite, name, .timeout = 120) // a hang guard, generous for a loaded machine (Tests/C/support.h)
/* With the harness's options (.signal = SIGABRT, .timeout = S, in that order). */
#define SK_TEST_WITH(suite, name, ...)                                         \
    static void suite##_##name##_body();                                       \
    Test(suite, name, __VA_ARGS__) {                                           \
        suite##_##name##_body();                                               \
        sk_test::expect_clean();                                               \
    }                                                                          \
    static void suite##_##name##_body()

#endif
