//===- CudaState.cpp - device, context, streams and recorded failures -------===//
#include "CudaState.h"

#include <cstdlib>
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

Device &device() {
  static Device d;
  static std::once_flag once;
  std::call_once(once, [] {
    auto fail = [](const std::string &what, CUresult r) {
      const char *text = nullptr;
      cuGetErrorString(r, &text);
      d.failure = what + ": " + (text ? text : "unknown CUDA error");
    };
    CUresult r = cuInit(0);
    if (r != CUDA_SUCCESS)
      return fail("cuInit", r);
    int count = 0;
    if ((r = cuDeviceGetCount(&count)) != CUDA_SUCCESS)
      return fail("cuDeviceGetCount", r);
    // MT_CUDA_DEVICE picks; else under mpirun or srun the process's local
    // rank (mt-run's MT_CUDA_LOCAL_RANK) among the GPUs it sees.
    int ordinal = 0;
    const char *chosen = std::getenv("MT_CUDA_DEVICE");
    const char *local = std::getenv("MT_CUDA_LOCAL_RANK");
    if (chosen)
      ordinal = std::atoi(chosen);
    else if (local && count > 0)
      ordinal = std::atoi(local) % count;
    if (ordinal < 0 || ordinal >= count) {
      d.failure = "MT_CUDA_DEVICE=" + std::to_string(ordinal) + " but the driver sees " +
                  std::to_string(count) + " GPU(s)";
      return;
    }
    if ((r = cuDeviceGet(&d.device, ordinal)) != CUDA_SUCCESS)
      return fail("cuDeviceGet", r);
    char busId[64] = {0};
    cuDeviceGetPCIBusId(busId, sizeof(busId) - 1, d.device);
    d.busId = busId;
    if ((r = cuDevicePrimaryCtxRetain(&d.context, d.device)) == CUDA_ERROR_DEVICE_UNAVAILABLE) {
      d.failure = "GPU " + std::to_string(ordinal) + " (" + d.busId +
                  ") is unavailable: another process holds it and its compute mode is "
                  "exclusive, or it is prohibited (nvidia-smi -q -d COMPUTE); choose another with "
                  "MT_CUDA_DEVICE or CUDA_VISIBLE_DEVICES";
      return;
    }
    if (r != CUDA_SUCCESS)
      return fail("cuDevicePrimaryCtxRetain", r);
    int major = 0, minor = 0;
    cuDeviceGetAttribute(&major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, d.device);
    cuDeviceGetAttribute(&minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, d.device);
    d.arch = "sm_" + std::to_string(major * 10 + minor);
    char name[256] = {0};
    cuDeviceGetName(name, sizeof(name) - 1, d.device);
    d.name = name;
    d.ready = true;
  });
  return d;
}

struct ThreadState {
  bool bound = false;
  CUstream stream = nullptr;
  CUstream side[16] = {};
  std::string error;
};
thread_local ThreadState threadState;

std::mutex globalLock;
std::string globalError;

} // namespace

bool bindThread() {
  ThreadState &t = threadState;
  if (t.bound)
    return true;
  Device &d = device();
  if (!d.ready)
    return recordMessage(d.failure);
  CUresult r = cuCtxSetCurrent(d.context);
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

const std::string &deviceArch() { return device().arch; }
const std::string &deviceName() { return device().name; }
const std::string &deviceBusId() { return device().busId; }

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
