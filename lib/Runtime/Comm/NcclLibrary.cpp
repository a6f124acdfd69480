//===- NcclLibrary.cpp - NCCL, loaded when a run uses it ------------------===//
#include "mt/Runtime/Comm/NcclLibrary.h"

#include <dlfcn.h>

#include <cstdlib>
#include <vector>

namespace mt {

namespace {

std::vector<std::string> candidates() {
  if (const char *chosen = std::getenv("MT_NCCL_LIBRARY"))
    return {chosen};
  std::vector<std::string> paths = {"libnccl.so.2"};
  const char *cudaHome = std::getenv("CUDA_HOME");
  for (std::string home : {std::string(cudaHome ? cudaHome : ""), std::string("/usr/local/cuda")})
    if (!home.empty())
      paths.push_back(home + "/lib64/libnccl.so.2");
  return paths;
}

std::string versionText(int code) {
  // 2.28.9 is 22809; before 2.9, 2.8.4 was 2804.
  int major = code >= 10000 ? code / 10000 : code / 1000;
  int minor = code >= 10000 ? code / 100 % 100 : code / 100 % 10;
  return std::to_string(major) + "." + std::to_string(minor) + "." + std::to_string(code % 100);
}

} // namespace

std::unique_ptr<NcclLibrary> NcclLibrary::load(std::string &error) {
  std::string tried;
  void *handle = nullptr;
  std::string path;
  for (const std::string &candidate : candidates()) {
    // Local: NCCL's symbols are for mt-run, not for the plans' code.
    handle = dlopen(candidate.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (handle) {
      path = candidate;
      break;
    }
    const char *why = dlerror();
    tried += "\n  " + candidate + ": " + (why ? why : "cannot load");
  }
  if (!handle) {
    error = "NCCL cannot be loaded (set MT_NCCL_LIBRARY to libnccl.so.2, or run the collectives "
            "on the host with --collectives=host):" +
            tried;
    return nullptr;
  }
  std::unique_ptr<NcclLibrary> library(new NcclLibrary());
  library->handle_ = handle;
  library->path_ = path;
  nccl::Api &api = library->api_;
  std::string missing;
  auto find = [&](auto &slot, const char *name) {
    slot = reinterpret_cast<std::remove_reference_t<decltype(slot)>>(dlsym(handle, name));
    if (!slot)
      missing += std::string(missing.empty() ? "" : ", ") + name;
  };
#define MT_NCCL_FIND(name, result, params) find(api.name, "nccl" #name);
  MT_NCCL_API(MT_NCCL_FIND)
#undef MT_NCCL_FIND
  if (!missing.empty()) {
    error = path + " is not an NCCL library mt-run can use: it lacks " + missing;
    return nullptr;
  }
  library->standIn_ = dlsym(handle, "mtNcclStandIn") != nullptr;
  nccl::Result result = api.GetVersion(&library->version_);
  if (result != nccl::Success) {
    error = path + ": ncclGetVersion failed: " + library->describe(result);
    return nullptr;
  }
  if (library->version_ < nccl::kMinimumVersion) {
    error = path + " is NCCL " + versionText(library->version_) + "; mt-run needs " +
            versionText(nccl::kMinimumVersion) + " or later";
    return nullptr;
  }
  return library;
}

const NcclLibrary *NcclLibrary::shared(std::string &error) {
  static std::string loadError;
  static std::unique_ptr<NcclLibrary> library = load(loadError);
  if (!library)
    error = loadError;
  return library.get();
}

NcclLibrary::~NcclLibrary() {
  if (handle_)
    dlclose(handle_);
}

std::string NcclLibrary::describe(nccl::Result result, nccl::Comm comm) const {
  std::string text = api_.GetErrorString ? api_.GetErrorString(result) : "";
  if (text.empty())
    text = "NCCL error " + std::to_string(static_cast<int>(result));
  const char *last = api_.GetLastError ? api_.GetLastError(comm) : nullptr;
  if (last && *last)
    text += ": " + std::string(last);
  return text;
}

} // namespace mt
