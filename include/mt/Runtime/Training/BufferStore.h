//===- BufferStore.h - one rank's named buffers -----------------*- C++ -*-===//
//
// Every buffer a rank's compiled functions read or write, by the plan's
// name ("wte", "s1/grad_acc:wte", "batch:tokens", ...), with its element
// type. Allocation failures (a GPU out of memory) are kept, the first one
// reported, so a plan that does not fit says which buffer did not.
//
//===----------------------------------------------------------------------===//
#ifndef MT_RUNTIME_TRAINING_BUFFERSTORE_H
#define MT_RUNTIME_TRAINING_BUFFERSTORE_H

#include "mt/Plan/PlanFile.h"
#include "mt/Runtime/Code/CpuModule.h"

#include "plan.pb.h"

#include <map>
#include <memory>
#include <string>
#include <vector>

namespace mt {

class BufferStore {
public:
  /// Buffers go to `memory` (a GPU's) when given, else host memory.
  void setMemory(BufferMemory *memory) { memory_ = memory; }

  /// The buffer named by `spec`, allocated (zeroed) at its first use.
  Buffer &ensure(const plan::TensorSpec &spec);
  /// A buffer of `spec`'s shape and type that the store does not hold
  /// (a set of saved activations); `what` names it in a failure.
  std::unique_ptr<Buffer> make(const plan::TensorSpec &spec, const std::string &what);
  /// The named buffer, or null.
  Buffer *find(const std::string &name) const;
  /// The element type the buffer was made with (DTYPE_UNSPECIFIED when unknown).
  plan::DType dtype(const std::string &name) const;
  /// Element `i` of a floating-point buffer (f32 or f64), as a double.
  double read(const std::string &name, int64_t i = 0) const;
  /// Exchanges the buffer held as `name` with `other` (either may be null).
  void exchange(const std::string &name, std::unique_ptr<Buffer> &other);
  /// Exchanges two held buffers.
  void exchange(const std::string &a, const std::string &b);
  /// Every held name, sorted.
  std::vector<std::string> names() const;

  /// The first allocation that failed, empty when all fit.
  const std::string &allocationError() const { return allocationError_; }
  /// Records `buffer`'s failure to allocate, when it is the first.
  void noteAllocation(const Buffer &buffer, const std::string &what);

private:
  BufferMemory *memory_ = nullptr;
  std::map<std::string, std::unique_ptr<Buffer>> buffers_;
  std::map<std::string, plan::DType> dtypes_;
  std::string allocationError_;
};

} // namespace mt

#endif // MT_RUNTIME_TRAINING_BUFFERSTORE_H
