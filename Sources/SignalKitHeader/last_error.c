#include <string.h>

#include "../../include/signalkit.h"
#include "include/signalkit_internal.h"

/* The last error message, one per thread, owned by the library. */
static _Thread_local char sk__last_error[512];

void sk__set_last_error(const char *message) {
    if (message == NULL) {
        sk__last_error[0] = '\0';
        return;
    }
    size_t length = strlen(message);
    if (length >= sizeof sk__last_error) {
        length = sizeof sk__last_error - 1;
    }
    memcpy(sk__last_error, message, length);
    sk__last_error[length] = '\0';
}

const char *sk_last_error_message(void) {
    return sk__last_error;
}

void sk__release_keeping_message(sk_release_fn release, void *ctx) {
    if (release == NULL) {
        return;
    }
    /* The message as a whole: a copy of the bytes up to its end would do,
     * but 512 bytes cost no more than the strlen. */
    char saved[sizeof sk__last_error];
    memcpy(saved, sk__last_error, sizeof saved);
    release(ctx);
    memcpy(sk__last_error, saved, sizeof saved);
}

/* What waits to be released on this thread and how deeply releases nest
 * (signalkit_internal.h; SKValue.swift, SKReleaseList). */
static _Thread_local sk__release_state sk__release_state_slot;

sk__release_state *sk__release_state_here(void) {
    return &sk__release_state_slot;
}

/* The custom operator whose generator runs on this thread
 * (signalkit_internal.h, sk__generator_link). */
_Thread_local sk__generator_link sk__generator_link_slot __attribute__((tls_model("initial-exec")));

/* The state of operator callbacks of this thread (signalkit_internal.h,
 * sk__callback_state; sk_callback_fail() in signalkit.h). */
_Thread_local sk__callback_state sk__callback_state_slot __attribute__((tls_model("initial-exec")));
