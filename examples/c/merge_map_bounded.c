/*
 * merge_map_bounded.c - jobs mapped to workers one at a time, at most one
 * job waiting for the worker, the next dropped and reported: the
 * arguments of sk_signal_merge_map_bounded in their order.
 *
 * Build: cc merge_map_bounded.c $(pkg-config --cflags --libs signalkit) -o merge_map_bounded
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include <signalkit.h>

#define CHECK(call)                                                            \
    do {                                                                       \
        int status_ = (call);                                                  \
        if (status_ != SK_OK) {                                                \
            fprintf(stderr, "%s failed: %s (%s)\n", #call,                      \
                    sk_status_string(status_), sk_last_error_message());       \
            exit(1);                                                           \
        }                                                                      \
    } while (0)

/* A job's worker: job i's signal is workers[i]'s (+1). */
static sk_signal *start_job(void *ctx, const sk_value *job) {
    sk_pipe **workers = ctx;
    int64_t i = 0;
    sk_signal *signal;
    sk_value_get_int64(job, &i);
    printf("job %" PRId64 " starts\n", i);
    CHECK(sk_pipe_signal(&signal, workers[i]));
    return signal;
}

/* A job that found the worker busy and the waiting place full. */
static void dropped(void *ctx, const sk_value *job, uint64_t count) {
    int64_t i = 0;
    (void)ctx;
    sk_value_get_int64(job, &i);
    printf("job %" PRId64 " dropped (%" PRIu64 " so far)\n", i, count);
}

static void show(void *ctx, const sk_value *value) {
    int64_t x = 0;
    (void)ctx;
    sk_value_get_int64(value, &x);
    printf("result %" PRId64 "\n", x);
}

static void put(sk_pipe *pipe, int64_t x) {
    sk_value v;
    sk_value_set_int64(&v, x);
    CHECK(sk_pipe_put(pipe, &v));
}

int main(void) {
    sk_pipe *jobs, *workers[3];
    sk_signal *job_signal, *results;
    sk_disposable *subscription;
    CHECK(sk_pipe_create(&jobs, false));
    for (int i = 0; i < 3; i++) {
        CHECK(sk_pipe_create(&workers[i], false));
    }
    CHECK(sk_pipe_signal(&job_signal, jobs));
    /* In C the bounded arguments come before the function here:
     * max_concurrent, capacity, overflow, then fn, on_drop, ctx, release. */
    CHECK(sk_signal_merge_map_bounded(&results, job_signal, 1, 1, SK_OVERFLOW_DROP_NEWEST,
                                      start_job, dropped, workers, NULL));
    sk_observer observer = {show, NULL, NULL, NULL, NULL};
    CHECK(sk_signal_start(&subscription, results, &observer));

    put(jobs, 0);                          /* job 0 takes the worker */
    put(jobs, 1);                          /* job 1 waits */
    put(jobs, 2);                          /* no room: dropped */
    put(workers[0], 10);
    CHECK(sk_pipe_put_completion(workers[0])); /* the worker is free: job 1 */
    put(workers[1], 11);

    sk_disposable_dispose(subscription);
    sk_disposable_release(subscription);
    sk_signal_release(results);
    sk_signal_release(job_signal);
    for (int i = 0; i < 3; i++) {
        sk_pipe_release(workers[i]);
    }
    sk_pipe_release(jobs);
    return 0;
}
