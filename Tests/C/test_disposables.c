/* test_disposables.c - action, meta, set and dict disposables. */
#include <string.h>

#include "support.h"

/* An action disposable that logs 'a' when its action runs and 'r' when its
 * release runs, into a per-test log. */
typedef struct probe {
    pthread_mutex_t mutex;
    char log[64];
    size_t length;
} probe;

static void probe_init(probe *p) {
    memset(p, 0, sizeof *p);
    pthread_mutex_init(&p->mutex, NULL);
}

static void probe_destroy(probe *p) {
    pthread_mutex_destroy(&p->mutex);
}

static void probe_append(probe *p, char c) {
    pthread_mutex_lock(&p->mutex);
    if (p->length + 1 < sizeof p->log) {
        p->log[p->length++] = c;
        p->log[p->length] = '\0';
    }
    pthread_mutex_unlock(&p->mutex);
}

static void probe_action(void *ctx) {
    probe_append(ctx, 'a');
}

static void probe_release(void *ctx) {
    probe_append(ctx, 'r');
}

static sk_disposable *probe_disposable(probe *p) {
    sk_disposable *d = NULL;
    SK_OK_OR_FAIL(sk_disposable_action(&d, probe_action, p, probe_release));
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

static void expect_log(probe *p, const char *expected, const char *what) {
    pthread_mutex_lock(&p->mutex);
    char log[64];
    memcpy(log, p->log, sizeof log);
    pthread_mutex_unlock(&p->mutex);
    cr_assert_str_eq(log, expected, "%s: log \"%s\", expected \"%s\"", what, log, expected);
}

/* ------------------------------------------------------------------------ */
/* Action                                                                    */
/* ------------------------------------------------------------------------ */

Test(disposables, action_runs_once_then_release, .timeout = SK_TEST_TIMEOUT) {
    probe p;
    probe_init(&p);
    sk_disposable *d = probe_disposable(&p);
    expect_log(&p, "", "created");
    sk_disposable_dispose(d);
    expect_log(&p, "ar", "disposed: action, then release");
    sk_disposable_dispose(d);
    sk_disposable_dispose(d);
    expect_log(&p, "ar", "disposed again");
    sk_disposable_release(d);
    expect_log(&p, "ar", "released");
    probe_destroy(&p);
    expect_no_live_objects(0);
}

Test(disposables, action_released_without_dispose, .timeout = SK_TEST_TIMEOUT) {
    probe p;
    probe_init(&p);
    sk_disposable *d = probe_disposable(&p);
    sk_disposable *again = sk_disposable_retain(d);
    cr_assert_eq(again, d);
    sk_disposable_release(d);
    expect_log(&p, "", "one reference left");
    cr_assert_gt(sk_live_objects(), 0);
    sk_disposable_release(again);
    expect_log(&p, "r", "freed without dispose: release only");
    probe_destroy(&p);
    expect_no_live_objects(0);
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
        probe p;
        probe_init(&p);
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
        expect_log(&p, "ar", "disposed from 8 threads at once");
        sk_disposable_release(r.target);
        gate_destroy(&r.go);
        probe_destroy(&p);
    }
    expect_no_live_objects(0);
}

/* ------------------------------------------------------------------------ */
/* Meta                                                                      */
/* ------------------------------------------------------------------------ */

Test(disposables, meta_set_disposes_previous, .timeout = SK_TEST_TIMEOUT) {
    probe pa, pb;
    probe_init(&pa);
    probe_init(&pb);
    sk_disposable *meta = new_meta();
    sk_disposable *a = probe_disposable(&pa), *b = probe_disposable(&pb);

    SK_OK_OR_FAIL(sk_disposable_meta_set(meta, a));
    expect_log(&pa, "", "a set");
    SK_OK_OR_FAIL(sk_disposable_meta_set(meta, b));
    expect_log(&pa, "ar", "a replaced by b");
    expect_log(&pb, "", "b set");
    /* The meta holds b: dropping our handle does not free it. */
    sk_disposable_release(b);
    expect_log(&pb, "", "b's handle released");
    SK_OK_OR_FAIL(sk_disposable_meta_set(meta, NULL));
    expect_log(&pb, "ar", "slot emptied");

    sk_disposable_dispose(meta);
    sk_disposable_dispose(meta);
    expect_log(&pa, "ar", "meta disposed");
    sk_disposable_release(a);
    sk_disposable_release(meta);
    probe_destroy(&pa);
    probe_destroy(&pb);
    expect_no_live_objects(0);
}

Test(disposables, meta_dispose_disposes_current, .timeout = SK_TEST_TIMEOUT) {
    probe p;
    probe_init(&p);
    sk_disposable *meta = new_meta();
    sk_disposable *a = probe_disposable(&p);
    SK_OK_OR_FAIL(sk_disposable_meta_set(meta, a));
    sk_disposable_release(a);
    sk_disposable_dispose(meta);
    expect_log(&p, "ar", "meta disposed");
    sk_disposable_release(meta);
    probe_destroy(&p);
    expect_no_live_objects(0);
}

Test(disposables, meta_set_after_dispose_disposes_at_once, .timeout = SK_TEST_TIMEOUT) {
    probe p;
    probe_init(&p);
    sk_disposable *meta = new_meta();
    sk_disposable_dispose(meta);
    sk_disposable *late = probe_disposable(&p);
    SK_OK_OR_FAIL(sk_disposable_meta_set(meta, late));
    expect_log(&p, "ar", "set into a disposed meta");
    SK_OK_OR_FAIL(sk_disposable_meta_set(meta, NULL));
    sk_disposable_release(late);
    sk_disposable_release(meta);
    probe_destroy(&p);
    expect_no_live_objects(0);
}

Test(disposables, meta_releasing_does_not_dispose, .timeout = SK_TEST_TIMEOUT) {
    probe p;
    probe_init(&p);
    sk_disposable *meta = new_meta();
    sk_disposable *a = probe_disposable(&p);
    SK_OK_OR_FAIL(sk_disposable_meta_set(meta, a));
    sk_disposable_release(a);
    sk_disposable_release(meta);
    /* Releasing the meta frees what it held without disposing it. */
    expect_log(&p, "r", "meta released");
    probe_destroy(&p);
    expect_no_live_objects(0);
}

/* ------------------------------------------------------------------------ */
/* Set                                                                       */
/* ------------------------------------------------------------------------ */

Test(disposables, set_add_remove_dispose, .timeout = SK_TEST_TIMEOUT) {
    probe pa, pb, pc;
    probe_init(&pa);
    probe_init(&pb);
    probe_init(&pc);
    sk_disposable *set = new_set();
    sk_disposable *a = probe_disposable(&pa), *b = probe_disposable(&pb), *c = probe_disposable(&pc);
    SK_OK_OR_FAIL(sk_disposable_set_add(set, a));
    SK_OK_OR_FAIL(sk_disposable_set_add(set, b));
    SK_OK_OR_FAIL(sk_disposable_set_add(set, c));
    SK_OK_OR_FAIL(sk_disposable_set_remove(set, a));
    expect_log(&pa, "", "removed: not disposed");
    SK_OK_OR_FAIL(sk_disposable_set_remove(set, a)); /* absent: a no-op */
    sk_disposable_release(b);
    sk_disposable_release(c);

    sk_disposable_dispose(set);
    expect_log(&pa, "", "removed before the set was disposed");
    expect_log(&pb, "ar", "b disposed with the set");
    expect_log(&pc, "ar", "c disposed with the set");
    sk_disposable_dispose(set);
    expect_log(&pb, "ar", "set disposed twice");

    /* The removed one is still ours and still works. */
    sk_disposable_dispose(a);
    expect_log(&pa, "ar", "a disposed by hand");
    sk_disposable_release(a);
    sk_disposable_release(set);
    probe_destroy(&pa);
    probe_destroy(&pb);
    probe_destroy(&pc);
    expect_no_live_objects(0);
}

Test(disposables, set_add_after_dispose_disposes_at_once, .timeout = SK_TEST_TIMEOUT) {
    probe p;
    probe_init(&p);
    sk_disposable *set = new_set();
    sk_disposable_dispose(set);
    sk_disposable *late = probe_disposable(&p);
    SK_OK_OR_FAIL(sk_disposable_set_add(set, late));
    expect_log(&p, "ar", "added to a disposed set");
    sk_disposable_release(late);
    sk_disposable_release(set);
    probe_destroy(&p);
    expect_no_live_objects(0);
}

Test(disposables, set_released_frees_members_without_dispose, .timeout = SK_TEST_TIMEOUT) {
    probe p;
    probe_init(&p);
    sk_disposable *set = new_set();
    sk_disposable *a = probe_disposable(&p);
    SK_OK_OR_FAIL(sk_disposable_set_add(set, a));
    sk_disposable_release(a);
    expect_log(&p, "", "held by the set");
    sk_disposable_release(set);
    expect_log(&p, "r", "set released");
    probe_destroy(&p);
    expect_no_live_objects(0);
}

/* An action that disposes the set that contains it (re-entrancy). */
static void dispose_the_set(void *ctx) {
    sk_disposable_dispose(ctx);
}

Test(disposables, member_disposing_its_set_from_its_action, .timeout = SK_TEST_TIMEOUT) {
    probe p;
    probe_init(&p);
    sk_disposable *set = new_set();
    sk_disposable *reentrant = NULL;
    SK_OK_OR_FAIL(sk_disposable_action(&reentrant, dispose_the_set, set, NULL));
    sk_disposable *other = probe_disposable(&p);
    SK_OK_OR_FAIL(sk_disposable_set_add(set, reentrant));
    SK_OK_OR_FAIL(sk_disposable_set_add(set, other));
    sk_disposable_dispose(set);
    expect_log(&p, "ar", "sibling disposed");
    sk_disposable_release(reentrant);
    sk_disposable_release(other);
    sk_disposable_release(set);
    probe_destroy(&p);
    expect_no_live_objects(0);
}

/* ------------------------------------------------------------------------ */
/* Dict                                                                      */
/* ------------------------------------------------------------------------ */

Test(disposables, dict_per_key, .timeout = SK_TEST_TIMEOUT) {
    probe pa, pa2, pb, pc;
    probe_init(&pa);
    probe_init(&pa2);
    probe_init(&pb);
    probe_init(&pc);
    sk_disposable *dict = new_dict();
    sk_disposable *a = probe_disposable(&pa), *a2 = probe_disposable(&pa2), *b = probe_disposable(&pb);

    char key[8] = "alpha";
    SK_OK_OR_FAIL(sk_disposable_dict_set(dict, key, a));
    memcpy(key, "zzzzz", 5); /* the key was copied */
    SK_OK_OR_FAIL(sk_disposable_dict_set(dict, "beta", b));
    expect_log(&pa, "", "a set");
    SK_OK_OR_FAIL(sk_disposable_dict_set(dict, "alpha", a2));
    expect_log(&pa, "ar", "alpha replaced");
    expect_log(&pb, "", "other key untouched");
    SK_OK_OR_FAIL(sk_disposable_dict_set(dict, "beta", NULL));
    expect_log(&pb, "ar", "beta cleared");
    SK_OK_OR_FAIL(sk_disposable_dict_set(dict, "nothing", NULL)); /* clearing an absent key */

    sk_disposable_dispose(dict);
    expect_log(&pa2, "ar", "dict disposed");
    sk_disposable *c = probe_disposable(&pc);
    SK_OK_OR_FAIL(sk_disposable_dict_set(dict, "gamma", c));
    expect_log(&pc, "ar", "set into a disposed dict");

    sk_disposable_release(a);
    sk_disposable_release(a2);
    sk_disposable_release(b);
    sk_disposable_release(c);
    sk_disposable_release(dict);
    probe_destroy(&pa);
    probe_destroy(&pa2);
    probe_destroy(&pb);
    probe_destroy(&pc);
    expect_no_live_objects(0);
}

/* ------------------------------------------------------------------------ */
/* Misuse                                                                    */
/* ------------------------------------------------------------------------ */

Test(disposables, containers_null_arguments, .timeout = SK_TEST_TIMEOUT) {
    cr_assert_eq(sk_disposable_meta(NULL), SK_ERR_NULL_ARGUMENT);
    cr_assert_eq(sk_disposable_set(NULL), SK_ERR_NULL_ARGUMENT);
    cr_assert_eq(sk_disposable_dict(NULL), SK_ERR_NULL_ARGUMENT);
    probe p;
    probe_init(&p);
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
    expect_log(&p, "", "after failed calls");
    sk_disposable_release(a);
    expect_log(&p, "r", "released");
    sk_disposable_release(set);
    sk_disposable_release(dict);
    probe_destroy(&p);
    expect_no_live_objects(0);
}

Test(disposables, wrong_kind_handles, .timeout = SK_TEST_TIMEOUT) {
    probe p;
    probe_init(&p);
    sk_disposable *meta = new_meta(), *set = new_set(), *dict = new_dict();
    sk_disposable *action = probe_disposable(&p);
    sk_signal *signal = NULL;
    SK_OK_OR_FAIL(sk_signal_never(&signal));
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
    expect_log(&p, "", "after wrong-kind calls");

    sk_disposable_release(action);
    sk_disposable_release(meta);
    sk_disposable_release(set);
    sk_disposable_release(dict);
    sk_signal_release(signal);
    probe_destroy(&p);
    expect_no_live_objects(0);
}

Test(disposables, containers_nest, .timeout = SK_TEST_TIMEOUT) {
    probe p1, p2;
    probe_init(&p1);
    probe_init(&p2);
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
    expect_log(&p1, "ar", "meta inside the set");
    expect_log(&p2, "ar", "dict inside the set");
    sk_disposable_release(outer);
    probe_destroy(&p1);
    probe_destroy(&p2);
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
