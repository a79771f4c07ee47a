/*
 * signalkit_test.hpp - virtual time and marble tests for C++ programs: a
 * header-only C++17 layer over signalkit_test.h (which stays the contract:
 * read it for what each operation does, the diagrams' syntax included), in
 * the style of signalkit.hpp. It includes only signalkit.hpp,
 * signalkit_test.h and the standard library, and has no logic of its own.
 *
 *     #include <signalkit_test.hpp>
 *     namespace sk = signalkit;
 *     auto queue = sk::test::virtual_queue::create("test");
 *     auto [keys, log] = sk::test::cold(queue, 0.001, "-a-b-------c|");
 *     auto results = sk::test::record(keys | sk::debounce(0.003, queue), queue, 0.001);
 *     queue.run();                                  // no real clock
 *     // results.diagram() == "------b-----(c|)", log.text() == "^0 !12"
 *
 * Each name below says, in this order, what it owns, from which threads it
 * may be used, and what it throws:
 *
 * - Ownership. virtual_queue is a signalkit::queue (a reference-counted
 *   handle, copyable, usable wherever a queue is: deliver_on, debounce,
 *   start_timer, ...). recorder and subscriptions are move-only RAII
 *   handles (their C types have no _retain): the destructor calls the C
 *   _release; `.get()` gives the borrowed C pointer, `.detach()` hands the
 *   reference over to C code, `T::adopt(p)` takes over a +1 C reference; a
 *   default-constructed or moved-from one is empty (false). A value table
 *   (marble_values) is borrowed by each call: the library copies what it
 *   keeps.
 * - Thread safety. The C library's: any thread; a virtual_queue's work runs
 *   on the thread that advances it, one advancing thread at a time. A single
 *   handle object must not be assigned from one thread while used from
 *   another.
 * - Errors. Every call that returns a status in C throws signalkit::error
 *   (code() the sk_status, what() sk_last_error_message(): for a malformed
 *   diagram, the position and the diagram with a caret under it) when the
 *   status is not SK_OK, and std::bad_alloc; nothing else throws. A call
 *   on an empty handle throws error (SK_ERR_NULL_ARGUMENT).
 */
#ifndef SIGNALKIT_TEST_HPP
#define SIGNALKIT_TEST_HPP

#include <signalkit.hpp>
#include <signalkit_test.h>

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace signalkit {
namespace test {

/* ------------------------------------------------------------------------ */
/* Virtual time                                                              */
/* ------------------------------------------------------------------------ */

/* A queue whose clock moves only when a test moves it
 * (sk_queue_create_virtual). Ownership: a queue handle; releasing the last
 * reference drops the pending work. Thread safety: any thread; advance_by,
 * advance_to and run run the due work on the calling thread, one thread at
 * a time (another one throws SK_ERR_BUSY, work of the queue itself
 * SK_ERR_UNSUPPORTED). Errors: as their C functions; when a bound of tasks
 * is reached (SK_ERR_RESOURCE) the count of those that ran is lost with the
 * throw. */
class virtual_queue : public queue {
public:
    virtual_queue() noexcept = default;
    /* A new virtual-time queue, its clock at 0 (`name` copied, may be
     * null). */
    static virtual_queue create(const char *name = nullptr) {
        sk_queue *q = nullptr;
        signalkit::detail::check(sk_queue_create_virtual(&q, name));
        return adopt(q);
    }
    /* Takes over a +1 reference to a virtual-time queue (another queue makes
     * every member below throw SK_ERR_WRONG_KIND). */
    static virtual_queue adopt(sk_queue *p) noexcept {
        virtual_queue v;
        v.p_ = p;
        return v;
    }
    /* Retains a borrowed pointer to a virtual-time queue. */
    static virtual_queue borrow(sk_queue *p) noexcept {
        sk_queue_retain(p);
        return adopt(p);
    }

    /* Moves the clock `duration` forward, running every task due by then;
     * how many ran (sk_queue_virtual_advance_by). */
    std::size_t advance_by(seconds_t duration) const {
        std::size_t ran = 0;
        signalkit::detail::check(sk_queue_virtual_advance_by(p_, duration.count, &ran));
        return ran;
    }
    /* Moves the clock to `time` since the queue was made, running every task
     * due by then; how many ran (sk_queue_virtual_advance_to). */
    std::size_t advance_to(seconds_t time) const {
        std::size_t ran = 0;
        signalkit::detail::check(sk_queue_virtual_advance_to(p_, time.count, &ran));
        return ran;
    }
    /* Runs until no work is left, or `max_tasks` ran with more due (0:
     * 1,000,000), which throws SK_ERR_RESOURCE; how many ran
     * (sk_queue_virtual_run). */
    std::size_t run(std::size_t max_tasks = 0) const {
        std::size_t ran = 0;
        signalkit::detail::check(sk_queue_virtual_run(p_, max_tasks, &ran));
        return ran;
    }
    /* The clock, since the queue was made (sk_queue_virtual_now). */
    std::chrono::nanoseconds now() const {
        std::int64_t ns = 0;
        signalkit::detail::check(sk_queue_virtual_now(p_, &ns));
        return std::chrono::nanoseconds(ns);
    }
    /* How many tasks are scheduled and have neither run nor been cancelled
     * (sk_queue_virtual_pending). */
    std::size_t pending() const {
        std::size_t count = 0;
        signalkit::detail::check(sk_queue_virtual_pending(p_, &count));
        return count;
    }
};

/* ------------------------------------------------------------------------ */
/* Marble tests                                                              */
/* ------------------------------------------------------------------------ */

/* A value table: the value each diagram character (an ASCII letter or
 * digit) stands for. Empty: a letter or digit stands for itself as a
 * one-character string. Another character as a key throws
 * SK_ERR_INVALID_ARGUMENT where the table is used. */
using marble_values = std::map<char, value>;

namespace detail {
/* The C form of a table, borrowing its values (valid while `table` is). */
inline std::vector<sk_marble_value> c_table(const marble_values &table) {
    std::vector<sk_marble_value> out;
    out.reserve(table.size());
    for (const auto &entry : table) {
        out.push_back(sk_marble_value{entry.first, *entry.second.get()});
    }
    return out;
}

/* The C handles of this file that have a _release and no _retain. */
template <class T> struct release_traits;
template <> struct release_traits<sk_test_recorder> {
    static void release(sk_test_recorder *p) noexcept { sk_test_recorder_release(p); }
};
template <> struct release_traits<sk_test_subscriptions> {
    static void release(sk_test_subscriptions *p) noexcept { sk_test_subscriptions_release(p); }
};

/* One C reference, or none; move-only. */
template <class T, class Derived> class unique_handle {
public:
    using c_type = T;
    unique_handle() noexcept = default;
    unique_handle(const unique_handle &) = delete;
    unique_handle &operator=(const unique_handle &) = delete;
    unique_handle(unique_handle &&other) noexcept : p_(other.p_) { other.p_ = nullptr; }
    unique_handle &operator=(unique_handle &&other) noexcept {
        if (this != &other) {
            T *old = p_;
            p_ = other.p_;
            other.p_ = nullptr;
            release_traits<T>::release(old);
        }
        return *this;
    }
    ~unique_handle() { release_traits<T>::release(p_); }

    /* Takes over a +1 reference. */
    static Derived adopt(T *p) noexcept {
        Derived d;
        d.p_ = p;
        return d;
    }
    /* The C pointer, borrowed (valid while this handle holds it). */
    T *get() const noexcept { return p_; }
    /* Gives the reference up (+1 for the caller); the handle becomes empty. */
    T *detach() noexcept {
        T *p = p_;
        p_ = nullptr;
        return p;
    }
    /* Drops the reference now. */
    void reset() noexcept { release_traits<T>::release(detach()); }
    explicit operator bool() const noexcept { return p_ != nullptr; }

protected:
    T *p_ = nullptr;
};

/* The whole text a C function writes with the (buffer, size, out_length)
 * convention: asked for its length first, then written; again if it grew
 * meanwhile (a recorder recording on another thread). */
template <class Write> std::string text_of(Write write) {
    std::size_t length = 0;
    signalkit::detail::check(write(nullptr, 0, &length));
    for (;;) {
        std::string text(length + 1, '\0');
        std::size_t full = 0;
        signalkit::detail::check(write(&text[0], text.size(), &full));
        if (full <= length) {
            text.resize(full);
            return text;
        }
        length = full;
    }
}
} // namespace detail

/* A test signal's subscription log (sk_test_subscriptions). Ownership:
 * move-only, one reference; it stays readable after its signal is gone.
 * Thread safety: any thread. Errors: text() as sk_test_subscriptions_text. */
class subscriptions : public detail::unique_handle<sk_test_subscriptions, subscriptions> {
public:
    /* When each subscription started and was disposed, in frames:
     * "^0 !2 ^4" (see sk_test_subscriptions_text); "" when there was none. */
    std::string text() const {
        return detail::text_of([this](char *buffer, std::size_t size, std::size_t *length) {
            return sk_test_subscriptions_text(p_, buffer, size, length);
        });
    }
};

/* What cold() and hot() make: the signal and its subscription log
 * (`auto [keys, log] = cold(...)`). */
struct test_signal {
    /* The test signal, to subscribe to (its events come on the thread
     * advancing its queue). */
    signalkit::signal signal;
    /* Its subscription log: when each subscription started and was
     * disposed (text()). */
    test::subscriptions subscriptions;
};

namespace detail {
using make_test_signal = int (*)(sk_signal **, sk_test_subscriptions **, sk_queue *, double, const char *,
                                 const sk_marble_value *, std::size_t, const sk_value *);
inline test_signal make(make_test_signal fn, const queue &q, seconds_t frame, const std::string &diagram,
                        const marble_values &values, const value &failure) {
    std::vector<sk_marble_value> table = c_table(values);
    sk_signal *s = nullptr;
    sk_test_subscriptions *logged = nullptr;
    signalkit::detail::check(fn(&s, &logged, q.get(), frame.count, diagram.c_str(),
                                table.empty() ? nullptr : table.data(), table.size(), failure.get()));
    return test_signal{signal::adopt(s), subscriptions::adopt(logged)};
}
} // namespace detail

/* A cold test signal: each subscription plays `diagram` (up to its first
 * NUL) from its own start on `q`, a frame lasting `frame`, on the grid of
 * frames (frame t of the diagram at the start of the t-th frame after the
 * subscription's: less than t frames after a subscription made mid-frame); `failure` is
 * the error of `#` (sk_test_signal_cold). Ownership: the queue is borrowed
 * (the signal does not keep it open: once the last handle of `q` is gone,
 * its events are dropped), the table and the error copied. Thread safety: any
 * thread; events come on the thread advancing `q`. Errors: as
 * sk_test_signal_cold (a diagram that does not parse: SK_ERR_INVALID_ARGUMENT
 * naming the position; a queue that is not a virtual-time one:
 * SK_ERR_WRONG_KIND). */
inline test_signal cold(const queue &q, seconds_t frame, const std::string &diagram,
                        const marble_values &values = {}, const value &failure = value()) {
    return detail::make(&sk_test_signal_cold, q, frame, diagram, values, failure);
}

/* A hot test signal: `diagram` plays once on `q` from the start of the
 * clock's current frame (its `^`) to whoever is subscribed (sk_test_signal_hot). Ownership,
 * thread safety and errors: as cold(). */
inline test_signal hot(const queue &q, seconds_t frame, const std::string &diagram,
                       const marble_values &values = {}, const value &failure = value()) {
    return detail::make(&sk_test_signal_hot, q, frame, diagram, values, failure);
}

/* What a signal delivered, with the virtual time of each event
 * (sk_test_recorder). Ownership: move-only, one reference; its destruction
 * disposes the recorded subscription. Thread safety: any thread; events are
 * recorded on whatever thread delivers them. Errors: diagram() as
 * sk_test_recorder_diagram; dispose() never throws. */
class recorder : public detail::unique_handle<sk_test_recorder, recorder> {
public:
    /* What was recorded so far as a canonical diagram, values printed as the
     * characters `values` gives them (sk_test_recorder_diagram). */
    std::string diagram(const marble_values &values = {}) const {
        std::vector<sk_marble_value> table = detail::c_table(values);
        return detail::text_of([this, &table](char *buffer, std::size_t size, std::size_t *length) {
            return sk_test_recorder_diagram(p_, table.empty() ? nullptr : table.data(), table.size(), buffer, size,
                                            length);
        });
    }
    /* Disposes the recorded subscription: nothing more is recorded. An empty
     * handle is a no-op. */
    void dispose() const noexcept { sk_test_recorder_dispose(p_); }
};

/* Subscribes to `s` now, on the calling thread, and records what it
 * delivers, timed by `q`'s clock in frames of `frame` (sk_test_record).
 * Ownership: `s` and `q` borrowed. Errors: as sk_test_record. */
inline recorder record(const signal &s, const queue &q, seconds_t frame) {
    sk_test_recorder *r = nullptr;
    signalkit::detail::check(sk_test_record(&r, s.get(), q.get(), frame.count));
    return recorder::adopt(r);
}

} // namespace test
} // namespace signalkit

#endif /* SIGNALKIT_TEST_HPP */
