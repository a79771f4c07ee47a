/*
 * fuzz_ffi.c - libFuzzer harness for libsignalkit-ffi: the signature parser
 * and the conversion of values to native callback types.
 *
 * The first byte picks the mode:
 * - even: the rest is a signature string. A parse that succeeds must give a
 *   well-formed signature (known types, void only as the result, ctx only
 *   first, at most SK_FFI_MAX_ARGS arguments) equal to the one built from its
 *   kinds; a parse that fails must say SK_ERR_INVALID_ARGUMENT with a message
 *   naming the offset.
 * - odd: the next byte picks a native type, the rest builds a value of any
 *   kind; a typed subscription to sk_signal_single(value) must either call
 *   next with exactly the value (by the header's conversion rules) and then
 *   completed, or call the error callback with a description and nothing
 *   else, whichever the rules say.
 * After every input, nothing of either library is alive.
 */
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "signalkit_ffi.h"

#define FAIL(...)                                                              \
    do {                                                                       \
        fprintf(stderr, "fuzz_ffi: " __VA_ARGS__);                             \
        fprintf(stderr, "\n");                                                 \
        abort();                                                               \
    } while (0)

static void check_nothing_alive(void) {
    if (sk_live_objects() != 0 || sk_ffi_live_objects() != 0) {
        FAIL("objects alive after the input: core %ld, ffi %ld", sk_live_objects(), sk_ffi_live_objects());
    }
}

/* ------------------------------------------------------------------------ */
/* Signatures                                                                */
/* ------------------------------------------------------------------------ */

static void fuzz_signature(const uint8_t *data, size_t size) {
    char *text = malloc(size + 1);
    if (text == NULL) {
        return;
    }
    memcpy(text, data, size);
    text[size] = '\0';
    sk_ffi_signature *parsed = NULL;
    int status = sk_ffi_signature_parse(&parsed, text);
    if (status != SK_OK) {
        if (status != SK_ERR_INVALID_ARGUMENT) {
            FAIL("parse(\"%s\") returned %d", text, status);
        }
        if (parsed != NULL) {
            FAIL("a failed parse wrote a signature");
        }
        if (strstr(sk_ffi_last_error_message(), "offset") == NULL) {
            FAIL("the message for \"%s\" names no offset: %s", text, sk_ffi_last_error_message());
        }
        free(text);
        return;
    }
    size_t count = sk_ffi_signature_arg_count(parsed);
    if (count > SK_FFI_MAX_ARGS) {
        FAIL("\"%s\": %zu arguments", text, count);
    }
    sk_ffi_type result = sk_ffi_signature_result(parsed);
    if ((int)result < SK_FFI_VOID || result > SK_FFI_FLOAT || result == SK_FFI_CTX) {
        FAIL("\"%s\": result type %d", text, (int)result);
    }
    sk_ffi_type args[SK_FFI_MAX_ARGS];
    for (size_t i = 0; i < count; i++) {
        args[i] = sk_ffi_signature_arg(parsed, i);
        if (args[i] == SK_FFI_VOID || (int)args[i] < 0 || args[i] > SK_FFI_FLOAT || (args[i] == SK_FFI_CTX && i != 0)) {
            FAIL("\"%s\": argument %zu has type %d", text, i, (int)args[i]);
        }
    }
    sk_ffi_signature *built = NULL;
    if (sk_ffi_signature_create(&built, result, args, count) != SK_OK) {
        FAIL("\"%s\" parsed, but its kinds do not build: %s", text, sk_ffi_last_error_message());
    }
    if (sk_ffi_signature_result(built) != result || sk_ffi_signature_arg_count(built) != count) {
        FAIL("\"%s\": built signature differs", text);
    }
    sk_ffi_signature_release(built);
    sk_ffi_signature_release(parsed);
    free(text);
}

/* ------------------------------------------------------------------------ */
/* Conversions                                                               */
/* ------------------------------------------------------------------------ */

typedef struct received {
    int nexts;
    int errors;
    int completions;
    int releases;
    bool b;
    int64_t i;
    uint64_t u;
    double d;
    char *s;
    void *p;
    const sk_value *v_seen; /* non-NULL when the value callback ran */
    sk_value v;             /* a copy of what the value callback got */
} received;

static void on_bool(void *ctx, bool x) { received *r = ctx; r->nexts++; r->b = x; }
static void on_i32(void *ctx, int32_t x) { received *r = ctx; r->nexts++; r->i = x; }
static void on_i64(void *ctx, int64_t x) { received *r = ctx; r->nexts++; r->i = x; }
static void on_u64(void *ctx, uint64_t x) { received *r = ctx; r->nexts++; r->u = x; }
static void on_f64(void *ctx, double x) { received *r = ctx; r->nexts++; r->d = x; }
static void on_str(void *ctx, const char *x) {
    received *r = ctx;
    r->nexts++;
    free(r->s);
    r->s = x ? strdup(x) : NULL;
}
static void on_ptr(void *ctx, void *x) { received *r = ctx; r->nexts++; r->p = x; }
static void on_value(void *ctx, const sk_value *x) {
    received *r = ctx;
    r->nexts++;
    r->v_seen = x;
    sk_value_release(&r->v);
    sk_value_copy(&r->v, x);
}
static void on_error(void *ctx, const char *message) {
    received *r = ctx;
    r->errors++;
    if (message == NULL || message[0] == '\0') {
        FAIL("an error callback without a description");
    }
}
static void on_completed(void *ctx) { received *r = ctx; r->completions++; }
static void on_release(void *ctx) { received *r = ctx; r->releases++; }

static void counted_release(void *p) {
    (*(int *)p)++;
}

typedef struct target {
    const char *next;
    sk_ffi_fn fn;
} target;

static const target targets[] = {
    { "void(ctx,bool)", (sk_ffi_fn)on_bool }, { "void(ctx,i32)", (sk_ffi_fn)on_i32 },
    { "void(ctx,i64)", (sk_ffi_fn)on_i64 },   { "void(ctx,u64)", (sk_ffi_fn)on_u64 },
    { "void(ctx,f64)", (sk_ffi_fn)on_f64 },   { "void(ctx,str)", (sk_ffi_fn)on_str },
    { "void(ctx,ptr)", (sk_ffi_fn)on_ptr },   { "void(ctx,value)", (sk_ffi_fn)on_value },
};
#define TARGETS (sizeof targets / sizeof targets[0])

static int64_t read_i64(const uint8_t *data, size_t size) {
    uint64_t u = 0;
    for (size_t i = 0; i < 8 && i < size; i++) {
        u |= (uint64_t)data[i] << (8 * i);
    }
    int64_t n;
    memcpy(&n, &u, sizeof n);
    return n;
}

static void fuzz_conversion(const uint8_t *data, size_t size) {
    if (size < 2) {
        return;
    }
    size_t which = data[0] % TARGETS;
    uint8_t kind = data[1] % 6;
    data += 2;
    size -= 2;
    int pointer_releases = 0;
    sk_value value;
    sk_value_set_nil(&value);
    int64_t n = read_i64(data, size);
    double d;
    memcpy(&d, &n, sizeof d);
    switch (kind) {
    case 0: sk_value_set_nil(&value); break;
    case 1: sk_value_set_bool(&value, size > 0 && (data[0] & 1)); break;
    case 2: sk_value_set_int64(&value, n); break;
    case 3: sk_value_set_double(&value, d); break;
    case 4:
        if (sk_value_set_string_n(&value, (const char *)data, size) != SK_OK) {
            return; /* not UTF-8: the constructor refused it, nothing made */
        }
        break;
    default:
        /* The release receives the user pointer: it counts through it. */
        sk_value_set_pointer(&value, &pointer_releases, counted_release);
        break;
    }

    sk_ffi_signature *next_sig = NULL, *error_sig = NULL, *completed_sig = NULL;
    if (sk_ffi_signature_parse(&next_sig, targets[which].next) != SK_OK ||
        sk_ffi_signature_parse(&error_sig, "void(ctx,str)") != SK_OK ||
        sk_ffi_signature_parse(&completed_sig, "void(ctx)") != SK_OK) {
        FAIL("a fixed signature does not parse: %s", sk_ffi_last_error_message());
    }
    sk_signal *signal = NULL;
    if (sk_signal_single(&signal, &value) != SK_OK) {
        FAIL("sk_signal_single: %s", sk_last_error_message());
    }
    received r;
    memset(&r, 0, sizeof r);
    sk_ffi_observer observer = { next_sig, targets[which].fn, error_sig, (sk_ffi_fn)on_error,
                                 completed_sig, (sk_ffi_fn)on_completed, &r, on_release };
    if (sk_ffi_signal_start(NULL, signal, &observer) != SK_OK) {
        FAIL("sk_ffi_signal_start: %s", sk_ffi_last_error_message());
    }

    /* What the header's rules say. */
    bool converts;
    switch (which) {
    case 0: converts = kind == 1; break;
    case 1: converts = kind == 2 && n >= INT32_MIN && n <= INT32_MAX; break;
    case 2: converts = kind == 2; break;
    case 3: converts = kind == 2 && n >= 0; break;
    case 4: converts = kind == 3 || (kind == 2 && n >= -(INT64_C(1) << 53) && n <= (INT64_C(1) << 53)); break;
    case 5: converts = kind == 4 && memchr(data, 0, size) == NULL; break;
    case 6: converts = kind == 0 || kind == 5; break;
    default: converts = true; break;
    }
    if (r.releases != 1) {
        FAIL("target %zu kind %u: the observer's release ran %d times", which, kind, r.releases);
    }
    if (converts) {
        if (r.nexts != 1 || r.completions != 1 || r.errors != 0) {
            FAIL("target %zu kind %u: converts, but next %d completed %d error %d", which, kind, r.nexts,
                 r.completions, r.errors);
        }
        bool exact;
        switch (which) {
        case 0: exact = r.b == (size > 0 && (data[0] & 1)); break;
        case 1:
        case 2: exact = r.i == n; break;
        case 3: exact = r.u == (uint64_t)n; break;
        case 4:
            exact = kind == 3 ? (memcmp(&r.d, &d, sizeof d) == 0 || (isnan(r.d) && isnan(d))) : r.d == (double)n;
            break;
        case 5: exact = r.s != NULL && strlen(r.s) == size && memcmp(r.s, data, size) == 0; break;
        case 6: exact = kind == 0 ? r.p == NULL : r.p == &pointer_releases; break;
        default:
            /* NaN is not equal to itself: doubles compare by their bits. */
            if (kind == 3) {
                double got = 0;
                exact = r.v_seen != NULL && sk_value_get_double(&r.v, &got) == SK_OK && memcmp(&got, &d, sizeof d) == 0;
            } else {
                exact = r.v_seen != NULL && sk_value_equal(&r.v, &value);
            }
            break;
        }
        if (!exact) {
            FAIL("target %zu kind %u: the value arrived changed", which, kind);
        }
    } else if (r.nexts != 0 || r.errors != 1 || r.completions != 0) {
        FAIL("target %zu kind %u: does not convert, but next %d completed %d error %d", which, kind, r.nexts,
             r.completions, r.errors);
    }
    free(r.s);
    sk_value_release(&r.v);
    sk_signal_release(signal);
    sk_value_release(&value);
    sk_ffi_signature_release(next_sig);
    sk_ffi_signature_release(error_sig);
    sk_ffi_signature_release(completed_sig);
    if (kind == 5 && pointer_releases != 1) {
        FAIL("the user pointer's release ran %d times", pointer_releases);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size == 0) {
        return 0;
    }
    if (data[0] % 2 == 0) {
        fuzz_signature(data + 1, size - 1);
    } else {
        fuzz_conversion(data + 1, size - 1);
    }
    check_nothing_alive();
    return 0;
}
