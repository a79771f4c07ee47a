/* Errors: every failing C call surfaces as signalkit::error with the
 * sk_status and the library's message; a callable that throws inside a C
 * callback terminates the process (documented in signalkit.hpp). */
#include "support.hpp"

#include <csignal>
#include <cstring>

using sk_test::track;

SK_TEST(errors, error_carries_status_and_message) {
    sk::signal empty;
    try {
        (void)empty.take(1);
        cr_assert_fail("no exception");
    } catch (const sk::error &e) {
        cr_assert_eq(e.code(), SK_ERR_NULL_ARGUMENT);
        cr_assert_str_eq(e.status_string(), sk_status_string(SK_ERR_NULL_ARGUMENT));
        cr_assert(std::strstr(e.what(), "sk_signal_take") != nullptr, "%s", e.what());
    }
}

SK_TEST(errors, each_failing_call_throws) {
    auto q = sk::queue::serial("cpp.errors");
    cr_assert_throw(q.fd(), sk::error);
    cr_assert_throw(q.drain(), sk::error);
    cr_assert_throw(sk::single(1).delay(-1.0, q), sk::error);
    cr_assert_throw(sk::single(1).retry(-1.0, 1.0, q), sk::error);
    cr_assert_throw(sk::single(1).timeout(1.0, q, sk::signal()), sk::error);
    cr_assert_throw(sk::start_timer(q, -1.0, false, track([] {})), sk::error);
    cr_assert_throw(sk::pipe().put(1), sk::error);
    cr_assert_throw(sk::subscriber().put_next(1), sk::error);
    cr_assert_throw(sk::disposable::set().meta_set(sk::disposable()), sk::error);
    cr_assert_throw(sk::value(static_cast<const char *>(nullptr)), sk::error);
    try {
        (void)sk::single(1).debounce(std::numeric_limits<double>::quiet_NaN(), q);
        cr_assert_fail("no exception");
    } catch (const sk::error &e) {
        cr_assert_eq(e.code(), SK_ERR_INVALID_ARGUMENT);
    }
    q.sync([] {});
}

SK_TEST(errors, status_free_calls_never_throw) {
    sk::disposable().dispose();
    sk::signal().reset();
    cr_assert_not(sk::queue().is_current());
}

/* A callable that throws inside a C callback cannot unwind through the
 * library: the trampolines are noexcept, std::terminate runs (SIGABRT).
 * The Swift runtime's crash handler (its backtracer) would catch the SIGABRT
 * and read memory ASan objects to: these tests let the signal kill the
 * process directly. */
static void plain_abort() { std::signal(SIGABRT, SIG_DFL); }
SK_TEST_WITH(errors, a_throwing_callback_terminates, .signal = SIGABRT, .timeout = 20) {
    auto p = sk::pipe::create();
    auto d = p.signal().start([](std::int64_t) { throw std::runtime_error("from a callback"); });
    plain_abort();
    p.put(1);
}

SK_TEST_WITH(errors, a_typed_callback_given_another_kind_terminates, .signal = SIGABRT, .timeout = 20) {
    auto p = sk::pipe::create();
    auto d = (p.signal() | sk::map([](std::int64_t n) { return n; })).start();
    plain_abort();
    p.put("not a number");
}

/* As the header's Errors paragraph says: a typed callback given an int64
 * out of its parameter type's range terminates (as<T> throws
 * SK_ERR_INVALID_ARGUMENT inside a noexcept trampoline), for std::size_t
 * given -1 too (it received 18446744073709551615). */
SK_TEST_WITH(errors, a_typed_callback_given_an_integer_out_of_range_terminates, .signal = SIGABRT, .timeout = 20) {
    auto p = sk::pipe::create();
    auto d = p.signal().start([](std::int8_t) {});
    plain_abort();
    p.put(300);
}
SK_TEST_WITH(errors, a_size_t_callback_given_a_negative_integer_terminates, .signal = SIGABRT, .timeout = 20) {
    auto p = sk::pipe::create();
    auto d = p.signal().start([](std::size_t) {});
    plain_abort();
    p.put(-1);
}

SK_TEST(errors, catch_error_turns_failures_into_values) {
    auto log = std::make_shared<sk_test::events>();
    sk_test::record(sk::fail(sk::value(std::vector<sk::value>{"timeout", 3})) |
                        sk::catch_error([](const sk::value &e) { return sk::single(e[1].as<std::int64_t>()); }),
                    log);
    cr_assert(log->ints() == sk_test::v({3}));
}
