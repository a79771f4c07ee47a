/*
 * errors.c - failures as events, and misuse as status codes.
 *
 * A flaky source fails on its first two starts and succeeds on the third.
 * restart-if-error starts it again at once on each failure; catch turns the
 * failure of another source into a fallback signal. Last, a few misuses show
 * what the library answers instead of crashing.
 *
 * Build: cc errors.c $(pkg-config --cflags --libs signalkit) -o errors
 */
#include <stdio.h>
#include <stdlib.h>

#include <signalkit.h>

#define CHECK(call)                                                            \
    do {                                                                       \
        int status_ = (call);                                                  \
        if (status_ != SK_OK) {                                                \
            fprintf(stderr, "%s failed: %s (%s)\n", #call,                      \
                    sk_status_string(status_), sk_last_error_message());       \
            exit(1);                                                           \
        }                                                                      \
    } while (0)

/* The generator of the flaky source: ctx counts the starts. */
static sk_disposable *flaky(void *ctx, sk_subscriber *subscriber) {
    int *starts = ctx;
    *starts += 1;
    sk_value v;
    if (*starts < 3) {
        CHECK(sk_value_set_string(&v, "connection reset"));
        printf("  start %d: fails\n", *starts);
        sk_subscriber_put_error(subscriber, &v);
        sk_value_release(&v);
    } else {
        sk_value_set_int64(&v, 42);
        printf("  start %d: answers\n", *starts);
        sk_subscriber_put_next(subscriber, &v);
        sk_subscriber_put_completion(subscriber);
    }
    return NULL; /* nothing to cancel: it answers synchronously */
}

static void print_value(void *ctx, const sk_value *value) {
    int64_t n;
    const char *text;
    if (sk_value_get_int64(value, &n) == SK_OK) {
        printf("%s: value %lld\n", (const char *)ctx, (long long)n);
    } else if (sk_value_get_string(value, &text, NULL) == SK_OK) {
        printf("%s: value \"%s\"\n", (const char *)ctx, text);
    }
}

static void print_error(void *ctx, const sk_value *error) {
    const char *text = "?";
    sk_value_get_string(error, &text, NULL);
    printf("%s: error \"%s\"\n", (const char *)ctx, text);
}

static void print_completed(void *ctx) {
    printf("%s: completed\n", (const char *)ctx);
}

/* catch: the error becomes a fallback signal. */
static sk_signal *fallback(void *ctx, const sk_value *error) {
    sk_value v;
    sk_signal *signal = NULL;
    (void)ctx;
    (void)error;
    CHECK(sk_value_set_string(&v, "cached answer"));
    CHECK(sk_signal_single(&signal, &v));
    sk_value_release(&v);
    return signal; /* handed to the library */
}

static void run(const char *name, sk_signal *signal) {
    sk_observer observer = { print_value, print_error, print_completed, (void *)name, NULL };
    CHECK(sk_signal_start(NULL, signal, &observer)); /* runs to its end synchronously */
}

int main(void) {
    int starts = 0;
    sk_signal *source, *restarted, *failing, *caught;
    CHECK(sk_signal_create(&source, flaky, &starts, NULL));

    printf("restart-if-error:\n");
    CHECK(sk_signal_restart_if_error(&restarted, source));
    run("restarted", restarted);

    printf("catch:\n");
    sk_value reason;
    CHECK(sk_value_set_string(&reason, "server down"));
    CHECK(sk_signal_fail(&failing, &reason));
    sk_value_release(&reason);
    CHECK(sk_signal_catch(&caught, failing, fallback, NULL, NULL));
    run("failing", failing);
    run("caught", caught);

    printf("misuse:\n");
    sk_signal *out = NULL;
    int status = sk_signal_map(&out, source, NULL, NULL, NULL);
    printf("  map with a NULL function: %d (%s): %s\n", status, sk_status_string(status), sk_last_error_message());
    sk_value number;
    sk_value_set_int64(&number, 7);
    const char *text;
    status = sk_value_get_string(&number, &text, NULL);
    printf("  an int64 read as a string: %d (%s)\n", status, sk_status_string(status));
    status = sk_queue_host_drain(NULL, 0, NULL);
    printf("  draining a NULL queue: %d (%s)\n", status, sk_status_string(status));

    sk_signal_release(caught);
    sk_signal_release(failing);
    sk_signal_release(restarted);
    sk_signal_release(source);
    printf("live objects left: %ld\n", sk_live_objects());
    return 0;
}
