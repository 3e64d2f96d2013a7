// SessionSlotQueue: slots, the FIFO line, its bound, its time limit, cancellation, shutdown.
#include <doctest/doctest.h>

#include <atomic>
#include <chrono>
#include <mutex>
#include <thread>
#include <vector>

#include "session_errors.hpp"
#include "session_slot_queue.hpp"

namespace kg::session {
namespace {

using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

SlotQueueLimits limits(std::uint32_t slots, std::uint32_t waiting,
                       std::chrono::milliseconds timeout = 10s) {
  return SlotQueueLimits{slots, waiting, timeout};
}

// Waits (briefly) until `queue` has `n` callers in line.
void wait_for_line(SessionSlotQueue& queue, std::size_t n) {
  const auto deadline = Clock::now() + 5s;
  while (queue.waiting() != n && Clock::now() < deadline) std::this_thread::sleep_for(1ms);
  REQUIRE(queue.waiting() == n);
}

template <typename Error>
std::string message_of(SessionSlotQueue& queue, const std::string& id, const SlotWait& wait = {}) {
  try {
    queue.acquire(id, wait);
  } catch (const Error& e) {
    return e.what();
  }
  FAIL("acquire did not throw the expected error");
  return {};
}

TEST_CASE("free slots are taken at once; the next caller waits for a release") {
  SessionSlotQueue queue(limits(2, 4));
  CHECK(queue.acquire("a", {}) == 0);
  CHECK(queue.acquire("b", {}) == 0);
  CHECK(queue.holding() == 2);
  std::atomic<std::uint64_t> waited{0};
  std::thread third([&] { waited = queue.acquire("c", {}); });
  wait_for_line(queue, 1);
  std::this_thread::sleep_for(150ms);
  queue.release();
  third.join();
  CHECK(waited >= 150);
  CHECK(waited < 5000);
  CHECK(queue.holding() == 2);
  CHECK(queue.waiting() == 0);
}

TEST_CASE("callers take freed slots in the order they came") {
  SessionSlotQueue queue(limits(1, 8));
  queue.acquire("holder", {});
  std::mutex mutex;
  std::vector<std::string> order;
  std::vector<std::thread> callers;
  for (const std::string id : {"first", "second", "third"}) {
    callers.emplace_back([&, id] {
      queue.acquire(id, {});
      std::lock_guard lock(mutex);
      order.push_back(id);
    });
    wait_for_line(queue, callers.size());
  }
  for (int i = 0; i < 3; ++i) {
    queue.release();
    const auto deadline = Clock::now() + 5s;
    while (Clock::now() < deadline) {
      {
        std::lock_guard lock(mutex);
        if (order.size() == static_cast<std::size_t>(i + 1)) break;
      }
      std::this_thread::sleep_for(1ms);
    }
  }
  for (auto& caller : callers) caller.join();
  CHECK(order == std::vector<std::string>{"first", "second", "third"});
}

TEST_CASE("the caller learns how many hold a slot and wait ahead of it") {
  SessionSlotQueue queue(limits(1, 8));
  queue.acquire("holder", {});
  std::thread first([&] { queue.acquire("first", {}); });
  wait_for_line(queue, 1);
  std::size_t holding = 99, ahead = 99;
  SlotWait wait;
  wait.on_queued = [&](std::size_t h, std::size_t a) {
    holding = h;
    ahead = a;
  };
  std::thread second([&] { queue.acquire("second", wait); });
  wait_for_line(queue, 2);
  CHECK(holding == 1);
  CHECK(ahead == 1);
  queue.release();  // the holder's slot goes to the first
  wait_for_line(queue, 1);
  queue.release();  // the first's to the second
  first.join();
  second.join();
}

TEST_CASE("a full line refuses at once and says which keys to raise") {
  SessionSlotQueue none_may_wait(limits(1, 0));
  none_may_wait.acquire("holder", {});
  const auto started = Clock::now();
  CHECK(message_of<QueueFullError>(none_may_wait, "x") ==
        "No session slot is free and the wait queue is full: 1 of 1 sessions are open "
        "([daemon] max_sessions) and 0 callers wait for one (at most 0, [daemon] max_queued); "
        "raise [daemon] max_sessions or max_queued, or try again later");
  CHECK(Clock::now() - started < 1s);

  SessionSlotQueue queue(limits(1, 1));
  queue.acquire("holder", {});
  std::thread waiter([&] { queue.acquire("waiter", {}); });
  wait_for_line(queue, 1);
  CHECK(message_of<QueueFullError>(queue, "y").find("1 caller waits for one (at most 1") !=
        std::string::npos);
  queue.release();
  waiter.join();
}

TEST_CASE("a caller that waits longer than the limit gets queue_full and leaves the line") {
  SessionSlotQueue queue(limits(1, 4, 300ms));
  queue.acquire("holder", {});
  const auto started = Clock::now();
  const auto message = message_of<QueueFullError>(queue, "late");
  const auto waited = Clock::now() - started;
  CHECK(waited >= 300ms);
  CHECK(waited < 3s);
  CHECK(message ==
        "No session slot became free within 300 ms ([daemon] queue_timeout_ms): 1 of 1 sessions "
        "are open ([daemon] max_sessions) and 0 callers wait for one (at most 4, [daemon] "
        "max_queued); raise [daemon] max_sessions or queue_timeout_ms, or try again later");
  CHECK(queue.waiting() == 0);
  CHECK(queue.holding() == 1);
}

TEST_CASE("cancel takes a waiter out of line; the one behind it moves up") {
  SessionSlotQueue queue(limits(1, 4));
  queue.acquire("holder", {});
  std::string cancelled_message;
  std::thread first([&] { cancelled_message = message_of<CancelledError>(queue, "s-first"); });
  wait_for_line(queue, 1);
  std::atomic<bool> second_in{false};
  std::thread second([&] {
    queue.acquire("s-second", {});
    second_in = true;
  });
  wait_for_line(queue, 2);
  CHECK_FALSE(queue.cancel("s-unknown"));
  CHECK(queue.cancel("s-first"));
  first.join();
  CHECK(cancelled_message == "The call was cancelled while it waited for a session slot");
  CHECK(queue.waiting() == 1);
  CHECK_FALSE(second_in);
  queue.release();
  second.join();
  CHECK(second_in);
}

TEST_CASE("a caller that hung up leaves the line") {
  SessionSlotQueue queue(limits(1, 4));
  queue.acquire("holder", {});
  std::atomic<bool> gone{false};
  SlotWait wait;
  wait.caller_gone = [&] { return gone.load(); };
  std::string message;
  std::thread waiter([&] { message = message_of<CancelledError>(queue, "s-x", wait); });
  wait_for_line(queue, 1);
  gone = true;
  waiter.join();
  CHECK(message == "The caller hung up while it waited for a session slot");
  CHECK(queue.waiting() == 0);
}

TEST_CASE("shutting down wakes every waiter and refuses new callers") {
  SessionSlotQueue queue(limits(1, 4));
  queue.acquire("holder", {});
  std::string message;
  std::thread waiter([&] { message = message_of<ShuttingDownError>(queue, "s-w"); });
  wait_for_line(queue, 1);
  queue.shut_down();
  waiter.join();
  CHECK(message.starts_with("The daemon is shutting down"));
  CHECK(queue.waiting() == 0);
  queue.release();
  CHECK(message_of<ShuttingDownError>(queue, "s-new") ==
        "The daemon is shutting down; it opens no new sessions");
}

}  // namespace
}  // namespace kg::session
