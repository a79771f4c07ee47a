#ifndef SWIFTSIGNALKIT_SHIMS_H
#define SWIFTSIGNALKIT_SHIMS_H

/* Small C helpers for the Swift core; not part of any public API. */

#include <stdint.h>

/* A call the Swift optimizer cannot see into, made by the core's spin lock
 * (`_SpinLock` in Lock.swift) before it gives the lock back. Swift's ARC
 * optimizer moves a retain down to where the retained value is used, across
 * anything it can prove releases nothing: an inlined atomic store included.
 * A copy read out of a locked slot would then be retained after the unlock,
 * when another thread may already have replaced and freed it (issue 50:
 * the release library's combine_latest crash). No retain can move past an
 * unknown call, which might release that very object: this call pins every
 * copy made under the lock inside it. Does nothing else (the schedule
 * explorer perturbs after the unlock, not here, where the lock is held:
 * see `_SpinLock.exploreAfterUnlock`). */
void _sks_handoff(void);

/* The core's mutex over one 32-bit word, 0 when free (mutex.c; `_Mutex`
 * in Lock.swift): lock, unlock (by the thread that locked), and a lock
 * that does not wait (1 when taken). Not recursive. */
void _sks_mutex_lock(uint32_t *word);
void _sks_mutex_unlock(uint32_t *word);
int _sks_mutex_try_lock(uint32_t *word);
/* A condition variable over one 32-bit word, 0 at first: wait (with
 * `mutex` held; it is held again on return, which may come without a
 * broadcast) and wake every waiter (called with the mutex held). */
void _sks_cond_wait(uint32_t *cond, uint32_t *mutex);
void _sks_cond_broadcast(uint32_t *cond);

/* The schedule explorer (Sources/SwiftSignalKit/Support/ScheduleExplorer.swift):
 * in a build with SKS_EXPLORE defined (make explore-core), a point where
 * the core hands something to another thread (`site`, one of the
 * `_ScheduleSite` numbers) may let other threads run first: nothing, a
 * yield, a spin or a sleep of a few microseconds, chosen by a generator per
 * thread seeded from SIGNALKIT_EXPLORE_SEED (printed once to stderr) and
 * the thread's number. Making the seed (the explorer's first use) starts the
 * preemption injection (shims.c), unless SIGNALKIT_EXPLORE_PREEMPT=0.
 * Elsewhere it does nothing (and the core calls it only in an explorer
 * build). */
void _sks_explore(int site);

/* The explorer's seed (SIGNALKIT_EXPLORE_SEED, or the time when unset), for
 * the inline perturbations of the spin lock; 0 outside an explorer build. */
uint64_t _sks_explore_seed(void);

/* The asymmetric fences of the biased gates (`_SignalSerialGate`,
 * SignalSerialGate.swift): a thread that owns a gate enters and leaves it
 * with plain stores and loads, kept in program order by `_sks_light_fence`
 * (a compiler barrier, no instruction); another thread that takes the gate
 * from it pays `_sks_heavy_fence`, which makes every thread of the process
 * run a full memory barrier before it returns (Linux membarrier,
 * MEMBARRIER_CMD_PRIVATE_EXPEDITED; liburcu's membarrier flavour uses the
 * same pairing), so that of the owner's store-then-load and the taker's
 * store-then-load at least one load sees the other's store.
 * `_sks_heavy_fence_available` registers the process for it on its first
 * call and says whether it works (0: the kernel or a seccomp filter refuses
 * it, or not Linux: gates are then never owned). `_sks_heavy_fence`
 * registers again in a forked child (the registration is not inherited) and
 * falls back to MEMBARRIER_CMD_GLOBAL; if neither works, it stops the
 * process with a message (only after `_sks_heavy_fence_available` said 1,
 * so a kernel that took the registration then refused the barrier). */
int _sks_heavy_fence_available(void);
void _sks_heavy_fence(void);
static inline __attribute__((always_inline)) void _sks_light_fence(void) {
    __atomic_signal_fence(__ATOMIC_SEQ_CST);
}

/* Nonzero when the calling thread is the process's main thread. */
int _sks_is_main_thread(void);

/* The raw dispatch-specific value for `key` on the current queue (or its
 * targets), or NULL: dispatch_get_specific, without the Swift overlay's
 * generic boxing. */
void *_sks_dispatch_current_specific(const void *key);

/* Marks the queue whose dispatch_sync is running on this thread with
 * `token` (not 0), a dispatch specific without a destructor, so that
 * releasing the queue gives libdispatch no work (Queue.swift, `token`).
 * Returns that queue, libdispatch's C handle (borrowed: it lives as long as
 * the Swift DispatchQueue that wraps it), for `_sks_dispatch_async_f`. */
void *_sks_dispatch_mark_current_queue(uintptr_t token);

/* dispatch_async_f onto `queue` (a handle from
 * `_sks_dispatch_mark_current_queue`): `work(context)` runs on the queue.
 * No block is made, so nothing is allocated beyond libdispatch's own
 * continuation (from its per-thread cache). */
void _sks_dispatch_async_f(void *queue, void *context, void (*work)(void *));

/* The token of the current queue (or of its targets), 0 when it has none. */
uintptr_t _sks_dispatch_current_queue_token(void);

/* What a thread holds while it waits in a sync (or a drain, an advance)
 * on another queue: the identities of the queue it was running when it
 * left for the other one. libdispatch keeps only the innermost queue
 * current, but the thread still owns the outer ones until the sync
 * returns, so a sync back onto one of them runs inline (Queue.swift,
 * `sync`). A record lives on the stack of the thread, in a list from the
 * innermost out; `_sks_hold_enter` fills and pushes it, `_sks_hold_exit`
 * pops it. */
typedef struct _sks_hold {
    struct _sks_hold *outer;
    /* The current dispatch queue's token (`_sks_dispatch_current_queue_token`),
     * or 0. */
    uintptr_t token;
    /* The current dispatch queue's raw specific for the Swift side's key (a
     * wrapper's or the main queue's mark), or NULL; the Swift side puts the
     * queue's identity in `specific` when it is not NULL. */
    void *specificBox;
    const void *specific;
    /* The host-drained or virtual-time queue being run, or NULL. */
    void *host;
} _sks_hold;

/* `token` and `specificBox`: the current dispatch queue's token and raw
 * specific, which the caller has read (deciding whether it is current). */
void _sks_hold_enter(_sks_hold *hold, uintptr_t token, void *specificBox);
void _sks_hold_exit(_sks_hold *hold);
/* Whether the calling thread holds a queue of one of these identities (each
 * compared only when nonzero) through a record of `_sks_hold_enter`. */
int _sks_holds(uintptr_t token, const void *specific, const void *host);

/* The calling thread's innermost scope of puts that never wait for room
 * (`_SignalNoWaitScope` in the Swift core), or NULL. */
void *_sks_nowait_scope(void);
void _sks_set_nowait_scope(void *scope);

/* The host-drained queue the calling thread is draining, or NULL. */
void *_sks_current_host_queue(void);
void _sks_set_current_host_queue(void *queue);

/* How many terminal events (errors, completions) the calling thread is
 * delivering, nested: begin before a subscriber's terminal callback, end
 * after it (see `_TerminalDelivery` in the Swift core). */
void _sks_terminal_delivery_begin(void);
void _sks_terminal_delivery_end(void);
int _sks_terminal_delivery_active(void);

/* The value calls running on the calling thread: a subscriber's `putNext`
 * records the subscriber around its call of the value callback (see
 * `Subscriber.waitsForCalls` in the Swift core). A terminal event put while
 * that subscriber has calls in flight is delivered at once when every one
 * of them is this thread's own (a callback that ends its own subscription,
 * nested, as in SwiftSignalKit), else after them. The innermost
 * _SKS_CALL_SLOTS calls are kept (by depth, modulo); of deeper ones only
 * the count. No memory of the caller's is taken (its address would make the
 * compiler guard the frame of every caller), and two words and a slot are
 * written per call. Initial-exec: no call per access; the block is small
 * (the static TLS that a dlopen'ed library may take is about 512 bytes). */
#define _SKS_CALL_SLOTS 8
typedef struct _sks_calls {
    unsigned long depth;
    const void *owners[_SKS_CALL_SLOTS];
} _sks_calls;

extern _Thread_local _sks_calls _sks_thread_calls __attribute__((tls_model("initial-exec")));

/* The calling thread as a word: the address of its `_sks_thread_calls`,
 * unique among live threads, a multiple of 8 (never 0 or 1: ActionDisposable
 * and the serial gate keep flags in its low bits or beside it), and two
 * instructions where `pthread_self()` is a call. */
static inline __attribute__((always_inline)) uintptr_t _sks_thread_token(void) {
    return (uintptr_t)&_sks_thread_calls;
}

/* Records a call of `owner`; returns the depth to give back to
 * `_sks_call_pop`. */
static inline __attribute__((always_inline)) unsigned long _sks_call_push(const void *owner) {
    unsigned long depth = _sks_thread_calls.depth;
    _sks_thread_calls.owners[depth % _SKS_CALL_SLOTS] = owner;
    _sks_thread_calls.depth = depth + 1;
    return depth;
}

static inline __attribute__((always_inline)) void _sks_call_pop(unsigned long depth) {
    _sks_thread_calls.depth = depth;
}

/* Whether the calling thread's calls of `owner` (`_sks_call_push`) are
 * `count` at least: 1 when they are (the calls beyond the kept slots
 * counted as none of `owner`'s), else 0. */
int _sks_calls_on_this_thread_reach(const void *owner, unsigned long count);

/* The innermost dispose of a disposable container running on the calling
 * thread (a `_DisposeFrame` of the Swift core, which links to the one
 * around it), or NULL. */
/* The ThreadPoolCore a pool thread serves (NULL on other threads): a
 * thread-local of this library, not a pthread key, so that making a pool
 * cannot fail when the process has used up its keys. */
void *_sks_thread_pool_core(void);
void _sks_set_thread_pool_core(void *core);
void *_sks_dispose_frames(void);
void _sks_set_dispose_frames(void *frame);

/* The calling thread's list of container members whose disposal or
 * release was put off (a `_NestedDisposal` of the Swift core), or NULL;
 * and how many container releases are nested on it. */
void *_sks_nested_disposal(void);
void _sks_set_nested_disposal(void *list);
int _sks_container_release_depth(void);
void _sks_set_container_release_depth(int depth);
/* How many member disposes the calling thread has put off so far
 * (wrapping). */
unsigned _sks_put_off_disposals(void);
void _sks_set_put_off_disposals(unsigned count);

/* A non-blocking, close-on-exec eventfd; -1 with errno set on failure
 * (a pipe's read end on systems without eventfd). */
int _sks_event_create(void);
/* Makes the descriptor readable (idempotent). */
void _sks_event_signal(int fd);
/* Makes the descriptor unreadable again. */
void _sks_event_clear(int fd);
void _sks_event_close(int fd);

/* Makes sure libdispatch's timers can run in this process, once: on Linux
 * libdispatch makes its event loop's descriptors (an epoll instance and an
 * eventfd, at the first timer; a timerfd per clock, when a timer of that
 * clock is first armed) lazily and stops the process when it cannot make the
 * first two. The first call checks that three descriptors can be made, then
 * sets a 1 ms timer of the uptime clock (the clock of DispatchTime, the only
 * one the library uses) and waits up to `wait_seconds` for it to fire: from
 * then on the descriptors exist for the life of the process, and later calls
 * return 0 at once. Returns 0, or the errno of the refused descriptor
 * (EMFILE, ENFILE, ENOMEM: nothing was scheduled, so a later call tries
 * again), or ETIMEDOUT when the timer did not fire in time (its context is
 * left to it; a later call tries again). Thread-safe; concurrent first
 * calls wait for one another. */
int _sks_dispatch_timers_prepare(double wait_seconds);

/* Retains the Swift object and returns nonzero, unless its deinitialization
 * has begun (then 0 and nothing changes). The memory must be valid: the
 * caller guarantees the object has not been freed. Forwards to the Swift
 * runtime's swift_tryRetain (an exported entry point of its ABI: what
 * loading a weak reference relies on). */
int _sks_try_retain(void *object);

/* ThreadSanitizer annotations. `_sks_tsan_active` is nonzero in a build with
 * ThreadSanitizer (SwiftPM compiles this target with it, so the C compiler
 * knows; the Swift compiler does not tell its code), where
 * `_sks_tsan_release` / `_sks_tsan_acquire` forward to the TSan runtime's
 * __tsan_release / __tsan_acquire on `address`; in any other build they do
 * nothing and the Swift side does not call them. For hand-offs TSan cannot
 * see: the Swift runtime's reference counts (copy-on-write uniqueness) are
 * not instrumented. See Support/TSan.swift. */
extern const int _sks_tsan_active;
void _sks_tsan_release(const void *address);
void _sks_tsan_acquire(const void *address);


/* The wait of an ActionDisposable's dispose for an action running on another
 * thread: one process-wide lock and condition (see ActionDisposable.swift).
 * `_sks_dispose_wait` waits on the condition with the lock held (it must be);
 * `_sks_dispose_wake_all` takes the lock and wakes every waiter. */
void _sks_dispose_wait_lock(void);
void _sks_dispose_wait_unlock(void);
void _sks_dispose_wait(void);
void _sks_dispose_wake_all(void);

#endif
