//===- NativeCode.cpp - the plan's code: shared object, GPU kernel images -===//
#include "mt/Driver/NativeCode.h"

#include "mt/Conversion/Passes.h"
#include "mt/Dialect/MT/IR/MTAttrNames.h"
#include "mt/Pipelines/Pipelines.h"
#include "mt/Plan/BufferNames.h"
#include "mt/Target/CPU/SharedObject.h"
#include "mt/Target/CUDA/KernelImages.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/TargetParser/Host.h"

#include <map>

using namespace mlir;

namespace mt {

namespace {

/// The functions mt-share-stage-programs left to others' code run that
/// code, with their first layer given as its layer offset.
bool recordSharedCode(ModuleOp module, plan::Plan &out, std::string &error) {
  std::map<std::string, plan::Function *> byName;
  for (plan::Function &f : *out.mutable_functions())
    byName[f.name()] = &f;
  for (auto fn : module.getOps<func::FuncOp>()) {
    auto callers = fn->getAttrOfType<DictionaryAttr>(kSharedCodeAttrName);
    if (!callers)
      continue;
    // The last input (bufferized: before the outputs and the arena).
    bool hasOffset = llvm::any_of(fn.getArguments(), [&](BlockArgument arg) {
      return fn.getArgAttr(arg.getArgNumber(), kLayerOffsetAttrName) != nullptr;
    });
    for (NamedAttribute caller : callers) {
      auto it = byName.find(caller.getName().str());
      if (it == byName.end()) {
        error = "@" + fn.getSymName().str() + " shares its code with @" + caller.getName().str() +
                ", which the plan does not describe";
        return false;
      }
      plan::Function &f = *it->second;
      if (caller.getName() != fn.getSymName())
        f.set_entry(fn.getSymName().str());
      if (!hasOffset)
        continue;
      f.set_layer_offset(cast<IntegerAttr>(caller.getValue()).getInt());
      plan::TensorSpec &offset = *f.add_inputs();
      offset.set_name(buffers::staged(buffers::kLayerOffset, f.stage(), out.stages_size() > 0));
      offset.set_dtype(plan::I64);
    }
  }
  return true;
}

} // namespace

bool attachNativeCode(ModuleOp module, plan::Plan &out, std::string &error, unsigned optLevel,
                      const CodeTarget &target) {
  if (target.cuda && findLibdevice().empty()) {
    error = "--target=cuda needs CUDA's libdevice (nvvm/libdevice/libdevice.10.bc): set "
            "CUDA_HOME to the CUDA toolkit";
    return false;
  }
  // Bufferize first: the arena each function's temporaries need goes into
  // the plan, then on to LLVM.
  PassManager bufferize(module.getContext());
  bool forGpu = target.cuda || target.emulateGpuKernels;
  if (failed(buildBufferizePipeline(bufferize, forGpu, forGpu && target.mmaAttention))) {
    error = "lowering to native code failed";
    return false;
  }
  if (target.emulateGpuKernels)
    bufferize.addPass(createEmulateGpuKernelsPass());
  if (failed(bufferize.run(module))) {
    error = "lowering to native code failed";
    return false;
  }
  if (!recordSharedCode(module, out, error))
    return false;
  for (plan::Function &f : *out.mutable_functions()) {
    auto fn = module.lookupSymbol<func::FuncOp>(f.entry().empty() ? f.name() : f.entry());
    auto bytes = fn ? fn->getAttrOfType<IntegerAttr>(kArenaBytesAttrName) : IntegerAttr();
    if (!bytes) {
      error = "the bufferized function @" + f.name() + " has no planned arena";
      return false;
    }
    f.set_arena_bytes(bytes.getInt());
  }
  PassManager pm(module.getContext());
  GpuOptions gpu;
  gpu.chips = target.chips;
  if (failed(target.cuda ? buildGpuBuffersToLLVMPipeline(pm, gpu)
                         : buildBuffersToLLVMPipeline(pm, !target.emulateGpuKernels)) ||
      failed(pm.run(module))) {
    error = target.cuda ? "lowering to CUDA failed" : "lowering to native code failed";
    return false;
  }
  std::vector<KernelImage> images;
  if (target.cuda && (!takeKernelImages(module, images, error) ||
                      (!target.ptxas.empty() && !assembleCubins(images, target.ptxas, error))))
    return false;
  llvm::SmallString<128> dir;
  if (auto ec = llvm::sys::fs::createUniqueDirectory("mtc", dir)) {
    error = "cannot create a temporary directory: " + ec.message();
    return false;
  }
  std::string soPath = (dir + "/native.so").str();
  bool ok = emitSharedObject(module, soPath, error, optLevel,
                             target.cuda ? HostSupport::CudaHost : HostSupport::Cpu);
  if (ok) {
    auto bytes = llvm::MemoryBuffer::getFile(soPath);
    if (!bytes) {
      error = "cannot read back " + soPath;
      ok = false;
    } else {
      plan::CodeObject &code = *out.add_code();
      code.set_name("native");
      code.set_kind(plan::CodeObject::SHARED_OBJECT);
      code.set_target_triple(llvm::sys::getProcessTriple());
      if (target.cuda) {
        code.set_cpu("x86-64"); // host code that only launches work
      } else {
        code.set_cpu(llvm::sys::getHostCPUName().str());
        // The ISA extensions the runtime can check before loading the code.
        llvm::StringMap<bool> features = llvm::sys::getHostCPUFeatures();
        for (const char *f : {"sse4.2", "avx", "avx2", "fma", "avx512f"})
          if (features.lookup(f))
            code.add_required_features(f);
      }
      code.set_data((*bytes)->getBufferStart(), (*bytes)->getBufferSize());
      for (const KernelImage &image : images) {
        plan::CodeObject &gpuCode = *out.add_code();
        gpuCode.set_name(image.module);
        gpuCode.set_kind(image.cubin ? plan::CodeObject::CUBIN : plan::CodeObject::PTX);
        gpuCode.set_target_triple("nvptx64-nvidia-cuda");
        gpuCode.set_cpu(image.chip);
        gpuCode.set_kernels(image.kernels);
        gpuCode.set_data(image.data);
        for (const KernelTraffic &t : image.traffic) {
          plan::KernelTraffic &traffic = *gpuCode.add_kernel_traffic();
          traffic.set_kernel(t.kernel);
          traffic.set_bytes(t.bytes);
          traffic.set_indirect(t.indirect);
        }
      }
    }
  }
  llvm::sys::fs::remove(soPath);
  llvm::sys::fs::remove(dir);
  return ok;
}

bool checkCudaChips(const std::vector<std::string> &chips, std::string &error) {
  for (const std::string &chip : chips) {
    int version = 0;
    if (chip.size() < 5 || chip.compare(0, 3, "sm_") != 0 ||
        !llvm::to_integer(llvm::StringRef(chip).drop_front(3), version) || version < 80) {
      error = "--cuda-arch takes architectures sm_80 or newer (sm_80, sm_86, sm_89, sm_90, ...), "
              "got '" +
              chip + "'";
      return false;
    }
  }
  return true;
}

} // namespace mt
