/* app.c - the CMake example: a pipe, a map through a typed libffi callback
 * (SignalKit::signalkit-ffi) and a take, with a plain sk_observer
 * (SignalKit::signalkit). */
#include <signalkit_ffi.h>
#include <stdio.h>

static int64_t square(int64_t n) {
    return n * n;
}

static void print(void *ctx, const sk_value *value) {
    int64_t n = 0;
    (void)ctx;
    sk_value_get_int64(value, &n);
    printf("%lld\n", (long long)n);
}

static void completed(void *ctx) {
    (void)ctx;
    printf("completed\n");
}

int main(void) {
    sk_pipe *pipe = NULL;
    sk_signal *source = NULL, *squares = NULL, *first = NULL;
    sk_ffi_signature *signature = NULL;
    sk_disposable *subscription = NULL;
    if (sk_pipe_create(&pipe, false) != SK_OK || sk_pipe_signal(&source, pipe) != SK_OK ||
        sk_ffi_signature_parse(&signature, "i64(i64)") != SK_OK ||
        sk_ffi_signal_map(&squares, source, signature, (sk_ffi_fn)square, NULL, NULL) != SK_OK ||
        sk_signal_take(&first, squares, 3) != SK_OK) {
        fprintf(stderr, "setup failed: %s\n", sk_last_error_message());
        return 1;
    }
    sk_observer observer = {print, NULL, completed, NULL, NULL};
    if (sk_signal_start(&subscription, first, &observer) != SK_OK) {
        fprintf(stderr, "start failed: %s\n", sk_last_error_message());
        return 1;
    }
    for (int64_t n = 1; n <= 5; n++) {
        sk_value value;
        sk_value_set_int64(&value, n);
        sk_pipe_put(pipe, &value);                /* 1, 4, 9, then completed */
    }
    sk_disposable_release(subscription);
    sk_signal_release(first);
    sk_signal_release(squares);
    sk_ffi_signature_release(signature);
    sk_signal_release(source);
    sk_pipe_release(pipe);
    printf("live objects: %ld\n", sk_live_objects());
    return 0;
}
