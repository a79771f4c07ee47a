import Dispatch
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

// Threads of the test's own: plain pthreads rather than dispatch, so that a
// test chooses the stack size and knows it has as many threads as it asked
// for.

/// Starts a thread that runs `body`, with a stack of `stackSize` bytes when
/// given; the caller joins or detaches it.
package func spawnThread(stackSize: Int? = nil, _ body: @escaping () -> Void) -> pthread_t {
    final class Body {
        let run: () -> Void

        init(_ run: @escaping () -> Void) {
            self.run = run
        }
    }
    var attributes = pthread_attr_t()
    pthread_attr_init(&attributes)
    defer {
        pthread_attr_destroy(&attributes)
    }
    if let stackSize {
        pthread_attr_setstacksize(&attributes, stackSize)
    }
    let context = Unmanaged.passRetained(Body(body)).toOpaque()
    var thread = pthread_t()
    let result = pthread_create(&thread, &attributes, { context in
        Unmanaged<Body>.fromOpaque(context!).takeRetainedValue().run()
        return nil
    }, context)
    precondition(result == 0)
    return thread
}

/// Runs `body(0)` to `body(count - 1)`, each on a new thread; the threads are
/// released together once all exist, and joined.
package func runThreads(_ count: Int, _ body: @escaping (Int) -> Void) {
    let go = DispatchSemaphore(value: 0)
    let threads = (0 ..< count).map { index in
        spawnThread {
            go.wait()
            body(index)
        }
    }
    for _ in 0 ..< count {
        go.signal()
    }
    for thread in threads {
        pthread_join(thread, nil)
    }
}

/// Runs `body` on a new, detached thread with a stack of `stackSize` bytes: the
/// caller waits for it with a deadline, so that a hang fails instead of
/// blocking the run.
package func startDetachedThread(stackSize: Int, _ body: @escaping () -> Void) {
    pthread_detach(spawnThread(stackSize: stackSize, body))
}

/// True when the ThreadSanitizer runtime is linked in (`make
/// test-swift-tsan`).
package let threadSanitizerIsActive: Bool = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "__tsan_init") != nil

/// A load test's count of values: `count` in the plain run (`make
/// test-swift`, part of `make release-check`), a fifth under ThreadSanitizer
/// (`make test-swift-tsan`, the Swift suite's run in `make test`), whose
/// instrumentation slows each value some tenfold and which looks for races:
/// they need the threads, not the volume.
package func loadCount(_ count: Int) -> Int {
    threadSanitizerIsActive ? count / 5 : count
}
