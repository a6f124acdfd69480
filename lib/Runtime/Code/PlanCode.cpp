//===- PlanCode.cpp - loading a plan's compiled code -----------------------===//
#include "mt/Runtime/Code/PlanCode.h"

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <string>
#include <unistd.h>

namespace mt {

namespace {

bool hostHas(const std::string &feature) {
#if defined(__x86_64__)
  __builtin_cpu_init();
  if (feature == "sse4.2")
    return __builtin_cpu_supports("sse4.2");
  if (feature == "avx")
    return __builtin_cpu_supports("avx");
  if (feature == "avx2")
    return __builtin_cpu_supports("avx2");
  if (feature == "fma")
    return __builtin_cpu_supports("fma");
  if (feature == "avx512f")
    return __builtin_cpu_supports("avx512f");
#endif
  return false;
}

std::string hostArch() {
#if defined(__x86_64__)
  return "x86_64";
#elif defined(__aarch64__)
  return "aarch64";
#else
  return "unknown";
#endif
}

} // namespace

bool loadPlanCode(const plan::Plan &plan, CpuModule &module, std::unique_ptr<CudaBackend> &cuda,
                  std::string &error, int localRank) {
  const plan::CodeObject *native = nullptr;
  for (const plan::CodeObject &code : plan.code())
    if (code.kind() == plan::CodeObject::SHARED_OBJECT)
      native = &code;
  if (!native) {
    error = "the plan has no native CPU code";
    return false;
  }
  std::string arch = native->target_triple().substr(0, native->target_triple().find('-'));
  if (arch != hostArch()) {
    error = "the plan was compiled for " + native->target_triple() + " but this machine is " +
            hostArch() + "; recompile it here";
    return false;
  }
  for (const std::string &f : native->required_features())
    if (!hostHas(f)) {
      error = "the plan's code uses the CPU feature '" + f + "' (compiled for " + native->cpu() +
              ") which this machine lacks; recompile it here";
      return false;
    }
  // CUDA: the runtime library and the kernel images first, since loading
  // the host code loads its kernels.
  if (planTargetsCuda(plan) && !(cuda = CudaBackend::load(plan, error, localRank)))
    return false;
  // dlopen needs a file: write the code, load it, remove the file.
  const char *tmp = std::getenv("TMPDIR");
  std::string dir = tmp && *tmp ? tmp : "/tmp";
  std::string path = dir + "/mt-run-XXXXXX.so";
  int fd = mkstemps(path.data(), 3);
  const std::string &bytes = native->data();
  size_t written = 0;
  while (fd >= 0 && written < bytes.size()) {
    ssize_t n = write(fd, bytes.data() + written, bytes.size() - written);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0)
      break;
    written += static_cast<size_t>(n);
  }
  if (fd < 0 || written < bytes.size()) {
    error = "cannot stage the plan's native code (" + std::to_string(bytes.size()) + " bytes) in " +
            dir + ": " + std::strerror(errno ? errno : ENOSPC) +
            " (TMPDIR names another directory)";
    if (fd >= 0) {
      close(fd);
      unlink(path.c_str());
    }
    return false;
  }
  close(fd);
  bool loaded = module.load(path, error);
  unlink(path.c_str());
  return loaded;
}

} // namespace mt
