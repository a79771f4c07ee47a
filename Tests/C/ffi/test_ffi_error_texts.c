/* Every error text that include/signalkit_ffi.h quotes, produced through
 * the real API and compared exactly; and the one text quoted by
 * include/signalkit.h that the C suite does not already compare
 * ("sk_signal_map: fn is NULL"; its status strings "ok", "null argument"
 * and "unknown status" are compared in Tests/C/test_errors.c). When a
 * header's example changes, the test beside it changes with it. */
#include <errno.h>
#include <stdlib.h>

#include "ffi_support.h"

TestSuite(ffi_error_texts, .timeout = SK_TEST_TIMEOUT);

/* ------------------------------------------------------------------------ */
/* Fault injection for "(message lost: out of memory)"                       */
/* ------------------------------------------------------------------------ */

/* strdup as the C library has it, except that it fails while strdup_fails
 * is set: this definition in the executable interposes the C library's for
 * libsignalkit-ffi (which copies sk_ffi_callback_fail's message with
 * strdup). Set only around one call, on the test's thread. */
static int strdup_fails;

char *strdup(const char *text) {
    if (__atomic_load_n(&strdup_fails, __ATOMIC_RELAXED)) {
        errno = ENOMEM;
        return NULL;
    }
    size_t size = strlen(text) + 1;
    char *copy = malloc(size);
    if (copy != NULL) {
        memcpy(copy, text, size);
    }
    return copy;
}

/* ------------------------------------------------------------------------ */
/* Helpers                                                                   */
/* ------------------------------------------------------------------------ */

/* The error string `signal` (borrowed, synchronous) ends with, copied into
 * `buffer`; "" when it ends otherwise. */
typedef struct {
    char text[512];
    int errors;
} error_text;

static void capture_error(void *ctx, const sk_value *error) {
    error_text *e = ctx;
    const char *text = "(not a string)";
    sk_value_get_string(error, &text, NULL);
    snprintf(e->text, sizeof e->text, "%s", text);
    e->errors++;
}

static const char *error_of(sk_signal *signal, error_text *e) {
    memset(e, 0, sizeof *e);
    sk_observer o = {NULL, capture_error, NULL, e, NULL};
    SK_OK_OR_FAIL(sk_signal_start(NULL, signal, &o));
    cr_assert_eq(e->errors, 1, "the signal did not end with one error");
    return e->text;
}

/* `values` mapped through "i64(i64)" `fn`. */
static sk_signal *mapped_ints(const int64_t *values, size_t count, int64_t (*fn)(int64_t)) {
    sk_signal *source = ints_signal(values, count);
    sk_ffi_signature *s = sig("i64(i64)");
    sk_signal *mapped = NULL;
    SK_OK_OR_FAIL(sk_ffi_signal_map(&mapped, source, s, FN(fn), NULL, NULL));
    sk_ffi_signature_release(s);
    sk_signal_release(source);
    return mapped;
}

#define EXPECT_FFI_TEXT(call, status, text)                                       \
    do {                                                                          \
        int st_ = (call);                                                         \
        cr_assert_eq(st_, (status), "%s returned %d (%s)", #call, st_,            \
                     sk_ffi_last_error_message());                                \
        cr_assert_str_eq(sk_ffi_last_error_message(), (text));                    \
    } while (0)

/* ------------------------------------------------------------------------ */
/* signalkit_ffi.h                                                           */
/* ------------------------------------------------------------------------ */

/* sk_ffi_last_error_message: "sk_ffi_signature_parse: text: unknown type
 * 'int' for the argument 0 (offset 5)". */
Test(ffi_error_texts, last_error_message_example) {
    sk_ffi_signature *s = NULL;
    EXPECT_FFI_TEXT(sk_ffi_signature_parse(&s, "void(int)"), SK_ERR_INVALID_ARGUMENT,
                    "sk_ffi_signature_parse: text: unknown type 'int' for the argument 0 (offset 5)");
    expect_no_ffi_live_objects();
}

/* sk_ffi_signature_create: the argument index ("args[2]") or "result". */
Test(ffi_error_texts, signature_create_names_args_index_or_result) {
    sk_ffi_signature *s = NULL;
    sk_ffi_type args[] = {SK_FFI_INT64, SK_FFI_INT64, SK_FFI_VOID};
    EXPECT_FFI_TEXT(sk_ffi_signature_create(&s, SK_FFI_VOID, args, 3), SK_ERR_INVALID_ARGUMENT,
                    "sk_ffi_signature_create: args[2]: void is allowed only as the result");
    EXPECT_FFI_TEXT(sk_ffi_signature_create(&s, SK_FFI_CTX, NULL, 0), SK_ERR_INVALID_ARGUMENT,
                    "sk_ffi_signature_create: result: ctx is allowed only as the first argument");
    expect_no_ffi_live_objects();
}

/* sk_ffi_signature_parse: "sk_ffi_signature_parse: text: 'ctx' must be the
 * first argument (argument 1, offset 9)". */
Test(ffi_error_texts, signature_parse_example) {
    sk_ffi_signature *s = NULL;
    EXPECT_FFI_TEXT(sk_ffi_signature_parse(&s, "void(i64,ctx)"), SK_ERR_INVALID_ARGUMENT,
                    "sk_ffi_signature_parse: text: 'ctx' must be the first argument (argument 1, offset 9)");
    expect_no_ffi_live_objects();
}

/* Conversion failures: "sk_ffi: next: argument 1 (i32): int64 5000000000
 * out of range of i32". */
static void next_ctx_i32(void *ctx, int32_t n) { tlog_add(ctx, "n:%d", n); }
static void error_ctx_str(void *ctx, const char *s) { tlog_add(ctx, "e:%s", s); }

Test(ffi_error_texts, conversion_failure_example) {
    tlog log;
    tlog_init(&log);
    int64_t values[] = {5000000000LL};
    sk_signal *signal = ints_signal(values, 1);
    sk_ffi_signature *next = sig("void(ctx,i32)");
    sk_ffi_signature *error = sig("void(ctx,str)");
    sk_ffi_observer o = {next, FN(next_ctx_i32), error, FN(error_ctx_str), NULL, NULL, &log, tlog_release};
    SK_OK_OR_FAIL(sk_ffi_signal_start(NULL, signal, &o));
    cr_assert(tlog_wait(&log, 1, 1));
    tlog_expect(&log, "e:sk_ffi: next: argument 1 (i32): int64 5000000000 out of range of i32 ");
    sk_ffi_signature_release(next);
    sk_ffi_signature_release(error);
    sk_signal_release(signal);
    tlog_destroy(&log);
    expect_no_ffi_live_objects();
}

/* sk_ffi_callback_fail: "sk_ffi: ROLE: callback failed: MESSAGE", "sk_ffi:
 * map: callback failed" for a NULL message, MESSAGE "(message lost: out of
 * memory)" when the copy fails. */
static int64_t fail_with_message(int64_t n) {
    sk_ffi_callback_fail("bad input");
    return n;
}

static int64_t fail_without_message(int64_t n) {
    sk_ffi_callback_fail(NULL);
    return n;
}

static int64_t fail_out_of_memory(int64_t n) {
    __atomic_store_n(&strdup_fails, 1, __ATOMIC_RELAXED);
    sk_ffi_callback_fail("this message cannot be copied");
    __atomic_store_n(&strdup_fails, 0, __ATOMIC_RELAXED);
    return n;
}

static bool filter_fails(int64_t n) {
    (void)n;
    sk_ffi_callback_fail("bad input");
    return true;
}

Test(ffi_error_texts, callback_failure_texts) {
    int64_t values[] = {1};
    error_text e;
    sk_signal *mapped = mapped_ints(values, 1, fail_with_message);
    cr_assert_str_eq(error_of(mapped, &e), "sk_ffi: map: callback failed: bad input");
    sk_signal_release(mapped);
    mapped = mapped_ints(values, 1, fail_without_message);
    cr_assert_str_eq(error_of(mapped, &e), "sk_ffi: map: callback failed");
    sk_signal_release(mapped);
    mapped = mapped_ints(values, 1, fail_out_of_memory);
    cr_assert_str_eq(error_of(mapped, &e), "sk_ffi: map: callback failed: (message lost: out of memory)");
    sk_signal_release(mapped);

    sk_signal *source = ints_signal(values, 1);
    sk_ffi_signature *s = sig("bool(i64)");
    sk_signal *filtered = NULL;
    SK_OK_OR_FAIL(sk_ffi_signal_filter(&filtered, source, s, FN(filter_fails), NULL, NULL));
    cr_assert_str_eq(error_of(filtered, &e), "sk_ffi: filter: callback failed: bad input");
    sk_signal_release(filtered);
    sk_ffi_signature_release(s);
    sk_signal_release(source);
    expect_no_ffi_live_objects();
}

/* The error callback's str argument for an error that is not a string:
 * "sk_ffi: error of kind int64: 7"; the other kinds in the same form. */
static void check_error_description(sk_value error, const char *expected) {
    tlog log;
    tlog_init(&log);
    sk_signal *signal = NULL;
    SK_OK_OR_FAIL(sk_signal_fail(&signal, &error));
    sk_value_release(&error);
    sk_ffi_signature *s = sig("void(ctx,str)");
    sk_ffi_observer o = {NULL, NULL, s, FN(error_ctx_str), NULL, NULL, &log, tlog_release};
    SK_OK_OR_FAIL(sk_ffi_signal_start(NULL, signal, &o));
    cr_assert(tlog_wait(&log, 1, 1));
    char line[512];
    snprintf(line, sizeof line, "e:%s ", expected);
    tlog_expect(&log, line);
    sk_ffi_signature_release(s);
    sk_signal_release(signal);
    tlog_destroy(&log);
}

Test(ffi_error_texts, error_of_another_kind_is_described) {
    check_error_description(int_value(7), "sk_ffi: error of kind int64: 7");
    sk_value v;
    sk_value_set_double(&v, 1.5);
    check_error_description(v, "sk_ffi: error of kind double: 1.5");
    sk_value_set_bool(&v, true);
    check_error_description(v, "sk_ffi: error of kind bool: true");
    sk_value_set_nil(&v);
    check_error_description(v, "sk_ffi: error of kind nil");
    static const char embedded[] = {'a', '\0', 'b'};
    SK_OK_OR_FAIL(sk_value_set_string_n(&v, embedded, sizeof embedded));
    check_error_description(v, "sk_ffi: error of kind string: \"a\\0b\"");
    SK_OK_OR_FAIL(sk_value_set_bytes(&v, "xyz", 3));
    check_error_description(v, "sk_ffi: error of kind bytes: 3 bytes");
    sk_value items[2] = {int_value(1), int_value(2)};
    SK_OK_OR_FAIL(sk_value_set_array(&v, items, 2));
    check_error_description(v, "sk_ffi: error of kind array: 2 items");
    /* One: the noun agrees with its count. */
    SK_OK_OR_FAIL(sk_value_set_bytes(&v, "x", 1));
    check_error_description(v, "sk_ffi: error of kind bytes: 1 byte");
    SK_OK_OR_FAIL(sk_value_set_array(&v, items, 1));
    check_error_description(v, "sk_ffi: error of kind array: 1 item");
    expect_no_ffi_live_objects();
}

/* A string is quoted with `"` and `\` escaped (`\"`, `\\`) and NUL written
 * `\0`, so that the quoted text reads back unambiguously, and is cut at 40
 * bytes on a character boundary: the str argument is valid UTF-8. Before,
 * the cut fell inside a 2-byte character and nothing was escaped. */
Test(ffi_error_texts, string_description_is_escaped_and_cut_on_a_character) {
    sk_value v;
    static const char tricky[] = {'a', '\\', '0', 'b', '"', '\0'};
    SK_OK_OR_FAIL(sk_value_set_string_n(&v, tricky, sizeof tricky));
    check_error_description(v, "sk_ffi: error of kind string: \"a\\\\0b\\\"\\0\"");
    char text[43];
    memset(text, 'x', 39);
    memcpy(text + 39, "\xc3\xa9", 2); /* U+00E9 over the 40-byte cut */
    text[41] = '\0';
    text[42] = 'z';
    SK_OK_OR_FAIL(sk_value_set_string_n(&v, text, sizeof text));
    check_error_description(v, "sk_ffi: error of kind string: \"xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx\"...");
    /* The same quoting in a conversion error (a string given to an i32). */
    tlog log;
    tlog_init(&log);
    sk_value quoted;
    SK_OK_OR_FAIL(sk_value_set_string(&quoted, "say \"hi\" \\ \xc3\xa9"));
    sk_signal *signal = NULL;
    SK_OK_OR_FAIL(sk_signal_single(&signal, &quoted));
    sk_value_release(&quoted);
    sk_ffi_signature *next = sig("void(ctx,i32)");
    sk_ffi_signature *error = sig("void(ctx,str)");
    sk_ffi_observer o = {next, FN(next_ctx_i32), error, FN(error_ctx_str), NULL, NULL, &log, tlog_release};
    SK_OK_OR_FAIL(sk_ffi_signal_start(NULL, signal, &o));
    cr_assert(tlog_wait(&log, 1, 1));
    cr_assert(strstr(log.text, "string \"say \\\"hi\\\" \\\\ \xc3\xa9\"") != NULL, "%s", log.text);
    sk_ffi_signature_release(next);
    sk_ffi_signature_release(error);
    sk_signal_release(signal);
    tlog_destroy(&log);
    expect_no_ffi_live_objects();
}

/* A byte that does not belong to a valid UTF-8 character (a stray
 * continuation byte, a lead byte without its continuation, 0xFF) is
 * written \xNN in a description, as the header promises for every message,
 * while valid characters stay as they are. Before, the bytes were copied
 * as they were and the str argument was invalid UTF-8 (found by
 * exploration). */
Test(ffi_error_texts, string_description_escapes_invalid_utf8) {
    sk_value v;
    static const char text[] = "a\xff" "b\x80" "c\xc3" "d\xc3\xa9";
    SK_OK_OR_FAIL(sk_value_set_string_n(&v, text, sizeof text)); /* with its NUL: described */
    check_error_description(v, "sk_ffi: error of kind string: \"a\\xFFb\\x80c\\xC3d\xc3\xa9\\0\"");
    /* The same quoting in a conversion error (a string given to an i32). */
    tlog log;
    tlog_init(&log);
    SK_OK_OR_FAIL(sk_value_set_string(&v, "x\xf0\x9f\x98" "y"));
    sk_signal *signal = NULL;
    SK_OK_OR_FAIL(sk_signal_single(&signal, &v));
    sk_value_release(&v);
    sk_ffi_signature *next = sig("void(ctx,i32)");
    sk_ffi_signature *error = sig("void(ctx,str)");
    sk_ffi_observer o = {next, FN(next_ctx_i32), error, FN(error_ctx_str), NULL, NULL, &log, tlog_release};
    SK_OK_OR_FAIL(sk_ffi_signal_start(NULL, signal, &o));
    cr_assert(tlog_wait(&log, 1, 1));
    cr_assert(strstr(log.text, "string \"x\\xF0\\x9F\\x98y\"") != NULL, "%s", log.text);
    sk_ffi_signature_release(next);
    sk_ffi_signature_release(error);
    sk_signal_release(signal);
    tlog_destroy(&log);
    expect_no_ffi_live_objects();
}

/* A callback failure's message that is not valid UTF-8 has its stray bytes
 * written \xNN in the error, so the error is valid UTF-8 like every
 * message of the library. Before, the bytes were copied unescaped. */
static int64_t fail_with_invalid_utf8(int64_t n) {
    sk_ffi_callback_fail("bad \xff\xc3 input \xc3\xa9");
    return n;
}

Test(ffi_error_texts, callback_failure_message_escapes_invalid_utf8) {
    int64_t values[] = {1};
    error_text e;
    sk_signal *mapped = mapped_ints(values, 1, fail_with_invalid_utf8);
    cr_assert_str_eq(error_of(mapped, &e), "sk_ffi: map: callback failed: bad \\xFF\\xC3 input \xc3\xa9");
    sk_signal_release(mapped);
    expect_no_ffi_live_objects();
}

/* An unknown type name longer than the 32 bytes quoted is cut with `...`
 * after the quote, as the other quoted texts of the library are; before,
 * the cut was silent and the reader could take the 32 bytes for the whole
 * name (found by exploration). */
Test(ffi_error_texts, long_unknown_type_name_is_marked_as_cut) {
    sk_ffi_signature *s = NULL;
    EXPECT_FFI_TEXT(sk_ffi_signature_parse(&s, "void(abcdefghijklmnopqrstuvwxyz0123456789)"), SK_ERR_INVALID_ARGUMENT,
                    "sk_ffi_signature_parse: text: unknown type 'abcdefghijklmnopqrstuvwxyz012345'... for the argument 0 (offset 5)");
    EXPECT_FFI_TEXT(sk_ffi_signature_parse(&s, "void(abcdefghijklmnopqrstuvwxyz012345)"), SK_ERR_INVALID_ARGUMENT,
                    "sk_ffi_signature_parse: text: unknown type 'abcdefghijklmnopqrstuvwxyz012345' for the argument 0 (offset 5)");
    expect_no_ffi_live_objects();
}

/* Handle arguments: "sk_ffi_signal_map: signal is NULL", "sk_ffi_signal_map:
 * signal is not a signal", "sk_ffi_trampoline_pipe: pipe is not a pipe". */
static int64_t twice(int64_t n) { return 2 * n; }

Test(ffi_error_texts, handle_argument_examples) {
    sk_pipe *pipe = NULL;
    SK_OK_OR_FAIL(sk_pipe_create(&pipe, false));
    sk_signal *signal = NULL;
    SK_OK_OR_FAIL(sk_pipe_signal(&signal, pipe));
    sk_ffi_signature *s = sig("i64(i64)");
    sk_ffi_signature *t = sig("void(i64)");
    sk_signal *out = NULL;
    EXPECT_FFI_TEXT(sk_ffi_signal_map(&out, NULL, s, FN(twice), NULL, NULL), SK_ERR_NULL_ARGUMENT,
                    "sk_ffi_signal_map: signal is NULL");
    EXPECT_FFI_TEXT(sk_ffi_signal_map(&out, (sk_signal *)pipe, s, FN(twice), NULL, NULL), SK_ERR_WRONG_KIND,
                    "sk_ffi_signal_map: signal is not a signal");
    sk_ffi_trampoline *trampoline = NULL;
    EXPECT_FFI_TEXT(sk_ffi_trampoline_pipe(&trampoline, (sk_pipe *)signal, t), SK_ERR_WRONG_KIND,
                    "sk_ffi_trampoline_pipe: pipe is not a pipe");
    sk_ffi_signature_release(s);
    sk_ffi_signature_release(t);
    sk_signal_release(signal);
    sk_pipe_release(pipe);
    expect_no_ffi_live_objects();
}

/* With handle checking: "sk_ffi_signal_map: signal was already released (or
 * never was a handle)". */
Test(ffi_error_texts, released_handle_example) {
    SK_OK_OR_FAIL(sk_set_handle_checking(true));
    sk_signal *signal = NULL;
    SK_OK_OR_FAIL(sk_signal_never(&signal));
    sk_signal_release(signal);
    sk_ffi_signature *s = sig("i64(i64)");
    sk_signal *out = NULL;
    EXPECT_FFI_TEXT(sk_ffi_signal_map(&out, signal, s, FN(twice), NULL, NULL), SK_ERR_RELEASED,
                    "sk_ffi_signal_map: signal was already released (or never was a handle)");
    sk_ffi_signature_release(s);
    expect_no_ffi_live_objects();
}

/* Handles of this library: released (checking off: "is not a signature",
 * never read), and given to a signalkit.h function (off: the core's "not a
 * pipe"; on: its "was already released"). */
static void check_own_handle_examples(bool checking) {
    sk_pipe *pipe = NULL;
    SK_OK_OR_FAIL(sk_pipe_create(&pipe, false));
    sk_ffi_signature *s = sig("void(i64)");
    sk_pipe_release((sk_pipe *)s);
    cr_assert_str_eq(sk_last_error_message(), checking ? "sk_pipe_release: the handle was already released (or never was one)"
                                                       : "sk_pipe_release: the handle is not a pipe (nothing was released or retained)");
    sk_ffi_signature_release(s);
    sk_ffi_signature_release(s);
    cr_assert_str_eq(sk_ffi_last_error_message(), checking ? "sk_ffi_signature_release: signature was already released (or never was a handle)"
                                                           : "sk_ffi_signature_release: signature is not a signature");
    sk_pipe_release(pipe);
    expect_no_ffi_live_objects();
}

Test(ffi_error_texts, own_handle_examples_checking_off) {
    check_own_handle_examples(false);
}

Test(ffi_error_texts, own_handle_examples_checking_on) {
    SK_OK_OR_FAIL(sk_set_handle_checking(true));
    check_own_handle_examples(true);
}

/* The readers: "sk_ffi_signature_result: signature is not a signature". */
Test(ffi_error_texts, signature_reader_example) {
    sk_pipe *pipe = NULL;
    SK_OK_OR_FAIL(sk_pipe_create(&pipe, false));
    cr_assert_eq(sk_ffi_signature_result((sk_ffi_signature *)pipe), SK_FFI_VOID);
    cr_assert_str_eq(sk_ffi_last_error_message(), "sk_ffi_signature_result: signature is not a signature");
    sk_pipe_release(pipe);
    expect_no_ffi_live_objects();
}

/* sk_ffi_last_error_message: a quoted byte escaped, for "void(\xc3\xa9)". */
Test(ffi_error_texts, escaped_byte_example) {
    sk_ffi_signature *s = NULL;
    EXPECT_FFI_TEXT(sk_ffi_signature_parse(&s, "void(\xc3\xa9)"), SK_ERR_INVALID_ARGUMENT,
                    "sk_ffi_signature_parse: text: expected a type for the argument 0, found '\\xC3' (offset 5)");
}

/* ------------------------------------------------------------------------ */
/* signalkit.h                                                               */
/* ------------------------------------------------------------------------ */

static void map_nothing(void *ctx, const sk_value *value, sk_value *out) {
    (void)ctx;
    (void)value;
    (void)out;
}

/* sk_last_error_message: "sk_signal_map: fn is NULL". */
Test(ffi_error_texts, core_last_error_message_example) {
    int64_t values[] = {1};
    sk_signal *signal = ints_signal(values, 1);
    sk_signal *out = NULL;
    cr_assert_eq(sk_signal_map(&out, signal, NULL, NULL, NULL), SK_ERR_NULL_ARGUMENT);
    cr_assert_str_eq(sk_last_error_message(), "sk_signal_map: fn is NULL");
    SK_OK_OR_FAIL(sk_signal_map(&out, signal, map_nothing, NULL, NULL));
    sk_signal_release(out);
    sk_signal_release(signal);
    expect_no_ffi_live_objects();
}
