#if DEBUG // debug builds only: Package.swift, the SignalKitModel target
// The reference model: what a subscriber to a `ModelSignal` sees when a
// script drives it. Single-threaded and written for obviousness, not speed:
// a subscription is a `Node` in a tree, events go up the tree by plain
// calls, and the whole rule of ending is in one place:
//
//   - a node that is dead drops every event;
//   - a node dies when it sends its terminal event or when it is disposed,
//     and a dead node's whole subtree dies with it (what it subscribed to is
//     disposed);
//   - a node started under a dead node is dead from the start (never started).
//
// A pipe or subject delivers to the live subscriptions it had when the value
// was put, in the order they subscribed. A value put into a pipe while that
// pipe is delivering (from inside a callback) waits until the delivery is
// over; a subject delivers at once. A replaying pipe gives a new subscriber
// the latest value put, at once (the pipe is delivering meanwhile); a value
// put during that replay reaches the new subscriber right after it, before
// the others get it.
//
// A `share` / `replay` connection (equal nodes of a case are one shared
// signal) is a session: its own pipe (the same delivery rules, ended by the
// upstream's terminal event) and one subscription to the upstream, which
// belongs to the session, not to the subscriber that connected it. Each
// subscriber joins the session's pipe; the last one to leave ends the
// session and disposes the upstream. An upstream that no live source holds
// any more (nothing in it a pipe or a subject still delivers to: it let go of
// its subscriber) ends the session without an event.
//
// Nothing here calls the library. Every operator is a few lines in its file
// of Operators/ (its `behave`, which calls `start` for its children), its
// semantics taken from the doc comments in Sources/SwiftSignalKit; the
// sources and the sessions of `share` / `replay` are here.

final class ReferenceModel {
    /// One subscription.
    final class Node {
        var dead = false
        var children: [Node] = []
        /// The node it was started under (nil: the root, or a session's upstream holder).
        var parent: Node?
        /// While a replaying pipe gives it its latest value: what is put meanwhile.
        var backlog: [ModelEvent]?
        /// A subscription to a pipe or a subject: it keeps its upstream alive.
        var isSource = false
        /// The session it joined, for a subscription to a `share` / `replay`.
        var session: SharedSession?
        /// How many deliveries in progress hold it (a source's snapshot).
        var held = 0
        /// While a start runs under this node, it stops (starts nothing
        /// more) once this node has ended: the subscriber that connected a
        /// shared upstream, during that upstream's start.
        var startGuard: Node?
        /// Run once when it dies (a shared signal's subscriber leaves).
        var onKill: (() -> Void)?
        /// Where its events go: the parent's handler (or the recorder).
        var sink: (ModelEvent) -> Void
        let model: ReferenceModel

        init(model: ReferenceModel, sink: @escaping (ModelEvent) -> Void) {
            self.model = model
            self.sink = sink
        }

        /// Sends an event up, unless dead; a terminal event ends this node.
        func send(_ event: ModelEvent) {
            if self.dead || !self.model.spend() {
                return
            }
            // While it runs, it is on the stack: it holds its upstream.
            self.held += 1
            defer {
                self.held -= 1
            }
            if event.isTerminal {
                self.kill()
            }
            self.sink(event)
        }

        /// Disposes this subscription and everything under it.
        func kill() {
            if self.dead {
                return
            }
            self.dead = true
            let children = self.children
            self.children = []
            for child in children {
                child.kill()
            }
            if let onKill = self.onKill {
                self.onKill = nil
                onKill()
            }
        }
    }

    /// One connection of a `share` / `replay` signal.
    final class SharedSession {
        let replayCount: Int
        /// The subscribers joined, in order.
        var subscribers: [Node] = []
        var count = 0
        var ended = false
        /// The upstream's start has not returned yet.
        var connecting = false
        /// Holds the upstream's subscription (its only child).
        let root: Node
        /// The last `replayCount` values.
        var buffer: [Int] = []
        var delivering = false
        var pending: [(ModelEvent, [Node])] = []

        init(replayCount: Int, root: Node) {
            self.replayCount = replayCount
            self.root = root
        }
    }

    /// A `share` / `replay` signal: its current session, if any.
    final class SharedConnection {
        var session: SharedSession?
    }

    /// The work budget of one run: a pipeline that loops forever (a `restart`
    /// nothing stops) exhausts it, and the case is not a valid one.
    private var fuel: Int
    private(set) var exhausted = false
    /// Subscriptions being started, one inside the other: a synchronous loop
    /// nests them without end, and the model stops it here (the stack is
    /// finite) as if the budget had run out.
    private var depth = 0
    static let maxDepth = 300
    private var pipes: [[Node]] = Array(repeating: [], count: modelPipeCount)
    private var subjects: [[Node]] = Array(repeating: [], count: modelSubjectCount)
    private var pipeLast: [Int?] = Array(repeating: nil, count: modelPipeCount)
    private var pipeDelivering: [Bool] = Array(repeating: false, count: modelPipeCount)
    /// Values put into a pipe while it was delivering, each with the
    /// subscribers the pipe had then.
    private var pipePending: [[(Int, [Node])]] = Array(repeating: [], count: modelPipeCount)
    private var subjectStarts: [Int] = Array(repeating: 0, count: modelSubjectCount)
    /// The shared signals of the case, by node.
    private var connections: [ModelSignal: SharedConnection] = [:]
    /// How many nodes have a `startGuard` set now.
    private var activeGuards = 0
    private var allNodes: [Node] = []
    private var outcome = ModelOutcome()
    private var step = -1

    /// `primed`: the replaying pipes start with a latest value (0), so that
    /// a subscription behaves as it would after any put.
    init(fuel: Int = 20_000, primed: Bool = false) {
        self.fuel = fuel
        if primed {
            for i in 0 ..< modelPipeCount where modelPipeReplays(i) {
                self.pipeLast[i] = 0
            }
        }
    }

    /// Spends one unit of work; false once the budget is exhausted.
    func spend() -> Bool {
        if self.fuel <= 0 {
            self.exhausted = true
            return false
        }
        self.fuel -= 1
        return true
    }

    /// Runs `script` against a subscription to `signal`; nil if the budget ran out.
    static func run(_ testCase: ModelCase, fuel: Int = 20_000, primed: Bool = false) -> ModelOutcome? {
        let model = ReferenceModel(fuel: fuel, primed: primed)
        let outcome = model.run(testCase.signal, testCase.script)
        model.tearDown()
        return model.exhausted ? nil : outcome
    }

    /// Lets go of every node, session and closure of the run: nodes hold the
    /// model, which holds them, and their sinks hold other nodes, so without
    /// this each run stayed in memory (about 15 KB a case; the fuzzer, which
    /// runs hundreds of thousands, grew by gigabytes).
    private func tearDown() {
        for node in self.allNodes {
            node.sink = { _ in }
            node.onKill = nil
            node.children = []
            node.parent = nil
            node.session = nil
            node.startGuard = nil
        }
        self.allNodes = []
        self.pipes = Array(repeating: [], count: modelPipeCount)
        self.subjects = Array(repeating: [], count: modelSubjectCount)
        self.pipePending = Array(repeating: [], count: modelPipeCount)
        self.connections = [:]
    }


    private func run(_ signal: ModelSignal, _ script: [ModelStep]) -> ModelOutcome {
        var root: Node?
        var disposeOnNext = false
        var putOnNext: ModelStep?
        root = self.start(signal, under: nil) { event in
            self.outcome.events.append(ModelObservation(step: self.step, event: event))
            if disposeOnNext {
                disposeOnNext = false
                root?.kill()
            }
            if let put = putOnNext {
                putOnNext = nil
                self.perform(put)
            }
        }
        self.recordSubscriptions()
        for (index, step) in script.enumerated() {
            self.step = index
            switch step {
            case .dispose:
                root?.kill()
            case .disposeOnNextEvent:
                disposeOnNext = true
            case let .putOnNextEvent(i, value):
                putOnNext = .put(i, value)
            case let .sendOnNextEvent(i, value):
                putOnNext = .send(i, value)
            default:
                self.perform(step)
            }
            self.recordSubscriptions()
        }
        // Break the cycles (node -> handler -> node) so that nothing leaks.
        for node in self.allNodes {
            node.sink = { _ in }
            node.children = []
            node.parent = nil
            node.onKill = nil
            node.session = nil
            node.startGuard = nil
        }
        self.connections = [:]
        self.allNodes = []
        root = nil
        return self.outcome
    }

    /// Puts a value into a pipe or an event into a subject.
    private func perform(_ step: ModelStep) {
        switch step {
        case let .put(i, value):
            if modelPipeReplays(i) {
                self.pipeLast[i] = value
            }
            // Subscriptions getting their replay get the value after it.
            var snapshot: [Node] = []
            for node in self.pipes[i] where !node.dead {
                if node.backlog != nil {
                    node.backlog?.append(.next(value))
                } else {
                    snapshot.append(node)
                }
            }
            if self.pipeDelivering[i] {
                self.pipePending[i].append((value, snapshot))
                return
            }
            self.pipeDelivering[i] = true
            self.deliver(snapshot, .next(value))
            self.finishDelivering(i)
            self.pipes[i].removeAll { $0.dead }
        case let .send(i, value):
            self.deliver(self.subjects[i].filter { !$0.dead }, .next(value))
            self.subjects[i].removeAll { $0.dead }
        case let .complete(i):
            self.deliver(self.subjects[i].filter { !$0.dead }, .completed)
            self.subjects[i].removeAll { $0.dead }
        case let .fail(i, error):
            self.deliver(self.subjects[i].filter { !$0.dead }, .error(error))
            self.subjects[i].removeAll { $0.dead }
        default:
            break
        }
        // The delivery no longer holds its subscribers.
        self.checkAbandoned()
    }

    /// Delivers what was put into pipe i during its delivery, then ends it.
    private func finishDelivering(_ i: Int) {
        while !self.pipePending[i].isEmpty {
            let (value, snapshot) = self.pipePending[i].removeFirst()
            self.deliver(snapshot, .next(value))
        }
        self.pipeDelivering[i] = false
    }

    /// Delivers `event` to the subscribers a source has when it is put (the
    /// ones that subscribe meanwhile get nothing); `send` skips those that
    /// have died meanwhile.
    private func deliver(_ snapshot: [Node], _ event: ModelEvent) {
        for node in snapshot {
            node.held += 1
        }
        for node in snapshot {
            node.send(event)
        }
        for node in snapshot {
            node.held -= 1
        }
    }

    private func recordSubscriptions() {
        let counts = self.pipes.map { $0.filter { !$0.dead }.count } + self.subjects.map { $0.filter { !$0.dead }.count }
        self.outcome.subscriptions.append(counts)
        self.outcome.subjectStarts.append(self.subjectStarts)
    }

    /// Subscribes to `signal` as a child of `parent`; its events go to `sink`.
    /// `created` gets the subscription before it starts.
    @discardableResult
    func start(_ signal: ModelSignal, under parent: Node?, created: (Node) -> Void = { _ in }, _ sink: @escaping (ModelEvent) -> Void) -> Node {
        let node = Node(model: self, sink: sink)
        created(node)
        self.allNodes.append(node)
        if let parent {
            if parent.dead || (self.activeGuards > 0 && self.startIsStopped(parent)) {
                node.dead = true
                return node
            }
            parent.children.removeAll { $0.dead }
            parent.children.append(node)
            node.parent = parent
        }
        if !self.spend() || self.depth >= ReferenceModel.maxDepth {
            self.exhausted = true
            node.dead = true
            return node
        }
        self.depth += 1
        node.held += 1
        self.behave(signal, node)
        node.held -= 1
        self.depth -= 1
        return node
    }

    /// Whether a start under `parent` is stopped by a guard above it (see
    /// `Node.startGuard`).
    private func startIsStopped(_ parent: Node) -> Bool {
        var current: Node? = parent
        while let node = current {
            if node.dead || node.startGuard?.dead == true {
                return true
            }
            current = node.parent
        }
        return false
    }

    /// What `node`, a subscription to `signal`, does when it starts and
    /// later: a source's here, an operator's in its file of Operators/.
    func behave(_ signal: ModelSignal, _ node: Node) {
        switch signal {
        case let .just(values):
            for value in values {
                node.send(.next(value))
            }
            node.send(.completed)

        case let .fail(values, error):
            for value in values {
                node.send(.next(value))
            }
            node.send(.error(error))

        case .never:
            break

        case let .pipe(i):
            node.isSource = true
            self.pipes[i].append(node)
            if let latest = self.pipeLast[i] {
                // The replay, then what was put meanwhile; the pipe is
                // delivering all along.
                let tookDelivery = !self.pipeDelivering[i]
                self.pipeDelivering[i] = true
                self.sendReplay([.next(latest)], to: node)
                if tookDelivery {
                    self.finishDelivering(i)
                }
            }

        case let .subject(i):
            node.isSource = true
            self.subjects[i].append(node)
            self.subjectStarts[i] += 1

        case let .operation(operation):
            operation.base.behave(self, node)
        }
    }

    /// Sends a replay (a replaying source's latest value, a session's
    /// buffer) to a new subscriber's node, then what was put meanwhile
    /// (`backlog`, filled while the replay is delivered), in order.
    private func sendReplay(_ events: [ModelEvent], to node: Node) {
        node.backlog = events
        while let backlog = node.backlog, !backlog.isEmpty {
            node.backlog = []
            for event in backlog {
                node.send(event)
            }
        }
        node.backlog = nil
    }

    /// `share` / `replay(replayCount)` (`signal` is the node, the key of its
    /// connection): the first subscriber connects (joins a new session, then
    /// starts the upstream); later ones join the running session and first
    /// get the last `replayCount` values it had (then what comes meanwhile,
    /// before the others get it: the session's pipe delivers meanwhile). The
    /// upstream's terminal event ends the session, then reaches every
    /// subscriber joined; a later subscriber connects anew.
    func behaveShared(_ signal: ModelSignal, replayCount: Int, _ source: ModelSignal, _ node: Node) {
        let connection: SharedConnection
        if let existing = self.connections[signal] {
            connection = existing
        } else {
            connection = SharedConnection()
            self.connections[signal] = connection
        }
        let session: SharedSession
        let connect: Bool
        if let running = connection.session {
            session = running
            connect = false
        } else {
            let root = Node(model: self, sink: { _ in })
            self.allNodes.append(root)
            session = SharedSession(replayCount: replayCount, root: root)
            connection.session = session
            connect = true
        }
        session.count += 1
        session.subscribers.append(node)
        node.session = session
        node.onKill = { [unowned self] in
            self.leave(connection, session)
        }
        if !session.buffer.isEmpty {
            let tookDelivery = !session.delivering
            session.delivering = true
            self.sendReplay(session.buffer.map { .next($0) }, to: node)
            if tookDelivery {
                self.finishSession(session)
            }
        }
        if connect {
            // The upstream starts after the subscriber joined; while it
            // starts, it stops once that subscriber has ended.
            session.connecting = true
            session.root.startGuard = node
            self.activeGuards += 1
            self.start(source, under: session.root) { event in
                if event.isTerminal {
                    self.endSession(connection, session)
                }
                self.sessionPut(session, event)
            }
            session.root.startGuard = nil
            self.activeGuards -= 1
            session.connecting = false
            self.checkAbandoned()
        }
    }

    /// An event of a session's upstream, into the session's pipe.
    private func sessionPut(_ session: SharedSession, _ event: ModelEvent) {
        if case let .next(value) = event, session.replayCount > 0 {
            session.buffer.append(value)
            if session.buffer.count > session.replayCount {
                session.buffer.removeFirst()
            }
        }
        var snapshot: [Node] = []
        for node in session.subscribers where !node.dead {
            if node.backlog != nil {
                node.backlog?.append(event)
            } else {
                snapshot.append(node)
            }
        }
        if session.delivering {
            session.pending.append((event, snapshot))
            return
        }
        session.delivering = true
        self.deliver(snapshot, event)
        self.finishSession(session)
        session.subscribers.removeAll { $0.dead }
    }

    private func finishSession(_ session: SharedSession) {
        while !session.pending.isEmpty {
            let (event, snapshot) = session.pending.removeFirst()
            self.deliver(snapshot, event)
        }
        session.delivering = false
    }

    /// The upstream ended: later subscribers connect anew.
    private func endSession(_ connection: SharedConnection, _ session: SharedSession) {
        session.ended = true
        if connection.session === session {
            connection.session = nil
        }
    }

    /// A subscriber left (disposed or ended): the last one disconnects.
    private func leave(_ connection: SharedConnection, _ session: SharedSession) {
        session.count -= 1
        if session.count == 0 {
            self.endSession(connection, session)
            session.root.kill()
        }
    }

    /// Whether something under `node` keeps it alive: a live subscription
    /// to a pipe or a subject, one that a delivery holds, or one to a shared
    /// signal whose session is kept alive.
    private func holds(_ node: Node) -> Bool {
        for child in node.children {
            if child.held > 0 {
                return true
            }
            if child.dead {
                continue
            }
            if child.isSource {
                return true
            }
            if let session = child.session, !session.ended, session.connecting || self.holds(session.root) {
                return true
            }
            if self.holds(child) {
                return true
            }
        }
        return false
    }

    /// Ends, without an event, every session whose upstream let go of it.
    private func checkAbandoned() {
        if self.connections.isEmpty {
            return
        }
        var changed = true
        while changed {
            changed = false
            for connection in self.connections.values {
                guard let session = connection.session, !session.ended, !session.connecting, !self.holds(session.root) else {
                    continue
                }
                self.endSession(connection, session)
                session.root.kill()
                for node in session.subscribers where !node.dead {
                    node.kill()
                }
                changed = true
            }
        }
    }
}
#endif
