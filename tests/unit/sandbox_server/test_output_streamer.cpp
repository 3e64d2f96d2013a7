// OutputStreamer (sandbox/server/output_streamer.hpp): what a streamed /execute writes for the
// output a command prints: pieces of at most one line, long lines cut, the runner's own lines
// left out, the per-command limit and a reader that falls behind reported as drops.
#include <doctest/doctest.h>

#include <span>
#include <sstream>
#include <string>
#include <thread>

#include "output_streamer.hpp"

using kg::sandbox::OutputStreamer;
namespace wire = kg::wire::sandbox_api;

namespace {

std::span<const char> bytes(const std::string& text) { return {text.data(), text.size()}; }

std::string streamed(const std::string& printed_out, wire::StreamRequest request = {},
                     const std::string& printed_err = "") {
  std::ostringstream out;
  {
    OutputStreamer streamer(out, std::move(request));
    streamer.printed(false, bytes(printed_out));
    if (!printed_err.empty()) streamer.printed(true, bytes(printed_err));
    streamer.finish();
  }
  return out.str();
}

}  // namespace

TEST_CASE("output streamer: one piece per line, the last partial line at the end") {
  CHECK(streamed("a\nbb\nccc") ==
        "{\"output\":{\"stream\":\"stdout\",\"text\":\"a\\n\"}}\n"
        "{\"output\":{\"stream\":\"stdout\",\"text\":\"bb\\n\"}}\n"
        "{\"output\":{\"stream\":\"stdout\",\"text\":\"ccc\"}}\n");
  CHECK(streamed("", {}, "oops\n") == "{\"output\":{\"stream\":\"stderr\",\"text\":\"oops\\n\"}}\n");
}

TEST_CASE("output streamer: a partial line goes out once it has waited") {
  std::ostringstream out;
  OutputStreamer streamer(out, {});
  streamer.printed(false, bytes("Enter a value: "));
  streamer.idle();
  std::this_thread::sleep_for(OutputStreamer::kPartialLineWait + std::chrono::milliseconds(20));
  streamer.idle();
  streamer.printed(false, bytes("42\n"));
  streamer.finish();
  CHECK(out.str() == "{\"output\":{\"stream\":\"stdout\",\"text\":\"Enter a value: \"}}\n"
                     "{\"output\":{\"stream\":\"stdout\",\"text\":\"42\\n\"}}\n");
}

TEST_CASE("output streamer: a long line is cut at 8 KiB, the rest of it skipped") {
  const std::string text = streamed(std::string(20000, 'x') + "\nnext\n");
  CHECK(text == "{\"output\":{\"stream\":\"stdout\",\"text\":\"" + std::string(8192, 'x') +
                    "\",\"cut\":true}}\n{\"output\":{\"stream\":\"stdout\",\"text\":\"next\\n\"}}\n");
}

TEST_CASE("output streamer: lines with the skip prefix stay out, even split across reads") {
  std::ostringstream out;
  {
    OutputStreamer streamer(out, {wire::kDefaultStreamMaxBytes, "runner[t] "});
    streamer.printed(true, bytes("runn"));
    streamer.printed(true, bytes("er[t] {\"event\":\"started\"}\nrunning late\nrunner[x] mine\n"));
    streamer.finish();
  }
  CHECK(out.str() == "{\"output\":{\"stream\":\"stderr\",\"text\":\"running late\\n\"}}\n"
                     "{\"output\":{\"stream\":\"stderr\",\"text\":\"runner[x] mine\\n\"}}\n");
}

TEST_CASE("output streamer: past max_bytes, what is left is reported dropped for the limit") {
  CHECK(streamed("12345\n67890\nabc\n", {8, ""}) ==
        "{\"output\":{\"stream\":\"stdout\",\"text\":\"12345\\n\"}}\n"
        "{\"output_dropped\":{\"bytes\":10,\"reason\":\"limit\"}}\n");
}

TEST_CASE("output streamer: a reader that falls behind loses lines, counted, never more queued") {
  // A stream that takes nothing until released: the writer thread blocks in its first write.
  class GateBuffer : public std::stringbuf {
   public:
    std::mutex gate;
   protected:
    std::streamsize xsputn(const char* s, std::streamsize n) override {
      const std::lock_guard lock(gate);
      return std::stringbuf::xsputn(s, n);
    }
  } buffer;
  std::ostream out(&buffer);
  std::unique_lock held(buffer.gate);
  const std::string line(100, 'y');
  std::uint64_t printed = 0;
  {
    OutputStreamer streamer(out, {wire::kMaxStreamMaxBytes, ""});
    for (int i = 0; i < 20000; ++i) {  // 2 MB, far past the queue's 256 KiB
      streamer.printed(false, bytes(line + "\n"));
      printed += line.size() + 1;
    }
    held.unlock();
    streamer.finish();
  }
  const std::string text = buffer.str();
  CHECK(text.find("\"reason\":\"slow_reader\"") != std::string::npos);
  // What went out is bounded by the queue (twice: one batch being written, one queued).
  CHECK(text.size() < 2 * OutputStreamer::kMaxQueuedBytes + 4096);
}
