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

#if defined(__x86_64__) || defined(__aarch64__)
/* Empty on purpose: being a call the Swift optimizer cannot inline or
 * analyze is the whole point (see the header). Kept out of line even under
 * link-time optimization. Naked: a return alone, without the frame the
 * build's frame pointers would give it (4 instructions a call, on every
 * spin lock's unlock, down to 1). */
__attribute__((naked)) void _sks_handoff(void) {
    __asm__ volatile("ret");
}
#else
void _sks_handoff(void) {
    /* As above, with a frame. */
    __asm__ volatile("" ::: "memory");
}
#endif

#if defined(SKS_STATIC_SWIFT_RUNTIME)
/* The Swift runtime linked into this library (the release build's
 * -static-stdlib; the Makefile defines SKS_STATIC_SWIFT_RUNTIME there) keeps
 * each thread's id in a thread-local for its locks: futexes whose owner the
 * kernel knows by that id (FUTEX_LOCK_PI). In a forked child the forking
 * thread keeps the parent's id, which is no thread of the child: once
 * another thread waits for a lock it holds, the kernel refuses both the
 * wait and the unlock (EPERM) and they retry for ever. The child's handler
 * below forgets the id; the next lock finds the thread's own. The name is
 * the runtime's (swift::threading_impl::linux::ulock_get_tid()'s `tid`, a
 * hidden definition of the same link); in a build over the shared runtime
 * it is not reachable (and not defined here: that build would not link). */
extern __thread int _ZZN5swift14threading_impl5linux13ulock_get_tidEvE3tid;

static void sks_forget_thread_id(void) {
    _ZZN5swift14threading_impl5linux13ulock_get_tidEvE3tid = 0;
}

__attribute__((constructor)) static void sks_register_fork_handlers(void) {
    /* Nothing to do when glibc refuses (ENOMEM): the child then keeps the
     * parent's id, as before this handler. */
    (void)pthread_atfork(NULL, NULL, sks_forget_thread_id);
}
#endif

#if defined(SKS_EXPLORE)
#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static _Atomic uint64_t explore_seed;
static atomic_int explore_threads;
/* initial-exec: read from the preemption signal's handler, where a first
 * access through __tls_get_addr could allocate. */
static __attribute__((tls_model("initial-exec"))) _Thread_local uint64_t explore_state;
static __attribute__((tls_model("initial-exec"))) _Thread_local int explore_registered;

static void explore_start_preempter(void);

uint64_t _sks_explore_seed(void) {
    uint64_t seed = atomic_load_explicit(&explore_seed, memory_order_acquire);
    if (seed != 0) {
        return seed;
    }
    const char *text = getenv("SIGNALKIT_EXPLORE_SEED");
    uint64_t made = text != NULL ? strtoull(text, NULL, 0) : (uint64_t)time(NULL);
    made |= 1;
    uint64_t expected = 0;
    if (atomic_compare_exchange_strong(&explore_seed, &expected, made)) {
        fprintf(stderr, "signalkit: schedule explorer, SIGNALKIT_EXPLORE_SEED=%llu\n", (unsigned long long)made);
        explore_start_preempter();
        return made;
    }
    return expected;
}

/* xorshift64*, one stream per thread: the seed and the thread's number in
 * the order threads first reach a site. */
static uint64_t explore_next(void) {
    if (explore_state == 0) {
        uint64_t index = (uint64_t)atomic_fetch_add(&explore_threads, 1) + 1;
        explore_state = (_sks_explore_seed() ^ (index * 0x9E3779B97F4A7C15ULL)) | 1;
    }
    explore_state ^= explore_state >> 12;
    explore_state ^= explore_state << 25;
    explore_state ^= explore_state >> 27;
    return explore_state * 2685821657736338717ULL;
}

static void explore_spin(unsigned pauses) {
    for (unsigned n = pauses; n > 0; n--) {
        __asm__ volatile("pause" ::: "memory");
    }
}

/* Preemption injection. A window that no site marks, the few instructions
 * between a store that publishes and a retain the optimizer placed after it
 * (issue 50's crash), can only be widened by stopping the thread inside it,
 * as the kernel's preemption does a few hundred times a second: the
 * explorer does it some thousands of times a second. Every thread that
 * reaches a site registers; a thread of the explorer's own sends SIGURG
 * (ignored by default, the signal Go's runtime preempts with) to one of
 * them at a time, every 5 to 80 microseconds, and the handler holds the
 * thread where the signal found it: a yield (another thread of this core
 * runs) or a spin of up to ~16,000 pauses (the other cores' threads go
 * ahead). SA_RESTART, and errno kept: the code interrupted sees nothing
 * but time. SIGNALKIT_EXPLORE_PREEMPT=0 turns it off. */
#define EXPLORE_SLOTS 1024
static _Atomic pid_t explore_tids[EXPLORE_SLOTS];
static atomic_uint explore_tid_next;
static atomic_ulong explore_preemptions;

static void explore_register(void) {
    explore_registered = 1;
    unsigned slot = atomic_fetch_add(&explore_tid_next, 1) % EXPLORE_SLOTS;
    atomic_store(&explore_tids[slot], (pid_t)syscall(SYS_gettid));
}

static void explore_on_signal(int sig) {
    (void)sig;
    int saved = errno;
    uint64_t r = explore_next();
    if ((r & 15) == 0) {
        sched_yield();
    } else {
        explore_spin((unsigned)((r >> 8) & 0x7FF));
    }
    errno = saved;
}

static void *explore_preempter(void *arg) {
    (void)arg;
    uint64_t r = _sks_explore_seed() ^ 0xD1B54A32D192ED03ULL;
    pid_t pid = getpid();
    for (;;) {
        r ^= r >> 12;
        r ^= r << 25;
        r ^= r >> 27;
        uint64_t x = r * 2685821657736338717ULL;
        unsigned count = atomic_load(&explore_tid_next);
        if (count > 0) {
            unsigned slot = (unsigned)(x % (count < EXPLORE_SLOTS ? count : EXPLORE_SLOTS));
            pid_t tid = atomic_load(&explore_tids[slot]);
            if (tid != 0 && syscall(SYS_tgkill, pid, tid, SIGURG) == 0) {
                atomic_fetch_add_explicit(&explore_preemptions, 1, memory_order_relaxed);
            }
        }
        struct timespec pause = {0, (long)(1000 * (5 + ((x >> 32) % 76)))};
        nanosleep(&pause, NULL);
    }
    return NULL;
}

static void explore_start_preempter(void) {
    const char *text = getenv("SIGNALKIT_EXPLORE_PREEMPT");
    if (text != NULL && text[0] == '0') {
        return;
    }
    struct sigaction action;
    action.sa_handler = explore_on_signal;
    sigemptyset(&action.sa_mask);
    action.sa_flags = SA_RESTART;
    if (sigaction(SIGURG, &action, NULL) != 0) {
        fprintf(stderr, "signalkit: schedule explorer: no preemption (sigaction: %d)\n", errno);
        return;
    }
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    pthread_t thread;
    int failed = pthread_create(&thread, NULL, explore_preempter, NULL);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (failed != 0) {
        fprintf(stderr, "signalkit: schedule explorer: no preemption (pthread_create: %d)\n", failed);
        return;
    }
    pthread_detach(thread);
}

void _sks_explore(int site) {
    if (!explore_registered) {
        explore_register();
    }
    uint64_t r = explore_next() ^ ((uint64_t)site * 0xBF58476D1CE4E5B9ULL);
    /* Mostly nothing: a perturbation at every point would serialize the
     * threads instead of interleaving them. */
    switch (r & 63) {
    case 0:
        /* one time in eight of these, a yield: on a busy machine it gives
         * the core away for a scheduler's slice, so it stays rare */
        if (((r >> 8) & 7) == 0) {
            sched_yield();
        }
        break;
    case 1:
        /* a spin of up to ~1,000 pauses: another core's thread goes ahead */
        explore_spin((unsigned)((r >> 8) & 0x3FF));
        break;
    case 3:
        if (((r >> 8) & 63) == 0) {
            /* rarely, a sleep of 1 to 64 microseconds: every other thread goes ahead */
            struct timespec pause = {0, (long)(1000 * (1 + ((r >> 16) & 63)))};
            nanosleep(&pause, NULL);
        }
        break;
    default:
        break;
    }
}
#else
void _sks_explore(int site) {
    (void)site;
}

uint64_t _sks_explore_seed(void) {
    return 0;
}
#endif

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
#include <fcntl.h>
#include <poll.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/eventfd.h>
#include <sys/syscall.h>
#include <unistd.h>

/* The live eventfds of _sks_event_create (host queues), guarded by
 * sks_events_lock, for the fork handlers below: a fork's child gets a
 * descriptor of its own at the same number. Without them the two
 * processes shared each eventfd's counter: the child's drain made the
 * parent's descriptor unreadable with work pending there, and the child's
 * work made it readable with nothing there (signalkit.h, "fork()": the
 * parent is unaffected). Kept as poll entries, so that the parent's
 * handler reads them all in one poll(). */
static pthread_mutex_t sks_events_lock = PTHREAD_MUTEX_INITIALIZER;
static struct pollfd *sks_events;
static size_t sks_events_count;
static size_t sks_events_capacity;
static int sks_events_handlers;
/* Whether sks_events_prepare's poll() succeeded (each entry's revents then
 * says whether its counter was nonzero at the fork). */
static int sks_events_polled;

/* In the parent, before the fork: the lock, and which descriptors are
 * readable (work pending), read now, before the parent goes on: after the
 * fork it may drain or put at once, through the counter the child still
 * shares until its handler runs. */
static void sks_events_prepare(void) {
    pthread_mutex_lock(&sks_events_lock);
    int ready;
    do {
        ready = poll(sks_events, (nfds_t)sks_events_count, 0);
    } while (ready < 0 && errno == EINTR);
    sks_events_polled = ready >= 0;
}

static void sks_events_parent(void) {
    pthread_mutex_unlock(&sks_events_lock);
}

/* In the child (async-signal-safe calls only: the parent may have had
 * other threads): each descriptor replaced by a new eventfd, readable if
 * the shared one was at the fork (sks_events_prepare; polled now when that
 * poll failed), put at its number by dup3, so that a descriptor the
 * program watches stays the queue's. At the descriptor limit the shared
 * one is closed first, which frees the slot the new one takes. Where the
 * system refuses an eventfd otherwise (ENFILE, ENOMEM) the child keeps the
 * shared one (what it had before these handlers); where it refuses it
 * even after the close, the number stays closed in the child (its queue
 * then has no descriptor: its signals fail with EBADF, ignored). */
static void sks_events_child(void) {
    for (size_t i = 0; i < sks_events_count; i++) {
        int fd = sks_events[i].fd;
        int readable;
        if (sks_events_polled) {
            readable = (sks_events[i].revents & POLLIN) != 0;
        } else {
            struct pollfd watched = { .fd = fd, .events = POLLIN, .revents = 0 };
            readable = poll(&watched, 1, 0) > 0 && (watched.revents & POLLIN) != 0;
        }
        int fresh = eventfd(readable ? 1 : 0, EFD_NONBLOCK | EFD_CLOEXEC);
        if (fresh < 0 && errno == EMFILE) {
            close(fd);
            fresh = eventfd(readable ? 1 : 0, EFD_NONBLOCK | EFD_CLOEXEC);
        }
        if (fresh < 0 || fresh == fd) {
            continue;
        }
        (void)dup3(fresh, fd, O_CLOEXEC);
        close(fresh);
    }
    pthread_mutex_unlock(&sks_events_lock);
}

int _sks_event_create(void) {
    pthread_mutex_lock(&sks_events_lock);
    if (!sks_events_handlers) {
        if (pthread_atfork(sks_events_prepare, sks_events_parent, sks_events_child) != 0) {
            pthread_mutex_unlock(&sks_events_lock);
            errno = ENOMEM;
            return -1;
        }
        sks_events_handlers = 1;
    }
    if (sks_events_count == sks_events_capacity) {
        size_t capacity = sks_events_capacity ? sks_events_capacity * 2 : 8;
        struct pollfd *grown = realloc(sks_events, capacity * sizeof *grown);
        if (grown == NULL) {
            pthread_mutex_unlock(&sks_events_lock);
            errno = ENOMEM;
            return -1;
        }
        sks_events = grown;
        sks_events_capacity = capacity;
    }
    int fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
    if (fd >= 0) {
        sks_events[sks_events_count++] = (struct pollfd){ .fd = fd, .events = POLLIN, .revents = 0 };
    }
    int saved = errno;
    pthread_mutex_unlock(&sks_events_lock);
    errno = saved;
    return fd;
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
    pthread_mutex_lock(&sks_events_lock);
    for (size_t i = 0; i < sks_events_count; i++) {
        if (sks_events[i].fd == fd) {
            sks_events[i] = sks_events[--sks_events_count];
            break;
        }
    }
    /* Closed under the lock: a fork between the two would give the child a
     * closed number to replace (maybe another file's by then). */
    close(fd);
    pthread_mutex_unlock(&sks_events_lock);
}

int _sks_is_main_thread(void) {
    return (long)getpid() == syscall(SYS_gettid);
}

#include <linux/membarrier.h>
#include <stdio.h>

/* 1: registered and working; -1: refused; 0: not asked yet. */
static int sks_heavy_fence_state;

static long sks_membarrier(int command) {
    return syscall(SYS_membarrier, command, 0, 0);
}

int _sks_heavy_fence_available(void) {
    int state = __atomic_load_n(&sks_heavy_fence_state, __ATOMIC_ACQUIRE);
    if (state == 0) {
        long commands = sks_membarrier(MEMBARRIER_CMD_QUERY);
        state = -1;
        if (commands > 0 && (commands & MEMBARRIER_CMD_PRIVATE_EXPEDITED) != 0 &&
            sks_membarrier(MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED) == 0 &&
            sks_membarrier(MEMBARRIER_CMD_PRIVATE_EXPEDITED) == 0) {
            state = 1;
        }
        /* Racing first calls all reach the same answer. */
        __atomic_store_n(&sks_heavy_fence_state, state, __ATOMIC_RELEASE);
    }
    return state == 1;
}

void _sks_heavy_fence(void) {
    if (sks_membarrier(MEMBARRIER_CMD_PRIVATE_EXPEDITED) == 0) {
        return;
    }
    /* A forked child is not registered: register it, then try again. */
    if (errno == EPERM && sks_membarrier(MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED) == 0 &&
        sks_membarrier(MEMBARRIER_CMD_PRIVATE_EXPEDITED) == 0) {
        return;
    }
    if (sks_membarrier(MEMBARRIER_CMD_GLOBAL) == 0) {
        return;
    }
    static const char message[] =
        "signalkit: fatal error: the kernel refused the memory barrier (membarrier) it accepted before; stopping the process\n";
    (void)!write(2, message, sizeof message - 1);
    abort();
}
#else
#include <pthread.h>

int _sks_is_main_thread(void) {
    return pthread_main_np() != 0;
}

int _sks_heavy_fence_available(void) {
    return 0;
}

void _sks_heavy_fence(void) {
}
#endif

/* libdispatch's C entry point (exported by libdispatch, which the Swift
 * core links through Dispatch). */
extern void *dispatch_get_specific(const void *key);

void *_sks_dispatch_current_specific(const void *key) {
    return dispatch_get_specific(key);
}

/* libdispatch's C entry points for a queue's token (queues are pointers in
 * its C ABI). dispatch_get_current_queue is deprecated for finding out where
 * code runs; here it only names the queue whose dispatch_sync is running. */
extern void *dispatch_get_current_queue(void);
extern void dispatch_queue_set_specific(void *queue, const void *key, void *context, void (*destructor)(void *));

/* The key of the tokens: its address, never its contents. */
static const char sks_queue_token_key;

void *_sks_dispatch_mark_current_queue(uintptr_t token) {
    void *queue = dispatch_get_current_queue();
    /* No destructor: libdispatch runs a specific's destructor on its default
     * concurrent pool when the queue goes, and that pool's first worker needs
     * the event loop's descriptors and a thread. */
    dispatch_queue_set_specific(queue, &sks_queue_token_key, (void *)token, NULL);
    return queue;
}

extern void dispatch_async_f(void *queue, void *context, void (*work)(void *));

void _sks_dispatch_async_f(void *queue, void *context, void (*work)(void *)) {
    dispatch_async_f(queue, context, work);
}

/* The main queue (what dispatch_get_main_queue() names in C). */
extern char _dispatch_main_q;

uintptr_t _sks_dispatch_current_queue_token(void) {
    /* On the main thread outside any other queue's work, libdispatch keeps
     * the main queue current, and dispatch_get_specific looks through the
     * main queue's specifics under a lock (about 80 instructions on every
     * deliverOn event a main-thread producer puts: W7). The main queue never
     * carries a token (only queues of Queue(name:) are marked, each from its
     * own work) and targets a root queue, which carries none either: 0,
     * without the look-up. Inside work of another queue (a sync onto one
     * included) that queue is current, and the look-up runs as before. */
    if (dispatch_get_current_queue() == (void *)&_dispatch_main_q) {
        return 0;
    }
    return (uintptr_t)dispatch_get_specific(&sks_queue_token_key);
}

#if defined(__linux__)
#include <stdatomic.h>
#include <stdlib.h>
#include <sys/epoll.h>
#include <sys/timerfd.h>
#include <time.h>

/* libdispatch's C entry points (queues and times are pointers and 64-bit
 * integers in its C ABI). */
extern uint64_t dispatch_time(uint64_t when, int64_t delta);
extern void *dispatch_queue_create(const char *label, void *attributes);
extern void dispatch_after_f(uint64_t when, void *queue, void *context, void (*work)(void *));

static atomic_int sks_timers_ready;
static pthread_mutex_t sks_timers_lock = PTHREAD_MUTEX_INITIALIZER;
/* The queue of the probing timer: a serial queue of its own, so that its
 * handler gets a thread even when every worker of the global queues is busy
 * (a serial queue targets the overcommitting root queue). */
static void *sks_timers_queue;

/* One probing timer: freed by whichever of the waiter and the handler is
 * last (the handler, when the waiter gave up). */
struct sks_timer_probe {
    pthread_mutex_t lock;
    pthread_cond_t fired_changed;
    int fired;
    int abandoned;
};

static void sks_timer_probe_fired(void *context) {
    struct sks_timer_probe *probe = context;
    pthread_mutex_lock(&probe->lock);
    probe->fired = 1;
    int abandoned = probe->abandoned;
    pthread_cond_signal(&probe->fired_changed);
    pthread_mutex_unlock(&probe->lock);
    if (abandoned) {
        pthread_cond_destroy(&probe->fired_changed);
        pthread_mutex_destroy(&probe->lock);
        free(probe);
    }
}

/* 0 when an epoll instance, an eventfd and a timerfd of CLOCK_MONOTONIC
 * (what libdispatch will make) can be made now, else the errno of the first
 * refused; `held` receives the made ones (closed by the caller). */
static int sks_timers_probe_descriptors(int held[3]) {
    held[0] = epoll_create1(EPOLL_CLOEXEC);
    held[1] = held[0] < 0 ? -1 : eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
    held[2] = held[1] < 0 ? -1 : timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
    return held[2] < 0 ? errno : 0;
}

static int sks_timers_prepare_locked(double wait_seconds) {
    int held[3];
    int refused = sks_timers_probe_descriptors(held);
    struct sks_timer_probe *probe = refused ? NULL : calloc(1, sizeof *probe);
    if (!refused && probe == NULL) {
        refused = ENOMEM;
    }
    if (!refused && sks_timers_queue == NULL) {
        sks_timers_queue = dispatch_queue_create("signalkit.timers", NULL);
        if (sks_timers_queue == NULL) {
            refused = ENOMEM;
        }
    }
    if (refused) {
        for (int i = 0; i < 3; i++) {
            if (held[i] >= 0) {
                close(held[i]);
            }
        }
        free(probe);
        return refused;
    }
    pthread_condattr_t attributes;
    pthread_condattr_init(&attributes);
    pthread_condattr_setclock(&attributes, CLOCK_MONOTONIC);
    pthread_mutex_init(&probe->lock, NULL);
    pthread_cond_init(&probe->fired_changed, &attributes);
    pthread_condattr_destroy(&attributes);
    /* The descriptors are given back just before libdispatch takes them
     * (it makes its epoll instance and eventfd within dispatch_after_f, on
     * this thread; the timerfd on its manager thread, at once): another
     * thread of the process taking them in between is the one way left to
     * reach libdispatch's stop, and the window is a few instructions. */
    for (int i = 2; i >= 0; i--) {
        close(held[i]);
    }
    dispatch_after_f(dispatch_time(0, 1000000), sks_timers_queue, probe, sks_timer_probe_fired);
    struct timespec deadline;
    clock_gettime(CLOCK_MONOTONIC, &deadline);
    double whole = (double)(time_t)wait_seconds;
    deadline.tv_sec += (time_t)wait_seconds;
    deadline.tv_nsec += (long)((wait_seconds - whole) * 1e9);
    if (deadline.tv_nsec >= 1000000000L) {
        deadline.tv_sec++;
        deadline.tv_nsec -= 1000000000L;
    }
    pthread_mutex_lock(&probe->lock);
    while (!probe->fired) {
        if (pthread_cond_timedwait(&probe->fired_changed, &probe->lock, &deadline) == ETIMEDOUT) {
            break;
        }
    }
    int fired = probe->fired;
    probe->abandoned = !fired;
    pthread_mutex_unlock(&probe->lock);
    if (!fired) {
        return ETIMEDOUT;
    }
    pthread_cond_destroy(&probe->fired_changed);
    pthread_mutex_destroy(&probe->lock);
    free(probe);
    return 0;
}

int _sks_dispatch_timers_prepare(double wait_seconds) {
    if (atomic_load_explicit(&sks_timers_ready, memory_order_acquire)) {
        return 0;
    }
    pthread_mutex_lock(&sks_timers_lock);
    int status = 0;
    if (!atomic_load_explicit(&sks_timers_ready, memory_order_relaxed)) {
        status = sks_timers_prepare_locked(wait_seconds);
        if (status == 0) {
            atomic_store_explicit(&sks_timers_ready, 1, memory_order_release);
        }
    }
    pthread_mutex_unlock(&sks_timers_lock);
    return status;
}
#else
int _sks_dispatch_timers_prepare(double wait_seconds) {
    (void)wait_seconds;
    return 0;
}
#endif

_Thread_local _sks_calls _sks_thread_calls __attribute__((tls_model("initial-exec")));

int _sks_calls_on_this_thread_reach(const void *owner, unsigned long count) {
    unsigned long depth = _sks_thread_calls.depth;
    unsigned long first = depth > _SKS_CALL_SLOTS ? depth - _SKS_CALL_SLOTS : 0;
    unsigned long found = 0;
    for (unsigned long i = first; i < depth; i++) {
        if (_sks_thread_calls.owners[i % _SKS_CALL_SLOTS] == owner) {
            found++;
        }
    }
    return found >= count;
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

static _Thread_local void *sks_pool_core;

void *_sks_thread_pool_core(void) {
    return sks_pool_core;
}

void _sks_set_thread_pool_core(void *core) {
    sks_pool_core = core;
}

static _Thread_local void *sks_dispose_frames;

void *_sks_dispose_frames(void) {
    return sks_dispose_frames;
}

void _sks_set_dispose_frames(void *frame) {
    sks_dispose_frames = frame;
}

static _Thread_local void *sks_nested_disposal;

void *_sks_nested_disposal(void) {
    return sks_nested_disposal;
}

void _sks_set_nested_disposal(void *list) {
    sks_nested_disposal = list;
}

static _Thread_local int sks_container_release_depth;

int _sks_container_release_depth(void) {
    return sks_container_release_depth;
}

void _sks_set_container_release_depth(int depth) {
    sks_container_release_depth = depth;
}

static _Thread_local unsigned sks_put_off_disposals;

unsigned _sks_put_off_disposals(void) {
    return sks_put_off_disposals;
}

void _sks_set_put_off_disposals(unsigned count) {
    sks_put_off_disposals = count;
}

static _Thread_local void *sks_nowait_scope;

void *_sks_nowait_scope(void) {
    return sks_nowait_scope;
}

void _sks_set_nowait_scope(void *scope) {
    sks_nowait_scope = scope;
}

static _Thread_local void *sks_current_host_queue;

static _Thread_local _sks_hold *sks_holds;

void _sks_hold_enter(_sks_hold *hold, uintptr_t token, void *specificBox) {
    hold->token = token;
    hold->specificBox = specificBox;
    hold->specific = NULL;
    hold->host = sks_current_host_queue;
    hold->outer = sks_holds;
    sks_holds = hold;
}

void _sks_hold_exit(_sks_hold *hold) {
    sks_holds = hold->outer;
}

int _sks_holds(uintptr_t token, const void *specific, const void *host) {
    for (const _sks_hold *hold = sks_holds; hold != NULL; hold = hold->outer) {
        if ((token != 0 && hold->token == token) || (specific != NULL && hold->specific == specific) ||
            (host != NULL && hold->host == host)) {
            return 1;
        }
    }
    return 0;
}


void *_sks_current_host_queue(void) {
    return sks_current_host_queue;
}

void _sks_set_current_host_queue(void *queue) {
    sks_current_host_queue = queue;
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
