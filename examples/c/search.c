/*
 * search.c - search-as-you-type with libsignalkit, on a single-threaded
 * event loop.
 *
 * Keystrokes go into a pipe; the pipeline lower-cases them, drops repeats,
 * debounces them, starts a (simulated, asynchronous) search for each query
 * that survives (cancelling the previous one) and delivers the results on a
 * host-drained queue, which this program's poll() loop drains on the main
 * thread.
 *
 * Build: cc search.c $(pkg-config --cflags --libs signalkit) -o search
 */
#include <ctype.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <signalkit.h>

static const char *const words[] = {
    "signal", "signalkit", "single", "sigma", "swift", "subscriber", "switch", "queue"
};

static sk_queue *worker; /* where searches "run" */
static sk_queue *loop;   /* host-drained: drained by main() */
static sk_pipe *keystrokes;
static int finished;
static int typed_again;

#define CHECK(call)                                                            \
    do {                                                                       \
        int status_ = (call);                                                  \
        if (status_ != SK_OK) {                                                \
            fprintf(stderr, "%s failed: %s (%s)\n", #call,                      \
                    sk_status_string(status_), sk_last_error_message());       \
            exit(1);                                                           \
        }                                                                      \
    } while (0)

/* map: lower-case the text of a keystroke value. */
static void lowercase(void *ctx, const sk_value *value, sk_value *out) {
    const char *text;
    size_t length;
    char buffer[64];
    (void)ctx;
    if (sk_value_get_string(value, &text, &length) != SK_OK || length >= sizeof buffer) {
        sk_value_copy(out, value);
        return;
    }
    for (size_t i = 0; i < length; i++) {
        buffer[i] = (char)tolower((unsigned char)text[i]);
    }
    sk_value_set_string_n(out, buffer, length);
}

/* A running search: answers on the worker queue unless cancelled first. */
typedef struct search {
    char query[64];
    sk_subscriber *subscriber;
    int cancelled; /* touched on the worker queue and by dispose: atomic */
    int refs;      /* the pending answer and the cancel action */
} search;

static void search_answer(void *ctx) {
    search *s = ctx;
    if (__atomic_exchange_n(&s->cancelled, 1, __ATOMIC_ACQ_REL)) {
        return; /* cancelled before it could answer */
    }
    sk_value matches[8];
    size_t count = 0;
    for (size_t i = 0; i < sizeof words / sizeof words[0]; i++) {
        if (strncmp(words[i], s->query, strlen(s->query)) == 0) {
            sk_value_set_string(&matches[count++], words[i]);
        }
    }
    sk_value result;
    CHECK(sk_value_set_array(&result, matches, count));
    for (size_t i = 0; i < count; i++) {
        sk_value_release(&matches[i]);
    }
    sk_subscriber_put_next(s->subscriber, &result);
    sk_subscriber_put_completion(s->subscriber);
    sk_value_release(&result);
}

static void search_cancel(void *ctx) {
    search *s = ctx;
    if (!__atomic_exchange_n(&s->cancelled, 1, __ATOMIC_ACQ_REL)) {
        printf("  (search for \"%s\" cancelled)\n", s->query);
    }
}

/* Runs once per owner; the last one frees the search. */
static void search_release(void *ctx) {
    search *s = ctx;
    if (__atomic_sub_fetch(&s->refs, 1, __ATOMIC_ACQ_REL) == 0) {
        sk_subscriber_release(s->subscriber);
        free(s);
    }
}

/* Nothing: run by sk_queue_sync once the work queued before it is done. */
static void worker_idle(void *ctx) {
    (void)ctx;
}

/* The generator of one search signal. */
static sk_disposable *search_start(void *ctx, sk_subscriber *subscriber) {
    search *s = calloc(1, sizeof *s);
    if (s == NULL) {
        abort();
    }
    snprintf(s->query, sizeof s->query, "%s", (const char *)ctx);
    s->refs = 2;
    s->subscriber = sk_subscriber_retain(subscriber);
    printf("searching \"%s\"\n", s->query);
    CHECK(sk_queue_after(worker, 0.15, search_answer, s, search_release));
    sk_disposable *cancel;
    CHECK(sk_disposable_action(&cancel, search_cancel, s, search_release));
    return cancel;
}

/* map-to-signal: one search signal per query. */
static sk_signal *search_for(void *ctx, const sk_value *value) {
    const char *text;
    (void)ctx;
    if (sk_value_get_string(value, &text, NULL) != SK_OK) {
        return NULL;
    }
    sk_signal *signal;
    CHECK(sk_signal_create(&signal, search_start, strdup(text), free));
    return signal;
}

static void type(const char *text) {
    sk_value value;
    CHECK(sk_value_set_string(&value, text));
    CHECK(sk_pipe_put(keystrokes, &value));
    sk_value_release(&value);
}

static void type_sw(void *ctx) {
    (void)ctx;
    type("sw");
}

static void show_results(void *ctx, const sk_value *value) {
    const sk_value *items;
    size_t count = 0;
    int saw_swift = 0;
    (void)ctx;
    sk_value_get_array_items(value, &items, &count);
    printf("results:");
    for (size_t i = 0; i < count; i++) {
        const char *text;
        sk_value_get_string(&items[i], &text, NULL);
        printf(" %s", text);
        saw_swift |= strcmp(text, "swift") == 0;
    }
    printf("   (delivered on the loop thread: %s)\n", sk_queue_is_current(loop) ? "yes" : "no");
    if (saw_swift) {
        finished = 1;
    } else if (!typed_again) {
        typed_again = 1;
        /* Type again: "s", then "sw" 60 ms later, before the "s" search ends. */
        type("s");
        CHECK(sk_queue_after(loop, 0.06, type_sw, NULL, NULL));
    }
}

int main(void) {
    printf("libsignalkit %s\n", sk_version_string());
    CHECK(sk_queue_create(&worker, "search"));
    CHECK(sk_queue_create_host(&loop, "loop"));
    CHECK(sk_pipe_create(&keystrokes, false));

    sk_signal *typed, *lowered, *distinct, *debounced, *results, *delivered;
    CHECK(sk_pipe_signal(&typed, keystrokes));
    CHECK(sk_signal_map(&lowered, typed, lowercase, NULL, NULL));
    CHECK(sk_signal_distinct_until_changed(&distinct, lowered));
    CHECK(sk_signal_debounce(&debounced, distinct, 0.05, loop));
    CHECK(sk_signal_map_to_signal(&results, debounced, search_for, NULL, NULL));
    CHECK(sk_signal_deliver_on(&delivered, results, loop));

    sk_observer observer = { show_results, NULL, NULL, NULL, NULL };
    sk_disposable *subscription;
    CHECK(sk_signal_start(&subscription, delivered, &observer));

    /* A burst of typing: only "sig" survives the debounce. */
    type("s");
    type("si");
    type("Si");
    type("sig");

    int fd;
    CHECK(sk_queue_host_fd(loop, &fd));
    while (!finished) {
        struct pollfd p = { fd, POLLIN, 0 };
        if (poll(&p, 1, 10000) <= 0) {
            fprintf(stderr, "timed out\n");
            return 1;
        }
        CHECK(sk_queue_host_drain(loop, 0, NULL));
    }

    sk_disposable_dispose(subscription);
    sk_disposable_release(subscription);
    sk_signal_release(delivered);
    sk_signal_release(results);
    sk_signal_release(debounced);
    sk_signal_release(distinct);
    sk_signal_release(lowered);
    sk_signal_release(typed);
    sk_pipe_release(keystrokes);
    sk_queue_release(loop);
    /* The search that answered may still be finishing on the worker (its
     * release runs after its answer): wait for the worker to be idle, so that
     * nothing of the library is in use when the process exits. */
    CHECK(sk_queue_sync(worker, worker_idle, NULL, NULL));
    sk_queue_release(worker);
    return 0;
}
