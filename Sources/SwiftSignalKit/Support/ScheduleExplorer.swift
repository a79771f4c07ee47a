import _SwiftSignalKitShims

// The schedule explorer: a test build of the core (`make explore-core`,
// compiled with SIGNALKIT_EXPLORE for Swift and SKS_EXPLORE for the C shim)
// in which every point where the core hands something to another thread
// may let other threads run first, chosen by a seeded generator per thread
// (`_sks_explore` in the shim; the seed is SIGNALKIT_EXPLORE_SEED, printed
// once). In the spirit of loom and shuttle (Rust) or jcstress (Java): a
// lifetime race that needs one unlucky order is reached in seconds instead
// of hours, and the sanitizers cannot see such races at all when atomic
// reference counts order every access (issue 50). In every other build the
// hooks below are empty and inlined: they cost nothing.
//
// The points (`_ScheduleSite`): the call windows of `_InFlightCalls` (a
// call about to start, a call just returned), a terminal event claimed,
// the mutex given back, a queue hop, and the C layer's array handoff. The
// spin lock perturbs its own unlock, inline and with loads only (see
// `_SpinLock.exploreAfterUnlock`: a call there would change the code the
// optimizer makes around the lock). And some windows no point marks, as
// the few instructions between a store that publishes and a retain the
// optimizer placed after it (issue 50's crash): the shim's preemption
// injection stops the library's threads wherever they are, some thousands
// of times a second (`_sks_explore` in shims.c). How much sooner this finds
// such a bug than the plain build: `make explore-measure`.

/// The points where the schedule explorer may perturb the schedule.
@usableFromInline
package enum _ScheduleSite: Int32 {
    case spinUnlock = 0
    case callEntered = 1
    case callLeaving = 2
    case mutexUnlocked = 3
    case terminating = 4
    case queueHop = 5
    case arrayHandoff = 6
}

#if SIGNALKIT_EXPLORE
/// Lets other threads run first, sometimes (an explorer build).
@inlinable @inline(__always)
package func _explore(_ site: _ScheduleSite) {
    _sks_explore(site.rawValue)
}
#else
/// Nothing: not an explorer build.
@inlinable @inline(__always)
package func _explore(_ site: _ScheduleSite) {
}
#endif
