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

func borrowQueue(_ function: String, _ name: String, _ handle: OpaquePointer?) -> (SKQueue?, Int32) {
    return borrowHandle(function, name, handle, as: SKQueue.self, "a queue")
}

private func outputQueue(_ out: UnsafeMutablePointer<OpaquePointer?>?, _ function: String, _ make: () -> Queue) -> Int32 {
    guard let out else {
        return fail(SK_ERR_NULL_ARGUMENT, "\(function): out is NULL")
    }
    out.pointee = SKQueue(make()).retainedHandle()
    return SKOK
}

@c @implementation
public func sk_queue_main(_ out: UnsafeMutablePointer<OpaquePointer?>?) -> Int32 {
    return outputQueue(out, "sk_queue_main") { Queue.mainQueue() }
}

@c @implementation
public func sk_queue_concurrent_default(_ out: UnsafeMutablePointer<OpaquePointer?>?) -> Int32 {
    return outputQueue(out, "sk_queue_concurrent_default") { Queue.concurrentDefaultQueue() }
}

@c @implementation
public func sk_queue_concurrent_background(_ out: UnsafeMutablePointer<OpaquePointer?>?) -> Int32 {
    return outputQueue(out, "sk_queue_concurrent_background") { Queue.concurrentBackgroundQueue() }
}

@c @implementation
public func sk_queue_create(_ out: UnsafeMutablePointer<OpaquePointer?>?, _ name: UnsafePointer<CChar>?) -> Int32 {
    return outputQueue(out, "sk_queue_create") { Queue(name: name.map { String(cString: $0) }) }
}

@c @implementation
public func sk_queue_create_host(_ out: UnsafeMutablePointer<OpaquePointer?>?, _ name: UnsafePointer<CChar>?) -> Int32 {
    out?.pointee = nil
    let queue: Queue
    do {
        queue = try Queue.makeHostDrained(name: name.map { String(cString: $0) })
    } catch {
        let status = error.errno == ENOMEM ? SK_ERR_NO_MEMORY : SK_ERR_RESOURCE
        return fail(status, "sk_queue_create_host: \(error)")
    }
    return outputQueue(out, "sk_queue_create_host") { queue }
}

@c @implementation
public func sk_queue_host_fd(_ queue: OpaquePointer?, _ outFd: UnsafeMutablePointer<Int32>?) -> Int32 {
    let (handle, status) = borrowQueue("sk_queue_host_fd", "queue", queue)
    guard let handle else {
        return status
    }
    guard let outFd else {
        return fail(SK_ERR_NULL_ARGUMENT, "sk_queue_host_fd: out_fd is NULL")
    }
    guard let fd = handle.queue.hostFileDescriptor else {
        outFd.pointee = -1
        return fail(SK_ERR_WRONG_KIND, "sk_queue_host_fd: queue is not host-drained")
    }
    outFd.pointee = fd
    return SKOK
}

@c @implementation
public func sk_queue_host_drain(_ queue: OpaquePointer?, _ maxTasks: Int, _ outRan: UnsafeMutablePointer<Int>?) -> Int32 {
    outRan?.pointee = 0
    let (handle, status) = borrowQueue("sk_queue_host_drain", "queue", queue)
    guard let handle else {
        return status
    }
    do {
        // Not `outRan?.pointee = try ...`: that would skip the drain when outRan is NULL.
        let ran = try handle.queue.drain(maxTasks: maxTasks)
        outRan?.pointee = ran
        return SKOK
    } catch .alreadyDraining {
        return fail(SK_ERR_BUSY, "sk_queue_host_drain: another thread is draining this queue")
    } catch {
        return fail(SK_ERR_WRONG_KIND, "sk_queue_host_drain: queue is not host-drained")
    }
}

/// Validates the common arguments of the work-submitting functions.
private func submit(_ function: String, _ queue: OpaquePointer?, _ fn: sk_work_fn?, _ ctx: UnsafeMutableRawPointer?, _ release: sk_release_fn?, _ body: (Queue, SKFunction<sk_work_fn>) -> Void) -> Int32 {
    guard let fn else {
        SKContext(ctx: ctx, release: release).ignore()
        return fail(SK_ERR_NULL_ARGUMENT, "\(function): fn is NULL")
    }
    let work = SKFunction(fn, ctx: ctx, release: release)
    let (handle, status) = borrowQueue(function, "queue", queue)
    guard let handle else {
        return status
    }
    body(handle.queue, work)
    return SKOK
}

@c @implementation
public func sk_queue_async(_ queue: OpaquePointer?, _ fn: sk_work_fn?, _ ctx: UnsafeMutableRawPointer?, _ release: sk_release_fn?) -> Int32 {
    return submit("sk_queue_async", queue, fn, ctx, release) { queue, work in
        queue.async {
            work.runOnce()
        }
    }
}

@c @implementation
public func sk_queue_sync(_ queue: OpaquePointer?, _ fn: sk_work_fn?, _ ctx: UnsafeMutableRawPointer?, _ release: sk_release_fn?) -> Int32 {
    return submit("sk_queue_sync", queue, fn, ctx, release) { queue, work in
        queue.sync {
            work.runOnce()
        }
    }
}

@c @implementation
public func sk_queue_after(_ queue: OpaquePointer?, _ seconds: Double, _ fn: sk_work_fn?, _ ctx: UnsafeMutableRawPointer?, _ release: sk_release_fn?) -> Int32 {
    if !(seconds >= 0) {
        SKContext(ctx: ctx, release: release).ignore()
        return fail(SK_ERR_INVALID_ARGUMENT, "sk_queue_after: seconds must be >= 0")
    }
    return submit("sk_queue_after", queue, fn, ctx, release) { queue, work in
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
    return SKObject.retain(queue)
}

@c @implementation
public func sk_queue_release(_ queue: OpaquePointer?) {
    SKObject.release(queue)
}

@c @implementation
public func sk_timer_start(_ out: UnsafeMutablePointer<OpaquePointer?>?, _ queue: OpaquePointer?, _ seconds: Double, _ repeats: Bool, _ fn: sk_work_fn?, _ ctx: UnsafeMutableRawPointer?, _ release: sk_release_fn?) -> Int32 {
    out?.pointee = nil
    guard let out else {
        SKContext(ctx: ctx, release: release).ignore()
        return fail(SK_ERR_NULL_ARGUMENT, "sk_timer_start: out is NULL")
    }
    if !(seconds >= 0) {
        SKContext(ctx: ctx, release: release).ignore()
        return fail(SK_ERR_INVALID_ARGUMENT, "sk_timer_start: seconds must be >= 0")
    }
    return submit("sk_timer_start", queue, fn, ctx, release) { queue, work in
        let timer = SwiftSignalKit.Timer(timeout: seconds, repeat: repeats, completion: {
            work.run()
        }, queue: queue)
        timer.start()
        out.pointee = SKDisposable(ActionDisposable {
            timer.invalidate()
        }, kind: .plain).retainedHandle()
    }
}
