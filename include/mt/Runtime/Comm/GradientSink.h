//===- GradientSink.h - where mt.gradient_ready signals go -----*- C++ -*-===//
//
// The compiled step signals each gradient slice it makes final
// (mt_rt_gradient_ready); a sink starts that slice's data-parallel
// reduction: on a thread of its own over the host transport
// (OverlappedReduction), or as an NCCL call on a communication stream
// (DeviceOverlappedReduction).
//
//===----------------------------------------------------------------------===//
#ifndef MT_RUNTIME_COMM_GRADIENTSINK_H
#define MT_RUNTIME_COMM_GRADIENTSINK_H

#include <cstdint>

namespace mt {

class GradientSink {
public:
  virtual ~GradientSink() = default;
  /// From the compute thread: signal `index` of the current call was reached.
  virtual void ready(int64_t index) = 0;
};

} // namespace mt

#endif
