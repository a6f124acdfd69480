//===- StopRequest.cpp - SIGTERM and SIGINT ask a run to stop -------------===//
#include "mt/Runtime/Training/StopRequest.h"

#include <atomic>
#include <csignal>

namespace mt {
namespace {

std::atomic<int> requested{0};
static_assert(std::atomic<int>::is_always_lock_free, "used from a signal handler");

void onStopSignal(int signal) {
  int none = 0;
  if (requested.compare_exchange_strong(none, signal))
    return;
  // Asked twice: the default action now (only async-signal-safe calls here).
  std::signal(signal, SIG_DFL);
  std::raise(signal);
}

} // namespace

void installStopHandlers() {
  struct sigaction action = {};
  action.sa_handler = onStopSignal;
  action.sa_flags = SA_RESTART;
  sigemptyset(&action.sa_mask);
  sigaction(SIGTERM, &action, nullptr);
  sigaction(SIGINT, &action, nullptr);
}

int stopSignal() { return requested.load(); }

void requestStop(int signal) {
  int none = 0;
  requested.compare_exchange_strong(none, signal);
}

const char *stopSignalName(int signal) {
  switch (signal) {
  case SIGTERM:
    return "SIGTERM";
  case SIGINT:
    return "SIGINT";
  default:
    return "a signal";
  }
}

} // namespace mt
