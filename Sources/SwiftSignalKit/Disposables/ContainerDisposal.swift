import Synchronization
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

/// A container whose dispose's end (see `_ContainerDisposal.end`) may be
/// put off (`_ContainerDisposal.withFrame`).
protocol _EndingContainer: AnyObject {
    /// Ends a dispose: the last one running lets go of the members.
    func endDispose()
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
    /// its own on this thread's list; returns whether the caller ends its
    /// dispose now (`endDispose`). Not when `body` put off the dispose of a
    /// member nested deeper (see `_NestedDisposal`) that is still to run:
    /// then the end is put off too, until the put-off disposes have run, so
    /// that the container keeps its members, and a dispose of it on another
    /// thread still disposes them, until they are disposed.
    @inline(__always)
    static func withFrame(of container: some _EndingContainer, _ body: (UnsafeMutablePointer<_DisposeFrame>) -> Void) -> Bool {
        let identity = UnsafeRawPointer(Unmanaged.passUnretained(container).toOpaque())
        var frame = _DisposeFrame(container: identity, member: nil, enclosing: _sks_dispose_frames())
        let putOff = _sks_put_off_disposals()
        withUnsafeMutablePointer(to: &frame) { pointer in
            _sks_set_dispose_frames(pointer)
            body(pointer)
            _sks_set_dispose_frames(pointer.pointee.enclosing)
        }
        if _sks_put_off_disposals() != putOff {
            return _NestedDisposal.finish(outermost: frame.enclosing == nil, container)
        }
        return true
    }

    /// Disposes `member`, unless two disposes of the same container further
    /// up this thread's stack are already disposing it (see above).
    static func disposeMember(_ member: any Disposable, in frame: UnsafeMutablePointer<_DisposeFrame>) {
        let identity = UnsafeRawPointer(Unmanaged.passUnretained(member as AnyObject).toOpaque())
        let container = frame.pointee.container
        var running = 0
        var depth = 1
        var enclosing = frame.pointee.enclosing
        while let current = enclosing {
            let outer = current.assumingMemoryBound(to: _DisposeFrame.self)
            if outer.pointee.container == container && outer.pointee.member == identity {
                running += 1
                if running == 2 {
                    return
                }
            }
            depth += 1
            enclosing = outer.pointee.enclosing
        }
        if _sks_nested_disposal() != nil && _NestedDisposal.isEnding(member) {
            return
        }
        if depth >= _NestedDisposal.inlineBudget {
            _NestedDisposal.putOff(member)
            return
        }
        frame.pointee.member = identity
        member.dispose()
        frame.pointee.member = nil
    }
}

/// Containers nested in containers, as deep as the user likes (a meta
/// disposable holding a set holding a meta disposable...): each level was
/// disposed from inside the dispose of the level above, and released from
/// inside the release of the level above, so that 300 levels overflowed a
/// 64 KB thread stack and 100,000 an 8 MB one (a walk of every frame per
/// member made the dispose quadratic too). So only `inlineBudget` levels
/// nest on a thread's stack; a deeper member's dispose (or release) is put
/// off to this thread's list, which the thread's outermost container
/// dispose (or the release that made the list) works through, one member
/// at a time, before it returns. A container nested that deep may thus
/// return from its dispose before its members are disposed; the outermost
/// dispose never does. The containers whose disposes were under a put-off
/// one end after it (`withFrame`): until then each keeps its members, so
/// that a second dispose of it (on another thread, say) disposes them too
/// instead of returning before they are disposed.
///
/// - Complexity: O(1) amortized per container nested, at any depth (each
///   put-off dispose, end and release is taken from its list in O(1)).
///
/// Thread-safety: reached through a thread-local, touched only by its
/// thread.
final class _NestedDisposal {
    /// How many container disposes (frames), or container releases, nest on
    /// a thread before deeper ones are put off.
    static let inlineBudget = 32

    /// Members whose dispose was put off (`disposeMember`).
    private var disposals: [any Disposable] = []
    /// The containers whose disposes' ends were put off (`withFrame`), in
    /// the order they were put off; the first not yet ended is at `endsHead`
    /// (those before it are nil). Taken by index: taking the first of an
    /// array moves all the others, which made disposing N nested
    /// containers take time in N squared.
    private var ends: [(any _EndingContainer)?] = []
    private var endsHead = 0
    /// Those containers, and the outermost one working through the list:
    /// their disposes are under way on this thread, and a container holding
    /// itself reaches them again from a put-off dispose, whose frames do not
    /// show the dispose further up (see `disposeMember`, which skips them:
    /// disposing their members again would put off the same disposes again,
    /// without end). The dispose under way disposes their members.
    private var ending: Set<ObjectIdentifier> = []
    /// What released containers held (`releaseMembers`).
    private var releases: [any Disposable] = []
    private var draining = false

    /// Items every thread's list has taken (put-off disposes, ends,
    /// releases) plus the other items the lists moved to take them: the
    /// work of `drain`, which tests count to check that it grows linearly
    /// with the nesting (see `NestedDisposalTests`). Not API.
    static let workDone = Synchronization.Atomic<Int>(0)
    /// This list's share of `workDone`, added when the drain ends.
    private var work = 0

    /// The thread's list (retained by the slot), or nil.
    private static var current: _NestedDisposal? {
        guard let list = _sks_nested_disposal() else {
            return nil
        }
        return Unmanaged<_NestedDisposal>.fromOpaque(list).takeUnretainedValue()
    }

    /// The thread's list, installed if it has none.
    private static func installed() -> _NestedDisposal {
        if let current = self.current {
            return current
        }
        let list = _NestedDisposal()
        _sks_set_nested_disposal(Unmanaged.passRetained(list).toOpaque())
        return list
    }

    /// Puts off `member`'s dispose: the thread's outermost container dispose
    /// runs it (see `withFrame`).
    static func putOff(_ member: any Disposable) {
        self.installed().disposals.append(member)
        _sks_set_put_off_disposals(_sks_put_off_disposals() &+ 1)
    }

    /// A container dispose under which disposes were put off is over: the
    /// outermost dispose on the thread works through the list and returns
    /// true (it ends now); any other's end is put off after them (false).
    @inline(never)
    static func finish(outermost: Bool, _ container: any _EndingContainer) -> Bool {
        let list = self.installed()
        if outermost && !list.draining {
            list.ending.insert(ObjectIdentifier(container))
            self.drain()
            return true
        }
        list.ends.append(container)
        list.ending.insert(ObjectIdentifier(container))
        return false
    }

    /// Whether `member` is a container whose dispose on this thread waits
    /// for the list (see `ending`).
    static func isEnding(_ member: any Disposable) -> Bool {
        guard let list = self.current, !list.ending.isEmpty else {
            return false
        }
        return list.ending.contains(ObjectIdentifier(member as AnyObject))
    }

    /// Releases what a container held: in place (`drop`, which takes the
    /// members out of the container) while container releases nest at most
    /// `inlineBudget` deep on this thread; deeper, `members` (the same, as a
    /// list) go to the thread's list, which the release that made it works
    /// through before it returns. Called by the containers' deinits.
    @inline(__always)
    static func releaseMembers(_ drop: () -> Void, _ members: () -> [any Disposable]) {
        let depth = _sks_container_release_depth()
        if depth < self.inlineBudget {
            _sks_set_container_release_depth(depth + 1)
            drop()
            _sks_set_container_release_depth(depth)
            return
        }
        var list = members()
        drop()
        self.putOffRelease(&list)
    }

    /// Moves `members` (whose container no longer holds them) to the list,
    /// and works through it if it was made here.
    @inline(never)
    private static func putOffRelease(_ members: inout [any Disposable]) {
        let made = _sks_nested_disposal() == nil
        self.installed().releases.append(contentsOf: members)
        members = []
        if made {
            self.drain()
        }
    }

    /// Disposes and releases what the thread's list holds, and what those
    /// put off in turn, one at a time; then removes the list. Does nothing
    /// when the list is already being worked through further up the stack.
    @inline(never)
    static func drain() {
        guard let list = self.current, !list.draining else {
            return
        }
        list.draining = true
        while true {
            // Each member is disposed, then released, at the end of its
            // block, once the list's arrays are no longer being accessed:
            // what it puts off goes to this list.
            list.work += 1
            if !list.disposals.isEmpty {
                let member = list.disposals.removeLast()
                member.dispose()
                continue
            }
            // The ends once every put-off dispose has run, in the order
            // they were put off (any order would do: an end only lets go
            // of the members). An end may put off more (a member's deinit
            // may dispose): they go after the others.
            if list.endsHead < list.ends.count {
                // Not nil: only the slots before `endsHead` are.
                let container = list.ends[list.endsHead].take().unsafelyUnwrapped
                list.endsHead += 1
                if list.endsHead == list.ends.count {
                    list.ends.removeAll(keepingCapacity: true)
                    list.endsHead = 0
                }
                list.ending.remove(ObjectIdentifier(container))
                container.endDispose()
                continue
            }
            if !list.releases.isEmpty {
                let member = list.releases.removeLast()
                withExtendedLifetime(member) {
                }
                continue
            }
            list.work -= 1
            break
        }
        Self.workDone.wrappingAdd(list.work, ordering: .relaxed)
        _sks_set_nested_disposal(nil)
        Unmanaged.passUnretained(list).release()
    }
}
