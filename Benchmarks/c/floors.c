/* The floors of Benchmarks/README.md, measured in the same run as the workloads:
 * what the machine costs for the primitive each workload is built on.
 *
 *   call          a call through a function pointer with a context argument
 *   mutex         an uncontended pthread mutex lock + unlock
 *   atomic        an atomic fetch-add (sequentially consistent)
 *   malloc64      malloc(64) + free
 *   ffi_call      ffi_call of void f(void *, int64_t)   (when built with libffi)
 *   ffi_closure   a call through an ffi_closure of that type (idem)
 *   dispatch_hop  dispatch_async_f of 1,000,000 items to a serial queue,
 *                 waiting for the last (W7's floor; libdispatch of the toolchain)
 *   w8_<N>_<order>  W8's floor: per object, malloc N blocks of 128 bytes (about
 *                 what a subscription holds), write a word into each in the
 *                 order made (the put), then read and free them in W8's
 *                 dispose order; N = 1k (1,000 rounds) or 1M (one round), the
 *                 orders first, last, random (the same permutation as W8's).
 *                 What the memory hierarchy charges for N scattered objects.
 *
 * One JSON line each (impl "floor"), median of --reps repetitions after a
 * warm-up, ns per operation. */
#include <pthread.h>
#include <semaphore.h>

#include "bench.h"

#ifdef BENCH_HAVE_FFI
#include <ffi.h>
#endif
#ifdef BENCH_HAVE_DISPATCH
#include <dispatch/dispatch.h>
#endif

typedef void (*sink_fn)(void *ctx, int64_t value);

/* Not inlined, and called through a volatile pointer, so the call happens. */
__attribute__((noinline)) static void add_into(void *ctx, int64_t value) {
    int64_t *sum = ctx;
    *sum = (int64_t)((uint64_t)*sum + (uint64_t)value);
}

static sink_fn volatile sink = add_into;

static int64_t floor_call(int64_t n, bench_probe *p) {
    int64_t sum = 0, i;
    sink_fn fn = sink;
    probe_begin(p);
    for (i = 0; i < n; i++) {
        fn(&sum, i);
    }
    probe_end(p);
    return sum;
}

static int64_t floor_mutex(int64_t n, bench_probe *p) {
    static pthread_mutex_t mutex = PTHREAD_MUTEX_INITIALIZER;
    int64_t i, count = 0;
    probe_begin(p);
    for (i = 0; i < n; i++) {
        pthread_mutex_lock(&mutex);
        count++;
        pthread_mutex_unlock(&mutex);
    }
    probe_end(p);
    return count;
}

static int64_t floor_atomic(int64_t n, bench_probe *p) {
    static int64_t counter;
    int64_t i;
    counter = 0;
    probe_begin(p);
    for (i = 0; i < n; i++) {
        __atomic_fetch_add(&counter, 1, __ATOMIC_SEQ_CST);
    }
    probe_end(p);
    return counter;
}

static void *volatile last_block;

static int64_t floor_malloc(int64_t n, bench_probe *p) {
    int64_t i, count = 0;
    probe_begin(p);
    for (i = 0; i < n; i++) {
        void *block = malloc(64);
        last_block = block;
        count += block != NULL;
        free(last_block);
    }
    probe_end(p);
    return count;
}

#ifdef BENCH_HAVE_FFI
static int64_t floor_ffi_call(int64_t n, bench_probe *p) {
    ffi_cif cif;
    ffi_type *types[2] = { &ffi_type_pointer, &ffi_type_sint64 };
    int64_t sum = 0, i, value = 0;
    void *ctx = &sum;
    void *args[2] = { &ctx, &value };
    if (ffi_prep_cif(&cif, FFI_DEFAULT_ABI, 2, &ffi_type_void, types) != FFI_OK) {
        fprintf(stderr, "ffi_prep_cif failed\n");
        exit(1);
    }
    probe_begin(p);
    for (i = 0; i < n; i++) {
        value = i;
        ffi_call(&cif, FFI_FN(sink), NULL, args);
    }
    probe_end(p);
    return sum;
}

static void closure_handler(ffi_cif *cif, void *ret, void **args, void *user) {
    (void)cif;
    (void)ret;
    ((sink_fn)user)(*(void **)args[0], *(int64_t *)args[1]);
}

static int64_t floor_ffi_closure(int64_t n, bench_probe *p) {
    static ffi_cif cif;
    static ffi_type *types[2];
    void *code = NULL;
    ffi_closure *closure = ffi_closure_alloc(sizeof(ffi_closure), &code);
    int64_t sum = 0, i;
    sink_fn fn;
    types[0] = &ffi_type_pointer;
    types[1] = &ffi_type_sint64;
    if (closure == NULL || ffi_prep_cif(&cif, FFI_DEFAULT_ABI, 2, &ffi_type_void, types) != FFI_OK ||
        ffi_prep_closure_loc(closure, &cif, closure_handler, (void *)add_into, code) != FFI_OK) {
        fprintf(stderr, "ffi closure setup failed\n");
        exit(1);
    }
    fn = (sink_fn)code;
    probe_begin(p);
    for (i = 0; i < n; i++) {
        fn(&sum, i);
    }
    probe_end(p);
    ffi_closure_free(closure);
    return sum;
}
#endif

#ifdef BENCH_HAVE_DISPATCH
typedef struct hop_state {
    int64_t sum;
    int64_t last;
    sem_t done;
} hop_state;

static hop_state hop;

static void hop_work(void *ctx) {
    int64_t value = (int64_t)(intptr_t)ctx;
    hop.sum = (int64_t)((uint64_t)hop.sum + (uint64_t)value);
    if (value == hop.last) {
        sem_post(&hop.done);
    }
}

static int64_t floor_dispatch_hop(int64_t n, bench_probe *p) {
    dispatch_queue_t queue = dispatch_queue_create("bench.floor.hop", NULL);
    int64_t i;
    hop.sum = 0;
    hop.last = n - 1;
    sem_init(&hop.done, 0, 0);
    probe_begin(p);
    for (i = 0; i < n; i++) {
        dispatch_async_f(queue, (void *)(intptr_t)i, hop_work);
    }
    while (sem_wait(&hop.done) != 0) {
    }
    probe_end(p);
    dispatch_release(queue);
    sem_destroy(&hop.done);
    return hop.sum;
}
#endif

/* W8's floor (see the top of the file). Returns the sum of the words read. */
static int64_t floor_w8(int64_t n, int64_t rounds, dispose_order order, bench_probe *p) {
    size_t *permutation = dispose_permutation((size_t)n, order);
    int64_t **blocks = calloc((size_t)n, sizeof *blocks), sum = 0, round, i;
    probe_begin(p);
    for (round = 0; round < rounds; round++) {
        for (i = 0; i < n; i++) {
            blocks[i] = malloc(128);
        }
        for (i = 0; i < n; i++) {
            blocks[i][0] = round + 1;
        }
        for (i = 0; i < n; i++) {
            int64_t *block = blocks[permutation[i]];
            sum += block[0];
            free(block);
        }
    }
    probe_end(p);
    free(blocks);
    free(permutation);
    return sum;
}

static int64_t expected_w8(int64_t n, int64_t rounds) {
    return n * rounds * (rounds + 1) / 2;
}

static int64_t sum_below(int64_t n) {
    return n * (n - 1) / 2;
}

#define FLOOR(name, n, expected, fn) \
    BENCH_RUN("floor", name, "op", (n), 0, (expected), probe_, fn((n), &probe_))

int main(int argc, char **argv) {
    int reps = bench_reps(argc, argv);
    bench_probe probe_;
    FLOOR("call", 50000000, sum_below(50000000), floor_call);
    FLOOR("mutex", 20000000, 20000000, floor_mutex);
    FLOOR("atomic", 20000000, 20000000, floor_atomic);
    FLOOR("malloc64", 20000000, 20000000, floor_malloc);
#ifdef BENCH_HAVE_FFI
    FLOOR("ffi_call", 5000000, sum_below(5000000), floor_ffi_call);
    FLOOR("ffi_closure", 20000000, sum_below(20000000), floor_ffi_closure);
#endif
#ifdef BENCH_HAVE_DISPATCH
    FLOOR("dispatch_hop", 1000000, sum_below(1000000), floor_dispatch_hop);
#endif
    {
        static const char *const sizes[2] = { "1k", "1M" };
        static const int64_t counts[2][2] = { { 1000, 1000 }, { 1000000, 1 } };
        int size, order;
        char name[32];
        for (size = 0; size < 2; size++) {
            for (order = 0; order < 3; order++) {
                int64_t n = counts[size][0], rounds = counts[size][1];
                snprintf(name, sizeof name, "w8_%s_%s", sizes[size], ORDER_NAMES[order]);
                BENCH_RUN("floor", name, "op", n * rounds, 0, expected_w8(n, rounds), probe_,
                          floor_w8(n, rounds, (dispose_order)order, &probe_));
            }
        }
    }
    return 0;
}
