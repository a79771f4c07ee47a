/*
 * consumer.c - the NATS demonstration's consumer: reads N readings from
 * JetStream's durable consumer "averager" (sk_nats_js_consume: at most 64
 * held between the server and this process, each acknowledged once it has
 * been handled), parses each, groups them in windows of W
 * (sk_signal_buffer_count), and keeps a running total and count over the
 * windows (sk_signal_scan). Each window prints its average and the running
 * total; the last line is the total of the N readings.
 *
 * Usage: consumer URL N W
 * Build: cc consumer.c $(pkg-config --cflags --libs signalkit-nats) -o consumer
 */
#include <inttypes.h>
#include <pthread.h>
#include <stdint.h>
#include <string.h>

#include "demo.h"

typedef struct {
    pthread_mutex_t mutex;
    pthread_cond_t ended;
    int64_t total, count, windows;
    int done; /* 1 completed, -1 failed */
} summary;

/* bytes "42" -> int64 42 */
static void parse(void *ctx, const sk_value *payload, sk_value *out) {
    (void)ctx;
    const void *data = NULL;
    size_t length = 0;
    char text[32] = { 0 };
    if (sk_value_get_bytes(payload, &data, &length) == SK_OK && length < sizeof text) {
        memcpy(text, data, length);
    }
    sk_value_set_int64(out, strtoll(text, NULL, 10));
}

/* [total, count] + a window of readings -> [total + sum, count + n] */
static void add_window(void *ctx, const sk_value *accumulator, const sk_value *window, sk_value *out) {
    (void)ctx;
    const sk_value *state = NULL, *items = NULL;
    size_t two = 0, n = 0;
    int64_t total = 0, count = 0, sum = 0;
    sk_value_get_array_items(accumulator, &state, &two);
    sk_value_get_int64(&state[0], &total);
    sk_value_get_int64(&state[1], &count);
    sk_value_get_array_items(window, &items, &n);
    for (size_t i = 0; i < n; i++) {
        int64_t reading = 0;
        sk_value_get_int64(&items[i], &reading);
        sum += reading;
    }
    sk_value next[2] = { { 0 }, { 0 } };
    sk_value_set_int64(&next[0], total + sum);
    sk_value_set_int64(&next[1], count + (int64_t)n);
    sk_value_set_array(out, next, 2);
}

static void window_done(void *ctx, const sk_value *state) {
    summary *s = ctx;
    const sk_value *items = NULL;
    size_t two = 0;
    int64_t total = 0, count = 0;
    sk_value_get_array_items(state, &items, &two);
    sk_value_get_int64(&items[0], &total);
    sk_value_get_int64(&items[1], &count);
    pthread_mutex_lock(&s->mutex);
    int64_t in_window = count - s->count;
    int64_t window_sum = total - s->total;
    s->windows++;
    s->total = total;
    s->count = count;
    printf("consumer: window %" PRId64 ": %" PRId64 " readings, average %.1f; running total %" PRId64 "\n",
           s->windows, in_window, in_window ? (double)window_sum / (double)in_window : 0.0, total);
    pthread_mutex_unlock(&s->mutex);
}

static void end(summary *s, int how) {
    pthread_mutex_lock(&s->mutex);
    s->done = how;
    pthread_cond_broadcast(&s->ended);
    pthread_mutex_unlock(&s->mutex);
}

static void failed(void *ctx, const sk_value *error) {
    const char *text = "(not a string)";
    size_t length = 0;
    sk_value_get_string(error, &text, &length);
    fprintf(stderr, "consumer: %s\n", text);
    end(ctx, -1);
}

static void completed(void *ctx) {
    end(ctx, 1);
}

int main(int argc, char **argv) {
    if (argc != 4) {
        fprintf(stderr, "usage: %s URL N W\n", argv[0]);
        return 2;
    }
    int64_t count = strtoll(argv[2], NULL, 10);
    size_t window = (size_t)strtoull(argv[3], NULL, 10);
    natsConnection *connection = demo_connect(argv[1]);
    summary s = { PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, 0, 0, 0, 0 };

    sk_signal *consumed, *parsed, *taken, *windows, *totals;
    sk_disposable *subscription;
    sk_value zero[2] = { { 0 }, { 0 } }, initial = { 0 };
    sk_value_set_int64(&zero[0], 0);
    sk_value_set_int64(&zero[1], 0);
    DEMO_CHECK(sk_value_set_array(&initial, zero, 2));
    DEMO_CHECK(sk_nats_js_consume(&consumed, connection, NULL, DEMO_STREAM, DEMO_DURABLE, DEMO_SUBJECT,
                                  SK_NATS_PAYLOAD, SK_NATS_ACK_AFTER_NEXT, NULL, 64));
    DEMO_CHECK(sk_signal_map(&parsed, consumed, parse, NULL, NULL));
    DEMO_CHECK(sk_signal_take(&taken, parsed, (size_t)count));
    DEMO_CHECK(sk_signal_buffer_count(&windows, taken, window));
    DEMO_CHECK(sk_signal_scan(&totals, windows, &initial, add_window, NULL, NULL));
    sk_value_release(&initial);
    sk_observer observer = { window_done, failed, completed, &s, NULL };
    DEMO_CHECK(sk_signal_start(&subscription, totals, &observer));

    pthread_mutex_lock(&s.mutex);
    while (s.done == 0) {
        pthread_cond_wait(&s.ended, &s.mutex);
    }
    pthread_mutex_unlock(&s.mutex);
    printf("consumer: %" PRId64 " readings in %" PRId64 " windows, total %" PRId64 "\n", s.count, s.windows, s.total);

    sk_disposable_dispose(subscription);
    sk_disposable_release(subscription);
    sk_signal_release(totals);
    sk_signal_release(windows);
    sk_signal_release(taken);
    sk_signal_release(parsed);
    sk_signal_release(consumed);
    natsConnection_Destroy(connection);
    return s.done == 1 ? 0 : 1;
}
