/* convert.c - checked conversions between sk_value and native types. */
#include <float.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "internal.h"

static const char *sk_ffi__kind_name(sk_kind kind) {
    switch (kind) {
    case SK_KIND_NIL: return "nil";
    case SK_KIND_BOOL: return "bool";
    case SK_KIND_INT64: return "int64";
    case SK_KIND_DOUBLE: return "double";
    case SK_KIND_STRING: return "string";
    case SK_KIND_BYTES: return "bytes";
    case SK_KIND_ARRAY: return "array";
    case SK_KIND_POINTER: return "pointer";
    case SK_KIND_SIGNAL: return "signal";
    }
    return "unknown kind";
}

size_t sk_ffi__utf8_character(const unsigned char *bytes, size_t i, size_t length) {
    unsigned char lead = bytes[i];
    if (lead < 0x80) {
        return 1;
    }
    size_t size;
    unsigned char low = 0x80, high = 0xBF; /* the range of the second byte */
    if (lead >= 0xC2 && lead <= 0xDF) {
        size = 2;
    } else if (lead >= 0xE0 && lead <= 0xEF) {
        size = 3;
        if (lead == 0xE0) {
            low = 0xA0; /* overlong below */
        } else if (lead == 0xED) {
            high = 0x9F; /* surrogates above */
        }
    } else if (lead >= 0xF0 && lead <= 0xF4) {
        size = 4;
        if (lead == 0xF0) {
            low = 0x90;
        } else if (lead == 0xF4) {
            high = 0x8F; /* above U+10FFFF */
        }
    } else {
        return 0;
    }
    if (length - i < size || bytes[i + 1] < low || bytes[i + 1] > high) {
        return 0;
    }
    for (size_t k = 2; k < size; k++) {
        if ((bytes[i + k] & 0xC0) != 0x80) {
            return 0;
        }
    }
    return size;
}

size_t sk_ffi__escape_utf8(char *out, const char *text) {
    const unsigned char *bytes = (const unsigned char *)text;
    size_t length = strlen(text);
    size_t at = 0;
    size_t i = 0;
    while (i < length) {
        size_t n = sk_ffi__utf8_character(bytes, i, length);
        if (n == 0) {
            snprintf(out + at, 5, "\\x%02X", bytes[i]);
            at += 4;
            i++;
        } else {
            memcpy(out + at, text + i, n);
            at += n;
            i += n;
        }
    }
    out[at] = '\0';
    return at;
}

/* Writes `length` bytes of `text` quoted into `out` (`room` bytes, room > 0,
 * always NUL-terminated): `"`, the first 40 bytes at most, a UTF-8
 * character that would cross byte 40 left out, with `"` written `\"`, `\`
 * written `\\`, NUL written `\0` and a byte that belongs to no valid UTF-8
 * character written `\xNN` (as sk_ffi_last_error_message() promises, so
 * that the result is valid UTF-8 whatever `text` holds), then `"`, then
 * `...` when bytes were left out. A character or escape that `room` cannot
 * hold whole is left out with all that follows (then `...` too). */
static void sk_ffi__quote(char *out, size_t room, const char *text, size_t length) {
    const unsigned char *bytes = (const unsigned char *)text;
    size_t limit = length > 40 ? 40 : length;
    size_t at = 0;
    if (room < 6) { /* `"` `"` `...` and the NUL do not fit: nothing quoted */
        out[0] = '\0';
        return;
    }
    out[at++] = '"';
    size_t i = 0;
    while (i < limit) {
        char piece[5];
        size_t n = 0;
        size_t used = 1;
        if (bytes[i] == '\0') {
            piece[n++] = '\\';
            piece[n++] = '0';
        } else if (bytes[i] == '"' || bytes[i] == '\\') {
            piece[n++] = '\\';
            piece[n++] = (char)bytes[i];
        } else {
            used = sk_ffi__utf8_character(bytes, i, length);
            if (used == 0) {
                snprintf(piece, sizeof piece, "\\x%02X", bytes[i]);
                n = 4;
                used = 1;
            } else if (i + used > limit) {
                break; /* never cut inside a character */
            } else {
                memcpy(piece, text + i, used);
                n = used;
            }
        }
        if (at + n + 5 > room) { /* room for the piece, `"...` and the NUL */
            i = 0;
            length = 1;
            break;
        }
        memcpy(out + at, piece, n);
        at += n;
        i += used;
    }
    snprintf(out + at, room - at, "\"%s", length > i ? "..." : "");
}

void sk_ffi__describe(const sk_value *value, char *buffer, size_t size) {
    sk_kind kind = sk_value_kind(value);
    switch (kind) {
    case SK_KIND_BOOL: {
        bool b = false;
        sk_value_get_bool(value, &b);
        snprintf(buffer, size, "bool %s", b ? "true" : "false");
        return;
    }
    case SK_KIND_INT64: {
        int64_t n = 0;
        sk_value_get_int64(value, &n);
        snprintf(buffer, size, "int64 %" PRId64, n);
        return;
    }
    case SK_KIND_DOUBLE: {
        double d = 0;
        sk_value_get_double(value, &d);
        snprintf(buffer, size, "double %.17g", d);
        return;
    }
    case SK_KIND_STRING: {
        const char *text = "";
        size_t length = 0;
        sk_value_get_string(value, &text, &length);
        int written = snprintf(buffer, size, "string ");
        if (written >= 0 && (size_t)written < size) {
            sk_ffi__quote(buffer + written, size - (size_t)written, text, length);
        }
        return;
    }
    default:
        snprintf(buffer, size, "%s", sk_ffi__kind_name(kind));
        return;
    }
}

void sk_ffi__describe_error(const sk_value *error, char *buffer, size_t size) {
    sk_kind kind = sk_value_kind(error);
    int written = snprintf(buffer, size, "sk_ffi: error of kind %s", sk_ffi__kind_name(kind));
    if (written < 0 || (size_t)written >= size) {
        return;
    }
    char *rest = buffer + written;
    size_t room = size - (size_t)written;
    switch (kind) {
    case SK_KIND_BOOL: {
        bool b = false;
        sk_value_get_bool(error, &b);
        snprintf(rest, room, ": %s", b ? "true" : "false");
        return;
    }
    case SK_KIND_INT64: {
        int64_t n = 0;
        sk_value_get_int64(error, &n);
        snprintf(rest, room, ": %" PRId64, n);
        return;
    }
    case SK_KIND_DOUBLE: {
        double d = 0;
        sk_value_get_double(error, &d);
        snprintf(rest, room, ": %.17g", d);
        return;
    }
    case SK_KIND_STRING: {
        /* Quoted as sk_ffi__quote() says. */
        const char *text = "";
        size_t length = 0;
        sk_value_get_string(error, &text, &length);
        if (room > 2) {
            rest[0] = ':';
            rest[1] = ' ';
            sk_ffi__quote(rest + 2, room - 2, text, length);
        }
        return;
    }
    case SK_KIND_BYTES: {
        const void *data = NULL;
        size_t length = 0;
        sk_value_get_bytes(error, &data, &length);
        snprintf(rest, room, ": %zu byte%s", length, length == 1 ? "" : "s");
        return;
    }
    case SK_KIND_ARRAY: {
        size_t count = 0;
        sk_value_get_array_count(error, &count);
        snprintf(rest, room, ": %zu item%s", count, count == 1 ? "" : "s");
        return;
    }
    default:
        return;
    }
}

sk_value sk_ffi__string_value(const char *text) {
    sk_value value;
    if (sk_value_set_string(&value, text) != SK_OK) {
        sk_value_set_nil(&value);
    }
    return value;
}

int sk_ffi__to_native(const sk_value *value, sk_ffi_type type, sk_ffi_slot *slot) {
    /* The primitives' fields are read in place (the layout of sk_value is
     * the ABI, and the core's accessors read the same fields): a typed
     * delivery makes no call into the core to convert its argument. */
    sk_kind kind = value != NULL ? value->kind : SK_KIND_NIL;
    memset(slot, 0, sizeof *slot);
    switch (type) {
    case SK_FFI_BOOL:
        if (kind == SK_KIND_BOOL) {
            slot->boolean = value->u.boolean ? 1 : 0;
            return 0;
        }
        return -1;
    case SK_FFI_INT32:
        if (kind == SK_KIND_INT64 && value->u.int64 >= INT32_MIN && value->u.int64 <= INT32_MAX) {
            slot->i32 = (int32_t)value->u.int64;
            return 0;
        }
        return -1;
    case SK_FFI_INT64:
        if (kind == SK_KIND_INT64) {
            slot->i64 = value->u.int64;
            return 0;
        }
        return -1;
    case SK_FFI_INT8:
        if (kind == SK_KIND_INT64 && value->u.int64 >= INT8_MIN && value->u.int64 <= INT8_MAX) {
            slot->i8 = (int8_t)value->u.int64;
            return 0;
        }
        return -1;
    case SK_FFI_INT16:
        if (kind == SK_KIND_INT64 && value->u.int64 >= INT16_MIN && value->u.int64 <= INT16_MAX) {
            slot->i16 = (int16_t)value->u.int64;
            return 0;
        }
        return -1;
    case SK_FFI_UINT8:
        if (kind == SK_KIND_INT64 && value->u.int64 >= 0 && value->u.int64 <= UINT8_MAX) {
            slot->u8 = (uint8_t)value->u.int64;
            return 0;
        }
        return -1;
    case SK_FFI_UINT16:
        if (kind == SK_KIND_INT64 && value->u.int64 >= 0 && value->u.int64 <= UINT16_MAX) {
            slot->u16 = (uint16_t)value->u.int64;
            return 0;
        }
        return -1;
    case SK_FFI_UINT32:
        if (kind == SK_KIND_INT64 && value->u.int64 >= 0 && value->u.int64 <= (int64_t)UINT32_MAX) {
            slot->u32 = (uint32_t)value->u.int64;
            return 0;
        }
        return -1;
    case SK_FFI_FLOAT:
        /* Rounded to the nearest float; a finite double whose magnitude no
         * float reaches is refused rather than made infinite. Integers as
         * for f64, within the range in which a float holds every one. */
        if (kind == SK_KIND_DOUBLE) {
            double magnitude = value->u.real < 0 ? -value->u.real : value->u.real;
            if (magnitude > FLT_MAX && magnitude <= DBL_MAX) {
                return -1; /* finite, beyond every float (NaN compares false) */
            }
            slot->f32 = (float)value->u.real;
            return 0;
        }
        if (kind == SK_KIND_INT64 && value->u.int64 >= -SK_FFI__EXACT_FLOAT && value->u.int64 <= SK_FFI__EXACT_FLOAT) {
            slot->f32 = (float)value->u.int64;
            return 0;
        }
        return -1;
    case SK_FFI_UINT64:
        if (kind == SK_KIND_INT64 && value->u.int64 >= 0) {
            slot->u64 = (uint64_t)value->u.int64;
            return 0;
        }
        return -1;
    case SK_FFI_DOUBLE:
        if (kind == SK_KIND_DOUBLE) {
            slot->real = value->u.real;
            return 0;
        }
        /* [-2^53, 2^53] is the range in which a double holds every
         * integer; outside it some convert exactly (2^62) and some would
         * be rounded (2^53 + 1). The whole range is the rule, not each
         * value's exactness, so that whether a stream of int64 converts to
         * f64 does not depend on which values it carries. */
        if (kind == SK_KIND_INT64 && value->u.int64 >= -SK_FFI__EXACT_DOUBLE && value->u.int64 <= SK_FFI__EXACT_DOUBLE) {
            slot->real = (double)value->u.int64;
            return 0;
        }
        return -1;
    case SK_FFI_STRING:
        if (kind == SK_KIND_STRING) {
            const char *text = NULL;
            size_t length = 0;
            sk_value_get_string(value, &text, &length);
            if (strlen(text) != length) {
                return -1; /* an embedded NUL */
            }
            slot->string = text;
            return 0;
        }
        return -1;
    case SK_FFI_POINTER:
        if (kind == SK_KIND_POINTER) {
            sk_value_get_pointer(value, &slot->pointer);
            return 0;
        }
        if (kind == SK_KIND_NIL) {
            slot->pointer = NULL;
            return 0;
        }
        return -1;
    case SK_FFI_VALUE:
        slot->value = value;
        return 0;
    default:
        return -1;
    }
}

/* Out of line and cold: its buffer and its formatting stay out of the
 * frames of the deliveries that convert (a chain of typed operators nests
 * one such frame per operator, typed.c). */
__attribute__((noinline, cold)) void sk_ffi__to_native_why(const sk_value *value, sk_ffi_type type, char *why, size_t size) {
    sk_kind kind = sk_value_kind(value);
    int64_t n = 0;
    if (kind == SK_KIND_INT64) {
        sk_value_get_int64(value, &n);
    }
    switch (type) {
    case SK_FFI_INT32:
    case SK_FFI_UINT64:
    case SK_FFI_INT8:
    case SK_FFI_INT16:
    case SK_FFI_UINT8:
    case SK_FFI_UINT16:
    case SK_FFI_UINT32:
        if (kind == SK_KIND_INT64) {
            snprintf(why, size, "int64 %" PRId64 " out of range of %s", n, sk_ffi__type_name(type));
            return;
        }
        break;
    case SK_FFI_FLOAT:
        if (kind == SK_KIND_INT64) {
            snprintf(why, size, "int64 %" PRId64 " is outside +-2^24 (the range in which a float holds every integer)", n);
            return;
        }
        if (kind == SK_KIND_DOUBLE) {
            double d = 0;
            sk_value_get_double(value, &d);
            snprintf(why, size, "double %.17g is outside the range of f32", d);
            return;
        }
        break;
    case SK_FFI_DOUBLE:
        if (kind == SK_KIND_INT64) {
            snprintf(why, size, "int64 %" PRId64 " is outside +-2^53 (the range in which a double holds every integer)", n);
            return;
        }
        break;
    case SK_FFI_STRING:
        if (kind == SK_KIND_STRING) {
            const char *text = "";
            sk_value_get_string(value, &text, NULL);
            snprintf(why, size, "string with an embedded NUL at byte %zu", strlen(text));
            return;
        }
        break;
    case SK_FFI_BOOL:
    case SK_FFI_INT64:
    case SK_FFI_POINTER:
    case SK_FFI_VALUE:
        break;
    default:
        snprintf(why, size, "type %s takes no value", sk_ffi__type_name(type));
        return;
    }
    char seen[80];
    sk_ffi__describe(value, seen, sizeof seen);
    snprintf(why, size, "%s does not convert to %s", seen, sk_ffi__type_name(type));
}

int sk_ffi__from_native(const void *native, sk_ffi_type type, int from_result, sk_value *out, char *why, size_t size) {
    if (sk_ffi__from_native_primitive(native, type, from_result, out) == 0) {
        return 0;
    }
    sk_ffi__set_primitive(out, SK_KIND_NIL);
    switch (type) {
    case SK_FFI_UINT64: {
        uint64_t n = *(const uint64_t *)native;
        if (n > (uint64_t)INT64_MAX) {
            snprintf(why, size, "u64 %" PRIu64 " out of range of int64", n);
            return -1;
        }
        sk_ffi__set_primitive(out, SK_KIND_INT64)->u.int64 = (int64_t)n;
        return 0;
    }
    case SK_FFI_STRING: {
        const char *text = *(const char *const *)native;
        if (text == NULL) {
            if (from_result) {
                snprintf(why, size, "NULL returned as str");
                return -1;
            }
            return 0; /* a NULL string argument: nil */
        }
        if (sk_value_set_string(out, text) != SK_OK) {
            snprintf(why, size, "string copy failed: %s", sk_last_error_message());
            return -1;
        }
        return 0;
    }
    case SK_FFI_POINTER:
        if (sk_value_set_pointer(out, *(void *const *)native, NULL) != SK_OK) {
            snprintf(why, size, "pointer value failed: %s", sk_last_error_message());
            return -1;
        }
        return 0;
    case SK_FFI_VALUE: {
        const sk_value *value = *(const sk_value *const *)native;
        if (value == NULL) {
            if (from_result) {
                snprintf(why, size, "NULL returned as value");
                return -1;
            }
            return 0;
        }
        if (sk_value_copy(out, value) != SK_OK) {
            snprintf(why, size, "value copy failed: %s", sk_last_error_message());
            return -1;
        }
        return 0;
    }
    default:
        snprintf(why, size, "type %s has no value", sk_ffi__type_name(type));
        return -1;
    }
}
