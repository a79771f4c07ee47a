/* leak.c - the README's C quick start with two releases forgotten (the map's
 * signal and the pipe): the program a leak check must catch. Run under the
 * valgrind recipe of docs/c.md with the library's suppressions by make
 * test-dist-deb and test-dist-tarball, which expect the leak reported. */
#include <signalkit.h>
#include <stdio.h>

static void add_one(void *ctx, const sk_value *in, sk_value *out) {
    int64_t n = 0;
    (void)ctx;
    sk_value_get_int64(in, &n);
    sk_value_set_int64(out, n + 1);
}

static void print(void *ctx, const sk_value *value) {
    int64_t n = 0;
    (void)ctx;
    sk_value_get_int64(value, &n);
    printf("%lld\n", (long long)n);
}

int main(void) {
    sk_pipe *pipe;
    sk_signal *source, *mapped;
    sk_disposable *subscription;
    sk_pipe_create(&pipe, false);
    sk_pipe_signal(&source, pipe);
    sk_signal_map(&mapped, source, add_one, NULL, NULL);
    sk_observer observer = { print, NULL, NULL, NULL, NULL };
    sk_signal_start(&subscription, mapped, &observer);

    sk_value v;
    sk_value_set_int64(&v, 41);
    sk_pipe_put(pipe, &v); /* prints 42 */

    sk_disposable_dispose(subscription);
    sk_disposable_release(subscription);
    sk_signal_release(source);
    /* forgotten: sk_signal_release(mapped), sk_pipe_release(pipe) */
    return 0;
}
