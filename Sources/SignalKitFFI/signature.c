/* signature.c - prepared signatures: construction, parsing, reading. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

/* Indexed by sk_ffi_type. */
static const char *const sk_ffi__names[] = {"void", "bool", "i32", "i64", "u64", "f64", "str", "ptr", "value", "ctx",
                                            "i8", "i16", "u8", "u16", "u32", "f32"};
#define SK_FFI_TYPE_COUNT (sizeof sk_ffi__names / sizeof sk_ffi__names[0])

const char *sk_ffi__type_name(sk_ffi_type type) {
    if ((unsigned)type >= SK_FFI_TYPE_COUNT) {
        return "?";
    }
    return sk_ffi__names[type];
}

static ffi_type *sk_ffi__ffi_type(sk_ffi_type type) {
    switch (type) {
    case SK_FFI_VOID: return &ffi_type_void;
    case SK_FFI_BOOL: return &ffi_type_uint8; /* C99 bool is one byte on every ABI libffi supports here */
    case SK_FFI_INT32: return &ffi_type_sint32;
    case SK_FFI_INT64: return &ffi_type_sint64;
    case SK_FFI_UINT64: return &ffi_type_uint64;
    case SK_FFI_DOUBLE: return &ffi_type_double;
    case SK_FFI_INT8: return &ffi_type_sint8;
    case SK_FFI_INT16: return &ffi_type_sint16;
    case SK_FFI_UINT8: return &ffi_type_uint8;
    case SK_FFI_UINT16: return &ffi_type_uint16;
    case SK_FFI_UINT32: return &ffi_type_uint32;
    case SK_FFI_FLOAT: return &ffi_type_float;
    default: return &ffi_type_pointer; /* str, ptr, value, ctx */
    }
}

/* Validates and prepares; `where` names the function in messages. */
static int sk_ffi__make(sk_ffi_signature **out, sk_ffi_type result, const sk_ffi_type *args, size_t count, const char *where) {
    if ((unsigned)result >= SK_FFI_TYPE_COUNT) {
        return sk_ffi__fail(SK_ERR_INVALID_ARGUMENT, "%s: result: type %d is not an sk_ffi_type", where, (int)result);
    }
    if (result == SK_FFI_CTX) {
        return sk_ffi__fail(SK_ERR_INVALID_ARGUMENT, "%s: result: ctx is allowed only as the first argument", where);
    }
    if (count > SK_FFI_MAX_ARGS) {
        return sk_ffi__fail(SK_ERR_INVALID_ARGUMENT, "%s: count: %zu arguments, at most %d", where, count, SK_FFI_MAX_ARGS);
    }
    for (size_t i = 0; i < count; i++) {
        if ((unsigned)args[i] >= SK_FFI_TYPE_COUNT) {
            return sk_ffi__fail(SK_ERR_INVALID_ARGUMENT, "%s: args[%zu]: type %d is not an sk_ffi_type", where, i, (int)args[i]);
        }
        if (args[i] == SK_FFI_VOID) {
            return sk_ffi__fail(SK_ERR_INVALID_ARGUMENT, "%s: args[%zu]: void is allowed only as the result", where, i);
        }
        if (args[i] == SK_FFI_CTX && i != 0) {
            return sk_ffi__fail(SK_ERR_INVALID_ARGUMENT, "%s: args[%zu]: ctx is allowed only as the first argument", where, i);
        }
    }
    sk_ffi_signature *signature = calloc(1, sizeof *signature);
    if (signature == NULL) {
        return sk_ffi__fail(SK_ERR_NO_MEMORY, "%s: out of memory", where);
    }
    sk_ffi__ref_init(&signature->refs);
    signature->result = result;
    signature->count = count;
    for (size_t i = 0; i < count; i++) {
        signature->args[i] = args[i];
        signature->ffi_args[i] = sk_ffi__ffi_type(args[i]);
    }
    if (ffi_prep_cif(&signature->cif, FFI_DEFAULT_ABI, (unsigned)count, sk_ffi__ffi_type(result), signature->ffi_args) != FFI_OK) {
        free(signature);
        return sk_ffi__fail(SK_ERR_UNSUPPORTED, "%s: libffi cannot prepare this call interface", where);
    }
    signature->direct = sk_ffi__direct_shape(result, args, count);
    sk_ffi__register(&signature->handle, SK_FFI_SIGNATURE_TAG);
    sk_ffi__live_add();
    *out = signature;
    return SK_OK;
}

SK_FFI_EXPORT int sk_ffi_signature_create(sk_ffi_signature **out, sk_ffi_type result, const sk_ffi_type *args, size_t count) {
    if (out == NULL) {
        return sk_ffi__fail(SK_ERR_NULL_ARGUMENT, "sk_ffi_signature_create: out is NULL");
    }
    *out = NULL;
    if (args == NULL && count > 0) {
        return sk_ffi__fail(SK_ERR_NULL_ARGUMENT, "sk_ffi_signature_create: args is NULL with count %zu", count);
    }
    return sk_ffi__make(out, result, args, count, "sk_ffi_signature_create");
}

static int sk_ffi__is_space(char c) {
    return c == ' ' || c == '\t';
}

static int sk_ffi__is_word(char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

/* The byte `c` of the text, quoted for a message into `buffer`: 'c' when
 * it is printable ASCII, else escaped ('\xC3'), because a byte of a
 * multi-byte character copied alone would make the message invalid UTF-8
 * (and a control character would be invisible). */
typedef struct sk_ffi_quoted {
    char text[8];
} sk_ffi_quoted;

static sk_ffi_quoted sk_ffi__quote(char c) {
    sk_ffi_quoted quoted;
    unsigned char byte = (unsigned char)c;
    if (byte >= 0x20 && byte < 0x7F) {
        snprintf(quoted.text, sizeof quoted.text, "'%c'", c);
    } else {
        snprintf(quoted.text, sizeof quoted.text, "'\\x%02X'", byte);
    }
    return quoted;
}

#define PARSE_FAIL(...) sk_ffi__fail(SK_ERR_INVALID_ARGUMENT, "sk_ffi_signature_parse: text: " __VA_ARGS__)

/* Reads a type name at text[*pos]; `what` is "result" or "argument N". */
static int sk_ffi__parse_type(const char *text, size_t *pos, sk_ffi_type *type, const char *what) {
    size_t start = *pos;
    size_t end = start;
    while (sk_ffi__is_word(text[end])) {
        end++;
    }
    if (end == start) {
        if (text[start] == '\0') {
            return PARSE_FAIL("expected a type for the %s, found the end of the text (offset %zu)", what, start);
        }
        return PARSE_FAIL("expected a type for the %s, found %s (offset %zu)", what, sk_ffi__quote(text[start]).text, start);
    }
    for (size_t i = 0; i < SK_FFI_TYPE_COUNT; i++) {
        size_t length = strlen(sk_ffi__names[i]);
        if (length == end - start && memcmp(text + start, sk_ffi__names[i], length) == 0) {
            *type = (sk_ffi_type)i;
            *pos = end;
            return SK_OK;
        }
    }
    /* A name longer than 32 bytes is cut, and `...` after the quote says
     * so, as for the other quoted texts of the library (a name is ASCII:
     * the cut splits no character). */
    size_t length = end - start;
    return PARSE_FAIL("unknown type '%.*s'%s for the %s (offset %zu)", (int)(length < 32 ? length : 32), text + start, length > 32 ? "..." : "", what, start);
}

SK_FFI_EXPORT int sk_ffi_signature_parse(sk_ffi_signature **out, const char *text) {
    if (out == NULL) {
        return sk_ffi__fail(SK_ERR_NULL_ARGUMENT, "sk_ffi_signature_parse: out is NULL");
    }
    *out = NULL;
    if (text == NULL) {
        return sk_ffi__fail(SK_ERR_NULL_ARGUMENT, "sk_ffi_signature_parse: text is NULL");
    }
    size_t pos = 0;
    while (sk_ffi__is_space(text[pos])) {
        pos++;
    }
    sk_ffi_type result;
    int status = sk_ffi__parse_type(text, &pos, &result, "result");
    if (status != SK_OK) {
        return status;
    }
    if (result == SK_FFI_CTX) {
        return PARSE_FAIL("'ctx' cannot be the result (offset %zu)", pos - 3);
    }
    while (sk_ffi__is_space(text[pos])) {
        pos++;
    }
    if (text[pos] != '(') {
        if (text[pos] == '\0') {
            return PARSE_FAIL("expected '(' after the result, found the end of the text (offset %zu)", pos);
        }
        return PARSE_FAIL("expected '(' after the result, found %s (offset %zu)", sk_ffi__quote(text[pos]).text, pos);
    }
    pos++;
    sk_ffi_type args[SK_FFI_MAX_ARGS];
    size_t count = 0;
    while (sk_ffi__is_space(text[pos])) {
        pos++;
    }
    if (text[pos] != ')') {
        for (;;) {
            char what[32];
            snprintf(what, sizeof what, "argument %zu", count);
            if (count == SK_FFI_MAX_ARGS) {
                return PARSE_FAIL("more than %d arguments (%s, offset %zu)", SK_FFI_MAX_ARGS, what, pos);
            }
            size_t start = pos;
            status = sk_ffi__parse_type(text, &pos, &args[count], what);
            if (status != SK_OK) {
                return status;
            }
            if (args[count] == SK_FFI_VOID) {
                return PARSE_FAIL("'void' is not an argument type (%s, offset %zu); write () for no argument", what, start);
            }
            if (args[count] == SK_FFI_CTX && count != 0) {
                return PARSE_FAIL("'ctx' must be the first argument (%s, offset %zu)", what, start);
            }
            count++;
            while (sk_ffi__is_space(text[pos])) {
                pos++;
            }
            if (text[pos] == ')') {
                break;
            }
            if (text[pos] != ',') {
                if (text[pos] == '\0') {
                    return PARSE_FAIL("expected ',' or ')' after %s, found the end of the text (offset %zu)", what, pos);
                }
                return PARSE_FAIL("expected ',' or ')' after %s, found %s (offset %zu)", what, sk_ffi__quote(text[pos]).text, pos);
            }
            pos++;
            while (sk_ffi__is_space(text[pos])) {
                pos++;
            }
        }
    }
    pos++; /* ')' */
    while (sk_ffi__is_space(text[pos])) {
        pos++;
    }
    if (text[pos] != '\0') {
        return PARSE_FAIL("unexpected %s after ')' (offset %zu)", sk_ffi__quote(text[pos]).text, pos);
    }
    return sk_ffi__make(out, result, args, count, "sk_ffi_signature_parse");
}

/* The signature a reader of `function` may read, or NULL: for NULL (no
 * message: reading NULL is allowed) and for a handle of another kind (the
 * message set, as signalkit_ffi.h promises for the functions that return
 * no status: they have no other way to tell the caller). */
static const sk_ffi_signature *sk_ffi__readable(const sk_ffi_signature *signature, const char *function) {
    if (signature == NULL || sk_ffi__check_signature(function, "signature", signature) != SK_OK) {
        return NULL;
    }
    return signature;
}

SK_FFI_EXPORT sk_ffi_type sk_ffi_signature_result(const sk_ffi_signature *signature) {
    signature = sk_ffi__readable(signature, "sk_ffi_signature_result");
    return signature != NULL ? signature->result : SK_FFI_VOID;
}

SK_FFI_EXPORT size_t sk_ffi_signature_arg_count(const sk_ffi_signature *signature) {
    signature = sk_ffi__readable(signature, "sk_ffi_signature_arg_count");
    return signature != NULL ? signature->count : 0;
}

SK_FFI_EXPORT sk_ffi_type sk_ffi_signature_arg(const sk_ffi_signature *signature, size_t index) {
    signature = sk_ffi__readable(signature, "sk_ffi_signature_arg");
    if (signature == NULL || index >= signature->count) {
        return SK_FFI_VOID;
    }
    return signature->args[index];
}

SK_FFI_EXPORT sk_ffi_signature *sk_ffi_signature_retain(sk_ffi_signature *signature) {
    if (signature == NULL) {
        return NULL;
    }
    if (sk_ffi__check_signature("sk_ffi_signature_retain", "signature", signature) != SK_OK) {
        return NULL;
    }
    sk_ffi__ref_retain(&signature->refs);
    return signature;
}

SK_FFI_EXPORT void sk_ffi_signature_release(sk_ffi_signature *signature) {
    if (signature == NULL || sk_ffi__check_signature("sk_ffi_signature_release", "signature", signature) != SK_OK) {
        return;
    }
    if (sk_ffi__ref_release(&signature->refs)) {
        sk_ffi__live_remove();
        sk_ffi__unregister(&signature->handle);
        free(signature);
    }
}
