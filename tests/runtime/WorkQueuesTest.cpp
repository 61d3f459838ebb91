// The stream work queues of the CUDA runtime (runtime/cudart/WorkQueues.h): order within a
// queue, asynchrony to the issuing thread, waits across queues, the legacy default stream's
// implicit synchronisation with blocking (and not non-blocking) queues, closing, and timeouts.
#include "runtime/cudart/WorkQueues.h"

#include <gtest/gtest.h>

#include <atomic>
#include <future>
#include <mutex>
#include <thread>
#include <vector>

using namespace cudart;
using namespace std::chrono_literals;

namespace {

/// An item that blocks its queue until the test opens it.
class Gate {
public:
  std::function<void()> item() {
    return [this] { opened_.wait(); };
  }
  void open() { promise_.set_value(); }

private:
  std::promise<void> promise_;
  std::shared_future<void> opened_ = promise_.get_future().share();
};

/// The order items ran in, across queues.
class Log {
public:
  std::function<void()> item(int id) {
    return [this, id] {
      std::lock_guard lock(mutex_);
      order_.push_back(id);
    };
  }
  std::vector<int> order() {
    std::lock_guard lock(mutex_);
    return order_;
  }

private:
  std::mutex mutex_;
  std::vector<int> order_;
};

TEST(WorkQueues, ItemsOfOneQueueRunInIssueOrderOnItsOwnThread) {
  WorkQueues work;
  auto q = work.create(Queue::Kind::NonBlocking);
  Log log;
  std::atomic<const Queue *> seen{nullptr};
  std::atomic<bool> otherThread{false};
  const auto host = std::this_thread::get_id();
  work.submit(q, [&] {
    seen = WorkQueues::current();
    otherThread = std::this_thread::get_id() != host;
  });
  for (int i = 0; i < 100; ++i) work.submit(q, log.item(i));
  work.wait({work.tail(q)});
  std::vector<int> expected(100);
  for (int i = 0; i < 100; ++i) expected[i] = i;
  EXPECT_EQ(log.order(), expected);
  EXPECT_EQ(seen.load(), q.get());
  EXPECT_TRUE(otherThread.load());
  EXPECT_EQ(WorkQueues::current(), nullptr); // the test's own thread runs no queue
  EXPECT_EQ(q->completed(), 101u);
}

TEST(WorkQueues, SubmitReturnsBeforeTheItemRuns) {
  WorkQueues work;
  auto q = work.create(Queue::Kind::Blocking);
  Gate gate;
  std::atomic<bool> after{false};
  QueuePoint blocked = work.submit(q, gate.item());
  QueuePoint next = work.submit(q, [&] { after = true; });
  EXPECT_FALSE(blocked.reached());
  EXPECT_FALSE(work.waitFor({next}, 20ms));
  EXPECT_FALSE(after.load());
  EXPECT_EQ(work.pending().size(), 1u);
  gate.open();
  work.wait({next});
  EXPECT_TRUE(after.load());
  EXPECT_TRUE(work.pending().empty());
}

TEST(WorkQueues, AnItemWaitsForThePointsItIsGiven) {
  WorkQueues work;
  auto producer = work.create(Queue::Kind::NonBlocking), consumer = work.create(Queue::Kind::NonBlocking);
  Gate gate;
  Log log;
  work.submit(producer, gate.item());
  QueuePoint produced = work.submit(producer, log.item(1));
  QueuePoint consumed = work.submit(consumer, log.item(2), {produced});
  // A point already reached orders nothing.
  QueuePoint free = work.submit(consumer, log.item(3), {QueuePoint{}});
  EXPECT_FALSE(work.waitFor({consumed}, 20ms));
  gate.open();
  work.wait({consumed, free});
  EXPECT_EQ(log.order(), (std::vector<int>{1, 2, 3}));
}

TEST(WorkQueues, TheLegacyQueueWaitsForBlockingQueuesAndTheyForIt) {
  WorkQueues work;
  auto legacy = work.create(Queue::Kind::Legacy);
  auto blocking = work.create(Queue::Kind::Blocking), nonBlocking = work.create(Queue::Kind::NonBlocking);
  Gate gate;
  Log log;
  work.submit(blocking, gate.item());
  work.submit(blocking, log.item(1));
  // Issued to the legacy queue after the blocking queue's work: waits for it.
  QueuePoint legacyDone = work.submit(legacy, log.item(2));
  // A non-blocking queue is not ordered after the legacy queue's work.
  QueuePoint free = work.submit(nonBlocking, log.item(3));
  work.wait({free});
  EXPECT_FALSE(legacyDone.reached());
  // Issued to the blocking queue after the legacy work: waits for it.
  QueuePoint later = work.submit(blocking, log.item(4));
  gate.open();
  work.wait({later, legacyDone});
  EXPECT_EQ(log.order(), (std::vector<int>{3, 1, 2, 4}));
}

TEST(WorkQueues, LegacyWorkIssuedBeforeABlockingQueuesWorkOrdersIt) {
  WorkQueues work;
  auto legacy = work.create(Queue::Kind::Legacy);
  auto blocking = work.create(Queue::Kind::Blocking), nonBlocking = work.create(Queue::Kind::NonBlocking);
  Gate gate;
  Log log;
  work.submit(legacy, gate.item());
  QueuePoint waits = work.submit(blocking, log.item(1));
  QueuePoint runs = work.submit(nonBlocking, log.item(2));
  work.wait({runs});
  EXPECT_FALSE(work.waitFor({waits}, 20ms));
  gate.open();
  work.wait({waits});
  EXPECT_EQ(log.order(), (std::vector<int>{2, 1}));
}

TEST(WorkQueues, AClosedQueueRunsWhatWasIssuedThenItsWorkerEnds) {
  Log log;
  QueuePoint last;
  {
    WorkQueues work;
    auto q = work.create(Queue::Kind::Blocking);
    Gate gate;
    work.submit(q, gate.item());
    last = work.submit(q, log.item(7));
    work.close(q);
    q.reset(); // the stream handle is gone; the queue lives while it has work
    EXPECT_FALSE(last.reached());
    gate.open();
    work.wait({last});
  } // the destructor waits for the worker to end
  EXPECT_EQ(log.order(), (std::vector<int>{7}));
}

TEST(WorkQueues, ManyHostThreadsIssueConcurrently) {
  WorkQueues work;
  auto legacy = work.create(Queue::Kind::Legacy);
  std::atomic<int> ran{0};
  std::vector<std::thread> hosts;
  for (int t = 0; t < 4; ++t)
    hosts.emplace_back([&] {
      auto own = work.create(Queue::Kind::Blocking);
      for (int i = 0; i < 200; ++i) {
        work.submit(i % 3 ? own : legacy, [&] { ++ran; });
        if (i % 50 == 0) work.wait(work.pending());
      }
      work.wait({work.tail(own)});
    });
  for (std::thread &h : hosts) h.join();
  work.wait(work.pending());
  EXPECT_EQ(ran.load(), 800);
}

} // namespace
