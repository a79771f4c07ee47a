/// The state of a pipe's broadcaster (`ValuePipe`, `SignalPipe`): whether it
/// replays, and whether it has ended (its values are then dropped).
///
/// Thread-safety: guarded by the broadcaster's lock.
@usableFromInline
struct _PipeState {
    @usableFromInline let replay: Bool
    @usableFromInline var ended = false

    @inlinable
    init(replay: Bool) {
        self.replay = replay
    }

    /// What to do with a value put now.
    @inlinable
    var decision: _BroadcasterPublication {
        if self.ended {
            return .drop
        }
        return self.replay ? .cacheAndDeliver : .deliver
    }
}
