//===- KernelModules.cpp - the plan's kernel images, loaded by name --------===//
//
// The host code compiled by mtc loads its kernels at load time with
// mgpuModuleLoad(name bytes, size) (mt/Target/CUDA/KernelImages.h); the
// images themselves come from the plan, registered by mt-run first. The
// cubin for this GPU's architecture is taken when the plan has one;
// otherwise the driver compiles the PTX of the newest architecture not
// newer than this GPU's.
//
//===----------------------------------------------------------------------===//
#include "CudaState.h"
#include "Profile.h"

#include <map>
#include <mutex>
#include <vector>

namespace {

struct Image {
  std::string chip;
  bool cubin = false;
  std::string data; // PTX is kept NUL-terminated for the driver
};

std::mutex imagesLock;
std::map<std::string, std::vector<Image>> images;

int archNumber(const std::string &chip) {
  return chip.size() > 3 ? std::atoi(chip.c_str() + 3) : 0;
}

} // namespace

extern "C" {

void mt_cuda_add_image(const char *module, int cubin, const char *chip, const void *data,
                       size_t size) {
  std::lock_guard<std::mutex> lock(imagesLock);
  Image image{chip, cubin != 0, std::string(static_cast<const char *>(data), size)};
  // Ranks on threads each register the plan's images: keep one of each.
  std::vector<Image> &known = images[module];
  for (Image &old : known)
    if (old.chip == image.chip && old.cubin == image.cubin) {
      old = std::move(image);
      return;
    }
  known.push_back(std::move(image));
}

void *mgpuModuleLoad(void *data, size_t size) {
  using namespace mt::cuda;
  std::string name(static_cast<const char *>(data), size);
  while (!name.empty() && name.back() == '\0')
    name.pop_back();
  if (!bindThread()) {
    recordGlobal("loading kernels '" + name + "': " + takeError());
    return nullptr;
  }
  const Image *chosen = nullptr;
  std::vector<std::string> offered;
  {
    std::lock_guard<std::mutex> lock(imagesLock);
    auto it = images.find(name);
    if (it != images.end()) {
      int arch = archNumber(deviceArch());
      const Image *ptx = nullptr;
      for (const Image &image : it->second) {
        offered.push_back(std::string(image.cubin ? "cubin " : "PTX ") + image.chip);
        if (image.cubin && image.chip == deviceArch())
          chosen = &image;
        else if (!image.cubin && archNumber(image.chip) <= arch &&
                 (!ptx || archNumber(image.chip) > archNumber(ptx->chip)))
          ptx = &image;
      }
      if (!chosen)
        chosen = ptx;
    }
  }
  if (!chosen) {
    std::string list;
    for (const std::string &o : offered)
      list += (list.empty() ? "" : ", ") + o;
    recordGlobal("the plan has no kernels '" + name + "' this GPU (" + deviceName() + ", " +
                 deviceArch() + ") can run" + (list.empty() ? "" : " (it has " + list + ")") +
                 "; recompile with --cuda-arch=" + deviceArch());
    return nullptr;
  }
  char log[8192] = {0};
  CUjit_option options[] = {CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
  void *values[] = {log, reinterpret_cast<void *>(sizeof(log) - 1)};
  CUmodule module = nullptr;
  CUresult r = cuModuleLoadDataEx(&module, chosen->data.c_str(), 2, options, values);
  if (r != CUDA_SUCCESS) {
    const char *text = nullptr;
    cuGetErrorString(r, &text);
    recordGlobal("loading kernels '" + name + "' (" + (chosen->cubin ? "cubin " : "PTX ") +
                 chosen->chip + ") on " + deviceArch() + " failed: " +
                 (text ? text : "unknown CUDA error") + (log[0] ? std::string(": ") + log : ""));
    return nullptr;
  }
  return module;
}

void *mgpuModuleLoadJIT(void *data, int optLevel) {
  (void)optLevel;
  // Embedded PTX (a module lowered without mtc's image table).
  CUmodule module = nullptr;
  if (!mt::cuda::bindThread())
    return nullptr;
  CUresult r = cuModuleLoadData(&module, data);
  if (r != CUDA_SUCCESS)
    mt::cuda::record("cuModuleLoadData (embedded PTX)", r);
  return module;
}

void mgpuModuleUnload(void *module) {
  if (module)
    cuModuleUnload(static_cast<CUmodule>(module));
}

void *mgpuModuleGetFunction(void *module, const char *name) {
  if (!module)
    return nullptr; // the load failure is recorded already
  CUfunction function = nullptr;
  CUresult r = cuModuleGetFunction(&function, static_cast<CUmodule>(module), name);
  if (r != CUDA_SUCCESS)
    mt::cuda::record(std::string("finding kernel ") + name, r);
  else if (mt::cuda::profiling())
    mt::cuda::rememberKernelName(function, name);
  return function;
}

} // extern "C"
