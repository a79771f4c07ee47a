#define _GNU_SOURCE
#include "_SwiftSignalKitShims.h"

/* The core's mutex (`_Mutex` in Sources/SwiftSignalKit/Support/Lock.swift):
 * one 32-bit word, 0 free, 1 held, 2 held with a thread asleep on it (or
 * about to sleep). Taking a free lock is one compare-and-swap, giving it
 * back one exchange; only a thread that finds it held spins a little, then
 * sleeps in the kernel (futex), and only a release that finds a sleeper
 * wakes one. The same protocol as glibc's internal locks (Drepper,
 * "Futexes Are Tricky", mutex 3), without pthread_mutex_t's type checks,
 * owner bookkeeping and lock-elision branches: about 20 instructions for
 * a lock and unlock with nobody waiting, against 55 for the pthread pair.
 *
 * Out of line on purpose, both calls: a call the Swift optimizer cannot see
 * into keeps every retain of a value read under the lock above the unlock
 * (the reason `_sks_handoff` exists), as pthread_mutex_unlock did. The
 * atomics are C11's, so ThreadSanitizer sees the acquire and the release
 * (this file is built with the sanitizer the package is built with). */

#if defined(__linux__)
#include <linux/futex.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include <sys/syscall.h>
#include <unistd.h>

#define SKS_FREE 0u
#define SKS_HELD 1u
#define SKS_CONTENDED 2u
/* Spins before sleeping: a holder keeps the lock for a few dozen
 * instructions (no user code runs under it), so a short wait usually
 * ends without a system call. */
#define SKS_SPINS 64

static inline _Atomic uint32_t *sks_word(uint32_t *word) {
    return (_Atomic uint32_t *)word;
}

void _sks_mutex_lock(uint32_t *word) {
    _Atomic uint32_t *w = sks_word(word);
    uint32_t seen = SKS_FREE;
    if (atomic_compare_exchange_strong_explicit(w, &seen, SKS_HELD, memory_order_acquire, memory_order_relaxed)) {
        return;
    }
    for (int spin = 0; spin < SKS_SPINS && seen == SKS_HELD; spin++) {
#if defined(__x86_64__) || defined(__i386__)
        __builtin_ia32_pause();
#endif
        seen = atomic_load_explicit(w, memory_order_relaxed);
        if (seen == SKS_FREE) {
            if (atomic_compare_exchange_strong_explicit(w, &seen, SKS_HELD, memory_order_acquire,
                                                        memory_order_relaxed)) {
                return;
            }
        }
    }
    /* Mark the lock contended, and sleep while someone else holds it. Taken
     * here, it stays marked contended: the release then makes one wake-up
     * call that may find nobody, the price of never losing a sleeper. */
    while (atomic_exchange_explicit(w, SKS_CONTENDED, memory_order_acquire) != SKS_FREE) {
        syscall(SYS_futex, word, FUTEX_WAIT_PRIVATE, SKS_CONTENDED, NULL, NULL, 0);
    }
}

void _sks_mutex_unlock(uint32_t *word) {
    if (atomic_exchange_explicit(sks_word(word), SKS_FREE, memory_order_release) == SKS_CONTENDED) {
        syscall(SYS_futex, word, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
    }
}

int _sks_mutex_try_lock(uint32_t *word) {
    uint32_t seen = SKS_FREE;
    return atomic_compare_exchange_strong_explicit(sks_word(word), &seen, SKS_HELD, memory_order_acquire,
                                                   memory_order_relaxed);
}

/* A condition over one 32-bit word, a sequence number: a waiter reads it
 * under the mutex, gives the mutex back and sleeps while the word still
 * holds what it read; a broadcast (made under the mutex, as every caller
 * does) moves the number on and wakes every sleeper. Taking the mutex
 * back, a woken waiter marks it contended, since others may sleep on it.
 * A waiter may wake with nothing changed: every caller decides again in a
 * loop. */
void _sks_cond_wait(uint32_t *cond, uint32_t *mutex) {
    uint32_t seen = atomic_load_explicit(sks_word(cond), memory_order_relaxed);
    _sks_mutex_unlock(mutex);
    syscall(SYS_futex, cond, FUTEX_WAIT_PRIVATE, seen, NULL, NULL, 0);
    _Atomic uint32_t *w = sks_word(mutex);
    while (atomic_exchange_explicit(w, SKS_CONTENDED, memory_order_acquire) != SKS_FREE) {
        syscall(SYS_futex, mutex, FUTEX_WAIT_PRIVATE, SKS_CONTENDED, NULL, NULL, 0);
    }
}

void _sks_cond_broadcast(uint32_t *cond) {
    atomic_fetch_add_explicit(sks_word(cond), 1, memory_order_relaxed);
    syscall(SYS_futex, cond, FUTEX_WAKE_PRIVATE, INT32_MAX, NULL, NULL, 0);
}

#else
/* Elsewhere a spin lock that yields: the core is built and tested on Linux;
 * this keeps the package compiling on other systems. */
#include <sched.h>
#include <stdatomic.h>

void _sks_mutex_lock(uint32_t *word) {
    uint32_t seen = 0;
    while (!atomic_compare_exchange_weak_explicit((_Atomic uint32_t *)word, &seen, 1, memory_order_acquire,
                                                  memory_order_relaxed)) {
        seen = 0;
        sched_yield();
    }
}

void _sks_mutex_unlock(uint32_t *word) {
    atomic_store_explicit((_Atomic uint32_t *)word, 0, memory_order_release);
}

int _sks_mutex_try_lock(uint32_t *word) {
    uint32_t seen = 0;
    return atomic_compare_exchange_strong_explicit((_Atomic uint32_t *)word, &seen, 1, memory_order_acquire,
                                                   memory_order_relaxed);
}

void _sks_cond_wait(uint32_t *cond, uint32_t *mutex) {
    (void)cond;
    _sks_mutex_unlock(mutex);
    sched_yield();
    _sks_mutex_lock(mutex);
}

void _sks_cond_broadcast(uint32_t *cond) {
    (void)cond;
}
#endif
