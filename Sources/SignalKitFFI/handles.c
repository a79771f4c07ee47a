/* handles.c - checking handle arguments at the call, as signalkit.h does.
 *
 * The core refuses a handle of another kind (SK_ERR_WRONG_KIND) and, with
 * handle checking on, a released one (SK_ERR_RELEASED), without touching
 * it. This library hands core handles on to core calls that run later
 * (inside a stream, or when a trampoline is called), so it checks them
 * first, through a core call that checks the same argument and has no
 * other effect, and reports the outcome under its own function's name.
 *
 * Its own handles (signatures, trampolines) are kept in a registry of live
 * handles, in both modes: the core's registry (with checking on) does not
 * know them, so without one of its own this library could tell a live
 * signature passed as a signal from a released core handle only by reading
 * the pointer, which may be freed memory. Looking the address up first, it
 * refuses its own handles of another kind as SK_ERR_WRONG_KIND whatever the
 * mode, and never dereferences a pointer to one of its handles that is not
 * live. The cost is a lock and a short chain per check, on the calls that
 * take a handle, not per event; handles are registered when made and
 * unregistered when freed. */
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>

#include "internal.h"

/* The registry: a hash table of chains of live handles, linked through
 * their own `next`, guarded by one lock. A pointer is looked up by address;
 * only the registered nodes of its chain, all live, are read.
 *
 * The table doubles when handles outnumber its chains twice over, so that
 * a chain stays a few nodes long however many handles are alive: with a
 * fixed table of 1024 chains, 10^6 live signatures (a binding keeping one
 * per callback) made a check walk 1000 nodes under the lock (240 us) and
 * releasing them all take 143 s. Growing allocates; when that fails the
 * table stays as it is, slower but correct, so registering never fails.
 * The first table is static; a grown one is kept once the handles are gone
 * (8 bytes per chain). */
#define SK_FFI_REGISTRY_FIRST_BITS 10
static pthread_mutex_t sk_ffi__registry_lock = PTHREAD_MUTEX_INITIALIZER;
static sk_ffi_handle *sk_ffi__registry_first[(size_t)1 << SK_FFI_REGISTRY_FIRST_BITS];
static sk_ffi_handle **sk_ffi__registry = sk_ffi__registry_first;
static unsigned sk_ffi__registry_bits = SK_FFI_REGISTRY_FIRST_BITS; /* 2^bits chains */
static size_t sk_ffi__registry_count;                               /* registered handles */

/* The chain of `pointer` in a table of 2^bits chains: the top bits of the
 * address times 2^64 / golden ratio, which spreads addresses that differ
 * in any bits (handles are allocated a few hundred bytes apart). */
static size_t sk_ffi__bucket(const void *pointer, unsigned bits) {
    uint64_t address = (uint64_t)(uintptr_t)pointer;
    return (size_t)((address * UINT64_C(0x9E3779B97F4A7C15)) >> (64 - bits));
}

/* Doubles the table when it is due and the memory can be had. Called with
 * the lock held. */
static void sk_ffi__registry_grow(void) {
    unsigned bits = sk_ffi__registry_bits;
    if (sk_ffi__registry_count <= ((size_t)2 << bits) || bits >= 40) {
        return;
    }
    sk_ffi_handle **grown = calloc((size_t)1 << (bits + 1), sizeof *grown);
    if (grown == NULL) {
        return;
    }
    for (size_t bucket = 0; bucket < ((size_t)1 << bits); bucket++) {
        sk_ffi_handle *node = sk_ffi__registry[bucket];
        while (node != NULL) {
            sk_ffi_handle *next = node->next;
            size_t to = sk_ffi__bucket(node, bits + 1);
            node->next = grown[to];
            grown[to] = node;
            node = next;
        }
    }
    if (sk_ffi__registry != sk_ffi__registry_first) {
        free(sk_ffi__registry);
    }
    sk_ffi__registry = grown;
    sk_ffi__registry_bits = bits + 1;
}

void sk_ffi__register(sk_ffi_handle *handle, uint64_t tag) {
    handle->tag = tag;
    pthread_mutex_lock(&sk_ffi__registry_lock);
    sk_ffi__registry_count++;
    sk_ffi__registry_grow();
    size_t bucket = sk_ffi__bucket(handle, sk_ffi__registry_bits);
    handle->next = sk_ffi__registry[bucket];
    sk_ffi__registry[bucket] = handle;
    pthread_mutex_unlock(&sk_ffi__registry_lock);
}

void sk_ffi__unregister(sk_ffi_handle *handle) {
    pthread_mutex_lock(&sk_ffi__registry_lock);
    size_t bucket = sk_ffi__bucket(handle, sk_ffi__registry_bits);
    for (sk_ffi_handle **link = &sk_ffi__registry[bucket]; *link != NULL; link = &(*link)->next) {
        if (*link == handle) {
            *link = handle->next;
            sk_ffi__registry_count--;
            break;
        }
    }
    pthread_mutex_unlock(&sk_ffi__registry_lock);
    handle->tag = 0;
    handle->next = NULL;
}

uint64_t sk_ffi__live_tag(const void *pointer) {
    if (pointer == NULL) {
        return 0;
    }
    uint64_t tag = 0;
    pthread_mutex_lock(&sk_ffi__registry_lock);
    size_t bucket = sk_ffi__bucket(pointer, sk_ffi__registry_bits);
    for (const sk_ffi_handle *node = sk_ffi__registry[bucket]; node != NULL; node = node->next) {
        if ((const void *)node == pointer) {
            tag = node->tag;
            break;
        }
    }
    pthread_mutex_unlock(&sk_ffi__registry_lock);
    return tag;
}

/* The message for a live handle of this library passed as a core handle
 * `what`: the core would see no handle of its own (SK_ERR_RELEASED with
 * checking on), this library knows better. */
static int sk_ffi__own_handle_refused(const char *function, const char *name, const char *what) {
    return sk_ffi__fail(SK_ERR_WRONG_KIND, "%s: %s is not %s", function, name, what);
}

/* The message for a failed check of `name` (a core handle that should be
 * `what`, with its article) by `function`, from the core's status. */
static int sk_ffi__handle_failed(int status, const char *function, const char *name, const char *what) {
    switch (status) {
    case SK_ERR_WRONG_KIND:
        return sk_ffi__fail(status, "%s: %s is not %s", function, name, what);
    case SK_ERR_RELEASED:
        return sk_ffi__fail(status, "%s: %s was already released (or never was a handle)", function, name);
    default:
        return sk_ffi__fail(status, "%s: %s: %s", function, name, sk_last_error_message());
    }
}

int sk_ffi__check_signal(const char *function, const char *name, sk_signal *signal) {
    if (signal == NULL) {
        return sk_ffi__fail(SK_ERR_NULL_ARGUMENT, "%s: %s is NULL", function, name);
    }
    if (sk_ffi__live_tag(signal) != 0) {
        return sk_ffi__own_handle_refused(function, name, "a signal");
    }
    /* The cheap check: a value holding the signal (a retain, no
     * allocation). It does not tell a released handle from one of another
     * kind: sk_signal_take, which checks as every operator does, tells. */
    sk_value probe;
    if (sk_value_set_signal(&probe, signal) == SK_OK) {
        sk_value_release(&probe);
        return SK_OK;
    }
    sk_signal *taken = NULL;
    int status = sk_signal_take(&taken, signal, SIZE_MAX);
    if (status == SK_OK) { /* not reached: both calls check the same way */
        sk_signal_release(taken);
        status = SK_ERR_WRONG_KIND;
    }
    return sk_ffi__handle_failed(status, function, name, "a signal");
}

int sk_ffi__check_pipe(const char *function, const char *name, sk_pipe *pipe) {
    if (pipe == NULL) {
        return sk_ffi__fail(SK_ERR_NULL_ARGUMENT, "%s: %s is NULL", function, name);
    }
    if (sk_ffi__live_tag(pipe) != 0) {
        return sk_ffi__own_handle_refused(function, name, "a pipe");
    }
    sk_signal *probe = NULL;
    int status = sk_pipe_signal(&probe, pipe);
    if (status == SK_OK) {
        sk_signal_release(probe);
        return SK_OK;
    }
    return sk_ffi__handle_failed(status, function, name, "a pipe");
}

int sk_ffi__check_subscriber(const char *function, const char *name, sk_subscriber *subscriber) {
    if (subscriber == NULL) {
        return sk_ffi__fail(SK_ERR_NULL_ARGUMENT, "%s: %s is NULL", function, name);
    }
    if (sk_ffi__live_tag(subscriber) != 0) {
        return sk_ffi__own_handle_refused(function, name, "a subscriber");
    }
    /* A retain checks the handle as every call does and sets no message
     * when it succeeds: sk_last_error_message() stays what the caller's
     * last failing core call left, as the core promises until the next
     * failing call (a successful call of this library is not one). */
    sk_subscriber *retained = sk_subscriber_retain(subscriber);
    if (retained != NULL) {
        sk_subscriber_release(retained);
        return SK_OK;
    }
    /* Refused: the status, from the one core function taking a subscriber
     * that does not emit into it when its value is missing:
     * sk_subscriber_put_next checks the subscriber, then refuses the NULL
     * value (SK_ERR_NULL_ARGUMENT) without emitting. */
    int status = sk_subscriber_put_next(subscriber, NULL);
    if (status == SK_ERR_NULL_ARGUMENT) {
        return SK_OK;
    }
    return sk_ffi__handle_failed(status, function, name, "a subscriber");
}

/* True when handle checking is on and the core does not know `pointer` as
 * a live handle either: then it was released (or never was a handle). With
 * checking off nothing is asked: the core would read the pointer's first
 * word, which may be freed memory. */
static int sk_ffi__core_says_released(const void *pointer) {
    if (!sk_handle_checking()) {
        return 0;
    }
    sk_value probe;
    int status = sk_value_set_signal(&probe, (sk_signal *)(uintptr_t)pointer);
    if (status == SK_OK) {
        sk_value_release(&probe);
    }
    return status == SK_ERR_RELEASED;
}

int sk_ffi__check_own(const char *function, const char *name, const void *handle, uint64_t tag, const char *what) {
    if (handle == NULL) {
        return sk_ffi__fail(SK_ERR_NULL_ARGUMENT, "%s: %s is NULL", function, name);
    }
    uint64_t live = sk_ffi__live_tag(handle);
    if (live == tag) {
        return SK_OK;
    }
    if (live == 0 && sk_ffi__core_says_released(handle)) {
        return sk_ffi__fail(SK_ERR_RELEASED, "%s: %s was already released (or never was a handle)", function, name);
    }
    return sk_ffi__fail(SK_ERR_WRONG_KIND, "%s: %s is not %s", function, name, what);
}
