/// How far the disposal of a container of disposables (`DisposableSet`,
/// `MetaDisposable`, `DisposableDict`) has gone; read and changed under the
/// container's lock.
///
/// The first `dispose()` marks the container disposed (what is added
/// afterwards is disposed at once). The container keeps its members until
/// every running dispose has returned, so that a dispose starting meanwhile
/// (on another thread, or called back from one of the disposals) disposes
/// them too instead of returning before they are: no call returns before
/// every member has been disposed (each member's own dispose acts once).
///
/// Thread-safety: none of its own; the container's lock guards it.
struct _ContainerDisposal {
    /// Set by the first dispose.
    private(set) var disposed = false
    /// The disposes still running.
    private var running = 0

    /// A dispose begins: returns the members it disposes (those held now).
    mutating func begin<Members>(_ members: Members) -> Members {
        self.disposed = true
        self.running += 1
        return members
    }

    /// A dispose has disposed them: the last one running takes the members
    /// out of the container and returns them, for the caller to release
    /// after unlocking; any other gets `empty`.
    mutating func end<Members>(_ members: inout Members, empty: Members) -> Members {
        self.running -= 1
        var finished = empty
        if self.running == 0 {
            swap(&finished, &members)
        }
        return finished
    }
}
