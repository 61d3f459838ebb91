// Queues of stream-ordered work, each run by a worker thread of its own (WorkQueues.h).
#include "runtime/cudart/WorkQueues.h"

#include <algorithm>
#include <cstdio>
#include <exception>
#include <thread>

namespace cudart {

namespace {

thread_local const Queue *t_current = nullptr;

/// Spins for up to 50 microseconds until `ready` holds: the next launch of a
/// loop, or the end of a short one, usually comes sooner than a sleeping
/// thread wakes up. Callers check their condition again under the lock.
template <class F> bool spinBriefly(F ready) {
  const auto until = std::chrono::steady_clock::now() + std::chrono::microseconds(50);
  while (!ready()) {
    for (int i = 0; i < 64 && !ready(); ++i) std::atomic_signal_fence(std::memory_order_seq_cst);
    if (std::chrono::steady_clock::now() > until) return ready();
  }
  return true;
}

bool allReached(const std::vector<QueuePoint> &points) {
  return std::all_of(points.begin(), points.end(), [](const QueuePoint &p) { return p.reached(); });
}

} // namespace

WorkQueues::~WorkQueues() {
  std::unique_lock lock(mutex_);
  for (const std::weak_ptr<Queue> &w : queues_)
    if (std::shared_ptr<Queue> q = w.lock()) q->closed_ = true;
  changed_.notify_all();
  changed_.wait(lock, [this] { return workers_ == 0; });
}

std::shared_ptr<Queue> WorkQueues::create(Queue::Kind kind) {
  auto q = std::make_shared<Queue>(kind);
  std::lock_guard lock(mutex_);
  std::erase_if(queues_, [](const std::weak_ptr<Queue> &w) { return w.expired(); });
  queues_.push_back(q);
  return q;
}

QueuePoint WorkQueues::submit(const std::shared_ptr<Queue> &q, std::function<void()> run,
                              std::vector<QueuePoint> after) {
  std::unique_lock lock(mutex_);
  // The legacy default stream's rule: its work waits for what the blocking
  // queues were given before, and theirs for what it was given before.
  for (const std::weak_ptr<Queue> &w : queues_) {
    std::shared_ptr<Queue> other = w.lock();
    if (!other || other == q) continue;
    const bool orders = q->kind_ == Queue::Kind::Legacy     ? other->kind_ == Queue::Kind::Blocking
                        : q->kind_ == Queue::Kind::Blocking ? other->kind_ == Queue::Kind::Legacy
                                                            : false;
    if (orders) after.push_back({other, other->issued_.load(std::memory_order_relaxed)});
  }
  std::erase_if(after, [](const QueuePoint &p) { return p.reached(); });
  q->items_.push_back({std::move(run), std::move(after)});
  const uint64_t count = q->issued_.fetch_add(1, std::memory_order_release) + 1;
  if (!q->started_) {
    q->started_ = true;
    ++workers_;
    // Detached: a worker ends when its queue is closed and empty; at exit,
    // work still queued or running is abandoned, as on a GPU.
    std::thread([this, q] { work(q); }).detach();
  }
  changed_.notify_all();
  return {q, count};
}

QueuePoint WorkQueues::tail(const std::shared_ptr<Queue> &q) {
  return {q, q->issued_.load(std::memory_order_acquire)};
}

std::vector<QueuePoint> WorkQueues::pending() {
  std::lock_guard lock(mutex_);
  std::vector<QueuePoint> points;
  for (const std::weak_ptr<Queue> &w : queues_)
    if (std::shared_ptr<Queue> q = w.lock()) {
      QueuePoint p{q, q->issued_.load(std::memory_order_relaxed)};
      if (!p.reached()) points.push_back(std::move(p));
    }
  return points;
}

void WorkQueues::wait(const std::vector<QueuePoint> &points) {
  if (spinBriefly([&] { return allReached(points); })) return;
  std::unique_lock lock(mutex_);
  changed_.wait(lock, [&] { return allReached(points); });
}

bool WorkQueues::waitFor(const std::vector<QueuePoint> &points, std::chrono::milliseconds limit) {
  std::unique_lock lock(mutex_);
  return changed_.wait_for(lock, limit, [&] { return allReached(points); });
}

void WorkQueues::close(const std::shared_ptr<Queue> &q) {
  std::lock_guard lock(mutex_);
  q->closed_ = true;
  changed_.notify_all();
}

const Queue *WorkQueues::current() { return t_current; }

bool WorkQueues::ready(const Queue::Item &item) const { return allReached(item.after); }

void WorkQueues::work(std::shared_ptr<Queue> q) {
  t_current = q.get();
  std::unique_lock lock(mutex_);
  for (;;) {
    if (q->items_.empty() && !q->closed_) {
      // The host often issues the next item at once (a loop of launches).
      const uint64_t seen = q->completed_.load(std::memory_order_relaxed);
      lock.unlock();
      spinBriefly([&] { return q->issued_.load(std::memory_order_acquire) != seen; });
      lock.lock();
    }
    // A closed queue's work still runs; its worker ends once none is left.
    changed_.wait(lock, [&] { return q->items_.empty() ? q->closed_ : ready(q->items_.front()); });
    if (q->items_.empty()) break;
    std::function<void()> run = std::move(q->items_.front().run);
    q->items_.pop_front();
    lock.unlock();
    try {
      run();
    } catch (const std::exception &e) {
      std::fprintf(stderr, "ptxvm: stream work failed: %s\n", e.what());
    }
    run = nullptr; // what it captured goes before the item counts as done
    lock.lock();
    q->completed_.fetch_add(1, std::memory_order_release);
    changed_.notify_all();
  }
  --workers_;
  changed_.notify_all();
}

} // namespace cudart
