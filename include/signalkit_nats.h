/**
 * @file signalkit_nats.h
 * @brief NATS subjects as SignalKit signals, over the NATS C client.
 *
 * libsignalkit-nats (built by `make nats`, docs/nats.md) is a thin bridge
 * between the NATS C client (libnats, `pkg-config libnats`, Debian's
 * libnats-dev) and the public C interface of signalkit.h. It takes the
 * caller's own `natsConnection *`: connection options, TLS, credentials,
 * reconnection and the connection's life stay the caller's. It gives:
 *
 * - sk_nats_subject() and sk_nats_subject_bounded(): a subject as a signal;
 *   each start subscribes, each message becomes a value, a dispose
 *   unsubscribes;
 * - sk_nats_publish() and sk_nats_publish_encoded(): a signal whose values
 *   (or their encodings, made by a user encoder) are published to a
 *   subject;
 * - sk_nats_request(): a request as a signal of one reply, with a timeout;
 * - sk_nats_serve(): a service, as a signal of the requests it answered,
 *   each reply the first value of a signal that a handler makes;
 * - sk_nats_js_consume() and sk_nats_ack(): a JetStream pull consumer as a
 *   signal that fetches only what its observer has room for and
 *   acknowledges each message after `next` (or when the observer says);
 * - sk_nats_js_publish(): a signal published to JetStream, each
 *   acknowledgement awaited (retried with the same message ID), at most a
 *   window of them at once; sk_nats_js_publish_bounded(): the same with a
 *   bounded place and an overflow policy for the values that lag behind.
 *
 * The library is a layer over the public API of signalkit.h and follows its
 * conventions (ownership, `out` parameters, status codes, callbacks with
 * `ctx` and `release`, threads), with one difference, as in
 * signalkit_ffi.h: the errors of the functions declared here are described
 * by sk_nats_last_error_message(), not sk_last_error_message() (when a
 * signalkit.h call made by this library fails, its message is copied there
 * as the failing sk_nats_ call's).
 *
 * Two kinds of error. A call that cannot make its signal (a NULL argument,
 * a malformed one) returns a negative sk_status and sets
 * sk_nats_last_error_message(). Everything the NATS client refuses once a
 * signal runs (a subject it rejects, a closed connection, a payload too
 * large, a slow consumer, a timeout) ends that subscription with an error
 * value through the failure rule of signalkit.h: an error value of kind
 * SK_KIND_STRING, in the shape
 *
 *     <function>: <what happened> (nats: <the client's status text>[: <its detail>])
 *
 * for example
 * `"sk_nats_subject: cannot subscribe to 'a b' (nats: Invalid Subject)"`.
 * The part in parentheses is the client's own words: natsStatus_GetText()
 * and, when it says more, nats_GetLastError() of the thread that failed.
 *
 * Connections. Every function borrows a `natsConnection *`: it must stay
 * valid (not destroyed with natsConnection_Destroy()) as long as a signal
 * made with it exists. A closed connection is fine: each start then fails
 * with the client's error ("Connection Closed"). Reconnection is the
 * client's: a subscription survives it as libnats subscriptions do.
 */
#ifndef SIGNALKIT_NATS_H
#define SIGNALKIT_NATS_H

#include <nats/nats.h>

#include "signalkit.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * @defgroup nats NATS bridge
 * @brief Subjects as signals, signals published, requests, JetStream.
 * @{
 */

/** @brief The major version of this header (the library's, as signalkit.h's). */
#define SK_NATS_VERSION_MAJOR 0
/** @brief The minor version of this header. */
#define SK_NATS_VERSION_MINOR 4

/**
 * @brief What a NATS message becomes as a value.
 */
typedef enum sk_nats_shape {
    /** An array of 4 values (SK_KIND_ARRAY), indexed by SK_NATS_ITEM_*:
     *  the payload (SK_KIND_BYTES, possibly empty), the subject
     *  (SK_KIND_STRING), the reply subject (SK_KIND_STRING, or nil when the
     *  message has none) and the headers (nil when the message has none, else
     *  an array of [key, value] pairs, two strings each, one pair per
     *  value, in the client's order of keys). */
    SK_NATS_MESSAGE = 0,
    /** The payload alone (SK_KIND_BYTES, possibly empty): one allocation
     *  per message instead of three or more. */
    SK_NATS_PAYLOAD = 1
} sk_nats_shape;

/** @brief Index of the payload (bytes) in an SK_NATS_MESSAGE value. */
#define SK_NATS_ITEM_PAYLOAD 0
/** @brief Index of the subject (string) in an SK_NATS_MESSAGE value. */
#define SK_NATS_ITEM_SUBJECT 1
/** @brief Index of the reply subject (string or nil) in an SK_NATS_MESSAGE value. */
#define SK_NATS_ITEM_REPLY 2
/** @brief Index of the headers (array of [key, value] pairs, or nil) in an SK_NATS_MESSAGE value. */
#define SK_NATS_ITEM_HEADERS 3

/**
 * @brief The message of the last error of an sk_nats_ function on the
 *        calling thread.
 *
 * It names the function and the offending argument
 * ("sk_nats_subject: subject is NULL"). A successful call does not clear
 * it. Errors that end a running subscription are not reported here but as
 * the subscription's error value (see the file's comment).
 *
 * @return A thread-local string owned by the library, valid until the next
 *         failing sk_nats_ call on this thread; "" when none failed yet.
 *         Never fails.
 * @par Thread safety
 *   Any thread (the message is per thread).
 */
const char *sk_nats_last_error_message(void);

/**
 * @brief A subject as a signal: each start subscribes, each message becomes
 *        a value, a dispose unsubscribes.
 *
 * Each start makes one asynchronous libnats subscription to `subject` (in
 * the queue group `queue_group` when it is not NULL: then each message
 * reaches one subscriber of the group), and puts each message, turned into
 * a value of `shape`, into the subscriber, in the order the client delivers
 * them (the server's order for one publisher). The signal never completes
 * by itself. It ends with an error value (SK_KIND_STRING, see the file's
 * comment) when:
 *
 * - the client refuses the subscription (an invalid subject or queue
 *   group, a closed connection): `"sk_nats_subject: cannot subscribe to
 *   'a b' (nats: Invalid Subject)"`; nothing was subscribed;
 * - the client dropped messages of this subscription because they waited
 *   beyond its pending limits (natsOptions_SetMaxPendingMsgs(), 65,536
 *   messages by default): `"sk_nats_subject: slow consumer on 'x': the
 *   client dropped 812 messages beyond its pending limit of 65536, and the
 *   stream's end lets go of the 65536 it still held (nats: Slow Consumer,
 *   messages dropped)"`.
 *   It is reported with the first message the client delivers after the
 *   drop, or when the subscription is unsubscribed, whichever comes first;
 *   the subscription is then unsubscribed. Every message is delivered or
 *   counted in it: those dropped, and those the client still held then
 *   (the message in hand included), which go with the stream's end. A
 *   connection that closes first is reported as the close below (libnats
 *   no longer tells a closed subscription's drops);
 * - the client closes the subscription without a dispose (the connection
 *   closed, or drained: natsConnection_Drain()):
 *   `"sk_nats_subject: the subscription to 'x' was closed by the client
 *   (nats: Connection Closed)"` (after a drain: `(nats: Draining in
 *   progress)`).
 *
 * Values are delivered on the client's delivery thread for the
 * subscription, as they arrive: a slow observer makes messages wait in the
 * client, up to its pending limits, then the slow-consumer error above. For
 * a bounded place of the library's own, with an overflow policy, use
 * sk_nats_subject_bounded().
 *
 * Disposing unsubscribes (natsSubscription_Unsubscribe()): the server
 * drops the interest once the connection has sent it (after a
 * natsConnection_Flush(), /subsz no longer lists it). No value is
 * delivered after the observer's `release` has run, and that runs once the
 * client's delivery thread is done with the subscription
 * (natsSubscription_SetOnCompleteCB()). As for every subscription of
 * signalkit.h, a dispose does not wait for a value callback running on the
 * client's thread.
 *
 * @param[out] out     Receives the new signal (+1): release it with
 *                     sk_signal_release(); NULL on error.
 * @param connection   Borrowed; must stay valid while the signal exists
 *                     (see the file's comment).
 * @param subject      Borrowed (copied). Checked by the client at each
 *                     start, not here.
 * @param queue_group  Borrowed (copied); NULL for none.
 * @param shape        What each message becomes (sk_nats_shape).
 * @return SK_OK; SK_ERR_NULL_ARGUMENT if `out`, `connection` or `subject`
 *         is NULL; SK_ERR_INVALID_ARGUMENT for a `shape` that is no
 *         sk_nats_shape; SK_ERR_NO_MEMORY when the copies cannot be
 *         allocated.
 * @par Thread safety
 *   Any thread. A start subscribes on the starting thread; values, the
 *   slow-consumer error and the closing error are delivered on the
 *   client's delivery thread of the subscription (its own, or one of its
 *   pool with natsOptions_UseGlobalMessageDelivery()); a refused
 *   subscription's error on the starting thread.
 */
int sk_nats_subject(sk_signal **out, natsConnection *connection, const char *subject, const char *queue_group,
                    sk_nats_shape shape);

/**
 * @brief sk_nats_subject() with at most `capacity` messages waiting for the
 *        observer on `queue`, `overflow` deciding about the next: a slow
 *        observer holds at most `capacity` messages and each one dropped is
 *        counted.
 *
 * The signal is sk_signal_deliver_on_bounded() over sk_nats_subject(): the
 * client's delivery thread puts each message into a bounded place and
 * returns; `queue` delivers them. A message that finds `capacity` waiting
 * is handled by `overflow` (sk_overflow): dropped and passed to `on_drop`
 * with the count of drops so far (SK_OVERFLOW_DROP_NEWEST,
 * SK_OVERFLOW_DROP_OLDEST, SK_OVERFLOW_LATEST); the stream fails with the
 * library's overflow error after the messages waiting
 * (SK_OVERFLOW_ERROR); or the client's delivery thread waits for room
 * (SK_OVERFLOW_BLOCK): messages then wait in the client, up to its pending
 * limits, beyond which the slow-consumer error of sk_nats_subject() ends
 * the stream. Disposing unsubscribes, as sk_nats_subject()'s; the
 * messages waiting are released without being delivered or passed to
 * `on_drop`.
 *
 * @param[out] out     Receives the new signal (+1): release it with
 *                     sk_signal_release(); NULL on error.
 * @param connection   As for sk_nats_subject().
 * @param subject      As for sk_nats_subject().
 * @param queue_group  As for sk_nats_subject().
 * @param shape        As for sk_nats_subject().
 * @param queue        Borrowed (retained by the signal): where the values,
 *                     the error and `on_drop`'s drops of a closed queue are
 *                     delivered. NULL: a serial queue of the signal's own,
 *                     which all its subscriptions share.
 * @param capacity     The most messages waiting, >= 1.
 * @param overflow     An sk_overflow.
 * @param on_drop      May be NULL. Called with each dropped message (the
 *                     value, borrowed) and the subscription's count of drops
 *                     so far, on the client's delivery thread, never under a
 *                     lock.
 * @param ctx          Passed to `on_drop` and `release`.
 * @param release      May be NULL. Runs once, when the signal and its
 *                     subscriptions are gone; also when this call fails,
 *                     before it returns.
 * @return SK_OK; SK_ERR_NULL_ARGUMENT, SK_ERR_INVALID_ARGUMENT,
 *         SK_ERR_NO_MEMORY as sk_nats_subject(); SK_ERR_INVALID_ARGUMENT
 *         for a `capacity` of 0 or an `overflow` that is no sk_overflow;
 *         SK_ERR_WRONG_KIND if `queue` is not a queue; SK_ERR_RESOURCE when
 *         the system refuses the queue (see signalkit.h). On error
 *         `release` has run.
 * @par Thread safety
 *   Any thread. Values and errors are delivered on `queue`; `on_drop` runs
 *   on the client's delivery thread; with SK_OVERFLOW_BLOCK that thread
 *   waits for room.
 */
int sk_nats_subject_bounded(sk_signal **out, natsConnection *connection, const char *subject,
                            const char *queue_group, sk_nats_shape shape, sk_queue *queue, size_t capacity,
                            sk_overflow overflow, sk_drop_fn on_drop, void *ctx, sk_release_fn release);

/**
 * @brief A signal that publishes each value of `signal` to `subject`, passes
 *        it on, and completes once the connection is flushed.
 *
 * Each start starts `signal`. Each of its values, a string (its bytes,
 * without the NUL) or bytes, is published with natsConnection_Publish() on
 * the thread that delivers it, then passed on unchanged. When `signal`
 * completes, the connection is flushed (natsConnection_FlushTimeout(), a
 * round trip to the server that makes sure every message before it
 * reached the server), then the signal completes. It fails, and `signal`'s
 * subscription is disposed, when:
 *
 * - a value is of another kind: `"sk_nats_publish: cannot publish a value
 *   of kind int64 to 'x': give a string or bytes (sk_signal_map() first)"`;
 * - the client refuses a publish (a payload larger than the server's
 *   maximum, a closed connection): `"sk_nats_publish: cannot publish
 *   2000000 bytes to 'x' (nats: Maximum Payload Exceeded)"`;
 *   the values before it were published;
 * - the flush fails or takes longer than `flush_timeout`:
 *   `"sk_nats_publish: flushing after the last value to 'x' failed within
 *   0.5 s (nats: Timeout)"`;
 * - `signal` fails: its error passes on unchanged.
 *
 * Disposing disposes `signal`'s subscription; what was published stays
 * published (the client sends it when it can).
 *
 * @param[out] out      Receives the new signal (+1): release it with
 *                      sk_signal_release(); NULL on error.
 * @param signal        Borrowed (retained by the new signal).
 * @param connection    Borrowed; must stay valid while the signal exists.
 * @param subject       Borrowed (copied): one a message may be published to
 *                      (tokens separated by '.', none empty, no whitespace
 *                      or control character, no wildcard token '*' or '>'),
 *                      checked here: the client does not check it, and the
 *                      server takes "a b" for the subject "a" with the
 *                      reply "b".
 * @param flush_timeout Seconds the flush on completion may take, > 0 and
 *                      finite.
 * @return SK_OK; SK_ERR_NULL_ARGUMENT if `out`, `signal`, `connection` or
 *         `subject` is NULL; SK_ERR_INVALID_ARGUMENT for a `subject` no
 *         message may be published to (`"sk_nats_publish: cannot publish to
 *         'a b': a subject has no whitespace or control characters"`), or a
 *         `flush_timeout` that is not > 0 and finite, or above 2^31 ms;
 *         SK_ERR_WRONG_KIND
 *         if `signal` is not a signal; SK_ERR_NO_MEMORY when the copy of
 *         `subject` cannot be allocated.
 * @par Thread safety
 *   Any thread. Values are published and passed on on the thread that
 *   delivers them (publish from one thread when order matters, as for any
 *   signal); the flush runs, and blocks for at most `flush_timeout`, on the
 *   thread that delivers `signal`'s completion, which then delivers the
 *   completion or the flush's error.
 */
int sk_nats_publish(sk_signal **out, sk_signal *signal, natsConnection *connection, const char *subject,
                    double flush_timeout);

/**
 * @brief sk_nats_publish() with a user encoder: each value of `signal` is
 *        passed to `encode`, whose result is published, and the value
 *        itself is passed on.
 *
 * Each start starts `signal`. Each of its values is passed to `encode` on
 * the thread that delivers it; the result, a string (its bytes, without
 * the NUL) or bytes, is published with natsConnection_Publish() on that
 * thread, then the original value (not the encoding) is passed on. The
 * completion and the flush are sk_nats_publish()'s. It fails, and
 * `signal`'s subscription is disposed, when:
 *
 * - `encode` calls sk_callback_fail(): that error, unchanged; nothing is
 *   published for the value, whatever `encode` wrote into `out` (the
 *   values before it were published);
 * - `encode` gives a value of another kind (nil included):
 *   `"sk_nats_publish_encoded: the encoder gave a value of kind int64 for
 *   'x': give a string or bytes"`;
 * - the client refuses a publish, the flush fails or takes longer than
 *   `flush_timeout`, or `signal` fails: as for sk_nats_publish(), the
 *   messages naming this function (`"sk_nats_publish_encoded: cannot
 *   publish 2000000 bytes to 'x' (nats: Maximum Payload Exceeded)"`).
 *
 * Disposing disposes `signal`'s subscription; what was published stays
 * published.
 *
 * @param[out] out      Receives the new signal (+1): release it with
 *                      sk_signal_release(); NULL on error.
 * @param signal        Borrowed (retained by the new signal).
 * @param connection    Borrowed; must stay valid while the signal exists.
 * @param subject       As for sk_nats_publish() (checked here).
 * @param flush_timeout Seconds the flush on completion may take, > 0 and
 *                      finite.
 * @param encode        Required. Called once per value per subscription
 *                      with `ctx`, the value (borrowed for the call) and
 *                      `out` (nil on entry), which receives the encoding
 *                      (its reference taken by the library). It may fail
 *                      the stream with sk_callback_fail(), as an
 *                      sk_signal_map() function does.
 * @param ctx           Passed to `encode` and `release`.
 * @param release       May be NULL. Runs once, when the signal and its
 *                      subscriptions are gone; also when this call fails,
 *                      before it returns.
 * @return SK_OK; SK_ERR_NULL_ARGUMENT if `out`, `signal`, `connection`,
 *         `subject` or `encode` is NULL; SK_ERR_INVALID_ARGUMENT for a
 *         `flush_timeout` that is not > 0 and finite, or above 2^31 ms;
 *         SK_ERR_WRONG_KIND if `signal` is not a signal; SK_ERR_NO_MEMORY
 *         when the copy of `subject` cannot be allocated. On error
 *         `release` has run.
 * @par Thread safety
 *   Any thread. `encode` runs, and its result is published and the value
 *   passed on, on the thread that delivers each value (several threads at
 *   once when several deliver: keep `ctx`'s state synchronised); the flush
 *   as for sk_nats_publish().
 */
int sk_nats_publish_encoded(sk_signal **out, sk_signal *signal, natsConnection *connection, const char *subject,
                            double flush_timeout, sk_map_fn encode, void *ctx, sk_release_fn release);

/**
 * @brief A request as a signal: each start publishes `payload` to `subject`
 *        with a new reply subject, then emits the first reply and
 *        completes, or fails after `timeout`.
 *
 * Each start makes a new inbox (natsInbox_Create()), subscribes to it
 * (natsConnection_SubscribeTimeout(), `timeout`), then publishes the
 * request with that inbox as its reply subject
 * (natsConnection_PublishRequest()). The first reply is emitted as a value
 * of `shape`, then the signal completes, and the inbox is unsubscribed. It
 * fails (an error value of kind SK_KIND_STRING, see the file's comment)
 * when:
 *
 * - no reply came within `timeout`: `"sk_nats_request: no reply from 'x'
 *   within 0.25 s (nats: Timeout)"`;
 * - the server says no subscriber listens on `subject`:
 *   `"sk_nats_request: no responders for 'x' (nats: No responders
 *   available for request)"`;
 * - the client refuses the subscription to the reply inbox (a closed
 *   connection): `"sk_nats_request: cannot subscribe to the reply inbox
 *   of 'x' (nats: Connection Closed)"`; or the publish (a payload too
 *   large): `"sk_nats_request: cannot publish the request to 'x' (nats:
 *   Maximum Payload Exceeded)"`;
 * - the connection closes while it waits.
 *
 * Disposing unsubscribes the inbox; a reply that comes later is dropped by
 * the client.
 *
 * @param[out] out     Receives the new signal (+1): release it with
 *                     sk_signal_release(); NULL on error.
 * @param connection   Borrowed; must stay valid while the signal exists.
 * @param subject      Borrowed (copied): one a message may be published to,
 *                     checked here as by sk_nats_publish().
 * @param payload      Borrowed (copied: a string's bytes without the NUL,
 *                     or bytes); NULL for an empty request.
 * @param timeout      Seconds to wait for the reply, > 0 and finite.
 * @param shape        What the reply becomes (sk_nats_shape).
 * @return SK_OK; SK_ERR_NULL_ARGUMENT if `out`, `connection` or `subject`
 *         is NULL; SK_ERR_WRONG_KIND if `payload` is neither a string nor
 *         bytes; SK_ERR_INVALID_ARGUMENT for a `subject` no message may be
 *         published to (`"sk_nats_request: cannot publish to '': the
 *         subject is empty"`), a `timeout` that is not > 0
 *         and finite, or above 2^31 ms, for a `shape` that is no
 *         sk_nats_shape, or a malformed `payload`; SK_ERR_NO_MEMORY when
 *         the copies cannot be allocated.
 * @par Thread safety
 *   Any thread. The request is sent on the starting thread (whose refused
 *   subscription or publish fails it there); the reply, the completion and
 *   the timeout are delivered on the client's delivery thread of the
 *   inbox's subscription.
 */
int sk_nats_request(sk_signal **out, natsConnection *connection, const char *subject, const sk_value *payload,
                    double timeout, sk_nats_shape shape);

/**
 * @brief A service as a signal of the requests it answered: each start
 *        subscribes to `subject`, and each request's reply is the first
 *        value of the signal that `handler` makes for it; at most
 *        `max_concurrent` of those signals run at once.
 *
 * The signal is sk_signal_merge_map_bounded() over sk_nats_subject() with
 * SK_NATS_MESSAGE: each start subscribes to `subject` (in the queue group
 * `queue_group` when it is not NULL, so that several services share the
 * requests), and each request message (the SK_NATS_MESSAGE array) is
 * passed to `handler`, which returns a signal for it. The first value of
 * that signal, a string (its bytes, without the NUL) or bytes, is
 * published to the request's reply subject (SK_NATS_ITEM_REPLY) and the
 * handler's signal is disposed. The request is answered with the NATS
 * service protocol's error instead, an empty message with the headers
 * `Nats-Service-Error` (the text below; CR and LF become spaces) and
 * `Nats-Service-Error-Code` (`500`), when the handler's signal:
 *
 * - fails: its error value's text when it is a string
 *   ("not a number: 'x'"), else `"sk_nats_serve: the handler's signal
 *   failed with an error value of kind int64"`;
 * - completes without a value (NULL from `handler` is such a signal):
 *   `"sk_nats_serve: the handler's signal completed without a value"`;
 * - gives a first value of another kind: `"sk_nats_serve: the handler's
 *   signal gave a value of kind int64: give a string or bytes"`.
 *
 * The service goes on after each of these. Its values are the request
 * messages (SK_NATS_MESSAGE arrays, as `handler` received them), each
 * emitted once its reply or error reply has been published: a subscriber
 * counts or logs the requests answered. A request without a reply subject
 * (published with natsConnection_Publish()) is handled all the same, but
 * nothing is published for it: the outcome of its handler's signal is
 * dropped and the request is emitted as the others.
 *
 * Room. At most `max_concurrent` handlers' signals run at once; a request
 * that comes meanwhile waits for one to end, in order, in a bounded place
 * of `capacity` requests. A request that finds `capacity` waiting is
 * handled by `overflow` (sk_overflow): dropped without a reply and passed
 * to `on_drop` with the count of drops so far (SK_OVERFLOW_DROP_NEWEST,
 * SK_OVERFLOW_DROP_OLDEST, SK_OVERFLOW_LATEST: its requester times out,
 * unless `on_drop` answers it itself, say with an error to its reply
 * subject); the service fails at once with the library's overflow error
 * ("sk_signal_merge_map_bounded: overflow: ...", SK_OVERFLOW_ERROR); or
 * the client's delivery thread waits for room (SK_OVERFLOW_BLOCK):
 * requests then wait in the client, up to its pending limits, beyond which
 * the slow-consumer error of sk_nats_subject() ends the service. While that
 * thread waits it hears nothing else, so with SK_OVERFLOW_BLOCK the bridge
 * looks at the connection every 0.25 s (a timer on a serial queue of the
 * service's own): a connection closed meanwhile still ends the service
 * with the closing error below.
 *
 * The service never completes by itself. It ends with an error value,
 * after which the running handlers' signals are disposed and the requests
 * waiting dropped without a reply, when:
 *
 * - the client refuses the subscription, drops requests of a slow
 *   consumer, or closes the subscription: sk_nats_subject()'s errors,
 *   named after this function (`"sk_nats_serve: cannot subscribe to 'a b'
 *   (nats: Invalid Subject)"`);
 * - the client refuses to publish a reply (a closed connection, a reply
 *   larger than the server's maximum): `"sk_nats_serve: cannot publish the
 *   reply to a request on 'svc.x' (nats: Maximum Payload Exceeded)"`;
 * - `handler` fails its call with sk_callback_fail(): that error,
 *   unchanged; or returns a handle that is not a signal;
 * - SK_OVERFLOW_ERROR's overflow, as above.
 *
 * Disposing unsubscribes, as sk_nats_subject()'s dispose, and disposes the
 * running handlers' signals; the requests waiting are released without a
 * reply and without `on_drop`.
 *
 * @param[out] out          Receives the new signal (+1): release it with
 *                          sk_signal_release(); NULL on error.
 * @param connection        Borrowed; must stay valid while the signal
 *                          exists. Replies are published on it.
 * @param subject           Borrowed (copied). Checked by the client at each
 *                          start, not here.
 * @param queue_group       Borrowed (copied); NULL for none.
 * @param max_concurrent    The most handlers' signals running at once, >= 1.
 * @param capacity          The most requests waiting for one to end, >= 1.
 * @param overflow          An sk_overflow.
 * @param handler           Required. Called once per request (borrowed for
 *                          the call) with `ctx`; returns a signal (+1,
 *                          handed to the library) whose first value is the
 *                          reply, or NULL (an empty signal: an error reply).
 *                          It may call sk_callback_fail() to end the service
 *                          with an error, as any sk_signal_fn.
 * @param on_drop           May be NULL. Called with each request dropped
 *                          (the value, borrowed) and the subscription's count
 *                          of drops so far, never under a lock.
 * @param ctx               Passed to `handler`, `on_drop` and `release`.
 * @param release           May be NULL. Runs once, when the signal and its
 *                          subscriptions are gone and every libnats
 *                          subscription it made is over; also when this
 *                          call fails, before it returns.
 * @return SK_OK; SK_ERR_NULL_ARGUMENT if `out`, `connection`, `subject` or
 *         `handler` is NULL; SK_ERR_INVALID_ARGUMENT for a `max_concurrent`
 *         or `capacity` of 0 or an `overflow` that is no sk_overflow;
 *         SK_ERR_NO_MEMORY when the copies cannot be allocated;
 *         SK_ERR_RESOURCE when the system refuses the queue of the close
 *         watch (SK_OVERFLOW_BLOCK). On error `release` has run.
 * @par Thread safety
 *   Any thread. A start subscribes on the starting thread (a refused
 *   subscription's error is delivered there). `handler` runs on the
 *   client's delivery thread of the subscription when a request finds room,
 *   else on the thread where an earlier request's answer ended (the thread
 *   delivering its handler's signal's value or end); `on_drop`, and the
 *   waiting of SK_OVERFLOW_BLOCK, on the client's delivery thread. Each
 *   reply is published, and its request emitted, on the thread that
 *   delivers the first value, the error or the completion of that
 *   request's handler's signal (for a signal that emits as it starts, the
 *   thread that called `handler`); the subscription's errors on the
 *   client's delivery thread.
 */
int sk_nats_serve(sk_signal **out, natsConnection *connection, const char *subject, const char *queue_group,
                  size_t max_concurrent, size_t capacity, sk_overflow overflow, sk_signal_fn handler,
                  sk_drop_fn on_drop, void *ctx, sk_release_fn release);

/**
 * @brief When a message of sk_nats_js_consume() is acknowledged.
 */
typedef enum sk_nats_ack_mode {
    /** The bridge acknowledges each message (`+ACK`) once the observer's
     *  `next` has returned for it: a message whose `next` never ran
     *  because the bridge knew of the dispose first, or that ran while it
     *  learnt of it, is not acknowledged, and the server delivers it again
     *  after the consumer's AckWait. A dispose is no checkpoint, though:
     *  signalkit.h's subscriber says SK_OK both for a value it delivered
     *  and for one it dropped because the subscription is ending, so the
     *  messages put in the instant between the start of a dispose and the
     *  bridge's dispose action are acknowledged unseen (none in most runs
     *  of the tests; 32, of a capacity of 64, in one of about 25). For at least once across a dispose,
     *  use SK_NATS_ACK_EXPLICIT and acknowledge in `next`. */
    SK_NATS_ACK_AFTER_NEXT = 0,
    /** The observer acknowledges: each value is an SK_NATS_MESSAGE array
     *  with a fifth item, SK_NATS_ITEM_ACK, the message's acknowledgement
     *  handle, to pass (or the whole value) to sk_nats_ack(). */
    SK_NATS_ACK_EXPLICIT = 1
} sk_nats_ack_mode;

/** @brief Index of the acknowledgement handle (SK_KIND_POINTER, for
 *         sk_nats_ack()) in a value of sk_nats_js_consume() with
 *         SK_NATS_ACK_EXPLICIT. */
#define SK_NATS_ITEM_ACK 4

/**
 * @brief What sk_nats_ack() tells the server (JetStream's acknowledgement
 *        protocol).
 */
typedef enum sk_nats_ack_kind {
    /** Done with it (`+ACK`): the server will not deliver it again. */
    SK_NATS_ACK = 0,
    /** Not processed (`-NAK`): the server delivers it again soon. */
    SK_NATS_NAK = 1,
    /** Never deliver it again, not processed (`+TERM`). */
    SK_NATS_TERM = 2,
    /** Still working on it (`+WPI`): the server restarts its AckWait. The
     *  only kind that may follow another; the message still counts against
     *  the capacity. */
    SK_NATS_IN_PROGRESS = 3
} sk_nats_ack_kind;

/**
 * @brief A JetStream pull consumer as a signal: each start binds to the
 *        durable consumer `durable` and fetches only as many messages as
 *        the observer has room for, at least once.
 *
 * Each start makes a JetStream context on `connection` (natsConnection_JetStream(), with
 * `options`' Prefix, Domain and Wait when it is not NULL) and a pull
 * subscription to `subject` on the durable consumer `durable` of `stream`
 * (js_PullSubscribe(); libnats creates the consumer when it does not
 * exist: create it first with js_AddConsumer() to choose its AckWait,
 * MaxAckPending and the rest), on the starting thread. Then a thread of
 * the subscription's own fetches messages (natsSubscription_Fetch()) and
 * `queue` delivers them, each turned into a value of `shape`, in the
 * server's order.
 *
 * Room. At most `capacity` messages are held between the server and the
 * observer: fetched and not yet done with (in SK_NATS_ACK_AFTER_NEXT mode,
 * done when `next` has returned and the acknowledgement is sent; in
 * SK_NATS_ACK_EXPLICIT mode, when sk_nats_ack() has acknowledged it with
 * a kind other than SK_NATS_IN_PROGRESS, or when the last copy of its
 * handle is released). Each fetch asks for no more than the room left,
 * and at most 256; the fetching thread waits until at least half a batch
 * fits (one message for a capacity of 1). A slow observer therefore makes
 * messages wait on the server, not in memory, and nothing is ever dropped.
 * Keep `capacity` at most the consumer's MaxAckPending (1,000 by default).
 *
 * At least once. A message not acknowledged (its `next` never ran, the
 * subscription was disposed, the process died, an acknowledgement was lost
 * with a server) is delivered again by the server after the consumer's
 * AckWait: an observer may see a message twice (JetStream's metadata, in
 * the reply subject of SK_NATS_MESSAGE, tells a redelivery).
 *
 * Server restarts. The connection's own reconnection (natsOptions) brings
 * it back; the bridge never fetches while the connection is not
 * connected (it looks every 20 ms), and makes a new pull subscription
 * after each reconnection (natsConnection_GetStats()), whose messages
 * fetched before it are delivered as usual. These are also what libnats
 * 3.4.1 needs: its natsSubscription_Fetch() writes past its array when a
 * fetch begins with more than half a batch already received and more
 * arrive (after a reconnection, the fetch requests sent while
 * disconnected all answer at once); so a fetch that finds messages
 * already received asks for one only.
 *
 * The signal never completes by itself. It ends with an error value
 * (SK_KIND_STRING, see the file's comment), after the messages fetched
 * before it, when the client refuses the pull subscription at a start
 * (`"sk_nats_js_consume: cannot bind to the consumer 'd' of 's' (nats:
 * ...)"`, on the starting thread), when the connection is closed (seen
 * within 0.25 s, also while the observer holds the whole room:
 * `"sk_nats_js_consume: the connection of the consumer 'd' was closed
 * (nats: Connection Closed)"`), or when
 * a fetch fails otherwise than by a timeout or a disconnection (the
 * consumer deleted: `"sk_nats_js_consume: fetching from the consumer 'd'
 * failed (nats: ...)"`). A new subscription after a reconnection that the
 * server refuses is tried again every 20 ms for 30 s, then ends the same
 * way.
 *
 * Disposing stops the fetching thread (within one fetch: at most 0.25 s)
 * and lets go of the pull subscription with natsSubscription_Destroy(),
 * which keeps the durable consumer on the server; the messages fetched
 * and not delivered are not acknowledged (the server delivers them again
 * after AckWait). No value is delivered after the observer's `release`.
 *
 * @param[out] out    Receives the new signal (+1): release it with
 *                    sk_signal_release(); NULL on error.
 * @param connection  Borrowed; must stay valid while the signal exists.
 * @param options     Borrowed for the call (Prefix and Domain copied);
 *                    NULL for libnats's defaults. Its other fields are
 *                    ignored.
 * @param stream      Borrowed (copied); NULL to let libnats find the
 *                    stream of `subject`.
 * @param durable     Borrowed (copied): the durable consumer's name.
 * @param subject     Borrowed (copied): the consumer's filter subject.
 * @param shape       What each message becomes; SK_NATS_PAYLOAD is
 *                    refused with SK_NATS_ACK_EXPLICIT (the handle needs
 *                    the array).
 * @param ack         An sk_nats_ack_mode.
 * @param queue       Borrowed (retained by the signal): where values and
 *                    the error are delivered. NULL: a serial queue of the
 *                    signal's own, which all its subscriptions share.
 * @param capacity    The most messages held, >= 1 (see "Room").
 * @return SK_OK; SK_ERR_NULL_ARGUMENT if `out`, `connection`, `durable` or
 *         `subject` is NULL; SK_ERR_INVALID_ARGUMENT for an empty
 *         `subject`, a `durable` or `stream` that is no name the server
 *         takes (empty, or with whitespace, '.', '*', '>', '/' or '\\'),
 *         a `capacity` of 0, a `shape` or `ack` out of its enum, SK_NATS_PAYLOAD with
 *         SK_NATS_ACK_EXPLICIT; SK_ERR_WRONG_KIND if `queue` is a handle
 *         of another kind; SK_ERR_NO_MEMORY; SK_ERR_RESOURCE when the
 *         system refuses the signal's own queue.
 * @par Thread safety
 *   Any thread. A start binds on the starting thread (and fails there);
 *   values and errors are delivered on `queue`; the acknowledgements of
 *   SK_NATS_ACK_AFTER_NEXT are sent from `queue` too. Each subscription
 *   has one thread of its own while it runs.
 */
int sk_nats_js_consume(sk_signal **out, natsConnection *connection, const jsOptions *options, const char *stream,
                       const char *durable, const char *subject, sk_nats_shape shape, sk_nats_ack_mode ack,
                       sk_queue *queue, size_t capacity);

/**
 * @brief Acknowledges a message of sk_nats_js_consume() in
 *        SK_NATS_ACK_EXPLICIT mode.
 *
 * Publishes JetStream's acknowledgement of `kind` to the message's reply
 * subject on the consumer's connection. A message is acknowledged once:
 * after an SK_NATS_ACK, SK_NATS_NAK or SK_NATS_TERM, a later call does
 * nothing and returns SK_OK; SK_NATS_IN_PROGRESS may be sent any number of
 * times before. The first acknowledgement of a kind other than
 * SK_NATS_IN_PROGRESS gives its room back to the consumer (see
 * sk_nats_js_consume(), "Room"), also when publishing it failed.
 *
 * The handle keeps the message (and the consumer's bookkeeping) alive,
 * not the connection: the connection given to sk_nats_js_consume() must
 * stay valid as long as a handle of it exists, also after the signal is
 * released.
 *
 * @param message  Borrowed: the value received (the SK_NATS_MESSAGE array
 *                 of five items), or its SK_NATS_ITEM_ACK item, or a copy
 *                 of either.
 * @param kind     An sk_nats_ack_kind.
 * @return SK_OK; SK_ERR_NULL_ARGUMENT if `message` is NULL;
 *         SK_ERR_INVALID_ARGUMENT if it is not such a value (a pointer
 *         value of another origin is recognised by a tag word: pass none
 *         that points to less than 8 bytes) or `kind` is no
 *         sk_nats_ack_kind; SK_ERR_RESOURCE when the client refuses the
 *         publish (a closed connection; while reconnecting it is
 *         buffered): the message then says why, in the client's words.
 * @par Thread safety
 *   Any thread; a handle may be acknowledged from several threads at once
 *   (one of them sends it).
 */
int sk_nats_ack(const sk_value *message, sk_nats_ack_kind kind);

/**
 * @brief A signal that publishes each value of `signal` to JetStream and
 *        waits for the server's acknowledgement of each, retrying on a
 *        timeout with the same message ID: at least once, with at most
 *        `window` publishes awaiting their acknowledgement.
 *
 * Each start makes a JetStream context on `connection` (natsConnection_JetStream(), with
 * `options`' Prefix, Domain and Wait; its asynchronous publish handlers
 * are the bridge's, which is why it takes the connection, not a jsCtx),
 * then starts `signal`. Each value, a string (its bytes, without the NUL)
 * or bytes, is published with js_PublishMsgAsync(), with a message ID
 * (`<id_prefix>.<n>`, n = 1, 2, ... in the order of the values) and a
 * MaxWait of `ack_wait`. When `window` publishes await their
 * acknowledgement, the thread delivering the next value waits (the
 * "block" policy; for a bounded place with another policy, so that the
 * producer never waits, use sk_nats_js_publish_bounded()). A publish whose acknowledgement did not come within `ack_wait`
 * (a server that died, a connection reconnecting) is published again with
 * the same message ID, at most `attempts` times in all: the stream's
 * duplicate window (2 minutes by default) makes the server store it once.
 * A publish answered "no responders" (no stream listens on the subject,
 * JetStream is restarting, a clustered stream elects its leader) is tried
 * again after 50 ms, within the same count: `attempts` of them last about
 * `attempts` x 50 ms, so give a cluster's failover time over 50 ms (docs/nats.md).
 *
 * Each acknowledgement emits an SK_KIND_INT64 value: the stream sequence
 * the server stored the message at (for a duplicate, the first copy's),
 * in the order the acknowledgements come (not always the values' order
 * when publishes were retried). When `signal` completes, the signal
 * completes once every publish is acknowledged. It fails, disposing
 * `signal`'s subscription, when:
 *
 * - a value is neither a string nor bytes: `"sk_nats_js_publish: cannot
 *   publish a value of kind int64 to 'x': give a string or bytes"`;
 * - the client refuses a publish (a payload too large, a closed
 *   connection): `"sk_nats_js_publish: cannot publish message 7 to 'x'
 *   (nats: Maximum Payload Exceeded)"`;
 * - a publish is not acknowledged after `attempts` attempts, or the server
 *   refuses it (a stream limit, an expectation): `"sk_nats_js_publish:
 *   message 7 to 'x' was not acknowledged after 3 attempts (nats: No
 *   responders available for request)"`;
 * - the connection closes while publishes await their acknowledgement
 *   (libnats would never report them: the bridge looks at the connection
 *   every 0.25 s while any is awaited): `"sk_nats_js_publish: the
 *   connection was closed while 2 messages to 'x' awaited their
 *   acknowledgement (nats: Connection Closed)"`;
 * - `signal` fails: its error passes on unchanged.
 *
 * Disposing disposes `signal`'s subscription; publishes awaiting their
 * acknowledgement are not retried any more. The subscription's state
 * (its JetStream context) is freed once each of them has its
 * acknowledgement or its timeout (within `ack_wait`), or, when the
 * connection closes meanwhile, within 0.25 s of the close.
 *
 * @param[out] out     Receives the new signal (+1): release it with
 *                     sk_signal_release(); NULL on error.
 * @param signal       Borrowed (retained by the new signal).
 * @param connection   Borrowed; must stay valid while the signal exists.
 * @param options      As for sk_nats_js_consume().
 * @param subject      Borrowed (copied): one a message may be published to,
 *                     checked here as by sk_nats_publish().
 * @param id_prefix    Borrowed (copied); NULL: a new unique one per start
 *                     (a NUID). Give your own to have the server drop the
 *                     copies that a restarted producer publishes again.
 * @param window       The most publishes awaiting acknowledgement, >= 1.
 * @param ack_wait     Seconds to wait for each acknowledgement, > 0 and
 *                     finite.
 * @param attempts     The most publishes of one value, >= 1.
 * @return SK_OK; SK_ERR_NULL_ARGUMENT if `out`, `signal`, `connection` or
 *         `subject` is NULL; SK_ERR_INVALID_ARGUMENT for a `subject` no
 *         message may be published to, a `window` or `attempts` of 0 or an
 *         `ack_wait` that is not > 0 and finite (or above 2^31 ms);
 *         SK_ERR_WRONG_KIND if `signal` is a handle of another kind;
 *         SK_ERR_NO_MEMORY.
 * @par Thread safety
 *   Any thread. Values are published on the thread that delivers them
 *   (which may wait for room); acknowledgements, the values they emit,
 *   retries, failures and the completion after the last acknowledgement
 *   come on the client's thread of the context's acknowledgements (a
 *   retry after "no responders" on a queue of the library's).
 */
int sk_nats_js_publish(sk_signal **out, sk_signal *signal, natsConnection *connection, const jsOptions *options,
                       const char *subject, const char *id_prefix, size_t window, double ack_wait,
                       unsigned attempts);

/**
 * @brief sk_nats_js_publish() for a producer that must not wait for the
 *        server: the values that lag behind the acknowledgements wait in a
 *        bounded place of at most `capacity`, `overflow` deciding about the
 *        next.
 *
 * The signal is sk_nats_js_publish() over sk_signal_deliver_on_bounded() of
 * `signal`, as sk_nats_subject_bounded() is built: the thread that delivers
 * each value of `signal` puts it into a bounded place and returns; `queue`
 * takes the values out one at a time, in order, publishes each as
 * sk_nats_js_publish() does, and waits there while `window` publishes await
 * their acknowledgement. Everything else (message IDs, retries, the values
 * emitted, the completion once every publish is acknowledged, the errors
 * and their words, which name sk_nats_js_publish()) is sk_nats_js_publish()'s.
 * A value that finds `capacity` values waiting (not yet published) is
 * handled by `overflow` (sk_overflow):
 *
 * - SK_OVERFLOW_DROP_NEWEST, SK_OVERFLOW_DROP_OLDEST, SK_OVERFLOW_LATEST:
 *   a value not yet published is dropped (the one arriving, the oldest
 *   waiting, the newest waiting: the policy's) and passed to `on_drop`
 *   with the count of drops so far; a value is either published (and
 *   acknowledged, or the stream fails) or dropped, never both, and a
 *   dropped one is never published;
 * - SK_OVERFLOW_ERROR: the values waiting are published, then the stream
 *   fails with the library's overflow error
 *   (`"sk_signal_deliver_on_bounded: overflow: a value arrived with 4
 *   values pending (capacity 4, policy error)"`), without waiting for
 *   their acknowledgements; the value that overflowed, and those put until
 *   the error reaches the queue, are dropped (`on_drop`);
 * - SK_OVERFLOW_BLOCK: the producing thread waits for room, as with
 *   sk_nats_js_publish() but `capacity` values later.
 *
 * Disposing disposes `signal`'s subscription; the values waiting are
 * released without being published or passed to `on_drop`; the publishes
 * awaiting acknowledgement as for sk_nats_js_publish().
 *
 * @param[out] out     Receives the new signal (+1): release it with
 *                     sk_signal_release(); NULL on error.
 * @param signal       As for sk_nats_js_publish().
 * @param connection   As for sk_nats_js_publish().
 * @param options      As for sk_nats_js_publish().
 * @param subject      As for sk_nats_js_publish().
 * @param id_prefix    As for sk_nats_js_publish().
 * @param window       As for sk_nats_js_publish().
 * @param ack_wait     As for sk_nats_js_publish().
 * @param attempts     As for sk_nats_js_publish().
 * @param queue        Borrowed (retained by the signal): where the values are
 *                     published, and waited for room in the window (a
 *                     worker of a concurrent queue, or a serial queue's turn,
 *                     is held meanwhile). NULL: a serial queue of the
 *                     signal's own, which all its subscriptions share (one
 *                     waiting for its window holds the others').
 * @param capacity     The most values waiting to be published, >= 1.
 * @param overflow     An sk_overflow.
 * @param on_drop      May be NULL. Called with each dropped value (borrowed)
 *                     and the subscription's count of drops so far, on the
 *                     producing thread, never under a lock.
 * @param ctx          Passed to `on_drop` and `release`.
 * @param release      May be NULL. Runs once, when the signal and its
 *                     subscriptions are gone; also when this call fails,
 *                     before it returns.
 * @return SK_OK; SK_ERR_NULL_ARGUMENT, SK_ERR_INVALID_ARGUMENT and
 *         SK_ERR_NO_MEMORY as sk_nats_js_publish(); SK_ERR_INVALID_ARGUMENT
 *         for a `capacity` of 0 or an `overflow` that is no sk_overflow;
 *         SK_ERR_WRONG_KIND if `signal` is not a signal or `queue` not a
 *         queue; SK_ERR_RESOURCE when the system refuses the queue (see
 *         signalkit.h). On error `release` has run.
 * @par Thread safety
 *   Any thread. The producing thread puts and returns (with
 *   SK_OVERFLOW_BLOCK it may wait for room), and runs `on_drop`; values are
 *   published on `queue`, which waits for room in the window; the
 *   acknowledgements, the values they emit, retries, failures and the
 *   completion as for sk_nats_js_publish().
 */
int sk_nats_js_publish_bounded(sk_signal **out, sk_signal *signal, natsConnection *connection,
                               const jsOptions *options, const char *subject, const char *id_prefix, size_t window,
                               double ack_wait, unsigned attempts, sk_queue *queue, size_t capacity,
                               sk_overflow overflow, sk_drop_fn on_drop, void *ctx, sk_release_fn release);

/** @} */

#ifdef __cplusplus
}
#endif

#endif /* SIGNALKIT_NATS_H */
