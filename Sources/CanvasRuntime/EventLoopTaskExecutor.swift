import NIOCore

/// Runs a task's jobs on one SwiftNIO event loop: the node's loop then shares the thread of
/// its sockets, so that an input from a socket reaches it without waking another thread
/// (the node is one thread, plus standard input and subscribers, however busy the room).
final class EventLoopTaskExecutor: TaskExecutor {
    let eventLoop: any EventLoop

    init(_ eventLoop: any EventLoop) {
        self.eventLoop = eventLoop
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        // The closure keeps the executor alive until the job has run.
        eventLoop.execute { job.runSynchronously(on: self.asUnownedTaskExecutor()) }
    }
}
