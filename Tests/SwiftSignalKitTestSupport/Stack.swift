import Dispatch
import XCTest

// Stack tests: a loop of synchronous steps (a restart of a source that ends
// at once, a queue of signals that end during their start, a pipe's nested
// puts) must run flat, each step on the same stack depth as the last.

/// Runs `body` on a new thread with a stack of 512 KiB (a dispatch worker's)
/// and waits for it to return; fails the test when it has not after
/// `timeout` seconds. A stack test runs its loop of `loadCount(100_000)`
/// steps there (20,000 under ThreadSanitizer): a loop whose steps nested
/// would overflow that stack (the test crashes) once each step took 27 bytes
/// of it, where a step that nests takes at least two calls' frames. On the
/// main thread's 8 MiB, the 100,000 steps these tests ran there before
/// overflowed only at 84 bytes a step, and cost the ThreadSanitizer run a
/// minute of its time.
package func onSmallStack(timeout: Double = 120, file: StaticString = #filePath, line: UInt = #line, _ body: @escaping () -> Void) {
    let done = DispatchSemaphore(value: 0)
    startDetachedThread(stackSize: 512 * 1024) {
        body()
        done.signal()
    }
    if done.wait(timeout: .now() + timeout) == .timedOut {
        XCTFail("the body run on a small stack has not returned after \(timeout) s", file: file, line: line)
    }
}
