/* test_handles.c - handle checking: a handle or value used after its last
 * release (or a pointer that never was one) is reported, not dereferenced.
 * Each test switches checking on first, in its own process, before any
 * library object exists. */
#include <string.h>

#include "support.h"

static void checking_on(void) {
    cr_assert_eq(sk_live_objects(), 0);
    SK_OK_OR_FAIL(sk_set_handle_checking(true));
    cr_assert(sk_handle_checking());
}

static void expect_released(int status, const char *function) {
    cr_assert_eq(status, SK_ERR_RELEASED, "%s returned %d (%s)", function, status, sk_status_string(status));
    cr_assert(strstr(sk_last_error_message(), function) != NULL, "message \"%s\" does not name %s",
              sk_last_error_message(), function);
}

Test(handles, off_by_default_and_switchable_only_when_nothing_lives, .timeout = SK_TEST_TIMEOUT) {
    cr_assert_not(sk_handle_checking());
    sk_signal *signal = made_signal(sk_signal_never);
    cr_assert_eq(sk_set_handle_checking(true), SK_ERR_BUSY);
    cr_assert_not(sk_handle_checking());
    cr_assert(strstr(sk_last_error_message(), "sk_set_handle_checking") != NULL);
    SK_OK_OR_FAIL(sk_set_handle_checking(false)); /* already off: fine */
    sk_signal_release(signal);
    checking_on();
    SK_OK_OR_FAIL(sk_set_handle_checking(true)); /* already on: fine */
    SK_OK_OR_FAIL(sk_set_handle_checking(false));
    cr_assert_not(sk_handle_checking());
    expect_no_live_objects(0);
}

Test(handles, released_signal_is_reported_everywhere, .timeout = SK_TEST_TIMEOUT) {
    checking_on();
    sk_signal *signal = made_signal(sk_signal_never);
    sk_signal_release(signal);
    cr_assert_eq(sk_live_objects(), 0);

    recorder r;
    recorder_init(&r);
    sk_observer observer = recorder_observer(&r);
    sk_disposable *d = (sk_disposable *)1;
    expect_released(sk_signal_start(&d, signal, &observer), "sk_signal_start");
    cr_assert_null(d);
    cr_assert_eq(recorder_releases(&r), 1, "the observer's release ran once although the call failed");
    recorder_destroy(&r);

    sk_signal *mapped = (sk_signal *)1;
    expect_released(sk_signal_distinct_until_changed(&mapped, signal), "sk_signal_distinct_until_changed");
    cr_assert_null(mapped);

    cr_assert_null(sk_signal_retain(signal));
    cr_assert(strstr(sk_last_error_message(), "sk_signal_retain") != NULL);
    sk_signal_release(signal); /* a double release: reported, harmless */
    cr_assert(strstr(sk_last_error_message(), "sk_signal_release") != NULL);
    expect_no_live_objects(0);
}

/* A single's handle keeps its value and builds its signal when used (see
 * sk_signal_single): what was built from it then holds the handle. With
 * checking on, the handle must still read as released once C released it. */
Test(handles, released_single_is_reported_while_what_was_built_from_it_lives, .timeout = SK_TEST_TIMEOUT) {
    checking_on();
    sk_value v = int_value(5);
    sk_signal *single = NULL, *taken = NULL;
    SK_OK_OR_FAIL(sk_signal_single(&single, &v));
    SK_OK_OR_FAIL(sk_signal_take(&taken, single, 1));
    sk_signal_release(single);
    cr_assert_null(sk_signal_retain(single), "a released single's handle read as live");
    cr_assert(strstr(sk_last_error_message(), "sk_signal_retain") != NULL);
    recorder r;
    recorder_init(&r);
    sk_observer observer = recorder_observer(&r);
    SK_OK_OR_FAIL(sk_signal_start(NULL, taken, &observer));
    recorder_expect_one(&r, "ncr", 5);
    recorder_destroy(&r);
    sk_signal_release(taken);
    expect_no_live_objects(0);
}

Test(handles, released_pipe_subscriber_disposable_queue, .timeout = SK_TEST_TIMEOUT) {
    checking_on();
    sk_pipe *pipe = NULL;
    SK_OK_OR_FAIL(sk_pipe_create(&pipe, false));
    sk_pipe_release(pipe);
    sk_value v = int_value(1);
    expect_released(sk_pipe_put(pipe, &v), "sk_pipe_put");

    manual_source source;
    sk_signal *signal = manual_init_signal(&source);
    sk_disposable *d = NULL;
    sk_observer nothing = { 0 };
    SK_OK_OR_FAIL(sk_signal_start(&d, signal, &nothing));
    sk_subscriber *subscriber = manual_subscriber(&source, 0);
    sk_disposable_dispose(d);
    sk_disposable_release(d);
    manual_drop_subscriber(&source, 0); /* the last reference */
    expect_released(sk_subscriber_put_next(subscriber, &v), "sk_subscriber_put_next");
    expect_released(sk_subscriber_put_completion(subscriber), "sk_subscriber_put_completion");
    sk_disposable_dispose(d); /* dispose of a released disposable: harmless */
    cr_assert(strstr(sk_last_error_message(), "sk_disposable_dispose") != NULL);
    sk_signal_release(signal);
    cr_assert(counter_wait(&source.ctx_released, 1, SK_WAIT_SECONDS));
    manual_destroy(&source);

    sk_queue *queue = host_queue(NULL);
    sk_queue_release(queue);
    counter c;
    counter_init(&c);
    expect_released(sk_queue_async(queue, counter_hit, &c, counter_hit), "sk_queue_async");
    cr_assert_eq(counter_get(&c), 1, "the work's release ran once, the work not at all");
    counter_destroy(&c);
    cr_assert_not(sk_queue_is_current(queue));
    expect_no_live_objects(0);
}

Test(handles, released_heap_value_is_reported, .timeout = SK_TEST_TIMEOUT) {
    checking_on();
    sk_value text = string_value("hello");
    sk_value copy = text; /* struct copies: no new reference */
    sk_value copy2 = text;
    sk_value_release(&text);
    cr_assert_eq(sk_live_objects(), 0);
    const char *out = NULL;
    expect_released(sk_value_get_string(&copy, &out, NULL), "sk_value_get_string");
    sk_value dst;
    expect_released(sk_value_copy(&dst, &copy), "sk_value_copy");
    cr_assert_eq(sk_value_kind(&dst), SK_KIND_NIL);
    cr_assert_not(sk_value_equal(&copy, &copy));
    sk_value_release(&copy); /* the double release: reported, harmless */
    cr_assert(strstr(sk_last_error_message(), "sk_value_release") != NULL);
    cr_assert_eq(sk_value_kind(&copy), SK_KIND_NIL);
    sk_signal *signal = (sk_signal *)1;
    expect_released(sk_signal_single(&signal, &copy2), "sk_signal_single");
    cr_assert_null(signal);
    expect_no_live_objects(0);
}

Test(handles, pointers_that_never_were_handles, .timeout = SK_TEST_TIMEOUT) {
    checking_on();
    long not_a_handle[8] = { 0 };
    sk_signal *bogus = (sk_signal *)(void *)not_a_handle;
    sk_signal *out = NULL;
    expect_released(sk_signal_take(&out, bogus, 1), "sk_signal_take");
    sk_signal_release(bogus);
    sk_pipe_release((sk_pipe *)(void *)not_a_handle);
    sk_disposable_dispose((sk_disposable *)(void *)not_a_handle);
    cr_assert_eq(not_a_handle[0], 0, "the library wrote into memory that is not its own");
    expect_no_live_objects(0);
}

/* A handle of the wrong type still reads as such with checking on. */
Test(handles, wrong_kind_still_reported_as_wrong_kind, .timeout = SK_TEST_TIMEOUT) {
    checking_on();
    sk_pipe *pipe = NULL;
    SK_OK_OR_FAIL(sk_pipe_create(&pipe, false));
    sk_signal *out = NULL;
    cr_assert_eq(sk_signal_take(&out, (sk_signal *)(void *)pipe, 1), SK_ERR_WRONG_KIND);
    sk_pipe_release(pipe);
    expect_no_live_objects(0);
}

/* A _release or _retain function given a handle of another kind refuses it:
 * nothing is released or retained, the message names the function and the
 * kind expected. Checking off, then on (the same rule either way). */
static void expect_refused(const char *function, const char *what) {
    cr_assert(strstr(sk_last_error_message(), function) != NULL, "message \"%s\" does not name %s",
              sk_last_error_message(), function);
    cr_assert(strstr(sk_last_error_message(), what) != NULL, "message \"%s\" does not say %s",
              sk_last_error_message(), what);
}

static void release_of_another_kind_is_refused(void) {
    sk_pipe *pipe = NULL;
    SK_OK_OR_FAIL(sk_pipe_create(&pipe, false));
    sk_signal *signal = made_signal(sk_signal_never);
    long live = sk_live_objects();
    sk_signal_release((sk_signal *)(void *)pipe);
    expect_refused("sk_signal_release", "not a signal");
    sk_subscriber_release((sk_subscriber *)(void *)pipe);
    expect_refused("sk_subscriber_release", "not a subscriber");
    sk_disposable_release((sk_disposable *)(void *)signal);
    expect_refused("sk_disposable_release", "not a disposable");
    sk_queue_release((sk_queue *)(void *)signal);
    expect_refused("sk_queue_release", "not a queue");
    sk_promise_release((sk_promise *)(void *)signal);
    expect_refused("sk_promise_release", "not a promise");
    sk_value_promise_release((sk_value_promise *)(void *)signal);
    expect_refused("sk_value_promise_release", "not a value promise");
    sk_pipe_release((sk_pipe *)(void *)signal);
    expect_refused("sk_pipe_release", "not a pipe");
    cr_assert_null(sk_signal_retain((sk_signal *)(void *)pipe));
    expect_refused("sk_signal_retain", "not a signal");
    cr_assert_null(sk_pipe_retain((sk_pipe *)(void *)signal));
    expect_refused("sk_pipe_retain", "not a pipe");
    cr_assert_eq(sk_live_objects(), live, "a refused release or retain changed the live objects");
    /* Both still usable, each released once by its own function. */
    sk_value v;
    sk_value_set_int64(&v, 1);
    SK_OK_OR_FAIL(sk_pipe_put(pipe, &v));
    sk_pipe_release(pipe);
    sk_signal_release(signal);
    expect_no_live_objects(0);
}

Test(handles, release_of_another_kind_is_refused_checking_off, .timeout = SK_TEST_TIMEOUT) {
    release_of_another_kind_is_refused();
}

Test(handles, release_of_another_kind_is_refused_checking_on, .timeout = SK_TEST_TIMEOUT) {
    checking_on();
    release_of_another_kind_is_refused();
}

/* Checking off: a pointer whose first word is no object's type (as the
 * handles of libsignalkit-ffi, which start with a tag word) is refused by
 * every _release and _retain function, never written to. */
Test(handles, release_of_a_foreign_handle_is_refused_checking_off, .timeout = SK_TEST_TIMEOUT) {
    uint64_t foreign[8] = { UINT64_C(0x5349474e5f464653), 1, 0, 0, 0, 0, 0, 0 };
    uint64_t before[8];
    memcpy(before, foreign, sizeof foreign);
    sk_signal_release((sk_signal *)(void *)foreign);
    expect_refused("sk_signal_release", "not a signal");
    sk_subscriber_release((sk_subscriber *)(void *)foreign);
    expect_refused("sk_subscriber_release", "not a subscriber");
    sk_disposable_release((sk_disposable *)(void *)foreign);
    sk_queue_release((sk_queue *)(void *)foreign);
    sk_pipe_release((sk_pipe *)(void *)foreign);
    sk_promise_release((sk_promise *)(void *)foreign);
    sk_value_promise_release((sk_value_promise *)(void *)foreign);
    cr_assert_null(sk_signal_retain((sk_signal *)(void *)foreign));
    cr_assert_null(sk_subscriber_retain((sk_subscriber *)(void *)foreign));
    cr_assert_null(sk_disposable_retain((sk_disposable *)(void *)foreign));
    expect_refused("sk_disposable_retain", "not a disposable");
    cr_assert_eq(memcmp(before, foreign, sizeof foreign), 0, "the library wrote into memory that is not its own");
    expect_no_live_objects(0);
}

/* sk_value_set_signal() given a released signal: SK_ERR_RELEASED, as every
 * call given a released handle (it said SK_ERR_WRONG_KIND). */
Test(handles, value_set_signal_of_a_released_signal, .timeout = SK_TEST_TIMEOUT) {
    checking_on();
    sk_signal *signal = made_signal(sk_signal_never);
    sk_signal_release(signal);
    sk_value v;
    expect_released(sk_value_set_signal(&v, signal), "sk_value_set_signal");
    cr_assert_eq(sk_value_kind(&v), SK_KIND_NIL);
    sk_pipe *pipe = NULL;
    SK_OK_OR_FAIL(sk_pipe_create(&pipe, false));
    cr_assert_eq(sk_value_set_signal(&v, (sk_signal *)(void *)pipe), SK_ERR_WRONG_KIND);
    cr_assert_eq(sk_value_set_signal(&v, NULL), SK_ERR_NULL_ARGUMENT);
    sk_pipe_release(pipe);
    expect_no_live_objects(0);
}
