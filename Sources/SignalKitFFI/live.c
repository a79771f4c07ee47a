/* live.c - the count of live objects of libsignalkit-ffi. */
#include "internal.h"

static long sk_ffi__live;

void sk_ffi__live_add(void) {
    __atomic_add_fetch(&sk_ffi__live, 1, __ATOMIC_RELAXED);
}

/* Called before an object runs the user's release callback, so that a thread
 * woken by that callback never sees the object still counted. */
void sk_ffi__live_remove(void) {
    __atomic_sub_fetch(&sk_ffi__live, 1, __ATOMIC_RELEASE);
}

SK_FFI_EXPORT long sk_ffi_live_objects(void) {
    return __atomic_load_n(&sk_ffi__live, __ATOMIC_ACQUIRE);
}
