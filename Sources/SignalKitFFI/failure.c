/* failure.c - sk_ffi_callback_fail: a typed callback failing the delivery
 * it is handling.
 *
 * Every call of a typed callback runs inside a frame: a record on the C
 * stack of the calling thread, pushed just before ffi_call and popped just
 * after it. The frames of one thread form a stack (a callback that emits
 * into a pipe whose subscriber is another typed callback pushes a second
 * frame above its own), so each call keeps its own failure state. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

static __thread sk_ffi_frame *sk_ffi__top_frame;

void sk_ffi__frame_push(sk_ffi_frame *frame) {
    frame->failed = 0;
    frame->message = NULL;
    frame->top = &sk_ffi__top_frame;
    frame->previous = *frame->top;
    *frame->top = frame;
}

void sk_ffi__frame_clear(sk_ffi_frame *frame) {
    free(frame->message);
    frame->message = NULL;
}

sk_value sk_ffi__frame_error(sk_ffi_frame *frame, const char *role) {
    static const char lost[] = "(message lost: out of memory)";
    const char *message = frame->message;
    if (frame->failed == SK_FFI__FAILED_NO_MEMORY) {
        message = lost;
    }
    /* The message is escaped as every message of the library is (a byte of
     * no valid UTF-8 character written \xNN, up to 4 bytes for 1), so that
     * the error is valid UTF-8 whatever the callback passed. */
    size_t message_length = message ? strlen(message) : 0;
    size_t prefix = strlen("sk_ffi: ") + strlen(role) + strlen(": callback failed: ");
    char *text = NULL;
    if (message_length <= (SIZE_MAX - prefix - 1) / 4) {
        text = malloc(prefix + 4 * message_length + 1);
    }
    sk_value error;
    sk_value_set_nil(&error);
    if (text != NULL) {
        if (message != NULL) {
            int written = snprintf(text, prefix + 1, "sk_ffi: %s: callback failed: ", role);
            sk_ffi__escape_utf8(text + written, message);
        } else {
            snprintf(text, prefix + 1, "sk_ffi: %s: callback failed", role);
        }
        error = sk_ffi__string_value(text);
        free(text);
    }
    if (sk_value_kind(&error) != SK_KIND_STRING) {
        /* No room for the text or for the value made of it (a message as
         * big as the memory left): the message is lost as when it could not
         * be copied, and the error keeps its documented shape, short
         * enough to be made when nothing that size can. */
        char fallback[96];
        snprintf(fallback, sizeof fallback, "sk_ffi: %s: callback failed: %s", role, lost);
        error = sk_ffi__string_value(fallback);
    }
    sk_ffi__frame_clear(frame);
    return error;
}

SK_FFI_EXPORT int sk_ffi_callback_fail(const char *message) {
    sk_ffi_frame *frame = sk_ffi__top_frame;
    if (frame == NULL) {
        return sk_ffi__fail(SK_ERR_UNSUPPORTED, "sk_ffi_callback_fail: no typed callback of this library is running on this thread");
    }
    if (frame->failed) {
        return SK_OK; /* the first failure stands */
    }
    frame->failed = SK_FFI__FAILED;
    if (message != NULL) {
        frame->message = strdup(message);
        if (frame->message == NULL) {
            frame->failed = SK_FFI__FAILED_NO_MEMORY;
        }
    }
    return SK_OK;
}
