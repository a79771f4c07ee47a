/* Trampolines: real C function pointers of a described type that feed a
 * subscriber or a pipe; every argument type; many threads at once; no-op
 * after termination and after close; release while a call is in flight;
 * a producer that accepts only a bare function pointer; misuse. */
#include "ffi_support.h"

TestSuite(ffi_trampoline, .timeout = SK_TEST_TIMEOUT);

/* A signal, a recorder subscribed to it and a trampoline of `text` feeding
 * it: piped_open makes a pipe, its signal and a trampoline over the pipe;
 * subscribed_open a manual source, its signal and a trampoline over the
 * source's first subscriber. piped_close releases what either made (after
 * disposing the subscription and waiting for the observer's release). */
typedef struct piped {
    sk_pipe *pipe;         /* piped_open only */
    manual_source source;  /* subscribed_open only */
    bool manual;
    sk_signal *signal;
    sk_disposable *subscription;
    recorder r;
    sk_ffi_signature *signature;
    sk_ffi_trampoline *trampoline;
} piped;

/* What both openings share: subscribes p->r to p->signal (the disposable
 * in p->subscription) and parses p->signature; piped_close releases both. */
static void piped_subscribe(piped *p, const char *text) {
    p->subscription = recorder_start(&p->r, p->signal);
    p->signature = sig(text);
}

static void piped_open(piped *p, const char *text) {
    p->manual = false;
    SK_OK_OR_FAIL(sk_pipe_create(&p->pipe, false));
    SK_OK_OR_FAIL(sk_pipe_signal(&p->signal, p->pipe));
    piped_subscribe(p, text);
    SK_OK_OR_FAIL(sk_ffi_trampoline_pipe(&p->trampoline, p->pipe, p->signature));
    cr_assert_not_null(sk_ffi_trampoline_function(p->trampoline));
}

static void subscribed_open(piped *p, const char *text) {
    p->manual = true;
    p->pipe = NULL;
    manual_init(&p->source);
    p->signal = manual_signal(&p->source);
    piped_subscribe(p, text);
    SK_OK_OR_FAIL(sk_ffi_trampoline_subscriber(&p->trampoline, manual_subscriber(&p->source, 0), p->signature));
    cr_assert_not_null(sk_ffi_trampoline_function(p->trampoline));
}

static void piped_close(piped *p) {
    sk_ffi_trampoline_release(p->trampoline);
    sk_ffi_signature_release(p->signature);
    sk_disposable_dispose(p->subscription);
    cr_assert(recorder_wait_release(&p->r));
    sk_disposable_release(p->subscription);
    sk_signal_release(p->signal);
    if (p->manual) {
        manual_destroy(&p->source);
    } else {
        sk_pipe_release(p->pipe);
    }
    recorder_destroy(&p->r);
}

static const sk_value *nth(piped *p, size_t i) {
    const rec_event *e = recorder_event(&p->r, i);
    cr_assert_not_null(e);
    cr_assert_eq(e->kind, REC_NEXT);
    return &e->value;
}

/* Asserts that the first two nexts `p` recorded are the string `expected`
 * and nil. */
static void expect_string_then_nil(piped *p, const char *expected) {
    const char *text = NULL;
    SK_OK_OR_FAIL(sk_value_get_string(nth(p, 0), &text, NULL));
    cr_assert_str_eq(text, expected);
    cr_assert_eq(sk_value_kind(nth(p, 1)), SK_KIND_NIL);
}

Test(ffi_trampoline, every_argument_type_becomes_a_value) {
    piped p;
    bool b = false;
    int64_t n = 0;
    double d = 0;
    const char *s = NULL;
    void *ptr = NULL;

    piped_open(&p, "void(bool)");
    ((void (*)(bool))sk_ffi_trampoline_function(p.trampoline))(true);
    ((void (*)(bool))sk_ffi_trampoline_function(p.trampoline))(false);
    SK_OK_OR_FAIL(sk_value_get_bool(nth(&p, 0), &b));
    cr_assert(b);
    SK_OK_OR_FAIL(sk_value_get_bool(nth(&p, 1), &b));
    cr_assert_not(b);
    piped_close(&p);

    piped_open(&p, "void(i32)");
    ((void (*)(int32_t))sk_ffi_trampoline_function(p.trampoline))(INT32_MIN);
    cr_assert_eq(value_int(nth(&p, 0)), INT32_MIN);
    piped_close(&p);

    piped_open(&p, "void(i64)");
    ((void (*)(int64_t))sk_ffi_trampoline_function(p.trampoline))(INT64_MAX);
    cr_assert_eq(value_int(nth(&p, 0)), INT64_MAX);
    piped_close(&p);

    piped_open(&p, "void(u64)");
    void (*u64_fn)(uint64_t) = (void (*)(uint64_t))sk_ffi_trampoline_function(p.trampoline);
    u64_fn((uint64_t)INT64_MAX);
    u64_fn((uint64_t)INT64_MAX + 1); /* does not convert: a pipe puts nothing */
    u64_fn(3);
    int64_t u64_values[] = {INT64_MAX, 3};
    int64_t got[4];
    cr_assert_eq(recorder_ints(&p.r, got, 4), 2);
    cr_assert_eq(got[0], u64_values[0]);
    cr_assert_eq(got[1], u64_values[1]);
    cr_assert_eq(sk_ffi_trampoline_calls(p.trampoline), 2);
    piped_close(&p);

    /* The narrow types, in one call (an array value of their items). */
    piped_open(&p, "void(i8,i16,u8,u16,u32,f32)");
    ((void (*)(int8_t, int16_t, uint8_t, uint16_t, uint32_t, float))sk_ffi_trampoline_function(p.trampoline))(
        INT8_MIN, INT16_MAX, UINT8_MAX, UINT16_MAX, UINT32_MAX, 0.1f);
    {
        static const int64_t expected[] = {INT8_MIN, INT16_MAX, UINT8_MAX, UINT16_MAX, UINT32_MAX};
        size_t count = 0;
        SK_OK_OR_FAIL(sk_value_get_array_count(nth(&p, 0), &count));
        cr_assert_eq(count, 6);
        for (size_t i = 0; i < 5; i++) {
            const sk_value *item = NULL;
            SK_OK_OR_FAIL(sk_value_get_array_item(nth(&p, 0), i, &item));
            cr_assert_eq(value_int(item), expected[i], "item %zu", i);
        }
        const sk_value *real = NULL;
        SK_OK_OR_FAIL(sk_value_get_array_item(nth(&p, 0), 5, &real));
        SK_OK_OR_FAIL(sk_value_get_double(real, &d));
        cr_assert_eq(d, (double)0.1f, "f32 widens exactly: %.17g", d);
    }
    piped_close(&p);

    piped_open(&p, "void(f64)");
    ((void (*)(double))sk_ffi_trampoline_function(p.trampoline))(-0.25);
    SK_OK_OR_FAIL(sk_value_get_double(nth(&p, 0), &d));
    cr_assert_float_eq(d, -0.25, 0);
    piped_close(&p);

    piped_open(&p, "void(str)");
    char text[] = "copied";
    ((void (*)(const char *))sk_ffi_trampoline_function(p.trampoline))(text);
    text[0] = 'X'; /* the value holds a copy */
    ((void (*)(const char *))sk_ffi_trampoline_function(p.trampoline))(NULL);
    expect_string_then_nil(&p, "copied");
    piped_close(&p);

    piped_open(&p, "void(ptr)");
    ((void (*)(void *))sk_ffi_trampoline_function(p.trampoline))(text);
    SK_OK_OR_FAIL(sk_value_get_pointer(nth(&p, 0), &ptr));
    cr_assert_eq(ptr, text);
    piped_close(&p);

    piped_open(&p, "void(value)");
    sk_value v = string_value("boxed");
    ((void (*)(const sk_value *))sk_ffi_trampoline_function(p.trampoline))(&v);
    sk_value_release(&v);
    ((void (*)(const sk_value *))sk_ffi_trampoline_function(p.trampoline))(NULL);
    expect_string_then_nil(&p, "boxed");
    piped_close(&p);

    piped_open(&p, "void()");
    ((void (*)(void))sk_ffi_trampoline_function(p.trampoline))();
    cr_assert_eq(sk_value_kind(nth(&p, 0)), SK_KIND_NIL);
    piped_close(&p);

    piped_open(&p, "void(i64,str,f64,bool)");
    ((void (*)(int64_t, const char *, double, bool))sk_ffi_trampoline_function(p.trampoline))(-9, "x", 1.5, true);
    size_t count = 0;
    SK_OK_OR_FAIL(sk_value_get_array_count(nth(&p, 0), &count));
    cr_assert_eq(count, 4);
    const sk_value *item = NULL;
    SK_OK_OR_FAIL(sk_value_get_array_item(nth(&p, 0), 0, &item));
    SK_OK_OR_FAIL(sk_value_get_int64(item, &n));
    cr_assert_eq(n, -9);
    SK_OK_OR_FAIL(sk_value_get_array_item(nth(&p, 0), 1, &item));
    SK_OK_OR_FAIL(sk_value_get_string(item, &s, NULL));
    cr_assert_str_eq(s, "x");
    SK_OK_OR_FAIL(sk_value_get_array_item(nth(&p, 0), 2, &item));
    SK_OK_OR_FAIL(sk_value_get_double(item, &d));
    cr_assert_float_eq(d, 1.5, 0);
    SK_OK_OR_FAIL(sk_value_get_array_item(nth(&p, 0), 3, &item));
    SK_OK_OR_FAIL(sk_value_get_bool(item, &b));
    cr_assert(b);
    piped_close(&p);
    expect_no_ffi_live_objects();
}

/* Opens a subscriber trampoline of `text` into `p` (subscribed_open), has
 * feed(p, function) call it until the subscription ends, waits for the
 * observer's release and asserts the log `expected` with the int64 values
 * `values`. The caller asserts more on p->r, then piped_close()s p. */
static void check_subscribed(piped *p, const char *text, void (*feed)(piped *p, sk_ffi_fn function), const char *expected, const int64_t *values, size_t count) {
    subscribed_open(p, text);
    feed(p, sk_ffi_trampoline_function(p->trampoline));
    cr_assert(recorder_wait_release(&p->r), "%s: the subscription did not end", text);
    recorder_expect(&p->r, expected, values, count);
}

/* "void(i64)": 1, 2, the source completes, then 3, 4. */
static void feed_across_completion(piped *p, sk_ffi_fn function) {
    void (*put)(int64_t) = (void (*)(int64_t))function;
    put(1);
    put(2);
    SK_OK_OR_FAIL(sk_subscriber_put_completion(manual_subscriber(&p->source, 0)));
    put(3); /* after the terminal event: nothing */
    put(4);
}

Test(ffi_trampoline, subscriber_trampoline_is_a_no_op_after_termination) {
    piped p;
    int64_t expected[] = {1, 2};
    check_subscribed(&p, "void(i64)", feed_across_completion, "nncr", expected, 2);
    piped_close(&p);
    expect_no_ffi_live_objects();
}

/* "void(u64)": 5, UINT64_MAX (out of range of int64), then 6. */
static void feed_one_unconvertible(piped *p, sk_ffi_fn function) {
    (void)p;
    void (*put)(uint64_t) = (void (*)(uint64_t))function;
    put(5);
    put(UINT64_MAX);
    put(6);
}

Test(ffi_trampoline, unconvertible_argument_ends_a_subscriber_with_an_error) {
    piped p;
    int64_t five[] = {5};
    check_subscribed(&p, "void(u64)", feed_one_unconvertible, "ner", five, 1);
    expect_event_string(&p.r, 1, "sk_ffi: trampoline: argument 0 (u64): u64 18446744073709551615 out of range of int64");
    cr_assert(counter_wait(&p.source.disposed, 1, SK_WAIT_SECONDS));
    piped_close(&p);
    expect_no_ffi_live_objects();
}

/* Many threads calling one trampoline at once. */
static long sum_seen;
static void add_next(recorder *r, const sk_value *value) {
    (void)r;
    int64_t n = 0;
    sk_value_get_int64(value, &n);
    __atomic_add_fetch(&sum_seen, n, __ATOMIC_RELAXED);
}

/* A round of run_rounds_on_threads: calls the function `arg` points to
 * with the thread's number + 1. */
static void call_with_thread_number(void *arg, int thread) {
    void (*fn)(int64_t) = *(void (**)(int64_t))arg;
    fn(thread + 1);
}

Test(ffi_trampoline, called_from_many_threads_at_once) {
    piped p;
    piped_open(&p, "void(i64)");
    p.r.keep_values = false;
    p.r.on_next = add_next;
    enum { THREADS = 6, CALLS = 5000 };
    void (*fn)(int64_t) = (void (*)(int64_t))sk_ffi_trampoline_function(p.trampoline);
    run_rounds_on_threads(THREADS, CALLS, call_with_thread_number, &fn);
    cr_assert_eq(recorder_nexts(&p.r), THREADS * CALLS);
    cr_assert_eq(__atomic_load_n(&sum_seen, __ATOMIC_RELAXED), (long)CALLS * THREADS * (THREADS + 1) / 2);
    cr_assert_eq(sk_ffi_trampoline_calls(p.trampoline), (uint64_t)THREADS * CALLS);
    piped_close(&p);
    expect_no_ffi_live_objects();
}

Test(ffi_trampoline, close_makes_calls_no_ops_and_drops_the_target) {
    piped p;
    piped_open(&p, "void(i64)");
    void (*put)(int64_t) = (void (*)(int64_t))sk_ffi_trampoline_function(p.trampoline);
    put(1);
    sk_ffi_trampoline_close(p.trampoline);
    sk_ffi_trampoline_close(p.trampoline); /* idempotent */
    put(2);
    cr_assert_eq(sk_ffi_trampoline_calls(p.trampoline), 1);
    int64_t expected[] = {1};
    int64_t got[4];
    cr_assert_eq(recorder_ints(&p.r, got, 4), 1);
    cr_assert_eq(got[0], expected[0]);
    /* The trampoline no longer holds the pipe: releasing the pipe ends it. */
    sk_ffi_trampoline *t = p.trampoline;
    long before = sk_live_objects();
    sk_pipe_release(p.pipe);
    cr_assert_lt(sk_live_objects(), before, "the closed trampoline still held the pipe");
    put(3);
    SK_OK_OR_FAIL(sk_pipe_create(&p.pipe, false)); /* for piped_close */
    p.trampoline = t;
    piped_close(&p);
    expect_no_ffi_live_objects();
}

/* Release while a call is in flight: the subscriber's callback, running
 * inside the trampoline call on another thread, waits until the test has
 * released the last reference. */
typedef struct {
    gate entered;
    gate proceed;
} flight;

static void block_in_next(recorder *r, const sk_value *value) {
    (void)value;
    flight *f = r->user;
    gate_open(&f->entered);
    if (!gate_wait(&f->proceed, SK_WAIT_SECONDS)) {
        abort();
    }
}

typedef struct {
    void (*fn)(int64_t);
} one_call;

static void *call_once(void *arg) {
    one_call *c = arg;
    c->fn(42);
    return NULL;
}

Test(ffi_trampoline, release_during_an_in_flight_call_is_safe) {
    piped p;
    piped_open(&p, "void(i64)");
    flight f;
    gate_init(&f.entered);
    gate_init(&f.proceed);
    p.r.user = &f;
    p.r.on_next = block_in_next;
    one_call c = {(void (*)(int64_t))sk_ffi_trampoline_function(p.trampoline)};
    pthread_t thread;
    pthread_create(&thread, NULL, call_once, &c);
    cr_assert(gate_wait(&f.entered, SK_WAIT_SECONDS));
    sk_ffi_signature_release(p.signature);
    p.signature = NULL;
    sk_ffi_trampoline_release(p.trampoline); /* the last handle reference */
    p.trampoline = NULL;
    /* The call in flight keeps the trampoline (and its signature) alive. */
    cr_assert_eq(sk_ffi_live_objects(), 2);
    gate_open(&f.proceed);
    pthread_join(thread, NULL);
    cr_assert_eq(sk_ffi_live_objects(), 0, "freed once the call returned");
    int64_t expected[] = {42};
    int64_t got[2];
    cr_assert_eq(recorder_ints(&p.r, got, 2), 1);
    cr_assert_eq(got[0], expected[0]);
    piped_close(&p);
    gate_destroy(&f.entered);
    gate_destroy(&f.proceed);
    expect_no_ffi_live_objects();
}

/* Close and the last release racing calls on other threads, many rounds.
 * Each caller holds a reference of its own from before its first call to
 * after its last (the contract for calls that may race the last release,
 * and what the Python binding does per call): the last reference is
 * dropped by whichever thread gets there last, never inside a call. */
enum { RACE_THREADS = 4, RACE_ROUNDS = 100, RACE_ROUNDS_UNDER_VALGRIND = 10 };

/* The races are the natural and the sanitizer runs' to find; under valgrind,
 * which runs one thread at a time, a few rounds check the memory. */
static int race_rounds(void) {
    return running_under_valgrind() ? RACE_ROUNDS_UNDER_VALGRIND : RACE_ROUNDS;
}

typedef struct {
    sk_ffi_trampoline *held; /* this caller's own reference */
    gate called;             /* opened after its first call */
    pthread_barrier_t *go;   /* passed once every caller made its first call */
    int *stop;
} race_caller;

static void *race_call(void *arg) {
    race_caller *c = arg;
    void (*fn)(int64_t) = (void (*)(int64_t))sk_ffi_trampoline_function(c->held);
    fn(1);
    gate_open(&c->called);
    /* The calls race from here, once every caller has made its first: a
     * caller looping before then could keep the others from their first
     * call under valgrind, which runs one thread at a time and hands its
     * lock over unfairly (it did: the test waited for a first call for
     * SK_WAIT_SECONDS). */
    pthread_barrier_wait(c->go);
    while (!__atomic_load_n(c->stop, __ATOMIC_ACQUIRE)) {
        fn(1);
    }
    sk_ffi_trampoline_release(c->held);
    return NULL;
}

Test(ffi_trampoline, close_and_last_release_race_calls_on_other_threads) {
    for (int round = 0; round < race_rounds(); round++) {
        piped p;
        piped_open(&p, "void(i64)");
        p.r.keep_values = false;
        int stop = 0;
        race_caller callers[RACE_THREADS];
        pthread_t threads[RACE_THREADS];
        pthread_barrier_t go;
        cr_assert_eq(pthread_barrier_init(&go, NULL, RACE_THREADS + 1), 0);
        for (int i = 0; i < RACE_THREADS; i++) {
            callers[i].held = sk_ffi_trampoline_retain(p.trampoline);
            gate_init(&callers[i].called);
            callers[i].go = &go;
            callers[i].stop = &stop;
            cr_assert_eq(pthread_create(&threads[i], NULL, race_call, &callers[i]), 0);
        }
        for (int i = 0; i < RACE_THREADS; i++) {
            cr_assert(gate_wait(&callers[i].called, SK_WAIT_SECONDS));
        }
        pthread_barrier_wait(&go);
        if (round % 2 == 0) {
            sk_ffi_trampoline_close(p.trampoline); /* calls become no-ops mid-loop */
        }
        sk_ffi_trampoline_release(p.trampoline); /* the test's reference, calls running */
        p.trampoline = NULL;
        __atomic_store_n(&stop, 1, __ATOMIC_RELEASE);
        for (int i = 0; i < RACE_THREADS; i++) {
            pthread_join(threads[i], NULL);
            gate_destroy(&callers[i].called);
        }
        pthread_barrier_destroy(&go);
        cr_assert_eq(sk_ffi_live_objects(), 1, "round %d: the trampoline outlived its last reference", round);
        piped_close(&p); /* releases the signature */
    }
    expect_no_ffi_live_objects();
}

/* The last reference dropped inside the trampoline's own call, by the
 * subscriber's callback: the trampoline (its closure, and the signature
 * whose cif the closure uses) is freed when the handler returns, inside
 * libffi's closure entry, which reads neither once the handler returned. */
static void release_in_next(recorder *r, const sk_value *value) {
    (void)value;
    sk_ffi_trampoline **t = r->user;
    sk_ffi_trampoline_release(*t); /* the last reference */
    *t = NULL;
}

Test(ffi_trampoline, last_release_inside_its_own_call) {
    for (int round = 0; round < race_rounds(); round++) {
        piped p;
        piped_open(&p, "void(i64)");
        sk_ffi_signature_release(p.signature); /* the trampoline holds the last one */
        p.signature = NULL;
        void (*fn)(int64_t) = (void (*)(int64_t))sk_ffi_trampoline_function(p.trampoline);
        p.r.user = &p.trampoline;
        p.r.on_next = release_in_next;
        fn(7);
        cr_assert_null(p.trampoline);
        cr_assert_eq(sk_ffi_live_objects(), 0, "round %d: freed when its call returned", round);
        int64_t got[2];
        cr_assert_eq(recorder_ints(&p.r, got, 2), 1);
        cr_assert_eq(got[0], 7);
        piped_close(&p);
    }
    expect_no_ffi_live_objects();
}

/* A producer that accepts only a bare function pointer, as many C APIs do
 * (signal handlers, qsort-style callbacks, old plugin interfaces). */
static void (*registered)(int64_t);
static void producer_register(void (*callback)(int64_t)) { registered = callback; }
static void producer_emit(int64_t n) {
    if (registered != NULL) {
        registered(n);
    }
}

typedef struct {
    sk_ffi_signature *signature;
    counter unregistered;
} producer_ctx;

static void unregister(void *ctx) {
    sk_ffi_trampoline *t = ctx;
    producer_register(NULL);
    sk_ffi_trampoline_release(t);
}

static sk_disposable *producer_generator(void *ctx, sk_subscriber *subscriber) {
    producer_ctx *pc = ctx;
    sk_ffi_trampoline *t = NULL;
    SK_OK_OR_ABORT(sk_ffi_trampoline_subscriber(&t, subscriber, pc->signature));
    producer_register((void (*)(int64_t))sk_ffi_trampoline_function(t));
    sk_disposable *d = NULL;
    SK_OK_OR_ABORT(sk_disposable_action(&d, unregister, t, NULL));
    counter_hit(&pc->unregistered); /* counts starts here */
    return d;
}

Test(ffi_trampoline, feeds_a_signal_from_a_bare_function_pointer_producer) {
    producer_ctx pc;
    pc.signature = sig("void(i64)");
    counter_init(&pc.unregistered);
    sk_signal *signal = NULL;
    SK_OK_OR_FAIL(sk_signal_create(&signal, producer_generator, &pc, NULL));
    sk_signal *taken = NULL;
    SK_OK_OR_FAIL(sk_signal_take(&taken, signal, 3));
    recorder r;
    recorder_init(&r);
    sk_observer o = recorder_observer(&r);
    SK_OK_OR_FAIL(sk_signal_start(NULL, taken, &o));
    cr_assert_eq(counter_get(&pc.unregistered), 1);
    for (int64_t n = 10; n < 20; n++) {
        producer_emit(n); /* after the third, take completes and disposes: unregistered */
    }
    cr_assert(recorder_wait_release(&r));
    int64_t expected[] = {10, 11, 12};
    recorder_expect(&r, "nnncr", expected, 3);
    cr_assert_null(registered);
    sk_signal_release(taken);
    sk_signal_release(signal);
    sk_ffi_signature_release(pc.signature);
    counter_destroy(&pc.unregistered);
    recorder_destroy(&r);
    expect_no_ffi_live_objects();
}

Test(ffi_trampoline, misuse_is_reported) {
    sk_pipe *pipe = NULL;
    SK_OK_OR_FAIL(sk_pipe_create(&pipe, false));
    sk_ffi_signature *good = sig("void(i64)");
    sk_ffi_signature *returns = sig("i64(i64)");
    sk_ffi_signature *with_ctx = sig("void(ctx,i64)");
    sk_ffi_trampoline *t = (sk_ffi_trampoline *)&t;
    EXPECT_FFI_ERROR(sk_ffi_trampoline_pipe(NULL, pipe, good), SK_ERR_NULL_ARGUMENT, "sk_ffi_trampoline_pipe: out is NULL");
    EXPECT_FFI_ERROR(sk_ffi_trampoline_pipe(&t, NULL, good), SK_ERR_NULL_ARGUMENT, "sk_ffi_trampoline_pipe: pipe is NULL");
    cr_assert_null(t);
    EXPECT_FFI_ERROR(sk_ffi_trampoline_subscriber(&t, NULL, good), SK_ERR_NULL_ARGUMENT, "sk_ffi_trampoline_subscriber: subscriber is NULL");
    EXPECT_FFI_ERROR(sk_ffi_trampoline_pipe(&t, pipe, NULL), SK_ERR_NULL_ARGUMENT, "sk_ffi_trampoline_pipe: signature is NULL");
    EXPECT_FFI_ERROR(sk_ffi_trampoline_pipe(&t, pipe, returns), SK_ERR_INVALID_ARGUMENT, "sk_ffi_trampoline_pipe: signature: must return void, returns i64");
    EXPECT_FFI_ERROR(sk_ffi_trampoline_pipe(&t, pipe, with_ctx), SK_ERR_INVALID_ARGUMENT, "argument 0 is ctx; a trampoline has no ctx");
    cr_assert_null(t);
    cr_assert_null(sk_ffi_trampoline_function(NULL));
    cr_assert_eq(sk_ffi_trampoline_calls(NULL), 0);
    cr_assert_null(sk_ffi_trampoline_retain(NULL));
    sk_ffi_trampoline_close(NULL);
    sk_ffi_trampoline_release(NULL);
    /* retain / release pairs: freed on the last release only */
    SK_OK_OR_FAIL(sk_ffi_trampoline_pipe(&t, pipe, good));
    cr_assert_eq(sk_ffi_trampoline_retain(t), t);
    sk_ffi_trampoline_release(t);
    cr_assert_eq(sk_ffi_live_objects(), 4);
    sk_ffi_trampoline_release(t);
    cr_assert_eq(sk_ffi_live_objects(), 3);
    sk_ffi_signature_release(good);
    sk_ffi_signature_release(returns);
    sk_ffi_signature_release(with_ctx);
    sk_pipe_release(pipe);
    expect_no_ffi_live_objects();
}
