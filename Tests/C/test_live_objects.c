/* The list of live objects: sk_live_objects_report (a callback per object,
 * oldest first: kind, the function that made it, its name),
 * sk_live_objects_print (a FILE *), sk_handle_set_name, and
 * SIGNALKIT_LIVE_OBJECTS_AT_EXIT's report at exit (in a child process). */
#include "support.h"

#include <math.h>
#include <pthread.h>
#include <semaphore.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

enum { MAX_SEEN = 16 };

typedef struct seen {
    int count;
    const void *address[MAX_SEEN];
    char kind[MAX_SEEN][32];
    char made_by[MAX_SEEN][48];
    char name[MAX_SEEN][32];
    int releases;
    int renamed_pipes; /* sk_handle_set_name called from inside the callback */
} seen;

static void copy_text(char *to, size_t size, const char *text) {
    snprintf(to, size, "%s", text == NULL ? "(null)" : text);
}

static void record_object(void *ctx, const sk_live_object *object) {
    seen *s = ctx;
    if (s->count < MAX_SEEN) {
        s->address[s->count] = object->address;
        copy_text(s->kind[s->count], sizeof s->kind[0], object->kind);
        copy_text(s->made_by[s->count], sizeof s->made_by[0], object->made_by);
        copy_text(s->name[s->count], sizeof s->name[0], object->name);
    }
    s->count++;
}

static void count_release(void *ctx) {
    ((seen *)ctx)->releases++;
}

static void upper(void *ctx, const sk_value *in, sk_value *out) {
    (void)ctx;
    sk_value_copy(out, in);
}

static void expect_object(const seen *s, int i, const void *address, const char *kind, const char *made_by,
                          const char *name) {
    cr_assert(i < s->count, "only %d objects listed", s->count);
    if (address != NULL) {
        cr_assert_eq(s->address[i], address, "object %d", i);
    }
    cr_assert_str_eq(s->kind[i], kind, "object %d", i);
    cr_assert_str_eq(s->made_by[i], made_by, "object %d", i);
    cr_assert_str_eq(s->name[i], name, "object %d", i);
}

/* A map over a pipe, started and never disposed: every object is listed in
 * the order it was made, with the function that made it and its name. */
Test(live_objects, report_lists_kind_maker_and_name_oldest_first, .timeout = SK_TEST_TIMEOUT) {
    SK_OK_OR_FAIL(sk_set_handle_checking(true));
    sk_pipe *pipe;
    sk_signal *source, *mapped;
    sk_disposable *subscription;
    SK_OK_OR_FAIL(sk_pipe_create(&pipe, false));
    SK_OK_OR_FAIL(sk_handle_set_name(pipe, "keys"));
    SK_OK_OR_FAIL(sk_pipe_signal(&source, pipe));
    SK_OK_OR_FAIL(sk_signal_map(&mapped, source, upper, NULL, NULL));
    SK_OK_OR_FAIL(sk_handle_set_name(mapped, "upper"));
    sk_observer observer = { NULL, NULL, NULL, NULL, NULL };
    SK_OK_OR_FAIL(sk_signal_start(&subscription, mapped, &observer));
    sk_value text;
    SK_OK_OR_FAIL(sk_value_set_string(&text, "leaked"));

    seen s = { 0 };
    SK_OK_OR_FAIL(sk_live_objects_report(record_object, &s, count_release));
    cr_assert_eq(s.releases, 1);
    cr_assert_eq(s.count, sk_live_objects(), "listed %d, counted %ld", s.count, sk_live_objects());
    cr_assert_eq(s.count, 7);
    expect_object(&s, 0, pipe, "pipe", "sk_pipe_create", "keys");
    expect_object(&s, 1, source, "signal", "sk_pipe_signal", "(null)");
    expect_object(&s, 2, NULL, "callback", "sk_signal_map", "(null)");
    expect_object(&s, 3, mapped, "signal", "sk_signal_map", "upper");
    expect_object(&s, 4, NULL, "observer", "sk_signal_start", "(null)");
    expect_object(&s, 5, subscription, "disposable", "sk_signal_start", "(null)");
    expect_object(&s, 6, text.u.object, "string value", "sk_value_set_string", "(null)");

    /* A new name replaces the old one; NULL removes it. */
    SK_OK_OR_FAIL(sk_handle_set_name(pipe, "renamed"));
    SK_OK_OR_FAIL(sk_handle_set_name(mapped, NULL));
    memset(&s, 0, sizeof s);
    SK_OK_OR_FAIL(sk_live_objects_report(record_object, &s, NULL));
    expect_object(&s, 0, pipe, "pipe", "sk_pipe_create", "renamed");
    expect_object(&s, 3, mapped, "signal", "sk_signal_map", "(null)");

    sk_value_release(&text);
    sk_disposable_dispose(subscription);
    sk_disposable_release(subscription);
    sk_signal_release(mapped);
    sk_signal_release(source);
    sk_pipe_release(pipe);
    memset(&s, 0, sizeof s);
    SK_OK_OR_FAIL(sk_live_objects_report(record_object, &s, count_release));
    cr_assert_eq(s.count, 0);
    cr_assert_eq(s.releases, 1);
    cr_assert_eq(sk_live_objects(), 0);
}

/* The callback runs with no lock of the library held: it may call the
 * library, here naming the object it is given (which takes the registry's
 * lock of that object), and releasing a handle. */
static void rename_and_release_pipes(void *ctx, const sk_live_object *object) {
    seen *s = ctx;
    if (strcmp(object->kind, "pipe") == 0) {
        SK_OK_OR_ABORT(sk_handle_set_name((void *)object->address, "seen"));
        sk_pipe_release((sk_pipe *)object->address);
        s->renamed_pipes++;
    }
}

Test(live_objects, the_callback_may_call_the_library, .timeout = SK_TEST_TIMEOUT) {
    SK_OK_OR_FAIL(sk_set_handle_checking(true));
    sk_pipe *pipe;
    SK_OK_OR_FAIL(sk_pipe_create(&pipe, false));
    seen s = { 0 };
    SK_OK_OR_FAIL(sk_live_objects_report(rename_and_release_pipes, &s, NULL));
    cr_assert_eq(s.renamed_pipes, 1);
    cr_assert_eq(sk_live_objects(), 0);
}

/* The library's own objects (the string of an error it delivered) say they
 * were made inside the library. */
static void keep_error(void *ctx, const sk_value *error) {
    sk_value_copy(ctx, error);
}

Test(live_objects, objects_the_library_made_have_no_maker, .timeout = SK_TEST_TIMEOUT) {
    SK_OK_OR_FAIL(sk_set_handle_checking(true));
    sk_signal *numbers, *queued;
    sk_value one = int_value(1), error;
    sk_value_set_nil(&error);
    SK_OK_OR_FAIL(sk_signal_single(&numbers, &one));
    SK_OK_OR_FAIL(sk_signal_queue(&queued, numbers)); /* 1 is not a signal: an error */
    sk_observer observer = { NULL, keep_error, NULL, &error, NULL };
    sk_disposable *subscription;
    SK_OK_OR_FAIL(sk_signal_start(&subscription, queued, &observer));
    sk_disposable_release(subscription);
    sk_signal_release(queued);
    sk_signal_release(numbers);
    cr_assert_eq(sk_value_kind(&error), SK_KIND_STRING);

    seen s = { 0 };
    SK_OK_OR_FAIL(sk_live_objects_report(record_object, &s, NULL));
    cr_assert_eq(s.count, 1);
    expect_object(&s, 0, error.u.object, "string value", "(null)", "(null)");
    char text[256];
    FILE *file = fmemopen(text, sizeof text, "w");
    cr_assert_not_null(file);
    SK_OK_OR_FAIL(sk_live_objects_print(file));
    fclose(file);
    char expected[256];
    snprintf(expected, sizeof expected, "signalkit: 1 live object, oldest first:\n  string value %p made inside the library\n",
             error.u.object);
    cr_assert_str_eq(text, expected);
    sk_value_release(&error);
}

static char *printed(void) {
    static char text[4096];
    memset(text, 0, sizeof text);
    FILE *file = fmemopen(text, sizeof text - 1, "w");
    cr_assert_not_null(file);
    SK_OK_OR_FAIL(sk_live_objects_print(file));
    fclose(file);
    return text;
}

Test(live_objects, print_writes_one_line_per_object, .timeout = SK_TEST_TIMEOUT) {
    SK_OK_OR_FAIL(sk_set_handle_checking(true));
    cr_assert_str_eq(printed(), "signalkit: no live objects\n");
    sk_pipe *pipe;
    sk_signal *source;
    SK_OK_OR_FAIL(sk_pipe_create(&pipe, false));
    SK_OK_OR_FAIL(sk_handle_set_name(pipe, "keys"));
    SK_OK_OR_FAIL(sk_pipe_signal(&source, pipe));
    char expected[512];
    snprintf(expected, sizeof expected,
             "signalkit: 2 live objects, oldest first:\n"
             "  pipe %p made by sk_pipe_create, named \"keys\"\n"
             "  signal %p made by sk_pipe_signal\n",
             (void *)pipe, (void *)source);
    cr_assert_str_eq(printed(), expected);
    sk_signal_release(source);
    sk_pipe_release(pipe);
    cr_assert_str_eq(printed(), "signalkit: no live objects\n");
}

/* Off (the default), nothing is kept: the report says so and calls
 * nothing, the print gives the count and how to get the list, and naming
 * checks its handle and keeps nothing. */
Test(live_objects, with_handle_checking_off_only_the_count, .timeout = SK_TEST_TIMEOUT) {
    cr_assert_not(sk_handle_checking());
    sk_pipe *pipe;
    SK_OK_OR_FAIL(sk_pipe_create(&pipe, false));
    SK_OK_OR_FAIL(sk_handle_set_name(pipe, "keys"));
    seen s = { 0 };
    cr_assert_eq(sk_live_objects_report(record_object, &s, count_release), SK_ERR_UNSUPPORTED);
    cr_assert_eq(s.count, 0);
    cr_assert_eq(s.releases, 1);
    cr_assert_str_eq(sk_last_error_message(),
                     "sk_live_objects_report: the list is kept only while handle checking is on: run with "
                     "SIGNALKIT_CHECK_HANDLES=1 or SIGNALKIT_LIVE_OBJECTS_AT_EXIT=1, or call "
                     "sk_set_handle_checking(true) before making any object");
    cr_assert_str_eq(printed(), "signalkit: 1 live object (to list them, run with SIGNALKIT_CHECK_HANDLES=1 or "
                                "SIGNALKIT_LIVE_OBJECTS_AT_EXIT=1, or call sk_set_handle_checking(true) before "
                                "making any object)\n");
    sk_pipe_release(pipe);
    cr_assert_str_eq(printed(), "signalkit: no live objects\n");
}

Test(live_objects, argument_errors, .timeout = SK_TEST_TIMEOUT) {
    seen s = { 0 };
    cr_assert_eq(sk_live_objects_report(NULL, &s, count_release), SK_ERR_NULL_ARGUMENT);
    cr_assert_eq(s.releases, 1, "release runs when the call fails");
    cr_assert_eq(sk_live_objects_print(NULL), SK_ERR_NULL_ARGUMENT);
    cr_assert_eq(sk_handle_set_name(NULL, "x"), SK_ERR_NULL_ARGUMENT);

    /* A value's object is no handle, in both modes. */
    sk_value text;
    SK_OK_OR_FAIL(sk_value_set_string(&text, "x"));
    cr_assert_eq(sk_handle_set_name(text.u.object, "x"), SK_ERR_WRONG_KIND);
    cr_assert_str_eq(sk_last_error_message(), "sk_handle_set_name: handle is not one of this library's handles");
    sk_value_release(&text);

    SK_OK_OR_FAIL(sk_set_handle_checking(true));
    SK_OK_OR_FAIL(sk_value_set_string(&text, "x"));
    cr_assert_eq(sk_handle_set_name(text.u.object, "x"), SK_ERR_WRONG_KIND);
    sk_value_release(&text);
    sk_pipe *pipe;
    SK_OK_OR_FAIL(sk_pipe_create(&pipe, false));
    sk_pipe_release(pipe);
    cr_assert_eq(sk_handle_set_name(pipe, "x"), SK_ERR_RELEASED);
    cr_assert_eq(sk_live_objects(), 0);
}

/* SIGNALKIT_CHECK_HANDLES=1 holds from the library's first call, whatever
 * it is: a pointer that never was a handle, given before any object
 * exists, is SK_ERR_RELEASED, not dereferenced (the variable was read only
 * when the first object was made: the call crashed). In a child forked
 * before this test used the library, as the test below. */
Test(live_objects, the_variable_checks_a_bogus_handle_given_before_any_object, .timeout = SK_TEST_TIMEOUT) {
    pid_t pid = fork();
    cr_assert(pid >= 0);
    if (pid == 0) {
        setenv("SIGNALKIT_CHECK_HANDLES", "1", 1);
        sk_signal *out = NULL;
        int status = sk_signal_take(&out, (sk_signal *)(uintptr_t)12345, 1);
        if (status != SK_ERR_RELEASED || out != NULL || !sk_handle_checking()) {
            _exit(4);
        }
        _exit(0);
    }
    int status = 0;
    cr_assert_eq(waitpid(pid, &status, 0), pid);
    cr_assert(WIFEXITED(status), "the child ended with signal %d", WIFSIGNALED(status) ? WTERMSIG(status) : 0);
    cr_assert_eq(WEXITSTATUS(status), 0, "the call was not refused as SK_ERR_RELEASED");
}

/* SIGNALKIT_LIVE_OBJECTS_AT_EXIT=1: the process's exit prints the list on
 * stderr. In a child process (forked before this test used the library,
 * so that the child's first use reads the variable), its stderr in a file:
 * a leaked map over a pipe (the pipe's signal, released, is not listed:
 * the map holds what it stands for, not the handle). The same child forking a grandchild that exits
 * prints nothing there (the report belongs to the process that set it up). */
/* Registered in the child before the library's exit handler: exit handlers
 * run in reverse order, so it runs right after the library's, and ends the
 * process before the handlers registered at its start (LeakSanitizer's,
 * under test-c-asan, whose check in a forked child of a threaded process
 * reports that it could not suspend the parent's threads). */
static void leave_now(void) {
    _exit(0);
}

Test(live_objects, at_exit_report_when_the_variable_is_set, .timeout = SK_TEST_TIMEOUT) {
    char path[] = "/tmp/sk-live-objects-XXXXXX";
    int fd = mkstemp(path);
    cr_assert(fd >= 0);
    pid_t pid = fork();
    cr_assert(pid >= 0);
    if (pid == 0) {
        dup2(fd, STDERR_FILENO);
        atexit(leave_now);
        setenv("SIGNALKIT_LIVE_OBJECTS_AT_EXIT", "1", 1);
        sk_pipe *pipe;
        sk_signal *source, *mapped;
        if (sk_pipe_create(&pipe, false) != SK_OK || sk_handle_set_name(pipe, "keys") != SK_OK ||
            sk_pipe_signal(&source, pipe) != SK_OK || sk_signal_map(&mapped, source, upper, NULL, NULL) != SK_OK) {
            _exit(2);
        }
        sk_signal_release(source);
        pid_t grandchild = fork();
        if (grandchild == 0) {
            exit(0); /* runs the exit handlers: must print nothing */
        }
        int status = 0;
        if (grandchild < 0 || waitpid(grandchild, &status, 0) != grandchild || status != 0) {
            _exit(3);
        }
        exit(0);
    }
    int status = 0;
    cr_assert_eq(waitpid(pid, &status, 0), pid);
    cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0, "child status %d", status);
    char text[1024] = { 0 };
    ssize_t n = pread(fd, text, sizeof text - 1, 0);
    close(fd);
    unlink(path);
    cr_assert(n > 0);
    /* Addresses vary: compare the lines without them. */
    char stripped[1024] = { 0 };
    size_t j = 0;
    for (ssize_t i = 0; i < n && j < sizeof stripped - 1; i++) {
        if (text[i] == '0' && text[i + 1] == 'x') {
            i += 2;
            while (i < n && ((text[i] >= '0' && text[i] <= '9') || (text[i] >= 'a' && text[i] <= 'f'))) {
                i++;
            }
            stripped[j++] = '@';
        }
        if (i < n) {
            stripped[j++] = text[i];
        }
    }
    cr_assert_str_eq(stripped,
                     "signalkit: 3 live objects, oldest first:\n"
                     "  pipe @ made by sk_pipe_create, named \"keys\"\n"
                     "  callback @ made by sk_signal_map\n"
                     "  signal @ made by sk_signal_map\n",
                     "stderr:\n%s", text);
}

/* sk_live_objects_wait: at once when the count is low enough; a wait woken
 * by the releases; the timeout and a bad one refused in words. */
Test(live_objects, wait_returns_at_once_when_the_count_is_low_enough, .timeout = SK_TEST_TIMEOUT) {
    cr_assert_eq(sk_live_objects(), 0);
    cr_assert_eq(sk_live_objects_wait(0, 0), SK_OK);
    sk_pipe *pipe = NULL;
    SK_OK_OR_FAIL(sk_pipe_create(&pipe, false));
    cr_assert_eq(sk_live_objects_wait(1, 0), SK_OK);
    /* One alive, none waited for: the timeout, with the count in words. */
    cr_assert_eq(sk_live_objects_wait(0, 0.01), SK_ERR_BUSY);
    cr_assert(strstr(sk_last_error_message(), "sk_live_objects_wait: 1 library objects are still alive after") != NULL,
              "%s", sk_last_error_message());
    cr_assert_eq(sk_live_objects_wait(0, -1), SK_ERR_INVALID_ARGUMENT);
    cr_assert(strstr(sk_last_error_message(), "timeout -1") != NULL, "%s", sk_last_error_message());
    cr_assert_eq(sk_live_objects_wait(0, NAN), SK_ERR_INVALID_ARGUMENT);
    sk_pipe_release(pipe);
    cr_assert_eq(sk_live_objects_wait(0, 0), SK_OK);
}

typedef struct live_wait {
    pthread_mutex_t mutex;
    pthread_cond_t changed;
    int waiting;     /* the waiter is about to call sk_live_objects_wait */
    int status;      /* its result, once it returned */
    long at_return;  /* sk_live_objects() when it returned */
    int returned;
} live_wait;

static void *live_waiter(void *arg) {
    live_wait *w = arg;
    pthread_mutex_lock(&w->mutex);
    w->waiting = 1;
    pthread_cond_broadcast(&w->changed);
    pthread_mutex_unlock(&w->mutex);
    int status = sk_live_objects_wait(0, SK_WAIT_SECONDS);
    long alive = sk_live_objects();
    pthread_mutex_lock(&w->mutex);
    w->status = status;
    w->at_return = alive;
    w->returned = 1;
    pthread_cond_broadcast(&w->changed);
    pthread_mutex_unlock(&w->mutex);
    return NULL;
}

Test(live_objects, wait_is_woken_by_the_last_release_on_another_thread, .timeout = SK_TEST_TIMEOUT) {
    enum { OBJECTS = 1000 };
    sk_pipe *pipes[OBJECTS];
    for (int i = 0; i < OBJECTS; i++) {
        SK_OK_OR_FAIL(sk_pipe_create(&pipes[i], false));
    }
    live_wait w = { .status = -100 };
    pthread_mutex_init(&w.mutex, NULL);
    pthread_cond_init(&w.changed, NULL);
    pthread_t thread;
    cr_assert_eq(pthread_create(&thread, NULL, live_waiter, &w), 0);
    pthread_mutex_lock(&w.mutex);
    while (!w.waiting) {
        pthread_cond_wait(&w.changed, &w.mutex);
    }
    pthread_mutex_unlock(&w.mutex);
    /* Released one at a time while it waits: it returns only after the
     * last, with nothing alive (before: the count never reached 0). */
    for (int i = 0; i < OBJECTS; i++) {
        pthread_mutex_lock(&w.mutex);
        int returned = w.returned;
        pthread_mutex_unlock(&w.mutex);
        cr_assert(!returned, "the wait returned with %d objects still alive", OBJECTS - i);
        sk_pipe_release(pipes[i]);
    }
    pthread_join(thread, NULL);
    cr_assert_eq(w.status, SK_OK, "%d: %s", w.status, sk_last_error_message());
    cr_assert_eq(w.at_return, 0);
    pthread_cond_destroy(&w.changed);
    pthread_mutex_destroy(&w.mutex);
}

Test(live_objects, wait_sees_a_subscription_that_a_queue_thread_releases, .timeout = SK_TEST_TIMEOUT) {
    /* A deliver_on subscription released undisposed while values are on
     * the queue: its last references go on the queue's thread, after the
     * handles are all released here. */
    sk_queue *queue = NULL;
    SK_OK_OR_FAIL(sk_queue_create(&queue, "wait"));
    sk_pipe *pipe = NULL;
    SK_OK_OR_FAIL(sk_pipe_create(&pipe, false));
    sk_signal *signal = NULL, *delivered = NULL;
    SK_OK_OR_FAIL(sk_pipe_signal(&signal, pipe));
    SK_OK_OR_FAIL(sk_signal_deliver_on(&delivered, signal, queue));
    recorder r;
    recorder_init(&r);
    sk_observer observer = recorder_observer(&r);
    sk_disposable *d = NULL;
    SK_OK_OR_FAIL(sk_signal_start(&d, delivered, &observer));
    for (int i = 0; i < 100; i++) {
        pipe_put_int(pipe, i);
    }
    sk_disposable_release(d);
    sk_signal_release(delivered);
    sk_signal_release(signal);
    sk_pipe_release(pipe);
    sk_queue_release(queue);
    cr_assert_eq(sk_live_objects_wait(0, SK_WAIT_SECONDS), SK_OK, "%s", sk_last_error_message());
    cr_assert_eq(sk_live_objects(), 0);
    recorder_destroy(&r);
}

/* A release function running on a queue's thread: its object is uncounted
 * as it begins (sk_live_objects() reads 0 meanwhile), and the wait for 0
 * returns only once it has returned, so that a program may then free what
 * it uses, or end (an acceptance program ended before the release of its
 * last work item ran, in 9 runs of 30). Forced with semaphores. */
typedef struct held_release {
    sem_t entered;
    sem_t gate;
    int returned;
} held_release;

static void held_release_work(void *ctx) {
    (void)ctx;
}

static void held_release_release(void *ctx) {
    held_release *h = ctx;
    sem_post(&h->entered);
    while (sem_wait(&h->gate) != 0) {
    }
    __atomic_store_n(&h->returned, 1, __ATOMIC_SEQ_CST);
}

Test(live_objects, wait_returns_only_after_the_release_functions_running_on_other_threads, .timeout = SK_TEST_TIMEOUT) {
    held_release h;
    memset(&h, 0, sizeof h);
    cr_assert_eq(sem_init(&h.entered, 0, 0), 0);
    cr_assert_eq(sem_init(&h.gate, 0, 0), 0);
    sk_queue *queue = NULL;
    SK_OK_OR_FAIL(sk_queue_create(&queue, "releasing"));
    SK_OK_OR_FAIL(sk_queue_async(queue, held_release_work, &h, held_release_release));
    sk_queue_release(queue);
    while (sem_wait(&h.entered) != 0) {
    }
    /* The release runs on the queue's thread, held there. */
    cr_assert_eq(sk_live_objects_wait(0, 0), SK_ERR_BUSY, "the wait returned while a release function ran");
    cr_assert(strstr(sk_last_error_message(), "1 release function is still running") != NULL, "%s",
              sk_last_error_message());
    cr_assert_eq(sem_post(&h.gate), 0);
    cr_assert_eq(sk_live_objects_wait(0, SK_WAIT_SECONDS), SK_OK, "%s", sk_last_error_message());
    cr_assert_eq(__atomic_load_n(&h.returned, __ATOMIC_SEQ_CST), 1, "the wait returned before the release did");
    sem_destroy(&h.entered);
    sem_destroy(&h.gate);
}

/* A release function that waits for the count waits for itself too: the
 * wait ends at its timeout, saying so (as the header says), and returns. */
typedef struct own_wait {
    int status;
    char message[256];
} own_wait;

static void waiting_release(void *ctx) {
    own_wait *w = ctx;
    w->status = sk_live_objects_wait(0, 0.01);
    snprintf(w->message, sizeof w->message, "%s", sk_last_error_message());
}

Test(live_objects, a_release_functions_own_wait_ends_at_its_timeout, .timeout = SK_TEST_TIMEOUT) {
    own_wait w = { .status = -100 };
    sk_disposable *d = NULL;
    SK_OK_OR_FAIL(sk_disposable_action(&d, held_release_work, &w, waiting_release));
    sk_disposable_release(d);
    cr_assert_eq(w.status, SK_ERR_BUSY, "%d", w.status);
    cr_assert(strstr(w.message, "1 release function is still running") != NULL, "%s", w.message);
    cr_assert_eq(sk_live_objects_wait(0, SK_WAIT_SECONDS), SK_OK, "%s", sk_last_error_message());
}
