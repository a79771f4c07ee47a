/* ffi_quickstart.c - native callback types and a trampoline (signalkit_ffi.h).
 *
 *   cc ffi_quickstart.c $(pkg-config --cflags --libs signalkit-ffi) -o ffi_quickstart
 *
 * A pipe is fed through a trampoline: a real `void (*)(int64_t)` function
 * made at run time, the kind of pointer a C API without a user-data argument
 * accepts. The values are doubled by a plain `int64_t f(int64_t)` and printed
 * by a plain `void f(void *ctx, int64_t)`. Prints "2 4 6". */
#include <stdio.h>

#include <signalkit_ffi.h>

static int64_t twice(int64_t n) { return 2 * n; }

static void print_value(void *ctx, int64_t n) {
    const char **separator = ctx;
    printf("%s%lld", *separator, (long long)n);
    *separator = " ";
}

/* A producer that knows only a bare function pointer. */
static void produce(void (*emit)(int64_t)) {
    for (int64_t n = 1; n <= 3; n++) {
        emit(n);
    }
}

int main(void) {
    sk_pipe *pipe = NULL;
    sk_signal *source = NULL, *doubled = NULL;
    sk_ffi_signature *emit_sig = NULL, *map_sig = NULL, *next_sig = NULL;
    sk_ffi_trampoline *emit = NULL;
    sk_disposable *subscription = NULL;
    const char *separator = "";

    if (sk_pipe_create(&pipe, false) != SK_OK || sk_pipe_signal(&source, pipe) != SK_OK) {
        fprintf(stderr, "%s\n", sk_last_error_message());
        return 1;
    }
    if (sk_ffi_signature_parse(&emit_sig, "void(i64)") != SK_OK ||
        sk_ffi_signature_parse(&map_sig, "i64(i64)") != SK_OK ||
        sk_ffi_signature_parse(&next_sig, "void(ctx,i64)") != SK_OK ||
        sk_ffi_signal_map(&doubled, source, map_sig, (sk_ffi_fn)twice, NULL, NULL) != SK_OK ||
        sk_ffi_trampoline_pipe(&emit, pipe, emit_sig) != SK_OK) {
        fprintf(stderr, "%s\n", sk_ffi_last_error_message());
        return 1;
    }
    sk_ffi_observer observer = {next_sig, (sk_ffi_fn)print_value, NULL, NULL, NULL, NULL, &separator, NULL};
    if (sk_ffi_signal_start(&subscription, doubled, &observer) != SK_OK) {
        fprintf(stderr, "%s\n", sk_ffi_last_error_message());
        return 1;
    }

    produce((void (*)(int64_t))sk_ffi_trampoline_function(emit));
    printf("\n");

    sk_disposable_dispose(subscription);
    sk_disposable_release(subscription);
    sk_ffi_trampoline_release(emit);
    sk_ffi_signature_release(emit_sig);
    sk_ffi_signature_release(map_sig);
    sk_ffi_signature_release(next_sig);
    sk_signal_release(doubled);
    sk_signal_release(source);
    sk_pipe_release(pipe);
    return sk_live_objects() == 0 && sk_ffi_live_objects() == 0 ? 0 : 2;
}
