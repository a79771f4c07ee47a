/* errors.c - the thread-local last error message of libsignalkit-ffi. */
#include <stdarg.h>
#include <stdio.h>

#include "internal.h"

static __thread char sk_ffi__last_error[512];

int sk_ffi__fail(int status, const char *format, ...) {
    va_list args;
    va_start(args, format);
    vsnprintf(sk_ffi__last_error, sizeof sk_ffi__last_error, format, args);
    va_end(args);
    return status;
}

int sk_ffi__fail_core(int status, const char *function) {
    return sk_ffi__fail(status, "%s: %s", function, sk_last_error_message());
}

SK_FFI_EXPORT const char *sk_ffi_last_error_message(void) {
    return sk_ffi__last_error;
}
