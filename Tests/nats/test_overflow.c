/* test_overflow.c - a slow consumer of sk_nats_subject_bounded() under each
 * overflow policy: the bounded place holds its capacity, each drop is
 * counted, and what is delivered is exactly what the policy keeps.
 *
 * The consumer blocks in its first value until the test lets it go; the
 * test publishes COUNT messages meanwhile and waits (on on_drop's count)
 * until the client's delivery thread has put them all: 1 delivered, CAPACITY
 * waiting, the rest dropped by the policy. Then it lets the consumer go,
 * waits for the CAPACITY values, and publishes a last message, which finds
 * the place empty and must arrive. */
#include <stdio.h>
#include <string.h>

#include "nats_support.h"

enum { COUNT = 1000, CAPACITY = 16 };

typedef struct slow {
    pthread_mutex_t mutex;
    int64_t delivered[COUNT + 2];
    long count;
    waiter values;      /* +1 per value delivered */
    waiter entered;     /* +1 when the first value's callback has begun */
    waiter gate;        /* the first value waits for 1 */
    waiter drops;       /* the latest count on_drop gave */
    waiter ended;       /* +1 on the error */
    waiter released;    /* +1 when the signal's release ran */
    uint64_t last_drop_count;
    long drop_calls;
    char error[512];
} slow;

static void slow_next(void *ctx, const sk_value *value) {
    slow *s = ctx;
    pthread_mutex_lock(&s->mutex);
    long n = s->count;
    if (n < COUNT + 2) {
        s->delivered[n] = payload_index(value);
    }
    s->count++;
    pthread_mutex_unlock(&s->mutex);
    if (n == 0) {
        waiter_add(&s->entered, 1);
        cr_assert(waiter_wait(&s->gate, 1), "the test never let the consumer go");
    }
    waiter_add(&s->values, 1);
}

static void slow_error(void *ctx, const sk_value *error) {
    slow *s = ctx;
    const char *text = "(not a string)";
    size_t length;
    sk_value_get_string(error, &text, &length);
    snprintf(s->error, sizeof s->error, "%s", text);
    waiter_add(&s->ended, 1);
}

static void slow_drop(void *ctx, const sk_value *value, uint64_t dropped) {
    slow *s = ctx;
    (void)value;
    pthread_mutex_lock(&s->mutex);
    s->drop_calls++;
    uint64_t previous = s->last_drop_count;
    s->last_drop_count = dropped;
    pthread_mutex_unlock(&s->mutex);
    cr_assert_eq(dropped, previous + 1, "on_drop's count is not one more than the last");
    waiter_add(&s->drops, 1);
}

static void slow_release(void *ctx) {
    waiter_add(&((slow *)ctx)->released, 1);
}

static void run_policy(sk_overflow overflow, const char *name) {
    long live = sk_live_objects();
    nats_server server;
    nats_server_start(&server);
    natsConnection *connection = nats_connect(&server, 0);
    static slow s; /* large: not on the test thread's stack */
    memset(&s, 0, sizeof s);
    pthread_mutex_init(&s.mutex, NULL);
    waiter_init(&s.values);
    waiter_init(&s.gate);
    waiter_init(&s.entered);
    waiter_init(&s.drops);
    waiter_init(&s.ended);
    waiter_init(&s.released);
    sk_signal *signal = NULL;
    cr_assert_eq(sk_nats_subject_bounded(&signal, connection, "slow.test", NULL, SK_NATS_PAYLOAD, NULL, CAPACITY,
                                         overflow, slow_drop, &s, slow_release),
                 SK_OK, "%s", sk_nats_last_error_message());
    sk_observer observer = { slow_next, slow_error, NULL, &s, NULL };
    sk_disposable *d = NULL;
    cr_assert_eq(sk_signal_start(&d, signal, &observer), SK_OK);
    cr_assert_eq(natsConnection_Flush(connection), NATS_OK);
    /* The first message first, until the consumer holds it: the place is
     * then empty, and the others fill it and overflow in a known way. */
    publish_index(connection, "slow.test", 0);
    cr_assert(waiter_wait(&s.entered, 1));
    for (int i = 1; i < COUNT; i++) {
        publish_index(connection, "slow.test", i);
    }
    cr_assert_eq(natsConnection_Flush(connection), NATS_OK);
    long dropped = COUNT - 1 - CAPACITY;
    if (overflow != SK_OVERFLOW_BLOCK) {
        /* Every message has been put: 1 delivered, CAPACITY waiting, the rest dropped. */
        cr_assert(waiter_wait(&s.drops, dropped), "%s: %ld drops of %ld", name, waiter_get(&s.drops), dropped);
        cr_assert_eq(waiter_get(&s.values), 0);
    }
    waiter_add(&s.gate, 1);
    if (overflow == SK_OVERFLOW_BLOCK) {
        cr_assert(waiter_wait(&s.values, COUNT), "%s: %ld of %d delivered", name, waiter_get(&s.values), COUNT);
        for (int i = 0; i < COUNT; i++) {
            cr_assert_eq(s.delivered[i], i, "%s: value %d is %lld", name, i, (long long)s.delivered[i]);
        }
        cr_assert_eq(waiter_get(&s.drops), 0);
        printf("nats_overflow::%s: %d delivered in order, 0 dropped (the client's thread waited)\n", name, COUNT);
    } else if (overflow == SK_OVERFLOW_ERROR) {
        cr_assert(waiter_wait(&s.ended, 1));
        cr_assert_eq(waiter_get(&s.values), 1 + CAPACITY, "%s: the values waiting come before the error", name);
        for (int i = 0; i <= CAPACITY; i++) {
            cr_assert_eq(s.delivered[i], i);
        }
        cr_assert(strstr(s.error, "overflow") != NULL && strstr(s.error, "capacity 16") != NULL, "%s: %s", name, s.error);
        cr_assert_eq(waiter_get(&s.drops), dropped);
        /* The error disposed the subscription: once the signal's release
         * ran (every libnats subscription of it over), nothing is
         * subscribed on the server. */
        sk_disposable_release(d);
        d = NULL;
        sk_signal_release(signal);
        signal = NULL;
        cr_assert(waiter_wait(&s.released, 1));
        cr_assert_eq(natsConnection_Flush(connection), NATS_OK);
        cr_assert_eq(nats_server_subscriptions(&server, "slow.test"), 0);
        printf("nats_overflow::%s: %d delivered, %ld dropped, then \"%s\"\n", name, 1 + CAPACITY, dropped, s.error);
    } else {
        cr_assert(waiter_wait(&s.values, 1 + CAPACITY));
        publish_index(connection, "slow.test", COUNT); /* finds the place empty */
        cr_assert(waiter_wait(&s.values, 2 + CAPACITY));
        int64_t expected[2 + CAPACITY];
        expected[0] = 0;
        for (int i = 1; i <= CAPACITY; i++) {
            expected[i] = overflow == SK_OVERFLOW_DROP_NEWEST   ? i
                          : overflow == SK_OVERFLOW_DROP_OLDEST ? COUNT - CAPACITY + i - 1
                          : i < CAPACITY                        ? i
                                                                : COUNT - 1; /* LATEST: the last slot replaced */
        }
        expected[1 + CAPACITY] = COUNT;
        pthread_mutex_lock(&s.mutex);
        cr_assert_eq(s.count, 2 + CAPACITY);
        for (int i = 0; i < 2 + CAPACITY; i++) {
            cr_assert_eq(s.delivered[i], expected[i], "%s: value %d is %lld, expected %lld", name, i,
                         (long long)s.delivered[i], (long long)expected[i]);
        }
        pthread_mutex_unlock(&s.mutex);
        cr_assert_eq(waiter_get(&s.drops), dropped);
        printf("nats_overflow::%s: %d delivered, %ld dropped (on_drop counted each), %d published\n", name,
               2 + CAPACITY, dropped, COUNT + 1);
    }
    cr_assert_eq(s.last_drop_count, (uint64_t)waiter_get(&s.drops));
    sk_disposable_dispose(d);
    sk_disposable_release(d);
    sk_signal_release(signal);
    cr_assert(waiter_wait(&s.released, 1), "%s: the signal's release never ran", name);
    cr_assert_eq(nats_wait_live_objects(live), live);
    natsConnection_Destroy(connection);
    nats_server_stop(&server);
}

Test(nats_overflow, drop_newest, .timeout = 120) {
    run_policy(SK_OVERFLOW_DROP_NEWEST, "drop_newest");
}

Test(nats_overflow, drop_oldest, .timeout = 120) {
    run_policy(SK_OVERFLOW_DROP_OLDEST, "drop_oldest");
}

Test(nats_overflow, latest, .timeout = 120) {
    run_policy(SK_OVERFLOW_LATEST, "latest");
}

Test(nats_overflow, error, .timeout = 120) {
    run_policy(SK_OVERFLOW_ERROR, "error");
}

Test(nats_overflow, block, .timeout = 120) {
    run_policy(SK_OVERFLOW_BLOCK, "block");
}

/* The client's own limit: a consumer that blocks the client's delivery
 * thread (sk_nats_subject(), no bounded place) with a pending limit of 100
 * messages gets the slow-consumer error, with the count of messages the
 * client dropped, instead of losing them silently. */
Test(nats_overflow, client_slow_consumer_is_an_error, .timeout = 120) {
    nats_server server;
    nats_server_start(&server);
    natsConnection *connection = nats_connect(&server, 100);
    static slow s;
    memset(&s, 0, sizeof s);
    pthread_mutex_init(&s.mutex, NULL);
    waiter_init(&s.values);
    waiter_init(&s.gate);
    waiter_init(&s.entered);
    waiter_init(&s.ended);
    sk_signal *signal = NULL;
    cr_assert_eq(sk_nats_subject(&signal, connection, "client.slow", NULL, SK_NATS_PAYLOAD), SK_OK);
    sk_observer observer = { slow_next, slow_error, NULL, &s, NULL };
    sk_disposable *d = NULL;
    cr_assert_eq(sk_signal_start(&d, signal, &observer), SK_OK);
    cr_assert_eq(natsConnection_Flush(connection), NATS_OK);
    publish_index(connection, "client.slow", 0);
    cr_assert(waiter_wait(&s.entered, 1));
    for (int i = 1; i < COUNT; i++) {
        publish_index(connection, "client.slow", i);
    }
    cr_assert_eq(natsConnection_Flush(connection), NATS_OK); /* the client has read them all: 899 dropped */
    waiter_add(&s.gate, 1);
    cr_assert(waiter_wait(&s.ended, 1));
    cr_assert(strstr(s.error, "slow consumer on 'client.slow'") != NULL && strstr(s.error, "Slow Consumer") != NULL,
              "%s", s.error);
    pthread_mutex_lock(&s.mutex);
    for (long i = 0; i < s.count; i++) {
        cr_assert_eq(s.delivered[i], i, "the values before the error are in order, none skipped");
    }
    long delivered = s.count;
    pthread_mutex_unlock(&s.mutex);
    /* Every message is delivered or counted in the error: those the client
     * dropped, and those it still held when the error ended the stream
     * (before, these went unseen and uncounted). */
    long long dropped = 0;
    int held = 0;
    const char *at = strstr(s.error, "dropped ");
    cr_assert(at != NULL && sscanf(at, "dropped %lld messages", &dropped) == 1, "%s", s.error);
    at = strstr(s.error, "lets go of the ");
    if (at != NULL) {
        cr_assert_eq(sscanf(at, "lets go of the %d", &held), 1, "%s", s.error);
    }
    cr_assert_eq(delivered + dropped + held, COUNT, "%ld delivered, %lld dropped, %d held: %s", delivered, dropped,
                 held, s.error);
    printf("nats_overflow::client_slow_consumer_is_an_error: %ld delivered, then \"%s\"\n", delivered, s.error);
    cr_assert_eq(natsConnection_Flush(connection), NATS_OK);
    cr_assert_eq(nats_server_subscriptions(&server, "client.slow"), 0);
    sk_disposable_release(d);
    sk_signal_release(signal);
    natsConnection_Destroy(connection);
    nats_server_stop(&server);
}
