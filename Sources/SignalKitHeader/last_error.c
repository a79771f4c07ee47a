#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "../../include/signalkit.h"
#include "include/signalkit_internal.h"

/* The last error message, one per thread, owned by the library: a buffer of
 * SK__LAST_ERROR_SIZE bytes made at the thread's first error and freed at
 * its exit, of which only the pointer is a thread-local. The buffer itself
 * was one (512 bytes of the library's 896 of static TLS, the block glibc
 * keeps for libraries loaded after the program started, about 1.6 KB for
 * all of them): a second copy of the library (a program with the Python
 * wheel's and the system's), or the library after another that uses
 * initial-exec thread-locals, failed to load, "cannot allocate memory in
 * static TLS block". */
enum { SK__LAST_ERROR_SIZE = 512 };
static _Thread_local char *sk__last_error;
/* No memory for the buffer: the message says so instead. */
static _Thread_local bool sk__last_error_lost;
static const char sk__last_error_lost_text[] = "(the error's message was lost: no memory for it)";

/* glibc's registration of a thread's exit function (what C++ thread_local
 * destructors use; no pthread key, of which a process may have used up its
 * 1,024), and this library's handle for it. */
extern int __cxa_thread_atexit_impl(void (*function)(void *), void *object, void *dso_handle);
extern void *__dso_handle;

static void sk__last_error_free(void *buffer) {
    free(buffer);
}

/* This thread's buffer, made at its first use; NULL without memory. */
static char *sk__last_error_buffer(void) {
    if (sk__last_error == NULL) {
        char *buffer = malloc(SK__LAST_ERROR_SIZE);
        if (buffer == NULL) {
            return NULL;
        }
        buffer[0] = '\0';
        if (__cxa_thread_atexit_impl(sk__last_error_free, buffer, &__dso_handle) != 0) {
            free(buffer);
            return NULL;
        }
        sk__last_error = buffer;
    }
    return sk__last_error;
}

void sk__set_last_error(const char *message) {
    if (message == NULL) {
        if (sk__last_error != NULL) {
            sk__last_error[0] = '\0';
        }
        sk__last_error_lost = false;
        return;
    }
    char *buffer = sk__last_error_buffer();
    sk__last_error_lost = buffer == NULL;
    if (buffer == NULL) {
        return;
    }
    size_t length = strlen(message);
    if (length >= SK__LAST_ERROR_SIZE) {
        length = SK__LAST_ERROR_SIZE - 1;
    }
    memcpy(buffer, message, length);
    buffer[length] = '\0';
}

const char *sk_last_error_message(void) {
    if (sk__last_error_lost) {
        return sk__last_error_lost_text;
    }
    return sk__last_error != NULL ? sk__last_error : "";
}

void sk__release_keeping_message(sk_release_fn release, void *ctx) {
    if (release == NULL) {
        return;
    }
    /* The message as a whole: a copy of the bytes up to its end would do,
     * but 512 bytes cost no more than the strlen. */
    char saved[SK__LAST_ERROR_SIZE];
    bool lost = sk__last_error_lost;
    bool had = sk__last_error != NULL;
    if (had) {
        memcpy(saved, sk__last_error, sizeof saved);
    }
    release(ctx);
    if (had) {
        memcpy(sk__last_error, saved, sizeof saved);
    } else if (sk__last_error != NULL) {
        sk__last_error[0] = '\0';
    }
    sk__last_error_lost = lost;
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
