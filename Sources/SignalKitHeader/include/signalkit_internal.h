#ifndef SIGNALKIT_INTERNAL_H
#define SIGNALKIT_INTERNAL_H

/* Internal helpers of the C layer, not exported (see signalkit.map). */

#include <stddef.h>

/* Stores `message` (copied, truncated) as the calling thread's last error. */
void sk__set_last_error(const char *message);

/* Runs `release(ctx)` (nothing when `release` is NULL) on the calling thread
 * and puts the thread's last error message back as it was before: for a
 * call that failed, its message set, and runs the caller's release before
 * returning. The release is user code that may call the library and fail
 * (a binding's release dropping the handles it kept), which would replace
 * the message the caller reads next; sk_last_error_message() describes the
 * caller's failing call until the caller's next one. */
void sk__release_keeping_message(void (*release)(void *ctx), void *ctx);

/* The calling thread's state of nested releases (SKArray's, SKSignal's and
 * SKPointer's deinits; the Swift side's `SKReleaseList`): `list`, the list
 * of nested arrays and signal contents waiting to be released (an
 * `SKReleaseList`, unretained), or NULL while no such release is under way
 * on the thread; `depth`, how many releases of signals and user pointers
 * are nested on the thread. One thread-local reached by one call (reaching
 * a thread-local of a shared library is a call of its own), read and
 * written in place by the calling thread only. */
typedef struct sk__release_state {
    void *list;
    int depth;
} sk__release_state;

sk__release_state *sk__release_state_here(void);

/* 1 when less than a quarter of the calling thread's stack is left below the
 * caller, 0 otherwise, and when the thread's stack is not known (its bounds
 * could not be read, or the caller runs on another stack). See stack.c. */
int sk__stack_is_low(void);

/* The bytes of the calling thread's stack left below the caller, and the
 * stack's size in `*size`; SIZE_MAX (and a size of 0) when the thread's
 * stack is not known. */
size_t sk__stack_left(size_t *size);

#endif
