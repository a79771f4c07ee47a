/* nats_support.h - what the NATS bridge's tests share: a real nats-server
 * started and stopped per test, connections to it, its monitoring port,
 * and a recorder of a subscription's events that tests wait on (a
 * condition variable with a deadline: no test sleeps to wait). */
#ifndef SK_NATS_SUPPORT_H
#define SK_NATS_SUPPORT_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include <signalkit_nats.h>

#include "../harness/harness.h"

/* Seconds any wait of these tests may take before it fails: generous, for a
 * loaded machine; a passing test waits only as long as the event takes. */
#define NATS_WAIT_SECONDS 60.0

/* A nats-server of the test's own: 127.0.0.1, free ports for clients and
 * monitoring, JetStream in a temporary folder (under $TMPDIR), its log in
 * that folder. Started from the test's thread with PR_SET_PDEATHSIG, so
 * that a test that fails (_exit) or is killed takes its server with it. */
typedef struct nats_server {
    pid_t pid;
    int port;
    int monitor_port;
    char dir[256];
    char url[64];
} nats_server;

/* Starts it and waits (connect attempts, deadline NATS_WAIT_SECONDS) until
 * it accepts a connection; fails the test otherwise, with its log. */
void nats_server_start(nats_server *server);
/* Stops it (SIGTERM, then waits for it) and removes its folder. */
void nats_server_stop(nats_server *server);
/* SIGKILLs the server and waits for its end (its folder stays). */
void nats_server_kill(nats_server *server);
/* Starts a killed server again: same port, same folder (its JetStream
 * store), and waits until it accepts a connection. */
void nats_server_restart(nats_server *server);
/* A connection that reconnects without limit, every 10 ms, buffering up
 * to 64 MB meanwhile (+1: natsConnection_Destroy()). */
natsConnection *nats_connect_reconnecting(const nats_server *server);
/* A JetStream context (+1: jsCtx_Destroy()). */
jsCtx *nats_js(natsConnection *connection);
/* A file-stored stream `name` of `subjects`. */
void nats_add_stream(jsCtx *js, const char *name, const char *subjects);
/* A durable pull consumer with explicit acknowledgements. */
void nats_add_consumer(jsCtx *js, const char *stream, const char *durable, const char *subject, double ack_wait,
                       int64_t max_ack_pending);
/* The consumer's NumAckPending and NumPending, from the server; returns
 * how many deliveries it has made (its consumer sequence). */
uint64_t nats_consumer_counts(jsCtx *js, const char *stream, const char *durable, int64_t *ack_pending,
                          uint64_t *pending);
/* A signal whose start emits `count` 8-byte big-endian indexes 0, 1, ...
 * (bytes) on the starting thread, then completes (+1). */
sk_signal *indexed_signal(long count);

/* A new connection (+1: natsConnection_Destroy()), with at most
 * `max_pending` messages waiting per subscription in the client (0: the
 * client's default, 65,536). Fails the test on error. */
natsConnection *nats_connect(const nats_server *server, int max_pending);
/* GET `path` of the monitoring port: the body (malloc'd, NUL-terminated),
 * or fails the test. */
char *nats_monitor_get(const nats_server *server, const char *path);
/* How many subscriptions to `subject` the server lists (/subsz?subs=1). */
int nats_server_subscriptions(const nats_server *server, const char *subject);
/* How many subscriptions to subjects that start with `prefix` it lists. */
int nats_server_subscriptions_starting(const nats_server *server, const char *prefix);
/* nats_server_subscriptions_starting once it says `expected` (flushing
 * `connection` before each look), or after 60 s: the count then. */
int nats_wait_subscriptions_starting(const nats_server *server, natsConnection *connection, const char *prefix,
                                     int expected);

/* Events of one subscription, for tests to wait on. */
typedef struct recorder {
    pthread_mutex_t mutex;
    pthread_cond_t changed;
    long nexts;
    long errors;
    long completions;
    long releases;
    char error[512];        /* the first error's text (a string error value) */
    sk_value last;          /* a copy of the last value */
    sk_value first[4];      /* copies of the first 4 values */
    pthread_t disposer;     /* set with dispose_returned: the thread that disposed */
    int dispose_returned;   /* atomic */
    long after_dispose;     /* values delivered on the disposer after its dispose returned */
    long after_release;     /* callbacks after the observer's release ran */
} recorder;

void recorder_init(recorder *r);
void recorder_destroy(recorder *r);
/* An observer that records into `r` (keep_last: copy each value into r->last). */
sk_observer recorder_observer(recorder *r);
/* Waits until `*field` (a counter of `r`) reaches `count`, with the deadline. */
bool recorder_wait(recorder *r, const long *field, long count);
long recorder_get(recorder *r, const long *field);
/* Disposes `d` on the calling thread and records that it returned. */
void recorder_dispose(recorder *r, sk_disposable *d);

/* A one-shot count the tests wait on, with the deadline. */
typedef struct waiter {
    pthread_mutex_t mutex;
    pthread_cond_t changed;
    long count;
} waiter;
void waiter_init(waiter *w);
void waiter_destroy(waiter *w);
void waiter_add(waiter *w, long n);
bool waiter_wait(waiter *w, long count);
long waiter_get(waiter *w);

/* The payload of `value` (SK_NATS_PAYLOAD bytes, or an SK_NATS_MESSAGE's
 * item) as a NUL-terminated copy in `buffer`. */
void payload_text(const sk_value *value, char *buffer, size_t size);

/* sk_live_objects() once it is at most `expected` (callers compare it with
 * `expected`: below it, something else was released), or what it is after 60
 * s. The client lets go of a subscription's last reference on its own
 * thread, after the observer's release (the completion of its
 * subscription): the count follows by a moment; sk_live_objects_wait() is
 * woken by that release. */
long nats_wait_live_objects(long expected);
/* A 64-bit big-endian index in the first 8 bytes of the payload; -1 when
 * it is not 8 bytes long or more. */
int64_t payload_index(const sk_value *value);
/* Publishes an 8-byte big-endian index (and `extra` more bytes of zeros). */
void publish_index(natsConnection *connection, const char *subject, int64_t index);

#endif
