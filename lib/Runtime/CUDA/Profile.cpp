//===- Profile.cpp - timing each kernel and GEMM for mt-run --profile ------===//
#include "Profile.h"

#include "CudaState.h"

#include <atomic>
#include <cstring>
#include <map>
#include <mutex>
#include <unordered_map>
#include <vector>

namespace mt::cuda {
namespace {

std::atomic<bool> enabled{false};

struct Total {
  int64_t calls = 0;
  double ms = 0;
  double flops = 0;
};

struct Totals {
  std::mutex mutex;
  std::map<std::string, Total> byName;
  std::vector<std::pair<std::string, Total>> snapshot; // what mt_cuda_profile_entry reads
  std::unordered_map<CUfunction, std::string> kernelNames;
};

Totals &totals() {
  static Totals t;
  return t;
}

struct Pending {
  std::string name;
  double flops;
  CUevent start, end;
};

/// This thread's spans not yet read, and events to reuse.
struct ThreadSpans {
  std::vector<Pending> pending;
  std::vector<CUevent> spare;
  ~ThreadSpans() {
    for (Pending &p : pending) {
      cuEventDestroy(p.start);
      cuEventDestroy(p.end);
    }
    for (CUevent e : spare)
      cuEventDestroy(e);
  }
  CUevent take() {
    if (!spare.empty()) {
      CUevent e = spare.back();
      spare.pop_back();
      return e;
    }
    CUevent e = nullptr;
    if (cuEventCreate(&e, CU_EVENT_DEFAULT) != CUDA_SUCCESS)
      return nullptr;
    return e;
  }
};
thread_local ThreadSpans spans;

} // namespace

bool profiling() { return enabled.load(std::memory_order_relaxed); }

void ProfiledSpan::begin(std::string name, double flops) {
  CUevent e = spans.take();
  if (!e || cuEventRecord(e, threadStream()) != CUDA_SUCCESS)
    return; // unprofiled, not failed: the work itself is unaffected
  name_ = std::move(name);
  flops_ = flops;
  start_ = e;
}

void ProfiledSpan::end() {
  CUevent e = spans.take();
  if (!e || cuEventRecord(e, threadStream()) != CUDA_SUCCESS) {
    spans.spare.push_back(start_);
    return;
  }
  spans.pending.push_back({std::move(name_), flops_, start_, e});
}

void rememberKernelName(CUfunction function, const char *name) {
  Totals &t = totals();
  std::lock_guard<std::mutex> lock(t.mutex);
  t.kernelNames.try_emplace(function, name);
}

std::string kernelName(CUfunction function) {
  Totals &t = totals();
  std::lock_guard<std::mutex> lock(t.mutex);
  auto it = t.kernelNames.find(function);
  return it == t.kernelNames.end() ? "kernel" : it->second;
}

void collectProfile() {
  if (spans.pending.empty())
    return;
  Totals &t = totals();
  std::lock_guard<std::mutex> lock(t.mutex);
  for (Pending &p : spans.pending) {
    float ms = 0;
    if (cuEventElapsedTime(&ms, p.start, p.end) == CUDA_SUCCESS) {
      Total &total = t.byName[p.name];
      ++total.calls;
      total.ms += ms;
      total.flops += p.flops;
    }
    spans.spare.push_back(p.start);
    spans.spare.push_back(p.end);
  }
  spans.pending.clear();
}

} // namespace mt::cuda

extern "C" {

/// `mode`: an MtAbiProfileMode.
void mt_cuda_profile(int mode) {
  mt::cuda::Totals &t = mt::cuda::totals();
  std::lock_guard<std::mutex> lock(t.mutex);
  if (mode == MT_ABI_PROFILE_START)
    t.byName.clear();
  mt::cuda::enabled.store(mode != MT_ABI_PROFILE_PAUSE);
}

/// Takes a snapshot of the totals; returns how many entries it has.
size_t mt_cuda_profile_entries() {
  mt::cuda::Totals &t = mt::cuda::totals();
  std::lock_guard<std::mutex> lock(t.mutex);
  t.snapshot.assign(t.byName.begin(), t.byName.end());
  return t.snapshot.size();
}

/// Entry `i` of the snapshot: its name, calls, milliseconds and (GEMMs)
/// floating-point operations. 0 when out of range.
int mt_cuda_profile_entry(size_t i, char *name, size_t capacity, int64_t *calls, double *ms,
                          double *flops) {
  mt::cuda::Totals &t = mt::cuda::totals();
  std::lock_guard<std::mutex> lock(t.mutex);
  if (i >= t.snapshot.size())
    return 0;
  const auto &[n, total] = t.snapshot[i];
  if (capacity) {
    std::strncpy(name, n.c_str(), capacity - 1);
    name[capacity - 1] = '\0';
  }
  *calls = total.calls;
  *ms = total.ms;
  *flops = total.flops;
  return 1;
}

} // extern "C"
