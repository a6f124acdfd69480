//===- NcclLibrary.h - NCCL, loaded when a run uses it -------*- C++ -*-===//
//
// mt-run links no NCCL: a CUDA plan whose collectives run as NCCL loads the
// library at start-up ($MT_NCCL_LIBRARY, else libnccl.so.2 where the
// dynamic loader or $CUDA_HOME finds it). Tests point $MT_NCCL_LIBRARY at
// the stand-in, libmt-nccl-standin.so.
//
//===----------------------------------------------------------------------===//
#ifndef MT_RUNTIME_COMM_NCCLLIBRARY_H
#define MT_RUNTIME_COMM_NCCLLIBRARY_H

#include "mt/Runtime/Comm/NcclApi.h"

#include <memory>
#include <string>

namespace mt {

class NcclLibrary {
public:
  /// The library, or null with `error` saying what was tried and why it
  /// failed (not found, an entry point missing, a version before 2.18).
  static std::unique_ptr<NcclLibrary> load(std::string &error);
  ~NcclLibrary();

  const nccl::Api &api() const { return api_; }
  const std::string &path() const { return path_; }
  /// NCCL's version code: 22809 for 2.28.9.
  int version() const { return version_; }
  /// Whether this is the tests' stand-in (libmt-nccl-standin.so), which
  /// works on host memory.
  bool isStandIn() const { return standIn_; }

  /// The process's library, loaded at the first call (every rank thread
  /// shares it); null with `error` as load()'s.
  static const NcclLibrary *shared(std::string &error);

  /// NCCL's words for a failed call: its error string, and the
  /// communicator's last error where there is one.
  std::string describe(nccl::Result result, nccl::Comm comm = nullptr) const;

private:
  NcclLibrary() = default;
  void *handle_ = nullptr;
  nccl::Api api_;
  std::string path_;
  int version_ = 0;
  bool standIn_ = false;
};

} // namespace mt

#endif
