// OutputCoalescer (mcp/output_coalescer.hpp): the first output goes out at once, what follows
// within the interval is gathered and sent by the timer (also during a long silence), the text
// per call is capped with a message that says so, and drops are named.
#include <doctest/doctest.h>

#include <chrono>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "output_coalescer.hpp"

using kg::mcp::OutputCoalescer;
using kg::mcp::ProgramOutput;

namespace {

struct Sent {
  std::mutex mutex;
  std::vector<std::string> messages;
  std::size_t count() {
    const std::lock_guard lock(mutex);
    return messages.size();
  }
};

ProgramOutput text(std::string t) { return {false, std::move(t), false, 0, {}}; }

}  // namespace

TEST_CASE("output coalescer: at once, then gathered, and a waiting line goes out in a silence") {
  Sent sent;
  OutputCoalescer coalescer([&](const std::string& m) {
    const std::lock_guard lock(sent.mutex);
    sent.messages.push_back(m);
  });
  coalescer.add(text("first\n"));
  CHECK(sent.count() == 1);
  coalescer.add(text("second\n"));
  coalescer.add(text("third\n"));
  CHECK(sent.count() == 1);  // within the interval: waiting
  // No more output (the program sleeps): the timer sends it.
  std::this_thread::sleep_for(OutputCoalescer::kInterval * 3);
  REQUIRE(sent.count() == 2);
  CHECK(sent.messages[0] == "first\n");
  CHECK(sent.messages[1] == "second\nthird\n");
  coalescer.finish();
  CHECK(sent.count() == 2);
}

TEST_CASE("output coalescer: at most kMaxCallBytes of text, and the last message says so") {
  Sent sent;
  {
    OutputCoalescer coalescer([&](const std::string& m) {
      const std::lock_guard lock(sent.mutex);
      sent.messages.push_back(m);
    });
    const std::string line(99, 'z');
    for (int i = 0; i < 2000; ++i) coalescer.add(text(line + "\n"));  // 200 KB
  }
  std::string all;
  for (const auto& m : sent.messages) {
    CHECK(m.size() <= OutputCoalescer::kMaxMessageBytes + 300);
    all += m;
  }
  CHECK(all.find("[output streaming stopped after 65536 bytes for this call") != std::string::npos);
  CHECK(all.size() <= OutputCoalescer::kMaxCallBytes + 300);
  CHECK(sent.messages.size() < 40);
}

TEST_CASE("output coalescer: cut lines and drops are named in the text") {
  Sent sent;
  {
    OutputCoalescer coalescer([&](const std::string& m) { sent.messages.push_back(m); });
    coalescer.add({false, "xxxx", true, 0, {}});
    coalescer.add({false, {}, false, 1234, "slow_reader"});
  }
  std::string all;
  for (const auto& m : sent.messages) all += m;
  CHECK(all == "xxxx ... [line cut; the result holds it]\n\n[1234 bytes of output not streamed "
               "(the reader fell behind); the result holds the head and tail]\n");
}
