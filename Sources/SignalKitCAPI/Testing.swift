import SignalKitHeader
import SwiftSignalKit
import SwiftSignalKitTesting

// include/signalkit_test.h: virtual-time queues (Queue.virtualTime()) and the
// marble functions of SwiftSignalKitTesting (TestScheduler, TestSignal,
// TestRecorder, Marbles), translated for C.

/// The status and message of a `VirtualTimeError`.
private func fail(_ error: VirtualTimeError, function: StaticString = #function) -> Int32 {
    switch error {
    case .advanceFromInsideWork:
        return fail(SK_ERR_UNSUPPORTED, error.description, function: function)
    case .alreadyAdvancing:
        return fail(SK_ERR_BUSY, error.description, function: function)
    case .taskLimitReached:
        return fail(SK_ERR_RESOURCE, error.description, function: function)
    case .notVirtualTime:
        return fail(SK_ERR_WRONG_KIND, "queue is not a virtual-time queue", function: function)
    case .timeInPast, .invalidTime:
        return fail(SK_ERR_INVALID_ARGUMENT, error.description, function: function)
    }
}

/// A diagram's syntax error as the last error message shows it: as
/// `MarbleSyntaxError.description` (the message and position, then the
/// diagram, then a caret under the offending character), with a long
/// diagram quoted only around the position, `...` where it is cut. The
/// last error message holds 511 bytes (Sources/SignalKitHeader/
/// last_error.c): a whole diagram of more than about 230 characters was cut
/// there, losing the caret line (and, for a late error, the character
/// itself), and a cut through a character of several bytes left invalid
/// UTF-8. A diagram of up to 160 bytes is quoted whole: with the longest
/// message and a caret as far, that is under 500 bytes. The characters
/// before the position are ASCII (the first character that is not is
/// refused, and the parser only runs on ASCII diagrams), those after it may
/// take 4 bytes each: the window keeps the quote within 150 bytes.
private func quoted(_ error: MarbleSyntaxError) -> String {
    if error.diagram.utf8.count <= 160 {
        return error.description
    }
    let characters = Array(error.diagram)
    let before = 60
    let after = 20
    let start = max(0, error.position - before)
    let end = min(characters.count, error.position + 1 + after)
    let head = start > 0 ? "..." : ""
    let tail = end < characters.count ? "..." : ""
    let window = MarbleSyntaxError.shown(String(characters[start ..< end]))
    let caret = String(repeating: " ", count: head.count + error.position - start) + "^"
    return "marble diagram: \(error.message) at position \(error.position):\n  \(head)\(window)\(tail)\n  \(caret)"
}

/// A value table's symbol (a C `char`) as a message names it: the
/// character between backquotes when it is printable ASCII, else its byte
/// (`byte 0x0A`).
private func symbolNamed(_ byte: UInt8) -> String {
    if byte >= 0x20 && byte < 0x7F {
        return "`\(Character(Unicode.Scalar(byte)))`"
    }
    let hex = String(byte, radix: 16, uppercase: true)
    return "byte 0x" + (hex.count < 2 ? "0" : "") + hex
}

/// Borrows a queue argument that must be a virtual-time queue.
private func borrowVirtualQueue(_ name: String, _ handle: OpaquePointer?, function: StaticString = #function) -> (Queue?, Int32) {
    let (queue, status) = borrowQueue(name, handle, function: function)
    guard let queue else {
        return (nil, status)
    }
    guard queue.queue.isVirtualTime else {
        return (nil, fail(SK_ERR_WRONG_KIND, "\(name) is not a virtual-time queue", function: function))
    }
    return (queue.queue, SKOK)
}

/// Runs an advance, reporting how many tasks ran (also when it failed part
/// way) and its error.
private func advance(_ queue: OpaquePointer?, _ outRan: UnsafeMutablePointer<Int>?, function: StaticString = #function, _ body: (Queue) throws(VirtualTimeError) -> Int) -> Int32 {
    outRan?.pointee = 0
    let (handle, status) = borrowVirtualQueue("queue", queue, function: function)
    guard let handle else {
        return status
    }
    do {
        let ran = try body(handle)
        outRan?.pointee = ran
        return SKOK
    } catch {
        if case let .taskLimitReached(ran) = error {
            outRan?.pointee = ran
        }
        return fail(error, function: function)
    }
}

@c @implementation
public func sk_queue_create_virtual(_ out: UnsafeMutablePointer<OpaquePointer?>?, _ name: UnsafePointer<CChar>?) -> Int32 {
    guard let out else {
        return fail(SK_ERR_NULL_ARGUMENT, "out is NULL")
    }
    out.pointee = SKQueue(Queue.virtualTime(name: name.map { String(cString: $0) })).retainedHandle(madeBy: #function)
    return SKOK
}

@c @implementation
public func sk_queue_virtual_advance_by(_ queue: OpaquePointer?, _ seconds: Double, _ outRan: UnsafeMutablePointer<Int>?) -> Int32 {
    return advance(queue, outRan) { queue throws(VirtualTimeError) in
        try queue.advance(by: seconds)
    }
}

@c @implementation
public func sk_queue_virtual_advance_to(_ queue: OpaquePointer?, _ seconds: Double, _ outRan: UnsafeMutablePointer<Int>?) -> Int32 {
    return advance(queue, outRan) { queue throws(VirtualTimeError) in
        try queue.advance(to: seconds)
    }
}

@c @implementation
public func sk_queue_virtual_run(_ queue: OpaquePointer?, _ maxTasks: Int, _ outRan: UnsafeMutablePointer<Int>?) -> Int32 {
    return advance(queue, outRan) { queue throws(VirtualTimeError) in
        // A size_t past Int.max arrives negative: as good as no limit.
        try queue.run(limit: maxTasks == 0 ? Queue.defaultVirtualTaskLimit : maxTasks < 0 ? Int.max : maxTasks)
    }
}

@c @implementation
public func sk_queue_virtual_now(_ queue: OpaquePointer?, _ outNanoseconds: UnsafeMutablePointer<Int64>?) -> Int32 {
    let (handle, status) = borrowVirtualQueue("queue", queue)
    guard let handle else {
        return status
    }
    guard let outNanoseconds else {
        return fail(SK_ERR_NULL_ARGUMENT, "out_nanoseconds is NULL")
    }
    outNanoseconds.pointee = handle.virtualNowNanoseconds ?? 0
    return SKOK
}

@c @implementation
public func sk_queue_virtual_pending(_ queue: OpaquePointer?, _ outCount: UnsafeMutablePointer<Int>?) -> Int32 {
    let (handle, status) = borrowVirtualQueue("queue", queue)
    guard let handle else {
        return status
    }
    guard let outCount else {
        return fail(SK_ERR_NULL_ARGUMENT, "out_count is NULL")
    }
    outCount.pointee = handle.pendingVirtualWork ?? 0
    return SKOK
}

/// Whether `frame` is a frame length TestScheduler keeps as given: at least
/// one nanosecond once rounded to whole ones, at most 10^9 seconds (it would
/// clamp others silently).
private func isValidFrame(_ frame: Double) -> Bool {
    return frame.isFinite && frame <= 1e9 && (frame * 1e9).rounded() >= 1
}

/// The error of a frame `isValidFrame` rejects.
private func failFrame(_ frame: Double, function: StaticString = #function) -> Int32 {
    return fail(SK_ERR_INVALID_ARGUMENT, "frame must be at least 1 ns (rounded to whole nanoseconds) and at most 1e9 s, not \(frame)", function: function)
}

/// The longest diagram sk_test_recorder_diagram prints: an event in a later
/// frame (a clock far from its 0, such as one run to a timer 292 years
/// away) would make a diagram of that many characters.
private let maxDiagramFrames = 1 << 24

/// A value table read from C: character → value (copied), and the reverse
/// for printing (the first character of a value, in table order).
private struct MarbleTable {
    let values: [Character: SKValue]
    let entries: [(Character, SKValue)]

    /// Reads `count` entries; nil with the error status for a NULL table
    /// with entries or a malformed value.
    static func read(_ values: UnsafePointer<sk_marble_value>?, _ count: Int, function: StaticString) -> (MarbleTable?, Int32) {
        if count < 0 {
            return (nil, fail(SK_ERR_INVALID_ARGUMENT, "count is larger than any array", function: function))
        }
        if count == 0 {
            return (MarbleTable(values: [:], entries: []), SKOK)
        }
        guard let values else {
            return (nil, fail(SK_ERR_NULL_ARGUMENT, "values is NULL and count is not 0", function: function))
        }
        var table: [Character: SKValue] = [:]
        var entries: [(Character, SKValue)] = []
        for index in 0 ..< count {
            let entry = values + index
            let byte = UInt8(bitPattern: entry.pointee.symbol)
            let symbol = Character(Unicode.Scalar(byte))
            guard byte < 0x80, symbol.isLetter || symbol.isNumber else {
                return (nil, fail(SK_ERR_INVALID_ARGUMENT, "values[\(index)].symbol: \(symbolNamed(byte)) is not an ASCII letter or digit", function: function))
            }
            if let first = entries.firstIndex(where: { $0.0 == symbol }) {
                return (nil, fail(SK_ERR_INVALID_ARGUMENT, "values[\(index)].symbol: `\(symbol)` is also values[\(first)].symbol", function: function))
            }
            // A shallow copy of the C struct: borrowValue retains what it keeps.
            var raw = entry.pointee.value
            let (value, status) = withUnsafePointer(to: &raw) {
                borrowValue("values[\(index)].value", $0, function: function)
            }
            guard let value else {
                return (nil, status)
            }
            table[symbol] = value
            entries.append((symbol, value))
        }
        return (MarbleTable(values: table, entries: entries), SKOK)
    }

    /// The character of `value` for printing.
    func character(of value: SKValue) -> Character? {
        if self.entries.isEmpty {
            // Without a table: a one-character string stands for itself.
            guard value.kind == SK_KIND_STRING, let string = value.object as? SKString, string.bytes.count == 1 else {
                return nil
            }
            return Character(Unicode.Scalar(string.bytes[0]))
        }
        return self.entries.first { $0.1 == value }?.0
    }
}

/// The shared body of sk_test_signal_cold and sk_test_signal_hot.
private func testSignal(_ out: UnsafeMutablePointer<OpaquePointer?>?, _ outSubscriptions: UnsafeMutablePointer<OpaquePointer?>?, _ queue: OpaquePointer?, _ frame: Double, _ diagram: UnsafePointer<CChar>?, _ values: UnsafePointer<sk_marble_value>?, _ count: Int, _ error: UnsafePointer<sk_value>?, hot: Bool, function: StaticString) -> Int32 {
    outSubscriptions?.pointee = nil
    guard let out else {
        return fail(SK_ERR_NULL_ARGUMENT, "out is NULL", function: function)
    }
    out.pointee = nil
    let (queueHandle, queueStatus) = borrowVirtualQueue("queue", queue, function: function)
    guard let queueHandle else {
        return queueStatus
    }
    guard isValidFrame(frame) else {
        return failFrame(frame, function: function)
    }
    guard let diagram else {
        return fail(SK_ERR_NULL_ARGUMENT, "diagram is NULL", function: function)
    }
    let (table, tableStatus) = MarbleTable.read(values, count, function: function)
    guard let table else {
        return tableStatus
    }
    var failure = SKValue.nil
    if let error {
        let (value, status) = borrowValue("error", error, function: function)
        guard let value else {
            return status
        }
        failure = value
    }
    let text = String(cString: diagram)
    // Only ASCII letters and digits are values; `^` (the subscription point)
    // only means something in a hot diagram. The parser would take `é` as a
    // value and `^` in a cold diagram as a frame-0 marker: refused here, with
    // the position, as the parser refuses other characters.
    func refused(_ character: Character) -> Bool {
        return !character.isASCII || (character == "^" && !hot)
    }
    func characterValues(of diagram: String) -> [Character: SKValue] {
        var characterValues = table.values
        if table.entries.isEmpty {
            for character in diagram where character.isLetter || character.isNumber {
                characterValues[character] = SKValue(string: String(character))
            }
        }
        return characterValues
    }
    if let first = text.enumerated().first(where: { refused($0.element) }) {
        let (position, character) = (first.offset, first.element)
        let refusal = !character.isASCII
            ? "\(MarbleSyntaxError.naming(character)) is not an ASCII character (values are ASCII letters and digits)"
            : "the subscription point `^` in a cold diagram (it is for hot signals)"
        // The diagram's first error is named: one the parser finds before
        // this character (in the diagram with each refused character read
        // as a value: the same up to there) comes first.
        let standIn = String(text.map { refused($0) ? "a" : $0 })
        do throws(MarbleSyntaxError) {
            _ = try Marbles.parse(standIn, values: characterValues(of: standIn), error: failure)
        } catch where error.position < position {
            return fail(SK_ERR_INVALID_ARGUMENT, quoted(MarbleSyntaxError(diagram: text, position: error.position, message: error.message)), function: function)
        } catch {
        }
        return fail(SK_ERR_INVALID_ARGUMENT, quoted(MarbleSyntaxError(diagram: text, position: position, message: refusal)), function: function)
    }
    let timeline: MarbleTimeline<SKValue, SKValue>
    do {
        timeline = try Marbles.parse(text, values: characterValues(of: text), error: failure)
    } catch {
        return fail(SK_ERR_INVALID_ARGUMENT, quoted(error), function: function)
    }
    // The queue is a virtual-time queue (checked above); a status all the
    // same rather than a trap, should the two checks ever disagree.
    guard let scheduler = try? TestScheduler(queue: queueHandle, frame: frame) else {
        return fail(SK_ERR_WRONG_KIND, "queue is not a virtual-time queue", function: function)
    }
    let last = timeline.events.map(\.time).max() ?? 0
    if Int64(last).multipliedReportingOverflow(by: scheduler.frameNanoseconds).overflow {
        return fail(SK_ERR_INVALID_ARGUMENT, "frame \(last) of the diagram is past the clock's end (2^63 ns) with frames of \(scheduler.frame) s", function: function)
    }
    // A hot diagram plays from the clock's current frame: its last event
    // must come before the clock's end too (it would be dropped unseen).
    if hot {
        let (end, overflow) = scheduler.now.addingReportingOverflow(max(0, last))
        if overflow || Int64(end).multipliedReportingOverflow(by: scheduler.frameNanoseconds).overflow {
            return fail(SK_ERR_INVALID_ARGUMENT, "frame \(last) of the diagram, played from frame \(scheduler.now) of the clock, is past the clock's end (2^63 ns) with frames of \(scheduler.frame) s", function: function)
        }
    }
    let source = hot ? scheduler.hot(timeline) : scheduler.cold(timeline)
    outSubscriptions?.pointee = SKTestSubscriptions(source).retainedHandle(madeBy: function)
    return output(out, source.signal, function: function)
}

/// An `sk_test_subscriptions` handle: the subscription log of a test signal.
final class SKTestSubscriptions: SKObject {
    let source: TestSignal<SKValue, SKValue>

    init(_ source: TestSignal<SKValue, SKValue>) {
        self.source = source
        super.init()
    }
}

/// Writes `text` into a caller's buffer as the header describes (truncated,
/// NUL-terminated, the full length through `outLength`); fails for a NULL
/// buffer with a size.
private func writeText(_ text: String, _ buffer: UnsafeMutablePointer<CChar>?, _ size: Int, _ outLength: UnsafeMutablePointer<Int>?, function: StaticString) -> Int32 {
    // A size_t past Int.max (SIZE_MAX for "large enough") arrives negative.
    let size = size < 0 ? Int.max : size
    if buffer == nil && size != 0 {
        return fail(SK_ERR_NULL_ARGUMENT, "buffer is NULL and size is not 0", function: function)
    }
    let bytes = Array(text.utf8)
    outLength?.pointee = bytes.count
    if let buffer, size > 0 {
        let written = min(bytes.count, size - 1)
        for index in 0 ..< written {
            buffer[index] = CChar(bitPattern: bytes[index])
        }
        buffer[written] = 0
    }
    return SKOK
}

@c @implementation
public func sk_test_subscriptions_text(_ subscriptions: OpaquePointer?, _ buffer: UnsafeMutablePointer<CChar>?, _ size: Int, _ outLength: UnsafeMutablePointer<Int>?) -> Int32 {
    outLength?.pointee = 0
    if let buffer, size != 0 {
        buffer.pointee = 0
    }
    let (handle, status) = borrowHandle("subscriptions", subscriptions, as: SKTestSubscriptions.self, "a subscription log")
    guard let handle else {
        return status
    }
    let text = handle.source.subscriptions.map(\.description).joined(separator: " ")
    return writeText(text, buffer, size, outLength, function: #function)
}

@c @implementation
public func sk_test_subscriptions_release(_ subscriptions: OpaquePointer?) {
    SKObject.release(subscriptions, as: SKTestSubscriptions.self, "a subscription log")
}

@c @implementation
public func sk_test_signal_cold(_ out: UnsafeMutablePointer<OpaquePointer?>?, _ outSubscriptions: UnsafeMutablePointer<OpaquePointer?>?, _ queue: OpaquePointer?, _ frame: Double, _ diagram: UnsafePointer<CChar>?, _ values: UnsafePointer<sk_marble_value>?, _ count: Int, _ error: UnsafePointer<sk_value>?) -> Int32 {
    return testSignal(out, outSubscriptions, queue, frame, diagram, values, count, error, hot: false, function: #function)
}

@c @implementation
public func sk_test_signal_hot(_ out: UnsafeMutablePointer<OpaquePointer?>?, _ outSubscriptions: UnsafeMutablePointer<OpaquePointer?>?, _ queue: OpaquePointer?, _ frame: Double, _ diagram: UnsafePointer<CChar>?, _ values: UnsafePointer<sk_marble_value>?, _ count: Int, _ error: UnsafePointer<sk_value>?) -> Int32 {
    return testSignal(out, outSubscriptions, queue, frame, diagram, values, count, error, hot: true, function: #function)
}

/// An `sk_test_recorder` handle; its last release disposes the recording.
final class SKTestRecorder: SKObject {
    let recorder: TestRecorder<SKValue, SKValue>

    init(_ recorder: TestRecorder<SKValue, SKValue>) {
        self.recorder = recorder
        super.init()
    }

    deinit {
        self.recorder.dispose()
    }
}

@c @implementation
public func sk_test_record(_ out: UnsafeMutablePointer<OpaquePointer?>?, _ signal: OpaquePointer?, _ queue: OpaquePointer?, _ frame: Double) -> Int32 {
    guard let out else {
        return fail(SK_ERR_NULL_ARGUMENT, "out is NULL")
    }
    out.pointee = nil
    let (signalHandle, signalStatus) = borrowSignal("signal", signal)
    guard let signalHandle else {
        return signalStatus
    }
    let (queueHandle, queueStatus) = borrowVirtualQueue("queue", queue)
    guard let queueHandle else {
        return queueStatus
    }
    guard isValidFrame(frame) else {
        return failFrame(frame)
    }
    // The queue is a virtual-time queue (checked above); a status all the
    // same rather than a trap, should the two checks ever disagree.
    guard let scheduler = try? TestScheduler(queue: queueHandle, frame: frame) else {
        return fail(SK_ERR_WRONG_KIND, "queue is not a virtual-time queue")
    }
    out.pointee = SKTestRecorder(scheduler.record(signalHandle.signal)).retainedHandle(madeBy: #function)
    return SKOK
}

@c @implementation
public func sk_test_recorder_diagram(_ recorder: OpaquePointer?, _ values: UnsafePointer<sk_marble_value>?, _ count: Int, _ buffer: UnsafeMutablePointer<CChar>?, _ size: Int, _ outLength: UnsafeMutablePointer<Int>?) -> Int32 {
    outLength?.pointee = 0
    if let buffer, size != 0 {
        buffer.pointee = 0
    }
    let (handle, status) = borrowHandle("recorder", recorder, as: SKTestRecorder.self, "a test recorder")
    guard let handle else {
        return status
    }
    if buffer == nil && size != 0 {
        return fail(SK_ERR_NULL_ARGUMENT, "buffer is NULL and size is not 0")
    }
    let (table, tableStatus) = MarbleTable.read(values, count, function: #function)
    guard let table else {
        return tableStatus
    }
    let timeline = handle.recorder.timeline
    if let last = timeline.events.map(\.time).max(), last >= maxDiagramFrames {
        return fail(SK_ERR_RESOURCE, "an event in frame \(last): the diagram would be longer than \(maxDiagramFrames) characters")
    }
    let diagram = Marbles.print(timeline, values: { table.character(of: $0) })
    return writeText(diagram, buffer, size, outLength, function: #function)
}

@c @implementation
public func sk_test_recorder_dispose(_ recorder: OpaquePointer?) {
    guard recorder != nil else {
        return
    }
    // Through borrowHandle: a released handle (with handle checking) or one
    // of another kind sets the last error, as the conventions promise.
    let (handle, _) = borrowHandle("recorder", recorder, as: SKTestRecorder.self, "a test recorder")
    handle?.recorder.dispose()
}

@c @implementation
public func sk_test_recorder_release(_ recorder: OpaquePointer?) {
    SKObject.release(recorder, as: SKTestRecorder.self, "a test recorder")
}
