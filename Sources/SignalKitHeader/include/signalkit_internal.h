#ifndef SIGNALKIT_INTERNAL_H
#define SIGNALKIT_INTERNAL_H

/* Internal helpers of the C layer, not exported (see signalkit.map). */

#include <stddef.h>

#include "../../../include/signalkit.h"

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

/* The custom operator (sk_signal_create_over) whose generator runs on the
 * calling thread, innermost first: `upstream`, its SKSignal (unretained),
 * and `subscriber`, the SKSubscriber the generator was given (unretained,
 * alive while it runs); both NULL when none runs. A start of `upstream`
 * made by the generator is linked to that subscriber (Signals.swift,
 * `linkedDownstream`), as the library's own operators link theirs. Saved
 * and restored around each generator's call. */
typedef struct sk__generator_link {
    const void *upstream;
    const void *subscriber;
} sk__generator_link;

/* Initial-exec, reached inline: every start reads it (a call into this
 * module cost sk_signal_start_held about ten instructions; the static TLS a
 * dlopen'ed library may take, about 512 bytes, holds these 16 bytes beside
 * the shims' own). */
extern _Thread_local sk__generator_link sk__generator_link_slot __attribute__((tls_model("initial-exec")));

static inline __attribute__((always_inline)) sk__generator_link *sk__generator_link_here(void) {
    return &sk__generator_link_slot;
}

/* 1 when less than a quarter of the calling thread's stack is left below the
 * caller, 0 otherwise, and when the thread's stack is not known (its bounds
 * could not be read, or the caller runs on another stack). See stack.c. */
int sk__stack_is_low(void);

/* The bytes of the calling thread's stack left below the caller, and the
 * stack's size in `*size`; SIZE_MAX (and a size of 0) when the thread's
 * stack is not known. */
size_t sk__stack_left(size_t *size);

/* The calling thread's state of operator callbacks (sk_callback_fail(), see
 * signalkit.h; CallbackFailure.swift). `depth` counts the runs of operator
 * callbacks in progress on the thread (a run: one callback's call, or the
 * calls of a chain of map and filter stages for one value), nested when a
 * callback emits into a pipe whose subscription runs operator callbacks.
 * `failed_depth` is the depth of the run whose callback called
 * sk_callback_fail() (0 when none is pending), `error` the copy it made
 * (owned here until the run takes it), and `set_aside` the failures of
 * outer runs that were pending when a deeper run's callback failed (an
 * SKSetAsideFailures of the Swift side, retained; NULL when none), put
 * back when the deeper one is taken. */
typedef struct sk__callback_state {
    unsigned depth;
    unsigned failed_depth;
    sk_value error;
    void *set_aside;
} sk__callback_state;

/* The calling thread's sk__callback_state. A run of operator callbacks
 * reaches it once, inline: initial-exec, as sk__generator_link_slot (every
 * value through a failable observer or a run of stages reaches it; through
 * a call, with -mtls-dialect=gnu2, it cost about ten instructions a run,
 * and these 32 bytes fit in the static TLS a dlopen'ed library may take
 * beside the generator link's 16). */
extern _Thread_local sk__callback_state sk__callback_state_slot __attribute__((tls_model("initial-exec")));

static inline __attribute__((always_inline)) sk__callback_state *sk__callback_state_here(void) {
    return &sk__callback_state_slot;
}

#endif
