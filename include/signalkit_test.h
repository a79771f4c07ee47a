/**
 * @file signalkit_test.h
 * @brief Virtual time and marble tests for C programs (libsignalkit).
 *
 * Deterministic tests of time: a virtual-time queue, usable wherever an
 * sk_queue is, runs its work, its timers and the time-based operators given
 * it (sk_signal_delay(), sk_signal_timeout(), sk_signal_debounce(),
 * sk_signal_throttle(), sk_signal_retry(), sk_signal_deliver_on(),
 * sk_signal_run_on(), sk_queue_after(), sk_timer_start()) only when the test
 * advances its clock; test signals play a marble diagram on it, and a
 * recorder prints what a signal delivered back as a diagram:
 *
 * @code
 * sk_queue *queue;
 * sk_signal *source, *debounced;
 * sk_test_recorder *recorder;
 * char actual[64];
 * sk_queue_create_virtual(&queue, "test");
 * sk_test_signal_cold(&source, NULL, queue, 0.001, "-a-b-------c|", NULL, 0, NULL);
 * sk_signal_debounce(&debounced, source, 0.003, queue);
 * sk_test_record(&recorder, debounced, queue, 0.001);
 * sk_queue_virtual_run(queue, 0, NULL);
 * sk_test_recorder_diagram(recorder, NULL, 0, actual, sizeof actual, NULL);
 * // actual is "------b-----(c|)"
 * @endcode
 *
 * The @ref conventions "conventions" of signalkit.h hold for every function
 * declared here. The diagrams are those of the Swift library
 * SwiftSignalKitTesting (`Marbles`), one character a frame:
 *
 * - `-`: a frame passes; an ASCII letter or digit: a value, then a frame
 *   passes; `|`: the completion; `#`: the error; `(ab)`: several events in
 *   one frame, which the group as a whole takes; `^`: the subscription point
 *   of a hot signal, taking no frame (in a cold diagram it is an error);
 *   spaces are ignored. Any other character, a non-ASCII one (`é`) included,
 *   is an error naming its position (in characters from 0), and so are an
 *   event after the terminal event (`a|b`, `a||`), an empty group `()`, a
 *   group inside a group, a group not closed, a `)` without its `(`, and a
 *   second `^`. A hot diagram need not have a `^`: without one it plays
 *   from the frame of the call, as if it began with `^`. (The Swift
 *   parser, `Marbles.parse`, also takes a non-ASCII letter or digit as a
 *   value; its TestScheduler's cold signals refuse `^` as these do.)
 * - A frame lasts `frame` seconds of the queue's virtual clock, rounded to
 *   whole nanoseconds; frame 0 is the clock's 0.
 */
#ifndef SIGNALKIT_TEST_H
#define SIGNALKIT_TEST_H

#include "signalkit.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------------ */
/* Virtual time                                                              */
/* ------------------------------------------------------------------------ */

/**
 * @defgroup virtual_time Virtual time
 * @brief A queue whose clock moves only when a test moves it.
 * @{
 */

/**
 * @brief A new virtual-time queue, its clock at 0.
 *
 * A serial queue whose work (sk_queue_async(), sk_queue_after(), timers,
 * the deliveries and timers of the operators given it) runs only inside
 * sk_queue_virtual_advance_by(), sk_queue_virtual_advance_to() and
 * sk_queue_virtual_run(): in deadline order, ties in the order the work was
 * scheduled, on the advancing thread, with the clock at each task's
 * deadline. sk_queue_is_current() is true inside that work, so
 * sk_queue_async() from it runs inline. sk_queue_sync() from outside runs
 * the work due now, then `fn`, on the calling thread, as an advance by 0
 * does (so an advance from a third thread meanwhile is SK_ERR_BUSY); while
 * another thread advances the queue, that thread runs `fn` and the caller
 * waits for it.
 * Releasing the last handle drops the pending work (each `release(ctx)`
 * runs on the releasing thread) and any later work; an sk_queue_sync() that
 * waits for another thread's advance meanwhile returns SK_ERR_RELEASED, its
 * work dropped. Signals and subscriptions that use the queue (test
 * signals, operators given it) do not keep it open: their later events are
 * dropped with the rest. Released from its own work during an advance, the
 * queue runs no task after that one: the advance returns SK_OK (`out_ran`
 * counting the tasks that ran) and the rest is dropped.
 *
 * @param[out] out  Receives the new queue (+1): release it with
 *                  sk_queue_release(); NULL on error.
 * @param name      Borrowed (copied), may be NULL: a label.
 * @return SK_OK; SK_ERR_NULL_ARGUMENT if `out` is NULL.
 * @par Thread safety
 *   Any thread. Its work runs on the thread that advances it.
 */
int sk_queue_create_virtual(sk_queue **out, const char *name);

/**
 * @brief Moves a virtual-time queue's clock `seconds` forward, running every
 *        task due by then, tasks they schedule included.
 * @param queue         Borrowed.
 * @param seconds       The duration, >= 0, rounded to whole nanoseconds.
 * @param[out] out_ran  May be NULL; receives how many tasks ran.
 * @return SK_OK; SK_ERR_NULL_ARGUMENT if `queue` is NULL; SK_ERR_WRONG_KIND
 *         for other queues; SK_ERR_INVALID_ARGUMENT for a negative,
 *         infinite or NaN duration, or one that would move the clock past
 *         its end (2^63 ns, about 292 years, from its start; the message,
 *         sk_last_error_message(), says which); SK_ERR_UNSUPPORTED when
 *         called from work of the same queue; SK_ERR_BUSY when another
 *         thread is advancing it
 *         (in these cases nothing ran); SK_ERR_RESOURCE when 1,000,000 tasks
 *         ran and more were due (the clock stays at the last one's
 *         deadline).
 * @par Thread safety
 *   Any thread, one at a time per queue. The tasks run on the calling
 *   thread.
 */
int sk_queue_virtual_advance_by(sk_queue *queue, double seconds, size_t *out_ran);

/**
 * @brief Moves a virtual-time queue's clock to `seconds` since it was made,
 *        running every task due by then.
 * @param queue         Borrowed.
 * @param seconds       The time, not before the clock's, rounded to whole
 *                      nanoseconds. Past 2^52 ns (about 52 days), a time
 *                      in seconds as a double can round to a nanosecond or
 *                      more off the one meant: to move there by exact
 *                      frames, use sk_queue_virtual_advance_by() with their
 *                      duration (exact for durations up to 2^52 ns).
 * @param[out] out_ran  May be NULL; receives how many tasks ran.
 * @return As sk_queue_virtual_advance_by() (SK_ERR_INVALID_ARGUMENT for a
 *         time at or past the clock's end); SK_ERR_INVALID_ARGUMENT also for
 *         a time before the clock's (nothing ran).
 * @par Thread safety
 *   Any thread, one at a time per queue. The tasks run on the calling
 *   thread.
 */
int sk_queue_virtual_advance_to(sk_queue *queue, double seconds, size_t *out_ran);

/**
 * @brief Runs a virtual-time queue until no work is left, moving its clock
 *        to each task's deadline in turn.
 * @param queue         Borrowed.
 * @param max_tasks     Stops after this many tasks when more are due (work
 *                      that always schedules more, such as a repeating
 *                      timer); 0 means 1,000,000.
 * @param[out] out_ran  May be NULL; receives how many tasks ran.
 * @return As sk_queue_virtual_advance_by(); SK_ERR_RESOURCE when it stopped
 *         at `max_tasks` with more due.
 * @par Thread safety
 *   Any thread, one at a time per queue. The tasks run on the calling
 *   thread.
 */
int sk_queue_virtual_run(sk_queue *queue, size_t max_tasks, size_t *out_ran);

/**
 * @brief The clock of a virtual-time queue.
 * @param queue                 Borrowed.
 * @param[out] out_nanoseconds  Receives the time in nanoseconds since the
 *                              queue was made (inside work: its deadline).
 * @return SK_OK; SK_ERR_NULL_ARGUMENT for a NULL argument; SK_ERR_WRONG_KIND
 *         for other queues.
 * @par Thread safety
 *   Any thread.
 */
int sk_queue_virtual_now(sk_queue *queue, int64_t *out_nanoseconds);

/**
 * @brief How many tasks of a virtual-time queue are scheduled and have
 *        neither run nor been cancelled (a stopped timer's task is dropped
 *        at once).
 * @param queue           Borrowed.
 * @param[out] out_count  Receives the count.
 * @return SK_OK; SK_ERR_NULL_ARGUMENT for a NULL argument; SK_ERR_WRONG_KIND
 *         for other queues.
 * @par Thread safety
 *   Any thread.
 */
int sk_queue_virtual_pending(sk_queue *queue, size_t *out_count);

/** @} */

/* ------------------------------------------------------------------------ */
/* Marble tests                                                              */
/* ------------------------------------------------------------------------ */

/**
 * @defgroup marbles Marble tests
 * @brief Test signals played from diagrams, and a recorder that prints what
 *        a signal delivered as a diagram.
 * @{
 */

/**
 * @brief One entry of a value table: the value a diagram's character stands
 *        for.
 *
 * A table is an array of entries, each character (an ASCII letter or
 * digit) at most once. Without a table (NULL, 0), a letter or digit stands
 * for itself as a one-character string value. With one, every letter or
 * digit of the diagram must have its entry: one without is an error
 * (SK_ERR_INVALID_ARGUMENT, "no value for `a`"), a digit included.
 */
typedef struct sk_marble_value {
    char symbol;     /**< A letter or digit of the diagrams. */
    sk_value value;  /**< The value it stands for (borrowed by the calls). */
} sk_marble_value;

typedef struct sk_test_recorder sk_test_recorder; /**< @brief Records what a signal delivered, with virtual times. */
typedef struct sk_test_subscriptions sk_test_subscriptions; /**< @brief The subscription log of a test signal. */

/**
 * @brief A cold test signal: each subscription plays the diagram from its
 *        own start on a virtual-time queue.
 *
 * An event at frame t of the diagram comes at the start of the frame t
 * frames after the one the subscription was made in (the clock's frame,
 * rounded down), as work of `queue` (events of one frame in the diagram's
 * order; those of frame 0 at once, at the next advance when subscribed from
 * outside the queue). The events play on the grid of frames: a subscription
 * made in the middle of a frame (behind sk_queue_after() or a delay that is
 * not a whole number of frames) gets its frame-t event less than t frames
 * after it (1 ms frames, subscribed at 1.5 ms: frame 2 of the diagram at
 * 3 ms).
 * Disposing a subscription stops its events and drops their tasks
 * (sk_queue_virtual_pending() no longer counts them). A subscription made so late
 * that some of its frames fall past the clock's end (2^63 ns) plays only the
 * events before the end: the later ones, its terminal event included, never
 * come (no error: the diagram was valid when made).
 *
 * @param[out] out  Receives the signal (+1): release it with
 *                  sk_signal_release(); NULL on error.
 * @param[out] out_subscriptions  May be NULL. Receives the signal's
 *                  subscription log (+1): read it with
 *                  sk_test_subscriptions_text(), release it with
 *                  sk_test_subscriptions_release(); NULL on error.
 * @param queue     Borrowed: a virtual-time queue (sk_queue_create_virtual()).
 * @param frame     How long a frame lasts, in seconds, rounded to whole
 *                  nanoseconds: at least 1 ns, at most 1e9 s.
 * @param diagram   Borrowed, NUL-terminated: the diagram (see the file's
 *                  documentation).
 * @param values    Borrowed (copied): the value table; may be NULL, for
 *                  characters that are their own values.
 * @param count     The number of entries of `values`.
 * @param error     Borrowed (copied): the error of `#`; may be NULL for nil.
 * @return SK_OK; SK_ERR_NULL_ARGUMENT (out, queue, diagram, or values with
 *         count not 0); SK_ERR_WRONG_KIND when `queue` is not a virtual-time
 *         queue; SK_ERR_INVALID_ARGUMENT for a frame out of that range, a
 *         malformed value, a table symbol that is not an ASCII letter or
 *         digit or is there twice, a diagram that does not parse (the
 *         message names the position: "sk_test_signal_cold: marble
 *         diagram: unexpected character `!` at position 3:", then the
 *         diagram and a caret under the character on lines of their own;
 *         a diagram of more than 160 bytes is quoted from 60 characters
 *         before the position to 20 after it, `...` marking each cut),
 *         or one whose last frame is past the clock's end (2^63 ns).
 * @par Thread safety
 *   Any thread. Its events are delivered on the thread that advances
 *   `queue`.
 */
int sk_test_signal_cold(sk_signal **out, sk_test_subscriptions **out_subscriptions, sk_queue *queue, double frame,
                        const char *diagram, const sk_marble_value *values, size_t count, const sk_value *error);

/**
 * @brief A hot test signal: the diagram plays once on a virtual-time queue,
 *        from the clock's current time (its `^`), to whoever is subscribed.
 *
 * An event at frame t after `^` comes at the start of the frame t frames
 * after the one this call was made in (the clock's frame, rounded down, as
 * for sk_test_signal_cold()), to the subscribers present then; events before `^` are seen by no one; a
 * subscription after the terminal event sees nothing. Where events and a
 * subscription fall in the same frame, the queue's ties decide (submission
 * order): this call's events come before a subscription that work
 * scheduled after this call makes, and after one that work scheduled
 * before this call makes (which so sees that frame's events).
 *
 * @param[out] out  Receives the signal (+1): release it with
 *                  sk_signal_release(); NULL on error.
 * @param[out] out_subscriptions  May be NULL; as for sk_test_signal_cold().
 * @param queue     Borrowed: a virtual-time queue.
 * @param frame     As for sk_test_signal_cold().
 * @param diagram   Borrowed, NUL-terminated: the diagram.
 * @param values    Borrowed (copied): the value table; may be NULL.
 * @param count     The number of entries of `values`.
 * @param error     Borrowed (copied): the error of `#`; may be NULL for nil.
 * @return As sk_test_signal_cold(); its last frame is counted from the
 *         clock's current frame, so that near the clock's end a diagram
 *         whose events would not all come is SK_ERR_INVALID_ARGUMENT.
 * @par Thread safety
 *   Any thread. Its events are delivered on the thread that advances
 *   `queue`.
 */
int sk_test_signal_hot(sk_signal **out, sk_test_subscriptions **out_subscriptions, sk_queue *queue, double frame,
                       const char *diagram, const sk_marble_value *values, size_t count, const sk_value *error);

/**
 * @brief Prints a test signal's subscription log: when each subscription
 *        started and was disposed, in frames.
 *
 * One entry per subscription, in the order they started, separated by
 * spaces: `^S !D` (subscribed at frame S, disposed at frame D), or `^S`
 * while still subscribed; "" when there was none. "^0 !2 ^4 !6": two
 * subscriptions, the second from frame 4 to frame 6.
 *
 * @param subscriptions   Borrowed.
 * @param[out] buffer     Receives the text, NUL-terminated, truncated to
 *                        `size - 1` characters; may be NULL when `size` is 0.
 * @param size            The size of `buffer` in bytes.
 * @param[out] out_length May be NULL; receives the text's full length
 *                        (without the NUL), which may be more than `buffer`
 *                        holds, so a caller can size a buffer.
 * @return SK_OK; SK_ERR_NULL_ARGUMENT (subscriptions, or buffer with size
 *         not 0); SK_ERR_WRONG_KIND when `subscriptions` is not a
 *         subscription log.
 * @par Thread safety
 *   Any thread.
 */
int sk_test_subscriptions_text(sk_test_subscriptions *subscriptions, char *buffer, size_t size, size_t *out_length);

/**
 * @brief Drops a reference to a subscription log.
 * @param subscriptions  The reference to drop (owned by the caller,
 *                       consumed). NULL is a no-op.
 * @par Thread safety
 *   Any thread.
 */
void sk_test_subscriptions_release(sk_test_subscriptions *subscriptions);

/**
 * @brief Subscribes to a signal now and records what it delivers, with the
 *        virtual time of each event.
 * @param[out] out  Receives the recorder (+1): release it with
 *                  sk_test_recorder_release(); NULL on error.
 * @param signal    Borrowed; started at once, on the calling thread.
 * @param queue     Borrowed: the virtual-time queue whose clock times the
 *                  events.
 * @param frame     How long a frame lasts, in seconds, rounded to whole
 *                  nanoseconds: at least 1 ns, at most 1e9 s.
 * @return SK_OK; SK_ERR_NULL_ARGUMENT (out, signal, queue);
 *         SK_ERR_WRONG_KIND when `queue` is not a virtual-time queue;
 *         SK_ERR_INVALID_ARGUMENT for a frame out of that range.
 * @par Thread safety
 *   Any thread. Events are recorded on whatever thread delivers them.
 */
int sk_test_record(sk_test_recorder **out, sk_signal *signal, sk_queue *queue, double frame);

/**
 * @brief Prints what a recorder recorded so far as a canonical diagram.
 *
 * Each event goes in the frame it fell in (the clock's time divided by the
 * frame, rounded down); several in one frame print as a group; every error
 * prints as `#`. A value prints as the character `values` gives it (compared
 * with sk_value_equal()), or, without a table, as itself when it is a
 * one-character string of a letter or digit; otherwise as `?`, which no
 * diagram contains.
 *
 * @param recorder        Borrowed.
 * @param values          Borrowed: the value table; may be NULL.
 * @param count           The number of entries of `values`.
 * @param[out] buffer     Receives the diagram, NUL-terminated, truncated to
 *                        `size - 1` characters; may be NULL when `size` is 0.
 * @param size            The size of `buffer` in bytes.
 * @param[out] out_length May be NULL; receives the diagram's full length
 *                        (without the NUL), which may be more than `buffer`
 *                        holds, so a caller can size a buffer.
 * @return SK_OK; SK_ERR_NULL_ARGUMENT (recorder, or values with count not 0,
 *         or buffer with size not 0); SK_ERR_WRONG_KIND when `recorder` is
 *         not a recorder; SK_ERR_INVALID_ARGUMENT for a malformed table (as
 *         for sk_test_signal_cold()); SK_ERR_RESOURCE, with `*out_length`
 *         0, for an event in frame 2^24 or later: the diagram would be
 *         longer than 2^24 characters (a clock advanced far from its 0).
 * @par Thread safety
 *   Any thread.
 */
int sk_test_recorder_diagram(sk_test_recorder *recorder, const sk_marble_value *values, size_t count,
                             char *buffer, size_t size, size_t *out_length);

/**
 * @brief Disposes the recorded subscription: nothing more is recorded.
 * @param recorder  Borrowed; NULL is a no-op.
 * @par Thread safety
 *   Any thread.
 */
void sk_test_recorder_dispose(sk_test_recorder *recorder);

/**
 * @brief Drops a reference to a recorder; the last one disposes its
 *        subscription.
 * @param recorder  The reference to drop (owned by the caller, consumed).
 *                  NULL is a no-op.
 * @par Thread safety
 *   Any thread.
 */
void sk_test_recorder_release(sk_test_recorder *recorder);

/** @} */

#ifdef __cplusplus
}
#endif

#endif /* SIGNALKIT_TEST_H */
