//===- Api.cpp - what mt-run calls: device, memory, synchronization --------===//
//
// The C functions mt-run finds with dlsym (mt/Runtime/Code/CudaBackend.h). Errors
// come back as text in the caller's buffer.
//
//===----------------------------------------------------------------------===//
#include "CudaState.h"
#include "Profile.h"

#include <cstring>

namespace {

int fail(char *error, size_t capacity, const std::string &message) {
  if (capacity) {
    std::strncpy(error, message.c_str(), capacity - 1);
    error[capacity - 1] = '\0';
  }
  return 0;
}

} // namespace

extern "C" {

/// Binds the calling thread to the device; 0 with the reason on failure.
int mt_cuda_open(char *error, size_t capacity) {
  if (!mt::cuda::bindThread())
    return fail(error, capacity, mt::cuda::takeError());
  return 1;
}

/// The calling thread runs the process's local rank `index` (rank
/// threads): it takes GPU index modulo the GPUs seen (CudaState.h).
void mt_cuda_local_rank(int index) { mt::cuda::useLocalRank(index); }

/// "NVIDIA H100 80GB HBM3 (sm_90)".
void mt_cuda_describe(char *out, size_t capacity) {
  fail(out, capacity, mt::cuda::deviceName() + " (" + mt::cuda::deviceArch() + ")");
}

/// "0000:1b:00.0": which GPU of the machine this is.
void mt_cuda_bus_id(char *out, size_t capacity) {
  fail(out, capacity, mt::cuda::deviceBusId());
}

/// Zeroed memory both the GPU and the host can address (managed), so the
/// runtime reads losses and writes batches where the kernels find them.
/// Null with the reason on failure.
void *mt_cuda_alloc(size_t bytes, char *error, size_t capacity) {
  if (!mt::cuda::bindThread()) {
    fail(error, capacity, mt::cuda::takeError());
    return nullptr;
  }
  CUdeviceptr pointer = 0;
  CUresult r = cuMemAllocManaged(&pointer, bytes ? bytes : 1, CU_MEM_ATTACH_GLOBAL);
  if (r != CUDA_SUCCESS) {
    const char *text = nullptr;
    cuGetErrorString(r, &text);
    fail(error, capacity,
         "cannot allocate " + std::to_string(bytes) +
             " bytes of GPU memory: " + (text ? text : "unknown CUDA error"));
    return nullptr;
  }
  std::memset(reinterpret_cast<void *>(pointer), 0, bytes);
  return reinterpret_cast<void *>(pointer);
}

void mt_cuda_free(void *pointer) {
  if (pointer)
    cuMemFree(reinterpret_cast<CUdeviceptr>(pointer));
}

/// Zeroes `bytes` at `pointer` on the calling thread's stream, in order with
/// its kernels: a host memset would move every page of managed memory to
/// the host and the next kernel would fault each one back.
void mt_cuda_zero(void *pointer, size_t bytes) {
  if (!pointer || !bytes || !mt::cuda::bindThread())
    return;
  CUresult r =
      cuMemsetD8Async(reinterpret_cast<CUdeviceptr>(pointer), 0, bytes, mt::cuda::threadStream());
  if (r != CUDA_SUCCESS)
    mt::cuda::record("zeroing " + std::to_string(bytes) + " bytes", r);
}

/// Rows of `width` bytes from `src` (`srcPitch` apart) to `dst` (`dstPitch`
/// apart), queued on `stream` (null: the calling thread's): a collective's
/// pieces regrouped on the GPU, no host wait. 0 with the reason on failure.
int mt_cuda_copy2d(void *stream, void *dst, size_t dstPitch, const void *src, size_t srcPitch, size_t width,
                   size_t height, char *error, size_t capacity) {
  if (!mt::cuda::bindThread())
    return fail(error, capacity, mt::cuda::takeError());
  CUstream on = stream ? static_cast<CUstream>(stream) : mt::cuda::threadStream();
  // Contiguous rows are one plain copy: a 2D copy's pitch may not pass the
  // device's limit (2 GiB), a large parameter's size may.
  if (height == 1 || (width == srcPitch && width == dstPitch)) {
    CUresult r = cuMemcpyAsync(reinterpret_cast<CUdeviceptr>(dst),
                               reinterpret_cast<CUdeviceptr>(src), width * height, on);
    if (r == CUDA_SUCCESS)
      return 1;
    mt::cuda::record("copying " + std::to_string(width * height) + " bytes", r);
    return fail(error, capacity, mt::cuda::takeError());
  }
  CUDA_MEMCPY2D copy = {};
  copy.srcMemoryType = CU_MEMORYTYPE_UNIFIED;
  copy.srcDevice = reinterpret_cast<CUdeviceptr>(src);
  copy.srcPitch = srcPitch;
  copy.dstMemoryType = CU_MEMORYTYPE_UNIFIED;
  copy.dstDevice = reinterpret_cast<CUdeviceptr>(dst);
  copy.dstPitch = dstPitch;
  copy.WidthInBytes = width;
  copy.Height = height;
  CUresult r = cuMemcpy2DAsync(&copy, on);
  if (r != CUDA_SUCCESS) {
    mt::cuda::record("copying " + std::to_string(height) + " rows of " + std::to_string(width) +
                         " bytes",
                     r);
    return fail(error, capacity, mt::cuda::takeError());
  }
  return 1;
}

/// Waits for everything the calling thread queued; 0 with the first
/// failure since the last call (a launch, a GEMM, a module load).
int mt_cuda_sync(char *error, size_t capacity) {
  if (!mt::cuda::bindThread())
    return fail(error, capacity, mt::cuda::takeError());
  CUresult r = cuStreamSynchronize(mt::cuda::threadStream());
  if (r == CUDA_SUCCESS)
    mt::cuda::collectProfile();
  std::string recorded = mt::cuda::takeError();
  if (!recorded.empty())
    return fail(error, capacity, recorded);
  if (r != CUDA_SUCCESS) {
    mt::cuda::record("the GPU work of a compiled function", r);
    return fail(error, capacity, mt::cuda::takeError());
  }
  return 1;
}

/// The calling thread's stream, where NCCL queues its collectives behind
/// the thread's kernels (null when the thread cannot be bound).
void *mt_cuda_stream(void) {
  return mt::cuda::bindThread() ? static_cast<void *>(mt::cuda::threadStream()) : nullptr;
}

/// The calling thread's side stream `index`, for work that must not queue
/// behind the thread's kernels (null when it cannot be made).
void *mt_cuda_side_stream(int index) { return static_cast<void *>(mt::cuda::sideStream(index)); }

/// `waiting` goes on only after what `on` has queued so far: an event
/// recorded on `on`, waited for on `waiting` (and freed once it fires).
int mt_cuda_stream_wait(void *waiting, void *on, char *error, size_t capacity) {
  if (!mt::cuda::bindThread())
    return fail(error, capacity, mt::cuda::takeError());
  CUevent event = nullptr;
  CUresult r = cuEventCreate(&event, CU_EVENT_DISABLE_TIMING);
  if (r == CUDA_SUCCESS && (r = cuEventRecord(event, static_cast<CUstream>(on))) == CUDA_SUCCESS)
    r = cuStreamWaitEvent(static_cast<CUstream>(waiting), event, 0);
  if (event)
    cuEventDestroy(event);
  if (r != CUDA_SUCCESS) {
    mt::cuda::record("ordering two streams", r);
    return fail(error, capacity, mt::cuda::takeError());
  }
  return 1;
}

/// Waits for the work queued on `stream` (one of the thread's side streams).
int mt_cuda_sync_stream(void *stream, char *error, size_t capacity) {
  if (!mt::cuda::bindThread())
    return fail(error, capacity, mt::cuda::takeError());
  CUresult r = cuStreamSynchronize(static_cast<CUstream>(stream));
  if (r != CUDA_SUCCESS) {
    mt::cuda::record("the work of a side stream", r);
    return fail(error, capacity, mt::cuda::takeError());
  }
  return 1;
}

} // extern "C"
