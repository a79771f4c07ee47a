import _SwiftSignalKitShims

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
/// A container may hold itself, directly or through other containers or
/// disposables (a set added to itself, two sets holding each other): its
/// dispose then reaches itself again on the same thread, and each such
/// dispose disposing the members again would never end. A dispose called
/// back from a member's disposal (an action that disposes its set, or its
/// set's meta disposable) must still dispose the members before it returns.
/// So each dispose goes through its members with `disposeMember`, which
/// disposes a member again from a dispose called back, but not a second
/// time: a member that two disposes of the same container further up this
/// thread's stack are already disposing is skipped (only a container that
/// holds itself gets there; the dispose further up finishes it). Each pair
/// of container and member is then on the stack at most twice.
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

/// One dispose of a container running on this thread: the container and
/// the member it is disposing (identities only). The frames of a thread form
/// a list, innermost first, from a thread-local head in the shims; each lives
/// on the stack of the dispose it stands for.
struct _DisposeFrame {
    let container: UnsafeRawPointer
    var member: UnsafeRawPointer?
    let enclosing: UnsafeMutableRawPointer?
}

extension _ContainerDisposal {
    /// Runs `body` (`container`'s disposal of its members) with a frame of
    /// its own on this thread's list.
    @inline(__always)
    static func withFrame(of container: AnyObject, _ body: (UnsafeMutablePointer<_DisposeFrame>) -> Void) {
        let identity = UnsafeRawPointer(Unmanaged.passUnretained(container).toOpaque())
        var frame = _DisposeFrame(container: identity, member: nil, enclosing: _sks_dispose_frames())
        withUnsafeMutablePointer(to: &frame) { pointer in
            _sks_set_dispose_frames(pointer)
            body(pointer)
            _sks_set_dispose_frames(pointer.pointee.enclosing)
        }
    }

    /// Disposes `member`, unless two disposes of the same container further
    /// up this thread's stack are already disposing it (see above).
    static func disposeMember(_ member: any Disposable, in frame: UnsafeMutablePointer<_DisposeFrame>) {
        let identity = UnsafeRawPointer(Unmanaged.passUnretained(member as AnyObject).toOpaque())
        let container = frame.pointee.container
        var running = 0
        var enclosing = frame.pointee.enclosing
        while let current = enclosing {
            let outer = current.assumingMemoryBound(to: _DisposeFrame.self)
            if outer.pointee.container == container && outer.pointee.member == identity {
                running += 1
                if running == 2 {
                    return
                }
            }
            enclosing = outer.pointee.enclosing
        }
        frame.pointee.member = identity
        member.dispose()
        frame.pointee.member = nil
    }
}
