/* failure.c - sk_ffi_callback_fail: a typed callback failing the delivery
 * it is handling, through the core's one mechanism (sk_callback_fail).
 *
 * Every typed callback runs as an operator callback of the C library: a
 * typed map or filter is an sk_signal_map() or sk_signal_filter() stage, a
 * typed subscription's next the value callback of an observer started by
 * sk_signal_start_failable() (typed.c). So failing one is sk_callback_fail()
 * with the error this library promises ("sk_ffi: ROLE: callback failed:
 * MESSAGE"); the core then ends the subscription, delivers the error after
 * the value calls in flight and disposes the upstream. What is kept here is
 * only which typed callback runs on the calling thread (a record on its
 * stack, internal.h: nested callbacks each see their own): its role, for
 * the error's text, and whether it failed, so that what it returned is
 * ignored; and a call made outside any is refused. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

__thread sk_ffi_call_state *sk_ffi__running_call __attribute__((tls_model("initial-exec")));
const char sk_ffi__role_terminal[] = "terminal";

static const char lost_message[] = "(message lost: out of memory)";

sk_value sk_ffi__failure_error(const char *role, const char *message) {
    static const char *const lost = lost_message;
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
         * big as the memory left): the message is lost, and the error keeps
         * its documented shape, short enough to be made when nothing that
         * size can. */
        char fallback[96];
        snprintf(fallback, sizeof fallback, "sk_ffi: %s: callback failed: %s", role, lost);
        error = sk_ffi__string_value(fallback);
    }
    return error;
}

SK_FFI_EXPORT int sk_ffi_callback_fail(const char *message) {
    sk_ffi_call_state *call = sk_ffi__running_call;
    if (call == NULL) {
        return sk_ffi__fail(SK_ERR_UNSUPPORTED, "sk_ffi_callback_fail: no typed callback of this library is running on this thread");
    }
    if (call->role == sk_ffi__role_terminal || call->failed) {
        return SK_OK; /* an error or completed callback, with nothing more to
                       * end; or a second call: the first failure stands */
    }
    call->failed = 1; /* what the callback returns is ignored (typed.c) */
    /* The message copied first, as the error is made of a copy; a copy
     * that runs out of memory loses the message, not the failure. */
    char *copy = NULL;
    if (message != NULL && (copy = strdup(message)) == NULL) {
        message = lost_message;
    } else if (copy != NULL) {
        message = copy;
    }
    sk_value error = sk_ffi__failure_error(call->role, message);
    free(copy);
    int status = sk_callback_fail(&error);
    sk_value_release(&error);
    if (status != SK_OK) {
        /* Never for a typed callback of this library, which the core runs
         * as an operator callback; said, not hidden. */
        return sk_ffi__fail_core(status, "sk_ffi_callback_fail");
    }
    return SK_OK;
}
