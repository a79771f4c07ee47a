/* signalkit_test.hpp: the virtual-time queue, cold and hot test signals with
 * their subscription logs, recorders, the errors of each (signalkit::error
 * with the C status and message), and the handles' lifetimes (released in
 * every order with work pending, nothing left alive). The operators' own
 * marble tests are the C suite's (Tests/C/test_virtual_time.c): these check
 * the C++ layer, which has no logic of its own. */
#include "support.hpp"

#include <signalkit_test.hpp>

#include <algorithm>
#include <array>
#include <optional>

using sk_test::events;
using sk_test::record;
using sk_test::track;

namespace skt = signalkit::test;

namespace {
/* A frame is 1 ms of virtual time, as in the README. */
constexpr double frame = 0.001;

/* Runs `f`, which must throw signalkit::error with `code`; its message. */
template <class F> std::string expect_error(int code, F f) {
    try {
        f();
    } catch (const sk::error &e) {
        cr_assert_eq(e.code(), code, "status %s, expected %s: %s", sk_status_string(e.code()),
                     sk_status_string(code), e.what());
        return e.what();
    }
    cr_assert_fail("no signalkit::error thrown (expected %s)", sk_status_string(code));
    return "";
}

bool contains(const std::string &text, const std::string &part) { return text.find(part) != std::string::npos; }
} // namespace

/* The C example at the top of signalkit_test.h (and the marble test of docs/testing.md),
 * through the C++ layer. */
SK_TEST(virtual_time, debounce_waits_for_three_quiet_frames) {
    auto queue = skt::virtual_queue::create("test");
    auto [keys, log] = skt::cold(queue, frame, "-a-b-------c|");
    auto results = skt::record(keys | sk::debounce(3 * frame, queue), queue, frame);
    cr_assert_gt(queue.run(), 0u);
    cr_assert_eq(results.diagram(), "------b-----(c|)");
    cr_assert_eq(log.text(), "^0 !12");
    cr_assert_eq(queue.pending(), 0u);
}

SK_TEST(virtual_time, work_runs_only_when_advanced_and_each_call_says_how_many_ran) {
    auto queue = skt::virtual_queue::create();
    std::vector<int> order;
    queue.after(0.002, track([&order] { order.push_back(2); }));
    queue.after(std::chrono::milliseconds(1), track([&order] { order.push_back(1); }));
    queue.async(track([&order] { order.push_back(0); }));
    cr_assert_eq(queue.pending(), 3u);
    cr_assert(order.empty());
    cr_assert_eq(queue.now(), std::chrono::nanoseconds(0));
    cr_assert_eq(queue.advance_by(0.0015), 2u);
    cr_assert_eq(queue.now().count(), 1500000);
    cr_assert_eq(queue.pending(), 1u);
    cr_assert_eq(queue.advance_to(std::chrono::milliseconds(3)), 1u);
    cr_assert_eq(queue.now(), std::chrono::milliseconds(3));
    cr_assert(order == std::vector<int>({0, 1, 2}));
    cr_assert_eq(queue.run(), 0u);
    cr_assert_eq(queue.advance_by(0.0), 0u);

    /* A virtual_queue is a queue: timers and operators take it. run() stops
     * at its bound with more due (SK_ERR_RESOURCE); pending() still counts
     * the timer's next task. */
    int ticks = 0;
    auto timer = sk::start_timer(queue, frame, true, track([&ticks] { ticks++; }));
    cr_assert(contains(expect_error(SK_ERR_RESOURCE, [&] { queue.run(5); }), "sk_queue_virtual_run"));
    cr_assert_eq(ticks, 5);
    cr_assert_eq(queue.pending(), 1u);
    cr_assert_eq(queue.now(), std::chrono::milliseconds(8));
    timer.dispose();
    cr_assert_eq(queue.pending(), 0u);
    cr_assert(queue.is_current() == false);
}

SK_TEST(virtual_time, queue_errors_throw_the_c_status_and_message) {
    auto queue = skt::virtual_queue::create("errors");
    cr_assert(contains(expect_error(SK_ERR_INVALID_ARGUMENT, [&] { queue.advance_by(-1.0); }),
                       "sk_queue_virtual_advance_by"));
    queue.advance_by(0.002);
    expect_error(SK_ERR_INVALID_ARGUMENT, [&] { queue.advance_to(0.001); });
    cr_assert_eq(queue.now(), std::chrono::milliseconds(2));

    /* From the queue's own work: caught there (a callback must not throw). */
    int inside = SK_OK;
    queue.async([&] {
        try {
            queue.advance_by(frame);
        } catch (const sk::error &e) {
            inside = e.code();
        }
    });
    queue.run();
    cr_assert_eq(inside, SK_ERR_UNSUPPORTED);

    /* Another kind of queue, and an empty handle. */
    auto real = sk::queue::host("real");
    auto wrong = skt::virtual_queue::borrow(real.get());
    expect_error(SK_ERR_WRONG_KIND, [&] { wrong.run(); });
    expect_error(SK_ERR_WRONG_KIND, [&] { wrong.now(); });
    expect_error(SK_ERR_WRONG_KIND, [&] { wrong.pending(); });
    expect_error(SK_ERR_WRONG_KIND, [&] { wrong.advance_to(1.0); });
    skt::virtual_queue empty;
    cr_assert_not(empty);
    expect_error(SK_ERR_NULL_ARGUMENT, [&] { empty.advance_by(frame); });
    expect_error(SK_ERR_NULL_ARGUMENT, [&] { empty.pending(); });
}

SK_TEST(virtual_time, value_tables_map_characters_to_values_both_ways) {
    auto queue = skt::virtual_queue::create();
    const skt::marble_values table = {{'1', 10}, {'2', 20}};
    auto [source, log] = skt::cold(queue, frame, "-1-(21)#", table, sk::value(-1));
    auto recorder = skt::record(source, queue, frame);
    auto seen = std::make_shared<events>();
    auto subscription = record(source, seen);
    queue.run();
    cr_assert(seen->ints() == std::vector<std::int64_t>({10, 20, 10}));
    cr_assert_eq(seen->errors.size(), 1u);
    cr_assert_eq(seen->errors[0].as<std::int64_t>(), -1);
    cr_assert_eq(recorder.diagram(table), "-1-(21)#");
    cr_assert_eq(recorder.diagram({{'1', 10}}), "-1-(?1)#");
    cr_assert_eq(recorder.diagram(), "-?-(?\?)#"); /* "?\?": no trigraph */
    cr_assert_eq(log.text(), "^0 !4 ^0 !4");

    /* Without a table, letters and digits are one-character strings. */
    auto [letters, unused] = skt::cold(queue, frame, "xy|");
    auto strings = std::make_shared<events>();
    auto letters_subscription = record(letters, strings);
    queue.run();
    cr_assert_eq(strings->values.size(), 2u);
    cr_assert_eq(strings->values[0].as<std::string>(), "x");
    cr_assert_eq(strings->values[1].as<std::string>(), "y");
    cr_assert_eq(unused.text(), "^4 !6"); /* in the clock's frames: x at 4, y at 5, | at 6 */
}

SK_TEST(virtual_time, a_hot_signal_plays_once_from_its_subscription_point) {
    auto queue = skt::virtual_queue::create();
    auto [source, log] = skt::hot(queue, frame, "-x^-a-b-c|");
    auto early = skt::record(source, queue, frame);
    queue.advance_to(2 * frame);
    auto late = skt::record(source, queue, frame);
    cr_assert_eq(log.text(), "^0 ^2");
    queue.run();
    cr_assert_eq(early.diagram(), "-a-b-c|");
    cr_assert_eq(late.diagram(), "---b-c|");
    cr_assert_eq(log.text(), "^0 !6 ^2 !6");
}

SK_TEST(virtual_time, the_subscription_log_and_a_disposed_recorder) {
    auto queue = skt::virtual_queue::create();
    auto [source, log] = skt::cold(queue, frame, "-a-b-c-d|");
    cr_assert_eq(log.text(), "");
    auto first = skt::record(source, queue, frame);
    queue.advance_to(2 * frame);
    first.dispose();
    first.dispose(); /* only the first has an effect */
    queue.advance_to(4 * frame);
    auto second = skt::record(source, queue, frame);
    queue.advance_to(6 * frame);
    cr_assert_eq(log.text(), "^0 !2 ^4");
    second.reset(); /* releasing the last reference disposes */
    queue.run();
    cr_assert_eq(first.diagram(), "-a");
    cr_assert_eq(log.text(), "^0 !2 ^4 !6");
    /* The log outlives its signal. */
    source.reset();
    cr_assert_eq(log.text(), "^0 !2 ^4 !6");
    /* A diagram longer than any first guess at its size (on a new queue:
     * a recorder's frames count from the clock's 0). */
    auto long_queue = skt::virtual_queue::create();
    auto [many, many_log] = skt::cold(long_queue, frame, std::string(300, '-') + "a|");
    auto long_recorder = skt::record(many, long_queue, frame);
    long_queue.run();
    cr_assert_eq(long_recorder.diagram(), std::string(300, '-') + "a|");
    cr_assert_eq(many_log.text(), "^0 !301");
}

SK_TEST(virtual_time, a_malformed_diagram_throws_the_c_message_with_its_position) {
    auto queue = skt::virtual_queue::create();
    std::string message = expect_error(SK_ERR_INVALID_ARGUMENT, [&] { skt::cold(queue, frame, "-a-!|"); });
    cr_assert(contains(message, "sk_test_signal_cold: marble diagram: unexpected character `!` at position 3:"),
              "%s", message.c_str());
    cr_assert(contains(message, "\n  -a-!|\n     ^"), "%s", message.c_str());
    message = expect_error(SK_ERR_INVALID_ARGUMENT, [&] { skt::hot(queue, frame, "^a-(b"); });
    cr_assert(contains(message, "sk_test_signal_hot"), "%s", message.c_str());
    message = expect_error(SK_ERR_INVALID_ARGUMENT, [&] { skt::cold(queue, frame, "ab^c|"); });
    cr_assert(contains(message, "at position 2:"), "%s", message.c_str());

    /* The other arguments' errors. */
    expect_error(SK_ERR_INVALID_ARGUMENT, [&] { skt::cold(queue, 0.0, "a|"); });
    expect_error(SK_ERR_INVALID_ARGUMENT, [&] { skt::cold(queue, frame, "a|", {{'!', 1}}); });
    expect_error(SK_ERR_INVALID_ARGUMENT, [&] { skt::hot(queue, frame, "a-b|", {{'a', 1}}); });
    auto real = sk::queue::host("real");
    expect_error(SK_ERR_WRONG_KIND, [&] { skt::cold(real, frame, "a|"); });
    expect_error(SK_ERR_WRONG_KIND, [&] { skt::hot(real, frame, "a|"); });
    expect_error(SK_ERR_NULL_ARGUMENT, [&] { skt::cold(skt::virtual_queue(), frame, "a|"); });

    /* (Not a structured binding: C++17 lambdas cannot capture one.) */
    sk::signal good = skt::cold(queue, frame, "a|").signal;
    expect_error(SK_ERR_WRONG_KIND, [&] { skt::record(good, real, frame); });
    expect_error(SK_ERR_INVALID_ARGUMENT, [&] { skt::record(good, queue, -1.0); });
    expect_error(SK_ERR_NULL_ARGUMENT, [&] { skt::record(sk::signal(), queue, frame); });
    auto recorder = skt::record(good, queue, frame);
    expect_error(SK_ERR_INVALID_ARGUMENT, [&] { recorder.diagram({{'?', 1}}); });

    /* Empty handles. */
    skt::recorder no_recorder;
    skt::subscriptions no_log;
    cr_assert_not(no_recorder);
    cr_assert_not(no_log);
    expect_error(SK_ERR_NULL_ARGUMENT, [&] { no_recorder.diagram(); });
    expect_error(SK_ERR_NULL_ARGUMENT, [&] { no_log.text(); });
    no_recorder.dispose();
}

SK_TEST(virtual_time, the_move_only_handles_adopt_detach_and_move) {
    auto queue = skt::virtual_queue::create();
    auto [source, log] = skt::cold(queue, frame, "-a|");
    auto recorder = skt::record(source, queue, frame);
    /* detach() and adopt() hand the references over and back. */
    auto again = skt::recorder::adopt(recorder.detach());
    cr_assert_not(recorder);
    cr_assert(again);
    auto log_again = skt::subscriptions::adopt(log.detach());
    /* A move leaves the source empty; a move assignment releases what the
     * target held (here a recorder, which disposes its subscription). */
    skt::recorder moved(std::move(again));
    cr_assert_not(again);
    auto other = skt::record(source, queue, frame);
    other = std::move(moved);
    cr_assert_eq(log_again.text(), "^0 ^0 !0");
    queue.run();
    cr_assert_eq(other.diagram(), "-a|");
    /* A virtual_queue copies like any queue handle. */
    skt::virtual_queue copy = queue;
    cr_assert(copy == queue);
    sk::queue plain = copy;
    cr_assert(plain.get() == queue.get());
}

/* Every order of releasing the queue, the signal, its log and a recorder,
 * with a debounce timer, a cold signal's events and a tracked task pending:
 * nothing is left alive after any of them. */
SK_TEST(virtual_time, handles_released_in_every_order_with_work_pending) {
    std::array<int, 4> order = {0, 1, 2, 3};
    int orders = 0;
    do {
        {
            std::optional<skt::virtual_queue> queue = skt::virtual_queue::create();
            auto made = skt::cold(*queue, frame, "-a-b-------c|");
            std::optional<sk::signal> source(std::move(made.signal));
            std::optional<skt::subscriptions> log(std::move(made.subscriptions));
            std::optional<skt::recorder> recorder =
                skt::record(*source | sk::debounce(3 * frame, *queue), *queue, frame);
            queue->after(1.0, track([] {}));
            queue->advance_by(4 * frame);
            cr_assert_gt(queue->pending(), 1u);
            for (int which : order) {
                switch (which) {
                case 0: queue.reset(); break;
                case 1: source.reset(); break;
                case 2: log.reset(); break;
                default: recorder.reset(); break;
                }
            }
        }
        cr_assert_eq(sk::live_objects(), 0, "order %d %d %d %d: %ld live objects", order[0], order[1], order[2],
                     order[3], sk::live_objects());
        cr_assert_eq(sk_test::alive(), 0);
        orders++;
    } while (std::next_permutation(order.begin(), order.end()));
    cr_assert_eq(orders, 24);
}

/* Test signals play on their frames' grid: a cold subscription made in the
 * middle of a frame (here behind work at 1.5 frames, as behind a delay that
 * is not a whole number of frames) gets its frame-0 events at once and its
 * frame-t events at the start of the frame t after the one it was made in,
 * so less than t frames after it; a hot signal made mid-frame plays from
 * the start of its frame likewise. signalkit_test.h documents it (it said
 * "t frames after the subscription", which holds only at a frame's start):
 * found recording a 2 ms cold signal with a 1 ms recorder after a
 * clock that had moved a few nanoseconds. */
SK_TEST(virtual_time, test_signals_play_on_the_frame_grid_from_a_subscription_made_mid_frame) {
    auto queue = skt::virtual_queue::create();
    /* Not a structured binding: a lambda captures none in C++17 (clang). */
    auto source = skt::cold(queue, frame, "a-b|");
    std::vector<std::int64_t> times;
    sk::disposable subscription;
    queue.after(1.5 * frame, track([&] {
        auto stamp = [&] { times.push_back(queue.now().count()); };
        subscription = source.signal.start([stamp](const sk::value_view &) { stamp(); }, sk::none, stamp);
    }));
    queue.run();
    /* Frame 0 at 1.5 ms (at once), frame 2 at 3 ms and frame 3 at 4 ms: the
     * start of frames 1 + 2 and 1 + 3, not 3.5 ms and 4.5 ms. */
    cr_assert(times == (std::vector<std::int64_t>{1500000, 3000000, 4000000}), "times %zu", times.size());
    cr_assert_eq(source.subscriptions.text(), "^1 !4");

    queue.advance_by(0.5 * frame); /* 4.5 ms: the middle of frame 4 */
    auto played = skt::hot(queue, frame, "^-x|");
    auto results = skt::record(played.signal, queue, frame);
    std::vector<std::int64_t> hot_times;
    auto listener = played.signal.start([&](const sk::value_view &) { hot_times.push_back(queue.now().count()); });
    queue.run();
    cr_assert_eq(results.diagram(), "-----x|");
    cr_assert(hot_times == (std::vector<std::int64_t>{5000000}), "hot x at the start of frame 5");
}
