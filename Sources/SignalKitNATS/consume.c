/* consume.c - sk_nats_js_consume(): a JetStream pull consumer as a signal
 * that fetches only what its observer has room for; sk_nats_ack().
 *
 * A start (sk_nats__pull) has a thread of its own, the fetcher, and a
 * ring of `capacity` slots. `held` counts the messages between the server
 * and the observer: fetched, in the ring, being delivered, or (explicit
 * acknowledgements) in the observer's hands until acknowledged or let go.
 * The fetcher waits until half a batch fits (capacity - held), fetches at
 * most that room, puts the messages into the ring and, when no delivery
 * is scheduled, schedules one on the queue; the delivery empties the ring
 * one message at a time: value, `next`, acknowledgement, then `held`
 * goes down and the fetcher is woken. So `held` never exceeds `capacity`
 * and the ring never overflows.
 *
 * libnats 3.4.1's natsSubscription_Fetch() writes past its array when it
 * begins with more than half a batch already received and more arrive.
 * The fetcher therefore never fetches while the connection is not
 * connected (the requests would be buffered and answered together after
 * the reconnection), makes a new pull subscription after each
 * reconnection (the answers to the old one's requests go to its inbox,
 * which is gone), and asks for one message when some are already
 * received.
 *
 * Lifetimes. A start's context is counted: the fetcher's reference (it
 * also owns the jsCtx and the natsSubscription, destroyed when it ends),
 * the dispose action's, one per scheduled delivery, one per live
 * acknowledgement handle. The last one releases the messages still in the
 * ring (unacknowledged: the server delivers them again), the subscriber
 * and the signal's context. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "internal.h"

#define SK_NATS__FULL_BATCH 256     /* the largest fetch */
#define SK_NATS__FETCH_MS 250       /* how long one fetch waits for messages */
#define SK_NATS__IDLE_MS 20         /* between looks at a disconnected connection */
#define SK_NATS__TROUBLE_MS 30000   /* how long refused (re)binds and "no responders" are retried */
#define SK_NATS__HANDLE_TAG UINT64_C(0x31304b43414e4b53) /* "SKNACK01" */

typedef struct sk_nats__consumer {
    atomic_long references;
    natsConnection *connection;
    sk_nats__js_options options;
    char *stream;
    char *durable;
    char *subject;
    sk_nats_shape shape;
    sk_nats_ack_mode ack;
    sk_queue *queue;
    size_t capacity;
} sk_nats__consumer;

typedef struct sk_nats__pull {
    atomic_long references;
    sk_nats__consumer *consumer;
    sk_subscriber *subscriber;
    /* The fetcher's (and the starting thread's before it exists). */
    jsCtx *js;
    natsSubscription *sub;
    natsStatistics *stats;
    uint64_t reconnects; /* the connection's count when `sub` was made */
    /* Under `mutex`. */
    pthread_mutex_t mutex;
    pthread_cond_t changed;
    natsMsg **ring;
    size_t head;
    size_t count;
    size_t held;
    bool disposed;
    bool delivering;
    bool failed;   /* `failure` is set: delivered after the ring's messages */
    bool reported; /* the failure was put */
    char failure[512];
} sk_nats__pull;

/* An acknowledgement handle (SK_NATS_ACK_EXPLICIT): the value's pointer. */
typedef struct sk_nats__handle {
    uint64_t tag;
    sk_nats__pull *pull;
    natsMsg *msg;
    atomic_bool done; /* a final acknowledgement was sent, or the room given back */
} sk_nats__handle;

static void sk_nats__consumer_release(void *ctx) {
    sk_nats__consumer *c = ctx;
    if (atomic_fetch_sub(&c->references, 1) != 1) {
        return;
    }
    sk_queue_release(c->queue);
    sk_nats__js_options_free(&c->options);
    free(c->stream);
    free(c->durable);
    free(c->subject);
    free(c);
}

static void sk_nats__pull_release(void *ctx) {
    sk_nats__pull *p = ctx;
    if (atomic_fetch_sub(&p->references, 1) != 1) {
        return;
    }
    for (size_t i = 0; i < p->count; i++) {
        natsMsg_Destroy(p->ring[(p->head + i) % p->consumer->capacity]);
    }
    free(p->ring);
    natsStatistics_Destroy(p->stats);
    pthread_mutex_destroy(&p->mutex);
    pthread_cond_destroy(&p->changed);
    sk_subscriber_release(p->subscriber);
    sk_nats__consumer_release(p->consumer);
    free(p);
}

static void sk_nats__room_back(sk_nats__pull *p) {
    pthread_mutex_lock(&p->mutex);
    p->held--;
    pthread_cond_broadcast(&p->changed);
    pthread_mutex_unlock(&p->mutex);
}

/* Publishes JetStream's acknowledgement `body` for `msg`. */
static natsStatus sk_nats__send_ack(natsConnection *connection, natsMsg *msg, const char *body) {
    const char *reply = natsMsg_GetReply(msg);
    if (reply == NULL || reply[0] == '\0') {
        return NATS_OK; /* not a JetStream message: nothing to tell */
    }
    return natsConnection_PublishString(connection, reply, body);
}

/* Delivery (on the queue) ---------------------------------------------- */

static void sk_nats__handle_release(void *ctx) {
    sk_nats__handle *h = ctx;
    if (!atomic_exchange(&h->done, true)) {
        sk_nats__room_back(h->pull); /* never acknowledged: the server delivers it again */
    }
    natsMsg_Destroy(h->msg);
    sk_nats__pull_release(h->pull);
    free(h);
}

/* The SK_NATS_ACK_EXPLICIT value of `msg`: the message's four items and a
 * handle that takes `msg` over. On error `msg` is still the caller's
 * unless `*taken` (the handle was made and let go: its release has
 * destroyed `msg` and given the room back). */
static int sk_nats__explicit_value(sk_nats__pull *p, natsMsg *msg, sk_value *out, bool *taken) {
    sk_value base = { 0 };
    int status = sk_nats__message_value(msg, SK_NATS_MESSAGE, &base);
    if (status != SK_OK) {
        return status;
    }
    const sk_value *items = NULL;
    size_t count = 0;
    status = sk_value_get_array_items(&base, &items, &count);
    sk_nats__handle *h = status == SK_OK ? calloc(1, sizeof *h) : NULL;
    if (h == NULL) {
        sk_value_release(&base);
        return status == SK_OK ? SK_ERR_NO_MEMORY : status;
    }
    h->tag = SK_NATS__HANDLE_TAG;
    h->pull = p;
    h->msg = msg;
    atomic_init(&h->done, false);
    atomic_fetch_add(&p->references, 1);
    *taken = true;
    sk_value all[5] = { { 0 }, { 0 }, { 0 }, { 0 }, { 0 } };
    for (size_t i = 0; i < 4 && i < count; i++) {
        all[i] = items[i];
    }
    (void)sk_value_set_pointer(&all[SK_NATS_ITEM_ACK], h, sk_nats__handle_release);
    status = sk_value_set_array(out, all, 5);
    sk_value_release(&all[SK_NATS_ITEM_ACK]); /* the array's copy keeps the handle, if made */
    sk_value_release(&base);
    return status == SK_OK ? SK_OK : SK_ERR_NO_MEMORY;
}

static void sk_nats__deliver_one(sk_nats__pull *p, natsMsg *msg) {
    sk_nats__consumer *c = p->consumer;
    sk_value value = { 0 };
    bool explicit_ack = c->ack == SK_NATS_ACK_EXPLICIT;
    bool taken = false;
    int status = explicit_ack ? sk_nats__explicit_value(p, msg, &value, &taken)
                              : sk_nats__message_value(msg, c->shape, &value);
    if (status != SK_OK) {
        if (!taken) {
            natsMsg_Destroy(msg);
            sk_nats__room_back(p);
        }
        pthread_mutex_lock(&p->mutex);
        bool report = !p->reported;
        p->reported = true;
        p->failed = true;
        pthread_mutex_unlock(&p->mutex);
        if (report) {
            sk_nats__put_error(p->subscriber, "sk_nats_js_consume: a message of '%s' could not become a value: %s",
                               c->durable, sk_last_error_message());
        }
        return;
    }
    (void)sk_subscriber_put_next(p->subscriber, &value);
    sk_value_release(&value); /* explicit: the handle now lives with the observer's copies, if any */
    if (explicit_ack) {
        return;
    }
    pthread_mutex_lock(&p->mutex);
    bool disposed = p->disposed;
    pthread_mutex_unlock(&p->mutex);
    /* Disposed meanwhile: `next` may not have run, so no acknowledgement
     * (the server delivers it again: at least once). */
    if (!disposed) {
        (void)sk_nats__send_ack(c->connection, msg, "+ACK");
    }
    natsMsg_Destroy(msg);
    sk_nats__room_back(p);
}

static void sk_nats__deliver(void *ctx) {
    sk_nats__pull *p = ctx;
    for (;;) {
        pthread_mutex_lock(&p->mutex);
        if (p->disposed || p->count == 0 || p->reported) {
            bool report = !p->disposed && p->count == 0 && p->failed && !p->reported;
            char failure[sizeof p->failure];
            if (report) {
                p->reported = true;
                memcpy(failure, p->failure, sizeof failure);
            }
            p->delivering = false;
            pthread_mutex_unlock(&p->mutex);
            if (report) {
                sk_nats__put_error(p->subscriber, "%s", failure);
            }
            return;
        }
        natsMsg *msg = p->ring[p->head];
        p->head = (p->head + 1) % p->consumer->capacity;
        p->count--;
        pthread_mutex_unlock(&p->mutex);
        sk_nats__deliver_one(p, msg);
    }
}

/* Called with the mutex held: schedules a delivery unless one is
 * scheduled; true when the caller must enqueue it (after unlocking). */
static bool sk_nats__want_delivery(sk_nats__pull *p) {
    if (p->delivering || p->disposed || (p->count == 0 && !p->failed)) {
        return false;
    }
    p->delivering = true;
    atomic_fetch_add(&p->references, 1);
    return true;
}

static void sk_nats__schedule(sk_nats__pull *p) {
    if (sk_queue_async(p->consumer->queue, sk_nats__deliver, p, sk_nats__pull_release) != SK_OK) {
        /* The queue refused (its release ran): nothing will deliver. */
        pthread_mutex_lock(&p->mutex);
        p->delivering = false;
        pthread_mutex_unlock(&p->mutex);
        sk_nats__put_error(p->subscriber, "sk_nats_js_consume: the queue refused the delivery: %s",
                           sk_last_error_message());
    }
}

/* The fetcher ----------------------------------------------------------- */

/* Ends the subscription with `text` after the messages fetched. */
static void sk_nats__fail_later(sk_nats__pull *p, const char *format, ...) __attribute__((format(printf, 2, 3)));
static void sk_nats__fail_later(sk_nats__pull *p, const char *format, ...) {
    pthread_mutex_lock(&p->mutex);
    va_list args;
    va_start(args, format);
    vsnprintf(p->failure, sizeof p->failure, format, args);
    va_end(args);
    p->failed = true;
    bool schedule = sk_nats__want_delivery(p);
    pthread_mutex_unlock(&p->mutex);
    if (schedule) {
        sk_nats__schedule(p);
    }
}

/* CLOCK_MONOTONIC's time `milliseconds` from now (`changed`'s clock). */
static struct timespec sk_nats__after(long milliseconds) {
    struct timespec until;
    clock_gettime(CLOCK_MONOTONIC, &until);
    until.tv_nsec += milliseconds * 1000000L;
    until.tv_sec += until.tv_nsec / 1000000000L;
    until.tv_nsec %= 1000000000L;
    return until;
}

/* Waits on `changed` (its mutex held) for at most `milliseconds`; true
 * when the time passed. */
static bool sk_nats__wait_changed(sk_nats__pull *p, long milliseconds) {
    struct timespec until = sk_nats__after(milliseconds);
    return pthread_cond_timedwait(&p->changed, &p->mutex, &until) != 0;
}

/* Waits up to `milliseconds` or until disposed; true when disposed. */
static bool sk_nats__idle(sk_nats__pull *p, long milliseconds) {
    struct timespec until = sk_nats__after(milliseconds);
    pthread_mutex_lock(&p->mutex);
    int status = 0;
    while (!p->disposed && status == 0) {
        status = pthread_cond_timedwait(&p->changed, &p->mutex, &until);
    }
    bool disposed = p->disposed;
    pthread_mutex_unlock(&p->mutex);
    return disposed;
}

static int64_t sk_nats__now_ms(void) {
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (int64_t)now.tv_sec * 1000 + now.tv_nsec / 1000000;
}

static uint64_t sk_nats__reconnects(sk_nats__pull *p) {
    uint64_t reconnects = 0;
    if (natsConnection_GetStats(p->consumer->connection, p->stats) == NATS_OK) {
        (void)natsStatistics_GetCounts(p->stats, NULL, NULL, NULL, NULL, &reconnects);
    }
    return reconnects;
}

/* A new pull subscription (the old one, if any, let go first). */
static natsStatus sk_nats__bind(sk_nats__pull *p) {
    sk_nats__consumer *c = p->consumer;
    natsSubscription_Destroy(p->sub); /* keeps the durable consumer */
    p->sub = NULL;
    p->reconnects = sk_nats__reconnects(p); /* before: a reconnection meanwhile makes another */
    jsSubOptions so;
    jsSubOptions_Init(&so);
    so.Stream = c->stream;
    jsErrCode code = 0;
    return js_PullSubscribe(&p->sub, p->js, c->subject, c->durable, NULL, &so, &code);
}

/* Puts the fetched messages into the ring (taking them over). */
static void sk_nats__hand_over(sk_nats__pull *p, natsMsgList *list) {
    size_t capacity = p->consumer->capacity;
    pthread_mutex_lock(&p->mutex);
    for (int i = 0; i < list->Count; i++) {
        natsMsg *msg = list->Msgs[i];
        list->Msgs[i] = NULL;
        if (p->count == capacity || p->held == capacity) {
            natsMsg_Destroy(msg); /* cannot happen (fetches ask for the room); unacknowledged, delivered again */
            continue;
        }
        p->ring[(p->head + p->count) % capacity] = msg;
        p->count++;
        p->held++;
    }
    bool schedule = sk_nats__want_delivery(p);
    pthread_mutex_unlock(&p->mutex);
    natsMsgList_Destroy(list);
    if (schedule) {
        sk_nats__schedule(p);
    }
}

static void *sk_nats__fetcher(void *arg) {
    sk_nats__pull *p = arg;
    sk_nats__consumer *c = p->consumer;
    size_t full = c->capacity < SK_NATS__FULL_BATCH ? c->capacity : SK_NATS__FULL_BATCH;
    size_t enough = (full + 1) / 2;
    int64_t trouble_since = -1; /* when refused binds or "no responders" began */
    for (;;) {
        pthread_mutex_lock(&p->mutex);
        while (!p->disposed && c->capacity - p->held < enough) {
            /* No room: the observer holds the messages, maybe for good. The
             * connection's close is still reported within
             * SK_NATS__FETCH_MS (libnats says it only through the
             * connection's status here: the callbacks are the user's
             * options'); before, it waited for room given back. */
            if (sk_nats__wait_changed(p, SK_NATS__FETCH_MS)) {
                pthread_mutex_unlock(&p->mutex);
                bool closed = natsConnection_Status(c->connection) == NATS_CONN_STATUS_CLOSED;
                pthread_mutex_lock(&p->mutex);
                if (closed) {
                    break;
                }
            }
        }
        bool disposed = p->disposed;
        size_t room = c->capacity - p->held;
        pthread_mutex_unlock(&p->mutex);
        if (disposed) {
            break;
        }
        natsConnStatus connected = natsConnection_Status(c->connection);
        if (connected == NATS_CONN_STATUS_CLOSED) {
            sk_nats__fail_later(p, "sk_nats_js_consume: the connection of the consumer '%s' was closed (nats: %s)",
                                c->durable, natsStatus_GetText(NATS_CONNECTION_CLOSED));
            break;
        }
        if (connected != NATS_CONN_STATUS_CONNECTED) {
            if (sk_nats__idle(p, SK_NATS__IDLE_MS)) {
                break;
            }
            continue;
        }
        natsStatus status = NATS_OK;
        if (p->sub == NULL || sk_nats__reconnects(p) != p->reconnects) {
            status = sk_nats__bind(p);
        }
        natsMsgList list = { NULL, 0 };
        if (status == NATS_OK) {
            int received = 0;
            (void)natsSubscription_GetPending(p->sub, &received, NULL);
            int batch = received > 0 ? 1 : (int)(room < full ? room : full);
            jsErrCode code = 0;
            status = natsSubscription_Fetch(&list, p->sub, batch, SK_NATS__FETCH_MS, &code);
        }
        if (status == NATS_OK) {
            trouble_since = -1;
            sk_nats__hand_over(p, &list);
            continue;
        }
        if (status == NATS_TIMEOUT && p->sub != NULL) {
            trouble_since = -1;
            continue;
        }
        if (natsConnection_Status(c->connection) != NATS_CONN_STATUS_CONNECTED ||
            sk_nats__reconnects(p) != p->reconnects) {
            continue; /* a disconnection: the loop's start waits for the connection */
        }
        char words[256];
        sk_nats__words(words, sizeof words, status);
        bool transient = p->sub == NULL || status == NATS_NO_RESPONDERS || status == NATS_TIMEOUT;
        int64_t now = sk_nats__now_ms();
        if (transient && trouble_since < 0) {
            trouble_since = now;
        }
        if (!transient || now - trouble_since > SK_NATS__TROUBLE_MS) {
            if (p->sub == NULL) {
                sk_nats__fail_later(p, "sk_nats_js_consume: cannot bind to the consumer '%s' of '%s' again (%s)",
                                    c->durable, c->stream != NULL ? c->stream : c->subject, words);
            } else {
                sk_nats__fail_later(p, "sk_nats_js_consume: fetching from the consumer '%s' failed (%s)", c->durable,
                                    words);
            }
            break;
        }
        if (sk_nats__idle(p, SK_NATS__IDLE_MS)) {
            break;
        }
    }
    natsSubscription_Destroy(p->sub);
    p->sub = NULL;
    jsCtx_Destroy(p->js);
    p->js = NULL;
    sk_nats__pull_release(p);
    return NULL;
}

/* The signal ------------------------------------------------------------ */

static void sk_nats__pull_dispose(void *ctx) {
    sk_nats__pull *p = ctx;
    pthread_mutex_lock(&p->mutex);
    p->disposed = true;
    pthread_cond_broadcast(&p->changed);
    pthread_mutex_unlock(&p->mutex);
}

static sk_disposable *sk_nats__consume_start(void *ctx, sk_subscriber *subscriber) {
    sk_nats__consumer *c = ctx;
    sk_nats__pull *p = calloc(1, sizeof *p);
    natsMsg **ring = calloc(c->capacity, sizeof *ring);
    natsStatistics *stats = NULL;
    if (p == NULL || ring == NULL || natsStatistics_Create(&stats) != NATS_OK) {
        free(p);
        free(ring);
        sk_nats__put_error(subscriber, "sk_nats_js_consume: out of memory for a subscription to '%s'", c->durable);
        return NULL;
    }
    atomic_init(&p->references, 1); /* the fetcher's */
    atomic_fetch_add(&c->references, 1);
    p->consumer = c;
    p->subscriber = sk_subscriber_retain(subscriber);
    p->ring = ring;
    p->stats = stats;
    pthread_condattr_t attributes;
    pthread_condattr_init(&attributes);
    pthread_condattr_setclock(&attributes, CLOCK_MONOTONIC);
    pthread_cond_init(&p->changed, &attributes);
    pthread_condattr_destroy(&attributes);
    pthread_mutex_init(&p->mutex, NULL);
    jsOptions options;
    sk_nats__js_options_apply(&c->options, &options);
    natsStatus status = natsConnection_JetStream(&p->js, c->connection, &options);
    if (status == NATS_OK) {
        status = sk_nats__bind(p);
    }
    if (status != NATS_OK) {
        char words[256];
        sk_nats__words(words, sizeof words, status);
        natsSubscription_Destroy(p->sub);
        jsCtx_Destroy(p->js);
        sk_nats__put_error(subscriber, "sk_nats_js_consume: cannot bind to the consumer '%s' of '%s' (%s)", c->durable,
                           c->stream != NULL ? c->stream : c->subject, words);
        sk_nats__pull_release(p);
        return NULL;
    }
    atomic_fetch_add(&p->references, 1); /* the dispose action's */
    sk_disposable *disposable = NULL;
    if (sk_disposable_action(&disposable, sk_nats__pull_dispose, p, sk_nats__pull_release) != SK_OK) {
        disposable = NULL; /* its release ran */
    }
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
    pthread_t thread;
    int created = pthread_create(&thread, &attr, sk_nats__fetcher, p);
    pthread_attr_destroy(&attr);
    if (created != 0) {
        natsSubscription_Destroy(p->sub);
        p->sub = NULL;
        jsCtx_Destroy(p->js);
        p->js = NULL;
        sk_nats__put_error(subscriber, "sk_nats_js_consume: cannot start the fetching thread of '%s' (%s)", c->durable,
                           strerror(created));
        sk_nats__pull_release(p); /* the fetcher's, never started */
    }
    return disposable;
}

/* What is wrong with a JetStream stream or consumer name, as the server
 * names them (no whitespace or control characters, no '.', '*' or '>',
 * no path separator), or NULL. Refused at the call: an empty durable name
 * made libnats create a new ephemeral consumer at each start (at least
 * once silently became "everything again"), and a stream name with a space
 * made the start wait 5 s for "Timeout". */
static const char *sk_nats__name_problem(const char *name) {
    if (name[0] == '\0') {
        return "is empty";
    }
    for (const unsigned char *c = (const unsigned char *)name; *c != '\0'; c++) {
        if (*c <= ' ' || *c == 0x7f) {
            return "has whitespace or a control character";
        }
        if (*c == '.' || *c == '*' || *c == '>') {
            return "has '.', '*' or '>' (a name, not a subject)";
        }
        if (*c == '/' || *c == '\\') {
            return "has a path separator ('/', '\\')";
        }
    }
    return NULL;
}

SK_NATS_EXPORT int sk_nats_js_consume(sk_signal **out, natsConnection *connection, const jsOptions *options,
                                      const char *stream, const char *durable, const char *subject,
                                      sk_nats_shape shape, sk_nats_ack_mode ack, sk_queue *queue, size_t capacity) {
    static const char function[] = "sk_nats_js_consume";
    if (out != NULL) {
        *out = NULL;
    }
    const char *missing = out == NULL          ? "out"
                          : connection == NULL ? "connection"
                          : durable == NULL    ? "durable"
                          : subject == NULL    ? "subject"
                                               : NULL;
    if (missing != NULL) {
        return sk_nats__fail(SK_ERR_NULL_ARGUMENT, "%s: %s is NULL", function, missing);
    }
    const char *problem = sk_nats__name_problem(durable);
    if (problem != NULL) {
        return sk_nats__fail(SK_ERR_INVALID_ARGUMENT, "%s: the durable consumer's name '%s' %s", function, durable,
                             problem);
    }
    problem = stream != NULL ? sk_nats__name_problem(stream) : NULL;
    if (problem != NULL) {
        return sk_nats__fail(SK_ERR_INVALID_ARGUMENT, "%s: the stream's name '%s' %s (NULL: the stream of the subject)",
                             function, stream, problem);
    }
    if (subject[0] == '\0') {
        return sk_nats__fail(SK_ERR_INVALID_ARGUMENT, "%s: subject is empty (the consumer's filter subject)", function);
    }
    if (shape != SK_NATS_MESSAGE && shape != SK_NATS_PAYLOAD) {
        return sk_nats__fail(SK_ERR_INVALID_ARGUMENT, "%s: shape %d is no sk_nats_shape", function, (int)shape);
    }
    int kind = sk_nats__check_queue(function, "queue", queue);
    if (kind != SK_OK) {
        return kind;
    }
    if (ack != SK_NATS_ACK_AFTER_NEXT && ack != SK_NATS_ACK_EXPLICIT) {
        return sk_nats__fail(SK_ERR_INVALID_ARGUMENT, "%s: ack %d is no sk_nats_ack_mode", function, (int)ack);
    }
    if (ack == SK_NATS_ACK_EXPLICIT && shape != SK_NATS_MESSAGE) {
        return sk_nats__fail(SK_ERR_INVALID_ARGUMENT,
                             "%s: SK_NATS_ACK_EXPLICIT needs SK_NATS_MESSAGE (the handle is the array's item %d)",
                             function, SK_NATS_ITEM_ACK);
    }
    if (capacity == 0) {
        return sk_nats__fail(SK_ERR_INVALID_ARGUMENT, "%s: capacity is 0", function);
    }
    sk_nats__consumer *c = calloc(1, sizeof *c);
    bool failed = c == NULL;
    if (!failed) {
        c->stream = sk_nats__strdup(stream, &failed);
        c->durable = sk_nats__strdup(durable, &failed);
        c->subject = sk_nats__strdup(subject, &failed);
        failed = !sk_nats__js_options_copy(&c->options, options) || failed;
    }
    if (failed) {
        if (c != NULL) {
            sk_nats__js_options_free(&c->options);
            free(c->stream);
            free(c->durable);
            free(c->subject);
            free(c);
        }
        return sk_nats__fail(SK_ERR_NO_MEMORY, "%s: out of memory for the copies of the names", function);
    }
    atomic_init(&c->references, 1);
    c->connection = connection;
    c->shape = shape;
    c->ack = ack;
    c->capacity = capacity;
    int status = SK_OK;
    if (queue != NULL) {
        (void)sk_queue_retain(queue);
    } else {
        status = sk_queue_create(&queue, function);
        if (status != SK_OK) {
            status = sk_nats__fail_core(status, function);
        }
    }
    if (status != SK_OK) {
        sk_nats__consumer_release(c);
        return status;
    }
    c->queue = queue;
    status = sk_signal_create(out, sk_nats__consume_start, c, sk_nats__consumer_release);
    if (status != SK_OK) {
        sk_nats__consumer_release(c);
        return sk_nats__fail_core(status, function);
    }
    return SK_OK;
}

/* sk_nats_ack() --------------------------------------------------------- */

SK_NATS_EXPORT int sk_nats_ack(const sk_value *message, sk_nats_ack_kind kind) {
    static const char function[] = "sk_nats_ack";
    static const char *const bodies[] = { "+ACK", "-NAK", "+TERM", "+WPI" };
    if (message == NULL) {
        return sk_nats__fail(SK_ERR_NULL_ARGUMENT, "%s: message is NULL", function);
    }
    if ((unsigned)kind > SK_NATS_IN_PROGRESS) {
        return sk_nats__fail(SK_ERR_INVALID_ARGUMENT, "%s: kind %d is no sk_nats_ack_kind", function, (int)kind);
    }
    const sk_value *item = message;
    if (sk_value_kind(message) == SK_KIND_ARRAY && sk_value_get_array_item(message, SK_NATS_ITEM_ACK, &item) != SK_OK) {
        item = NULL;
    }
    void *pointer = NULL;
    if (item == NULL || sk_value_kind(item) != SK_KIND_POINTER || sk_value_get_pointer(item, &pointer) != SK_OK ||
        pointer == NULL || ((sk_nats__handle *)pointer)->tag != SK_NATS__HANDLE_TAG) {
        return sk_nats__fail(SK_ERR_INVALID_ARGUMENT,
                             "%s: message is no value of sk_nats_js_consume() with SK_NATS_ACK_EXPLICIT, nor its "
                             "item SK_NATS_ITEM_ACK",
                             function);
    }
    sk_nats__handle *h = pointer;
    bool final = kind != SK_NATS_IN_PROGRESS;
    if (final ? atomic_exchange(&h->done, true) : atomic_load(&h->done)) {
        return SK_OK; /* acknowledged already */
    }
    natsStatus status = sk_nats__send_ack(h->pull->consumer->connection, h->msg, bodies[kind]);
    if (final) {
        sk_nats__room_back(h->pull);
    }
    if (status != NATS_OK) {
        char words[256];
        sk_nats__words(words, sizeof words, status);
        return sk_nats__fail(SK_ERR_RESOURCE, "%s: cannot send '%s' for a message of '%s' (%s)", function,
                             bodies[kind], h->pull->consumer->durable, words);
    }
    return SK_OK;
}
