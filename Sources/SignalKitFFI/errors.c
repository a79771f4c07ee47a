/* errors.c - the thread-local last error message of libsignalkit-ffi. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "internal.h"

static __thread char sk_ffi__last_error[512];

/* Ends a message cut at `length` bytes on a character boundary: the bytes
 * of a multi-byte character the cut split are dropped, so that the message
 * stays valid UTF-8 (every piece of it is: the quoted bytes of a text are
 * escaped, see signature.c). */
static void sk_ffi__cut_on_character(char *message, size_t length) {
    size_t start = length;
    while (start > 0 && ((unsigned char)message[start - 1] & 0xC0) == 0x80 && length - start < 3) {
        start--; /* continuation bytes */
    }
    if (start == 0) {
        return;
    }
    unsigned char lead = (unsigned char)message[start - 1];
    size_t needed = lead >= 0xF0 ? 4 : lead >= 0xE0 ? 3 : lead >= 0xC0 ? 2 : 1;
    if (lead >= 0xC0 && length - (start - 1) < needed) {
        message[start - 1] = '\0';
    }
}

int sk_ffi__fail(int status, const char *format, ...) {
    va_list args;
    va_start(args, format);
    int written = vsnprintf(sk_ffi__last_error, sizeof sk_ffi__last_error, format, args);
    va_end(args);
    if (written >= (int)sizeof sk_ffi__last_error) {
        sk_ffi__cut_on_character(sk_ffi__last_error, sizeof sk_ffi__last_error - 1);
    }
    return status;
}

/* The core's message names the signalkit.h function that failed
 * ("sk_signal_create_over: the pipeline would be ..."), one the user did not
 * call: the message given is that of `function`, the user's call, in the
 * shape signalkit.h gives its own ("sk_ffi_signal_map: the pipeline would
 * be ..."). */
int sk_ffi__fail_core(int status, const char *function) {
    const char *message = sk_last_error_message();
    const char *rest = message;
    if (strncmp(rest, "sk_", 3) == 0) {
        rest += 3;
        while ((*rest >= 'a' && *rest <= 'z') || (*rest >= '0' && *rest <= '9') || *rest == '_') {
            rest++;
        }
        message = strncmp(rest, ": ", 2) == 0 ? rest + 2 : message;
    }
    return sk_ffi__fail(status, "%s: %s", function, message);
}

void sk_ffi__release_keeping_message(sk_release_fn release, void *ctx) {
    if (release == NULL) {
        return;
    }
    char saved[sizeof sk_ffi__last_error];
    memcpy(saved, sk_ffi__last_error, sizeof saved);
    release(ctx);
    memcpy(sk_ffi__last_error, saved, sizeof saved);
}

SK_FFI_EXPORT const char *sk_ffi_last_error_message(void) {
    return sk_ffi__last_error;
}
