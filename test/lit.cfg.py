# lit configuration for the mt test suite.
import os
import shutil
import subprocess

import lit.formats

config.name = "mt"
config.test_format = lit.formats.ShTest(execute_external=False)
config.suffixes = [".mlir", ".test"]
config.excludes = ["Inputs", "CMakeLists.txt", "lit.cfg.py", "lit.site.cfg.py"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.mt_obj_root, "test")

# Every FileCheck variable is scoped to its CHECK-LABEL block.
config.environment["FILECHECK_OPTS"] = "--enable-var-scope"

for tool_dir in (config.mt_tools_dir, config.llvm_tools_dir):
    config.environment["PATH"] = tool_dir + os.pathsep + config.environment.get("PATH", os.environ["PATH"])
# scripts/sanitize.sh: the runtime's tools built with sanitizers come first,
# and the sanitizers' options reach them.
if os.environ.get("MT_SANITIZED_TOOLS_DIR"):
    config.environment["PATH"] = os.environ["MT_SANITIZED_TOOLS_DIR"] + os.pathsep + config.environment["PATH"]
    config.available_features.add("sanitized")
    for name in ("ASAN_OPTIONS", "UBSAN_OPTIONS", "LSAN_OPTIONS", "TSAN_OPTIONS"):
        if name in os.environ:
            config.environment[name] = os.environ[name]
    # Open MPI's components stay loaded, so what they keep until exit is
    # attributed to them (and suppressed) rather than to unknown modules.
    config.environment["OMPI_MCA_mca_base_component_disable_dlclose"] = "1"
config.substitutions.append(("%mt_src_root", config.mt_src_root))
config.substitutions.append(("%mt_obj_root", config.mt_obj_root))
config.substitutions.append(("%python", shutil.which("python3") or "python3"))

# GPU tests need `REQUIRES: gpu`; they are skipped, with that reason shown by
# `lit -v`, on machines without one.
def has_gpu():
    smi = shutil.which("nvidia-smi")
    if not smi:
        return False
    try:
        return subprocess.run([smi, "-L"], capture_output=True, timeout=20).returncode == 0
    except Exception:
        return False

# PyTorch from Debian's python3-torch (an independent reference), under the
# system interpreter: the PATH python3 may be another installation.
def torch_python():
    for candidate in ("/usr/bin/python3", shutil.which("python3")):
        if candidate and subprocess.run([candidate, "-c", "import torch"],
                                        capture_output=True).returncode == 0:
            return candidate
    return None

_torch = torch_python()
if _torch:
    config.available_features.add("torch")
    config.substitutions.append(("%torch_python", _torch))

if has_gpu():
    config.available_features.add("gpu")
if config.cuda_toolkit_found:
    config.available_features.add("cuda-toolkit")
    # The driver's stub library (every call fails): how a machine without a
    # GPU looks to the CUDA runtime library, even on one that has a GPU.
    config.substitutions.append(("%cuda_driver_stub", config.cuda_driver_stub))
# Stands in for libmt-cuda-runtime.so: checks a CUDA plan's launches, runs nothing.
config.substitutions.append(
    ("%fake_cuda_runtime", os.path.join(config.mt_obj_root, "lib", "libmt-cuda-standin.so")))
# Stands in for NCCL (MT_NCCL_LIBRARY): its interface over host threads, on
# host memory, so the NCCL path of plans is checked without GPUs.
config.substitutions.append(
    ("%fake_nccl", os.path.join(config.mt_obj_root, "lib", "libmt-nccl-standin.so")))
# ptxas assembles the PTX the compiler emits (tests marked REQUIRES: ptxas).
_ptxas = shutil.which("ptxas") or (
    "/usr/local/cuda/bin/ptxas" if os.path.exists("/usr/local/cuda/bin/ptxas") else None)
# libdevice (math functions such as tanh for PTX) sits beside it.
_libdevice = os.path.join(os.path.dirname(os.path.dirname(_ptxas)) if _ptxas else "",
                          "nvvm", "libdevice", "libdevice.10.bc")
if _ptxas and os.path.exists(_libdevice):
    config.available_features.add("ptxas")
    config.substitutions.append(("%ptxas", _ptxas))
    config.substitutions.append(("%libdevice", _libdevice))

# The reference GPT-2 tokenizer, the npm package gpt-3-encoder, for tests that
# re-derive golden token ids (`REQUIRES: gpt-3-encoder`). node must find it
# through NODE_PATH or npm's global root (`npm install -g gpt-3-encoder@1.1.4`);
# without it those tests are skipped and the golden files are still compared.
def gpt3_encoder_node_path():
    node = shutil.which("node")
    if not node:
        return None
    paths = [p for p in os.environ.get("NODE_PATH", "").split(os.pathsep) if p]
    npm = shutil.which("npm")
    try:
        if npm:
            root = subprocess.run([npm, "root", "-g"], capture_output=True, text=True, timeout=30)
            if root.returncode == 0 and root.stdout.strip():
                paths.append(root.stdout.strip())
        node_path = os.pathsep.join(paths)
        found = subprocess.run([node, "-e", "require('gpt-3-encoder')"], capture_output=True,
                               timeout=30, env=dict(os.environ, NODE_PATH=node_path))
        return node_path if found.returncode == 0 else None
    except Exception:
        return None

gpt3_encoder_path = gpt3_encoder_node_path()
if gpt3_encoder_path is not None:
    config.available_features.add("gpt-3-encoder")
    config.environment["NODE_PATH"] = gpt3_encoder_path

# Open MPI runs multi-rank plans as processes (`REQUIRES: mpi`). CI machines
# run as root and have 2 cores: allow both explicitly.
if shutil.which("mpirun"):
    config.available_features.add("mpi")
    config.environment["OMPI_ALLOW_RUN_AS_ROOT"] = "1"
    config.environment["OMPI_ALLOW_RUN_AS_ROOT_CONFIRM"] = "1"
    config.environment["OMPI_MCA_rmaps_base_oversubscribe"] = "1"
    config.substitutions.append(("%mpirun", "mpirun --oversubscribe"))

# mlir-runner (mlir-22-tools) runs lowered test IR on the CPU with the
# runner's print functions: numeric checks of small emulated kernels.
_runner = os.path.join(config.llvm_tools_dir, "mlir-runner")
_runner_libs = [os.path.join(config.llvm_tools_dir, "..", "lib", name)
                for name in ("libmlir_runner_utils.so", "libmlir_c_runner_utils.so")]
if os.path.exists(_runner) and all(os.path.exists(l) for l in _runner_libs):
    config.available_features.add("mlir-runner")
    config.substitutions.append(
        ("%mlir_runner", _runner + " -e main -entry-point-result=void -shared-libs=" +
         ",".join(_runner_libs)))
