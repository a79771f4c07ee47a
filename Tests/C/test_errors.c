/* test_errors.c - status strings and the thread-local last error message. */
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "support.h"

static const int all_statuses[] = {
    SK_OK, SK_ERR_NULL_ARGUMENT, SK_ERR_WRONG_KIND, SK_ERR_INVALID_ARGUMENT,
    SK_ERR_NO_MEMORY, SK_ERR_BUSY, SK_ERR_UNSUPPORTED, SK_ERR_RELEASED, SK_ERR_RESOURCE
};
#define STATUS_COUNT (sizeof all_statuses / sizeof all_statuses[0])

Test(errors, status_values_are_as_declared, .timeout = SK_TEST_TIMEOUT) {
    /* The ABI: these numbers must never change. */
    cr_assert_eq(SK_OK, 0);
    cr_assert_eq(SK_ERR_NULL_ARGUMENT, -1);
    cr_assert_eq(SK_ERR_WRONG_KIND, -2);
    cr_assert_eq(SK_ERR_INVALID_ARGUMENT, -3);
    cr_assert_eq(SK_ERR_NO_MEMORY, -4);
    cr_assert_eq(SK_ERR_BUSY, -5);
    cr_assert_eq(SK_ERR_UNSUPPORTED, -6);
    cr_assert_eq(SK_ERR_RELEASED, -7);
    cr_assert_eq(SK_ERR_RESOURCE, -8);
}

Test(errors, status_string_for_every_status, .timeout = SK_TEST_TIMEOUT) {
    /* The two the header spells out. */
    cr_assert_str_eq(sk_status_string(SK_OK), "ok");
    cr_assert_str_eq(sk_status_string(SK_ERR_NULL_ARGUMENT), "null argument");
    for (size_t i = 0; i < STATUS_COUNT; i++) {
        const char *text = sk_status_string(all_statuses[i]);
        cr_assert_not_null(text, "status %d", all_statuses[i]);
        cr_assert_gt(strlen(text), 0, "status %d has an empty description", all_statuses[i]);
        cr_assert_str_neq(text, "unknown status", "status %d is described as unknown", all_statuses[i]);
        /* Static: the same pointer every time. */
        cr_assert_eq(sk_status_string(all_statuses[i]), text);
        for (size_t j = 0; j < i; j++) {
            cr_assert_str_neq(text, sk_status_string(all_statuses[j]),
                              "statuses %d and %d share the description \"%s\"", all_statuses[i], all_statuses[j], text);
        }
    }
}

Test(errors, status_string_for_unknown_values, .timeout = SK_TEST_TIMEOUT) {
    const int unknown[] = { 1, 2, -9, -100, 1000, INT_MAX, INT_MIN };
    for (size_t i = 0; i < sizeof unknown / sizeof unknown[0]; i++) {
        const char *text = sk_status_string(unknown[i]);
        cr_assert_not_null(text);
        cr_assert_str_eq(text, "unknown status", "status %d: \"%s\"", unknown[i], text);
    }
}

Test(errors, no_error_yet_is_empty, .timeout = SK_TEST_TIMEOUT) {
    const char *message = sk_last_error_message();
    cr_assert_not_null(message);
    cr_assert_str_eq(message, "");
}

Test(errors, message_names_function_and_argument, .timeout = SK_TEST_TIMEOUT) {
    sk_signal *never = made_signal(sk_signal_never);
    sk_signal *out = (sk_signal *)&out; /* must be overwritten with NULL */
    cr_assert_eq(sk_signal_map(&out, never, NULL, NULL, NULL), SK_ERR_NULL_ARGUMENT);
    cr_assert_null(out);
    const char *message = sk_last_error_message();
    cr_assert_not_null(strstr(message, "sk_signal_map"), "message \"%s\" does not name the function", message);
    cr_assert_not_null(strstr(message, "fn"), "message \"%s\" does not name the argument", message);

    cr_assert_eq(sk_queue_host_fd(NULL, NULL), SK_ERR_NULL_ARGUMENT);
    message = sk_last_error_message();
    cr_assert_not_null(strstr(message, "sk_queue_host_fd"), "message \"%s\"", message);

    int64_t n;
    sk_value text = string_value("x");
    cr_assert_eq(sk_value_get_int64(&text, &n), SK_ERR_WRONG_KIND);
    message = sk_last_error_message();
    cr_assert_not_null(strstr(message, "sk_value_get_int64"), "message \"%s\"", message);
    sk_value_release(&text);

    sk_signal_release(never);
    expect_no_live_objects(0);
}

Test(errors, success_does_not_clear_message, .timeout = SK_TEST_TIMEOUT) {
    cr_assert_eq(sk_pipe_create(NULL, false), SK_ERR_NULL_ARGUMENT);
    char saved[512];
    snprintf(saved, sizeof saved, "%s", sk_last_error_message());
    cr_assert_not_null(strstr(saved, "sk_pipe_create"), "message \"%s\"", saved);

    sk_pipe *pipe = NULL;
    SK_OK_OR_FAIL(sk_pipe_create(&pipe, false));
    pipe_put_int(pipe, 1);
    cr_assert_str_eq(sk_last_error_message(), saved);
    sk_pipe_release(pipe);

    /* A new failure replaces it. */
    cr_assert_eq(sk_promise_create(NULL), SK_ERR_NULL_ARGUMENT);
    cr_assert_not_null(strstr(sk_last_error_message(), "sk_promise_create"), "message \"%s\"", sk_last_error_message());
    expect_no_live_objects(0);
}

/* Thread-local messages: a failure on one thread is invisible on another. */

typedef struct thread_errors {
    gate failed_here;   /* the other thread has failed a call */
    gate main_failed;   /* the test thread has failed a call */
    char before[512];   /* the other thread's message before any failure */
    char after_own[512];
    char after_main[512];
} thread_errors;

static void *failing_thread(void *arg) {
    thread_errors *t = arg;
    snprintf(t->before, sizeof t->before, "%s", sk_last_error_message());
    if (sk_disposable_meta_set(NULL, NULL) != SK_ERR_NULL_ARGUMENT) {
        snprintf(t->after_own, sizeof t->after_own, "unexpected status");
    } else {
        snprintf(t->after_own, sizeof t->after_own, "%s", sk_last_error_message());
    }
    gate_open(&t->failed_here);
    if (gate_wait(&t->main_failed, SK_WAIT_SECONDS)) {
        snprintf(t->after_main, sizeof t->after_main, "%s", sk_last_error_message());
    }
    return NULL;
}

Test(errors, last_error_is_thread_local, .timeout = SK_TEST_TIMEOUT) {
    thread_errors t;
    memset(&t, 0, sizeof t);
    gate_init(&t.failed_here);
    gate_init(&t.main_failed);

    /* This thread fails first: the new thread must not see it. */
    cr_assert_eq(sk_signal_take(NULL, NULL, 1), SK_ERR_NULL_ARGUMENT);
    char mine[512];
    snprintf(mine, sizeof mine, "%s", sk_last_error_message());
    cr_assert_not_null(strstr(mine, "sk_signal_take"), "message \"%s\"", mine);

    pthread_t thread;
    cr_assert_eq(pthread_create(&thread, NULL, failing_thread, &t), 0);
    cr_assert(gate_wait(&t.failed_here, SK_WAIT_SECONDS));
    /* Its failure did not touch this thread's message. */
    cr_assert_str_eq(sk_last_error_message(), mine);

    cr_assert_eq(sk_value_set_string(NULL, "x"), SK_ERR_NULL_ARGUMENT);
    cr_assert_not_null(strstr(sk_last_error_message(), "sk_value_set_string"));
    gate_open(&t.main_failed);
    pthread_join(thread, NULL);

    cr_assert_str_eq(t.before, "", "a new thread saw \"%s\"", t.before);
    cr_assert_not_null(strstr(t.after_own, "sk_disposable_meta_set"), "own message \"%s\"", t.after_own);
    cr_assert_str_eq(t.after_main, t.after_own, "the other thread's message changed to \"%s\"", t.after_main);

    gate_destroy(&t.failed_here);
    gate_destroy(&t.main_failed);
    expect_no_live_objects(0);
}
