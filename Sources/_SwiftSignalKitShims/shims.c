#define _GNU_SOURCE
#include "_SwiftSignalKitShims.h"

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

/* The Swift runtime's entry point (C calling convention): returns the object,
 * retained, or NULL when its deinitialization has begun. */
extern void *swift_tryRetain(void *object);

int _sks_try_retain(void *object) {
    return swift_tryRetain(object) != NULL;
}

#if defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define SKS_TSAN 1
#endif
#endif

#if defined(SKS_TSAN)
/* The TSan runtime's annotation interface (sanitizer/tsan_interface.h). */
void __tsan_release(void *address);
void __tsan_acquire(void *address);

const int _sks_tsan_active = 1;

void _sks_tsan_release(const void *address) {
    __tsan_release((void *)address);
}

void _sks_tsan_acquire(const void *address) {
    __tsan_acquire((void *)address);
}
#else
const int _sks_tsan_active = 0;

void _sks_tsan_release(const void *address) {
    (void)address;
}

void _sks_tsan_acquire(const void *address) {
    (void)address;
}
#endif

#if defined(__linux__)
#include <errno.h>
#include <stdint.h>
#include <sys/eventfd.h>
#include <sys/syscall.h>
#include <unistd.h>

int _sks_event_create(void) {
    return eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
}

/* Both retry when a signal interrupts them: a lost write would leave work
 * pending with the descriptor unreadable, a lost read the descriptor
 * readable with nothing pending. (EAGAIN: the counter is already at its
 * maximum, or already 0: nothing to do.) */
void _sks_event_signal(int fd) {
    uint64_t one = 1;
    while (write(fd, &one, sizeof one) < 0 && errno == EINTR) {
    }
}

void _sks_event_clear(int fd) {
    uint64_t value = 0;
    while (read(fd, &value, sizeof value) < 0 && errno == EINTR) {
    }
}

void _sks_event_close(int fd) {
    close(fd);
}

int _sks_is_main_thread(void) {
    return (long)getpid() == syscall(SYS_gettid);
}
#else
#include <pthread.h>

int _sks_is_main_thread(void) {
    return pthread_main_np() != 0;
}
#endif

/* libdispatch's C entry point (exported by libdispatch, which the Swift
 * core links through Dispatch). */
extern void *dispatch_get_specific(const void *key);

void *_sks_dispatch_current_specific(const void *key) {
    return dispatch_get_specific(key);
}

static _Thread_local unsigned sks_terminal_deliveries;

void _sks_terminal_delivery_begin(void) {
    sks_terminal_deliveries++;
}

void _sks_terminal_delivery_end(void) {
    sks_terminal_deliveries--;
}

int _sks_terminal_delivery_active(void) {
    return sks_terminal_deliveries != 0;
}

static _Thread_local void *sks_dispose_frames;

void *_sks_dispose_frames(void) {
    return sks_dispose_frames;
}

void _sks_set_dispose_frames(void *frame) {
    sks_dispose_frames = frame;
}

static _Thread_local void *sks_current_host_queue;

void *_sks_current_host_queue(void) {
    return sks_current_host_queue;
}

void _sks_set_current_host_queue(void *queue) {
    sks_current_host_queue = queue;
}

/* A token for the calling thread: the address of a thread-local, so nonzero
   and a multiple of 8 (ActionDisposable keeps a flag in its low bits). */
static _Thread_local uint64_t sks_thread_token_slot;

uintptr_t _sks_thread_token(void) {
    return (uintptr_t)&sks_thread_token_slot;
}

/* One lock and condition for every ActionDisposable whose dispose waits for
   an action running on another thread (rare: a concurrent second dispose).
   Nothing else is done under the lock, and no user code runs under it. */
static pthread_mutex_t sks_dispose_wait_mutex = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t sks_dispose_wait_cond = PTHREAD_COND_INITIALIZER;

void _sks_dispose_wait_lock(void) {
    pthread_mutex_lock(&sks_dispose_wait_mutex);
}

void _sks_dispose_wait_unlock(void) {
    pthread_mutex_unlock(&sks_dispose_wait_mutex);
}

void _sks_dispose_wait(void) {
    pthread_cond_wait(&sks_dispose_wait_cond, &sks_dispose_wait_mutex);
}

void _sks_dispose_wake_all(void) {
    pthread_mutex_lock(&sks_dispose_wait_mutex);
    pthread_cond_broadcast(&sks_dispose_wait_cond);
    pthread_mutex_unlock(&sks_dispose_wait_mutex);
}
