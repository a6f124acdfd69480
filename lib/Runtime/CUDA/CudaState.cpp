//===- CudaState.cpp - device, context, streams and recorded failures -------===//
#include "CudaState.h"

#include <cstdlib>
#include <map>
#include <mutex>

namespace mt::cuda {

namespace {

struct Device {
  bool ready = false;
  std::string failure;
  CUdevice device = 0;
  CUcontext context = nullptr;
  std::string arch, name, busId;
};

/// The driver, started once; empty, or why it cannot be used.
const std::string &driverFailure(int &count) {
  static std::string failure;
  static int seen = 0;
  static std::once_flag once;
  std::call_once(once, [] {
    const char *text = nullptr, *what = "cuInit";
    CUresult r = cuInit(0);
    if (r == CUDA_SUCCESS && (r = cuDeviceGetCount(&seen)) != CUDA_SUCCESS)
      what = "cuDeviceGetCount";
    if (r != CUDA_SUCCESS) {
      cuGetErrorString(r, &text);
      failure = std::string(what) + ": " + (text ? text : "unknown CUDA error");
    }
  });
  count = seen;
  return failure;
}

/// GPU `ordinal` with its primary context, made once per process.
Device &deviceAt(int ordinal) {
  static std::mutex lock;
  static std::map<int, Device> devices;
  std::lock_guard<std::mutex> guard(lock);
  auto [it, fresh] = devices.try_emplace(ordinal);
  Device &d = it->second;
  if (!fresh)
    return d;
  auto fail = [&](const std::string &what, CUresult r) {
    const char *text = nullptr;
    cuGetErrorString(r, &text);
    d.failure = what + ": " + (text ? text : "unknown CUDA error");
  };
  CUresult r = cuDeviceGet(&d.device, ordinal);
  if (r != CUDA_SUCCESS) {
    fail("cuDeviceGet(" + std::to_string(ordinal) + ")", r);
    return d;
  }
  char busId[64] = {0};
  cuDeviceGetPCIBusId(busId, sizeof(busId) - 1, d.device);
  d.busId = busId;
  if ((r = cuDevicePrimaryCtxRetain(&d.context, d.device)) == CUDA_ERROR_DEVICE_UNAVAILABLE) {
    d.failure = "GPU " + std::to_string(ordinal) + " (" + d.busId +
                ") is unavailable: another process holds it and its compute mode is "
                "exclusive, or it is prohibited (nvidia-smi -q -d COMPUTE); choose another with "
                "MT_CUDA_DEVICE or CUDA_VISIBLE_DEVICES";
    return d;
  }
  if (r != CUDA_SUCCESS) {
    fail("cuDevicePrimaryCtxRetain", r);
    return d;
  }
  int major = 0, minor = 0;
  cuDeviceGetAttribute(&major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, d.device);
  cuDeviceGetAttribute(&minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, d.device);
  d.arch = "sm_" + std::to_string(major * 10 + minor);
  char name[256] = {0};
  cuDeviceGetName(name, sizeof(name) - 1, d.device);
  d.name = name;
  d.ready = true;
  return d;
}

struct ThreadState {
  bool bound = false;
  int localRank = -1; // this thread's rank among the process's (mt_cuda_local_rank)
  Device *device = nullptr;
  CUstream stream = nullptr;
  CUstream side[16] = {};
  std::string error;
};
thread_local ThreadState threadState;

/// The GPU the calling thread takes: MT_CUDA_DEVICE if set (every rank of
/// the process shares it); else its local rank (a rank thread's index in
/// the process, or under mpirun or srun the process's index on its
/// machine, mt-run's MT_CUDA_LOCAL_RANK) modulo the GPUs it sees.
Device *chooseDevice(std::string &failure) {
  int count = 0;
  failure = driverFailure(count);
  if (!failure.empty())
    return nullptr;
  int ordinal = 0;
  const char *chosen = std::getenv("MT_CUDA_DEVICE");
  const char *local = std::getenv("MT_CUDA_LOCAL_RANK");
  if (chosen)
    ordinal = std::atoi(chosen);
  else if (threadState.localRank >= 0 && count > 0)
    ordinal = threadState.localRank % count;
  else if (local && count > 0)
    ordinal = std::atoi(local) % count;
  if (ordinal < 0 || ordinal >= count) {
    failure = "MT_CUDA_DEVICE=" + std::to_string(ordinal) + " but the driver sees " +
              std::to_string(count) + " GPU(s)";
    return nullptr;
  }
  Device &d = deviceAt(ordinal);
  if (!d.ready) {
    failure = d.failure;
    return nullptr;
  }
  return &d;
}

std::mutex globalLock;
std::string globalError;

} // namespace

void useLocalRank(int index) {
  if (!threadState.bound)
    threadState.localRank = index;
}

bool bindThread() {
  ThreadState &t = threadState;
  if (t.bound)
    return true;
  std::string failure;
  t.device = chooseDevice(failure);
  if (!t.device)
    return recordMessage(failure);
  CUresult r = cuCtxSetCurrent(t.device->context);
  if (r != CUDA_SUCCESS)
    return record("cuCtxSetCurrent", r);
  // Not the legacy default stream: ranks on threads must not serialize.
  if ((r = cuStreamCreate(&t.stream, CU_STREAM_NON_BLOCKING)) != CUDA_SUCCESS)
    return record("cuStreamCreate", r);
  t.bound = true;
  return true;
}

CUstream threadStream() {
  bindThread();
  return threadState.stream;
}

CUstream sideStream(int index) {
  if (index < 0 || index >= 16 || !bindThread())
    return nullptr;
  CUstream &s = threadState.side[index];
  if (!s)
    if (CUresult r = cuStreamCreate(&s, CU_STREAM_NON_BLOCKING); r != CUDA_SUCCESS) {
      record("cuStreamCreate (side stream " + std::to_string(index) + ")", r);
      s = nullptr;
    }
  return s;
}

namespace {
const Device &boundDevice() {
  static const Device none;
  return bindThread() ? *threadState.device : none;
}
} // namespace

const std::string &deviceArch() { return boundDevice().arch; }
const std::string &deviceName() { return boundDevice().name; }
const std::string &deviceBusId() { return boundDevice().busId; }

bool record(const std::string &what, CUresult result) {
  const char *text = nullptr;
  cuGetErrorString(result, &text);
  return recordMessage(what + " failed: " + (text ? text : "unknown CUDA error"));
}

bool recordMessage(const std::string &message) {
  if (threadState.error.empty())
    threadState.error = message;
  return false;
}

void recordGlobal(const std::string &message) {
  std::lock_guard<std::mutex> lock(globalLock);
  if (globalError.empty())
    globalError = message;
}

std::string takeError() {
  std::string error;
  std::swap(error, threadState.error);
  if (error.empty()) {
    std::lock_guard<std::mutex> lock(globalLock);
    error = globalError;
  }
  return error;
}

} // namespace mt::cuda
