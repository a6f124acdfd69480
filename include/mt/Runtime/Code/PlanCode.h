//===- PlanCode.h - loading a plan's compiled code -------------*- C++ -*-===//
//
// A plan carries its functions as a shared object (and, for CUDA, kernel
// images). Loading checks that this machine can run them (architecture,
// CPU features), loads the CUDA runtime first when the plan targets a GPU,
// and dlopens the code. mt-run's trainer and mt-generate share it.
//
//===----------------------------------------------------------------------===//
#ifndef MT_RUNTIME_CODE_PLANCODE_H
#define MT_RUNTIME_CODE_PLANCODE_H

#include "mt/Plan/PlanFile.h"
#include "mt/Runtime/Code/CpuModule.h"
#include "mt/Runtime/Code/CudaBackend.h"

#include <memory>
#include <string>

namespace mt {

/// Loads `plan`'s native code into `module`; `cuda` receives the GPU
/// backend when the plan targets CUDA, on the GPU of the calling thread's
/// `localRank` among the ranks this process drives (-1: one rank per
/// process; CudaBackend::load). False with `error`.
bool loadPlanCode(const plan::Plan &plan, CpuModule &module, std::unique_ptr<CudaBackend> &cuda,
                  std::string &error, int localRank = -1);

} // namespace mt

#endif // MT_RUNTIME_CODE_PLANCODE_H
