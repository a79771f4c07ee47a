/* direct.c - the direct calls of the common callback shapes.
 *
 * A signature such as "i64(i64)" or "bool(ctx,f64)" describes a C function
 * type exactly, so a callback of that signature can be called through a
 * function pointer of that type: the same call libffi would make, without
 * libffi's generic argument marshalling (about 300 instructions per call on
 * x86-64, against a few for the direct call). The argument has been
 * converted and checked by the caller (sk_ffi__to_native), and the result is
 * stored where and how ffi_call stores it, so everything after the call is
 * the same for both paths. */
#include "internal.h"

static int sk_ffi__direct_argument(sk_ffi_type type) {
    switch (type) {
    case SK_FFI_INT64: return SK_FFI__ARG_I64;
    case SK_FFI_DOUBLE: return SK_FFI__ARG_F64;
    default: return 0;
    }
}

static int sk_ffi__direct_result(sk_ffi_type type) {
    switch (type) {
    case SK_FFI_VOID: return SK_FFI__RESULT_VOID;
    case SK_FFI_BOOL: return SK_FFI__RESULT_BOOL;
    case SK_FFI_INT64: return SK_FFI__RESULT_I64;
    case SK_FFI_DOUBLE: return SK_FFI__RESULT_F64;
    default: return 0;
    }
}

int sk_ffi__direct_shape(sk_ffi_type result, const sk_ffi_type *args, size_t count) {
    int ctx = count > 0 && args[0] == SK_FFI_CTX;
    if (count != (size_t)ctx + 1) {
        return 0;
    }
    int argument = sk_ffi__direct_argument(args[ctx]);
    int kind = sk_ffi__direct_result(result);
    if (argument == 0 || kind == 0) {
        return 0;
    }
    return SK_FFI__DIRECT(ctx, argument, kind);
}

/* Stores a result as ffi_call does: integral results narrower than a
 * register widened to ffi_arg, the others in their own type. */
#define SK_FFI__STORE_BOOL(r) (result->word = (ffi_arg)((r) ? 1 : 0))
#define SK_FFI__STORE_I64(r) (result->i64 = (r))
#define SK_FFI__STORE_F64(r) (result->real = (r))

/* The two cases of a shape, with and without the leading ctx: the function
 * type, the call, the store of the result. */
#define SK_FFI__CASES_VALUE(A, ATYPE, AFIELD, R, RTYPE, STORE)                              \
    case SK_FFI__DIRECT(1, A, R): {                                                         \
        RTYPE (*typed)(void *, ATYPE) = (RTYPE (*)(void *, ATYPE))fn;                       \
        STORE(typed(ctx, arg->AFIELD));                                                     \
        return;                                                                             \
    }                                                                                       \
    case SK_FFI__DIRECT(0, A, R): {                                                         \
        RTYPE (*typed)(ATYPE) = (RTYPE (*)(ATYPE))fn;                                       \
        STORE(typed(arg->AFIELD));                                                          \
        return;                                                                             \
    }

#define SK_FFI__CASES_VOID(A, ATYPE, AFIELD)                                                \
    case SK_FFI__DIRECT(1, A, SK_FFI__RESULT_VOID):                                         \
        ((void (*)(void *, ATYPE))fn)(ctx, arg->AFIELD);                                    \
        return;                                                                             \
    case SK_FFI__DIRECT(0, A, SK_FFI__RESULT_VOID):                                         \
        ((void (*)(ATYPE))fn)(arg->AFIELD);                                                 \
        return;

void sk_ffi__call_direct(int shape, void (*fn)(void), void *ctx, const sk_ffi_slot *arg, sk_ffi_slot *result) {
    switch (shape) {
    SK_FFI__CASES_VOID(SK_FFI__ARG_I64, int64_t, i64)
    SK_FFI__CASES_VOID(SK_FFI__ARG_F64, double, real)
    SK_FFI__CASES_VALUE(SK_FFI__ARG_I64, int64_t, i64, SK_FFI__RESULT_BOOL, bool, SK_FFI__STORE_BOOL)
    SK_FFI__CASES_VALUE(SK_FFI__ARG_F64, double, real, SK_FFI__RESULT_BOOL, bool, SK_FFI__STORE_BOOL)
    SK_FFI__CASES_VALUE(SK_FFI__ARG_I64, int64_t, i64, SK_FFI__RESULT_I64, int64_t, SK_FFI__STORE_I64)
    SK_FFI__CASES_VALUE(SK_FFI__ARG_F64, double, real, SK_FFI__RESULT_I64, int64_t, SK_FFI__STORE_I64)
    SK_FFI__CASES_VALUE(SK_FFI__ARG_I64, int64_t, i64, SK_FFI__RESULT_F64, double, SK_FFI__STORE_F64)
    SK_FFI__CASES_VALUE(SK_FFI__ARG_F64, double, real, SK_FFI__RESULT_F64, double, SK_FFI__STORE_F64)
    default:
        return; /* not a direct shape: the caller checked */
    }
}
