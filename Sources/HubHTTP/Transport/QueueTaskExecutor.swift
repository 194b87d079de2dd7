import Dispatch

/// A task executor over a serial I/O queue: a request's responder task prefers it, so a request
/// that does not hop elsewhere (to an actor or another executor) is parsed, answered and written
/// on one thread, without crossing to the cooperative pool and back.
final class QueueTaskExecutor: TaskExecutor {
    let queue: DispatchQueue

    init(queue: DispatchQueue) {
        self.queue = queue
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        queue.async { job.runSynchronously(on: self.asUnownedTaskExecutor()) }
    }
}
