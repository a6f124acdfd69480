//===- MappedRegions.cpp - a mapped file truncated under a run ------------===//
#include "MappedRegions.h"

#include <atomic>
#include <cerrno> // program_invocation_short_name
#include <csignal>
#include <cstring>
#include <mutex>
#include <unistd.h>

namespace mt::mapped {
namespace {

/// One registered mapping. The handler reads `begin` (set last, cleared
/// first) and what it guards, so it needs no lock.
struct Region {
  std::atomic<const char *> begin{nullptr};
  size_t size = 0;
  char path[480] = {};
  // The file as it was mapped (read under the lock only).
  dev_t device = 0;
  ino_t inode = 0;
  off_t bytes = 0;
  struct timespec modified = {};
};
// More mappings than this go unregistered (a truncation of one then crashes
// as before).
constexpr int kRegions = 256;
Region regions[kRegions];
std::mutex registering;

/// Async-signal-safe output of a string and of a number.
void say(const char *s) {
  ssize_t ignored = write(STDERR_FILENO, s, std::strlen(s));
  (void)ignored;
}
void sayNumber(size_t n) {
  char digits[24];
  int i = sizeof digits;
  digits[--i] = '\0';
  do {
    digits[--i] = static_cast<char>('0' + n % 10);
    n /= 10;
  } while (n && i > 0);
  say(digits + i);
}

void onBusError(int signal, siginfo_t *info, void *) {
  const char *address = static_cast<const char *>(info->si_addr);
  for (Region &r : regions) {
    const char *begin = r.begin.load(std::memory_order_acquire);
    if (!begin || address < begin || address >= begin + r.size)
      continue;
    say(program_invocation_short_name);
    say(": error: '");
    say(r.path);
    say("' was truncated while it was being read (byte ");
    sayNumber(static_cast<size_t>(address - begin));
    say(" of the ");
    sayNumber(r.size);
    say(" it had is gone); restore the file and resume from the last checkpoint\n");
    _exit(1);
  }
  // Not a mapped file's: the default action, when the access runs again.
  std::signal(signal, SIG_DFL);
}

void installHandler() {
  struct sigaction action = {};
  action.sa_sigaction = onBusError;
  action.sa_flags = SA_SIGINFO;
  sigemptyset(&action.sa_mask);
  sigaction(SIGBUS, &action, nullptr);
}

} // namespace

void add(const void *data, size_t size, const std::string &path, const struct stat &info) {
  static std::once_flag installed;
  std::call_once(installed, installHandler);
  std::lock_guard<std::mutex> lock(registering);
  for (Region &r : regions) {
    if (r.begin.load(std::memory_order_relaxed))
      continue;
    r.size = size;
    std::strncpy(r.path, path.c_str(), sizeof r.path - 1);
    r.path[sizeof r.path - 1] = '\0';
    r.device = info.st_dev;
    r.inode = info.st_ino;
    r.bytes = info.st_size;
    r.modified = info.st_mtim;
    r.begin.store(static_cast<const char *>(data), std::memory_order_release);
    return;
  }
}

void remove(const void *data) {
  std::lock_guard<std::mutex> lock(registering);
  for (Region &r : regions)
    if (r.begin.load(std::memory_order_relaxed) == data) {
      r.begin.store(nullptr, std::memory_order_release);
      return;
    }
}

} // namespace mt::mapped

namespace mt {

bool mappedFilesUnchanged(std::string &error) {
  std::lock_guard<std::mutex> lock(mapped::registering);
  for (mapped::Region &r : mapped::regions) {
    if (!r.begin.load(std::memory_order_relaxed))
      continue;
    struct stat now;
    // Removed or replaced by another file: the mapping keeps the old one.
    if (stat(r.path, &now) != 0 || now.st_dev != r.device || now.st_ino != r.inode)
      continue;
    if (now.st_size == r.bytes && now.st_mtim.tv_sec == r.modified.tv_sec &&
        now.st_mtim.tv_nsec == r.modified.tv_nsec)
      continue;
    error = "'" + std::string(r.path) + "' was modified while the run read it (" +
            std::to_string(r.bytes) + " bytes when opened, " + std::to_string(now.st_size) +
            " now): the data are no longer what the run started with; restore the file and "
            "resume from the last checkpoint";
    return false;
  }
  return true;
}

} // namespace mt
