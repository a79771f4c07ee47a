/* Errors: every failing C call surfaces as signalkit::error with the
 * sk_status and the library's message; a callable that throws inside an
 * operator's callback (map, filter, a fold...) ends the stream with an
 * error event, as start()'s on_next does; inside another callback
 * (start()'s on_error) it terminates the process;
 * a typed callable given a value it cannot take, or whose result cannot be
 * a value, fails the stream or stops the process (documented in
 * signalkit.hpp). */
#include "support.hpp"

#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <new>
#include <string>
#include <sys/wait.h>
#include <unistd.h>

using sk_test::track;

/* The suite's operator new: the standard one's behaviour (malloc), but
 * refusing blocks of 4 KiB or more on a thread that sets
 * refuse_big_blocks (a test's std::string argument of 10,000 bytes). Not
 * under ThreadSanitizer, whose runtime defines operator new itself (the
 * link would have two). */
#if defined(__SANITIZE_THREAD__)
#define SK_TEST_OWN_NEW 0
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define SK_TEST_OWN_NEW 0
#endif
#endif
#ifndef SK_TEST_OWN_NEW
#define SK_TEST_OWN_NEW 1
#endif
#if SK_TEST_OWN_NEW
namespace {
thread_local bool refuse_big_blocks = false;
}
void *operator new(std::size_t size) {
    if (refuse_big_blocks && size >= 4096) {
        throw std::bad_alloc();
    }
    if (void *block = std::malloc(size != 0 ? size : 1)) {
        return block;
    }
    throw std::bad_alloc();
}
void operator delete(void *block) noexcept { std::free(block); }
void operator delete(void *block, std::size_t) noexcept { std::free(block); }
#endif

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
    /* on_error: a callback without an error path (on_next's throw ends the
     * stream: an_on_next_that_throws_ends_the_stream_with_an_error). */
    auto d = p.signal().start(sk::none, [](std::int64_t) { throw std::runtime_error("from a callback"); });
    plain_abort();
    p.put_error(1);
}

SK_TEST_WITH(errors, a_typed_callback_given_another_kind_terminates, .signal = SIGABRT, .timeout = 20) {
    auto p = sk::pipe::create();
    auto d = p.signal().start(sk::none, [](std::int64_t) {});
    plain_abort();
    p.put_error("not a number");
}

/* Operator callbacks can fail (sk_callback_fail): a throw, an argument
 * the callable's parameter cannot take and a result that cannot be a value
 * each end the stream with an error event, a string naming the operator;
 * the values before it pass, nothing after it. */
static void expect_values_then_error(sk::signal s, sk::pipe &p, const std::vector<std::int64_t> &puts,
                                     const std::vector<std::int64_t> &values, const char *error) {
    auto log = std::make_shared<sk_test::events>();
    auto d = sk_test::record(std::move(s), log);
    for (std::int64_t n : puts) {
        p.put(n);
    }
    p.put_completion();
    cr_assert(log->ints() == values, "values: %zu", log->ints().size());
    cr_assert_eq(log->errors.size(), 1u, "one error event");
    cr_assert_eq(log->completions, 0);
    std::string message = log->errors[0].as<std::string>();
    cr_assert_str_eq(message.c_str(), error);
}

SK_TEST(errors, a_throw_in_map_filter_or_a_fold_is_an_error_event) {
    {
        auto p = sk::pipe::create();
        expect_values_then_error(p.signal() | sk::map(sk_test::track([](std::int64_t n) {
                                     if (n == 2) {
                                         throw std::runtime_error("two");
                                     }
                                     return n * 10;
                                 })),
                                 p, {1, 2, 3}, {10}, "signalkit::map: the callable threw: two");
    }
    {
        auto p = sk::pipe::create();
        expect_values_then_error(p.signal() | sk::filter(sk_test::track([](std::int64_t n) -> bool {
                                     if (n == 3) {
                                         throw 42;
                                     }
                                     return true;
                                 })),
                                 p, {1, 2, 3, 4}, {1, 2},
                                 "signalkit::filter: the callable threw something that is not a std::exception");
    }
    {
        auto p = sk::pipe::create();
        expect_values_then_error(p.signal() | sk::scan(sk::value(0), sk_test::track([](std::int64_t a, std::int64_t n) {
                                     if (n == 3) {
                                         throw std::logic_error("three");
                                     }
                                     return a + n;
                                 })),
                                 p, {1, 2, 3, 4}, {1, 3}, "signalkit::scan: the callable threw: three");
    }
    {
        auto p = sk::pipe::create();
        expect_values_then_error(p.signal() | sk::reduce_left(sk::value(0), sk_test::track([](std::int64_t a, std::int64_t n) {
                                     if (n == 2) {
                                         throw std::runtime_error("fold");
                                     }
                                     return a + n;
                                 })),
                                 p, {1, 2, 3}, {}, "signalkit::reduce_left: the callable threw: fold");
    }
    {
        auto p = sk::pipe::create();
        expect_values_then_error(p.signal() | sk::take_while(sk_test::track([](std::int64_t n) -> bool {
                                     if (n == 2) {
                                         throw std::runtime_error("while");
                                     }
                                     return true;
                                 })),
                                 p, {1, 2, 3}, {1}, "signalkit::take_while: the callable threw: while");
    }
    {
        auto p = sk::pipe::create();
        expect_values_then_error(p.signal() | sk::map_to_signal(sk_test::track([](std::int64_t n) {
                                     if (n == 2) {
                                         throw std::runtime_error("inner");
                                     }
                                     return sk::single(n);
                                 })),
                                 p, {1, 2, 3}, {1}, "signalkit::map_to_signal: the callable threw: inner");
    }
}

/* group_by's key is an operator callback as map's function is: a throw
 * there ends the result and every group delivered before it with the
 * error, and disposes the upstream; nothing after it (before: its
 * trampoline let the exception reach noexcept, and std::terminate ran). */
SK_TEST(errors, a_throw_in_group_by_s_key_ends_the_result_and_every_group) {
    auto p = sk::pipe::create();
    auto disposed = std::make_shared<int>(0);
    auto keys = std::make_shared<sk_test::events>();
    auto groups = std::make_shared<std::vector<std::shared_ptr<sk_test::events>>>();
    auto subscriptions = std::make_shared<std::vector<sk::disposable>>();
    auto grouped = p.signal().after_disposed(track([disposed] { ++*disposed; })) |
                   sk::group_by(track([](std::int64_t n) {
                       if (n == 3) {
                           throw std::runtime_error("three");
                       }
                       return n * 10;
                   }));
    auto d = grouped.start(track([keys, groups, subscriptions](const sk::value &pair) {
                               auto items = pair.as<std::vector<sk::value>>();
                               keys->next(items[0]);
                               groups->push_back(std::make_shared<sk_test::events>());
                               subscriptions->push_back(sk_test::record(items[1].as<sk::signal>(), groups->back()));
                           }),
                           track([keys](const sk::value &e) { keys->error(e); }),
                           track([keys] { keys->completed(); }));
    p.put(1); /* key 10: the first group */
    p.put(2); /* key 20: the second */
    p.put(3); /* the key throws */
    cr_assert_eq(*disposed, 1, "the upstream was disposed by the failure");
    p.put(4); /* nothing more */
    p.put_completion();
    const char *expected = "signalkit::group_by: the callable threw: three";
    cr_assert(keys->ints() == sk_test::v({10, 20}), "keys: %zu", keys->values.size());
    cr_assert_eq(keys->errors.size(), 1u, "the result ends with one error event");
    cr_assert_eq(keys->completions, 0);
    std::string message = keys->errors[0].as<std::string>();
    cr_assert_str_eq(message.c_str(), expected);
    cr_assert_eq(groups->size(), 2u, "two groups before the failure, none for it");
    for (std::size_t i = 0; i < groups->size(); i++) {
        auto &group = *(*groups)[i];
        cr_assert(group.ints() == sk_test::v({static_cast<std::int64_t>(i) + 1}), "group %zu's values", i);
        cr_assert_eq(group.errors.size(), 1u, "group %zu ends with the error", i);
        cr_assert_eq(group.completions, 0);
        message = group.errors[0].as<std::string>();
        cr_assert_str_eq(message.c_str(), expected);
    }
    subscriptions->clear();
}

SK_TEST(errors, an_argument_or_a_result_a_map_or_a_key_cannot_have_is_an_error_event) {
    {
        auto p = sk::pipe::create();
        auto log = std::make_shared<sk_test::events>();
        auto d = sk_test::record(p.signal() | sk::map(sk_test::track([](std::int64_t n) { return n; })), log);
        p.put(1);
        p.put("not a number");
        p.put(2);
        cr_assert(log->ints() == sk_test::v({1}));
        cr_assert_eq(log->errors.size(), 1u);
        std::string message = log->errors[0].as<std::string>();
        cr_assert_str_eq(message.c_str(),
                         "signalkit::map: the callable's parameter cannot take the value: "
                         "sk_value_get_int64: value is a string (SK_KIND_STRING), expected an int64 (SK_KIND_INT64)");
    }
    {
        auto p = sk::pipe::create();
        auto log = std::make_shared<sk_test::events>();
        auto d = sk_test::record(p.signal() | sk::map(sk_test::track([](std::int64_t n) {
                                     return n == 2 ? std::numeric_limits<std::uint64_t>::max() : std::uint64_t(n);
                                 })),
                                 log);
        p.put(1);
        p.put(2);
        p.put(3);
        cr_assert(log->ints() == sk_test::v({1}));
        cr_assert_eq(log->errors.size(), 1u);
        std::string message = log->errors[0].as<std::string>();
        cr_assert(message.rfind("signalkit::map: the callable's result cannot be a value: ", 0) == 0, "%s",
                  message.c_str());
    }
    {
        /* group_by's key, the same (before: the process stopped). */
        auto p = sk::pipe::create();
        auto log = std::make_shared<sk_test::events>();
        auto d = sk_test::record(p.signal() | sk::group_by(sk_test::track([](std::int64_t n) { return n; })), log);
        p.put(1);
        p.put("not a number");
        p.put(2);
        cr_assert_eq(log->values.size(), 1u, "the group of 1 only");
        cr_assert_eq(log->errors.size(), 1u);
        std::string message = log->errors[0].as<std::string>();
        cr_assert_str_eq(message.c_str(),
                         "signalkit::group_by: the callable's parameter cannot take the value: "
                         "sk_value_get_int64: value is a string (SK_KIND_STRING), expected an int64 (SK_KIND_INT64)");
    }
}

/* As the header's Values paragraph says: a typed callback given an int64
 * out of its parameter type's range stops the process (as<T> refuses it
 * with SK_ERR_INVALID_ARGUMENT; start's callback has no error path), for
 * std::size_t given -1 too (it received 18446744073709551615). */
SK_TEST_WITH(errors, a_typed_callback_given_an_integer_out_of_range_terminates, .signal = SIGABRT, .timeout = 20) {
    auto p = sk::pipe::create();
    auto d = p.signal().start(sk::none, [](std::int8_t) {});
    plain_abort();
    p.put_error(300);
}
SK_TEST_WITH(errors, a_size_t_callback_given_a_negative_integer_terminates, .signal = SIGABRT, .timeout = 20) {
    auto p = sk::pipe::create();
    auto d = p.signal().start(sk::none, [](std::size_t) {});
    plain_abort();
    p.put_error(-1);
}

/* A value of another kind is named in words, both kinds as signalkit.h
 * spells them (the C message, which the header passes on). */
SK_TEST(errors, as_on_another_kind_names_both_kinds) {
    try {
        (void)sk::value("text").as<std::int64_t>();
        cr_assert_fail("no exception");
    } catch (const sk::error &e) {
        cr_assert_eq(e.code(), SK_ERR_WRONG_KIND);
        cr_assert_str_eq(e.what(),
                         "sk_value_get_int64: value is a string (SK_KIND_STRING), expected an int64 (SK_KIND_INT64)");
    }
}

/* Where the operator has an error path (its callable returns a signal),
 * a typed callable given a value it cannot take fails the stream with a
 * message naming both kinds; the callable is not called. */
SK_TEST(errors, map_to_signal_given_another_kind_fails_the_stream) {
    auto log = std::make_shared<sk_test::events>();
    auto calls = std::make_shared<int>(0);
    auto p = sk::pipe::create();
    auto d = sk_test::record(p.signal() | sk::map_to_signal(sk_test::track([calls](std::int64_t n) {
                                 ++*calls;
                                 return sk::single(n + 1);
                             })),
                             log);
    p.put(1);
    p.put("one");
    p.put(2);
    cr_assert(log->ints() == sk_test::v({2}));
    cr_assert_eq(*calls, 1);
    cr_assert_eq(log->errors.size(), 1u);
    std::string message = log->errors[0].as<std::string>();
    cr_assert_str_eq(message.c_str(),
                     "signalkit::map_to_signal: the callable's parameter cannot take the value: "
                     "sk_value_get_int64: value is a string (SK_KIND_STRING), expected an int64 (SK_KIND_INT64)");
}

/* A std::string parameter whose copy finds no memory: every operator
 * callable with an error path fails the stream, naming itself (map_to_signal
 * and catch_error let std::bad_alloc out of their noexcept trampoline:
 * std::terminate). */
SK_TEST(errors, an_argument_without_memory_fails_the_stream) {
#if !SK_TEST_OWN_NEW
    cr_skip_test("ThreadSanitizer's runtime has its own operator new");
#else
    const std::string big(10000, 'x');
    struct made {
        const char *name;
        sk::signal signal;
    };
    auto calls = std::make_shared<int>(0);
    const made cases[] = {
        {"map", sk::single(big) | sk::map([calls](std::string t) { ++*calls; return static_cast<std::int64_t>(t.size()); })},
        {"filter", sk::single(big) | sk::filter([calls](std::string) { ++*calls; return true; })},
        {"map_to_signal", sk::single(big) | sk::map_to_signal([calls](std::string t) {
             ++*calls;
             return sk::single(static_cast<std::int64_t>(t.size()));
         })},
        {"catch_error", sk::fail(big) | sk::catch_error([calls](std::string) { ++*calls; return sk::single(0); })},
    };
    for (const auto &c : cases) {
        auto log = std::make_shared<sk_test::events>();
        refuse_big_blocks = true;
        auto d = sk_test::record(c.signal, log);
        refuse_big_blocks = false;
        cr_assert(log->values.empty(), "%s", c.name);
        cr_assert_eq(log->errors.size(), 1u, "%s", c.name);
        std::string expected = std::string("signalkit::") + c.name + ": the callable's parameter cannot take the value: out of memory";
        std::string message = log->errors[0].as<std::string>();
        cr_assert_str_eq(message.c_str(), expected.c_str());
    }
    cr_assert_eq(*calls, 0);
#endif
}

SK_TEST(errors, catch_error_given_another_kind_fails_the_stream) {
    auto log = std::make_shared<sk_test::events>();
    sk_test::record(sk::fail(sk::value(2.5)) |
                        sk::catch_error(sk_test::track([](std::string_view) { return sk::single(0); })),
                    log);
    cr_assert(log->values.empty());
    cr_assert_eq(log->errors.size(), 1u);
    std::string message = log->errors[0].as<std::string>();
    cr_assert_str_eq(message.c_str(),
                     "signalkit::catch_error: the callable's parameter cannot take the value: "
                     "sk_value_get_string: value is a double (SK_KIND_DOUBLE), expected a string (SK_KIND_STRING)");
}

/* Where no error can reach the stream (a start callback, before_next...),
 * a typed callable given a value it cannot take stops the process: before
 * it does, the message naming both kinds goes to stderr and what stdio and
 * the iostreams still buffered is written out. In a child process (forked
 * before this process used the library), with stdout and stderr in files:
 * the child prints without a newline into a fully buffered stdout, stdio
 * and iostreams each with a buffer of its own, then puts a string into an
 * int64 start callback. */
static std::string file_text(const char *path) {
    std::string text;
    if (FILE *f = std::fopen(path, "r")) {
        char buffer[512];
        std::size_t n;
        while ((n = std::fread(buffer, 1, sizeof buffer, f)) > 0) {
            text.append(buffer, n);
        }
        std::fclose(f);
    }
    return text;
}
SK_TEST(errors, a_typed_callback_given_another_kind_flushes_names_the_kinds_and_aborts) {
    char out_path[] = "/tmp/sk-cpp-abort-out-XXXXXX", err_path[] = "/tmp/sk-cpp-abort-err-XXXXXX";
    int out_fd = mkstemp(out_path), err_fd = mkstemp(err_path);
    cr_assert(out_fd >= 0 && err_fd >= 0);
    pid_t pid = fork();
    cr_assert(pid >= 0);
    if (pid == 0) {
        dup2(out_fd, STDOUT_FILENO);
        dup2(err_fd, STDERR_FILENO);
        std::ios::sync_with_stdio(false);
        plain_abort();
        auto p = sk::pipe::create();
        auto d = p.signal().start(sk::none, [](std::int64_t) {});
        std::printf("stdio, unflushed;");
        std::cout << "iostream, unflushed;";
        p.put_error("not a number");
        _exit(0); /* not reached */
    }
    int status = 0;
    cr_assert_eq(waitpid(pid, &status, 0), pid);
    close(out_fd);
    close(err_fd);
    std::string out = file_text(out_path), err = file_text(err_path);
    unlink(out_path);
    unlink(err_path);
    cr_assert(WIFSIGNALED(status) && WTERMSIG(status) == SIGABRT, "status %d; stderr: %s", status, err.c_str());
    cr_assert(out.find("stdio, unflushed;") != std::string::npos, "stdout: %s", out.c_str());
    cr_assert(out.find("iostream, unflushed;") != std::string::npos, "stdout: %s", out.c_str());
    cr_assert(err.find("signalkit::start (on_error): the callable's parameter cannot take the value: sk_value_get_int64: value is "
                       "a string (SK_KIND_STRING), expected an int64 (SK_KIND_INT64)") != std::string::npos,
              "stderr: %s", err.c_str());
}

/* start()'s on_next that throws, or whose parameter cannot take the value,
 * ends the stream with an error event (sk_signal_start_failable): nothing
 * after it, the upstream disposed, the callables destroyed once. */
SK_TEST(errors, an_on_next_that_throws_ends_the_stream_with_an_error) {
    for (int wrong_kind = 0; wrong_kind <= 1; wrong_kind++) {
        auto p = sk::pipe::create();
        auto values = std::make_shared<std::vector<std::int64_t>>();
        auto errors = std::make_shared<std::vector<std::string>>();
        auto completions = std::make_shared<int>(0);
        auto disposed = std::make_shared<int>(0);
        auto d = p.signal().after_disposed([disposed] { ++*disposed; }).start(
            [values](std::int64_t n) {
                values->push_back(n);
                if (n == 2) {
                    throw std::runtime_error("boom at 2");
                }
            },
            [errors](const std::string &e) { errors->push_back(e); }, [completions] { ++*completions; });
        p.put(1);
        if (wrong_kind) {
            p.put("two");
        } else {
            p.put(2);
        }
        p.put(3);
        p.put_completion();
        cr_assert(*values == (wrong_kind ? std::vector<std::int64_t>{1} : std::vector<std::int64_t>{1, 2}));
        cr_assert_eq(errors->size(), 1u);
        const char *expected = wrong_kind ? "signalkit::start (on_next): the callable's parameter cannot take the value: "
                                          : "signalkit::start (on_next): the callable threw: boom at 2";
        cr_assert(errors->front().rfind(expected, 0) == 0, "error: %s", errors->front().c_str());
        cr_assert_eq(*completions, 0, "nothing after the error");
        cr_assert_eq(*disposed, 1, "the upstream is disposed");
    }
}

SK_TEST(errors, catch_error_turns_failures_into_values) {
    auto log = std::make_shared<sk_test::events>();
    sk_test::record(sk::fail(sk::value(std::vector<sk::value>{"timeout", 3})) |
                        sk::catch_error([](const sk::value &e) { return sk::single(e[1].as<std::int64_t>()); }),
                    log);
    cr_assert(log->ints() == sk_test::v({3}));
}

/* A side effect or an on_drop that throws, or whose parameter cannot take
 * the value, goes to the failure hook, naming it; the stream goes on (as in
 * Python and Rust: docs/misuse.md's table). */
static std::vector<std::string> *heard_by_hook = nullptr;
static void hear(const char *where, const char *what) { heard_by_hook->push_back(std::string(where) + ": " + what); }

SK_TEST(errors, a_throwing_side_effect_goes_to_the_failure_hook_and_the_stream_goes_on) {
    std::vector<std::string> heard;
    heard_by_hook = &heard;
    sk::failure_hook_fn before = sk::set_failure_hook(&hear);
    auto log = std::make_shared<sk_test::events>();
    {
        auto d = sk_test::record(sk_test::ints({1, 2, 3})
                            .before_next([](std::int64_t n) {
                                if (n == 2) {
                                    throw std::runtime_error("before_next refused 2");
                                }
                            })
                            .before_completed([] { throw 7; })
                            .after_next([](const std::string &) {}),
                        log);
    }
    sk::set_failure_hook(before);
    cr_assert(log->ints() == sk_test::v({1, 2, 3}));
    cr_assert_eq(log->completions, 1);
    cr_assert(log->errors.empty());
    /* In order: after_next cannot take 1 as a string (three times, one a
     * value), before_next's throw at 2, before_completed's. */
    cr_assert_eq(heard.size(), 5u, "%zu heard", heard.size());
    cr_assert(heard[0].rfind("after_next: ", 0) == 0, "%s", heard[0].c_str());
    cr_assert_eq(heard[1], "before_next: before_next refused 2");
    cr_assert(heard[2].rfind("after_next: ", 0) == 0, "%s", heard[2].c_str());
    cr_assert(heard[3].rfind("after_next: ", 0) == 0, "%s", heard[3].c_str());
    cr_assert_eq(heard[4], "before_completed: something that is not a std::exception");
}

/* The bounded pipe's on_drop under the same rule: a throw, or a value its
 * parameter cannot take, goes to the hook and the pipe goes on (it called
 * the callable unguarded: either ended the process; an acceptance program
 * found it). Values put from inside a delivery wait for it, at most one
 * here: the third is dropped. */
SK_TEST(errors, a_bounded_pipes_on_drop_that_throws_or_cannot_take_the_value_goes_to_the_hook) {
    std::vector<std::string> heard;
    heard_by_hook = &heard;
    sk::failure_hook_fn before = sk::set_failure_hook(&hear);
    std::vector<std::int64_t> got;
    std::vector<std::int64_t> dropped;
    {
        auto throwing = sk::pipe::create_bounded(1, sk::overflow::drop_newest, [&](std::int64_t v, std::uint64_t) {
            dropped.push_back(v);
            throw std::runtime_error("on_drop refused");
        });
        auto mistyped = sk::pipe::create_bounded(1, sk::overflow::drop_newest, [](const std::string &, std::uint64_t) {});
        for (const sk::pipe *p : { &throwing, &mistyped }) {
            auto d = p->signal().start([&, p](std::int64_t v) {
                got.push_back(v);
                if (v == 1) {
                    p->put(sk::value(std::int64_t{ 2 })); /* waits for this delivery */
                    p->put(sk::value(std::int64_t{ 3 })); /* dropped */
                }
            });
            p->put(sk::value(std::int64_t{ 1 }));
            d.dispose();
        }
    }
    sk::set_failure_hook(before);
    cr_assert(got == sk_test::v({ 1, 2, 1, 2 }), "the pipes went on");
    cr_assert(dropped == sk_test::v({ 3 }));
    cr_assert_eq(heard.size(), 2u, "%zu heard", heard.size());
    cr_assert_eq(heard[0], "on_drop: on_drop refused");
    cr_assert(heard[1].rfind("on_drop: ", 0) == 0 && heard[1].find("expected a string") != std::string::npos, "%s",
              heard[1].c_str());
    cr_assert(sk::live_objects_wait(0, 10));
}
