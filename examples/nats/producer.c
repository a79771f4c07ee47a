/*
 * producer.c - the NATS demonstration's producer: publishes readings
 * 1, 2, ..., N (as text) to JetStream's readings.temperature, each
 * acknowledged by the server before it counts (sk_nats_js_publish: at most
 * 64 awaited at once, each retried with the same message ID after 2 s
 * without its acknowledgement).
 *
 * Usage: producer URL N
 * Build: cc producer.c $(pkg-config --cflags --libs signalkit-nats) -o producer
 */
#include <inttypes.h>
#include <pthread.h>
#include <stdint.h>
#include <string.h>

#include "demo.h"

typedef struct {
    pthread_mutex_t mutex;
    pthread_cond_t ended;
    int64_t acknowledged;
    int done; /* 1 completed, -1 failed */
} progress;

/* The readings: a signal whose every start emits "1" ... "N", then completes
 * (on the starting thread, which sk_nats_js_publish makes wait while 64
 * acknowledgements are awaited). */
static sk_disposable *readings(void *ctx, sk_subscriber *subscriber) {
    int64_t count = *(const int64_t *)ctx;
    for (int64_t i = 1; i <= count; i++) {
        char text[32];
        sk_value value = { 0 };
        snprintf(text, sizeof text, "%" PRId64, i);
        if (sk_value_set_string(&value, text) != SK_OK) {
            break;
        }
        sk_subscriber_put_next(subscriber, &value);
        sk_value_release(&value);
    }
    sk_subscriber_put_completion(subscriber);
    return NULL;
}

static void acknowledged(void *ctx, const sk_value *sequence) {
    (void)sequence; /* the stream sequence the server stored the reading at */
    progress *p = ctx;
    pthread_mutex_lock(&p->mutex);
    p->acknowledged++;
    pthread_mutex_unlock(&p->mutex);
}

static void end(progress *p, int how) {
    pthread_mutex_lock(&p->mutex);
    p->done = how;
    pthread_cond_broadcast(&p->ended);
    pthread_mutex_unlock(&p->mutex);
}

static void failed(void *ctx, const sk_value *error) {
    const char *text = "(not a string)";
    size_t length = 0;
    sk_value_get_string(error, &text, &length);
    fprintf(stderr, "producer: %s\n", text);
    end(ctx, -1);
}

static void completed(void *ctx) {
    end(ctx, 1);
}

int main(int argc, char **argv) {
    if (argc != 3) {
        fprintf(stderr, "usage: %s URL N\n", argv[0]);
        return 2;
    }
    int64_t count = strtoll(argv[2], NULL, 10);
    natsConnection *connection = demo_connect(argv[1]);
    progress p = { PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, 0, 0 };

    sk_signal *source, *published;
    sk_disposable *subscription;
    DEMO_CHECK(sk_signal_create(&source, readings, &count, NULL));
    DEMO_CHECK(sk_nats_js_publish(&published, source, connection, NULL, DEMO_SUBJECT, NULL, 64, 2.0, 5));
    sk_observer observer = { acknowledged, failed, completed, &p, NULL };
    DEMO_CHECK(sk_signal_start(&subscription, published, &observer));

    pthread_mutex_lock(&p.mutex);
    while (p.done == 0) {
        pthread_cond_wait(&p.ended, &p.mutex);
    }
    pthread_mutex_unlock(&p.mutex);
    printf("producer: %" PRId64 " readings published, %" PRId64 " acknowledged\n", count, p.acknowledged);

    sk_disposable_dispose(subscription);
    sk_disposable_release(subscription);
    sk_signal_release(published);
    sk_signal_release(source);
    natsConnection_Destroy(connection);
    return p.done == 1 && p.acknowledged == count ? 0 : 1;
}
