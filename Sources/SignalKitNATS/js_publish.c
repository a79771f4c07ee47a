/* js_publish.c - sk_nats_js_publish(): each value of a signal published to
 * JetStream, each acknowledgement awaited, a timeout retried with the same
 * message ID, at most `window` acknowledgements awaited at once; and
 * sk_nats_js_publish_bounded(): the same over sk_signal_deliver_on_bounded()
 * of the signal, so that a producer faster than the acknowledgements puts
 * into a bounded place with an overflow policy and returns, while a queue
 * publishes and waits for room in the window.
 *
 * A start (sk_nats__js_publish) makes its own jsCtx, whose asynchronous
 * publish handler (AckHandler) is the bridge's: libnats calls it once per
 * publish, with the server's acknowledgement, its error, or NATS_TIMEOUT
 * after the publish's MaxWait, always on the context's own delivery
 * thread. The handler is given the natsMsg it published; a table keyed by
 * that pointer (open addressing, `2 * window` slots at least) gives the
 * message's number and its attempts so far. A retry republishes the same
 * natsMsg (libnats takes it over again) with the same MsgId; after "no
 * responders" it waits 50 ms on the signal's queue first.
 *
 * The producing thread waits while `window` publishes are awaiting their
 * acknowledgement; libnats's own limit (MaxPending) is set above that, so
 * that its publish never stalls, not even a retry made from the handler
 * (whose message libnats still counts until the handler returns).
 *
 * A closed connection: libnats tells the outcome of a publish through the
 * context's reply subscription, which a close ends, so the publishes
 * awaited then would never end, nor would a producer waiting for room in
 * the window. From the first publish, a repeating timer on the
 * publisher's queue (the watch) looks at the connection every
 * SK_NATS__CLOSE_WATCH seconds; once it is closed while publishes are
 * awaited, the stream ends with an error and the watch takes the awaited
 * messages back from libnats (js_PublishAsyncGetPendingList: each message
 * is either returned there or given to the handler, never both). The watch
 * is stopped as soon as the stream has ended and nothing is awaited.
 *
 * Lifetimes. A start's context is counted: the dispose action's
 * reference, the upstream observer's, one per publish awaiting its
 * outcome, and the watch's until it is stopped. The last one destroys the
 * jsCtx (libnats allows it from inside its handler), so the context
 * outlives every call of the handler. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

#define SK_NATS__NO_RESPONDERS_DELAY 0.05 /* seconds before retrying after "no responders" */
#define SK_NATS__CLOSE_WATCH 0.25         /* seconds between looks at the connection while publishes are awaited */

typedef struct sk_nats__js_publisher {
    atomic_long references;
    sk_signal *signal;
    natsConnection *connection;
    sk_nats__js_options options;
    char *subject;
    char *id_prefix;
    size_t window;
    int64_t ack_milliseconds;
    unsigned attempts;
    sk_queue *queue; /* where retries after "no responders" wait */
} sk_nats__js_publisher;

typedef struct sk_nats__awaited {
    natsMsg *msg; /* NULL: a free slot */
    uint64_t number;
    unsigned attempts;
} sk_nats__awaited;

typedef struct sk_nats__js_publish {
    atomic_long references;
    sk_nats__js_publisher *publisher;
    sk_subscriber *subscriber;
    sk_disposable *upstream; /* a meta disposable */
    jsCtx *js;
    char *id_prefix;
    pthread_mutex_t mutex;
    pthread_cond_t changed;
    sk_nats__awaited *table; /* `mask + 1` slots */
    size_t mask;
    size_t awaiting;
    uint64_t published;
    bool upstream_done;
    bool ended;           /* a terminal event was put, or disposed: no more retries */
    bool watch_started;   /* the close watch was started (or refused) */
    sk_disposable *watch; /* the close watch's timer, until stopped */
} sk_nats__js_publish;

static void sk_nats__js_publisher_release(void *ctx) {
    sk_nats__js_publisher *g = ctx;
    if (atomic_fetch_sub(&g->references, 1) != 1) {
        return;
    }
    sk_signal_release(g->signal);
    sk_queue_release(g->queue);
    sk_nats__js_options_free(&g->options);
    free(g->subject);
    free(g->id_prefix);
    free(g);
}

static void sk_nats__js_publish_release(void *ctx) {
    sk_nats__js_publish *p = ctx;
    if (atomic_fetch_sub(&p->references, 1) != 1) {
        return;
    }
    jsCtx_Destroy(p->js);
    sk_disposable_release(p->upstream);
    sk_subscriber_release(p->subscriber);
    sk_nats__js_publisher_release(p->publisher);
    pthread_mutex_destroy(&p->mutex);
    pthread_cond_destroy(&p->changed);
    free(p->table);
    free(p->id_prefix);
    free(p);
}

/* The table (under the mutex) ------------------------------------------ */

static size_t sk_nats__slot_of(const sk_nats__js_publish *p, const natsMsg *msg) {
    uint64_t key = (uint64_t)(uintptr_t)msg;
    key ^= key >> 17;
    key *= UINT64_C(0x9e3779b97f4a7c15);
    return (size_t)(key >> 29) & p->mask;
}

static sk_nats__awaited *sk_nats__find(sk_nats__js_publish *p, const natsMsg *msg) {
    for (size_t i = sk_nats__slot_of(p, msg);; i = (i + 1) & p->mask) {
        if (p->table[i].msg == msg || p->table[i].msg == NULL) {
            return p->table[i].msg == msg ? &p->table[i] : NULL;
        }
    }
}

static void sk_nats__insert(sk_nats__js_publish *p, natsMsg *msg, uint64_t number) {
    size_t i = sk_nats__slot_of(p, msg);
    while (p->table[i].msg != NULL) {
        i = (i + 1) & p->mask;
    }
    p->table[i] = (sk_nats__awaited){ msg, number, 1 };
}

/* Removes `slot`, moving back the entries after it that it kept from
 * their home slot (linear probing without tombstones). */
static void sk_nats__remove(sk_nats__js_publish *p, sk_nats__awaited *slot) {
    size_t hole = (size_t)(slot - p->table);
    p->table[hole].msg = NULL;
    for (size_t i = (hole + 1) & p->mask; p->table[i].msg != NULL; i = (i + 1) & p->mask) {
        size_t home = sk_nats__slot_of(p, p->table[i].msg);
        /* Move it when its home is not within (hole, i] cyclically. */
        bool stays = hole <= i ? (home > hole && home <= i) : (home > hole || home <= i);
        if (!stays) {
            p->table[hole] = p->table[i];
            p->table[i].msg = NULL;
            hole = i;
        }
    }
}

/* Ending ---------------------------------------------------------------- */

static void sk_nats__watch_stop_if_done(sk_nats__js_publish *p);

/* Ends the stream with `text` (once) and disposes the upstream. */
static void sk_nats__js_fail(sk_nats__js_publish *p, const char *format, ...) __attribute__((format(printf, 2, 3)));
static void sk_nats__js_fail(sk_nats__js_publish *p, const char *format, ...) {
    pthread_mutex_lock(&p->mutex);
    bool first = !p->ended;
    p->ended = true;
    pthread_cond_broadcast(&p->changed);
    pthread_mutex_unlock(&p->mutex);
    if (!first) {
        return;
    }
    char text[512];
    va_list args;
    va_start(args, format);
    vsnprintf(text, sizeof text, format, args);
    va_end(args);
    sk_nats__put_error(p->subscriber, "%s", text);
    sk_disposable_dispose(p->upstream);
    sk_nats__watch_stop_if_done(p);
}

/* One publish is over (acknowledged, failed, or given up after the end):
 * removes it, completes when it was the last after the upstream's
 * completion, and drops its reference. */
static void sk_nats__js_done(sk_nats__js_publish *p, natsMsg *msg) {
    pthread_mutex_lock(&p->mutex);
    sk_nats__awaited *slot = sk_nats__find(p, msg);
    if (slot != NULL) {
        sk_nats__remove(p, slot);
    }
    p->awaiting--;
    bool complete = p->awaiting == 0 && p->upstream_done && !p->ended;
    if (complete) {
        p->ended = true;
    }
    pthread_cond_broadcast(&p->changed);
    pthread_mutex_unlock(&p->mutex);
    natsMsg_Destroy(msg);
    if (complete) {
        (void)sk_subscriber_put_completion(p->subscriber);
    }
    sk_nats__watch_stop_if_done(p);
    sk_nats__js_publish_release(p);
}

/* Publishing ------------------------------------------------------------ */

static natsStatus sk_nats__js_send(sk_nats__js_publish *p, natsMsg **msg, uint64_t number) {
    char id[320];
    snprintf(id, sizeof id, "%s.%llu", p->id_prefix, (unsigned long long)number);
    jsPubOptions options;
    jsPubOptions_Init(&options);
    options.MaxWait = p->publisher->ack_milliseconds;
    options.MsgId = id;
    return js_PublishMsgAsync(p->js, msg, &options);
}

/* sk_nats__words for a publish's `status`: a connection made with
 * RetryOnFailedConnect that has not reached a server yet makes libnats
 * refuse with "Not Supported By Server" (it has no server's answer to know
 * that headers, which JetStream needs, are supported): said in words. */
static void sk_nats__js_words(const sk_nats__js_publish *p, char *words, size_t size, natsStatus status) {
    if (status == NATS_NO_SERVER_SUPPORT) {
        natsConnStatus state = natsConnection_Status(p->publisher->connection);
        if (state == NATS_CONN_STATUS_CONNECTING || state == NATS_CONN_STATUS_RECONNECTING) {
            snprintf(words, size, "the connection has not reached a server yet, and a JetStream publish needs "
                                  "its answer (nats: %s)", natsStatus_GetText(status));
            return;
        }
    }
    sk_nats__words(words, size, status);
}

typedef struct sk_nats__retry {
    sk_nats__js_publish *publish;
    natsMsg *msg;
    uint64_t number;
    bool ran;
} sk_nats__retry;

static void sk_nats__retry_run(void *ctx) {
    sk_nats__retry *r = ctx;
    sk_nats__js_publish *p = r->publish;
    r->ran = true;
    pthread_mutex_lock(&p->mutex);
    bool ended = p->ended;
    pthread_mutex_unlock(&p->mutex);
    if (ended) {
        sk_nats__js_done(p, r->msg);
        return;
    }
    natsMsg *msg = r->msg;
    natsStatus status = sk_nats__js_send(p, &msg, r->number);
    if (status != NATS_OK) {
        char words[256];
        sk_nats__js_words(p, words, sizeof words, status);
        sk_nats__js_fail(p, "sk_nats_js_publish: cannot publish message %llu to '%s' again (%s)",
                         (unsigned long long)r->number, p->publisher->subject, words);
        sk_nats__js_done(p, r->msg);
    }
}

static void sk_nats__retry_release(void *ctx) {
    sk_nats__retry *r = ctx;
    if (!r->ran) { /* the queue dropped it */
        sk_nats__js_fail(r->publish, "sk_nats_js_publish: the queue refused a retry of message %llu to '%s'",
                         (unsigned long long)r->number, r->publish->publisher->subject);
        sk_nats__js_done(r->publish, r->msg);
    }
    free(r);
}

/* libnats's AckHandler: once per publish, on the context's delivery
 * thread. `msg` is the caller's to destroy or republish. */
static void sk_nats__on_ack(jsCtx *js, natsMsg *msg, jsPubAck *ack, jsPubAckErr *error, void *closure) {
    sk_nats__js_publish *p = closure;
    sk_nats__js_publisher *g = p->publisher;
    (void)js;
    pthread_mutex_lock(&p->mutex);
    sk_nats__awaited *slot = sk_nats__find(p, msg);
    bool ended = p->ended;
    uint64_t number = slot != NULL ? slot->number : 0;
    bool retry = !ended && ack == NULL && slot != NULL && slot->attempts < g->attempts && error != NULL &&
                 (error->Err == NATS_TIMEOUT || error->Err == NATS_NO_RESPONDERS);
    unsigned attempts = slot != NULL ? slot->attempts : 0;
    if (retry) {
        slot->attempts++;
    }
    pthread_mutex_unlock(&p->mutex);
    if (slot == NULL) {
        natsMsg_Destroy(msg); /* not ours: cannot happen */
        return;
    }
    if (ack != NULL) {
        if (!ended) {
            sk_value sequence;
            sk_value_set_int64(&sequence, (int64_t)ack->Sequence);
            (void)sk_subscriber_put_next(p->subscriber, &sequence);
        }
        sk_nats__js_done(p, msg);
        return;
    }
    if (retry && error->Err == NATS_NO_RESPONDERS) {
        sk_nats__retry *r = calloc(1, sizeof *r);
        if (r != NULL) {
            *r = (sk_nats__retry){ p, msg, number, false };
            (void)sk_queue_after(g->queue, SK_NATS__NO_RESPONDERS_DELAY, sk_nats__retry_run, r, sk_nats__retry_release);
            return;
        }
        retry = false;
    }
    natsStatus status = NATS_OK;
    if (retry) {
        natsMsg *again = msg;
        status = sk_nats__js_send(p, &again, number);
        if (status == NATS_OK) {
            return; /* libnats has it again */
        }
    }
    if (!ended) {
        char words[256];
        if (status != NATS_OK) {
            sk_nats__js_words(p, words, sizeof words, status);
            sk_nats__js_fail(p, "sk_nats_js_publish: cannot publish message %llu to '%s' again (%s)",
                             (unsigned long long)number, g->subject, words);
        } else {
            natsStatus why = error != NULL ? error->Err : NATS_ERR;
            const char *text = error != NULL && error->ErrText != NULL ? error->ErrText : "";
            if (text[0] != '\0' && strcmp(text, natsStatus_GetText(why)) != 0) {
                snprintf(words, sizeof words, "nats: %s: %s", natsStatus_GetText(why), text);
            } else {
                snprintf(words, sizeof words, "nats: %s", natsStatus_GetText(why));
            }
            sk_nats__js_fail(p, "sk_nats_js_publish: message %llu to '%s' was not acknowledged after %u attempt%s (%s)",
                             (unsigned long long)number, g->subject, attempts, attempts == 1 ? "" : "s", words);
        }
    }
    sk_nats__js_done(p, msg);
}

/* The close watch -------------------------------------------------------- */

/* Stops the watch once the stream has ended and no publish is awaited
 * (its timer's release then drops the watch's reference). */
static void sk_nats__watch_stop_if_done(sk_nats__js_publish *p) {
    pthread_mutex_lock(&p->mutex);
    sk_disposable *watch = NULL;
    if (p->ended && p->awaiting == 0) {
        watch = p->watch;
        p->watch = NULL;
    }
    pthread_mutex_unlock(&p->mutex);
    if (watch != NULL) {
        sk_disposable_dispose(watch);
        sk_disposable_release(watch);
    }
}

/* One look at the connection: closed while publishes are awaited, the
 * stream ends and the awaited messages are taken back from libnats. */
static void sk_nats__watch_tick(void *ctx) {
    sk_nats__js_publish *p = ctx;
    pthread_mutex_lock(&p->mutex);
    size_t awaited = p->awaiting;
    pthread_mutex_unlock(&p->mutex);
    if (awaited > 0 && natsConnection_Status(p->publisher->connection) == NATS_CONN_STATUS_CLOSED) {
        sk_nats__js_fail(p, "sk_nats_js_publish: the connection was closed while %zu message%s to '%s' awaited "
                            "%s acknowledgement (nats: %s)",
                         awaited, awaited == 1 ? "" : "s", p->publisher->subject, awaited == 1 ? "its" : "their",
                         natsStatus_GetText(NATS_CONNECTION_CLOSED));
        natsMsgList pending = { NULL, 0 };
        if (js_PublishAsyncGetPendingList(&pending, p->js) == NATS_OK) {
            for (int i = 0; i < pending.Count; i++) {
                natsMsg *msg = pending.Msgs[i];
                pending.Msgs[i] = NULL;
                sk_nats__js_done(p, msg);
            }
            natsMsgList_Destroy(&pending);
        }
    }
    sk_nats__watch_stop_if_done(p);
}

/* Starts the watch (once, at the first publish) with a reference of its
 * own; a refused timer leaves the watch off. */
static void sk_nats__watch_start(sk_nats__js_publish *p) {
    atomic_fetch_add(&p->references, 1);
    sk_disposable *watch = NULL;
    if (sk_timer_start(&watch, p->publisher->queue, SK_NATS__CLOSE_WATCH, true, sk_nats__watch_tick, p,
                       sk_nats__js_publish_release) != SK_OK) {
        return; /* its release dropped the reference */
    }
    pthread_mutex_lock(&p->mutex);
    p->watch = watch;
    pthread_mutex_unlock(&p->mutex);
    sk_nats__watch_stop_if_done(p); /* the stream may have ended meanwhile */
}

/* The upstream's observer ------------------------------------------------ */

static void sk_nats__js_next(void *ctx, const sk_value *value) {
    sk_nats__js_publish *p = ctx;
    sk_nats__js_publisher *g = p->publisher;
    const void *data = NULL;
    const char *text = NULL;
    size_t length = 0;
    sk_kind kind = sk_value_kind(value);
    int got = kind == SK_KIND_STRING  ? sk_value_get_string(value, &text, &length)
              : kind == SK_KIND_BYTES ? sk_value_get_bytes(value, &data, &length)
                                      : SK_ERR_WRONG_KIND;
    if (text != NULL) {
        data = text;
    }
    if (got != SK_OK) {
        sk_nats__js_fail(p, "sk_nats_js_publish: cannot publish a value of kind %s to '%s': give a string or bytes",
                         sk_nats__kind_name(kind), g->subject);
        return;
    }
    natsMsg *msg = NULL;
    natsStatus status = length > INT32_MAX ? NATS_MAX_PAYLOAD
                                           : natsMsg_Create(&msg, g->subject, NULL, data, (int)length);
    pthread_mutex_lock(&p->mutex);
    while (!p->ended && p->awaiting >= g->window) {
        pthread_cond_wait(&p->changed, &p->mutex);
    }
    if (p->ended) {
        pthread_mutex_unlock(&p->mutex);
        natsMsg_Destroy(msg);
        return;
    }
    uint64_t number = ++p->published;
    bool watch = false;
    if (status == NATS_OK) {
        p->awaiting++;
        atomic_fetch_add(&p->references, 1);
        sk_nats__insert(p, msg, number); /* before the publish: its handler may run first */
        watch = !p->watch_started;
        p->watch_started = true;
    }
    pthread_mutex_unlock(&p->mutex);
    if (watch) {
        sk_nats__watch_start(p);
    }
    if (status == NATS_OK) {
        natsMsg *sent = msg;
        status = sk_nats__js_send(p, &sent, number);
        if (status != NATS_OK) {
            char words[256];
            sk_nats__js_words(p, words, sizeof words, status);
            sk_nats__js_fail(p, "sk_nats_js_publish: cannot publish message %llu to '%s' (%s)",
                             (unsigned long long)number, g->subject, words);
            sk_nats__js_done(p, msg); /* still ours: libnats did not take it */
        }
        return;
    }
    char words[256];
    sk_nats__words(words, sizeof words, status);
    sk_nats__js_fail(p, "sk_nats_js_publish: cannot publish message %llu (%zu bytes) to '%s' (%s)",
                     (unsigned long long)number, length, g->subject, words);
}

static void sk_nats__js_error(void *ctx, const sk_value *error) {
    sk_nats__js_publish *p = ctx;
    pthread_mutex_lock(&p->mutex);
    bool first = !p->ended;
    p->ended = true;
    pthread_cond_broadcast(&p->changed);
    pthread_mutex_unlock(&p->mutex);
    if (first) {
        (void)sk_subscriber_put_error(p->subscriber, error);
    }
    sk_nats__watch_stop_if_done(p);
}

static void sk_nats__js_completed(void *ctx) {
    sk_nats__js_publish *p = ctx;
    pthread_mutex_lock(&p->mutex);
    p->upstream_done = true;
    bool complete = p->awaiting == 0 && !p->ended;
    if (complete) {
        p->ended = true;
    }
    pthread_mutex_unlock(&p->mutex);
    if (complete) {
        (void)sk_subscriber_put_completion(p->subscriber);
    }
    sk_nats__watch_stop_if_done(p);
}

static void sk_nats__js_dispose(void *ctx) {
    sk_nats__js_publish *p = ctx;
    pthread_mutex_lock(&p->mutex);
    p->ended = true;
    pthread_cond_broadcast(&p->changed);
    pthread_mutex_unlock(&p->mutex);
    sk_disposable_dispose(p->upstream);
    sk_nats__watch_stop_if_done(p);
}

static sk_disposable *sk_nats__js_publish_start(void *ctx, sk_subscriber *subscriber) {
    sk_nats__js_publisher *g = ctx;
    sk_nats__js_publish *p = calloc(1, sizeof *p);
    size_t slots = 4;
    while (slots < 2 * g->window) {
        slots *= 2;
    }
    sk_nats__awaited *table = p != NULL ? calloc(slots, sizeof *table) : NULL;
    bool failed = table == NULL;
    char *id_prefix = NULL;
    if (!failed && g->id_prefix != NULL) {
        id_prefix = sk_nats__strdup(g->id_prefix, &failed);
    } else if (!failed) {
        natsInbox *inbox = NULL; /* "_INBOX.<a NUID>": the NUID names this start */
        failed = natsInbox_Create(&inbox) != NATS_OK;
        if (!failed) {
            const char *nuid = strchr(inbox, '.');
            id_prefix = sk_nats__strdup(nuid != NULL ? nuid + 1 : inbox, &failed);
        }
        natsInbox_Destroy(inbox);
    }
    sk_disposable *upstream = NULL;
    if (!failed && sk_disposable_meta(&upstream) != SK_OK) {
        failed = true;
    }
    if (failed) {
        free(table);
        free(id_prefix);
        free(p);
        sk_disposable_release(upstream);
        sk_nats__put_error(subscriber, "sk_nats_js_publish: out of memory for a subscription publishing to '%s'",
                           g->subject);
        return NULL;
    }
    atomic_init(&p->references, 2); /* the dispose action's and the upstream observer's */
    atomic_fetch_add(&g->references, 1);
    p->publisher = g;
    p->subscriber = sk_subscriber_retain(subscriber);
    p->upstream = upstream;
    p->table = table;
    p->mask = slots - 1;
    p->id_prefix = id_prefix;
    pthread_mutex_init(&p->mutex, NULL);
    pthread_cond_init(&p->changed, NULL);
    jsOptions options;
    sk_nats__js_options_apply(&g->options, &options);
    options.PublishAsync.AckHandler = sk_nats__on_ack;
    options.PublishAsync.AckHandlerClosure = p;
    options.PublishAsync.MaxPending = (int64_t)g->window + 1; /* never reached: see the file's comment */
    natsStatus status = natsConnection_JetStream(&p->js, g->connection, &options);
    if (status != NATS_OK) {
        char words[256];
        sk_nats__words(words, sizeof words, status);
        sk_nats__put_error(subscriber, "sk_nats_js_publish: cannot make a JetStream context to publish to '%s' (%s)",
                           g->subject, words);
        sk_nats__js_publish_release(p);
        sk_nats__js_publish_release(p);
        return NULL;
    }
    sk_disposable *disposable = NULL;
    if (sk_disposable_action(&disposable, sk_nats__js_dispose, p, sk_nats__js_publish_release) != SK_OK) {
        disposable = NULL; /* its release ran */
    }
    sk_observer observer = { sk_nats__js_next, sk_nats__js_error, sk_nats__js_completed, p, sk_nats__js_publish_release };
    sk_disposable *started = NULL;
    int started_status = sk_signal_start(&started, g->signal, &observer);
    if (started_status == SK_OK) {
        (void)sk_disposable_meta_set(p->upstream, started);
        sk_disposable_release(started);
    } else {
        sk_nats__js_fail(p, "sk_nats_js_publish: cannot start the signal to publish to '%s': %s", g->subject,
                         sk_last_error_message());
    }
    return disposable;
}

/* The checks of sk_nats_js_publish()'s arguments, in `function`'s name:
 * SK_OK, or the status with the last error set. */
static int sk_nats__js_publish_check(const char *function, sk_signal **out, sk_signal *signal,
                                     natsConnection *connection, const char *subject, size_t window,
                                     double ack_wait, unsigned attempts) {
    if (out != NULL) {
        *out = NULL;
    }
    const char *missing = out == NULL          ? "out"
                          : signal == NULL     ? "signal"
                          : connection == NULL ? "connection"
                          : subject == NULL    ? "subject"
                                               : NULL;
    if (missing != NULL) {
        return sk_nats__fail(SK_ERR_NULL_ARGUMENT, "%s: %s is NULL", function, missing);
    }
    int kind = sk_nats__check_signal(function, "signal", signal);
    if (kind != SK_OK) {
        return kind;
    }
    if (sk_nats__check_publish_subject(function, subject) != SK_OK) {
        return SK_ERR_INVALID_ARGUMENT;
    }
    if (sk_nats__milliseconds(ack_wait) < 0) {
        return sk_nats__fail(SK_ERR_INVALID_ARGUMENT, "%s: ack_wait %g is not a duration > 0 s and <= 2^31 ms",
                             function, ack_wait);
    }
    if (window == 0 || window > SIZE_MAX / 4) {
        return sk_nats__fail(SK_ERR_INVALID_ARGUMENT, "%s: window %zu is not >= 1", function, window);
    }
    if (attempts == 0) {
        return sk_nats__fail(SK_ERR_INVALID_ARGUMENT, "%s: attempts is 0", function);
    }
    return SK_OK;
}

/* sk_nats_js_publish() over `signal`, its arguments checked. */
static int sk_nats__js_publish_make(const char *function, sk_signal **out, sk_signal *signal,
                                    natsConnection *connection, const jsOptions *options, const char *subject,
                                    const char *id_prefix, size_t window, double ack_wait, unsigned attempts) {
    sk_nats__js_publisher *g = calloc(1, sizeof *g);
    bool failed = g == NULL;
    if (!failed) {
        g->subject = sk_nats__strdup(subject, &failed);
        g->id_prefix = sk_nats__strdup(id_prefix, &failed);
        failed = !sk_nats__js_options_copy(&g->options, options) || failed;
    }
    if (failed) {
        if (g != NULL) {
            sk_nats__js_options_free(&g->options);
            free(g->subject);
            free(g->id_prefix);
            free(g);
        }
        return sk_nats__fail(SK_ERR_NO_MEMORY, "%s: out of memory for the copies of the names", function);
    }
    atomic_init(&g->references, 1);
    g->connection = connection;
    g->window = window;
    g->ack_milliseconds = sk_nats__milliseconds(ack_wait);
    g->attempts = attempts;
    int status = sk_queue_create(&g->queue, "sk_nats_js_publish");
    if (status != SK_OK) {
        status = sk_nats__fail_core(status, function);
        sk_nats__js_publisher_release(g);
        return status;
    }
    g->signal = sk_signal_retain(signal);
    status = sk_signal_create(out, sk_nats__js_publish_start, g, sk_nats__js_publisher_release);
    if (status != SK_OK) {
        sk_nats__js_publisher_release(g);
        return sk_nats__fail_core(status, function);
    }
    return SK_OK;
}

SK_NATS_EXPORT int sk_nats_js_publish(sk_signal **out, sk_signal *signal, natsConnection *connection,
                                      const jsOptions *options, const char *subject, const char *id_prefix,
                                      size_t window, double ack_wait, unsigned attempts) {
    static const char function[] = "sk_nats_js_publish";
    int status = sk_nats__js_publish_check(function, out, signal, connection, subject, window, ack_wait, attempts);
    if (status != SK_OK) {
        return status;
    }
    return sk_nats__js_publish_make(function, out, signal, connection, options, subject, id_prefix, window, ack_wait,
                                    attempts);
}

SK_NATS_EXPORT int sk_nats_js_publish_bounded(sk_signal **out, sk_signal *signal, natsConnection *connection,
                                              const jsOptions *options, const char *subject, const char *id_prefix,
                                              size_t window, double ack_wait, unsigned attempts, sk_queue *queue,
                                              size_t capacity, sk_overflow overflow, sk_drop_fn on_drop, void *ctx,
                                              sk_release_fn release) {
    static const char function[] = "sk_nats_js_publish_bounded";
    int status = sk_nats__js_publish_check(function, out, signal, connection, subject, window, ack_wait, attempts);
    if (status != SK_OK) {
        if (release != NULL) {
            release(ctx);
        }
        return status;
    }
    sk_queue *own = NULL;
    if (queue == NULL) {
        status = sk_queue_create(&own, function);
        if (status != SK_OK) {
            status = sk_nats__fail_core(status, function);
            if (release != NULL) {
                release(ctx);
            }
            return status;
        }
        queue = own;
    }
    /* The bounded place holds `ctx` from here: its release runs `release`
     * once it is gone, also when a call below fails. */
    sk_signal *bounded = NULL;
    status = sk_signal_deliver_on_bounded(&bounded, signal, queue, capacity, overflow, on_drop, ctx, release);
    if (status != SK_OK) {
        status = sk_nats__fail_core(status, function);
    } else {
        status = sk_nats__js_publish_make(function, out, bounded, connection, options, subject, id_prefix, window,
                                          ack_wait, attempts);
    }
    sk_signal_release(bounded);
    sk_queue_release(own);
    return status;
}
