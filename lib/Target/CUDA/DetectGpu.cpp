//===- DetectGpu.cpp - is there a CUDA GPU here? ---------------------------===//
#include "mt/Target/CUDA/DetectGpu.h"

#include <dlfcn.h>

int mt::countCudaDevices() {
  void *driver = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!driver)
    return 0;
  // The driver API's C signatures: CUresult is an int, 0 on success.
  using Init = int (*)(unsigned);
  using Count = int (*)(int *);
  auto init = reinterpret_cast<Init>(dlsym(driver, "cuInit"));
  auto count = reinterpret_cast<Count>(dlsym(driver, "cuDeviceGetCount"));
  int devices = 0;
  if (!init || !count || init(0) != 0 || count(&devices) != 0)
    devices = 0;
  dlclose(driver);
  return devices;
}
