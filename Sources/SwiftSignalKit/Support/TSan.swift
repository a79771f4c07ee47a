import _SwiftSignalKitShims

/// ThreadSanitizer annotations for the one hand-off it cannot see: a
/// delivery reads the broadcaster's subscription array through a
/// copy-on-write snapshot (`_BroadcasterSubscribers`), and the bag later
/// mutates that same buffer in place once the snapshot is gone. What orders
/// the reads before the writes is the Swift runtime's reference count (the
/// snapshot's release, then the bag's uniqueness check), and the runtime is
/// not instrumented, so TSan would report the writes as racing with reads
/// that ended before them. A reader calls `release` on the buffer when it is
/// done with it; a writer calls `acquire` on it first.
///
/// In a build without ThreadSanitizer both are one load of a constant and a
/// branch; they never change what the program does.
///
/// Thread-safety: any thread.
@usableFromInline
enum _TSan {
    /// Marks the end of this thread's reads of `buffer`.
    @inlinable
    @inline(__always)
    static func release(_ buffer: UnsafeRawPointer?) {
        if _sks_tsan_active != 0, let buffer {
            _sks_tsan_release(buffer)
        }
    }

    /// Orders this thread's next writes to `buffer` after every earlier
    /// `release` of it.
    @inlinable
    @inline(__always)
    static func acquire(_ buffer: UnsafeRawPointer?) {
        if _sks_tsan_active != 0, let buffer {
            _sks_tsan_acquire(buffer)
        }
    }
}
