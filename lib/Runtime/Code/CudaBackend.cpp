//===- CudaBackend.cpp - running a plan's code on a CUDA GPU ---------------===//
#include "mt/Runtime/Code/CudaBackend.h"

#include "mt/Runtime/Abi.h"
#include "mt/Support/ProgramPath.h"

#include <dlfcn.h>
#include <limits.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>

namespace mt {

bool planTargetsCuda(const plan::Plan &plan) {
  for (const plan::CodeObject &code : plan.code())
    if (code.kind() == plan::CodeObject::PTX || code.kind() == plan::CodeObject::CUBIN)
      return true;
  return false;
}

/// The CUDA runtime library's entry points (mt/Runtime/Abi.h), one slot each.
struct CudaBackend::Api {
#define MT_CUDA_SLOT(name, result, params) result(*name) params = nullptr;
  MT_CUDA_API(MT_CUDA_SLOT)
#undef MT_CUDA_SLOT
};

CudaBackend::CudaBackend() : api_(std::make_unique<Api>()) {}
CudaBackend::~CudaBackend() = default;

std::unique_ptr<CudaBackend> CudaBackend::load(const plan::Plan &plan, std::string &error,
                                               int localRank) {
  std::string tried;
  void *library = nullptr;
  std::vector<std::string> candidates;
  if (const char *chosen = std::getenv("MT_CUDA_RUNTIME"))
    candidates.push_back(chosen);
  else {
    candidates.push_back(besideProgram("../lib/libmt-cuda-runtime.so"));
    candidates.push_back("libmt-cuda-runtime.so");
  }
  for (const std::string &path : candidates) {
    if (path.empty())
      continue;
    // Global: the plan's host code finds mgpu* and mt_blas_* here.
    library = dlopen(path.c_str(), RTLD_NOW | RTLD_GLOBAL);
    if (library)
      break;
    const char *why = dlerror();
    tried += "\n  " + path + ": " + (why ? why : "cannot load");
  }
  if (!library) {
    error = "the plan was compiled for CUDA (--target=cuda) but its runtime library cannot be "
            "loaded here (a CUDA driver and cuBLAS are needed; set MT_CUDA_RUNTIME to "
            "libmt-cuda-runtime.so, or compile the plan with --target=cpu):" +
            tried;
    return nullptr;
  }
  std::unique_ptr<CudaBackend> backend(new CudaBackend());
  Api &api = *backend->api_;
  bool complete = true;
  auto find = [&](auto &slot, const char *name) {
    slot = reinterpret_cast<std::remove_reference_t<decltype(slot)>>(dlsym(library, name));
    complete = complete && slot;
  };
#define MT_CUDA_FIND(name, result, params) find(api.name, MT_CUDA_SYMBOL_PREFIX #name);
  MT_CUDA_API(MT_CUDA_FIND)
#undef MT_CUDA_FIND
  if (!complete) {
    error = "the CUDA runtime library is incomplete (built by another mtc version?)";
    return nullptr;
  }
  char message[1024] = {0};
  if (localRank >= 0)
    api.local_rank(localRank);
  if (!api.open(message, sizeof(message))) {
    error = std::string("the plan was compiled for CUDA but no GPU can be used here: ") + message +
            " (compile it with --target=cpu to run on this machine's CPU)";
    return nullptr;
  }
  for (const plan::CodeObject &code : plan.code())
    if (code.kind() == plan::CodeObject::PTX || code.kind() == plan::CodeObject::CUBIN)
      api.add_image(code.name().c_str(), code.kind() == plan::CodeObject::CUBIN, code.cpu().c_str(),
                    code.data().data(), code.data().size());
  return backend;
}

void *CudaBackend::allocate(size_t bytes, std::string &error) {
  char message[512] = {0};
  void *pointer = api_->alloc(bytes, message, sizeof(message));
  if (!pointer) {
    error = message;
    return nullptr;
  }
  std::lock_guard<std::mutex> lock(mutex_);
  sizes_[pointer] = bytes;
  allocated_ += static_cast<int64_t>(bytes);
  peak_ = std::max(peak_, allocated_);
  return pointer;
}

void CudaBackend::release(void *pointer) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = sizes_.find(pointer);
    if (it != sizes_.end()) {
      allocated_ -= static_cast<int64_t>(it->second);
      sizes_.erase(it);
    }
  }
  api_->free(pointer);
}

int64_t CudaBackend::peakAllocatedBytes() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return peak_;
}

namespace {

/// Marks `since` for the length of a wait on the GPU.
struct Waiting {
  explicit Waiting(std::atomic<double> &since) : since(since) {
    since = std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch())
                .count();
  }
  ~Waiting() { since = 0; }
  std::atomic<double> &since;
};

} // namespace

bool CudaBackend::synchronize(std::string &error) {
  char message[2048] = {0};
  Waiting waiting(waitingSince_);
  if (api_->sync(message, sizeof(message)))
    return true;
  error = std::string("on the GPU: ") + message;
  return false;
}

void CudaBackend::zero(void *pointer, size_t bytes) { api_->zero(pointer, bytes); }

bool CudaBackend::copy2d(void *stream, void *dst, size_t dstPitch, const void *src,
                         size_t srcPitch, size_t width, size_t height, std::string &error) {
  char message[1024] = {0};
  if (api_->copy2d(stream, dst, dstPitch, src, srcPitch, width, height, message,
                   sizeof(message)))
    return true;
  error = std::string("on the GPU: ") + message;
  return false;
}

bool CudaBackend::bindThread(std::string &error) {
  char message[1024] = {0};
  if (api_->open(message, sizeof(message)))
    return true;
  error = message;
  return false;
}

void *CudaBackend::stream() { return api_->stream(); }

void *CudaBackend::sideStream(int index, std::string &error) {
  void *stream = index >= 0 && index < kSideStreams ? api_->side_stream(index) : nullptr;
  if (!stream)
    error = "no side stream " + std::to_string(index) + " on the GPU (at most " +
            std::to_string(kSideStreams) + " a rank)";
  return stream;
}

bool CudaBackend::streamWait(void *waiting, void *on, std::string &error) {
  char message[1024] = {0};
  if (api_->stream_wait(waiting, on, message, sizeof(message)))
    return true;
  error = std::string("on the GPU: ") + message;
  return false;
}

bool CudaBackend::synchronizeStream(void *stream, std::string &error) {
  char message[2048] = {0};
  Waiting waiting(waitingSince_);
  if (api_->sync_stream(stream, message, sizeof(message)))
    return true;
  error = std::string("on the GPU: ") + message;
  return false;
}

std::string CudaBackend::busId() const {
  char text[128] = {0};
  api_->bus_id(text, sizeof(text));
  return text;
}

std::string CudaBackend::device() const {
  char text[512] = {0};
  api_->describe(text, sizeof(text));
  return text;
}

void CudaBackend::profile(Profiling mode) { api_->profile(static_cast<int>(mode)); }

std::vector<CudaBackend::ProfileEntry> CudaBackend::profileEntries() const {
  std::vector<ProfileEntry> entries(api_->profile_entries());
  for (size_t i = 0; i < entries.size(); ++i) {
    char name[512] = {0};
    ProfileEntry &e = entries[i];
    if (!api_->profile_entry(i, name, sizeof(name), &e.calls, &e.ms, &e.flops))
      return {};
    e.name = name;
  }
  return entries;
}

} // namespace mt
