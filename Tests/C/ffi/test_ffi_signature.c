/* Signatures: parsing, construction from kinds, validation with the
 * offending position named, reading, sharing and reference counting. */
#include "ffi_support.h"

TestSuite(ffi_signature, .timeout = SK_TEST_TIMEOUT);

Test(ffi_signature, parses_every_type_name) {
    static const struct {
        const char *text;
        sk_ffi_type result;
        size_t count;
        sk_ffi_type args[10];
    } cases[] = {
        {"void()", SK_FFI_VOID, 0, {SK_FFI_VOID}},
        {"void(ctx,i64)", SK_FFI_VOID, 2, {SK_FFI_CTX, SK_FFI_INT64}},
        {"i64(i64)", SK_FFI_INT64, 1, {SK_FFI_INT64}},
        {"bool(f64)", SK_FFI_BOOL, 1, {SK_FFI_DOUBLE}},
        {"void(str)", SK_FFI_VOID, 1, {SK_FFI_STRING}},
        {"  str ( ctx ,\tstr ) ", SK_FFI_STRING, 2, {SK_FFI_CTX, SK_FFI_STRING}},
        {"u64(bool,i32,i64,u64,f64,str,ptr,value)", SK_FFI_UINT64, 8,
         {SK_FFI_BOOL, SK_FFI_INT32, SK_FFI_INT64, SK_FFI_UINT64, SK_FFI_DOUBLE, SK_FFI_STRING, SK_FFI_POINTER, SK_FFI_VALUE}},
        {"i32(ctx)", SK_FFI_INT32, 1, {SK_FFI_CTX}},
        {"ptr(ptr)", SK_FFI_POINTER, 1, {SK_FFI_POINTER}},
        {"value(value)", SK_FFI_VALUE, 1, {SK_FFI_VALUE}},
        {"f64(f64)", SK_FFI_DOUBLE, 1, {SK_FFI_DOUBLE}},
        {"f32(i8,i16,u8,u16,u32,f32)", SK_FFI_FLOAT, 6,
         {SK_FFI_INT8, SK_FFI_INT16, SK_FFI_UINT8, SK_FFI_UINT16, SK_FFI_UINT32, SK_FFI_FLOAT}},
        {"u8(ctx, u16)", SK_FFI_UINT8, 2, {SK_FFI_CTX, SK_FFI_UINT16}},
        {"i16()", SK_FFI_INT16, 0, {SK_FFI_VOID}},
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        sk_ffi_signature *s = sig(cases[c].text);
        cr_assert_eq(sk_ffi_signature_result(s), cases[c].result, "%s", cases[c].text);
        cr_assert_eq(sk_ffi_signature_arg_count(s), cases[c].count, "%s", cases[c].text);
        for (size_t i = 0; i < cases[c].count; i++) {
            cr_assert_eq(sk_ffi_signature_arg(s, i), cases[c].args[i], "%s arg %zu", cases[c].text, i);
        }
        cr_assert_eq(sk_ffi_signature_arg(s, cases[c].count), SK_FFI_VOID);
        sk_ffi_signature_release(s);
    }
    expect_no_ffi_live_objects();
}

Test(ffi_signature, create_from_kinds_matches_parse) {
    sk_ffi_type args[] = {SK_FFI_CTX, SK_FFI_STRING, SK_FFI_DOUBLE};
    sk_ffi_signature *made = NULL;
    SK_OK_OR_FAIL(sk_ffi_signature_create(&made, SK_FFI_BOOL, args, 3));
    sk_ffi_signature *parsed = sig("bool(ctx,str,f64)");
    cr_assert_eq(sk_ffi_signature_result(made), sk_ffi_signature_result(parsed));
    cr_assert_eq(sk_ffi_signature_arg_count(made), 3);
    for (size_t i = 0; i < 3; i++) {
        cr_assert_eq(sk_ffi_signature_arg(made, i), sk_ffi_signature_arg(parsed, i));
    }
    sk_ffi_signature *none = NULL;
    SK_OK_OR_FAIL(sk_ffi_signature_create(&none, SK_FFI_VOID, NULL, 0));
    cr_assert_eq(sk_ffi_signature_arg_count(none), 0);
    cr_assert_eq(sk_ffi_live_objects(), 3);
    sk_ffi_signature_release(made);
    sk_ffi_signature_release(parsed);
    sk_ffi_signature_release(none);
    expect_no_ffi_live_objects();
}

Test(ffi_signature, malformed_text_names_the_position) {
    static const struct {
        const char *text;
        const char *fragment;
    } cases[] = {
        {"", "expected a type for the result, found the end of the text (offset 0)"},
        {"   ", "found the end of the text (offset 3)"},
        {"int(i64)", "unknown type 'int' for the result (offset 0)"},
        {"void", "expected '(' after the result, found the end of the text (offset 4)"},
        {"void[i64]", "expected '(' after the result, found '[' (offset 4)"},
        {"void(i64", "expected ',' or ')' after argument 0, found the end of the text (offset 8)"},
        {"void(i64,)", "expected a type for the argument 1, found ')' (offset 9)"},
        {"void(,i64)", "expected a type for the argument 0, found ',' (offset 5)"},
        {"void(i64 i64)", "expected ',' or ')' after argument 0, found 'i' (offset 9)"},
        {"void(i64,int32)", "unknown type 'int32' for the argument 1 (offset 9)"},
        {"void(void)", "'void' is not an argument type (argument 0, offset 5)"},
        {"void(i64,ctx)", "'ctx' must be the first argument (argument 1, offset 9)"},
        {"ctx(i64)", "'ctx' cannot be the result (offset 0)"},
        {"void(i64) x", "unexpected 'x' after ')' (offset 10)"},
        {"void(i64))", "unexpected ')' after ')' (offset 9)"},
        {"void(I64)", "unknown type 'I64' for the argument 0 (offset 5)"},
        {"void(i64,i64,i64,i64,i64,i64,i64,i64,i64,i64,i64,i64,i64,i64,i64,i64,i64)", "more than 16 arguments (argument 16, offset 69)"},
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        sk_ffi_signature *s = (sk_ffi_signature *)&s; /* must be reset to NULL */
        int status = sk_ffi_signature_parse(&s, cases[c].text);
        cr_assert_eq(status, SK_ERR_INVALID_ARGUMENT, "\"%s\" returned %d", cases[c].text, status);
        cr_assert_null(s, "\"%s\": out not reset", cases[c].text);
        cr_assert(strstr(sk_ffi_last_error_message(), cases[c].fragment) != NULL,
                  "\"%s\": message \"%s\" lacks \"%s\"", cases[c].text, sk_ffi_last_error_message(), cases[c].fragment);
        cr_assert(strncmp(sk_ffi_last_error_message(), "sk_ffi_signature_parse: text: ", 30) == 0);
    }
    expect_no_ffi_live_objects();
}

/* True when `text` is valid UTF-8 (no overlong forms, surrogates or code
 * points above U+10FFFF). */
static bool valid_utf8(const char *text) {
    const unsigned char *p = (const unsigned char *)text;
    while (*p != 0) {
        unsigned char c = *p;
        size_t n = c < 0x80 ? 0 : (c & 0xE0) == 0xC0 ? 1 : (c & 0xF0) == 0xE0 ? 2 : (c & 0xF8) == 0xF0 ? 3 : 4;
        if (n == 4 || (n == 1 && c < 0xC2) || (c == 0xE0 && p[1] < 0xA0) || (c == 0xED && p[1] >= 0xA0) ||
            (c == 0xF0 && p[1] < 0x90) || (c == 0xF4 && p[1] >= 0x90) || c > 0xF4) {
            return false;
        }
        for (size_t i = 1; i <= n; i++) {
            if ((p[i] & 0xC0) != 0x80) {
                return false;
            }
        }
        p += n + 1;
    }
    return true;
}

/* A byte of the text quoted in a message is quoted as itself when it is
 * printable ASCII, else escaped (\xC3): a message never holds part of a
 * multi-byte character, so it is always valid UTF-8. */
Test(ffi_signature, a_quoted_byte_is_escaped_unless_printable_ascii) {
    static const struct {
        const char *text;
        const char *message;
    } cases[] = {
        {"void(\xc3\xa9)", "sk_ffi_signature_parse: text: expected a type for the argument 0, found '\\xC3' (offset 5)"},
        {"\xe2\x82\xac()", "sk_ffi_signature_parse: text: expected a type for the result, found '\\xE2' (offset 0)"},
        {"void\x01()", "sk_ffi_signature_parse: text: expected '(' after the result, found '\\x01' (offset 4)"},
        {"void(i64\xc3\xa9)", "sk_ffi_signature_parse: text: expected ',' or ')' after argument 0, found '\\xC3' (offset 8)"},
        {"void()\xc3\xa9", "sk_ffi_signature_parse: text: unexpected '\\xC3' after ')' (offset 6)"},
        {"void(i64)\x7f", "sk_ffi_signature_parse: text: unexpected '\\x7F' after ')' (offset 9)"},
        {"void(i64)\\", "sk_ffi_signature_parse: text: unexpected '\\' after ')' (offset 9)"},
        {"void(i64)~", "sk_ffi_signature_parse: text: unexpected '~' after ')' (offset 9)"},
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        sk_ffi_signature *s = NULL;
        cr_assert_eq(sk_ffi_signature_parse(&s, cases[c].text), SK_ERR_INVALID_ARGUMENT, "case %zu", c);
        cr_assert_str_eq(sk_ffi_last_error_message(), cases[c].message, "case %zu", c);
        cr_assert(valid_utf8(sk_ffi_last_error_message()), "case %zu: not UTF-8", c);
    }
    expect_no_ffi_live_objects();
}

Test(ffi_signature, invalid_kinds_name_the_argument_index) {
    sk_ffi_signature *s = NULL;
    sk_ffi_type void_arg[] = {SK_FFI_INT64, SK_FFI_INT64, SK_FFI_VOID};
    EXPECT_FFI_ERROR(sk_ffi_signature_create(&s, SK_FFI_VOID, void_arg, 3), SK_ERR_INVALID_ARGUMENT, "args[2]: void is allowed only as the result");
    sk_ffi_type late_ctx[] = {SK_FFI_INT64, SK_FFI_CTX};
    EXPECT_FFI_ERROR(sk_ffi_signature_create(&s, SK_FFI_VOID, late_ctx, 2), SK_ERR_INVALID_ARGUMENT, "args[1]: ctx is allowed only as the first argument");
    EXPECT_FFI_ERROR(sk_ffi_signature_create(&s, SK_FFI_CTX, NULL, 0), SK_ERR_INVALID_ARGUMENT, "result: ctx");
    EXPECT_FFI_ERROR(sk_ffi_signature_create(&s, (sk_ffi_type)42, NULL, 0), SK_ERR_INVALID_ARGUMENT, "result: type 42 is not an sk_ffi_type");
    EXPECT_FFI_ERROR(sk_ffi_signature_create(&s, (sk_ffi_type)(SK_FFI_FLOAT + 1), NULL, 0), SK_ERR_INVALID_ARGUMENT, "result: type 16 is not an sk_ffi_type");
    sk_ffi_type bad[] = {SK_FFI_CTX, (sk_ffi_type)-1};
    EXPECT_FFI_ERROR(sk_ffi_signature_create(&s, SK_FFI_VOID, bad, 2), SK_ERR_INVALID_ARGUMENT, "args[1]: type -1 is not an sk_ffi_type");
    sk_ffi_type many[SK_FFI_MAX_ARGS + 1];
    for (size_t i = 0; i <= SK_FFI_MAX_ARGS; i++) {
        many[i] = SK_FFI_INT64;
    }
    EXPECT_FFI_ERROR(sk_ffi_signature_create(&s, SK_FFI_VOID, many, SK_FFI_MAX_ARGS + 1), SK_ERR_INVALID_ARGUMENT, "count: 17 arguments, at most 16");
    SK_OK_OR_FAIL(sk_ffi_signature_create(&s, SK_FFI_VOID, many, SK_FFI_MAX_ARGS));
    cr_assert_eq(sk_ffi_signature_arg_count(s), SK_FFI_MAX_ARGS);
    sk_ffi_signature_release(s);
    expect_no_ffi_live_objects();
}

Test(ffi_signature, null_arguments) {
    sk_ffi_signature *s = (sk_ffi_signature *)&s;
    EXPECT_FFI_ERROR(sk_ffi_signature_parse(NULL, "void()"), SK_ERR_NULL_ARGUMENT, "sk_ffi_signature_parse: out is NULL");
    EXPECT_FFI_ERROR(sk_ffi_signature_parse(&s, NULL), SK_ERR_NULL_ARGUMENT, "sk_ffi_signature_parse: text is NULL");
    cr_assert_null(s);
    EXPECT_FFI_ERROR(sk_ffi_signature_create(NULL, SK_FFI_VOID, NULL, 0), SK_ERR_NULL_ARGUMENT, "sk_ffi_signature_create: out is NULL");
    EXPECT_FFI_ERROR(sk_ffi_signature_create(&s, SK_FFI_VOID, NULL, 1), SK_ERR_NULL_ARGUMENT, "args is NULL with count 1");
    cr_assert_eq(sk_ffi_signature_result(NULL), SK_FFI_VOID);
    cr_assert_eq(sk_ffi_signature_arg_count(NULL), 0);
    cr_assert_eq(sk_ffi_signature_arg(NULL, 0), SK_FFI_VOID);
    cr_assert_null(sk_ffi_signature_retain(NULL));
    sk_ffi_signature_release(NULL);
    expect_no_ffi_live_objects();
}

Test(ffi_signature, error_messages_are_per_thread) {
    sk_ffi_signature *s = NULL;
    cr_assert_eq(sk_ffi_signature_parse(&s, "nope()"), SK_ERR_INVALID_ARGUMENT);
    const char *before = sk_ffi_last_error_message();
    cr_assert(strstr(before, "unknown type 'nope'") != NULL);
    s = sig("void()"); /* success leaves the message as it was */
    cr_assert(strstr(sk_ffi_last_error_message(), "unknown type 'nope'") != NULL);
    sk_ffi_signature_release(s);
    expect_no_ffi_live_objects();
}

/* A round of run_rounds_on_threads: retains the signature `arg`, reads it,
 * releases it. */
static void share_round(void *arg, int thread) {
    (void)thread;
    sk_ffi_signature *mine = sk_ffi_signature_retain(arg);
    if (sk_ffi_signature_arg(mine, 1) != SK_FFI_INT64) {
        abort();
    }
    sk_ffi_signature_release(mine);
}

Test(ffi_signature, shared_between_threads_released_once) {
    sk_ffi_signature *shared = sig("void(ctx,i64)");
    run_rounds_on_threads(4, 20000, share_round, shared);
    cr_assert_eq(sk_ffi_live_objects(), 1);
    cr_assert_eq(sk_ffi_signature_retain(shared), shared);
    sk_ffi_signature_release(shared);
    cr_assert_eq(sk_ffi_live_objects(), 1);
    sk_ffi_signature_release(shared);
    expect_no_ffi_live_objects();
}
