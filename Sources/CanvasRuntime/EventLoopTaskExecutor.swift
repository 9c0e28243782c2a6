public import NIOCore

/// Runs a task's jobs on one SwiftNIO event loop: the node's loop then shares the thread of
/// its sockets, so that an input from a socket reaches it without waking another thread
/// (the node is one thread, plus standard input and subscribers, however busy the room).
/// An app that gives the node a one-thread group can run its own tasks that talk to the
/// node on that loop too (`Task(executorPreference:)`): `canvas join` does so for what it
/// reads on standard input.
public final class EventLoopTaskExecutor: TaskExecutor {
    /// The loop the jobs run on.
    public let eventLoop: any EventLoop

    /// An executor running jobs on `eventLoop`.
    public init(_ eventLoop: any EventLoop) {
        self.eventLoop = eventLoop
    }

    /// Runs `job` on the event loop, after what is already queued there.
    public func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        // The closure keeps the executor alive until the job has run.
        eventLoop.execute { job.runSynchronously(on: self.asUnownedTaskExecutor()) }
    }
}
