/* Every count, limit and capacity of the C++ layer at 1, 2, 3, 2^32,
 * PTRDIFF_MAX + 1 and SIZE_MAX (issue 40): a count is a limit, not a
 * reservation. A huge one means "no limit", or throws sk::error
 * SK_ERR_INVALID_ARGUMENT where the documented range ends (a bounded
 * concurrent queue's workers; an array of signals no memory can hold is
 * the C layer's); none asks for memory up front (buffer_count(2^32) asked
 * for 96 GB and aborted). */
#include "support.hpp"

#include <cstddef>
#include <cstring>

using sk_test::events;
using sk_test::ints;
using sk_test::record;
using sk_test::track;
using sk_test::v;

namespace {

const std::size_t counts[] = {1, 2, 3, std::size_t(1) << 32, std::size_t(PTRDIFF_MAX) + 1, SIZE_MAX};

std::size_t up_to(std::size_t count, std::size_t most) { return count < most ? count : most; }

/* The values of a synchronous signal, and whether it completed. */
std::vector<std::int64_t> run(const sk::signal &s, bool *completed = nullptr) {
    auto log = std::make_shared<events>();
    record(s, log).dispose();
    if (completed) {
        *completed = log->completions == 1;
    }
    return log->ints();
}

} // namespace

SK_TEST(counts, take_skip_and_element_at_at_every_count) {
    const std::vector<std::int64_t> three = v({1, 2, 3});
    for (std::size_t n : counts) {
        std::size_t kept = up_to(n, 3);
        bool completed = false;
        cr_assert(run(ints(three).take(n), &completed) == std::vector<std::int64_t>(three.begin(), three.begin() + kept),
                  "take(%zu)", n);
        cr_assert(completed, "take(%zu)", n);
        cr_assert(run(ints(three).skip(n), &completed) == std::vector<std::int64_t>(three.begin() + kept, three.end()),
                  "skip(%zu)", n);
        cr_assert(completed, "skip(%zu)", n);
        std::vector<std::int64_t> at = n < 3 ? v({three[n]}) : v({});
        cr_assert(run(ints(three).element_at(n), &completed) == at, "element_at(%zu)", n);
        cr_assert(completed, "element_at(%zu)", n);
    }
}

/* Arrays of `count`; the completion delivers the rest: with a count of 3
 * or more (2^32 the issue's), one array of the three values. */
SK_TEST(counts, buffer_count_at_every_count) {
    for (std::size_t n : counts) {
        auto log = std::make_shared<events>();
        record(ints({1, 2, 3}).buffer_count(n), log).dispose();
        std::size_t size = up_to(n, 3);
        cr_assert_eq(log->values.size(), (3 + size - 1) / size, "buffer_count(%zu)", n);
        cr_assert_eq(log->completions, 1, "buffer_count(%zu)", n);
        std::int64_t next = 1;
        for (const auto &array : log->values) {
            for (std::size_t i = 0; i < array.size(); i++) {
                cr_assert_eq(array[i].as<std::int64_t>(), next++, "buffer_count(%zu)", n);
            }
        }
        cr_assert_eq(next, 4, "buffer_count(%zu): every value once", n);
    }
}

/* A subscriber joining a running connection gets the last min(count, 3). */
SK_TEST(counts, replay_at_every_count) {
    for (std::size_t n : counts) {
        auto p = sk::pipe::create();
        auto replayed = p.signal().replay(n);
        auto first = std::make_shared<events>();
        auto connection = record(replayed, first);
        for (std::int64_t k = 1; k <= 3; k++) {
            p.put(k);
        }
        std::vector<std::int64_t> all = v({1, 2, 3});
        cr_assert(run(replayed) == std::vector<std::int64_t>(all.end() - up_to(n, 3), all.end()), "replay(%zu)", n);
        connection.dispose();
    }
}

/* Fails on its first five starts (after one value each), then completes:
 * 1 to 3 retries end with the error; a huge count retries until the sixth
 * start completes. */
SK_TEST(counts, retry_count_at_every_count) {
    for (std::size_t n : counts) {
        auto starts = std::make_shared<std::int64_t>(0);
        auto flaky = sk::create(track([starts](sk::subscriber sub) {
            sub.put_next(++*starts);
            if (*starts <= 5) {
                sub.put_error(*starts);
            } else {
                sub.put_completion();
            }
        }));
        auto log = std::make_shared<events>();
        record(flaky.retry_count(n), log).dispose();
        std::int64_t attempts = n < 5 ? std::int64_t(n) + 1 : 6;
        cr_assert_eq(*starts, attempts, "retry_count(%zu)", n);
        cr_assert_eq(log->errors.size(), n < 5 ? 1u : 0u, "retry_count(%zu)", n);
        cr_assert_eq(log->completions, n < 5 ? 0 : 1, "retry_count(%zu)", n);
    }
}

/* Three values, each mapped to a subscription to a pipe that never ends:
 * min(max_concurrent, 3) run. */
SK_TEST(counts, merge_map_at_every_max_concurrent) {
    for (std::size_t n : counts) {
        auto inner = sk::pipe::create();
        auto log = std::make_shared<events>();
        auto d = record(ints({1, 2, 3}).merge_map(n, track([inner](std::int64_t) { return inner.signal(); })), log);
        inner.put(7);
        cr_assert(log->ints() == std::vector<std::int64_t>(up_to(n, 3), 7), "merge_map(%zu)", n);
        d.dispose();
    }
}

/* 1 to 3 workers make a queue whose work runs; a huge count throws
 * SK_ERR_INVALID_ARGUMENT with the range. */
SK_TEST(counts, concurrent_queue_at_every_worker_count) {
    for (std::size_t n : counts) {
        if (n <= 3) {
            auto q = sk::queue::concurrent(n, "counts");
            auto log = std::make_shared<events>();
            q.async(track([log] { log->completed(); }));
            cr_assert(log->wait([](const events &e) { return e.completions == 1; }), "max_workers %zu", n);
            continue;
        }
        try {
            (void)sk::queue::concurrent(n, "counts");
            cr_assert_fail("max_workers %zu: no exception", n);
        } catch (const sk::error &e) {
            cr_assert_eq(e.code(), SK_ERR_INVALID_ARGUMENT, "max_workers %zu", n);
            cr_assert(std::strstr(e.what(), "a bounded concurrent queue has 1 to 1024 workers") != nullptr, "%s",
                      e.what());
        }
    }
}

/* A host queue's drain, five tasks pending: min(max_tasks, 5) run. */
SK_TEST(counts, drain_at_every_max_tasks) {
    for (std::size_t n : counts) {
        auto q = sk::queue::host("counts");
        auto ran = std::make_shared<int>(0);
        for (int k = 0; k < 5; k++) {
            q.async(track([ran] { ++*ran; }));
        }
        cr_assert_eq(q.drain(n), up_to(n, 5), "drain(%zu)", n);
        cr_assert_eq(*ran, int(up_to(n, 5)), "drain(%zu)", n);
    }
}

/* merge, concat and zip of 1 to 3 signals. In C++ the count is a vector's
 * size, so no count larger than the array can be given (the C suite tries
 * those: limits::signal_arrays_at_every_count). */
SK_TEST(counts, signal_arrays_of_one_to_three) {
    for (std::size_t n = 1; n <= 3; n++) {
        std::vector<sk::signal> inputs(n, ints({1, 2, 3}));
        cr_assert_eq(run(sk::merge(inputs)).size(), 3 * n);
        cr_assert_eq(run(sk::concat(inputs)).size(), 3 * n);
        auto log = std::make_shared<events>();
        record(sk::zip(inputs), log).dispose();
        cr_assert_eq(log->values.size(), 3u);
        cr_assert_eq(log->values[0].size(), n);
    }
}
