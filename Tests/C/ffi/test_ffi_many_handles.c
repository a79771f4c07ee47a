/* Many live handles of this library: checking one costs the same however
 * many are alive.
 *
 * Every call that takes a signature or a trampoline looks it up in the
 * registry of live handles (handles.c), under one lock. The registry had a
 * fixed 1024 chains, so with N handles alive a check walked N/1024 nodes:
 * with 10^6 signatures alive (a binding that keeps a signature or a
 * trampoline per callback) a check took 240 us and releasing them all took
 * 143 s. Found by creating and releasing 10^6 signatures. */
#include <time.h>

#include "ffi_support.h"

TestSuite(ffi_many_handles, .timeout = SK_TEST_TIMEOUT);

/* The CPU time of the calling thread, so that a test preempted on a busy
 * machine measures the same. */
static double thread_cpu_seconds(void) {
    struct timespec now;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now);
    return (double)now.tv_sec + (double)now.tv_nsec / 1e9;
}

/* The least CPU time of a few batches of checks of `signature` (its result
 * read back, which looks it up in the registry). */
static double check_cost(const sk_ffi_signature *signature) {
    double best = 1e9;
    for (int batch = 0; batch < 7; batch++) {
        double start = thread_cpu_seconds();
        for (int i = 0; i < 20000; i++) {
            cr_assert_eq(sk_ffi_signature_result(signature), SK_FFI_INT64);
        }
        double spent = thread_cpu_seconds() - start;
        best = spent < best ? spent : best;
    }
    return best;
}

Test(ffi_many_handles, a_check_costs_the_same_with_200000_handles_alive) {
    enum { MANY = 200000 };
    sk_ffi_signature *first = sig("i64(i64)");
    double few = check_cost(first);
    /* Registered after `first`: in a chain they come before it. */
    sk_ffi_signature **others = malloc(MANY * sizeof *others);
    cr_assert_not_null(others);
    for (int i = 0; i < MANY; i++) {
        others[i] = sig("void(i64)");
    }
    double many = check_cost(first);
    for (int i = 0; i < MANY; i++) {
        sk_ffi_signature_release(others[i]);
    }
    free(others);
    /* A fixed table made this 100 to 200 times `few`; a growing one keeps
     * it within a few times (cache effects). */
    cr_assert(many < 10 * few + 0.001, "20000 checks took %.4f s with %d signatures alive, %.4f s with 1", many, MANY + 1, few);
    sk_ffi_signature_release(first);
    expect_no_ffi_live_objects();
}
