/*
 * threads.c - many producer threads, one orderly consumer.
 *
 * Four threads put numbers into one pipe at the same time. The pipeline keeps
 * the even ones, takes the first 1000 of them, hops onto a serial queue (so
 * the fold below never runs concurrently with itself) and sums them with
 * reduce-left, which emits the total when take completes. The main thread
 * waits for the total with sk_queue_sync: no sleeping, no locks of its own.
 *
 * Build: cc threads.c $(pkg-config --cflags --libs signalkit) -lpthread -o threads
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#include <signalkit.h>

#define PRODUCERS 4
#define PER_PRODUCER 2000
#define TAKE 1000

#define CHECK(call)                                                            \
    do {                                                                       \
        int status_ = (call);                                                  \
        if (status_ != SK_OK) {                                                \
            fprintf(stderr, "%s failed: %s (%s)\n", #call,                      \
                    sk_status_string(status_), sk_last_error_message());       \
            exit(1);                                                           \
        }                                                                      \
    } while (0)

static sk_pipe *numbers;

static void *produce(void *arg) {
    (void)arg;
    for (int64_t i = 0; i < PER_PRODUCER; i++) {
        sk_value v;
        sk_value_set_int64(&v, 2); /* every producer puts 2, 1, 2, 1, ... */
        if (i % 2 == 1) {
            sk_value_set_int64(&v, 1);
        }
        CHECK(sk_pipe_put(numbers, &v));
    }
    return NULL;
}

static bool is_even(void *ctx, const sk_value *value) {
    int64_t n = 0;
    (void)ctx;
    sk_value_get_int64(value, &n);
    return n % 2 == 0;
}

static void add(void *ctx, const sk_value *sum, const sk_value *value, sk_value *out) {
    int64_t a = 0, b = 0;
    (void)ctx;
    sk_value_get_int64(sum, &a);
    sk_value_get_int64(value, &b);
    sk_value_set_int64(out, a + b);
}

static int64_t total = -1; /* written on the serial queue, read after a sync */

static void store_total(void *ctx, const sk_value *value) {
    (void)ctx;
    sk_value_get_int64(value, &total);
}

static void nothing(void *ctx) {
    (void)ctx;
}

int main(void) {
    sk_queue *serial;
    CHECK(sk_queue_create(&serial, "sum"));
    CHECK(sk_pipe_create(&numbers, false));

    sk_signal *source, *even, *first, *hopped, *sum;
    sk_value zero;
    sk_value_set_int64(&zero, 0);
    CHECK(sk_pipe_signal(&source, numbers));
    CHECK(sk_signal_filter(&even, source, is_even, NULL, NULL));
    CHECK(sk_signal_take(&first, even, TAKE));
    CHECK(sk_signal_deliver_on(&hopped, first, serial));
    CHECK(sk_signal_reduce_left(&sum, hopped, &zero, add, NULL, NULL));

    sk_observer observer = { store_total, NULL, NULL, NULL, NULL };
    sk_disposable *subscription;
    CHECK(sk_signal_start(&subscription, sum, &observer));

    pthread_t threads[PRODUCERS];
    for (int i = 0; i < PRODUCERS; i++) {
        pthread_create(&threads[i], NULL, produce, NULL);
    }
    for (int i = 0; i < PRODUCERS; i++) {
        pthread_join(threads[i], NULL);
    }
    /* Every value was put; the hops onto the queue are in its line ahead of
     * this no-op, so once it ran, the total is in. */
    CHECK(sk_queue_sync(serial, nothing, NULL, NULL));
    printf("%d threads put %d numbers; the first %d even ones sum to %lld\n", PRODUCERS,
           PRODUCERS * PER_PRODUCER, TAKE, (long long)total);

    sk_disposable_dispose(subscription);
    sk_disposable_release(subscription);
    sk_signal_release(sum);
    sk_signal_release(hopped);
    sk_signal_release(first);
    sk_signal_release(even);
    sk_signal_release(source);
    sk_pipe_release(numbers);
    sk_queue_release(serial);
    printf("live objects left: %ld\n", sk_live_objects());
    return total == 2 * TAKE ? 0 : 1;
}
