/* test_js_publish_bounded.c - sk_nats_js_publish_bounded(): a producer
 * thread putting values as fast as it can, a window of 1 acknowledgement,
 * a bounded place of 4. DROP_NEWEST: every value either acknowledged
 * (stored in the stream, in order) or passed to on_drop, never both, all
 * of them accounted for, drops counted, the values waiting never beyond
 * the bound; ERROR: the library's overflow error. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nats_support.h"

enum { CAPACITY = 4, WINDOW = 1, HOLD = 100 };

/* What a run shares: the producer's count, the drops, the signal's events
 * (each acknowledgement a value). */
typedef struct lag {
    waiter released; /* the release of the signal's ctx */
    long count;      /* values the producer puts */
    long put;        /* atomic: counted before each put */
    waiter puts;     /* the producer's puts, for the work holding the queue */
    pthread_mutex_t mutex;
    bool *dropped;     /* by index */
    long drops;        /* on_drop's calls */
    long most_waiting; /* the most values put, not dropped, not acknowledged, at a drop */
    long count_wrong;  /* on_drop's counts that were not the number of its calls */
    long twice;        /* indexes dropped twice */
    recorder r;        /* the signal's values (acknowledgements), error, completion, release */
} lag;

static void lag_release(void *ctx) {
    lag *l = ctx;
    waiter_add(&l->released, 1);
}

static void lag_on_drop(void *ctx, const sk_value *value, uint64_t dropped) {
    lag *l = ctx;
    int64_t index = payload_index(value);
    /* Put, neither dropped nor acknowledged: in the place (at most
     * CAPACITY), taken out by the queue and publishing or waiting for room
     * in the window (1), published and not yet acknowledged (WINDOW). The
     * count of acknowledgements only grows: read late, it can only lower
     * this. */
    long waiting = __atomic_load_n(&l->put, __ATOMIC_SEQ_CST) - (long)dropped - recorder_get(&l->r, &l->r.nexts);
    pthread_mutex_lock(&l->mutex);
    l->drops++;
    l->count_wrong += (uint64_t)l->drops != dropped;
    if (index >= 0 && index < l->count) {
        l->twice += l->dropped[index];
        l->dropped[index] = true;
    }
    if (waiting > l->most_waiting) {
        l->most_waiting = waiting;
    }
    pthread_mutex_unlock(&l->mutex);
}

typedef struct producing {
    lag *lag;
    sk_pipe *pipe;
} producing;

static void *produce(void *arg) {
    producing *p = arg;
    for (long i = 0; i < p->lag->count; i++) {
        unsigned char bytes[8];
        for (int b = 0; b < 8; b++) {
            bytes[b] = (unsigned char)((uint64_t)i >> (56 - 8 * b));
        }
        sk_value value = { 0 };
        cr_assert_eq(sk_value_set_bytes(&value, bytes, sizeof bytes), SK_OK);
        __atomic_add_fetch(&p->lag->put, 1, __ATOMIC_SEQ_CST);
        cr_assert_eq(sk_pipe_put(p->pipe, &value), SK_OK);
        sk_value_release(&value);
        waiter_add(&p->lag->puts, 1);
    }
    cr_assert_eq(sk_pipe_put_completion(p->pipe), SK_OK);
    return NULL;
}

/* Work that holds the serial queue until the producer has put HOLD
 * values: the first ones find the place full however fast the machine
 * publishes; after it, the queue publishes as fast as the acknowledgements
 * come. */
static void hold_queue(void *ctx) {
    lag *l = ctx;
    cr_assert(waiter_wait(&l->puts, HOLD), "the producer put %ld values", waiter_get(&l->puts));
}

/* Starts a run of `count` values under `overflow` on `connection`, to the
 * stream of "lag.>", and waits for the producer's last put. */
static void run_lagging(lag *l, natsConnection *connection, const char *subject, long count, sk_overflow overflow,
                        sk_signal **signal_out) {
    memset(l, 0, sizeof *l);
    l->count = count;
    l->dropped = calloc((size_t)count, sizeof *l->dropped);
    pthread_mutex_init(&l->mutex, NULL);
    waiter_init(&l->released);
    waiter_init(&l->puts);
    recorder_init(&l->r);
    sk_queue *queue = NULL;
    cr_assert_eq(sk_queue_create(&queue, "test_js_publish_bounded"), SK_OK);
    sk_pipe *pipe = NULL;
    sk_signal *values = NULL, *signal = NULL;
    cr_assert_eq(sk_pipe_create(&pipe, false), SK_OK);
    cr_assert_eq(sk_pipe_signal(&values, pipe), SK_OK);
    cr_assert_eq(sk_nats_js_publish_bounded(&signal, values, connection, NULL, subject, NULL, WINDOW, 5.0, 3, queue,
                                            CAPACITY, overflow, lag_on_drop, l, lag_release),
                 SK_OK, "%s", sk_nats_last_error_message());
    sk_observer observer = recorder_observer(&l->r);
    cr_assert_eq(sk_signal_start(NULL, signal, &observer), SK_OK);
    cr_assert_eq(sk_queue_async(queue, hold_queue, l, NULL), SK_OK);
    producing p = { l, pipe };
    pthread_t producer;
    cr_assert_eq(pthread_create(&producer, NULL, produce, &p), 0);
    pthread_join(producer, NULL);
    sk_signal_release(values);
    sk_pipe_release(pipe);
    sk_queue_release(queue);
    *signal_out = signal;
}

Test(nats_js_publish_bounded, drop_newest_every_value_acknowledged_or_dropped, .timeout = 120) {
    enum { COUNT = 200000 };
    long live = sk_live_objects();
    nats_server server;
    nats_server_start(&server);
    natsConnection *connection = nats_connect(&server, 0);
    jsCtx *js = nats_js(connection);
    nats_add_stream(js, "LAG", "lag.>");
    static lag l;
    sk_signal *signal = NULL;
    run_lagging(&l, connection, "lag.drop", COUNT, SK_OVERFLOW_DROP_NEWEST, &signal);
    /* The completion comes once every value kept is acknowledged. */
    cr_assert(recorder_wait(&l.r, &l.r.completions, 1) || recorder_get(&l.r, &l.r.errors) > 0, "no completion");
    cr_assert_eq(recorder_get(&l.r, &l.r.errors), 0, "%s", l.r.error);
    long acknowledged = recorder_get(&l.r, &l.r.nexts);

    /* What the server stored: as many messages as acknowledgements, the
     * last acknowledgement its last sequence, each an index not dropped,
     * in the producer's order. */
    jsStreamInfo *info = NULL;
    jsErrCode code = 0;
    cr_assert_eq(js_GetStreamInfo(&info, js, "LAG", NULL, &code), NATS_OK);
    long stored = (long)info->State.Msgs;
    jsStreamInfo_Destroy(info);
    cr_assert_eq(stored, acknowledged);
    int64_t last = 0;
    cr_assert_eq(sk_value_get_int64(&l.r.last, &last), SK_OK);
    cr_assert_eq(last, stored);
    long both = 0, previous = -1, out_of_order = 0;
    for (uint64_t sequence = 1; sequence <= (uint64_t)stored; sequence++) {
        natsMsg *msg = NULL;
        cr_assert_eq(js_GetMsg(&msg, js, "LAG", sequence, NULL, &code), NATS_OK, "sequence %llu",
                     (unsigned long long)sequence);
        cr_assert_eq(natsMsg_GetDataLength(msg), 8);
        const unsigned char *bytes = (const unsigned char *)natsMsg_GetData(msg);
        long index = 0;
        for (int b = 0; b < 8; b++) {
            index = index << 8 | bytes[b];
        }
        natsMsg_Destroy(msg);
        cr_assert(index >= 0 && index < COUNT);
        both += l.dropped[index];
        out_of_order += index <= previous;
        previous = index;
    }
    pthread_mutex_lock(&l.mutex);
    long drops = l.drops, most = l.most_waiting, wrong = l.count_wrong, twice = l.twice;
    long marked = 0;
    for (long i = 0; i < COUNT; i++) {
        marked += l.dropped[i];
    }
    pthread_mutex_unlock(&l.mutex);
    cr_assert_eq(both, 0, "%ld values both acknowledged and dropped", both);
    cr_assert_eq(twice, 0);
    cr_assert_eq(out_of_order, 0);
    cr_assert_eq(marked, drops);
    cr_assert_eq(acknowledged + drops, COUNT, "%ld acknowledged + %ld dropped of %d", acknowledged, drops, COUNT);
    /* Held, the queue took nothing out of the place while HOLD were put. */
    cr_assert_geq(drops, HOLD - CAPACITY, "the place held more than its capacity");
    cr_assert_eq(wrong, 0, "on_drop's count is the number of drops so far");
    cr_assert_leq(most, CAPACITY + 1 + WINDOW, "%ld values waiting at a drop", most);
    printf("nats_js_publish_bounded::drop_newest: %d put as fast as possible, %ld acknowledged, %ld dropped, "
           "at most %ld waiting at a drop (bound %d)\n",
           COUNT, acknowledged, drops, most, CAPACITY + 1 + WINDOW);

    cr_assert(recorder_wait(&l.r, &l.r.releases, 1));
    sk_signal_release(signal);
    cr_assert(waiter_wait(&l.released, 1), "the release never ran");
    recorder_destroy(&l.r);
    waiter_destroy(&l.released);
    waiter_destroy(&l.puts);
    free(l.dropped);
    jsCtx_Destroy(js);
    natsConnection_Destroy(connection);
    nats_server_stop(&server);
    cr_assert_eq(nats_wait_live_objects(live), live);
}

Test(nats_js_publish_bounded, error_policy_fails_with_the_overflow_error, .timeout = 120) {
    enum { COUNT = 1000 };
    nats_server server;
    nats_server_start(&server);
    natsConnection *connection = nats_connect(&server, 0);
    jsCtx *js = nats_js(connection);
    nats_add_stream(js, "LAG", "lag.>");
    static lag l;
    sk_signal *signal = NULL;
    run_lagging(&l, connection, "lag.error", COUNT, SK_OVERFLOW_ERROR, &signal);
    cr_assert(recorder_wait(&l.r, &l.r.errors, 1), "no error");
    cr_assert_str_eq(l.r.error, "sk_signal_deliver_on_bounded: overflow: a value arrived with 4 values pending "
                                "(capacity 4, policy error)");
    printf("nats_js_publish_bounded: \"%s\"\n", l.r.error);
    cr_assert_eq(recorder_get(&l.r, &l.r.completions), 0);
    /* Held, the queue published nothing before the overflow: at most the
     * values waiting were published after it. */
    cr_assert_leq(recorder_get(&l.r, &l.r.nexts), CAPACITY);
    pthread_mutex_lock(&l.mutex);
    cr_assert_geq(l.drops, 1, "the value that overflowed goes to on_drop");
    pthread_mutex_unlock(&l.mutex);
    cr_assert(recorder_wait(&l.r, &l.r.releases, 1));
    sk_signal_release(signal);
    cr_assert(waiter_wait(&l.released, 1), "the release never ran");

    /* Refused arguments: the message, and the release run once. */
    sk_signal *never = NULL, *refused = NULL;
    cr_assert_eq(sk_signal_never(&never), SK_OK);
    waiter_destroy(&l.released);
    waiter_init(&l.released);
    cr_assert_eq(sk_nats_js_publish_bounded(&refused, never, connection, NULL, "lag.x", NULL, 1, 1.0, 1, NULL, 0,
                                            SK_OVERFLOW_DROP_NEWEST, NULL, &l, lag_release),
                 SK_ERR_INVALID_ARGUMENT);
    cr_assert_null(refused);
    cr_assert_str_eq(sk_nats_last_error_message(),
                     "sk_nats_js_publish_bounded: capacity is 0 (a bounded buffer holds at least one value)");
    cr_assert_eq(sk_nats_js_publish_bounded(&refused, never, connection, NULL, "lag.x", NULL, 0, 1.0, 1, NULL, 4,
                                            SK_OVERFLOW_DROP_NEWEST, NULL, &l, lag_release),
                 SK_ERR_INVALID_ARGUMENT);
    cr_assert_str_eq(sk_nats_last_error_message(), "sk_nats_js_publish_bounded: window 0 is not >= 1");
    cr_assert_eq(sk_nats_js_publish_bounded(&refused, NULL, connection, NULL, "lag.x", NULL, 1, 1.0, 1, NULL, 4,
                                            SK_OVERFLOW_DROP_NEWEST, NULL, &l, lag_release),
                 SK_ERR_NULL_ARGUMENT);
    cr_assert_str_eq(sk_nats_last_error_message(), "sk_nats_js_publish_bounded: signal is NULL");
    cr_assert_eq(waiter_get(&l.released), 3, "each refused call ran the release once");
    sk_signal_release(never);

    recorder_destroy(&l.r);
    waiter_destroy(&l.released);
    waiter_destroy(&l.puts);
    free(l.dropped);
    jsCtx_Destroy(js);
    natsConnection_Destroy(connection);
    nats_server_stop(&server);
}
