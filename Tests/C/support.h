/*
 * support.h - shared helpers of the C test suite.
 *
 * - recorder: a thread-safe sk_observer that logs every event (kind, value,
 *   thread) and counts next / error / completed / release, with a deadline
 *   wait on a condition variable (never a sleep).
 * - counter: a thread-safe hit counter usable as an sk_release_fn or an
 *   sk_work_fn, with the same kind of deadline wait.
 * - expect_no_live_objects(): the end-of-test leak check: flushes the queues
 *   it is given (sk_queue_sync on serial queues, a drain on host-drained
 *   ones) so that asynchronous work is over, releases them, then asserts
 *   sk_live_objects() == 0.
 * - small wrappers for values, signals and time.
 *
 * The harness (Tests/harness/harness.h) runs every test in a process of its
 * own, forked from a runner that never calls the library, so
 * sk_live_objects() starts at 0 in each test.
 */
#ifndef SK_TEST_SUPPORT_H
#define SK_TEST_SUPPORT_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <signalkit.h>

#include "../harness/harness.h"

/* The per-test timeout: a hang fails the test instead of blocking CI.
 * Generous, as SK_WAIT_SECONDS, so that a loaded machine passes (issue 50:
 * group_by_loses_no_value_under_threads took 20.5 s under TSan at a load
 * average of 15 to 20 on 2 cores, and timed out at 20). */
#define SK_TEST_TIMEOUT 120

/* Every wait for something asynchronous gives it this long (a deadline, not
 * a delay: the wait returns as soon as the condition holds). The Swift
 * suite's waitDeadline is the same figure. */
#define SK_WAIT_SECONDS 60.0

/* Asserts that a call returned SK_OK, printing the library's message if not. */
#define SK_OK_OR_FAIL(call)                                                     \
    do {                                                                        \
        int sk_status_ = (call);                                                \
        cr_assert_eq(sk_status_, SK_OK, "%s returned %d (%s): %s", #call,       \
                     sk_status_, sk_status_string(sk_status_),                  \
                     sk_last_error_message());                                  \
    } while (0)

/* The same for code that may run on another thread than the test's, or in a
 * process the test forked: prints and aborts the process (the harness
 * reports the test as crashed, signal 6). (The harness's assertions end the
 * test from any thread too.) */
#define SK_OK_OR_ABORT(call)                                                    \
    do {                                                                        \
        int sk_status_ = (call);                                                \
        if (sk_status_ != SK_OK) {                                              \
            sk_test_abort(#call, sk_status_);                                   \
        }                                                                       \
    } while (0)

void sk_test_abort(const char *call, int status);

/* ------------------------------------------------------------------------ */
/* Time                                                                      */
/* ------------------------------------------------------------------------ */

/* Seconds on a monotonic clock. */
double now_seconds(void);

/* True when `fd` is readable right now (poll with a zero timeout). */
bool fd_readable_now(int fd);

/* Waits (poll, with a deadline) until `fd` is readable; false on timeout. */
bool fd_wait_readable(int fd, double seconds);

/* ------------------------------------------------------------------------ */
/* Recorder                                                                  */
/* ------------------------------------------------------------------------ */

typedef enum rec_event_kind {
    REC_NEXT = 'n',
    REC_ERROR = 'e',
    REC_COMPLETED = 'c',
    REC_RELEASE = 'r'
} rec_event_kind;

typedef struct rec_event {
    rec_event_kind kind;
    pthread_t thread;
    sk_value value; /* a copy (owned by the recorder) of the value or error; nil otherwise */
} rec_event;

#define REC_MAX_EVENTS 512

typedef struct recorder recorder;

/* Called after an event was recorded, outside the recorder's lock, on the
 * thread of the callback. */
typedef void (*rec_hook_fn)(recorder *r, const sk_value *value);

struct recorder {
    pthread_mutex_t mutex;
    pthread_cond_t cond;
    int nexts;
    int errors;
    int completions;
    int releases;
    /* Callbacks that arrived after a terminal event or after the release:
     * the contract says none may. */
    int late_events;
    /* Callbacks that overlapped another callback of this recorder (only
     * meaningful for sources that promise serial delivery). */
    int overlaps;
    int in_callback;
    /* Callbacks that received a NULL value, or whose value could not be
     * copied. Counted in the callback and asserted by the test, on its own
     * thread. */
    int faults;
    /* The log: the first REC_MAX_EVENTS events, in order. */
    rec_event events[REC_MAX_EVENTS];
    size_t event_count;
    size_t dropped_events;
    /* Optional hooks, run after recording next / error / completed. */
    rec_hook_fn on_next;
    rec_hook_fn on_error;
    rec_hook_fn on_completed;
    void *user; /* for the hooks */
    /* Record values into the log (a copy each): on by default. */
    bool keep_values;
};

void recorder_init(recorder *r);
/* Releases the recorded value copies and destroys the lock. Call only when
 * no callback can arrive any more (after the release, typically). */
void recorder_destroy(recorder *r);

/* An observer whose callbacks record into `r` and whose release counts. */
sk_observer recorder_observer(recorder *r);

/* Predicates for recorder_wait; `arg` is up to the predicate. They run with
 * the recorder's lock held. */
typedef bool (*rec_predicate)(const recorder *r, const void *arg);
bool rec_released(const recorder *r, const void *arg);   /* releases >= 1 */
bool rec_terminated(const recorder *r, const void *arg); /* error or completion seen */
bool rec_nexts_at_least(const recorder *r, const void *arg); /* arg: const int * */

/* Waits until `pred(r, arg)` holds or `seconds` pass. @return whether it holds. */
bool recorder_wait(recorder *r, rec_predicate pred, const void *arg, double seconds);

/* Shorthands with the suite's deadline. */
bool recorder_wait_release(recorder *r);
bool recorder_wait_nexts(recorder *r, int count);
bool recorder_wait_terminated(recorder *r);

/* Snapshots, taken under the lock. */
int recorder_nexts(recorder *r);
int recorder_releases(recorder *r);

/* The event kinds of the log as a string, one letter per event ("nncr"),
 * written into `buffer` (NUL-terminated). */
const char *recorder_log(recorder *r, char *buffer, size_t size);

/* The int64 values of the logged next events, in order, into `out` (at most
 * `max`); a non-int64 value is stored as INT64_MIN. @return how many. */
size_t recorder_ints(recorder *r, int64_t *out, size_t max);

/* The `index`-th logged event (borrowed; the recorder must outlive its use). */
const rec_event *recorder_event(recorder *r, size_t index);

/* Initialises `r`, starts `signal` into it on the calling thread and returns
 * the subscription's disposable (+1). */
sk_disposable *recorder_start(recorder *r, sk_signal *signal);

/* Disposes and releases `d`, asserts that the observer's release ran exactly
 * once, then destroys `r`. */
void recorder_finish(recorder *r, sk_disposable *d);

/* Asserts the log reads `expected` ("nncr"), that no callback came after the
 * terminal event or the release, and, unless `values` is NULL, that the next
 * events carried exactly the `count` int64 values of `values`. */
void recorder_expect(recorder *r, const char *expected, const int64_t *values, size_t count);

/* Starts `signal` (+1: taken over, released here) into a new recorder,
 * asserts with recorder_expect that the log reads `expected` (and the
 * values), then ends the subscription (as recorder_finish). For signals
 * that end within the start. */
void expect_signal_log(sk_signal *signal, const char *expected, const int64_t *values, size_t count);

/* expect_signal_log for a signal that emits one nil value, then completes. */
void expect_one_nil(sk_signal *signal);

/* recorder_expect with one next event, carrying the int64 `value`. */
void recorder_expect_one(recorder *r, const char *expected, int64_t value);

/* Asserts the log reads "er" (only an error, then the release) and that the
 * error equals `error`. */
void recorder_expect_error(recorder *r, const sk_value *error);

/* ------------------------------------------------------------------------ */
/* Counter                                                                   */
/* ------------------------------------------------------------------------ */

typedef struct counter {
    pthread_mutex_t mutex;
    pthread_cond_t cond;
    int hits;
    pthread_t last_thread;
} counter;

void counter_init(counter *c);
void counter_destroy(counter *c);
/* Counts one hit; usable as an sk_release_fn or sk_work_fn with `c` as ctx. */
void counter_hit(void *c);
int counter_get(counter *c);
/* Waits until at least `count` hits or `seconds` pass. @return whether reached. */
bool counter_wait(counter *c, int count, double seconds);
/* counter_init (counter_destroy) on each of the `count` counter * that follow. */
void counters_init(size_t count, ...);
void counters_destroy(size_t count, ...);

/* ------------------------------------------------------------------------ */
/* Char log: which callbacks ran, in order, one letter each                  */
/* ------------------------------------------------------------------------ */

/* A thread-safe string that callbacks append letters to (the first 63). */
typedef struct char_log {
    pthread_mutex_t mutex;
    char text[64];
    size_t length;
} char_log;

/* char_log_init makes an empty log; char_log_destroy destroys its lock. */
void char_log_init(char_log *l);
void char_log_destroy(char_log *l);
void char_log_append(char_log *l, char c);
/* Asserts the log reads `expected`; `what` names the moment in the message. */
void char_log_expect(char_log *l, const char *expected, const char *what);

/* ------------------------------------------------------------------------ */
/* Gate: a one-shot event another thread can wait for                         */
/* ------------------------------------------------------------------------ */

/* A counter underneath: gate_open counts a hit, gate_wait waits for one. */
typedef struct gate {
    counter opened;
} gate;

void gate_init(gate *g);
void gate_destroy(gate *g);
void gate_open(gate *g);
bool gate_wait(gate *g, double seconds);

/* ------------------------------------------------------------------------ */
/* Leak check                                                                */
/* ------------------------------------------------------------------------ */

/* Flushes each of the `count` queues that follow (sk_queue *; a serial queue
 * with sk_queue_sync, a host-drained one by draining it until it is empty),
 * releases them, then asserts sk_live_objects() == 0. */
void expect_no_live_objects(size_t count, ...);

/* Flushes `queue` as above without releasing it. */
void flush_queue(sk_queue *queue);

/* 1 in a program built with ASan or TSan. */
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define SK_TEST_SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define SK_TEST_SANITIZED 1
#endif
#endif
#ifndef SK_TEST_SANITIZED
#define SK_TEST_SANITIZED 0
#endif

/* 1 in a program built with TSan, which runs a thread of its own in every
 * process and refuses to start threads in the child of a multi-threaded
 * fork ("not supported. Dying"). */
#if defined(__SANITIZE_THREAD__)
#define SK_TEST_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define SK_TEST_TSAN 1
#endif
#endif
#ifndef SK_TEST_TSAN
#define SK_TEST_TSAN 0
#endif

/* The stack of the tests that show a release or dispose of any depth needs
 * no more than a small one: SK_MIN_THREAD_STACK, the documented minimum
 * (measured on the release library); four times it under the sanitizers,
 * whose instrumented frames are two to three times larger (ASan overflowed
 * 64 KB once in five runs where a deep dispose first used the Swift
 * runtime's metadata of the put-off list). Still far below what the
 * unbounded recursions these tests guard against needed. */
#define SK_TEST_SMALL_STACK (SK_TEST_SANITIZED ? 4 * SK_MIN_THREAD_STACK : SK_MIN_THREAD_STACK)

/* Runs body(arg) on a new thread whose stack is `bytes` (at least
 * PTHREAD_STACK_MIN), waits for it, and returns what body returned. */
void *run_on_stack(size_t bytes, void *(*body)(void *arg), void *arg);

/* Runs body(arg) on a new thread whose stack is SMALL_STACK_BYTES (1 MB, far
 * less than the 8 MB of a main thread), and waits for it. */
#define SMALL_STACK_BYTES (1024 * 1024)
void run_on_small_stack(void (*body)(void *arg), void *arg);

/* How many descriptors the process has open (entries of /proc/self/fd). */
int open_fd_count(void);

/* Waits (yielding, up to SK_WAIT_SECONDS) until the process has at most
 * `limit` descriptors open: libdispatch opens and closes descriptors of its
 * own for timers, on its own thread and a moment later, so only "no more
 * than before" can be asserted. Returns the last count seen. */
int wait_fd_count_at_most(int limit);

/* True under valgrind, which keeps descriptors of its own and does not apply
 * a lowered RLIMIT_NOFILE to the program: tests of the descriptor limit skip
 * there (they run natively and under the sanitizers). */
bool running_under_valgrind(void);

/* ------------------------------------------------------------------------ */
/* Values and signals                                                        */
/* ------------------------------------------------------------------------ */

sk_value int_value(int64_t n);
/* sk_value_release on each of the `count` sk_value * that follow. */
void values_release(size_t count, ...);

/* A new string value (+1: sk_value_release it). */
sk_value string_value(const char *text);
/* The int64 in `value`; fails the test if it holds another kind. */
int64_t value_int(const sk_value *value);

/* A new signal (+1) over `generator` (sk_signal_create), asserting success. */
sk_signal *new_signal(sk_generator_fn generator, void *ctx, sk_release_fn release);

/* A new signal (+1) from a constructor that takes nothing but its out
 * (sk_signal_never, sk_signal_complete), asserting success. */
sk_signal *made_signal(int (*make)(sk_signal **out));

/* A signal that emits the `count` int64 values of `values`, then completes. */
sk_signal *ints_signal(const int64_t *values, size_t count);

/* A signal driven by hand: each start retains its subscriber (in start
 * order) so that the test can emit into it later, from any thread, and
 * returns an action disposable. Counts starts, disposals of those
 * disposables, their releases, and the release of the signal's context. */
#define MANUAL_MAX_STARTS 16

typedef struct manual_source {
    pthread_mutex_t mutex;
    sk_subscriber *subscribers[MANUAL_MAX_STARTS];
    size_t started;
    counter starts;
    counter disposed;            /* action of a start's disposable ran */
    counter disposable_released; /* release of a start's disposable ran */
    counter ctx_released;        /* the signal's context release ran */
} manual_source;

void manual_init(manual_source *s);
/* Releases the retained subscribers and destroys the counters. */
void manual_destroy(manual_source *s);
/* A new signal (+1) over `s`. */
sk_signal *manual_signal(manual_source *s);
/* manual_init(s), then a new signal (+1) over it: the usual pair. */
sk_signal *manual_init_signal(manual_source *s);

/* A new action disposable (+1) whose action counts in `s->disposed` and
 * whose release counts in `s->disposable_released`, as a start's does. Safe
 * on any thread. */
sk_disposable *manual_action(manual_source *s);
/* The subscriber of the `index`-th start (borrowed), or NULL. */
sk_subscriber *manual_subscriber(manual_source *s, size_t index);
/* Drops the reference `s` holds on the `index`-th subscriber. */
void manual_drop_subscriber(manual_source *s, size_t index);

/* Put helpers that assert success (on any thread: a failed assertion ends
 * the test's process). */
void pipe_put_int(sk_pipe *pipe, int64_t n);
void subscriber_put_int(sk_subscriber *subscriber, int64_t n);

/* ------------------------------------------------------------------------ */
/* Operator fixtures                                                         */
/* ------------------------------------------------------------------------ */

/* A long synchronous loop must not grow the stack: the body runs on a thread
 * whose stack (SMALL_STACK_BYTES) is far smaller than LOOPS nested
 * iterations would need. */
#define LOOPS 10000

/* A source whose first `limit` starts each emit the start's number, then
 * complete (or fail, with the number as error) synchronously; the starts
 * after that hold their subscriber open (the first one is kept in `held`)
 * and return a disposable counted in `disposed`. */
typedef struct countdown {
    pthread_mutex_t mutex;
    int limit;
    bool fail;
    int starts;
    sk_queue *expected_queue; /* when set: count starts not on it in `off_queue` */
    int off_queue;
    sk_subscriber *held;
    counter start_count;
    counter disposed;
    counter released; /* the signal's context */
} countdown;

void countdown_init(countdown *c, int limit, bool fail);
/* Releases `held` and destroys the counters. */
void countdown_destroy(countdown *c);
/* A new signal (+1) over `c`; its context release counts in `released`. */
sk_signal *countdown_signal_counted(countdown *c);
int countdown_starts(countdown *c);

/* What start_loop runs: starts `signal` into `r` (initialised by the
 * caller), the disposable (+1, the caller finishes it) into `d`. */
typedef struct loop_run {
    sk_signal *signal;
    recorder *r;
    sk_disposable *d;
} loop_run;

/* A body for run_on_small_stack; `arg` is a loop_run. */
void start_loop(void *arg);

/* An operator over a countdown, subscribed: countdown_run_init initialises
 * `c` (countdown_init's `limit` and `fail`) and `source`, its signal (+1);
 * the test builds `op` (+1) over `source`, then starts it into `r` with
 * countdown_run_start (on the calling thread) or countdown_run_start_looping
 * (on a small stack: for loops that must not grow it), which asserts that
 * the loop started the source `limit` + 1 times. countdown_run_stop ends
 * the subscription (as recorder_finish: for checks after its end);
 * countdown_run_finish ends it unless stopped, releases `op` and `source`,
 * keeps in `released_at_finish` how many times the source's context had
 * been released by then, and destroys `c`. */
typedef struct countdown_run {
    countdown c;
    sk_signal *source;
    sk_signal *op;
    recorder r;
    sk_disposable *d;
    bool stopped;
    int released_at_finish;
} countdown_run;

void countdown_run_init(countdown_run *t, int limit, bool fail);
void countdown_run_start(countdown_run *t);
void countdown_run_start_looping(countdown_run *t);
void countdown_run_stop(countdown_run *t);
void countdown_run_finish(countdown_run *t);

/* countdown_run_init with LOOPS starts, builds `op` with `fn` over `source`,
 * then countdown_run_start_looping. */
void countdown_run_loop(countdown_run *t, bool fail, int (*fn)(sk_signal **out, sk_signal *signal));

/* Asserts that the `index`-th event of `r` carries a string value equal to
 * `expected`. */
void expect_string_event(recorder *r, size_t index, const char *expected);

/* Asserts that the `index`-th event of `r` is an error whose string value
 * contains `needle`. */
void expect_string_error(recorder *r, size_t index, const char *needle);

/* A source that records where it was started, keeps its latest subscriber
 * (+1, released by probe_source_destroy) and returns a disposable whose disposal it
 * counts; `released` counts its signals' context releases. */
typedef struct probe_source {
    pthread_mutex_t mutex;
    sk_queue *queue; /* borrowed: the queue starts are expected on */
    int starts;
    int starts_on_queue;
    pthread_t thread; /* of the latest start */
    sk_subscriber *subscriber;
    counter disposed;
    counter released;
} probe_source;

void probe_source_init(probe_source *p, sk_queue *queue);
void probe_source_destroy(probe_source *p);
/* A new signal (+1) over `p`. */
sk_signal *probe_signal(probe_source *p);
int probe_starts(probe_source *p);
/* A drain_until condition: the probe `arg` started at least once. */
bool probe_started(void *arg);

/* An operator over probe sources, subscribed: probe_run_init initialises
 * `p` and `alternate` (probe_source_init with `queue`) and their signals
 * `source` and `fallback` (+1 each); the test builds `op` (+1) over them,
 * then probe_run_start starts it into `r` (the disposable `d`, +1).
 * probe_run_stop ends the subscription (as recorder_finish: for checks
 * after its end); probe_run_finish ends it unless stopped, releases `op`,
 * `source` and `fallback` (unless NULL), keeps in `disposed`, `released`
 * and `alternate_released` how many times `p`'s start disposable had been
 * disposed and the sources' contexts released by then, and destroys both
 * sources. The caller releases `queue`. */
typedef struct probe_run {
    probe_source p;
    probe_source alternate;
    sk_signal *source;
    sk_signal *fallback;
    sk_signal *op;
    recorder r;
    sk_disposable *d;
    bool stopped;
    int disposed;
    int released;
    int alternate_released;
} probe_run;

void probe_run_init(probe_run *t, sk_queue *queue);
void probe_run_start(probe_run *t);
void probe_run_stop(probe_run *t);
/* For operators that start their upstream from `queue` (run_on, delay):
 * starts the operator (probe_run_start), disposes the subscription before
 * `queue` ran the upstream's start, flushes `queue`, and asserts that the
 * upstream never started and that the observer saw only its release. */
void probe_run_dispose_before_the_start(probe_run *t, sk_queue *queue);
void probe_run_finish(probe_run *t);

/* A new host-drained queue (+1) named `name` (may be NULL). */
sk_queue *host_queue(const char *name);

/* A new serial queue (+1) named `name` (may be NULL). */
sk_queue *serial_queue(const char *name);

/* The descriptor of the host-drained queue `host` (asserting success and a
 * descriptor >= 0; owned by the queue: nothing to close). */
int host_queue_fd(sk_queue *host);

/* Waits for the host queue's fd and drains it, on the calling thread, until
 * `done(arg)` holds; fails the test after SK_WAIT_SECONDS. */
void drain_until(sk_queue *host, bool (*done)(void *arg), void *arg);
/* The same until `r` has logged at least `count` events. */
void drain_until_events(sk_queue *host, recorder *r, size_t count);

/* A pipeline under test: a manual source, its signal `upstream`, the
 * operator `op` the test builds over it, and a recorder `r` subscribed to
 * `op` through the disposable `d`; for operators over several signals, or
 * signals of signals, PIPELINE_INNER more manual sources `inner`, each with
 * a signal `inner_signal` (+1).
 *
 * pipeline_init sets up the sources, their signals and `r` (initialised: the
 * test may set its hooks before the start); the test builds `op` (+1) over
 * them, then calls pipeline_start; pipeline_restart ends that subscription
 * (as recorder_finish) and starts `op` again into a fresh `r`;
 * pipeline_stop only ends it (for checks between the subscription's end
 * and the signals' release); pipeline_finish disposes and releases everything (and asserts the
 * observer's release ran once). Check the sources' counters before
 * pipeline_finish: it destroys them. */
#define PIPELINE_INNER 3

typedef struct pipeline {
    manual_source source;
    sk_signal *upstream;
    manual_source inner[PIPELINE_INNER];
    sk_signal *inner_signal[PIPELINE_INNER];
    sk_signal *op;
    recorder r;
    sk_disposable *d;
} pipeline;

void pipeline_init(pipeline *p);
void pipeline_start(pipeline *p);
void pipeline_restart(pipeline *p);
void pipeline_stop(pipeline *p);
/* The subscriber of the upstream's first start (borrowed). */
sk_subscriber *pipeline_subscriber(pipeline *p);
/* The subscriber of the upstream's `index`-th start (borrowed). */
sk_subscriber *pipeline_subscriber_at(pipeline *p, size_t index);
/* The subscriber of the `which`-th inner source's first start (borrowed). */
sk_subscriber *pipeline_inner_subscriber(pipeline *p, size_t which);
void pipeline_finish(pipeline *p);

/* Starts `p` (its operator built), emits 1 then the error `text` into its
 * upstream, and asserts that only that error reached the recorder. */
void expect_only_the_error(pipeline *p, const char *text);

/* Builds the `which`-th operator of a family over `source`, a manual signal
 * over `s` (for operators that start a signal of their own), and names it in
 * `*name`. @return the operator's signal (+1), or NULL once past the last. */
typedef sk_signal *(*operator_builder)(int which, sk_signal *source, manual_source *s, const char **name);

/* For each operator `build` makes, over a new manual source: starts it,
 * disposes the subscription, and asserts that the upstream was started once
 * and disposed, that what it emits afterwards reaches nobody and that it is
 * not started again. Releases everything it made. @return how many
 * operators it checked. */
int expect_disposal_disposes_upstream(operator_builder build);

/* Builds an operator over `source` (a pipe's signal, borrowed): @return the
 * operator's signal (+1). */
typedef sk_signal *(*pipe_operator_builder)(sk_signal *source);

/* Starts `build`'s operator over a pipe, puts the ints 1 to `puts` into the
 * pipe, and disposes the subscription from inside the first value's
 * callback: asserts that exactly one value arrived, no terminal event, that
 * the observer's release ran once, and that the pipe's value after that
 * reaches nobody. `name` is for the messages. Releases everything it made. */
void expect_dispose_inside_next(const char *name, pipe_operator_builder build, int puts);

/* Asserts that the `index`-th event of `r` is a value that is the array of
 * the `count` ints `items`. */
void recorder_expect_int_array(recorder *r, size_t index, const int64_t *items, size_t count);

/* Calls a callback operator's constructor (sk_signal_catch,
 * sk_signal_take_until...) with `out` (may be NULL), `signal`, a valid
 * callback or, when `with_callback` is false, NULL, and `ctx` and `release`.
 * @return its status. */
typedef int (*callback_operator_call)(sk_signal **out, sk_signal *signal, bool with_callback, void *ctx,
                                      sk_release_fn release);

/* Builds `call`'s operator (with its callback) over a manual source, starts
 * it, releases the signals, and asserts that the callback's release runs
 * once, when the subscription is disposed (the source still holds its
 * subscriber), and not before. `name` is for the messages. */
void expect_release_after_the_subscription(const char *name, callback_operator_call call);

/* Argument-error checks for operator constructors. The caller declares
 * `sk_signal *out`. EXPECT_FAILURE_NULL_OUT runs `call` with `out` preset to
 * garbage and asserts the status `expected`, a non-empty error message and,
 * when `released` (a counter *) is not NULL, exactly one release counted by
 * it; EXPECT_FAILURE also asserts that the call set `out` to NULL (use
 * EXPECT_FAILURE_NULL_OUT for calls that pass NULL for it). */
#define EXPECT_FAILURE_NULL_OUT(call, expected, released)                                      \
    do {                                                                                       \
        out = (sk_signal *)&out;                                                               \
        int before_ = (released) != NULL ? counter_get(released) : 0;                          \
        int status_ = (call);                                                                  \
        cr_assert_eq(status_, (expected), "%s returned %d (%s)", #call, status_,               \
                     sk_last_error_message());                                                 \
        cr_assert(strlen(sk_last_error_message()) > 0);                                        \
        if ((released) != NULL) {                                                              \
            cr_assert_eq(counter_get(released) - before_, 1, "%s: release ran %d times", #call, \
                         counter_get(released) - before_);                                     \
        }                                                                                      \
    } while (0)
#define EXPECT_FAILURE(call, expected, released)                                               \
    do {                                                                                       \
        EXPECT_FAILURE_NULL_OUT(call, expected, released);                                     \
        cr_assert_null(out, "%s left out set", #call);                                         \
    } while (0)

/* What argument-error tests pass: a valid signal `never`, handles of the
 * wrong kind `not_signal` and `not_queue` (both the pipe `pipe` cast), and a
 * counter `released` for the callback releases the failed calls must run.
 * bad_args_init makes them; bad_args_destroy releases the signal and the
 * pipe and destroys the counter. */
typedef struct bad_args {
    sk_signal *never;
    sk_pipe *pipe;
    sk_signal *not_signal;
    sk_queue *not_queue;
    counter released;
} bad_args;

void bad_args_init(bad_args *a);
void bad_args_destroy(bad_args *a);

/* Asserts that `retain` (sk_pipe_retain...) returns the handle it is given,
 * balances that with `release`, and that both take NULL as a no-op. */
#define EXPECT_RETAIN_RELEASE(retain, release, handle)                         \
    do {                                                                       \
        cr_assert_eq(retain(handle), (handle), "%s does not return its argument", #retain); \
        release(handle);                                                       \
        cr_assert_null(retain(NULL), "%s(NULL) is not NULL", #retain);         \
        release(NULL);                                                         \
    } while (0)

/* A constructor of a one-signal operator: sk_signal_last, sk_signal_queue... */
typedef int (*unary_operator_fn)(sk_signal **out, sk_signal *signal);

/* pipeline_init(p), builds `p->op` with `fn` over `p->upstream`, then
 * pipeline_start(p); the caller ends with pipeline_finish. */
void pipeline_start_unary(pipeline *p, unary_operator_fn fn);

/* Asserts the argument errors of `fn` (named `name` in the messages): NULL
 * out, NULL signal, and `not_signal` (a handle of another kind) as the
 * signal, with `valid` where a signal is needed; each call must fail with a
 * non-empty message and set out to NULL where it has one. Makes nothing to
 * release. */
void expect_unary_argument_errors(const char *name, unary_operator_fn fn, sk_signal *valid, sk_signal *not_signal);

/* Asserts the argument errors of such a constructor (named `name` in the
 * messages): NULL out, NULL signal, NULL callback and `a->not_signal` as the
 * signal, with `a->never` where a signal is needed. Each call must fail with
 * a non-empty message, set out to NULL where it has one, and run the release
 * once (counted in `a->released`: four hits in all). Makes nothing to
 * release. */
void expect_callback_argument_errors(const char *name, callback_operator_call call, bad_args *a);

/* A callback operator's two common tests, for `call` (its constructor, a
 * callback_operator_call) named `name` in the messages:
 * suite::callback_release_waits_for_subscriptions, whose callback release
 * runs after the signal and its subscriptions are gone, also when the source
 * still holds its subscriber (expect_release_after_the_subscription); and
 * suite::argument_errors_run_release_once: expect_callback_argument_errors,
 * then `more(&args)` (a void (bad_args *) with the suite's other argument
 * errors; it releases what it makes), then asserts that `args.released`
 * counted `releases` hits in all and that nothing is left. */
#define CALLBACK_OPERATOR_TESTS(suite, name, call, more, releases)                                      \
    Test(suite, callback_release_waits_for_subscriptions, .timeout = SK_TEST_TIMEOUT) {                 \
        expect_release_after_the_subscription(name, call);                                              \
        expect_no_live_objects(0);                                                                      \
    }                                                                                                   \
    Test(suite, argument_errors_run_release_once, .timeout = SK_TEST_TIMEOUT) {                         \
        bad_args args;                                                                                  \
        bad_args_init(&args);                                                                           \
        expect_callback_argument_errors(name, call, &args);                                             \
        more(&args);                                                                                    \
        cr_assert_eq(counter_get(&args.released), (releases), "%s: the releases ran %d times", name,    \
                     counter_get(&args.released));                                                      \
        bad_args_destroy(&args);                                                                        \
        expect_no_live_objects(0);                                                                      \
    }

/* A constructor of an operator that delivers or starts on a queue:
 * sk_signal_deliver_on, sk_signal_run_on. */
typedef int (*queue_operator_fn)(sk_signal **out, sk_signal *signal, sk_queue *queue);

/* Asserts the argument errors of `fn` (named `name`): NULL out, NULL
 * signal, NULL queue, `a->not_signal` as the signal and `a->not_queue` as
 * the queue, with `a->never` and `queue` where valid ones are needed; each
 * call must fail with a non-empty message and set out to NULL where it has
 * one. Makes nothing to release. */
void expect_queue_operator_argument_errors(const char *name, queue_operator_fn fn, bad_args *a, sk_queue *queue);

/* A constructor of a timed operator: sk_signal_delay, sk_signal_throttle,
 * sk_signal_debounce. */
typedef int (*timed_operator_fn)(sk_signal **out, sk_signal *signal, double seconds, sk_queue *queue);

/* The same for `fn`, with 0.1 s where a valid duration is needed, and also:
 * a negative, NaN or minus infinite duration fails (SK_ERR_INVALID_ARGUMENT)
 * while zero and infinity are durations (built, then released). */
void expect_timed_operator_argument_errors(const char *name, timed_operator_fn fn, bad_args *a, sk_queue *queue);

/* The next permutation of `items` in lexicographic order (rearranges them
 * in place); false after the last. For the abandonment sweeps: every order
 * in which handles can be released. */
bool next_permutation(int *items, int count);

#endif /* SK_TEST_SUPPORT_H */
