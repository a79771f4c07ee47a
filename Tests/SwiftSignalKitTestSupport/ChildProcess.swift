import XCTest
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

// Tests whose subject may stop the process (a trap the library raises on
// purpose, or a crash a fix removed) run their body in a child process: the
// test binary itself, filtered to that one test, so that the suite survives
// and the parent can look at how the child ended and what it printed.

/// How a child process ended, and what it wrote to stdout and stderr.
package struct ChildOutcome: CustomStringConvertible {
    /// The exit status when it exited; nil when a signal ended it.
    package let exitStatus: Int32?
    /// The signal that ended it; nil when it exited.
    package let signal: Int32?
    /// Its stdout and stderr, interleaved.
    package let output: String

    package var description: String {
        let end = self.signal.map { "killed by signal \($0)" } ?? "exit status \(self.exitStatus ?? -1)"
        return "child \(end); its output:\n\(self.output)"
    }
}

/// The environment variable that tells the test binary it runs as a child.
private let childVariable = "SIGNALKIT_TEST_CHILD"

/// In the child (the test binary started by `runInChildProcess`): true, and
/// an alarm is set so that a hang ends the child (SIGALRM) instead of the
/// parent's wait. In the parent: false.
package func isChildProcess() -> Bool {
    guard getenv(childVariable) != nil else {
        return false
    }
    alarm(60)
    return true
}

/// Runs the test `method` of `testCase`'s class again, alone, in a child
/// process (this test binary with `SIGNALKIT_TEST_CHILD=1`), waits for it
/// and returns how it ended. The test calls it when `isChildProcess()` is
/// false, and runs its body when true.
package func runInChildProcess(_ testCase: XCTestCase, _ method: String = #function) -> ChildOutcome {
    let name = method.hasSuffix("()") ? String(method.dropLast(2)) : method
    let filter = "\(String(reflecting: type(of: testCase)))/\(name)"
    var pipeEnds: [Int32] = [0, 0]
    precondition(pipe(&pipeEnds) == 0)
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer {
        posix_spawn_file_actions_destroy(&actions)
    }
    posix_spawn_file_actions_adddup2(&actions, pipeEnds[1], 1)
    posix_spawn_file_actions_adddup2(&actions, pipeEnds[1], 2)
    posix_spawn_file_actions_addclose(&actions, pipeEnds[0])
    posix_spawn_file_actions_addclose(&actions, pipeEnds[1])
    let arguments = [CommandLine.arguments[0], filter]
    // No backtrace from Swift's runtime on a crash: under ThreadSanitizer
    // its suspending of the threads broke TSan's runtime, which ended the
    // child with its own exit status instead of the signal. (Ahead of the
    // inherited variables: the first of a name wins.)
    var environment: [String] = ["\(childVariable)=1", "SWIFT_BACKTRACE=enable=no"]
    var entry = environ
    while let variable = entry.pointee {
        environment.append(String(cString: variable))
        entry += 1
    }
    let cArguments = arguments.map { strdup($0) } + [nil]
    let cEnvironment = environment.map { strdup($0) } + [nil]
    defer {
        cArguments.forEach { free($0) }
        cEnvironment.forEach { free($0) }
    }
    var pid = pid_t()
    let spawned = posix_spawn(&pid, arguments[0], &actions, nil, cArguments, cEnvironment)
    close(pipeEnds[1])
    precondition(spawned == 0, "posix_spawn failed: \(spawned)")
    // Read to the end (the child's exit closes its ends), then reap it.
    var bytes: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 4096)
    while true {
        let count = read(pipeEnds[0], &buffer, buffer.count)
        if count > 0 {
            bytes += buffer[0 ..< count]
        } else if count == 0 || errno != EINTR {
            break
        }
    }
    close(pipeEnds[0])
    var status: Int32 = 0
    while waitpid(pid, &status, 0) < 0 && errno == EINTR {
    }
    let output = String(decoding: bytes, as: UTF8.self)
    // The wait status's encoding (<sys/wait.h>, not importable as macros).
    let signal = status & 0x7f
    if signal == 0 {
        return ChildOutcome(exitStatus: (status >> 8) & 0xff, signal: nil, output: output)
    }
    return ChildOutcome(exitStatus: nil, signal: signal, output: output)
}
