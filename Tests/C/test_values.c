/* test_values.c - sk_value: every kind, ownership, equality, misuse. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "support.h"

/* ------------------------------------------------------------------------ */
/* Primitives                                                                */
/* ------------------------------------------------------------------------ */

Test(values, zero_initialised_is_nil, .timeout = SK_TEST_TIMEOUT) {
    sk_value v;
    memset(&v, 0, sizeof v);
    cr_assert_eq(sk_value_kind(&v), SK_KIND_NIL);
    sk_value set;
    sk_value_set_int64(&set, 5);
    sk_value_set_nil(&set);
    cr_assert_eq(sk_value_kind(&set), SK_KIND_NIL);
    cr_assert(sk_value_equal(&v, &set));
    cr_assert_eq(sk_value_kind(NULL), SK_KIND_NIL);
    sk_value_release(&v); /* nil: a no-op */
    cr_assert_eq(sk_value_kind(&v), SK_KIND_NIL);
    cr_assert_eq(sk_live_objects(), 0);
}

Test(values, primitives_round_trip_and_allocate_nothing, .timeout = SK_TEST_TIMEOUT) {
    long before = sk_live_objects();
    sk_value v;

    sk_value_set_bool(&v, true);
    cr_assert_eq(sk_value_kind(&v), SK_KIND_BOOL);
    bool b = false;
    SK_OK_OR_FAIL(sk_value_get_bool(&v, &b));
    cr_assert_eq(b, true);
    sk_value_set_bool(&v, false);
    b = true;
    SK_OK_OR_FAIL(sk_value_get_bool(&v, &b));
    cr_assert_eq(b, false);

    const int64_t ints[] = { 0, 1, -1, INT64_MAX, INT64_MIN, 1234567890123LL };
    for (size_t i = 0; i < sizeof ints / sizeof ints[0]; i++) {
        sk_value_set_int64(&v, ints[i]);
        cr_assert_eq(sk_value_kind(&v), SK_KIND_INT64);
        int64_t n = 7;
        SK_OK_OR_FAIL(sk_value_get_int64(&v, &n));
        cr_assert_eq(n, ints[i]);
    }

    const double reals[] = { 0.0, -0.0, 1.5, -2.25e300, 5e-324, INFINITY, -INFINITY };
    for (size_t i = 0; i < sizeof reals / sizeof reals[0]; i++) {
        sk_value_set_double(&v, reals[i]);
        cr_assert_eq(sk_value_kind(&v), SK_KIND_DOUBLE);
        double d = 42;
        SK_OK_OR_FAIL(sk_value_get_double(&v, &d));
        cr_assert_eq(memcmp(&d, &reals[i], sizeof d), 0, "%g came back as %g", reals[i], d);
    }
    sk_value_set_double(&v, NAN);
    double d = 0;
    SK_OK_OR_FAIL(sk_value_get_double(&v, &d));
    cr_assert(isnan(d));

    /* Copies and releases of primitives allocate and free nothing. */
    sk_value copy;
    sk_value_set_int64(&v, 9);
    SK_OK_OR_FAIL(sk_value_copy(&copy, &v));
    cr_assert(sk_value_equal(&copy, &v));
    cr_assert_eq(sk_live_objects(), before);
    sk_value_release(&copy);
    cr_assert_eq(sk_value_kind(&copy), SK_KIND_NIL);
    sk_value_release(&v);
    cr_assert_eq(sk_value_kind(&v), SK_KIND_NIL);
    cr_assert_eq(sk_live_objects(), before);
    cr_assert_eq(before, 0);
}

/* The header's inline fast paths (the accessor names are macros over them)
 * and the exported functions, called through their parenthesised names, give
 * the same results, errors included. */
Test(values, inline_accessors_match_the_exported_functions, .timeout = SK_TEST_TIMEOUT) {
    sk_value a, b, text;
    int64_t n1 = 1, n2 = 2;
    bool b1 = false, b2 = true;
    double d1 = 1, d2 = 2;

    sk_value_set_int64(&a, -77);
    (sk_value_set_int64)(&b, -77);
    cr_assert(sk_value_equal(&a, &b));
    cr_assert_eq(sk_value_get_int64(&a, &n1), SK_OK);
    cr_assert_eq((sk_value_get_int64)(&b, &n2), SK_OK);
    cr_assert_eq(n1, -77);
    cr_assert_eq(n2, -77);

    sk_value_set_bool(&a, true);
    (sk_value_set_bool)(&b, true);
    cr_assert(sk_value_equal(&a, &b));
    cr_assert_eq(sk_value_get_bool(&a, &b1), SK_OK);
    cr_assert_eq((sk_value_get_bool)(&b, &b2), SK_OK);
    cr_assert(b1 && b2);

    sk_value_set_double(&a, 0.5);
    (sk_value_set_double)(&b, 0.5);
    cr_assert(sk_value_equal(&a, &b));
    cr_assert_eq(sk_value_get_double(&a, &d1), SK_OK);
    cr_assert_eq((sk_value_get_double)(&b, &d2), SK_OK);
    cr_assert_eq(d1, 0.5);
    cr_assert_eq(d2, 0.5);

    sk_value_set_nil(&a);
    (sk_value_set_nil)(&b);
    cr_assert(sk_value_equal(&a, &b));
    cr_assert_eq(sk_value_kind(&a), SK_KIND_NIL);

    /* A wrong kind, a heap kind and NULL arguments fall back to the exported
     * function, which reports them; the output is left as it was. */
    n1 = 5;
    cr_assert_eq(sk_value_get_int64(&a, &n1), SK_ERR_WRONG_KIND);
    cr_assert_eq(n1, 5);
    cr_assert_neq(strstr(sk_last_error_message(), "sk_value_get_int64"), NULL);
    SK_OK_OR_FAIL(sk_value_set_string(&text, "x"));
    cr_assert_eq(sk_value_get_double(&text, &d1), SK_ERR_WRONG_KIND);
    cr_assert_eq(sk_value_get_bool(&text, &b1), SK_ERR_WRONG_KIND);
    cr_assert_eq(sk_value_get_int64(NULL, &n1), SK_ERR_NULL_ARGUMENT);
    cr_assert_eq(sk_value_get_int64(&text, NULL), SK_ERR_NULL_ARGUMENT);
    cr_assert_eq((sk_value_get_int64)(&text, &n1), SK_ERR_WRONG_KIND);
    sk_value_release(&text);

    /* The exported functions can be taken by address (as an FFI does). */
    int (*get_int64)(const sk_value *, int64_t *) = &sk_value_get_int64;
    sk_value_set_int64(&a, 3);
    cr_assert_eq(get_int64(&a, &n1), SK_OK);
    cr_assert_eq(n1, 3);
    cr_assert_eq(sk_live_objects(), 0);
}

Test(values, primitive_setters_ignore_null_out, .timeout = SK_TEST_TIMEOUT) {
    sk_value_set_nil(NULL);
    sk_value_set_bool(NULL, true);
    sk_value_set_int64(NULL, 1);
    sk_value_set_double(NULL, 1.0);
    sk_value_release(NULL);
    cr_assert_eq(sk_live_objects(), 0);
}

/* ------------------------------------------------------------------------ */
/* Strings and bytes                                                         */
/* ------------------------------------------------------------------------ */

Test(values, string_round_trip_copies_the_text, .timeout = SK_TEST_TIMEOUT) {
    char source[] = "héllo";
    sk_value v;
    SK_OK_OR_FAIL(sk_value_set_string(&v, source));
    cr_assert_eq(sk_value_kind(&v), SK_KIND_STRING);
    cr_assert_eq(sk_live_objects(), 1);
    source[0] = 'J'; /* the value holds its own copy */

    const char *text = NULL;
    size_t length = 0;
    SK_OK_OR_FAIL(sk_value_get_string(&v, &text, &length));
    cr_assert_str_eq(text, "héllo");
    cr_assert_eq(length, strlen("héllo"));
    cr_assert_neq((const void *)text, (const void *)source);
    /* length is optional */
    const char *again = NULL;
    SK_OK_OR_FAIL(sk_value_get_string(&v, &again, NULL));
    cr_assert_eq(again, text);

    sk_value_release(&v);
    cr_assert_eq(sk_value_kind(&v), SK_KIND_NIL);
    cr_assert_eq(sk_live_objects(), 0);
}

Test(values, empty_strings, .timeout = SK_TEST_TIMEOUT) {
    sk_value a, b;
    SK_OK_OR_FAIL(sk_value_set_string(&a, ""));
    SK_OK_OR_FAIL(sk_value_set_string_n(&b, NULL, 0));
    const char *text = NULL;
    size_t length = 99;
    SK_OK_OR_FAIL(sk_value_get_string(&b, &text, &length));
    cr_assert_not_null(text);
    cr_assert_eq(length, 0);
    cr_assert_eq(text[0], '\0');
    cr_assert(sk_value_equal(&a, &b));
    sk_value_release(&a);
    sk_value_release(&b);
    cr_assert_eq(sk_live_objects(), 0);
}

Test(values, string_with_embedded_nul, .timeout = SK_TEST_TIMEOUT) {
    static const char raw[] = { 'a', '\0', 'b', 'c' };
    sk_value v;
    SK_OK_OR_FAIL(sk_value_set_string_n(&v, raw, sizeof raw));
    const char *text = NULL;
    size_t length = 0;
    SK_OK_OR_FAIL(sk_value_get_string(&v, &text, &length));
    cr_assert_eq(length, 4);
    cr_assert_eq(memcmp(text, raw, 4), 0);
    cr_assert_eq(text[4], '\0', "not NUL-terminated");

    /* Equality looks at every byte, not up to the first NUL. */
    static const char other[] = { 'a', '\0', 'b', 'd' };
    sk_value w, prefix;
    SK_OK_OR_FAIL(sk_value_set_string_n(&w, other, sizeof other));
    SK_OK_OR_FAIL(sk_value_set_string(&prefix, "a"));
    cr_assert(!sk_value_equal(&v, &w));
    cr_assert(!sk_value_equal(&v, &prefix));
    sk_value same;
    SK_OK_OR_FAIL(sk_value_set_string_n(&same, raw, sizeof raw));
    cr_assert(sk_value_equal(&v, &same));

    /* Only part of a buffer. */
    sk_value part;
    SK_OK_OR_FAIL(sk_value_set_string_n(&part, "abcdef", 3));
    SK_OK_OR_FAIL(sk_value_get_string(&part, &text, &length));
    cr_assert_eq(length, 3);
    cr_assert_str_eq(text, "abc");

    values_release(5, &v, &w, &prefix, &same, &part);
    cr_assert_eq(sk_live_objects(), 0);
}

Test(values, string_null_arguments, .timeout = SK_TEST_TIMEOUT) {
    sk_value v;
    sk_value_set_int64(&v, 3);
    cr_assert_eq(sk_value_set_string(&v, NULL), SK_ERR_NULL_ARGUMENT);
    cr_assert_eq(sk_value_kind(&v), SK_KIND_NIL, "out not set to nil on error");
    sk_value_set_int64(&v, 3);
    cr_assert_eq(sk_value_set_string_n(&v, NULL, 1), SK_ERR_NULL_ARGUMENT);
    cr_assert_eq(sk_value_kind(&v), SK_KIND_NIL);
    cr_assert_eq(sk_value_set_string(NULL, "x"), SK_ERR_NULL_ARGUMENT);
    cr_assert_eq(sk_value_set_string_n(NULL, "x", 1), SK_ERR_NULL_ARGUMENT);
    cr_assert_eq(sk_live_objects(), 0);
}

Test(values, bytes_round_trip, .timeout = SK_TEST_TIMEOUT) {
    unsigned char data[] = { 0, 1, 2, 0, 255 };
    sk_value v;
    SK_OK_OR_FAIL(sk_value_set_bytes(&v, data, sizeof data));
    cr_assert_eq(sk_value_kind(&v), SK_KIND_BYTES);
    cr_assert_eq(sk_live_objects(), 1);
    data[1] = 77; /* copied */
    const void *out = NULL;
    size_t length = 0;
    SK_OK_OR_FAIL(sk_value_get_bytes(&v, &out, &length));
    cr_assert_eq(length, 5);
    static const unsigned char expected[] = { 0, 1, 2, 0, 255 };
    cr_assert_eq(memcmp(out, expected, 5), 0);
    SK_OK_OR_FAIL(sk_value_get_bytes(&v, &out, NULL));

    sk_value empty;
    SK_OK_OR_FAIL(sk_value_set_bytes(&empty, NULL, 0));
    length = 9;
    SK_OK_OR_FAIL(sk_value_get_bytes(&empty, &out, &length));
    cr_assert_eq(length, 0);

    sk_value bad;
    sk_value_set_int64(&bad, 1);
    cr_assert_eq(sk_value_set_bytes(&bad, NULL, 3), SK_ERR_NULL_ARGUMENT);
    cr_assert_eq(sk_value_kind(&bad), SK_KIND_NIL);
    cr_assert_eq(sk_value_set_bytes(NULL, data, 1), SK_ERR_NULL_ARGUMENT);

    /* Bytes and a string with the same content are different kinds. */
    sk_value text;
    SK_OK_OR_FAIL(sk_value_set_string_n(&text, "ab", 2));
    sk_value bytes;
    SK_OK_OR_FAIL(sk_value_set_bytes(&bytes, "ab", 2));
    cr_assert(!sk_value_equal(&text, &bytes));

    values_release(4, &v, &empty, &text, &bytes);
    cr_assert_eq(sk_live_objects(), 0);
}

/* ------------------------------------------------------------------------ */
/* Arrays                                                                    */
/* ------------------------------------------------------------------------ */

Test(values, nested_arrays, .timeout = SK_TEST_TIMEOUT) {
    sk_value inner_items[2];
    sk_value_set_double(&inner_items[0], 3.5);
    sk_value_set_nil(&inner_items[1]);
    sk_value inner;
    SK_OK_OR_FAIL(sk_value_set_array(&inner, inner_items, 2));

    sk_value items[4];
    sk_value_set_int64(&items[0], 1);
    items[1] = string_value("two");
    items[2] = inner;
    SK_OK_OR_FAIL(sk_value_set_bytes(&items[3], "\x01\x02", 2));
    sk_value outer;
    SK_OK_OR_FAIL(sk_value_set_array(&outer, items, 4));
    /* inner array, its parent, "two", the bytes */
    cr_assert_eq(sk_live_objects(), 4);

    /* The array retained the heap items: dropping ours keeps them alive. */
    values_release(3, &items[1], &items[2], &items[3]);
    cr_assert_eq(sk_live_objects(), 4);

    size_t count = 0;
    SK_OK_OR_FAIL(sk_value_get_array_count(&outer, &count));
    cr_assert_eq(count, 4);
    const sk_value *item = NULL;
    SK_OK_OR_FAIL(sk_value_get_array_item(&outer, 0, &item));
    cr_assert_eq(value_int(item), 1);
    SK_OK_OR_FAIL(sk_value_get_array_item(&outer, 1, &item));
    const char *text = NULL;
    SK_OK_OR_FAIL(sk_value_get_string(item, &text, NULL));
    cr_assert_str_eq(text, "two");
    SK_OK_OR_FAIL(sk_value_get_array_item(&outer, 3, &item));
    cr_assert_eq(sk_value_kind(item), SK_KIND_BYTES);

    /* All the items at once: the same elements, in order, contiguous. */
    const sk_value *all = NULL;
    count = 0;
    SK_OK_OR_FAIL(sk_value_get_array_items(&outer, &all, &count));
    cr_assert_eq(count, 4);
    for (size_t i = 0; i < count; i++) {
        SK_OK_OR_FAIL(sk_value_get_array_item(&outer, i, &item));
        cr_assert_eq(item, &all[i], "item %zu", i);
    }
    cr_assert_eq(value_int(&all[0]), 1);
    SK_OK_OR_FAIL(sk_value_get_string(&all[1], &text, NULL));
    cr_assert_str_eq(text, "two");
    all = NULL;
    SK_OK_OR_FAIL(sk_value_get_array_items(&outer, &all, NULL));
    cr_assert_eq(sk_value_kind(&all[2]), SK_KIND_ARRAY);

    const sk_value *nested = NULL;
    SK_OK_OR_FAIL(sk_value_get_array_item(&outer, 2, &nested));
    cr_assert_eq(sk_value_kind(nested), SK_KIND_ARRAY);
    SK_OK_OR_FAIL(sk_value_get_array_count(nested, &count));
    cr_assert_eq(count, 2);
    SK_OK_OR_FAIL(sk_value_get_array_item(nested, 0, &item));
    double d = 0;
    SK_OK_OR_FAIL(sk_value_get_double(item, &d));
    cr_assert_eq(d, 3.5);
    SK_OK_OR_FAIL(sk_value_get_array_item(nested, 1, &item));
    cr_assert_eq(sk_value_kind(item), SK_KIND_NIL);

    /* A borrowed element can be copied out and outlive the array. */
    sk_value kept;
    SK_OK_OR_FAIL(sk_value_copy(&kept, nested));
    sk_value_release(&outer);
    cr_assert_eq(sk_live_objects(), 1);
    SK_OK_OR_FAIL(sk_value_get_array_count(&kept, &count));
    cr_assert_eq(count, 2);
    sk_value_release(&kept);
    cr_assert_eq(sk_live_objects(), 0);
}

Test(values, empty_array, .timeout = SK_TEST_TIMEOUT) {
    sk_value v;
    SK_OK_OR_FAIL(sk_value_set_array(&v, NULL, 0));
    cr_assert_eq(sk_value_kind(&v), SK_KIND_ARRAY);
    size_t count = 5;
    SK_OK_OR_FAIL(sk_value_get_array_count(&v, &count));
    cr_assert_eq(count, 0);
    const sk_value *item = NULL;
    cr_assert_eq(sk_value_get_array_item(&v, 0, &item), SK_ERR_INVALID_ARGUMENT);
    count = 5;
    SK_OK_OR_FAIL(sk_value_get_array_items(&v, &item, &count));
    cr_assert_eq(count, 0);
    sk_value w;
    SK_OK_OR_FAIL(sk_value_set_array(&w, NULL, 0));
    cr_assert(sk_value_equal(&v, &w));
    sk_value_release(&v);
    sk_value_release(&w);
    cr_assert_eq(sk_live_objects(), 0);
}

Test(values, array_index_out_of_range, .timeout = SK_TEST_TIMEOUT) {
    sk_value items[2] = { int_value(10), int_value(20) };
    sk_value v;
    SK_OK_OR_FAIL(sk_value_set_array(&v, items, 2));
    const sk_value *item = NULL;
    cr_assert_eq(sk_value_get_array_item(&v, 2, &item), SK_ERR_INVALID_ARGUMENT);
    cr_assert_eq(sk_value_get_array_item(&v, 1000, &item), SK_ERR_INVALID_ARGUMENT);
    cr_assert_eq(sk_value_get_array_item(&v, (size_t)-1, &item), SK_ERR_INVALID_ARGUMENT);
    cr_assert_eq(sk_value_get_array_item(&v, SIZE_MAX / 2, &item), SK_ERR_INVALID_ARGUMENT);
    SK_OK_OR_FAIL(sk_value_get_array_item(&v, 1, &item));
    cr_assert_eq(value_int(item), 20);
    cr_assert_eq(sk_value_get_array_item(&v, 0, NULL), SK_ERR_NULL_ARGUMENT);
    cr_assert_eq(sk_value_get_array_item(NULL, 0, &item), SK_ERR_NULL_ARGUMENT);
    sk_value_release(&v);
    cr_assert_eq(sk_live_objects(), 0);
}

Test(values, array_null_arguments, .timeout = SK_TEST_TIMEOUT) {
    sk_value v;
    sk_value_set_int64(&v, 1);
    cr_assert_eq(sk_value_set_array(&v, NULL, 2), SK_ERR_NULL_ARGUMENT);
    cr_assert_eq(sk_value_kind(&v), SK_KIND_NIL);
    sk_value item = int_value(1);
    cr_assert_eq(sk_value_set_array(NULL, &item, 1), SK_ERR_NULL_ARGUMENT);
    cr_assert_eq(sk_live_objects(), 0);
}

/* An item that is not a value (an unknown kind, a heap kind without its
 * object, a released string) is an error naming the item; the valid items
 * before it are not kept (nothing alive afterwards). */
Test(values, array_of_invalid_items_is_an_error, .timeout = SK_TEST_TIMEOUT) {
    sk_value items[2];
    SK_OK_OR_FAIL(sk_value_set_string(&items[0], "kept?"));
    memset(&items[1], 0xab, sizeof items[1]);
    sk_value v = int_value(5);
    cr_assert_eq(sk_value_set_array(&v, items, 2), SK_ERR_INVALID_ARGUMENT);
    cr_assert_eq(sk_value_kind(&v), SK_KIND_NIL);
    cr_assert(strstr(sk_last_error_message(), "item 1: unknown value kind") != NULL, "%s", sk_last_error_message());
    memset(&items[1], 0, sizeof items[1]);
    items[1].kind = SK_KIND_STRING;
    cr_assert_eq(sk_value_set_array(&v, items, 2), SK_ERR_INVALID_ARGUMENT);
    cr_assert(strstr(sk_last_error_message(), "item 1: ") != NULL, "%s", sk_last_error_message());
    sk_value_release(&items[0]);
    cr_assert_eq(sk_live_objects(), 0);

    SK_OK_OR_FAIL(sk_set_handle_checking(true));
    sk_value released;
    SK_OK_OR_FAIL(sk_value_set_string(&released, "gone"));
    sk_value stale = released;
    sk_value_release(&released);
    cr_assert_eq(sk_value_set_array(&v, &stale, 1), SK_ERR_RELEASED);
    cr_assert_eq(sk_value_kind(&v), SK_KIND_NIL);
    SK_OK_OR_FAIL(sk_set_handle_checking(false));
    cr_assert_eq(sk_live_objects(), 0);
}

/* A length or count no buffer can have (above PTRDIFF_MAX) is detectable
 * misuse: an error, out set to nil, no crash and nothing read. */
Test(values, huge_lengths_rejected, .timeout = SK_TEST_TIMEOUT) {
    const size_t huge[] = { SIZE_MAX, SIZE_MAX / 2 + 1 };
    sk_value items[2] = { int_value(1), int_value(2) };
    for (size_t i = 0; i < 2; i++) {
        sk_value v = int_value(5);
        cr_assert_eq(sk_value_set_string_n(&v, "ab", huge[i]), SK_ERR_INVALID_ARGUMENT, "set_string_n %zu", huge[i]);
        cr_assert_eq(sk_value_kind(&v), SK_KIND_NIL);
        v = int_value(5);
        cr_assert_eq(sk_value_set_bytes(&v, "ab", huge[i]), SK_ERR_INVALID_ARGUMENT, "set_bytes %zu", huge[i]);
        cr_assert_eq(sk_value_kind(&v), SK_KIND_NIL);
        v = int_value(5);
        cr_assert_eq(sk_value_set_array(&v, items, huge[i]), SK_ERR_INVALID_ARGUMENT, "set_array %zu", huge[i]);
        cr_assert_eq(sk_value_kind(&v), SK_KIND_NIL);
    }
    cr_assert_eq(sk_live_objects(), 0);
}

/* ------------------------------------------------------------------------ */
/* Pointers                                                                  */
/* ------------------------------------------------------------------------ */

typedef struct pointer_probe {
    int releases;
    void *released_pointer;
    pthread_t thread;
} pointer_probe;

static pointer_probe probe;

static void probe_release(void *pointer) {
    probe.releases++;
    probe.released_pointer = pointer;
    probe.thread = pthread_self();
}

Test(values, pointer_release_runs_once_after_last_copy, .timeout = SK_TEST_TIMEOUT) {
    int target = 5;
    sk_value v;
    SK_OK_OR_FAIL(sk_value_set_pointer(&v, &target, probe_release));
    cr_assert_eq(sk_value_kind(&v), SK_KIND_POINTER);
    cr_assert_eq(sk_live_objects(), 1);
    void *out = NULL;
    SK_OK_OR_FAIL(sk_value_get_pointer(&v, &out));
    cr_assert_eq(out, &target);

    sk_value copy1, copy2;
    SK_OK_OR_FAIL(sk_value_copy(&copy1, &v));
    SK_OK_OR_FAIL(sk_value_copy(&copy2, &copy1));
    cr_assert(sk_value_equal(&v, &copy2));
    /* An array holding it is one more owner. */
    sk_value array;
    SK_OK_OR_FAIL(sk_value_set_array(&array, &copy1, 1));

    sk_value_release(&v);
    sk_value_release(&copy1);
    cr_assert_eq(probe.releases, 0);
    sk_value_release(&copy2);
    cr_assert_eq(probe.releases, 0);
    sk_value_release(&array);
    cr_assert_eq(probe.releases, 1);
    cr_assert_eq(probe.released_pointer, &target);
    cr_assert_eq(sk_live_objects(), 0);
}

Test(values, pointer_without_release_and_null_pointer, .timeout = SK_TEST_TIMEOUT) {
    sk_value v;
    SK_OK_OR_FAIL(sk_value_set_pointer(&v, NULL, NULL));
    void *out = &out;
    SK_OK_OR_FAIL(sk_value_get_pointer(&v, &out));
    cr_assert_null(out);
    sk_value_release(&v);
    SK_OK_OR_FAIL(sk_value_set_pointer(&v, NULL, probe_release));
    sk_value_release(&v);
    cr_assert_eq(probe.releases, 1);
    cr_assert_null(probe.released_pointer);
    cr_assert_eq(sk_live_objects(), 0);
}

Test(values, pointer_release_runs_when_set_fails, .timeout = SK_TEST_TIMEOUT) {
    int target = 0;
    cr_assert_eq(sk_value_set_pointer(NULL, &target, probe_release), SK_ERR_NULL_ARGUMENT);
    cr_assert_eq(probe.releases, 1, "release did not run exactly once on failure");
    cr_assert_eq(probe.released_pointer, &target);
    cr_assert_eq(sk_live_objects(), 0);
}

static void *drop_value(void *arg) {
    sk_value_release(arg);
    return NULL;
}

Test(values, pointer_release_runs_on_the_dropping_thread, .timeout = SK_TEST_TIMEOUT) {
    int target = 0;
    sk_value v;
    SK_OK_OR_FAIL(sk_value_set_pointer(&v, &target, probe_release));
    pthread_t thread;
    cr_assert_eq(pthread_create(&thread, NULL, drop_value, &v), 0);
    pthread_join(thread, NULL);
    cr_assert_eq(probe.releases, 1);
    cr_assert(pthread_equal(probe.thread, thread));
    cr_assert_eq(sk_live_objects(), 0);
}

/* Once a pointer value's release has run, sk_live_objects() no longer counts
 * the value, even when another thread dropped it and this one was woken by
 * the release. Repeated: the failure is a race. */
static void *drop_value_only(void *arg) {
    sk_value_release(arg);
    return NULL;
}

Test(values, pointer_uncounted_before_its_release_runs, .timeout = SK_TEST_TIMEOUT) {
    for (int round = 0; round < 500; round++) {
        counter released;
        counter_init(&released);
        sk_value v;
        SK_OK_OR_FAIL(sk_value_set_pointer(&v, &released, counter_hit));
        pthread_t thread;
        cr_assert_eq(pthread_create(&thread, NULL, drop_value_only, &v), 0);
        cr_assert(counter_wait(&released, 1, SK_WAIT_SECONDS));
        long live = sk_live_objects();
        pthread_join(thread, NULL);
        cr_assert_eq(live, 0, "round %d: the pointer value was still counted after its release ran", round);
        counter_destroy(&released);
    }
    expect_no_live_objects(0);
}

/* ------------------------------------------------------------------------ */
/* Signals in values                                                         */
/* ------------------------------------------------------------------------ */

static sk_disposable *complete_at_once(void *ctx, sk_subscriber *subscriber) {
    (void)ctx;
    SK_OK_OR_ABORT(sk_subscriber_put_completion(subscriber));
    return NULL;
}

Test(values, signal_value_retains_the_signal, .timeout = SK_TEST_TIMEOUT) {
    counter released;
    counter_init(&released);
    sk_signal *signal = new_signal(complete_at_once, &released, counter_hit);
    sk_value v;
    SK_OK_OR_FAIL(sk_value_set_signal(&v, signal));
    cr_assert_eq(sk_value_kind(&v), SK_KIND_SIGNAL);
    sk_signal *borrowed = NULL;
    SK_OK_OR_FAIL(sk_value_get_signal(&v, &borrowed));
    cr_assert_eq(borrowed, signal);

    /* Two values made from one handle are equal (identity). */
    sk_value same;
    SK_OK_OR_FAIL(sk_value_set_signal(&same, signal));
    cr_assert(sk_value_equal(&v, &same));
    sk_value_release(&same);

    sk_signal_release(signal);
    cr_assert_eq(counter_get(&released), 0, "the value did not keep the signal alive");
    cr_assert_gt(sk_live_objects(), 0);

    /* The borrowed handle still works. */
    recorder r;
    recorder_init(&r);
    sk_observer observer = recorder_observer(&r);
    SK_OK_OR_FAIL(sk_value_get_signal(&v, &borrowed));
    SK_OK_OR_FAIL(sk_signal_start(NULL, borrowed, &observer));
    recorder_expect(&r, "cr", NULL, 0);

    /* Retaining the borrowed handle keeps it past the value. */
    sk_signal *kept = sk_signal_retain(borrowed);
    cr_assert_eq(kept, borrowed);
    sk_value_release(&v);
    cr_assert_eq(counter_get(&released), 0);
    sk_signal_release(kept);
    cr_assert_eq(counter_get(&released), 1);
    recorder_destroy(&r);
    counter_destroy(&released);
    expect_no_live_objects(0);
}

Test(values, signal_value_errors, .timeout = SK_TEST_TIMEOUT) {
    sk_value v;
    sk_value_set_int64(&v, 1);
    cr_assert_eq(sk_value_set_signal(&v, NULL), SK_ERR_NULL_ARGUMENT);
    cr_assert_eq(sk_value_kind(&v), SK_KIND_NIL);
    sk_signal *signal = made_signal(sk_signal_never);
    cr_assert_eq(sk_value_set_signal(NULL, signal), SK_ERR_NULL_ARGUMENT);
    /* A handle of another kind. */
    sk_pipe *pipe = NULL;
    SK_OK_OR_FAIL(sk_pipe_create(&pipe, false));
    cr_assert_eq(sk_value_set_signal(&v, (sk_signal *)(void *)pipe), SK_ERR_WRONG_KIND);
    cr_assert_eq(sk_value_kind(&v), SK_KIND_NIL);
    sk_pipe_release(pipe);
    sk_signal_release(signal);
    expect_no_live_objects(0);
}

/* ------------------------------------------------------------------------ */
/* Copy and release                                                          */
/* ------------------------------------------------------------------------ */

Test(values, copy_shares_and_release_drops, .timeout = SK_TEST_TIMEOUT) {
    sk_value original = string_value("shared");
    sk_value copy;
    SK_OK_OR_FAIL(sk_value_copy(&copy, &original));
    cr_assert_eq(sk_live_objects(), 1, "a copy must share the immutable object");
    const char *a = NULL, *b = NULL;
    SK_OK_OR_FAIL(sk_value_get_string(&original, &a, NULL));
    SK_OK_OR_FAIL(sk_value_get_string(&copy, &b, NULL));
    cr_assert_eq(a, b);
    sk_value_release(&original);
    cr_assert_eq(sk_value_kind(&original), SK_KIND_NIL);
    cr_assert_eq(sk_live_objects(), 1);
    SK_OK_OR_FAIL(sk_value_get_string(&copy, &b, NULL));
    cr_assert_str_eq(b, "shared");
    sk_value_release(&copy);
    sk_value_release(&copy); /* nil now: a no-op */
    cr_assert_eq(sk_live_objects(), 0);
}

Test(values, copy_null_arguments, .timeout = SK_TEST_TIMEOUT) {
    sk_value src = int_value(4);
    cr_assert_eq(sk_value_copy(NULL, &src), SK_ERR_NULL_ARGUMENT);
    sk_value dst = int_value(8);
    cr_assert_eq(sk_value_copy(&dst, NULL), SK_ERR_NULL_ARGUMENT);
    cr_assert_eq(sk_value_kind(&dst), SK_KIND_NIL, "dst not set to nil");
    cr_assert_eq(sk_live_objects(), 0);
}

/* ------------------------------------------------------------------------ */
/* Equality                                                                  */
/* ------------------------------------------------------------------------ */

Test(values, equality_of_every_kind, .timeout = SK_TEST_TIMEOUT) {
    sk_value a, b;

    sk_value_set_nil(&a);
    sk_value_set_nil(&b);
    cr_assert(sk_value_equal(&a, &b));
    cr_assert(sk_value_equal(NULL, NULL));
    cr_assert(!sk_value_equal(&a, NULL), "NULL equals only NULL");
    cr_assert(!sk_value_equal(NULL, &a));

    sk_value_set_bool(&a, true);
    sk_value_set_bool(&b, true);
    cr_assert(sk_value_equal(&a, &b));
    sk_value_set_bool(&b, false);
    cr_assert(!sk_value_equal(&a, &b));

    sk_value_set_int64(&a, 7);
    sk_value_set_int64(&b, 7);
    cr_assert(sk_value_equal(&a, &b));
    sk_value_set_int64(&b, -7);
    cr_assert(!sk_value_equal(&a, &b));

    sk_value_set_double(&a, 0.0);
    sk_value_set_double(&b, -0.0);
    cr_assert(sk_value_equal(&a, &b), "0.0 == -0.0 with ==");
    sk_value_set_double(&a, NAN);
    sk_value_set_double(&b, NAN);
    cr_assert(!sk_value_equal(&a, &b), "NaN != NaN with ==");
    cr_assert(!sk_value_equal(&a, &a));
    sk_value_set_double(&a, 1.0);
    sk_value_set_int64(&b, 1);
    cr_assert(!sk_value_equal(&a, &b), "different kinds are never equal");
    sk_value_set_bool(&b, true);
    cr_assert(!sk_value_equal(&a, &b));
    sk_value_set_nil(&a);
    sk_value_set_bool(&b, false);
    cr_assert(!sk_value_equal(&a, &b));

    a = string_value("text");
    b = string_value("text");
    cr_assert(sk_value_equal(&a, &b), "strings compare by content");
    sk_value_release(&b);
    b = string_value("texT");
    cr_assert(!sk_value_equal(&a, &b));
    sk_value_release(&b);
    b = string_value("tex");
    cr_assert(!sk_value_equal(&a, &b));
    sk_value_release(&a);
    sk_value_release(&b);

    SK_OK_OR_FAIL(sk_value_set_bytes(&a, "\0\1", 2));
    SK_OK_OR_FAIL(sk_value_set_bytes(&b, "\0\1", 2));
    cr_assert(sk_value_equal(&a, &b));
    sk_value_release(&b);
    SK_OK_OR_FAIL(sk_value_set_bytes(&b, "\0\2", 2));
    cr_assert(!sk_value_equal(&a, &b));
    sk_value_release(&a);
    sk_value_release(&b);
    cr_assert_eq(sk_live_objects(), 0);
}

Test(values, equality_of_arrays, .timeout = SK_TEST_TIMEOUT) {
    sk_value s1 = string_value("x"), s2 = string_value("x");
    sk_value items1[3] = { int_value(1), s1, int_value(3) };
    sk_value items2[3] = { int_value(1), s2, int_value(3) };
    sk_value a1, a2, shorter, different;
    SK_OK_OR_FAIL(sk_value_set_array(&a1, items1, 3));
    SK_OK_OR_FAIL(sk_value_set_array(&a2, items2, 3));
    SK_OK_OR_FAIL(sk_value_set_array(&shorter, items1, 2));
    items2[2] = int_value(4);
    SK_OK_OR_FAIL(sk_value_set_array(&different, items2, 3));
    cr_assert(sk_value_equal(&a1, &a2), "arrays compare element by element");
    cr_assert(!sk_value_equal(&a1, &shorter));
    cr_assert(!sk_value_equal(&a1, &different));

    /* Nested: [[1, "x", 3]] == [[1, "x", 3]] */
    sk_value n1, n2;
    SK_OK_OR_FAIL(sk_value_set_array(&n1, &a1, 1));
    SK_OK_OR_FAIL(sk_value_set_array(&n2, &a2, 1));
    cr_assert(sk_value_equal(&n1, &n2));
    sk_value n3;
    SK_OK_OR_FAIL(sk_value_set_array(&n3, &different, 1));
    cr_assert(!sk_value_equal(&n1, &n3));

    sk_value *all[] = { &s1, &s2, &a1, &a2, &shorter, &different, &n1, &n2, &n3 };
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++) {
        sk_value_release(all[i]);
    }
    cr_assert_eq(sk_live_objects(), 0);
}

Test(values, equality_of_signals_is_identity, .timeout = SK_TEST_TIMEOUT) {
    sk_signal *s1 = NULL, *s2 = NULL;
    SK_OK_OR_FAIL(sk_signal_never(&s1));
    SK_OK_OR_FAIL(sk_signal_never(&s2));
    sk_value a, b, c;
    SK_OK_OR_FAIL(sk_value_set_signal(&a, s1));
    SK_OK_OR_FAIL(sk_value_set_signal(&b, s1));
    SK_OK_OR_FAIL(sk_value_set_signal(&c, s2));
    cr_assert(sk_value_equal(&a, &b));
    cr_assert(!sk_value_equal(&a, &c));
    values_release(3, &a, &b, &c);
    sk_signal_release(s1);
    sk_signal_release(s2);
    cr_assert_eq(sk_live_objects(), 0);
}

Test(values, equality_of_pointer_copies, .timeout = SK_TEST_TIMEOUT) {
    int x = 0, y = 0;
    sk_value a, copy, other;
    SK_OK_OR_FAIL(sk_value_set_pointer(&a, &x, NULL));
    SK_OK_OR_FAIL(sk_value_copy(&copy, &a));
    SK_OK_OR_FAIL(sk_value_set_pointer(&other, &y, NULL));
    cr_assert(sk_value_equal(&a, &copy));
    cr_assert(!sk_value_equal(&a, &other));
    values_release(3, &a, &copy, &other);
    cr_assert_eq(sk_live_objects(), 0);
}

/* The header: "pointers and signals by identity". For signals that is the
 * handle; for pointers the natural reading is the user's pointer, so two
 * values wrapping the same address are equal. The library compares its
 * internal boxes instead. */
Test(values, equality_of_pointers_wrapping_the_same_address, .timeout = SK_TEST_TIMEOUT) {
    int x = 0;
    sk_value a, b;
    SK_OK_OR_FAIL(sk_value_set_pointer(&a, &x, NULL));
    SK_OK_OR_FAIL(sk_value_set_pointer(&b, &x, NULL));
    bool equal = sk_value_equal(&a, &b);
    sk_value_release(&a);
    sk_value_release(&b);
    cr_assert(equal, "two pointer values wrapping the same address are not equal");
    cr_assert_eq(sk_live_objects(), 0);
}

/* ------------------------------------------------------------------------ */
/* Accessors on the wrong kind                                               */
/* ------------------------------------------------------------------------ */

enum { ACCESSOR_COUNT = 10 };

/* Calls accessor `which` on `value`; index 0..8 follows sk_kind BOOL..SIGNAL
 * (with the array accessors at 5 and 6), 9 is sk_value_get_array_items. */
static int call_accessor(int which, const sk_value *value) {
    bool b;
    int64_t n;
    double d;
    const char *text;
    const void *data;
    size_t count;
    const sk_value *item;
    void *pointer;
    sk_signal *signal;
    switch (which) {
    case 0: return sk_value_get_bool(value, &b);
    case 1: return sk_value_get_int64(value, &n);
    case 2: return sk_value_get_double(value, &d);
    case 3: return sk_value_get_string(value, &text, &count);
    case 4: return sk_value_get_bytes(value, &data, &count);
    case 5: return sk_value_get_array_count(value, &count);
    case 6: return sk_value_get_array_item(value, 0, &item);
    case 7: return sk_value_get_pointer(value, &pointer);
    case 8: return sk_value_get_signal(value, &signal);
    default: return sk_value_get_array_items(value, &item, &count);
    }
}

/* The kind accessor `which` reads. */
static sk_kind accessor_kind(int which) {
    static const sk_kind kinds[ACCESSOR_COUNT] = {
        SK_KIND_BOOL, SK_KIND_INT64, SK_KIND_DOUBLE, SK_KIND_STRING, SK_KIND_BYTES,
        SK_KIND_ARRAY, SK_KIND_ARRAY, SK_KIND_POINTER, SK_KIND_SIGNAL, SK_KIND_ARRAY
    };
    return kinds[which];
}

Test(values, every_accessor_on_every_wrong_kind, .timeout = SK_TEST_TIMEOUT) {
    sk_signal *signal = made_signal(sk_signal_never);
    sk_value values[9];
    sk_value_set_nil(&values[0]);
    sk_value_set_bool(&values[1], true);
    sk_value_set_int64(&values[2], 1);
    sk_value_set_double(&values[3], 1.0);
    values[4] = string_value("s");
    SK_OK_OR_FAIL(sk_value_set_bytes(&values[5], "b", 1));
    sk_value one = int_value(1);
    SK_OK_OR_FAIL(sk_value_set_array(&values[6], &one, 1));
    SK_OK_OR_FAIL(sk_value_set_pointer(&values[7], &one, NULL));
    SK_OK_OR_FAIL(sk_value_set_signal(&values[8], signal));
    long live = sk_live_objects();

    for (int v = 0; v < 9; v++) {
        cr_assert_eq(sk_value_kind(&values[v]), (sk_kind)v);
        for (int a = 0; a < ACCESSOR_COUNT; a++) {
            int status = call_accessor(a, &values[v]);
            if (accessor_kind(a) == (sk_kind)v) {
                cr_assert_eq(status, SK_OK, "accessor %d on kind %d: %d", a, v, status);
            } else {
                cr_assert_eq(status, SK_ERR_WRONG_KIND, "accessor %d on kind %d: %d (%s)", a, v, status,
                             sk_last_error_message());
            }
        }
    }
    /* Nothing was converted, retained or released. */
    cr_assert_eq(sk_live_objects(), live);
    for (int v = 0; v < 9; v++) {
        sk_value_release(&values[v]);
    }
    sk_signal_release(signal);
    cr_assert_eq(sk_live_objects(), 0);
}

/* A wrong kind's message names both kinds as signalkit.h spells them, never
 * by their numbers (which a reader would have to look up). */
Test(values, wrong_kind_messages_name_the_kinds, .timeout = SK_TEST_TIMEOUT) {
    sk_value number = int_value(7), text = string_value("s"), nil;
    sk_value_set_nil(&nil);
    const char *out_text = NULL;
    size_t length = 0;
    int64_t n = 0;
    sk_signal *signal = NULL;

    cr_assert_eq(sk_value_get_string(&number, &out_text, &length), SK_ERR_WRONG_KIND);
    cr_assert_str_eq(sk_last_error_message(),
                     "sk_value_get_string: value is an int64 (SK_KIND_INT64), expected a string (SK_KIND_STRING)");
    cr_assert_eq(sk_value_get_int64(&text, &n), SK_ERR_WRONG_KIND);
    cr_assert_str_eq(sk_last_error_message(),
                     "sk_value_get_int64: value is a string (SK_KIND_STRING), expected an int64 (SK_KIND_INT64)");
    cr_assert_eq(sk_value_get_signal(&nil, &signal), SK_ERR_WRONG_KIND);
    cr_assert_str_eq(sk_last_error_message(),
                     "sk_value_get_signal: value is nil (SK_KIND_NIL), expected a signal (SK_KIND_SIGNAL)");

    /* A number that is no kind at all is given as a number, and said so. */
    sk_value bad;
    memset(&bad, 0, sizeof bad);
    bad.kind = (sk_kind)42;
    cr_assert_eq(sk_value_get_int64(&bad, &n), SK_ERR_WRONG_KIND);
    cr_assert_str_eq(sk_last_error_message(),
                     "sk_value_get_int64: value is kind 42, which is no sk_kind, expected an int64 (SK_KIND_INT64)");
    sk_value_release(&text);
    cr_assert_eq(sk_live_objects(), 0);
}

Test(values, accessors_null_arguments, .timeout = SK_TEST_TIMEOUT) {
    for (int a = 0; a < ACCESSOR_COUNT; a++) {
        cr_assert_eq(call_accessor(a, NULL), SK_ERR_NULL_ARGUMENT, "accessor %d with a NULL value", a);
    }
    sk_value v = int_value(1);
    cr_assert_eq(sk_value_get_bool(&v, NULL), SK_ERR_NULL_ARGUMENT);
    cr_assert_eq(sk_value_get_int64(&v, NULL), SK_ERR_NULL_ARGUMENT);
    cr_assert_eq(sk_value_get_double(&v, NULL), SK_ERR_NULL_ARGUMENT);
    cr_assert_eq(sk_value_get_string(&v, NULL, NULL), SK_ERR_NULL_ARGUMENT);
    cr_assert_eq(sk_value_get_bytes(&v, NULL, NULL), SK_ERR_NULL_ARGUMENT);
    cr_assert_eq(sk_value_get_array_count(&v, NULL), SK_ERR_NULL_ARGUMENT);
    cr_assert_eq(sk_value_get_array_item(&v, 0, NULL), SK_ERR_NULL_ARGUMENT);
    cr_assert_eq(sk_value_get_array_items(&v, NULL, NULL), SK_ERR_NULL_ARGUMENT);
    cr_assert_eq(sk_value_get_pointer(&v, NULL), SK_ERR_NULL_ARGUMENT);
    cr_assert_eq(sk_value_get_signal(&v, NULL), SK_ERR_NULL_ARGUMENT);
    cr_assert_eq(sk_live_objects(), 0);
}

/* ------------------------------------------------------------------------ */
/* Malformed values                                                          */
/* ------------------------------------------------------------------------ */

/* Every function that reads a value rejects `bad` with
 * SK_ERR_INVALID_ARGUMENT and retains nothing. */
static void expect_rejected(const sk_value *bad, const char *what) {
    long live = sk_live_objects();
    sk_value out = int_value(1);
    cr_assert_eq(sk_value_copy(&out, bad), SK_ERR_INVALID_ARGUMENT, "sk_value_copy of %s", what);
    cr_assert_eq(sk_value_kind(&out), SK_KIND_NIL, "sk_value_copy of %s: dst not nil", what);

    sk_value items[2] = { int_value(1), *bad };
    out = int_value(1);
    cr_assert_eq(sk_value_set_array(&out, items, 2), SK_ERR_INVALID_ARGUMENT, "sk_value_set_array with %s", what);
    cr_assert_eq(sk_value_kind(&out), SK_KIND_NIL);

    sk_signal *signal = (sk_signal *)&out;
    cr_assert_eq(sk_signal_single(&signal, bad), SK_ERR_INVALID_ARGUMENT, "sk_signal_single of %s", what);
    cr_assert_null(signal);
    signal = (sk_signal *)&out;
    cr_assert_eq(sk_signal_fail(&signal, bad), SK_ERR_INVALID_ARGUMENT, "sk_signal_fail of %s", what);
    cr_assert_null(signal);

    sk_pipe *pipe = NULL;
    SK_OK_OR_FAIL(sk_pipe_create(&pipe, true));
    cr_assert_eq(sk_pipe_put(pipe, bad), SK_ERR_INVALID_ARGUMENT, "sk_pipe_put of %s", what);
    sk_pipe_release(pipe);

    sk_value_promise *promise = (sk_value_promise *)&out;
    cr_assert_eq(sk_value_promise_create(&promise, bad, false), SK_ERR_INVALID_ARGUMENT,
                 "sk_value_promise_create with %s", what);
    cr_assert_null(promise);
    SK_OK_OR_FAIL(sk_value_promise_create(&promise, NULL, false));
    cr_assert_eq(sk_value_promise_set(promise, bad), SK_ERR_INVALID_ARGUMENT, "sk_value_promise_set of %s", what);
    sk_value_promise_release(promise);

    /* Equality never crashes on it; it equals nothing. */
    sk_value nil;
    sk_value_set_nil(&nil);
    cr_assert(!sk_value_equal(bad, &nil));
    cr_assert(!sk_value_equal(bad, bad));
    cr_assert_eq(sk_live_objects(), live, "%s: something was retained", what);
}

Test(values, heap_kind_with_null_object_rejected, .timeout = SK_TEST_TIMEOUT) {
    const sk_kind heap[] = { SK_KIND_STRING, SK_KIND_BYTES, SK_KIND_ARRAY, SK_KIND_POINTER, SK_KIND_SIGNAL };
    for (size_t i = 0; i < sizeof heap / sizeof heap[0]; i++) {
        sk_value bad;
        memset(&bad, 0, sizeof bad);
        bad.kind = heap[i];
        bad.u.object = NULL;
        expect_rejected(&bad, "a heap kind with a NULL object");
        /* Accessors of its own kind reject it too. */
        int status = call_accessor(heap[i] == SK_KIND_STRING ? 3
                                   : heap[i] == SK_KIND_BYTES ? 4
                                   : heap[i] == SK_KIND_ARRAY ? 5
                                   : heap[i] == SK_KIND_POINTER ? 7 : 8, &bad);
        cr_assert_eq(status, SK_ERR_INVALID_ARGUMENT, "accessor of kind %d: %d", heap[i], status);
        /* Releasing it is harmless and leaves nil. */
        sk_value_release(&bad);
        cr_assert_eq(sk_value_kind(&bad), SK_KIND_NIL);
    }
    cr_assert_eq(sk_live_objects(), 0);
}

Test(values, unknown_kind_rejected, .timeout = SK_TEST_TIMEOUT) {
    const int kinds[] = { 9, 42, -1, 1000 };
    for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++) {
        sk_value bad;
        memset(&bad, 0, sizeof bad);
        bad.kind = (sk_kind)kinds[i];
        bad.u.int64 = 12345;
        expect_rejected(&bad, "a value of an unknown kind");
        for (int a = 0; a < ACCESSOR_COUNT; a++) {
            cr_assert_neq(call_accessor(a, &bad), SK_OK, "accessor %d accepted kind %d", a, kinds[i]);
        }
        sk_value_release(&bad);
        cr_assert_eq(sk_value_kind(&bad), SK_KIND_NIL);
    }
    cr_assert_eq(sk_live_objects(), 0);
}

Test(values, object_of_another_kind_rejected, .timeout = SK_TEST_TIMEOUT) {
    sk_value bytes;
    SK_OK_OR_FAIL(sk_value_set_bytes(&bytes, "ab", 2));
    sk_value bad = bytes;
    bad.kind = SK_KIND_STRING; /* a bytes object labelled as a string */
    expect_rejected(&bad, "a string value holding a bytes object");
    const char *text = NULL;
    cr_assert_eq(sk_value_get_string(&bad, &text, NULL), SK_ERR_INVALID_ARGUMENT);
    sk_value_release(&bytes);
    cr_assert_eq(sk_live_objects(), 0);
}

/* Arrays nested deeper than SK_VALUE_MAX_DEPTH are refused; at the limit,
 * every operation works on a small stack. Before the limit, an array nested
 * 30 000 deep was accepted and its release and equality overflowed the stack. */
typedef struct deep_job {
    int refused_at;
    bool refused_nil;
    bool equal;
    bool unequal;
} deep_job;

static int build_nested(sk_value *out, int depth, int64_t leaf) {
    sk_value current = int_value(leaf);
    for (int level = 1; level <= depth; level++) {
        sk_value items[2] = { int_value(level), current };
        sk_value next;
        int status = sk_value_set_array(&next, items, 2);
        sk_value_release(&current);
        if (status != SK_OK) {
            *out = next;
            return level;
        }
        current = next;
    }
    *out = current;
    return 0;
}

static void deep_values(void *arg) {
    deep_job *job = arg;
    sk_value deep;
    job->refused_at = build_nested(&deep, 30000, 7);
    job->refused_nil = sk_value_kind(&deep) == SK_KIND_NIL;
    sk_value a, b, c, copy;
    cr_assert_eq(build_nested(&a, SK_VALUE_MAX_DEPTH, 7), 0);
    cr_assert_eq(build_nested(&b, SK_VALUE_MAX_DEPTH, 7), 0);
    cr_assert_eq(build_nested(&c, SK_VALUE_MAX_DEPTH, 8), 0);
    SK_OK_OR_ABORT(sk_value_copy(&copy, &a));
    job->equal = sk_value_equal(&a, &b) && sk_value_equal(&copy, &b);
    job->unequal = !sk_value_equal(&a, &c);
    values_release(4, &a, &b, &c, &copy);
}

/* Releasing an array nested SK_VALUE_MAX_DEPTH deep (the last reference) on
 * a 32 KB thread stack: the release recursed once per level and overflowed
 * it (a crash); it is iterative now. */
static sk_value deep_to_release;

static void *release_deep(void *arg) {
    (void)arg;
    sk_value_release(&deep_to_release);
    return NULL;
}

Test(values, the_deepest_array_is_released_on_a_32k_stack, .timeout = SK_TEST_TIMEOUT) {
    for (int width = 1; width <= 2; width++) {
        if (width == 1) {
            sk_value current = int_value(1);
            for (int level = 1; level <= SK_VALUE_MAX_DEPTH; level++) {
                sk_value next;
                SK_OK_OR_FAIL(sk_value_set_array(&next, &current, 1));
                sk_value_release(&current);
                current = next;
            }
            deep_to_release = current;
        } else {
            cr_assert_eq(build_nested(&deep_to_release, SK_VALUE_MAX_DEPTH, 7), 0);
        }
        run_on_stack(32 * 1024, release_deep, NULL);
        expect_no_live_objects(0);
    }
}

/* Values nest through signals too, without bound: a signal holds values (a
 * single's value, a failure's error, a value promise's value, a promise's
 * latest value), a value holds a signal, and no operator is involved, so
 * neither SK_VALUE_MAX_DEPTH (arrays only) nor SK_SIGNAL_MAX_DEPTH limits
 * it. Releasing such a nesting recursed once per level: 100,000 levels of
 * sk_signal_single() overflowed an 8 MB main thread stack (a crash, found by
 * a C program, /tmp/exp-c4/deep1.c). The release is iterative past a few
 * levels now: the whole nesting (20,000 levels here; on that stack a few
 * hundred crashed) is released on a thread with SK_MIN_THREAD_STACK of
 * stack. */
#define SIGNAL_NESTING_LEVELS 20000 /* 20 times what overflowed before: cheap under the sanitizers */
#define SIGNAL_NESTING_LEVELS_UNDER_VALGRIND 2000

static void nest_in_a_signal(sk_value *value, int level) {
    sk_signal *signal = NULL;
    switch (level % 5) {
    case 0:
        SK_OK_OR_ABORT(sk_signal_single(&signal, value));
        break;
    case 1:
        SK_OK_OR_ABORT(sk_signal_fail(&signal, value));
        break;
    case 2: {
        sk_value_promise *promise = NULL;
        SK_OK_OR_ABORT(sk_value_promise_create(&promise, value, false));
        SK_OK_OR_ABORT(sk_value_promise_get(&signal, promise));
        sk_value_promise_release(promise);
        break;
    }
    case 3: {
        sk_promise *promise = NULL;
        sk_signal *source = NULL;
        SK_OK_OR_ABORT(sk_promise_create(&promise));
        SK_OK_OR_ABORT(sk_signal_single(&source, value));
        SK_OK_OR_ABORT(sk_promise_set(promise, source));
        SK_OK_OR_ABORT(sk_promise_get(&signal, promise));
        sk_signal_release(source);
        sk_promise_release(promise);
        break;
    }
    default: {
        sk_value array;
        SK_OK_OR_ABORT(sk_value_set_array(&array, value, 1));
        sk_value_release(value);
        *value = array;
        return;
    }
    }
    sk_value_release(value);
    SK_OK_OR_ABORT(sk_value_set_signal(value, signal));
    sk_signal_release(signal);
}

static sk_value nested_through_signals;

static void *release_nested_through_signals(void *arg) {
    (void)arg;
    sk_value_release(&nested_through_signals);
    return NULL;
}

Test(values, values_nested_through_signals_are_released_on_a_small_stack, .timeout = SK_TEST_TIMEOUT) {
    const int levels = running_under_valgrind() ? SIGNAL_NESTING_LEVELS_UNDER_VALGRIND : SIGNAL_NESTING_LEVELS;
    nested_through_signals = int_value(1);
    for (int level = 0; level < levels; level++) {
        nest_in_a_signal(&nested_through_signals, level);
    }
    run_on_stack(SK_TEST_SMALL_STACK, release_nested_through_signals, NULL);
    expect_no_live_objects(0);
}

/* The same through pipelines as deep as the library builds: a value holding
 * a chain of SK_SIGNAL_MAX_DEPTH operators over a single of a value holding
 * such a chain, and so on. Releasing one chain nests about as many calls as
 * it is deep; the nested releases must not add up: released on a 512 KB
 * thread, the stack the header names for pipelines at the limit (the first
 * version of the fix above, which released 16 nested signals in place
 * whatever their depth, overflowed it at 8 levels). */
#define DEEP_PIPELINE_LEVELS 12

static void pass_value(void *ctx, const sk_value *value) {
    (void)ctx;
    (void)value;
}

static void *release_nested_pipelines(void *arg) {
    (void)arg;
    sk_value_release(&nested_through_signals);
    return NULL;
}

Test(values, values_nested_through_deep_pipelines_are_released_on_a_512k_stack, .timeout = SK_TEST_TIMEOUT) {
    nested_through_signals = int_value(1);
    for (int level = 0; level < DEEP_PIPELINE_LEVELS; level++) {
        sk_signal *signal = NULL;
        SK_OK_OR_FAIL(sk_signal_single(&signal, &nested_through_signals));
        for (int stage = 1; stage < SK_SIGNAL_MAX_DEPTH; stage++) {
            sk_signal *next = NULL;
            SK_OK_OR_FAIL(sk_signal_before_next(&next, signal, pass_value, NULL, NULL));
            sk_signal_release(signal);
            signal = next;
        }
        sk_value_release(&nested_through_signals);
        SK_OK_OR_FAIL(sk_value_set_signal(&nested_through_signals, signal));
        sk_signal_release(signal);
    }
    run_on_stack(512 * 1024, release_nested_pipelines, NULL);
    expect_no_live_objects(0);
}

/* A list owned through pointer values: each node's release function
 * releases the value holding the next node. The releases recursed once per
 * node through the library and the release function: 1,000 nodes overflowed
 * a thread of SK_MIN_THREAD_STACK, 100,000 an 8 MB main thread (a crash,
 * found by a C program, /tmp/exp-c4/deep3.c). Past a few levels the release
 * functions now run one after another from the outermost release, on the
 * same thread, before it returns. */
typedef struct list_node {
    sk_value next;
    long *released;
} list_node;

static void list_node_release(void *pointer) {
    list_node *node = pointer;
    sk_value_release(&node->next);
    (*node->released)++;
    free(node);
}

static sk_value list_head;

static void *release_list_head(void *arg) {
    (void)arg;
    sk_value_release(&list_head);
    return NULL;
}

Test(values, a_list_owned_through_pointer_values_is_released_on_a_small_stack, .timeout = SK_TEST_TIMEOUT) {
    const long nodes = running_under_valgrind() ? SIGNAL_NESTING_LEVELS_UNDER_VALGRIND : SIGNAL_NESTING_LEVELS;
    long released = 0;
    list_head = int_value(0);
    for (long index = 0; index < nodes; index++) {
        list_node *node = malloc(sizeof *node);
        cr_assert_not_null(node);
        node->next = list_head;
        node->released = &released;
        SK_OK_OR_FAIL(sk_value_set_pointer(&list_head, node, list_node_release));
    }
    run_on_stack(SK_TEST_SMALL_STACK, release_list_head, NULL);
    cr_assert_eq(released, nodes, "%ld of %ld nodes released", released, nodes);
    expect_no_live_objects(0);
}

/* The same list owned through the contexts of maps and filters: each node
 * is a map or filter over a source that never emits, whose context's
 * release function releases the value holding the previous node's signal.
 * A map's or filter's run of stages (which holds the contexts) was let go
 * of after SKSignal's deinit had run, outside the thread's release budget
 * and list: the releases recursed once per node, and 1,000 nodes overflowed
 * a thread of SK_MIN_THREAD_STACK (a crash, found by a stress program,
 * /tmp/exp-soak/chains.c mode 4). The run is released with the rest of what
 * the signal held now. */
typedef struct stage_node {
    sk_value previous;
    long *released;
} stage_node;

static void stage_node_release(void *ctx) {
    stage_node *node = ctx;
    sk_value_release(&node->previous);
    (*node->released)++;
    free(node);
}

static void copy_through(void *ctx, const sk_value *value, sk_value *out) {
    (void)ctx;
    SK_OK_OR_ABORT(sk_value_copy(out, value));
}

static bool keep_everything(void *ctx, const sk_value *value) {
    (void)ctx;
    (void)value;
    return true;
}

Test(values, a_list_owned_through_stage_contexts_is_released_on_a_small_stack, .timeout = SK_TEST_TIMEOUT) {
    const long nodes = running_under_valgrind() ? SIGNAL_NESTING_LEVELS_UNDER_VALGRIND : SIGNAL_NESTING_LEVELS;
    long released = 0;
    sk_signal *never = NULL;
    SK_OK_OR_FAIL(sk_signal_never(&never));
    list_head = int_value(0);
    for (long index = 0; index < nodes; index++) {
        stage_node *node = malloc(sizeof *node);
        cr_assert_not_null(node);
        node->previous = list_head;
        node->released = &released;
        sk_signal *stage = NULL;
        if (index % 2 == 0) {
            SK_OK_OR_FAIL(sk_signal_map(&stage, never, copy_through, node, stage_node_release));
        } else {
            SK_OK_OR_FAIL(sk_signal_filter(&stage, never, keep_everything, node, stage_node_release));
        }
        SK_OK_OR_FAIL(sk_value_set_signal(&list_head, stage));
        sk_signal_release(stage);
    }
    sk_signal_release(never);
    run_on_stack(SK_TEST_SMALL_STACK, release_list_head, NULL);
    cr_assert_eq(released, nodes, "%ld of %ld nodes released", released, nodes);
    expect_no_live_objects(0);
}

Test(values, arrays_nest_at_most_the_documented_depth, .timeout = SK_TEST_TIMEOUT) {
    deep_job job = { 0, false, false, false };
    run_on_small_stack(deep_values, &job);
    cr_assert_eq(job.refused_at, SK_VALUE_MAX_DEPTH + 1, "refused at level %d", job.refused_at);
    cr_assert(job.refused_nil, "a refused array leaves nil");
    cr_assert(job.equal);
    cr_assert(job.unequal);
    sk_value deep;
    cr_assert_eq(build_nested(&deep, SK_VALUE_MAX_DEPTH + 1, 1), SK_VALUE_MAX_DEPTH + 1);
    char expected[128];
    snprintf(expected, sizeof expected, "sk_value_set_array: arrays nested %d deep (the limit is SK_VALUE_MAX_DEPTH, %d)",
             SK_VALUE_MAX_DEPTH + 1, SK_VALUE_MAX_DEPTH);
    cr_assert_str_eq(sk_last_error_message(), expected);
    expect_no_live_objects(0);
}

/* Arrays an operator makes are one level deeper than its values, unchecked
 * (signalkit.h, SK_VALUE_MAX_DEPTH): fed back through buffer_count(1) they
 * nest past the limit, and equality stays safe on a small stack (it
 * recursed: 500 levels overflowed 64 KB). */
static sk_value last_array;

static void keep_last(void *ctx, const sk_value *value) {
    (void)ctx;
    sk_value_release(&last_array);
    SK_OK_OR_ABORT(sk_value_copy(&last_array, value));
}

/* `seed` wrapped in `levels` arrays by a chain of buffer_count(1). */
static sk_value deepened(int64_t seed, int levels) {
    sk_pipe *pipe = NULL;
    SK_OK_OR_FAIL(sk_pipe_create(&pipe, false));
    sk_signal *signal = NULL;
    SK_OK_OR_FAIL(sk_pipe_signal(&signal, pipe));
    for (int i = 0; i < levels; i++) {
        sk_signal *next = NULL;
        SK_OK_OR_FAIL(sk_signal_buffer_count(&next, signal, 1));
        sk_signal_release(signal);
        signal = next;
    }
    sk_observer observer = { keep_last, NULL, NULL, NULL, NULL };
    sk_disposable *subscription = NULL;
    SK_OK_OR_FAIL(sk_signal_start(&subscription, signal, &observer));
    sk_value value = int_value(seed);
    SK_OK_OR_FAIL(sk_pipe_put(pipe, &value));
    sk_value made = last_array;
    sk_value_set_nil(&last_array);
    sk_disposable_dispose(subscription);
    sk_disposable_release(subscription);
    sk_signal_release(signal);
    sk_pipe_release(pipe);
    return made;
}

typedef struct deep_pair {
    sk_value a, b, c;
    bool equal, unequal;
} deep_pair;

static void *compare_deep(void *arg) {
    deep_pair *pair = arg;
    pair->equal = sk_value_equal(&pair->a, &pair->b);
    pair->unequal = !sk_value_equal(&pair->a, &pair->c);
    return NULL;
}

Test(values, arrays_operators_nest_past_the_limit_compare_on_a_small_stack, .timeout = SK_TEST_TIMEOUT) {
    deep_pair pair;
    pair.a = deepened(1, 500);
    pair.b = deepened(1, 500);
    pair.c = deepened(2, 500);
    cr_assert_eq(sk_value_kind(&pair.a), SK_KIND_ARRAY);
    run_on_stack(SK_TEST_SMALL_STACK, compare_deep, &pair);
    cr_assert(pair.equal, "equal values nested 500 deep");
    cr_assert(pair.unequal, "values that differ at the bottom");
    sk_value_release(&pair.a);
    sk_value_release(&pair.b);
    sk_value_release(&pair.c);
    expect_no_live_objects(0);
}

/* An accessor that fails sets a pointer `*out` to NULL and the length or
 * count beside it to 0 (the conventions: "On error, the out parameter is set
 * to NULL"): they were left as they were. */
Test(values, accessors_clear_a_pointer_out_on_error) {
    sk_value n = int_value(3);
    const char *text = (const char *)0xdead;
    const void *bytes = (const void *)0xdead;
    const sk_value *item = (const sk_value *)0xdead, *items = (const sk_value *)0xdead;
    void *pointer = (void *)0xdead;
    sk_signal *signal = (sk_signal *)0xdead;
    size_t length = 77, count = 77;
    cr_assert_eq(sk_value_get_string(&n, &text, &length), SK_ERR_WRONG_KIND);
    cr_assert(text == NULL && length == 0);
    length = 77;
    cr_assert_eq(sk_value_get_bytes(&n, &bytes, &length), SK_ERR_WRONG_KIND);
    cr_assert(bytes == NULL && length == 0);
    cr_assert_eq(sk_value_get_array_item(&n, 0, &item), SK_ERR_WRONG_KIND);
    cr_assert_null(item);
    cr_assert_eq(sk_value_get_array_items(&n, &items, &count), SK_ERR_WRONG_KIND);
    cr_assert(items == NULL && count == 0);
    cr_assert_eq(sk_value_get_pointer(&n, &pointer), SK_ERR_WRONG_KIND);
    cr_assert_null(pointer);
    cr_assert_eq(sk_value_get_signal(&n, &signal), SK_ERR_WRONG_KIND);
    cr_assert_null(signal);
    text = (const char *)0xdead;
    cr_assert_eq(sk_value_get_string(NULL, &text, NULL), SK_ERR_NULL_ARGUMENT);
    cr_assert_null(text);
}

/* With handle checking on, a value whose object was released is
 * SK_ERR_RELEASED for every accessor, whatever the kind asked (nine of them
 * said SK_ERR_WRONG_KIND, naming the released value's kind). */
Test(values, accessors_report_a_released_value_with_handle_checking) {
    SK_OK_OR_FAIL(sk_set_handle_checking(true));
    sk_value text, kept;
    SK_OK_OR_FAIL(sk_value_set_string(&text, "gone"));
    kept = text; /* a binding's copy of the struct */
    sk_value_release(&text);
    int64_t n = 0;
    bool b = false;
    double d = 0;
    size_t count = 0;
    const char *s = NULL;
    const sk_value *item = NULL;
    cr_assert_eq((sk_value_get_int64)(&kept, &n), SK_ERR_RELEASED);
    cr_assert_str_eq(sk_last_error_message(), "sk_value_get_int64: the value was already released");
    cr_assert_eq((sk_value_get_bool)(&kept, &b), SK_ERR_RELEASED);
    cr_assert_eq((sk_value_get_double)(&kept, &d), SK_ERR_RELEASED);
    cr_assert_eq(sk_value_get_array_count(&kept, &count), SK_ERR_RELEASED);
    cr_assert_eq(sk_value_get_array_item(&kept, 0, &item), SK_ERR_RELEASED);
    cr_assert_eq(sk_value_get_string(&kept, &s, NULL), SK_ERR_RELEASED);
    cr_assert_null(s);
    expect_no_live_objects(0);
}
