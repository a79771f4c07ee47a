/* test_disposables.c - action, meta, set and dict disposables. */
#include <semaphore.h>
#include <stdio.h>
#include <string.h>

#include "support.h"

/* An action disposable whose action logs 'a' and whose release logs 'r'
 * into `log` (a per-test char_log). */
static void probe_action(void *ctx) {
    char_log_append(ctx, 'a');
}

static void probe_release(void *ctx) {
    char_log_append(ctx, 'r');
}

static sk_disposable *probe_disposable(char_log *log) {
    sk_disposable *d = NULL;
    SK_OK_OR_FAIL(sk_disposable_action(&d, probe_action, log, probe_release));
    cr_assert_not_null(d);
    return d;
}

/* New empty containers (+1), asserting success. */
static sk_disposable *new_meta(void) {
    sk_disposable *d = NULL;
    SK_OK_OR_FAIL(sk_disposable_meta(&d));
    return d;
}

static sk_disposable *new_set(void) {
    sk_disposable *d = NULL;
    SK_OK_OR_FAIL(sk_disposable_set(&d));
    return d;
}

static sk_disposable *new_dict(void) {
    sk_disposable *d = NULL;
    SK_OK_OR_FAIL(sk_disposable_dict(&d));
    return d;
}

/* Adds `item` to `container` the way of one container kind. */
typedef int (*container_add_fn)(sk_disposable *container, sk_disposable *item);

static int meta_add(sk_disposable *container, sk_disposable *item) {
    return sk_disposable_meta_set(container, item);
}

static int set_add(sk_disposable *container, sk_disposable *item) {
    return sk_disposable_set_add(container, item);
}

static int dict_add(sk_disposable *container, sk_disposable *item) {
    return sk_disposable_dict_set(container, "gamma", item);
}

/* A container holding one probe disposable: held_init initialises `log`,
 * keeps `box` (a new container, +1) and adds to it with `add` a probe
 * disposable over `log`, whose own handle it then releases (the container
 * holds the only reference). held_finish releases `box`, asserts that the
 * log then reads `expected`, destroys the log and runs the leak check. */
typedef struct held {
    char_log log;
    sk_disposable *box;
} held;

static void held_init(held *h, sk_disposable *box, container_add_fn add) {
    char_log_init(&h->log);
    h->box = box;
    sk_disposable *item = probe_disposable(&h->log);
    SK_OK_OR_FAIL(add(box, item));
    sk_disposable_release(item);
}

/* The end of a test over one probe: releases `d`, asserts that `log` then
 * reads `expected`, destroys the log and runs the leak check. */
static void release_and_finish(sk_disposable *d, char_log *log, const char *expected, const char *what) {
    sk_disposable_release(d);
    char_log_expect(log, expected, what);
    char_log_destroy(log);
    expect_no_live_objects(0);
}

static void held_finish(held *h, const char *expected, const char *what) {
    release_and_finish(h->box, &h->log, expected, what);
}

/* Three logs, each with a probe disposable over it: probes_init initialises
 * the logs and makes the disposables (+1 each: the test releases them);
 * probes_finish destroys the logs and runs the leak check. */
typedef struct probes {
    char_log log[3];
    sk_disposable *item[3];
} probes;

static void probes_init(probes *t) {
    for (size_t i = 0; i < 3; i++) {
        char_log_init(&t->log[i]);
        t->item[i] = probe_disposable(&t->log[i]);
    }
}

static void probes_finish(probes *t) {
    for (size_t i = 0; i < 3; i++) {
        char_log_destroy(&t->log[i]);
    }
    expect_no_live_objects(0);
}

/* Adds a new probe disposable to `container` (disposed already; borrowed)
 * with `add` and asserts that it was disposed at once. Releases the item
 * and its log. */
static void expect_late_item_disposed(sk_disposable *container, container_add_fn add, const char *what) {
    char_log log;
    char_log_init(&log);
    sk_disposable *late = probe_disposable(&log);
    SK_OK_OR_FAIL(add(container, late));
    char_log_expect(&log, "ar", what);
    sk_disposable_release(late);
    char_log_expect(&log, "ar", "late item released");
    char_log_destroy(&log);
}

/* ------------------------------------------------------------------------ */
/* Action                                                                    */
/* ------------------------------------------------------------------------ */

Test(disposables, action_runs_once_then_release, .timeout = SK_TEST_TIMEOUT) {
    char_log p;
    char_log_init(&p);
    sk_disposable *d = probe_disposable(&p);
    char_log_expect(&p, "", "created");
    sk_disposable_dispose(d);
    char_log_expect(&p, "ar", "disposed: action, then release");
    sk_disposable_dispose(d);
    sk_disposable_dispose(d);
    char_log_expect(&p, "ar", "disposed again");
    release_and_finish(d, &p, "ar", "released");
}

Test(disposables, action_released_without_dispose, .timeout = SK_TEST_TIMEOUT) {
    char_log p;
    char_log_init(&p);
    sk_disposable *d = probe_disposable(&p);
    sk_disposable *again = sk_disposable_retain(d);
    cr_assert_eq(again, d);
    sk_disposable_release(d);
    char_log_expect(&p, "", "one reference left");
    cr_assert_gt(sk_live_objects(), 0);
    release_and_finish(again, &p, "r", "freed without dispose: release only");
}

Test(disposables, action_null_arguments_run_release, .timeout = SK_TEST_TIMEOUT) {
    counter released;
    counter_init(&released);
    sk_disposable *d = (sk_disposable *)&d;
    cr_assert_eq(sk_disposable_action(&d, NULL, &released, counter_hit), SK_ERR_NULL_ARGUMENT);
    cr_assert_null(d);
    cr_assert_eq(counter_get(&released), 1);
    cr_assert_eq(sk_disposable_action(NULL, counter_hit, &released, counter_hit), SK_ERR_NULL_ARGUMENT);
    cr_assert_eq(counter_get(&released), 2, "release must run when out is NULL");
    cr_assert_eq(sk_disposable_action(NULL, NULL, NULL, NULL), SK_ERR_NULL_ARGUMENT);
    counter_destroy(&released);
    expect_no_live_objects(0);
}

Test(disposables, action_without_release, .timeout = SK_TEST_TIMEOUT) {
    counter ran;
    counter_init(&ran);
    sk_disposable *d = NULL;
    SK_OK_OR_FAIL(sk_disposable_action(&d, counter_hit, &ran, NULL));
    sk_disposable_dispose(d);
    sk_disposable_dispose(d);
    cr_assert_eq(counter_get(&ran), 1);
    sk_disposable_release(d);
    counter_destroy(&ran);
    expect_no_live_objects(0);
}

Test(disposables, null_handles_are_no_ops, .timeout = SK_TEST_TIMEOUT) {
    sk_disposable_dispose(NULL);
    sk_disposable_release(NULL);
    cr_assert_null(sk_disposable_retain(NULL));
    expect_no_live_objects(0);
}

typedef struct racing_dispose {
    sk_disposable *target;
    gate go;
} racing_dispose;

static void *dispose_when_open(void *arg) {
    racing_dispose *r = arg;
    if (gate_wait(&r->go, SK_WAIT_SECONDS)) {
        sk_disposable_dispose(r->target);
    }
    return NULL;
}

Test(disposables, concurrent_dispose_runs_action_once, .timeout = SK_TEST_TIMEOUT) {
    enum { THREADS = 8, ROUNDS = 50 };
    for (int round = 0; round < ROUNDS; round++) {
        char_log p;
        char_log_init(&p);
        racing_dispose r;
        r.target = probe_disposable(&p);
        gate_init(&r.go);
        pthread_t threads[THREADS];
        for (int i = 0; i < THREADS; i++) {
            cr_assert_eq(pthread_create(&threads[i], NULL, dispose_when_open, &r), 0);
        }
        gate_open(&r.go);
        for (int i = 0; i < THREADS; i++) {
            pthread_join(threads[i], NULL);
        }
        char_log_expect(&p, "ar", "disposed from 8 threads at once");
        sk_disposable_release(r.target);
        gate_destroy(&r.go);
        char_log_destroy(&p);
    }
    expect_no_live_objects(0);
}

/* ------------------------------------------------------------------------ */
/* Meta                                                                      */
/* ------------------------------------------------------------------------ */

Test(disposables, meta_set_disposes_previous, .timeout = SK_TEST_TIMEOUT) {
    char_log pa, pb;
    char_log_init(&pa);
    char_log_init(&pb);
    sk_disposable *meta = new_meta();
    sk_disposable *a = probe_disposable(&pa), *b = probe_disposable(&pb);

    SK_OK_OR_FAIL(sk_disposable_meta_set(meta, a));
    char_log_expect(&pa, "", "a set");
    SK_OK_OR_FAIL(sk_disposable_meta_set(meta, b));
    char_log_expect(&pa, "ar", "a replaced by b");
    char_log_expect(&pb, "", "b set");
    /* The meta holds b: dropping our handle does not free it. */
    sk_disposable_release(b);
    char_log_expect(&pb, "", "b's handle released");
    SK_OK_OR_FAIL(sk_disposable_meta_set(meta, NULL));
    char_log_expect(&pb, "ar", "slot emptied");

    sk_disposable_dispose(meta);
    sk_disposable_dispose(meta);
    char_log_expect(&pa, "ar", "meta disposed");
    sk_disposable_release(a);
    sk_disposable_release(meta);
    char_log_destroy(&pa);
    char_log_destroy(&pb);
    expect_no_live_objects(0);
}

Test(disposables, meta_dispose_disposes_current, .timeout = SK_TEST_TIMEOUT) {
    held h;
    held_init(&h, new_meta(), meta_add);
    sk_disposable_dispose(h.box);
    char_log_expect(&h.log, "ar", "meta disposed");
    held_finish(&h, "ar", "meta released");
}

Test(disposables, meta_set_after_dispose_disposes_at_once, .timeout = SK_TEST_TIMEOUT) {
    sk_disposable *meta = new_meta();
    sk_disposable_dispose(meta);
    expect_late_item_disposed(meta, meta_add, "set into a disposed meta");
    SK_OK_OR_FAIL(sk_disposable_meta_set(meta, NULL));
    sk_disposable_release(meta);
    expect_no_live_objects(0);
}

Test(disposables, meta_releasing_does_not_dispose, .timeout = SK_TEST_TIMEOUT) {
    held h;
    held_init(&h, new_meta(), meta_add);
    /* Releasing the meta frees what it held without disposing it. */
    held_finish(&h, "r", "meta released");
}

/* ------------------------------------------------------------------------ */
/* Set                                                                       */
/* ------------------------------------------------------------------------ */

Test(disposables, set_add_remove_dispose, .timeout = SK_TEST_TIMEOUT) {
    probes t;
    probes_init(&t);
    sk_disposable *a = t.item[0], *b = t.item[1], *c = t.item[2];
    sk_disposable *set = new_set();
    SK_OK_OR_FAIL(sk_disposable_set_add(set, a));
    SK_OK_OR_FAIL(sk_disposable_set_add(set, b));
    SK_OK_OR_FAIL(sk_disposable_set_add(set, c));
    SK_OK_OR_FAIL(sk_disposable_set_remove(set, a));
    char_log_expect(&t.log[0], "", "removed: not disposed");
    SK_OK_OR_FAIL(sk_disposable_set_remove(set, a)); /* absent: a no-op */
    sk_disposable_release(b);
    sk_disposable_release(c);

    sk_disposable_dispose(set);
    char_log_expect(&t.log[0], "", "removed before the set was disposed");
    char_log_expect(&t.log[1], "ar", "b disposed with the set");
    char_log_expect(&t.log[2], "ar", "c disposed with the set");
    sk_disposable_dispose(set);
    char_log_expect(&t.log[1], "ar", "set disposed twice");

    /* The removed one is still ours and still works. */
    sk_disposable_dispose(a);
    char_log_expect(&t.log[0], "ar", "a disposed by hand");
    sk_disposable_release(a);
    sk_disposable_release(set);
    probes_finish(&t);
}

Test(disposables, set_add_after_dispose_disposes_at_once, .timeout = SK_TEST_TIMEOUT) {
    sk_disposable *set = new_set();
    sk_disposable_dispose(set);
    expect_late_item_disposed(set, set_add, "added to a disposed set");
    sk_disposable_release(set);
    expect_no_live_objects(0);
}

Test(disposables, set_released_frees_members_without_dispose, .timeout = SK_TEST_TIMEOUT) {
    held h;
    held_init(&h, new_set(), set_add);
    char_log_expect(&h.log, "", "held by the set");
    held_finish(&h, "r", "set released");
}

/* An action that disposes the set that contains it (re-entrancy). */
static void dispose_the_set(void *ctx) {
    sk_disposable_dispose(ctx);
}

Test(disposables, member_disposing_its_set_from_its_action, .timeout = SK_TEST_TIMEOUT) {
    char_log p;
    char_log_init(&p);
    sk_disposable *set = new_set();
    sk_disposable *reentrant = NULL;
    SK_OK_OR_FAIL(sk_disposable_action(&reentrant, dispose_the_set, set, NULL));
    sk_disposable *other = probe_disposable(&p);
    SK_OK_OR_FAIL(sk_disposable_set_add(set, reentrant));
    SK_OK_OR_FAIL(sk_disposable_set_add(set, other));
    sk_disposable_dispose(set);
    char_log_expect(&p, "ar", "sibling disposed");
    sk_disposable_release(reentrant);
    sk_disposable_release(other);
    sk_disposable_release(set);
    char_log_destroy(&p);
    expect_no_live_objects(0);
}

/* A second dispose of a container made while the first one is still on
 * its way through the members (here: called back from the first member's
 * action, as another thread would call it at that moment) returns only once
 * every member is disposed (sk_disposable_dispose). `second_dispose` records
 * what the sibling's log read when that call returned. */
typedef struct second_dispose {
    sk_disposable *container;
    char_log *sibling;
    int calls;
    char seen[8];
} second_dispose;

static void dispose_again_then_look(void *ctx) {
    second_dispose *s = ctx;
    if (s->calls++ > 0) {
        return;
    }
    sk_disposable_dispose(s->container);
    pthread_mutex_lock(&s->sibling->mutex);
    memcpy(s->seen, s->sibling->text, s->sibling->length < sizeof s->seen - 1 ? s->sibling->length : sizeof s->seen - 1);
    pthread_mutex_unlock(&s->sibling->mutex);
}

/* Builds `outer` holding (through `add`, or `add_second` for the sibling)
 * the reentrant action and a probe, disposes `outer`, and asserts that the
 * reentrant dispose returned after the probe's action. */
static void check_second_dispose(sk_disposable *outer, sk_disposable *holder,
                                 int (*add_first)(sk_disposable *, sk_disposable *),
                                 int (*add_second)(sk_disposable *, sk_disposable *), const char *what) {
    char_log sibling;
    char_log_init(&sibling);
    second_dispose s = {.container = outer, .sibling = &sibling, .calls = 0, .seen = {0}};
    sk_disposable *reentrant = NULL;
    SK_OK_OR_FAIL(sk_disposable_action(&reentrant, dispose_again_then_look, &s, NULL));
    sk_disposable *other = probe_disposable(&sibling);
    SK_OK_OR_FAIL(add_first(holder, reentrant));
    SK_OK_OR_FAIL(add_second(holder, other));
    sk_disposable_release(reentrant);
    sk_disposable_release(other);
    sk_disposable_dispose(outer);
    /* A probe logs its release right after its action. */
    cr_expect_str_eq(s.seen, "ar", "%s: the second dispose returned before the sibling was disposed (its log read \"%s\")", what, s.seen);
    cr_expect_eq(s.calls, 1, "%s: the action ran %d times", what, s.calls);
    sk_disposable_dispose(outer);
    if (holder != outer) {
        sk_disposable_release(holder);
    }
    sk_disposable_release(outer);
    char_log_expect(&sibling, "ar", what);
    char_log_destroy(&sibling);
    expect_no_live_objects(0);
}

static int dict_add_alpha(sk_disposable *container, sk_disposable *item) {
    return sk_disposable_dict_set(container, "alpha", item);
}

static int dict_add_beta(sk_disposable *container, sk_disposable *item) {
    return sk_disposable_dict_set(container, "beta", item);
}

Test(disposables, second_dispose_returns_after_every_member, .timeout = SK_TEST_TIMEOUT) {
    sk_disposable *set = new_set();
    check_second_dispose(set, set, set_add, set_add, "set");
    /* A dictionary's order is its own: the action does its second dispose
     * whichever of the two it disposes first. */
    sk_disposable *dict = new_dict();
    check_second_dispose(dict, dict, dict_add_alpha, dict_add_beta, "dict");
    dict = new_dict();
    check_second_dispose(dict, dict, dict_add_beta, dict_add_alpha, "dict, the other keys");
    /* A meta disposable holding a set of the two. */
    sk_disposable *meta = new_meta();
    sk_disposable *inner = new_set();
    SK_OK_OR_FAIL(sk_disposable_meta_set(meta, inner));
    check_second_dispose(meta, inner, set_add, set_add, "meta");
}

/* The same on another thread: a second dispose of a container (or of the
 * action disposable itself) made on another thread while the first one runs
 * a member's action returns only once that action has returned. Before, the
 * second dispose found the action disposable disposed already and returned
 * while its action still ran. The action waits (with a deadline) for the
 * second dispose to return: it never does while the action runs, so the
 * wait ends at its deadline, and the action records whether it returned. */
typedef struct concurrent_second {
    sk_disposable *target;
    sem_t started;
    gate returned;
    volatile int returned_early;
    volatile int action_done;
    volatile int done_when_returned;
} concurrent_second;

static void slow_action_watching(void *ctx) {
    concurrent_second *c = ctx;
    sem_post(&c->started);
    if (gate_wait(&c->returned, 0.3)) {
        c->returned_early = 1;
    }
    c->action_done = 1;
}

static void *dispose_second_time(void *arg) {
    concurrent_second *c = arg;
    sem_wait(&c->started);
    sk_disposable_dispose(c->target);
    c->done_when_returned = c->action_done;
    gate_open(&c->returned);
    return NULL;
}

static void check_concurrent_second_dispose(sk_disposable *target, sk_disposable *holder,
                                            int (*add)(sk_disposable *, sk_disposable *), const char *what) {
    concurrent_second c = {.target = target};
    sem_init(&c.started, 0, 0);
    gate_init(&c.returned);
    sk_disposable *action = NULL;
    SK_OK_OR_FAIL(sk_disposable_action(&action, slow_action_watching, &c, NULL));
    if (holder != NULL) {
        SK_OK_OR_FAIL(add(holder, action));
    } else {
        c.target = action;
    }
    pthread_t thread;
    cr_assert_eq(pthread_create(&thread, NULL, dispose_second_time, &c), 0);
    sk_disposable_dispose(c.target);
    pthread_join(thread, NULL);
    cr_expect_eq(c.returned_early, 0, "%s: the second dispose returned while the action ran", what);
    cr_expect_eq(c.done_when_returned, 1, "%s: the second dispose returned before the action was done", what);
    sem_destroy(&c.started);
    gate_destroy(&c.returned);
    sk_disposable_release(action);
    if (holder != NULL && holder != target) {
        sk_disposable_release(holder);
    }
    if (holder != NULL) {
        sk_disposable_release(target);
    }
    expect_no_live_objects(0);
}

static int meta_set_as_add(sk_disposable *container, sk_disposable *item) {
    return sk_disposable_meta_set(container, item);
}

Test(disposables, concurrent_second_dispose_waits_for_the_running_action, .timeout = SK_TEST_TIMEOUT) {
    check_concurrent_second_dispose(NULL, NULL, NULL, "action");
    sk_disposable *set = new_set();
    check_concurrent_second_dispose(set, set, set_add, "set");
    sk_disposable *meta = new_meta();
    check_concurrent_second_dispose(meta, meta, meta_set_as_add, "meta");
    sk_disposable *dict = new_dict();
    check_concurrent_second_dispose(dict, dict, dict_add_alpha, "dict");
}

/* The header promises that a later dispose made on another thread while the
 * action runs "waits until it (and `release`) has returned". It waited for
 * the action only: the release ran after the action disposable had marked
 * itself finished, when the closure holding the context was let go of, so
 * the second dispose returned while the release still ran. The release here
 * waits (with a deadline) for the second dispose to return: it never does
 * while the release runs, so the wait ends at its deadline, and the release
 * records whether it returned. */
typedef struct concurrent_release {
    sk_disposable *target;
    sem_t started;
    gate returned;
    volatile int returned_early;
    volatile int release_done;
    volatile int done_when_returned;
} concurrent_release;

static void signal_started(void *ctx) {
    concurrent_release *c = ctx;
    sem_post(&c->started);
}

static void slow_release_watching(void *ctx) {
    concurrent_release *c = ctx;
    if (gate_wait(&c->returned, 0.3)) {
        c->returned_early = 1;
    }
    c->release_done = 1;
}

static void *dispose_while_releasing(void *arg) {
    concurrent_release *c = arg;
    sem_wait(&c->started);
    sk_disposable_dispose(c->target);
    c->done_when_returned = c->release_done;
    gate_open(&c->returned);
    return NULL;
}

static void check_concurrent_dispose_waits_for_release(sk_disposable *holder, container_add_fn add, const char *what) {
    concurrent_release c = {.target = holder};
    sem_init(&c.started, 0, 0);
    gate_init(&c.returned);
    sk_disposable *action = NULL;
    SK_OK_OR_FAIL(sk_disposable_action(&action, signal_started, &c, slow_release_watching));
    if (holder != NULL) {
        SK_OK_OR_FAIL(add(holder, action));
    } else {
        c.target = action;
    }
    pthread_t thread;
    cr_assert_eq(pthread_create(&thread, NULL, dispose_while_releasing, &c), 0);
    sk_disposable_dispose(c.target);
    pthread_join(thread, NULL);
    cr_expect_eq(c.returned_early, 0, "%s: the second dispose returned while the action's release ran", what);
    cr_expect_eq(c.done_when_returned, 1, "%s: the second dispose returned before the action's release was done", what);
    sem_destroy(&c.started);
    gate_destroy(&c.returned);
    sk_disposable_release(action);
    sk_disposable_release(holder);
    expect_no_live_objects(0);
}

Test(disposables, concurrent_second_dispose_waits_for_the_running_release, .timeout = SK_TEST_TIMEOUT) {
    check_concurrent_dispose_waits_for_release(NULL, NULL, "action");
    check_concurrent_dispose_waits_for_release(new_set(), set_add, "set");
}

/* A container that holds itself, directly or through other containers: its
 * dispose reached itself again on the same thread and disposed its members
 * again from there, without end (a stack overflow). A member whose dispose
 * is already running on this thread is now skipped there: the dispose
 * returns with every member disposed once, and the members are let go of,
 * so the cycle of references ends with it. */
static void expect_cycle_disposed(sk_disposable *outer, sk_disposable *inner, char_log *log, const char *what) {
    sk_disposable_dispose(outer);
    if (log != NULL) {
        /* Disposed once, and released: the container let go of it. */
        char_log_expect(log, "ar", what);
        char_log_destroy(log);
    }
    sk_disposable_dispose(inner);
    sk_disposable_release(inner);
    if (inner != outer) {
        sk_disposable_release(outer);
    }
    expect_no_live_objects(0);
}

Test(disposables, containers_holding_themselves_are_disposed_once, .timeout = SK_TEST_TIMEOUT) {
    char_log log;
    sk_disposable *probe, *a, *b;

    /* A set holding a probe and itself. */
    char_log_init(&log);
    a = new_set();
    probe = probe_disposable(&log);
    SK_OK_OR_FAIL(set_add(a, probe));
    sk_disposable_release(probe);
    SK_OK_OR_FAIL(set_add(a, a));
    expect_cycle_disposed(a, a, &log, "a set holding itself");

    /* A dictionary holding a probe and, under another key, itself. */
    char_log_init(&log);
    a = new_dict();
    probe = probe_disposable(&log);
    SK_OK_OR_FAIL(dict_add(a, probe));
    sk_disposable_release(probe);
    SK_OK_OR_FAIL(dict_add_alpha(a, a));
    expect_cycle_disposed(a, a, &log, "a dictionary holding itself");

    /* A meta disposable holding itself. */
    a = new_meta();
    SK_OK_OR_FAIL(meta_add(a, a));
    expect_cycle_disposed(a, a, NULL, "a meta disposable holding itself");

    /* Two sets holding each other, a probe in the first. */
    char_log_init(&log);
    a = new_set();
    b = new_set();
    probe = probe_disposable(&log);
    SK_OK_OR_FAIL(set_add(a, probe));
    sk_disposable_release(probe);
    SK_OK_OR_FAIL(set_add(a, b));
    SK_OK_OR_FAIL(set_add(b, a));
    expect_cycle_disposed(a, b, &log, "two sets holding each other");

    /* A meta disposable holding a set that holds a probe and the meta. */
    char_log_init(&log);
    a = new_meta();
    b = new_set();
    probe = probe_disposable(&log);
    SK_OK_OR_FAIL(set_add(b, probe));
    sk_disposable_release(probe);
    SK_OK_OR_FAIL(meta_add(a, b));
    SK_OK_OR_FAIL(set_add(b, a));
    expect_cycle_disposed(a, b, &log, "a meta disposable and a set holding each other");
}

/* ------------------------------------------------------------------------ */
/* Dict                                                                      */
/* ------------------------------------------------------------------------ */

Test(disposables, dict_per_key, .timeout = SK_TEST_TIMEOUT) {
    probes t;
    probes_init(&t);
    sk_disposable *a = t.item[0], *a2 = t.item[1], *b = t.item[2];
    sk_disposable *dict = new_dict();

    char key[8] = "alpha";
    SK_OK_OR_FAIL(sk_disposable_dict_set(dict, key, a));
    memcpy(key, "zzzzz", 5); /* the key was copied */
    SK_OK_OR_FAIL(sk_disposable_dict_set(dict, "beta", b));
    char_log_expect(&t.log[0], "", "a set");
    SK_OK_OR_FAIL(sk_disposable_dict_set(dict, "alpha", a2));
    char_log_expect(&t.log[0], "ar", "alpha replaced");
    char_log_expect(&t.log[2], "", "other key untouched");
    SK_OK_OR_FAIL(sk_disposable_dict_set(dict, "beta", NULL));
    char_log_expect(&t.log[2], "ar", "beta cleared");
    SK_OK_OR_FAIL(sk_disposable_dict_set(dict, "nothing", NULL)); /* clearing an absent key */

    sk_disposable_dispose(dict);
    char_log_expect(&t.log[1], "ar", "dict disposed");
    expect_late_item_disposed(dict, dict_add, "set into a disposed dict");

    sk_disposable_release(a);
    sk_disposable_release(a2);
    sk_disposable_release(b);
    sk_disposable_release(dict);
    probes_finish(&t);
}

/* Keys are compared byte for byte: two keys that differ in a byte are two
 * entries, even when they are the same text once read as Unicode (canonically
 * equivalent UTF-8) or are not UTF-8 at all (invalid bytes that a decoder
 * would both repair to U+FFFD). Setting the second key must not dispose what
 * the first holds; setting the first again must. */
Test(disposables, dict_keys_compared_byte_for_byte, .timeout = SK_TEST_TIMEOUT) {
    static const char *const pairs[][2] = {
        { "e\xcc\x81", "\xc3\xa9" }, /* e + combining acute; precomposed e-acute */
        { "\xff", "\xfe" },          /* bytes that are never UTF-8 */
        { "\xc3", "\xe9" },          /* a truncated sequence; a Latin-1 byte */
        { "a\xff", "a\x80" },        /* a valid prefix, then a bad byte */
    };
    for (size_t i = 0; i < sizeof pairs / sizeof pairs[0]; i++) {
        probes t;
        probes_init(&t);
        sk_disposable *dict = new_dict();
        SK_OK_OR_FAIL(sk_disposable_dict_set(dict, pairs[i][0], t.item[0]));
        SK_OK_OR_FAIL(sk_disposable_dict_set(dict, pairs[i][1], t.item[1]));
        char what[96];
        snprintf(what, sizeof what, "pair %zu: the first key's entry after setting the second key", i);
        char_log_expect(&t.log[0], "", what);
        SK_OK_OR_FAIL(sk_disposable_dict_set(dict, pairs[i][0], t.item[2]));
        snprintf(what, sizeof what, "pair %zu: the same bytes again replace the first entry", i);
        char_log_expect(&t.log[0], "ar", what);
        snprintf(what, sizeof what, "pair %zu: the second key's entry untouched", i);
        char_log_expect(&t.log[1], "", what);
        sk_disposable_dispose(dict);
        char_log_expect(&t.log[1], "ar", "dict disposed: the second key's entry");
        char_log_expect(&t.log[2], "ar", "dict disposed: the first key's new entry");
        for (size_t j = 0; j < 3; j++) {
            sk_disposable_release(t.item[j]);
        }
        sk_disposable_release(dict);
        probes_finish(&t);
    }
}

/* ------------------------------------------------------------------------ */
/* Misuse                                                                    */
/* ------------------------------------------------------------------------ */

Test(disposables, containers_null_arguments, .timeout = SK_TEST_TIMEOUT) {
    cr_assert_eq(sk_disposable_meta(NULL), SK_ERR_NULL_ARGUMENT);
    cr_assert_eq(sk_disposable_set(NULL), SK_ERR_NULL_ARGUMENT);
    cr_assert_eq(sk_disposable_dict(NULL), SK_ERR_NULL_ARGUMENT);
    char_log p;
    char_log_init(&p);
    sk_disposable *a = probe_disposable(&p);
    cr_assert_eq(sk_disposable_meta_set(NULL, a), SK_ERR_NULL_ARGUMENT);
    cr_assert_eq(sk_disposable_set_add(NULL, a), SK_ERR_NULL_ARGUMENT);
    cr_assert_eq(sk_disposable_set_remove(NULL, a), SK_ERR_NULL_ARGUMENT);
    cr_assert_eq(sk_disposable_dict_set(NULL, "k", a), SK_ERR_NULL_ARGUMENT);
    sk_disposable *set = new_set(), *dict = new_dict();
    cr_assert_eq(sk_disposable_set_add(set, NULL), SK_ERR_NULL_ARGUMENT);
    cr_assert_eq(sk_disposable_dict_set(dict, NULL, a), SK_ERR_NULL_ARGUMENT);
    /* Failed calls neither disposed nor kept it. */
    sk_disposable_dispose(set);
    sk_disposable_dispose(dict);
    char_log_expect(&p, "", "after failed calls");
    sk_disposable_release(set);
    sk_disposable_release(dict);
    release_and_finish(a, &p, "r", "released");
}

Test(disposables, wrong_kind_handles, .timeout = SK_TEST_TIMEOUT) {
    char_log p;
    char_log_init(&p);
    sk_disposable *meta = new_meta(), *set = new_set(), *dict = new_dict();
    sk_disposable *action = probe_disposable(&p);
    sk_signal *signal = made_signal(sk_signal_never);
    sk_disposable *not_a_disposable = (sk_disposable *)(void *)signal;

    /* A container of another kind. */
    sk_disposable *not_meta[] = { set, dict, action, not_a_disposable };
    for (size_t i = 0; i < 4; i++) {
        cr_assert_eq(sk_disposable_meta_set(not_meta[i], action), SK_ERR_WRONG_KIND, "meta_set on handle %zu", i);
    }
    sk_disposable *not_set[] = { meta, dict, action, not_a_disposable };
    for (size_t i = 0; i < 4; i++) {
        cr_assert_eq(sk_disposable_set_add(not_set[i], action), SK_ERR_WRONG_KIND, "set_add on handle %zu", i);
        cr_assert_eq(sk_disposable_set_remove(not_set[i], action), SK_ERR_WRONG_KIND, "set_remove on handle %zu", i);
    }
    sk_disposable *not_dict[] = { meta, set, action, not_a_disposable };
    for (size_t i = 0; i < 4; i++) {
        cr_assert_eq(sk_disposable_dict_set(not_dict[i], "k", action), SK_ERR_WRONG_KIND, "dict_set on handle %zu", i);
    }
    /* An item that is not a disposable. */
    cr_assert_eq(sk_disposable_meta_set(meta, not_a_disposable), SK_ERR_WRONG_KIND);
    cr_assert_eq(sk_disposable_set_add(set, not_a_disposable), SK_ERR_WRONG_KIND);
    cr_assert_eq(sk_disposable_dict_set(dict, "k", not_a_disposable), SK_ERR_WRONG_KIND);

    /* Disposing a handle that is not a disposable is harmless. */
    sk_disposable_dispose(not_a_disposable);

    /* Nothing was disposed by the failed calls, and disposing the containers
     * does not touch the action: it was never added. */
    sk_disposable_dispose(meta);
    sk_disposable_dispose(set);
    sk_disposable_dispose(dict);
    char_log_expect(&p, "", "after wrong-kind calls");

    sk_disposable_release(action);
    sk_disposable_release(meta);
    sk_disposable_release(set);
    sk_disposable_release(dict);
    sk_signal_release(signal);
    char_log_destroy(&p);
    expect_no_live_objects(0);
}

Test(disposables, containers_nest, .timeout = SK_TEST_TIMEOUT) {
    char_log p1, p2;
    char_log_init(&p1);
    char_log_init(&p2);
    sk_disposable *outer = new_set(), *meta = new_meta(), *dict = new_dict();
    sk_disposable *d1 = probe_disposable(&p1), *d2 = probe_disposable(&p2);
    SK_OK_OR_FAIL(sk_disposable_meta_set(meta, d1));
    SK_OK_OR_FAIL(sk_disposable_dict_set(dict, "k", d2));
    SK_OK_OR_FAIL(sk_disposable_set_add(outer, meta));
    SK_OK_OR_FAIL(sk_disposable_set_add(outer, dict));
    sk_disposable_release(d1);
    sk_disposable_release(d2);
    sk_disposable_release(meta);
    sk_disposable_release(dict);
    sk_disposable_dispose(outer);
    char_log_expect(&p1, "ar", "meta inside the set");
    char_log_expect(&p2, "ar", "dict inside the set");
    sk_disposable_release(outer);
    char_log_destroy(&p1);
    char_log_destroy(&p2);
    expect_no_live_objects(0);
}

Test(disposables, retain_release_counts, .timeout = SK_TEST_TIMEOUT) {
    sk_disposable *meta = new_meta();
    long one = sk_live_objects();
    cr_assert_gt(one, 0);
    sk_disposable_retain(meta);
    sk_disposable_retain(meta);
    cr_assert_eq(sk_live_objects(), one, "retain does not create objects");
    sk_disposable_release(meta);
    sk_disposable_release(meta);
    cr_assert_eq(sk_live_objects(), one, "still one reference");
    sk_disposable_release(meta);
    expect_no_live_objects(0);
}

/* A list owned through the contexts of action disposables: each action's
 * context is the previous action, which its release function releases.
 * Context releases ran in place, however deeply they nested: the releases
 * recursed once per node through the library and the release function, and
 * 300 nodes overflowed a thread of SK_MIN_THREAD_STACK (a crash, found by a
 * stress program, /tmp/exp-soak/chains.c mode 0). Past a few levels, a
 * context's release now runs once the one it is nested in has returned, on
 * the same thread, before the outermost release returns (as a user
 * pointer's does). */
#define CONTEXT_LIST_NODES 20000

static long context_list_released;

static void release_previous_action(void *ctx) {
    sk_disposable_release(ctx);
    context_list_released++;
}

static void no_action(void *ctx) {
    (void)ctx;
}

static void *release_context_list(void *head) {
    sk_disposable_release(head);
    return NULL;
}

Test(disposables, a_list_owned_through_action_contexts_is_released_on_a_small_stack, .timeout = SK_TEST_TIMEOUT) {
    const long nodes = running_under_valgrind() ? CONTEXT_LIST_NODES / 10 : CONTEXT_LIST_NODES;
    sk_disposable *head = NULL;
    SK_OK_OR_FAIL(sk_disposable_action(&head, no_action, NULL, NULL));
    for (long index = 1; index < nodes; index++) {
        sk_disposable *next = NULL;
        SK_OK_OR_FAIL(sk_disposable_action(&next, no_action, head, release_previous_action));
        head = next;
    }
    context_list_released = 0;
    run_on_stack(SK_TEST_SMALL_STACK, release_context_list, head);
    cr_assert_eq(context_list_released, nodes - 1, "%ld of %ld contexts released", context_list_released, nodes - 1);
    expect_no_live_objects(0);
}

/* Containers nested in containers (a meta disposable holding a set holding
 * a dictionary holding a meta disposable, and so on, an action innermost):
 * disposing the outermost disposed each level from inside the level above,
 * and releasing it released each level from inside the level above's
 * release: 300 levels overflowed a thread of SK_MIN_THREAD_STACK, 100,000
 * an 8 MB one (crashes, found by a stress program, /tmp/exp-soak/chains.c
 * modes 1, 2, 3, 7 and 8). Past a few levels, the deeper containers are
 * now disposed (and released) once the level they are nested in has
 * returned, on the same thread, before the outermost dispose (release)
 * returns. */
#define NESTED_CONTAINER_LEVELS 20000

static long nested_action_runs;

static void count_nested_action(void *ctx) {
    (void)ctx;
    nested_action_runs++;
}

/* `levels` containers around `inner` (consumed); the outermost (+1). */
static sk_disposable *containers_around(sk_disposable *inner, long levels) {
    for (long level = 0; level < levels; level++) {
        sk_disposable *outer = NULL;
        switch (level % 3) {
        case 0:
            SK_OK_OR_ABORT(sk_disposable_meta(&outer));
            SK_OK_OR_ABORT(sk_disposable_meta_set(outer, inner));
            break;
        case 1:
            SK_OK_OR_ABORT(sk_disposable_set(&outer));
            SK_OK_OR_ABORT(sk_disposable_set_add(outer, inner));
            break;
        default:
            SK_OK_OR_ABORT(sk_disposable_dict(&outer));
            SK_OK_OR_ABORT(sk_disposable_dict_set(outer, "inner", inner));
            break;
        }
        sk_disposable_release(inner);
        inner = outer;
    }
    return inner;
}

static sk_disposable *nested_containers(long levels) {
    sk_disposable *inner = NULL;
    SK_OK_OR_ABORT(sk_disposable_action(&inner, count_nested_action, NULL, NULL));
    return containers_around(inner, levels);
}

static void *dispose_and_release(void *outermost) {
    sk_disposable_dispose(outermost);
    long runs = nested_action_runs;
    sk_disposable_release(outermost);
    return (void *)(intptr_t)runs;
}

Test(disposables, nested_containers_are_disposed_on_a_small_stack, .timeout = SK_TEST_TIMEOUT) {
    const long levels = running_under_valgrind() ? NESTED_CONTAINER_LEVELS / 10 : NESTED_CONTAINER_LEVELS;
    nested_action_runs = 0;
    void *runs = NULL;
    runs = run_on_stack(SK_TEST_SMALL_STACK, dispose_and_release, nested_containers(levels));
    cr_assert_eq((intptr_t)runs, 1, "the innermost action ran %ld times when the dispose returned", (long)(intptr_t)runs);
    cr_assert_eq(nested_action_runs, 1);
    expect_no_live_objects(0);
}

Test(disposables, nested_containers_are_released_on_a_small_stack, .timeout = SK_TEST_TIMEOUT) {
    const long levels = running_under_valgrind() ? NESTED_CONTAINER_LEVELS / 10 : NESTED_CONTAINER_LEVELS;
    nested_action_runs = 0;
    run_on_stack(SK_TEST_SMALL_STACK, release_context_list, nested_containers(levels));
    cr_assert_eq(nested_action_runs, 0, "releasing does not dispose");
    expect_no_live_objects(0);
}

/* A container holding itself through containers nested deeper than the
 * disposes that nest on the stack (the deeper ones put off until the
 * outermost dispose works through them): the dispose still returns, each
 * member disposed once, and lets go of the cycle. */
Test(disposables, a_container_holding_itself_through_a_deep_nesting_is_disposed_once, .timeout = SK_TEST_TIMEOUT) {
    nested_action_runs = 0;
    sk_disposable *outermost = new_set();
    sk_disposable *action = NULL;
    SK_OK_OR_FAIL(sk_disposable_action(&action, count_nested_action, NULL, NULL));
    SK_OK_OR_FAIL(sk_disposable_set_add(outermost, action));
    sk_disposable_release(action);
    sk_disposable *holder = new_meta(); /* the innermost holds the outermost */
    SK_OK_OR_FAIL(sk_disposable_meta_set(holder, outermost));
    sk_disposable *chain = containers_around(holder, 100);
    SK_OK_OR_FAIL(sk_disposable_set_add(outermost, chain));
    sk_disposable_release(chain);
    sk_disposable *second = nested_containers(100); /* a deep member beside the cycle */
    SK_OK_OR_FAIL(sk_disposable_set_add(outermost, second));
    sk_disposable_release(second);
    sk_disposable_dispose(outermost);
    cr_assert_eq(nested_action_runs, 2, "%ld actions ran", nested_action_runs);
    sk_disposable_dispose(outermost);
    cr_assert_eq(nested_action_runs, 2);
    sk_disposable_release(outermost);
    expect_no_live_objects(0);
}

/* A container nested above put-off disposes keeps its members until they
 * are disposed: a dispose of it on another thread, made meanwhile, disposes
 * them too before it returns (the guarantee of sk_disposable_dispose()).
 * Here the outermost set holds a nesting 100 deep (an action innermost,
 * whose dispose is put off) and then an action that, running on the
 * disposing thread after the nesting's first 32 levels returned, has
 * another thread dispose the nesting's tenth level and waits for it. */
static sk_disposable *tenth_level;
static int innermost_runs; /* the two threads take turns: pthread_create and pthread_join order them */
static int innermost_runs_when_the_second_dispose_returned = -1;

static void count_innermost(void *ctx) {
    (void)ctx;
    innermost_runs++;
}

static void *dispose_the_tenth_level(void *arg) {
    (void)arg;
    sk_disposable_dispose(tenth_level);
    innermost_runs_when_the_second_dispose_returned = innermost_runs;
    return NULL;
}

static void dispose_from_another_thread(void *ctx) {
    (void)ctx;
    pthread_t thread;
    if (pthread_create(&thread, NULL, dispose_the_tenth_level, NULL) != 0 || pthread_join(thread, NULL) != 0) {
        sk_test_abort("pthread_create", SK_ERR_RESOURCE);
    }
}

Test(disposables, a_second_dispose_of_a_container_above_put_off_disposes_waits_for_them, .timeout = SK_TEST_TIMEOUT) {
    innermost_runs = 0;
    sk_disposable *innermost = NULL;
    SK_OK_OR_FAIL(sk_disposable_action(&innermost, count_innermost, NULL, NULL));
    sk_disposable *below_the_tenth = containers_around(innermost, 90);
    tenth_level = new_set();
    SK_OK_OR_FAIL(sk_disposable_set_add(tenth_level, below_the_tenth));
    sk_disposable_release(below_the_tenth);
    sk_disposable_retain(tenth_level);
    sk_disposable *nesting = containers_around(tenth_level, 9);
    sk_disposable *outermost = new_set();
    SK_OK_OR_FAIL(sk_disposable_set_add(outermost, nesting));
    sk_disposable_release(nesting);
    sk_disposable *second = NULL;
    SK_OK_OR_FAIL(sk_disposable_action(&second, dispose_from_another_thread, NULL, NULL));
    SK_OK_OR_FAIL(sk_disposable_set_add(outermost, second));
    sk_disposable_release(second);
    sk_disposable_dispose(outermost);
    cr_assert_eq(innermost_runs_when_the_second_dispose_returned, 1,
                 "the second dispose returned with the innermost action run %d times",
                 innermost_runs_when_the_second_dispose_returned);
    cr_assert_eq(innermost_runs, 1);
    sk_disposable_release(tenth_level);
    sk_disposable_release(outermost);
    expect_no_live_objects(0);
}
