// Stream-ordered work for the CUDA runtime: each stream is a Queue whose items (launches, copies,
// fills, event records, host functions) run in issue order on a device worker thread of its own
// while the host goes on, as a GPU runs a stream asynchronously to its host. An item may also
// wait for points in other queues (an event recorded there: cudaStreamWaitEvent), and the legacy
// default stream's rule adds such waits by itself: its items wait for the blocking queues' work
// issued before them, and theirs for its. Host threads wait for points (the synchronising calls).
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <vector>

namespace cudart {

class Queue;
class WorkQueues;

/// A point in a queue's history: reached once the first `count` items issued to it have run.
struct QueuePoint {
  std::shared_ptr<Queue> queue;
  uint64_t count = 0;
  bool reached() const;
};

/// One stream's work. WorkQueues creates and runs it; a stream handle shares it.
class Queue {
public:
  /// How a queue takes part in the legacy default stream's implicit synchronisation.
  enum class Kind : uint8_t {
    Legacy,      // the legacy default stream: waits for every blocking queue, and they for it
    Blocking,    // streams made with cudaStreamDefault, and the per-thread default streams
    NonBlocking, // streams made with cudaStreamNonBlocking: no implicit synchronisation
  };
  explicit Queue(Kind kind) : kind_(kind) {}
  Queue(const Queue &) = delete;
  Queue &operator=(const Queue &) = delete;
  Kind kind() const { return kind_; }
  /// Items that have run (or were skipped) so far.
  uint64_t completed() const { return completed_.load(std::memory_order_acquire); }

private:
  friend class WorkQueues;
  struct Item {
    std::function<void()> run;
    std::vector<QueuePoint> after;
  };
  const Kind kind_;
  // Guarded by WorkQueues::mutex_ (issued_ and completed_ are also read without it, to spin).
  std::deque<Item> items_;
  std::atomic<uint64_t> issued_{0}, completed_{0};
  bool closed_ = false, started_ = false;
};

inline bool QueuePoint::reached() const { return !queue || queue->completed() >= count; }

class WorkQueues {
public:
  WorkQueues() = default;
  /// Waits for every queue's work and worker thread (the runtime never destroys its queues).
  ~WorkQueues();
  WorkQueues(const WorkQueues &) = delete;
  WorkQueues &operator=(const WorkQueues &) = delete;

  std::shared_ptr<Queue> create(Queue::Kind kind);
  /// Issues `run` to `q`: it runs on q's worker thread after everything issued to q before it,
  /// after the points `after`, and after what the legacy default stream's rule orders before
  /// it. Returns the point reached once it has run.
  QueuePoint submit(const std::shared_ptr<Queue> &q, std::function<void()> run,
                    std::vector<QueuePoint> after = {});
  /// The point after everything issued to `q` so far.
  QueuePoint tail(const std::shared_ptr<Queue> &q);
  /// The tails of every queue with work not yet run (a device-wide synchronisation's target).
  std::vector<QueuePoint> pending();
  /// Blocks the caller until every point is reached.
  void wait(const std::vector<QueuePoint> &points);
  /// wait() for at most `limit`; false when a point is still not reached then.
  bool waitFor(const std::vector<QueuePoint> &points, std::chrono::milliseconds limit);
  /// No more work comes to `q` (its stream was destroyed): its worker ends once what was
  /// issued has run, as a GPU finishes a destroyed stream's work.
  void close(const std::shared_ptr<Queue> &q);
  /// The queue whose item the calling thread is running; null on the program's own threads.
  static const Queue *current();

private:
  bool ready(const Queue::Item &item) const;
  void work(std::shared_ptr<Queue> q);

  std::mutex mutex_;
  std::condition_variable changed_; // an item ran, one was issued, or a queue closed
  std::vector<std::weak_ptr<Queue>> queues_;
  unsigned workers_ = 0;
};

} // namespace cudart
