//===- KernelImages.cpp - the GPU code of a plan ---------------------------===//
#include "mt/Target/CUDA/KernelImages.h"

#include "mt/Dialect/MT/IR/MTAttrNames.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdlib>

using namespace mlir;

namespace mt {

bool takeKernelImages(ModuleOp module, std::vector<KernelImage> &images, std::string &error) {
  std::vector<KernelTraffic> traffic;
  if (auto described = module->getAttrOfType<DictionaryAttr>(mt::kKernelsAttrName))
    for (NamedAttribute kernel : described) {
      auto fields = dyn_cast<DictionaryAttr>(kernel.getValue());
      auto bytes = fields ? fields.getAs<IntegerAttr>("bytes") : IntegerAttr();
      if (!bytes)
        continue;
      traffic.push_back({kernel.getName().str(), bytes.getInt(), fields.contains("indirect")});
    }
  for (auto binary : module.getOps<gpu::BinaryOp>()) {
    Attribute firstTarget;
    for (Attribute attr : binary.getObjectsAttr()) {
      auto object = cast<gpu::ObjectAttr>(attr);
      auto target = dyn_cast<NVVM::NVVMTargetAttr>(object.getTarget());
      if (!target || object.getFormat() != gpu::CompilationTarget::Assembly) {
        error = "gpu.binary @" + binary.getName().str() + " holds an object that is not NVVM PTX";
        return false;
      }
      if (!firstTarget)
        firstTarget = target;
      KernelImage image;
      image.module = binary.getName().str();
      image.chip = target.getChip().str();
      image.data = object.getObject().getValue().str();
      // The assembly ends with the NUL the driver wants; the plan keeps text.
      while (!image.data.empty() && image.data.back() == '\0')
        image.data.pop_back();
      for (size_t at = image.data.find(".entry"); at != std::string::npos;
           at = image.data.find(".entry", at + 6))
        ++image.kernels;
      image.traffic = traffic;
      images.push_back(std::move(image));
    }
    if (!firstTarget) {
      error = "gpu.binary @" + binary.getName().str() + " has no objects";
      return false;
    }
    // `bin` makes the host call mgpuModuleLoad(bytes, size) (not the JIT
    // entry), with the binary's name as the bytes.
    auto reference = gpu::ObjectAttr::get(firstTarget, gpu::CompilationTarget::Binary,
                                          StringAttr::get(module.getContext(), binary.getName()));
    binary.setObjectsAttr(ArrayAttr::get(module.getContext(), {reference}));
  }
  return true;
}

std::string findPtxas() {
  for (const char *var : {"CUDA_HOME", "CUDA_PATH"})
    if (const char *root = std::getenv(var)) {
      std::string path = std::string(root) + "/bin/ptxas";
      if (llvm::sys::fs::can_execute(path))
        return path;
    }
  if (llvm::sys::fs::can_execute("/usr/local/cuda/bin/ptxas"))
    return "/usr/local/cuda/bin/ptxas";
  auto onPath = llvm::sys::findProgramByName("ptxas");
  return onPath ? *onPath : "";
}

bool assembleCubins(std::vector<KernelImage> &images, const std::string &ptxas,
                    std::string &error) {
  llvm::SmallString<128> dir;
  if (auto ec = llvm::sys::fs::createUniqueDirectory("mtc-ptxas", dir)) {
    error = "cannot create a temporary directory: " + ec.message();
    return false;
  }
  std::vector<KernelImage> cubins;
  bool ok = true;
  for (const KernelImage &image : images) {
    if (image.cubin)
      continue;
    std::string base = (dir + "/" + image.module + "." + image.chip).str();
    std::string ptxPath = base + ".ptx", cubinPath = base + ".cubin", logPath = base + ".log";
    {
      std::error_code ec;
      llvm::raw_fd_ostream out(ptxPath, ec);
      if (ec) {
        error = "cannot write " + ptxPath + ": " + ec.message();
        ok = false;
        break;
      }
      out << image.data;
    }
    std::vector<std::string> owned{ptxas, "-arch=" + image.chip, "-O3", ptxPath, "-o", cubinPath};
    llvm::SmallVector<llvm::StringRef> args(owned.begin(), owned.end());
    std::optional<llvm::StringRef> redirects[] = {std::nullopt, llvm::StringRef(logPath),
                                                  llvm::StringRef(logPath)};
    std::string message;
    int rc = llvm::sys::ExecuteAndWait(ptxas, args, std::nullopt, redirects, 0, 0, &message);
    auto cubin = llvm::MemoryBuffer::getFile(cubinPath);
    if (rc != 0 || !cubin) {
      auto log = llvm::MemoryBuffer::getFile(logPath);
      error = "ptxas -arch=" + image.chip + " rejected the kernels of " + image.module + " (exit " +
              std::to_string(rc) + "): " + (log ? (*log)->getBuffer().str() : message);
      ok = false;
      break;
    }
    KernelImage assembled = image;
    assembled.cubin = true;
    assembled.data = (*cubin)->getBuffer().str();
    cubins.push_back(std::move(assembled));
  }
  llvm::sys::fs::remove_directories(dir);
  if (!ok)
    return false;
  for (KernelImage &c : cubins)
    images.push_back(std::move(c));
  return true;
}

} // namespace mt
