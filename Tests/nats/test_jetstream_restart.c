/* test_jetstream_restart.c - the server SIGKILLed and restarted (same
 * port, same JetStream folder) while 100,000 messages are published with
 * sk_nats_js_publish() and consumed with sk_nats_js_consume(): every
 * acknowledged message is delivered at least once, none is lost; the
 * duplicates are counted and printed. NATS_JS_RESTART_COUNT changes the
 * count. */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "js_tally.h"

static double seconds_now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

typedef struct producing {
    sk_signal *published;
    recorder acks;
    sk_disposable *disposable;
} producing;

/* Starts the publishing on a thread of its own: the source emits on the
 * starting thread, which waits for room in the window. */
static void *produce(void *arg) {
    producing *p = arg;
    sk_observer observer = recorder_observer(&p->acks);
    cr_assert_eq(sk_signal_start(&p->disposable, p->published, &observer), SK_OK);
    return NULL;
}

Test(nats_jetstream_restart, killed_and_restarted_mid_stream_loses_nothing, .timeout = 180) {
    const char *text = getenv("NATS_JS_RESTART_COUNT");
    long count = text != NULL && strtol(text, NULL, 10) > 0 ? strtol(text, NULL, 10) : 100000;
    nats_server server;
    nats_server_start(&server);
    natsConnection *producer = nats_connect_reconnecting(&server);
    natsConnection *consumer = nats_connect_reconnecting(&server);
    jsCtx *js = nats_js(consumer);
    nats_add_stream(js, "KR", "kr.>");
    /* AckWait 2 s: what was fetched and not acknowledged when the server
     * died comes again 2 s later. */
    nats_add_consumer(js, "KR", "survivor", "kr.>", 2.0, 1000);

    tally t;
    tally_init(&t, count);
    sk_signal *consuming = NULL;
    cr_assert_eq(sk_nats_js_consume(&consuming, consumer, NULL, "KR", "survivor", "kr.>", SK_NATS_PAYLOAD,
                                    SK_NATS_ACK_AFTER_NEXT, NULL, 512),
                 SK_OK, "%s", sk_nats_last_error_message());
    sk_observer observer = tally_observer(&t);
    sk_disposable *consumed = NULL;
    cr_assert_eq(sk_signal_start(&consumed, consuming, &observer), SK_OK);

    producing p = { 0 };
    recorder_init(&p.acks);
    sk_signal *source = indexed_signal(count);
    cr_assert_eq(sk_nats_js_publish(&p.published, source, producer, NULL, "kr.readings", NULL, 256, 1.0, 60), SK_OK,
                 "%s", sk_nats_last_error_message());
    double began = seconds_now();
    pthread_t thread;
    cr_assert_eq(pthread_create(&thread, NULL, produce, &p), 0);

    /* Mid-stream: a third acknowledged and a tenth consumed. */
    cr_assert(recorder_wait(&p.acks, &p.acks.nexts, count / 3), "%ld acknowledged before the kill (%s)",
              recorder_get(&p.acks, &p.acks.nexts), p.acks.error);
    cr_assert(tally_wait(&t, &t.unique, count / 10), "%ld consumed before the kill", tally_get(&t, &t.unique));
    long acked_at_kill = recorder_get(&p.acks, &p.acks.nexts);
    long consumed_at_kill = tally_get(&t, &t.unique);
    double killed = seconds_now();
    nats_server_kill(&server);
    nats_server_restart(&server);
    double restarted = seconds_now();

    cr_assert(recorder_wait(&p.acks, &p.acks.completions, 1) || recorder_get(&p.acks, &p.acks.errors) > 0,
              "the publishing did not complete: %ld acknowledged", recorder_get(&p.acks, &p.acks.nexts));
    cr_assert_eq(recorder_get(&p.acks, &p.acks.errors), 0, "%s", p.acks.error);
    long acknowledged = recorder_get(&p.acks, &p.acks.nexts);
    cr_assert_eq(acknowledged, count, "every publish is acknowledged once");
    double all_acknowledged = seconds_now();
    bool all = tally_wait(&t, &t.unique, count);
    double all_consumed = seconds_now();
    long unique = tally_get(&t, &t.unique);
    printf("nats_jetstream_restart: %ld published, %ld acknowledged (%ld before the SIGKILL), %ld delivered at least "
           "once (%ld before it), %ld lost, %ld duplicates; restarted in %.2f s; all acknowledged after %.2f s, all "
           "delivered after %.2f s\n",
           count, acknowledged, acked_at_kill, unique, consumed_at_kill, count - unique, tally_get(&t, &t.duplicates),
           restarted - killed, all_acknowledged - began, all_consumed - began);
    cr_assert(all, "%ld of %ld acknowledged messages lost", count - unique, count);
    cr_assert_eq(tally_get(&t, &t.errors), 0, "%s", t.error);
    cr_assert_eq(tally_get(&t, &t.strange), 0);

    pthread_join(thread, NULL);
    sk_disposable_dispose(consumed);
    sk_disposable_release(consumed);
    sk_signal_release(consuming);
    cr_assert(tally_wait(&t, &t.releases, 1));
    sk_disposable_release(p.disposable);
    sk_signal_release(p.published);
    sk_signal_release(source);
    cr_assert(recorder_wait(&p.acks, &p.acks.releases, 1));
    recorder_destroy(&p.acks);
    tally_destroy(&t);
    jsCtx_Destroy(js);
    natsConnection_Destroy(producer);
    natsConnection_Destroy(consumer);
    nats_server_stop(&server);
}
