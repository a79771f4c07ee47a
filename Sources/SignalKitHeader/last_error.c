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

/* What waits to be released on this thread: nested arrays, what signals
 * held (SKValue.swift, SKReleaseList). */
static _Thread_local void *sk__release_list_slot;

void *sk__release_list(void) {
    return sk__release_list_slot;
}

void sk__set_release_list(void *list) {
    sk__release_list_slot = list;
}

/* How many releases of signals and user pointers are nested on this thread
 * (SKSignal's and SKPointer's deinits). */
static _Thread_local int sk__release_depth_slot;

int sk__release_depth(void) {
    return sk__release_depth_slot;
}

void sk__set_release_depth(int depth) {
    sk__release_depth_slot = depth;
}
