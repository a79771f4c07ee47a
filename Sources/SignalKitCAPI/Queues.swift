import SignalKitHeader
import Dispatch
import Glibc
import SwiftSignalKit

/// An `sk_queue` handle.
///
/// Each `sk_queue_create_host` makes one handle, and only its holders can
/// drain the queue: when the last one is released, the queue is closed (its
/// pending work dropped and released, its descriptor closed), whatever still
/// refers to the queue inside the library.
final class SKQueue: SKObject {
    let queue: Queue

    init(_ queue: Queue) {
        self.queue = queue
        super.init()
    }

    deinit {
        self.queue.closeHostDrained()
    }
}

func borrowQueue(_ name: String, _ handle: OpaquePointer?, function: StaticString = #function) -> (SKQueue?, Int32) {
    return borrowHandle(name, handle, as: SKQueue.self, "a queue", function: function)
}

private func outputQueue(_ out: UnsafeMutablePointer<OpaquePointer?>?, function: StaticString = #function, _ make: () -> Queue) -> Int32 {
    guard let out else {
        return fail(SK_ERR_NULL_ARGUMENT, "out is NULL", function: function)
    }
    out.pointee = SKQueue(make()).retainedHandle(madeBy: function)
    return SKOK
}

@c @implementation
public func sk_queue_main(_ out: UnsafeMutablePointer<OpaquePointer?>?) -> Int32 {
    return outputQueue(out) { Queue.mainQueue() }
}

@c @implementation
public func sk_queue_concurrent_default(_ out: UnsafeMutablePointer<OpaquePointer?>?) -> Int32 {
    return outputQueue(out) { Queue.concurrentDefaultQueue() }
}

@c @implementation
public func sk_queue_concurrent_background(_ out: UnsafeMutablePointer<OpaquePointer?>?) -> Int32 {
    return outputQueue(out) { Queue.concurrentBackgroundQueue() }
}

@c @implementation
public func sk_queue_create(_ out: UnsafeMutablePointer<OpaquePointer?>?, _ name: UnsafePointer<CChar>?) -> Int32 {
    return outputQueue(out) { Queue(name: name.map { String(cString: $0) }) }
}

@c @implementation
public func sk_queue_create_host(_ out: UnsafeMutablePointer<OpaquePointer?>?, _ name: UnsafePointer<CChar>?) -> Int32 {
    out?.pointee = nil
    let queue: Queue
    do {
        queue = try Queue.makeHostDrained(name: name.map { String(cString: $0) })
    } catch {
        let status = error.errno == ENOMEM ? SK_ERR_NO_MEMORY : SK_ERR_RESOURCE
        return fail(status, "\(error)")
    }
    return outputQueue(out) { queue }
}

@c @implementation
public func sk_queue_create_concurrent(_ out: UnsafeMutablePointer<OpaquePointer?>?, _ maxWorkers: Int, _ name: UnsafePointer<CChar>?) -> Int32 {
    out?.pointee = nil
    guard out != nil else {
        return fail(SK_ERR_NULL_ARGUMENT, "out is NULL")
    }
    // size_t above Int.max arrives negative: refused as out of range.
    let queue: Queue
    do {
        queue = try Queue.makeBoundedConcurrent(maxWorkers: maxWorkers < 0 ? Int.max : maxWorkers,
                                                name: name.map { String(cString: $0) })
    } catch {
        switch error {
        case .invalidWorkerCount(let count):
            return fail(SK_ERR_INVALID_ARGUMENT, count == Int.max ? "max_workers is above \(Queue.maxBoundedConcurrentWorkers): a bounded concurrent queue has 1 to \(Queue.maxBoundedConcurrentWorkers) workers" : "\(error)")
        case .threadRefused:
            return fail(SK_ERR_RESOURCE, "\(error)")
        }
    }
    return outputQueue(out) { queue }
}

@c @implementation
public func sk_queue_host_fd(_ queue: OpaquePointer?, _ outFd: UnsafeMutablePointer<Int32>?) -> Int32 {
    // -1 first, for every error: a caller that polls what it was given must
    // not poll a number left over from before the call.
    outFd?.pointee = -1
    let (handle, status) = borrowQueue("queue", queue)
    guard let handle else {
        return status
    }
    guard let outFd else {
        return fail(SK_ERR_NULL_ARGUMENT, "out_fd is NULL")
    }
    guard let fd = handle.queue.hostFileDescriptor else {
        return fail(SK_ERR_WRONG_KIND, "queue is not host-drained")
    }
    outFd.pointee = fd
    return SKOK
}

/// The queue behind a queue argument, for a call that runs or waits for
/// the queue's work (a drain, a sync): the handle object is not kept for the
/// call, so that releasing the last handle meanwhile (from one of the tasks,
/// or on another thread) closes the queue then, as documented, rather than
/// when the call returns. Out of line so that the borrowed handle's
/// reference ends here.
@inline(never)
private func queueOfHandle(_ handle: OpaquePointer?, function: StaticString = #function) -> (Queue?, Int32) {
    let (object, status) = borrowQueue("queue", handle, function: function)
    return (object?.queue, status)
}

@c @implementation
public func sk_queue_host_drain(_ queue: OpaquePointer?, _ maxTasks: Int, _ outRan: UnsafeMutablePointer<Int>?) -> Int32 {
    outRan?.pointee = 0
    let (target, status) = queueOfHandle(queue)
    guard let target else {
        return status
    }
    do {
        // Not `outRan?.pointee = try ...`: that would skip the drain when outRan is NULL.
        let ran = try target.drain(maxTasks: maxTasks)
        outRan?.pointee = ran
        return SKOK
    } catch .alreadyDraining {
        // On this thread, the drain running is the one whose task called.
        if target.isCurrent() {
            return fail(SK_ERR_BUSY, "this thread is draining this queue already (called from one of its tasks: drains do not nest)")
        }
        return fail(SK_ERR_BUSY, "another thread is draining this queue")
    } catch {
        return fail(SK_ERR_WRONG_KIND, "queue is not host-drained")
    }
}

/// Makes the process's dispatch timers ready (`Queue.prepareTimers`: at the
/// first call that succeeds, libdispatch makes the descriptors of its event
/// loop, which it cannot survive failing to make later): nil when they are,
/// else the status to return (SK_ERR_RESOURCE, SK_ERR_NO_MEMORY), with the
/// message set. Every C function that can set a dispatch timer calls it
/// before anything is made (not for a virtual-time queue, whose timers are
/// its own).
func prepareTimers(function: StaticString = #function) -> Int32? {
    do {
        try Queue.prepareTimers()
        return nil
    } catch {
        return fail(error.errno == ENOMEM ? SK_ERR_NO_MEMORY : SK_ERR_RESOURCE, "\(error)", function: function)
    }
}

/// Makes libdispatch's event loop ready (`prepareTimers`) when what is about
/// to be given to `queue` needs it: work set on a timer (`timers`), on any
/// queue but a virtual-time one (whose timers are its own), and any work
/// that may run on a global concurrent queue, whose first worker sets the
/// monitor of libdispatch's pools going, a timer of the event loop (it too
/// stops the process when it cannot make the loop's descriptors). nil when
/// ready, else the status to return, with the message set. Every C function
/// that gives a queue work, or makes something that will, calls it before
/// anything is made.
func prepareDispatch(_ queue: Queue, timers: Bool, function: StaticString = #function) -> Int32? {
    if queue.isVirtualTime || !(timers || queue.usesMonitoredWorkers) {
        return nil
    }
    return prepareTimers(function: function)
}

/// Validates the common arguments of the work-submitting functions and
/// makes libdispatch ready for the work (`prepareDispatch`; `timers` for
/// work set on a timer). On error `release` has run (`releasingOnFailure`).
private func submit(_ queue: OpaquePointer?, _ fn: sk_work_fn?, _ ctx: UnsafeMutableRawPointer?, _ release: sk_release_fn?, timers: Bool = false, function: StaticString = #function, _ body: (Queue, SKFunction<sk_work_fn>) -> Void) -> Int32 {
    guard let fn else {
        return releasingOnFailure(ctx: ctx, release: release, fail(SK_ERR_NULL_ARGUMENT, "fn is NULL", function: function))
    }
    let work = SKFunction(fn, ctx: ctx, release: release)
    work.noteMaker(function)
    return releasingOnFailure(work) {
        let (handle, status) = borrowQueue("queue", queue, function: function)
        guard let handle else {
            return status
        }
        if let refused = prepareDispatch(handle.queue, timers: timers, function: function) {
            return refused
        }
        body(handle.queue, work)
        return SKOK
    }
}

@c @implementation
public func sk_queue_async(_ queue: OpaquePointer?, _ fn: sk_work_fn?, _ ctx: UnsafeMutableRawPointer?, _ release: sk_release_fn?) -> Int32 {
    return submit(queue, fn, ctx, release) { queue, work in
        queue.async {
            work.runOnce()
        }
    }
}

@c @implementation
public func sk_queue_sync(_ queue: OpaquePointer?, _ fn: sk_work_fn?, _ ctx: UnsafeMutableRawPointer?, _ release: sk_release_fn?) -> Int32 {
    guard let fn else {
        return releasingOnFailure(ctx: ctx, release: release, fail(SK_ERR_NULL_ARGUMENT, "fn is NULL"))
    }
    let work = SKFunction(fn, ctx: ctx, release: release)
    work.noteMaker(#function)
    // Not `submit`: the wait must not keep the handle (see `queueOfHandle`).
    let (target, status) = queueOfHandle(queue)
    guard let target else {
        return releasingOnFailure(work) { status }
    }
    let ran = target.sync({
        work.runOnce()
    }, ifDropped: {
        // On the thread that dropped the work (the one releasing the last
        // handle), as for any pending work of a closing queue: `sync`
        // returns only once it has run.
        work.releaseNow()
    })
    if !ran {
        return fail(SK_ERR_RELEASED, "the queue was closed (its last handle released) before the work ran: the work was dropped and its release has run")
    }
    return SKOK
}

@c @implementation
public func sk_queue_after(_ queue: OpaquePointer?, _ seconds: Double, _ fn: sk_work_fn?, _ ctx: UnsafeMutableRawPointer?, _ release: sk_release_fn?) -> Int32 {
    if let refusal = durationRefusal("seconds", seconds) {
        return releasingOnFailure(ctx: ctx, release: release, fail(SK_ERR_INVALID_ARGUMENT, refusal))
    }
    return submit(queue, fn, ctx, release, timers: true) { queue, work in
        queue.after(seconds) {
            work.runOnce()
        }
    }
}

@c @implementation
public func sk_queue_is_current(_ queue: OpaquePointer?) -> Bool {
    return SKObject.borrow(queue, as: SKQueue.self)?.queue.isCurrent() ?? false
}

@c @implementation
public func sk_queue_retain(_ queue: OpaquePointer?) -> OpaquePointer? {
    return SKObject.retain(queue, as: SKQueue.self, "a queue")
}

@c @implementation
public func sk_queue_release(_ queue: OpaquePointer?) {
    SKObject.release(queue, as: SKQueue.self, "a queue")
}

@c @implementation
public func sk_timer_start(_ out: UnsafeMutablePointer<OpaquePointer?>?, _ queue: OpaquePointer?, _ seconds: Double, _ repeats: Bool, _ fn: sk_work_fn?, _ ctx: UnsafeMutableRawPointer?, _ release: sk_release_fn?) -> Int32 {
    out?.pointee = nil
    guard let out else {
        return releasingOnFailure(ctx: ctx, release: release, fail(SK_ERR_NULL_ARGUMENT, "out is NULL"))
    }
    if let refusal = durationRefusal("seconds", seconds) {
        return releasingOnFailure(ctx: ctx, release: release, fail(SK_ERR_INVALID_ARGUMENT, refusal))
    }
    return submit(queue, fn, ctx, release, timers: true) { queue, work in
        let timer = SwiftSignalKit.Timer(timeout: seconds, repeat: repeats, completion: {
            work.run()
        }, queue: queue)
        // `*out` before the timer is armed: `fn` may reach the disposable
        // through it from its first call (a timer of 0 s fires on another
        // thread before `start` returns, about one time in three).
        out.pointee = SKDisposable(ActionDisposable {
            timer.invalidate()
        }, kind: .plain).retainedHandle(madeBy: #function)
        timer.start()
    }
}
