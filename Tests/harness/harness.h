/*
 * harness.h - the test harness of the C, ffi and C++ suites (Tests/C,
 * Tests/C/ffi, Tests/cpp): a C99 and C++ header, and its runner,
 * Tests/harness/harness.c (main), linked into each suite's program. Its
 * names are those of Criterion, which the suites used before (the tests
 * did not change); the code is the project's own.
 *
 * Tests.
 *   Test(suite, name) { body }              a test
 *   Test(suite, name, .timeout = S) { ... } with options: .signal = SIG (the
 *                                           test passes when it dies of SIG),
 *                                           .timeout = S (seconds; a test
 *                                           still running then is killed and
 *                                           fails), in that order
 *   TestSuite(suite, .timeout = S);         the default options of the
 *                                           suite's tests
 *   ParameterizedTestParameters(suite, name) { ... return
 *       cr_make_param_array(Type, array, count); }
 *   ParameterizedTest(Type *param, suite, name, options) { body }
 *                                           one run of body per element of
 *                                           the array (allocate it with
 *                                           cr_malloc; the runner computes
 *                                           it before it starts the tests)
 * Registration needs nothing else: each test puts a pointer to its
 * description into the ELF section sk_h_tests (suites: sk_h_suites), which
 * the runner reads back through the linker's __start_ and __stop_ symbols.
 *
 * Assertions. Each takes its operands, then optionally a printf format and
 * its arguments (evaluated only when the assertion fails), and evaluates
 * each operand once:
 *   cr_assert(c)  cr_assert_not(c)  cr_assert_eq(a, b)  neq lt leq gt geq
 *   cr_assert_null(p)  cr_assert_not_null(p)
 *   cr_assert_str_eq(a, b)  cr_assert_str_neq(a, b)  cr_assert_str_empty(s)
 *   cr_assert_float_eq(a, b, epsilon)  cr_assert_arr_eq(a, b, bytes)
 *   cr_assert_throw(statement, ExceptionType)                  (C++ only)
 *   cr_assert_fail(format, ...)    fails at once: the message is required
 * and the same cr_expect_* (but throw and fail). A failed cr_assert, on any
 * thread of the test, prints
 *   [----] suite::name: file:line: Assertion failed: <the operands' text>: <message>
 * and ends the test's process (_exit(1)); a failed cr_expect prints the
 * same and the test goes on, to end with status 1. cr_skip_test(format,
 * ...) ends the test as skipped; cr_log_info(format, ...) prints a line
 * under --verbose.
 *
 * The runner (harness.c) forks a process for each test from itself; a
 * test passes when it returns and its process then exits with status 0
 * (exit(): a sanitizer's leak check at the exit may still fail it). How it
 * runs the tests, its options and statuses: Tests/README.md, "The test
 * harness (C, ffi, C++)".
 */
#ifndef SK_HARNESS_H
#define SK_HARNESS_H

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#ifdef __cplusplus
extern "C" {
#endif

/* A test's (or suite's) options, as the macros' designated initializers
 * give them: C++ (where they are an extension before C++20, __extension__
 * below) wants them in declaration order, sentinel_ last, which the macros
 * append so that the option list is never empty. */
#ifdef __cplusplus
#define SK_H_ZERO_ = 0 /* the members left out (C++ would warn) */
#else
#define SK_H_ZERO_
#endif
struct sk_h_options {
    int signal SK_H_ZERO_;     /* the signal the test must die of; 0: it must return */
    double timeout SK_H_ZERO_; /* seconds; 0: the suite's, or none */
    int sentinel_;
};

/* A parameterized test's parameters: `length` elements of `size` bytes. */
struct sk_h_params {
    size_t size;
    void *params;
    size_t length;
};

struct sk_h_test {
    const char *suite;
    const char *name;
    void (*run)(void);                  /* a plain test */
    void (*run_param)(void *param);     /* a parameterized one */
    struct sk_h_params (*params)(void); /* its parameters */
    const struct sk_h_options *options;
};

struct sk_h_suite {
    const char *name;
    const struct sk_h_options *options;
};

#if defined(__GNUC__) || defined(__clang__)
#define SK_H_PRINTF_(f, a) __attribute__((format(printf, f, a)))
#define SK_H_NORETURN_ __attribute__((noreturn))
#else
#define SK_H_PRINTF_(f, a)
#define SK_H_NORETURN_
#endif

/* A failed assertion: `shape` is how to print it ("\1 == \2": \1 to \3 are
 * the operands), `text` the assertion's arguments as written (the operands
 * are taken from it), then the message's format and arguments, after which
 * the macros pass an extra "" that the format does not use (so no format
 * attribute: it would warn). Returns only when `fatal` is 0. */
void sk_h_fail(const char *file, int line, int fatal, const char *shape, const char *text, const char *format, ...);
/* The same for strings: also prints their values (`b` NULL: one string). */
void sk_h_fail_str(const char *file, int line, int fatal, const char *shape, const char *text, const char *a,
                   const char *b, const char *format, ...);
void sk_h_fail_now(const char *file, int line, const char *format, ...) SK_H_PRINTF_(3, 4) SK_H_NORETURN_;
void sk_h_skip(const char *format, ...) SK_H_PRINTF_(1, 2) SK_H_NORETURN_;
void sk_h_log(const char *format, ...) SK_H_PRINTF_(1, 2);
/* Whether `a` and `b` are equal strings (NULL equals only NULL). */
int sk_h_str_equal(const char *a, const char *b);
/* Whether |a - b| <= epsilon (false when either is NaN). */
int sk_h_within(double a, double b, double epsilon);
struct sk_h_params sk_h_make_params(size_t size, void *params, size_t length);

#ifdef __cplusplus
}
/* Calls a parameterized test's function with its element, converted to the
 * type of the function's parameter. */
template <class T> inline void sk_h_call_param_(void (*run)(T *), void *param) { run(static_cast<T *>(param)); }
#define SK_H_CALL_PARAM_(run, param) sk_h_call_param_(run, param)
#define SK_H_EXT_ __extension__
#else
#define SK_H_CALL_PARAM_(run, param) run(param)
#define SK_H_EXT_
#endif

#define SK_H_ENTRY_(name_) __attribute__((used, section(#name_)))
#define SK_H_ID_(what, suite, name) sk_h_##what##_##suite##_##name

/* ------------------------------------------------------------------------ */
/* Tests                                                                     */
/* ------------------------------------------------------------------------ */

#define Test(...) SK_H_TEST_(__VA_ARGS__, .sentinel_ = 0)
#define SK_H_TEST_(suite, name, ...)                                                                    \
    static void SK_H_ID_(run, suite, name)(void);                                                       \
    SK_H_EXT_ static const struct sk_h_options SK_H_ID_(options, suite, name) = {__VA_ARGS__};          \
    static const struct sk_h_test SK_H_ID_(test, suite, name) = {                                       \
        #suite, #name, SK_H_ID_(run, suite, name), 0, 0, &SK_H_ID_(options, suite, name)};              \
    SK_H_ENTRY_(sk_h_tests) static const struct sk_h_test *SK_H_ID_(entry, suite, name) =               \
        &SK_H_ID_(test, suite, name);                                                                   \
    static void SK_H_ID_(run, suite, name)(void)

#define TestSuite(...) SK_H_SUITE_(__VA_ARGS__, .sentinel_ = 0)
#define SK_H_SUITE_(suite, ...)                                                                         \
    SK_H_EXT_ static const struct sk_h_options sk_h_suite_options_##suite = {__VA_ARGS__};              \
    static const struct sk_h_suite sk_h_suite_##suite = {#suite, &sk_h_suite_options_##suite};          \
    SK_H_ENTRY_(sk_h_suites) static const struct sk_h_suite *sk_h_suite_entry_##suite = &sk_h_suite_##suite

#define ParameterizedTestParameters(suite, name)                                                        \
    static struct sk_h_params SK_H_ID_(params, suite, name)(void)

#define ParameterizedTest(...) SK_H_PTEST_(__VA_ARGS__, .sentinel_ = 0)
#define SK_H_PTEST_(param, suite, name, ...)                                                            \
    static void SK_H_ID_(run, suite, name)(param);                                                      \
    static void SK_H_ID_(call, suite, name)(void *p) { SK_H_CALL_PARAM_(SK_H_ID_(run, suite, name), p); } \
    SK_H_EXT_ static const struct sk_h_options SK_H_ID_(options, suite, name) = {__VA_ARGS__};          \
    static const struct sk_h_test SK_H_ID_(test, suite, name) = {                                       \
        #suite, #name, 0, SK_H_ID_(call, suite, name), SK_H_ID_(params, suite, name),                   \
        &SK_H_ID_(options, suite, name)};                                                               \
    SK_H_ENTRY_(sk_h_tests) static const struct sk_h_test *SK_H_ID_(entry, suite, name) =               \
        &SK_H_ID_(test, suite, name);                                                                   \
    static void SK_H_ID_(run, suite, name)(param)

#define cr_make_param_array(type, array, length) sk_h_make_params(sizeof(type), (array), (length))
#define cr_malloc(size) malloc(size)
#define cr_free(pointer) free(pointer)

#define cr_skip_test(...) sk_h_skip(__VA_ARGS__)
#define cr_log_info(...) sk_h_log(__VA_ARGS__)

/* ------------------------------------------------------------------------ */
/* Assertions                                                                */
/* ------------------------------------------------------------------------ */

/* The operands and the message of an assertion's arguments. The appended
 * sentinels keep each helper's `...` non-empty, which C99 requires: ~ is
 * never used; "" ends the message's arguments (or is the message). */
#define SK_H_ARG1_(...) SK_H_ARG1__(__VA_ARGS__, ~)
#define SK_H_ARG1__(a, ...) a
#define SK_H_ARG2_(...) SK_H_ARG2__(__VA_ARGS__, ~, ~)
#define SK_H_ARG2__(a, b, ...) b
#define SK_H_ARG3_(...) SK_H_ARG3__(__VA_ARGS__, ~, ~, ~)
#define SK_H_ARG3__(a, b, c, ...) c
#define SK_H_MSG1_(...) SK_H_MSG1__(__VA_ARGS__, "")
#define SK_H_MSG1__(a, ...) __VA_ARGS__
#define SK_H_MSG2_(...) SK_H_MSG2__(__VA_ARGS__, "")
#define SK_H_MSG2__(a, b, ...) __VA_ARGS__
#define SK_H_MSG3_(...) SK_H_MSG3__(__VA_ARGS__, "")
#define SK_H_MSG3__(a, b, c, ...) __VA_ARGS__

#define SK_H_CHECK_(fatal, holds, shape, text, ...)                                                     \
    do {                                                                                                \
        if (!(holds)) {                                                                                 \
            sk_h_fail(__FILE__, __LINE__, fatal, shape, text, __VA_ARGS__);                             \
        }                                                                                               \
    } while (0)
#define SK_H_1_(fatal, shape, holds, text, ...) SK_H_CHECK_(fatal, holds, shape, text, SK_H_MSG1_(__VA_ARGS__))
#define SK_H_CMP_(fatal, op, text, ...)                                                                 \
    SK_H_CHECK_(fatal, (SK_H_ARG1_(__VA_ARGS__)) op (SK_H_ARG2_(__VA_ARGS__)), "\1 " #op " \2", text,     \
                SK_H_MSG2_(__VA_ARGS__))
#define SK_H_STR_(fatal, equal, shape, text, ...)                                                       \
    do {                                                                                                \
        const char *sk_h_a_ = (SK_H_ARG1_(__VA_ARGS__)), *sk_h_b_ = (SK_H_ARG2_(__VA_ARGS__));          \
        if (sk_h_str_equal(sk_h_a_, sk_h_b_) != (equal)) {                                              \
            sk_h_fail_str(__FILE__, __LINE__, fatal, shape, text, sk_h_a_, sk_h_b_, SK_H_MSG2_(__VA_ARGS__)); \
        }                                                                                               \
    } while (0)
#define SK_H_STR_EMPTY_(fatal, text, ...)                                                               \
    do {                                                                                                \
        const char *sk_h_a_ = (SK_H_ARG1_(__VA_ARGS__));                                                \
        if (!sk_h_str_equal(sk_h_a_, "")) {                                                             \
            sk_h_fail_str(__FILE__, __LINE__, fatal, "\1 is \"\"", text, sk_h_a_, NULL, SK_H_MSG1_(__VA_ARGS__)); \
        }                                                                                               \
    } while (0)
#define SK_H_FLOAT_(fatal, text, ...)                                                                   \
    SK_H_CHECK_(fatal, sk_h_within(SK_H_ARG1_(__VA_ARGS__), SK_H_ARG2_(__VA_ARGS__), SK_H_ARG3_(__VA_ARGS__)), \
                "\1 == \2 within \3", text, SK_H_MSG3_(__VA_ARGS__))
#define SK_H_ARR_(fatal, text, ...)                                                                     \
    SK_H_CHECK_(fatal, memcmp(SK_H_ARG1_(__VA_ARGS__), SK_H_ARG2_(__VA_ARGS__), SK_H_ARG3_(__VA_ARGS__)) == 0, \
                "memcmp(\1, \2, \3) == 0", text, SK_H_MSG3_(__VA_ARGS__))

#define cr_assert(...) SK_H_1_(1, "\1", SK_H_ARG1_(__VA_ARGS__), #__VA_ARGS__, __VA_ARGS__)
#define cr_assert_not(...) SK_H_1_(1, "!(\1)", !(SK_H_ARG1_(__VA_ARGS__)), #__VA_ARGS__, __VA_ARGS__)
#define cr_assert_null(...) SK_H_1_(1, "\1 == NULL", (SK_H_ARG1_(__VA_ARGS__)) == NULL, #__VA_ARGS__, __VA_ARGS__)
#define cr_assert_not_null(...) SK_H_1_(1, "\1 != NULL", (SK_H_ARG1_(__VA_ARGS__)) != NULL, #__VA_ARGS__, __VA_ARGS__)
#define cr_assert_eq(...) SK_H_CMP_(1, ==, #__VA_ARGS__, __VA_ARGS__)
#define cr_assert_neq(...) SK_H_CMP_(1, !=, #__VA_ARGS__, __VA_ARGS__)
#define cr_assert_lt(...) SK_H_CMP_(1, <, #__VA_ARGS__, __VA_ARGS__)
#define cr_assert_leq(...) SK_H_CMP_(1, <=, #__VA_ARGS__, __VA_ARGS__)
#define cr_assert_gt(...) SK_H_CMP_(1, >, #__VA_ARGS__, __VA_ARGS__)
#define cr_assert_geq(...) SK_H_CMP_(1, >=, #__VA_ARGS__, __VA_ARGS__)
#define cr_assert_str_eq(...) SK_H_STR_(1, 1, "\1 equals \2", #__VA_ARGS__, __VA_ARGS__)
#define cr_assert_str_neq(...) SK_H_STR_(1, 0, "\1 differs from \2", #__VA_ARGS__, __VA_ARGS__)
#define cr_assert_str_empty(...) SK_H_STR_EMPTY_(1, #__VA_ARGS__, __VA_ARGS__)
#define cr_assert_float_eq(...) SK_H_FLOAT_(1, #__VA_ARGS__, __VA_ARGS__)
#define cr_assert_arr_eq(...) SK_H_ARR_(1, #__VA_ARGS__, __VA_ARGS__)
#define cr_assert_fail(...) sk_h_fail_now(__FILE__, __LINE__, __VA_ARGS__)

#define cr_expect(...) SK_H_1_(0, "\1", SK_H_ARG1_(__VA_ARGS__), #__VA_ARGS__, __VA_ARGS__)
#define cr_expect_not(...) SK_H_1_(0, "!(\1)", !(SK_H_ARG1_(__VA_ARGS__)), #__VA_ARGS__, __VA_ARGS__)
#define cr_expect_null(...) SK_H_1_(0, "\1 == NULL", (SK_H_ARG1_(__VA_ARGS__)) == NULL, #__VA_ARGS__, __VA_ARGS__)
#define cr_expect_not_null(...) SK_H_1_(0, "\1 != NULL", (SK_H_ARG1_(__VA_ARGS__)) != NULL, #__VA_ARGS__, __VA_ARGS__)
#define cr_expect_eq(...) SK_H_CMP_(0, ==, #__VA_ARGS__, __VA_ARGS__)
#define cr_expect_neq(...) SK_H_CMP_(0, !=, #__VA_ARGS__, __VA_ARGS__)
#define cr_expect_lt(...) SK_H_CMP_(0, <, #__VA_ARGS__, __VA_ARGS__)
#define cr_expect_leq(...) SK_H_CMP_(0, <=, #__VA_ARGS__, __VA_ARGS__)
#define cr_expect_gt(...) SK_H_CMP_(0, >, #__VA_ARGS__, __VA_ARGS__)
#define cr_expect_geq(...) SK_H_CMP_(0, >=, #__VA_ARGS__, __VA_ARGS__)
#define cr_expect_str_eq(...) SK_H_STR_(0, 1, "\1 equals \2", #__VA_ARGS__, __VA_ARGS__)
#define cr_expect_str_neq(...) SK_H_STR_(0, 0, "\1 differs from \2", #__VA_ARGS__, __VA_ARGS__)
#define cr_expect_str_empty(...) SK_H_STR_EMPTY_(0, #__VA_ARGS__, __VA_ARGS__)
#define cr_expect_float_eq(...) SK_H_FLOAT_(0, #__VA_ARGS__, __VA_ARGS__)
#define cr_expect_arr_eq(...) SK_H_ARR_(0, #__VA_ARGS__, __VA_ARGS__)

#ifdef __cplusplus
/* Holds when the statement throws ExceptionType (or a type derived from it);
 * another exception, or none, fails. */
#define cr_assert_throw(...)                                                                            \
    do {                                                                                                \
        bool sk_h_thrown_ = false;                                                                      \
        try {                                                                                           \
            SK_H_ARG1_(__VA_ARGS__);                                                                    \
        } catch (SK_H_ARG2_(__VA_ARGS__) const &) {                                                     \
            sk_h_thrown_ = true;                                                                        \
        } catch (...) {                                                                                 \
        }                                                                                               \
        if (!sk_h_thrown_) {                                                                            \
            sk_h_fail(__FILE__, __LINE__, 1, "\1 throws \2", #__VA_ARGS__, SK_H_MSG2_(__VA_ARGS__));     \
        }                                                                                               \
    } while (0)
#endif

#endif /* SK_HARNESS_H */
