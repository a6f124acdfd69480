//===- Progress.cpp - how far preprocessing is, and how fast ---------------===//
#include "Commands.h"

#include <chrono>
#include <cstdio>
#include <unistd.h>

namespace mt::data_tool {

namespace {

double seconds() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

std::string clock(double s) {
  long t = static_cast<long>(s + 0.5);
  char text[32];
  if (t >= 3600)
    std::snprintf(text, sizeof text, "%ld:%02ld:%02ld", t / 3600, t / 60 % 60, t % 60);
  else
    std::snprintf(text, sizeof text, "%ld:%02ld", t / 60, t % 60);
  return text;
}

} // namespace

Progress::Progress(uint64_t totalBytes, bool bar)
    : total_(totalBytes), bar_(bar && isatty(fileno(stderr))), start_(seconds()),
      lastDraw_(start_) {}

void Progress::update(uint64_t fileBytes, uint64_t textBytes) {
  done_ = fileBytes;
  text_ = textBytes;
  double now = seconds();
  if (!bar_ || now - lastDraw_ < 0.5)
    return;
  lastDraw_ = now;
  double elapsed = now - start_, fraction = total_ ? double(done_) / double(total_) : 1.0;
  const int width = 30;
  int filled = static_cast<int>(fraction * width);
  std::string bar(static_cast<size_t>(filled), '#');
  bar.resize(width, '.');
  double rate = elapsed > 0 ? double(done_) / 1e6 / elapsed : 0;
  std::string eta = rate > 0 ? clock((double(total_ - done_) / 1e6) / rate) : "?";
  std::fprintf(stderr, "\r[%s] %5.1f%% %.1f/%.1f MB %.1f MB/s ETA %s  ", bar.c_str(),
               100 * fraction, done_ / 1e6, total_ / 1e6, rate, eta.c_str());
  std::fflush(stderr);
}

void Progress::finish(int workers) {
  if (bar_)
    std::fprintf(stderr, "\r%*s\r", 90, "");
  double elapsed = seconds() - start_;
  double rate = elapsed > 0 ? text_ / 1e6 / elapsed : 0;
  std::printf("read %.1f MB of text", text_ / 1e6);
  if (done_ != text_)
    std::printf(" (%.1f MB of files)", done_ / 1e6);
  std::printf(" in %.1f s: %.2f MB/s with %d worker%s (%.2f MB/s per worker)\n", elapsed, rate,
              workers, workers == 1 ? "" : "s", rate / workers);
}

} // namespace mt::data_tool
