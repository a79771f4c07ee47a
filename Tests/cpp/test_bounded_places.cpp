/* The capacities of zip, merge_map, queue_signals and buffer_time
 * (sk_signal_zip_bounded, sk_signal_merge_map_bounded,
 * sk_signal_queue_bounded, sk_signal_buffer_time_bounded): what each policy
 * keeps and drops when one input runs ahead, and nothing left alive. */
#include "support.hpp"

using sk_test::drain_until;
using sk_test::events;
using sk_test::record;
using sk_test::v;

namespace {
/* The first item of each array delivered. */
std::vector<std::int64_t> firsts(const events &log) {
    std::vector<std::int64_t> out;
    for (const auto &array : log.values) {
        out.push_back(array[0].as<std::int64_t>());
    }
    return out;
}
} // namespace

SK_TEST(bounded_places, zip_keeps_at_most_capacity_values_per_signal) {
    struct expected_run {
        sk::overflow policy;
        std::vector<std::int64_t> delivered, dropped;
    };
    const expected_run runs[] = {
        {sk::overflow::drop_newest, {0, 1, 2}, {3, 4, 5, 6, 7, 8, 9}},
        {sk::overflow::drop_oldest, {7, 8, 9}, {0, 1, 2, 3, 4, 5, 6}},
        {sk::overflow::latest, {0, 1, 9}, {2, 3, 4, 5, 6, 7, 8}},
    };
    for (const auto &run : runs) {
        auto fast = sk::pipe::create();
        auto slow = sk::pipe::create();
        auto log = std::make_shared<events>();
        auto dropped = std::make_shared<std::vector<std::int64_t>>();
        auto counts = std::make_shared<std::vector<std::uint64_t>>();
        auto d = record(sk::signal::zip({fast.signal(), slow.signal()}, 3, run.policy, [dropped, counts](std::int64_t n, std::uint64_t count) {
                            dropped->push_back(n);
                            counts->push_back(count);
                        }),
                        log);
        for (std::int64_t i = 0; i < 10; i++) {
            fast.put(i);
        }
        for (std::int64_t i = 0; i < 3; i++) {
            slow.put(i);
        }
        cr_assert(firsts(*log) == run.delivered);
        cr_assert(*dropped == run.dropped);
        cr_assert(*counts == (std::vector<std::uint64_t>{1, 2, 3, 4, 5, 6, 7}));
        d.dispose();
    }
    cr_assert_eq(sk_test::alive(), 0);
}

SK_TEST(bounded_places, zip_fails_by_the_error_policy) {
    auto fast = sk::pipe::create();
    auto slow = sk::pipe::create();
    auto log = std::make_shared<events>();
    auto d = record(sk::signal::zip({fast.signal(), slow.signal()}, 2, sk::overflow::error), log);
    for (std::int64_t i = 0; i < 4; i++) {
        fast.put(i);
    }
    cr_assert_eq(log->values.size(), 0u);
    cr_assert_eq(log->errors.size(), 1u);
    const std::string message = log->errors[0].as<std::string>();
    cr_assert_str_eq(message.c_str(),
                     "sk_signal_zip_bounded: overflow: a value arrived with 2 values pending (capacity 2, policy error)");
    d.dispose();
    cr_assert_eq(sk_test::alive(), 0);
}

SK_TEST(bounded_places, merge_map_and_queue_signals_keep_at_most_capacity_waiting) {
    auto source = sk::pipe::create();
    auto log = std::make_shared<events>();
    /* Each value maps to a signal that never completes: 0 runs, 1 and 2
     * wait, and drop_oldest keeps the newest two. */
    auto d = record(source.signal().merge_map(1, 2, sk::overflow::drop_oldest, [](std::int64_t n) { return sk::signal::never().start_with(sk::value(n)); }),
                    log);
    for (std::int64_t i = 0; i < 6; i++) {
        source.put(i);
    }
    cr_assert(log->ints() == v({0}));
    d.dispose();
    auto signals = sk::pipe::create();
    auto log2 = std::make_shared<events>();
    auto d2 = record(signals.signal().queue_signals(1, sk::overflow::error), log2);
    signals.put(sk::value(sk::signal::never()));
    signals.put(sk::value(sk::single(1)));
    signals.put(sk::value(sk::single(2)));
    cr_assert_eq(log2->errors.size(), 1u);
    d2.dispose();
    cr_assert_eq(sk_test::alive(), 0);
}

/* The on_drop forms of the bounded merge_map and queue_signals: each value
 * or signal dropped is told, with the count of drops so far. */
SK_TEST(bounded_places, merge_map_and_queue_signals_tell_on_drop_of_each_drop) {
    auto source = sk::pipe::create();
    auto log = std::make_shared<events>();
    auto dropped = std::make_shared<std::vector<std::int64_t>>();
    auto counts = std::make_shared<std::vector<std::uint64_t>>();
    /* 0 runs for ever, 1 and 2 wait; drop_oldest drops 1, 2 and 3. */
    auto d = record(source.signal().merge_map(
                        1, 2, sk::overflow::drop_oldest,
                        [](std::int64_t n) { return sk::signal::never().start_with(sk::value(n)); },
                        [dropped, counts](std::int64_t n, std::uint64_t count) {
                            dropped->push_back(n);
                            counts->push_back(count);
                        }),
                    log);
    for (std::int64_t i = 0; i < 6; i++) {
        source.put(i);
    }
    cr_assert(log->ints() == v({0}));
    cr_assert(*dropped == v({1, 2, 3}));
    cr_assert(*counts == (std::vector<std::uint64_t>{1, 2, 3}));
    d.dispose();

    auto signals = sk::pipe::create();
    auto log2 = std::make_shared<events>();
    auto running = sk::signal::never();
    auto first = sk::single(1);
    auto second = sk::single(2);
    auto dropped_signals = std::make_shared<std::vector<sk_signal *>>();
    /* `running` runs, `first` waits; drop_newest drops `second`. */
    auto d2 = record(signals.signal().queue_signals(1, sk::overflow::drop_newest,
                                                    [dropped_signals](sk::value_view dropped_signal, std::uint64_t) {
                                                        dropped_signals->push_back(dropped_signal.as<sk::signal>().get());
                                                    }),
                     log2);
    signals.put(sk::value(running));
    signals.put(sk::value(first));
    signals.put(sk::value(second));
    cr_assert(*dropped_signals == std::vector<sk_signal *>{second.get()});
    cr_assert_eq(log2->errors.size(), 0u);
    d2.dispose();
    cr_assert_eq(sk_test::alive(), 0);
}

SK_TEST(bounded_places, buffer_time_keeps_at_most_capacity_values_per_window) {
    auto q = sk::queue::host("cpp.bounded.buffer");
    auto source = sk::pipe::create();
    auto log = std::make_shared<events>();
    auto dropped = std::make_shared<std::vector<std::int64_t>>();
    auto d = record(source.signal() | sk::buffer_time(3600.0, q, 3, sk::overflow::drop_newest, [dropped](std::int64_t n, std::uint64_t) {
                        dropped->push_back(n);
                    }),
                    log);
    for (std::int64_t i = 0; i < 10; i++) {
        source.put(i);
    }
    source.put_completion();
    cr_assert(drain_until(q, [&] { return log->completions == 1; }));
    cr_assert_eq(log->values.size(), 1u);
    cr_assert_eq(log->values[0].size(), 3u);
    cr_assert(*dropped == v({3, 4, 5, 6, 7, 8, 9}));
    d.dispose();
    cr_assert_eq(sk_test::alive(), 0);
}

/* A bounded pipe (sk_pipe_create_bounded): the values a callback puts into
 * its own pipe wait there at most `capacity` at a time; the drops go to
 * on_drop; the error policy fails the pipe after the values waiting. */
SK_TEST(bounded_places, a_bounded_pipe_keeps_at_most_capacity_values_put_from_its_own_callback) {
    struct expected_run {
        sk::overflow policy;
        std::vector<std::int64_t> delivered, dropped;
    };
    const expected_run runs[] = {
        {sk::overflow::drop_newest, {0, 1, 2}, {3, 4, 5, 6, 7, 8}},
        {sk::overflow::drop_oldest, {0, 7, 8}, {1, 2, 3, 4, 5, 6}},
        {sk::overflow::latest, {0, 1, 8}, {2, 3, 4, 5, 6, 7}},
    };
    for (const auto &run : runs) {
        auto dropped = std::make_shared<std::vector<std::int64_t>>();
        auto pipe = sk::pipe::create_bounded(2, run.policy, [dropped](std::int64_t n, std::uint64_t count) {
            dropped->push_back(n);
            cr_assert_eq(count, dropped->size());
        });
        auto delivered = std::make_shared<std::vector<std::int64_t>>();
        auto d = pipe.signal().start([pipe, delivered](std::int64_t n) {
            delivered->push_back(n);
            if (n == 0) {
                for (std::int64_t i = 1; i <= 8; i++) {
                    pipe.put(i);
                }
            }
        });
        pipe.put(0);
        cr_assert(*delivered == run.delivered);
        cr_assert(*dropped == run.dropped);
        d.dispose();
    }
    auto failing = sk::pipe::create_bounded(2, sk::overflow::error);
    auto log = std::make_shared<events>();
    auto d = record(failing.signal(), log);
    auto inner = failing.signal().start([failing](std::int64_t n) {
        if (n == 0) {
            for (std::int64_t i = 1; i <= 8; i++) {
                failing.put(i);
            }
        }
    });
    failing.put(0);
    cr_assert_eq(log->values.size(), 3u); /* 0, then the 2 waiting */
    cr_assert_eq(log->errors.size(), 1u);
    const std::string message = log->errors[0].as<std::string>();
    cr_assert(message.find("sk_pipe_create_bounded: overflow") == 0, "%s", message.c_str());
    d.dispose();
    inner.dispose();
    cr_assert_eq(sk_test::alive(), 0);
}

/* nowait_scope (sk_nowait_begin / sk_nowait_end): with the consumer of a
 * deliver_on of capacity 2 (overflow::block) stalled, the put that finds
 * the buffer full does not wait, its scope's room signal completes once the
 * consumer goes on, and every value arrives in order; a scope that end()
 * did not end is ended by the destructor. */
SK_TEST(bounded_places, a_nowait_scope_never_waits_and_its_room_signal_completes_with_room) {
    auto q = sk::queue::serial("nowait");
    auto gate = std::make_shared<std::pair<std::mutex, std::condition_variable>>();
    auto state = std::make_shared<int>(0); /* 1: the queue is stalled; 2: let go */
    q.async([gate, state] {
        std::unique_lock<std::mutex> lock(gate->first);
        *state = 1;
        gate->second.notify_all();
        gate->second.wait(lock, [&] { return *state == 2; });
    });
    {
        std::unique_lock<std::mutex> lock(gate->first);
        cr_assert(gate->second.wait_for(lock, sk_test::deadline, [&] { return *state == 1; }));
    }
    auto source = sk::pipe::create();
    auto log = std::make_shared<events>();
    auto d = record(source.signal().deliver_on(q, 2, sk::overflow::block), log);
    sk::signal room;
    for (std::int64_t i = 0; i < 3; i++) {
        sk::nowait_scope scope;
        source.put(i);
        room = scope.end();
        if (i < 2) {
            cr_assert(!room, "value %d had room", static_cast<int>(i));
        }
    }
    cr_assert(room, "the third value found the buffer full");
    auto waited = std::make_shared<events>();
    auto w = record(room, waited);
    cr_assert_eq(waited->completions, 0, "no room while the consumer is stalled");
    {
        std::lock_guard<std::mutex> lock(gate->first);
        *state = 2;
    }
    gate->second.notify_all();
    cr_assert(waited->wait_terminated());
    cr_assert(log->wait_values(3));
    cr_assert(log->ints() == v({0, 1, 2}));
    d.dispose();
    w.dispose();
    q.sync([] {});
    {
        sk::nowait_scope left_open;
    }
    sk_signal *none = nullptr;
    cr_assert_eq(sk_nowait_end(&none), SK_ERR_UNSUPPORTED, "the destructor ended the scope");
}
