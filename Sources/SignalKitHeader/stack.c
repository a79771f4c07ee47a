/* stack.c - how much of the calling thread's stack is left.
 *
 * A signal that an operator starts at run time (the signal the function of
 * sk_signal_deferred(), sk_signal_map_to_signal() or sk_signal_catch()
 * returns, a signal value given to sk_signal_switch_to_latest()) starts
 * nested inside the start or the delivery that made it: nothing bounds how
 * deep a program nests them (a deferred function returning another deferred
 * signal, 30,000 levels deep, overflowed an 8 MB main thread). The C layer
 * looks at the stack before each such start instead and, when little is
 * left, fails it with an error while there is still stack to report it. */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdint.h>

#include "signalkit_internal.h"

/* The calling thread's stack, read once per thread (one thread-local, so
 * that a check looks the thread's storage up once): its lowest usable
 * address and its size (0: unknown, the bounds could not be read: no check
 * is made), and the address below which a start is refused (a quarter of
 * the stack above its lowest address). */
struct sk__stack {
    uintptr_t low;
    size_t size;
    uintptr_t refuse_below;
    int known;
};
static __thread struct sk__stack sk__stack;

static __attribute__((noinline)) void sk__stack_look_up(struct sk__stack *stack) {
    pthread_attr_t attributes;
    void *address = NULL;
    size_t size = 0;
    /* For the main thread glibc reads /proc/self/maps, which may fail: for
     * want of a descriptor or of memory, the next check tries again (the
     * thread was left unchecked for good: a later deep nesting overflowed
     * its stack); for anything else, the thread is left unchecked. */
    int status = pthread_getattr_np(pthread_self(), &attributes);
    if (status == EMFILE || status == ENFILE || status == ENOMEM) {
        return;
    }
    stack->known = 1;
    if (status != 0) {
        return;
    }
    if (pthread_attr_getstack(&attributes, &address, &size) != 0) {
        address = NULL;
        size = 0;
    }
    pthread_attr_destroy(&attributes);
    if (address == NULL) {
        return;
    }
    stack->low = (uintptr_t)address;
    stack->size = size;
    stack->refuse_below = stack->low + size / 4;
}

int sk__stack_is_low(void) {
    struct sk__stack *stack = &sk__stack;
    if (!stack->known) {
        sk__stack_look_up(stack);
    }
    /* The frame's own address, not a local's: a sanitizer may keep locals
     * on a stack of its own. An address outside the thread's stack (a
     * coroutine's stack, a signal handler's alternate stack) is not
     * checked. */
    uintptr_t here = (uintptr_t)__builtin_frame_address(0);
    return here >= stack->low && here < stack->refuse_below;
}

size_t sk__stack_left(size_t *size) {
    struct sk__stack *stack = &sk__stack;
    if (!stack->known) {
        sk__stack_look_up(stack);
    }
    uintptr_t here = (uintptr_t)__builtin_frame_address(0);
    if (stack->size == 0 || here < stack->low || here - stack->low > stack->size) {
        *size = 0;
        return SIZE_MAX;
    }
    *size = stack->size;
    return here - stack->low;
}
