//===- StandInRuntime.cpp - libmt-cuda-runtime.so for machines without GPUs -===//
//
// libmt-cuda-standin.so: the same C interface as the CUDA runtime library,
// with nothing run. It checks what a CUDA plan's host code asks for, so the
// whole host path (loading the plan's code and kernel images, resolving
// mgpu*/mt_blas_* at dlopen, every launch and GEMM of a training run) is
// tested in CI, where no GPU is; and it counts every launch and GEMM, which
// mt-run --report-kernels turns into the step's floor on a GPU it names.
//
// Checked: each module the host code loads by name has a PTX image for the
// stand-in device's architecture (sm_90); each kernel it looks up is an .entry of
// that PTX; each launch passes as many parameters as the entry declares,
// with a grid and a block of 1 to 1024 threads; each GEMM's operands lie
// inside buffers mt-run allocated (the arena included). Kernels and GEMMs do
// not run, so losses are whatever the zeroed buffers give. At exit it prints
// what it saw; a failed check fails mt_cuda_sync, so mt-run stops with it.
//
//===----------------------------------------------------------------------===//
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <set>
#include <string>
#include <vector>

namespace {

struct Kernel {
  std::string name;
  size_t params = 0;
};

struct State {
  std::mutex lock;
  std::map<std::string, std::string> ptx; // module -> sm_90 PTX
  std::map<std::string, std::map<std::string, Kernel>> kernels;
  std::map<uintptr_t, size_t> allocations; // base -> bytes
  std::set<std::string> modulesLoaded;
  long launches = 0, singleThread = 0, gemms = 0, batchedGemms = 0;
  std::set<std::string> kernelsLaunched;
  std::vector<std::string> problems;
  // mt_cuda_profile: made-up times (1 us a launch, 2 us a GEMM), so mt-run's
  // report can be checked.
  struct Timed {
    int64_t calls = 0;
    double ms = 0, flops = 0;
  };
  bool profiling = false;
  std::map<std::string, Timed> profile;
  std::vector<std::pair<std::string, Timed>> snapshot;

  void problem(const std::string &p) {
    if (problems.size() < 20)
      problems.push_back(p);
  }

  ~State() {
    std::fprintf(stderr,
                 "stand-in CUDA runtime: %zu module(s) loaded, %zu kernels launched, %ld launches "
                 "(%ld on one thread), %ld GEMM calls (%ld strided-batched), %zu problem(s)\n",
                 modulesLoaded.size(), kernelsLaunched.size(), launches, singleThread, gemms,
                 batchedGemms, problems.size());
    for (const std::string &p : problems)
      std::fprintf(stderr, "stand-in CUDA runtime: %s\n", p.c_str());
  }
};

State &state() {
  static State s;
  return s;
}

/// The .entry kernels of a PTX text and their parameter counts.
std::map<std::string, Kernel> entriesOf(const std::string &ptx) {
  std::map<std::string, Kernel> out;
  for (size_t at = ptx.find(".entry "); at != std::string::npos;
       at = ptx.find(".entry ", at + 7)) {
    size_t nameBegin = at + 7, open = ptx.find('(', nameBegin);
    size_t close = ptx.find(')', open);
    if (open == std::string::npos || close == std::string::npos)
      break;
    Kernel k;
    k.name = ptx.substr(nameBegin, open - nameBegin);
    while (!k.name.empty() && (k.name.back() == ' ' || k.name.back() == '\n'))
      k.name.pop_back();
    for (size_t p = ptx.find(".param", open); p != std::string::npos && p < close;
         p = ptx.find(".param", p + 6))
      ++k.params;
    out[k.name] = k;
  }
  return out;
}

/// Whether [address, address + bytes) lies inside one allocation.
bool inside(uintptr_t address, size_t bytes) {
  State &s = state();
  auto it = s.allocations.upper_bound(address);
  if (it == s.allocations.begin())
    return false;
  --it;
  return address >= it->first && address + bytes <= it->first + it->second;
}

void checkMatrix(const char *what, int64_t address, int64_t rows, int64_t cols, int64_t ld,
                 size_t element) {
  State &s = state();
  if (rows <= 0 || cols <= 0 || ld < cols) {
    s.problem(std::string("GEMM operand ") + what + " has shape " + std::to_string(rows) + "x" +
              std::to_string(cols) + " with leading dimension " + std::to_string(ld));
    return;
  }
  size_t bytes = static_cast<size_t>((rows - 1) * ld + cols) * element;
  if (!inside(static_cast<uintptr_t>(address), bytes))
    s.problem(std::string("GEMM operand ") + what + " (" + std::to_string(rows) + "x" +
              std::to_string(cols) + ", ld " + std::to_string(ld) +
              ") is not inside an allocated buffer");
}

/// A GEMM, or `count` of them with operands `stride*` elements apart: the
/// first and last of each operand's matrices must lie in one allocation.
/// `element`: bytes of A's and B's elements; `resultElement`: C's (0: the
/// same).
void gemm(int64_t ta, int64_t tb, int64_t m, int64_t n, int64_t k, int64_t a, int64_t lda,
          int64_t b, int64_t ldb, int64_t c, int64_t ldc, size_t element, int64_t strideA = 0,
          int64_t strideB = 0, int64_t strideC = 0, int64_t count = 1, size_t resultElement = 0) {
  if (!resultElement)
    resultElement = element;
  State &s = state();
  std::lock_guard<std::mutex> lock(s.lock);
  ++s.gemms;
  if (count != 1)
    ++s.batchedGemms;
  if (s.profiling) {
    // Named as lib/Runtime/CUDA/Gemms.cpp names them (16-bit: bf16).
    std::string types = element == 4   ? "f32"
                        : element == 8 ? "f64"
                                       : (resultElement == 2 ? "bf16>bf16" : "bf16>f32");
    State::Timed &t = s.profile["gemm " + types + " " + std::to_string(m) + "x" +
                                std::to_string(n) + "x" + std::to_string(k) + " " +
                                (ta ? "T" : "N") + (tb ? "T" : "N") +
                                (count > 1 ? " x" + std::to_string(count) : "")];
    ++t.calls;
    t.ms += 0.002;
    t.flops += 2.0 * static_cast<double>(m * n * k * count);
  }
  if (count < 1 || strideA < 0 || strideB < 0 || strideC < 0) {
    s.problem("batched GEMM with count " + std::to_string(count) + " and strides " +
              std::to_string(strideA) + ", " + std::to_string(strideB) + ", " +
              std::to_string(strideC));
    return;
  }
  for (int64_t p : {int64_t(0), count - 1}) {
    int64_t e = static_cast<int64_t>(element);
    checkMatrix("A", a + p * strideA * e, ta ? k : m, ta ? m : k, lda, element);
    checkMatrix("B", b + p * strideB * e, tb ? n : k, tb ? k : n, ldb, element);
    checkMatrix("C", c + p * strideC * static_cast<int64_t>(resultElement), m, n, ldc,
                resultElement);
  }
}

thread_local int standInGpu = -1; // the thread's local rank, if told

int fill(char *out, size_t capacity, const std::string &text) {
  if (capacity) {
    std::strncpy(out, text.c_str(), capacity - 1);
    out[capacity - 1] = '\0';
  }
  return 0;
}

} // namespace

extern "C" {

int mt_cuda_open(char *, size_t) { return 1; }

/// MT_CUDA_STANDIN_GPUS (default 1) stand-in GPUs, told apart by bus id: a
/// rank thread (or a process under mpirun) takes its local rank modulo
/// their number, as on a machine with that many GPUs (with one, every rank
/// shares "stand-in").
void mt_cuda_local_rank(int index) { standInGpu = index; }

void mt_cuda_describe(char *out, size_t capacity) {
  fill(out, capacity, "stand-in CUDA device, nothing runs (sm_90)");
}

void mt_cuda_bus_id(char *out, size_t capacity) {
  const char *gpus = std::getenv("MT_CUDA_STANDIN_GPUS");
  const char *process = std::getenv("MT_CUDA_LOCAL_RANK"); // under mpirun
  int count = gpus ? std::atoi(gpus) : 1;
  int local = standInGpu >= 0 ? standInGpu : process ? std::atoi(process) : 0;
  fill(out, capacity,
       count > 1 ? "stand-in GPU " + std::to_string(std::max(local, 0) % count) : "stand-in");
}

void mt_cuda_add_image(const char *module, int cubin, const char *chip, const void *data,
                       size_t size) {
  if (cubin || std::strcmp(chip, "sm_90") != 0)
    return;
  State &s = state();
  std::lock_guard<std::mutex> lock(s.lock);
  s.ptx[module] = std::string(static_cast<const char *>(data), size);
  s.kernels[module] = entriesOf(s.ptx[module]);
}

/// The stand-in's buffers are host memory: the rows are copied at once.
int mt_cuda_copy2d(void *, void *dst, size_t dstPitch, const void *src, size_t srcPitch, size_t width,
                   size_t height, char *error, size_t capacity) {
  if (height == 0 || width == 0)
    return 1;
  if (width > dstPitch || width > srcPitch) {
    fill(error, capacity, "copy2d: rows of " + std::to_string(width) + " bytes wider than their pitch");
    return 0;
  }
  for (size_t r = 0; r < height; ++r)
    std::memmove(static_cast<char *>(dst) + r * dstPitch,
                 static_cast<const char *>(src) + r * srcPitch, width);
  return 1;
}

void *mt_cuda_alloc(size_t bytes, char *error, size_t capacity) {
  void *p = nullptr;
  if (posix_memalign(&p, 256, bytes ? bytes : 1) != 0) {
    fill(error, capacity, "the stand-in runtime found no " + std::to_string(bytes) +
                              " bytes of host memory");
    return nullptr;
  }
  std::memset(p, 0, bytes);
  State &s = state();
  std::lock_guard<std::mutex> lock(s.lock);
  s.allocations[reinterpret_cast<uintptr_t>(p)] = bytes;
  return p;
}

void mt_cuda_free(void *p) {
  State &s = state();
  {
    std::lock_guard<std::mutex> lock(s.lock);
    s.allocations.erase(reinterpret_cast<uintptr_t>(p));
  }
  std::free(p);
}

void mt_cuda_zero(void *p, size_t bytes) {
  State &s = state();
  std::lock_guard<std::mutex> lock(s.lock);
  if (!inside(reinterpret_cast<uintptr_t>(p), bytes)) {
    s.problem("zeroing " + std::to_string(bytes) + " bytes outside every allocation");
    return;
  }
  std::memset(p, 0, bytes);
}

int mt_cuda_sync(char *error, size_t capacity) {
  State &s = state();
  std::lock_guard<std::mutex> lock(s.lock);
  if (s.problems.empty())
    return 1;
  return fill(error, capacity, "stand-in CUDA runtime: " + s.problems.front());
}

/// The one stream mgpuStreamCreate gives too: everything here is in order.
void *mt_cuda_stream(void) { return reinterpret_cast<void *>(1); }

/// Handles apart from the thread's stream, so that callers passing them on
/// can be told apart; nothing is queued on them here.
void *mt_cuda_side_stream(int index) {
  return index >= 0 && index < 16 ? reinterpret_cast<void *>(uintptr_t{2} + index) : nullptr;
}

int mt_cuda_sync_stream(void *, char *, size_t) { return 1; }

int mt_cuda_stream_wait(void *, void *, char *, size_t) { return 1; }

void mt_cuda_profile(int mode) {
  State &s = state();
  std::lock_guard<std::mutex> lock(s.lock);
  if (mode == 1)
    s.profile.clear();
  s.profiling = mode != 0;
}

size_t mt_cuda_profile_entries() {
  State &s = state();
  std::lock_guard<std::mutex> lock(s.lock);
  s.snapshot.assign(s.profile.begin(), s.profile.end());
  return s.snapshot.size();
}

int mt_cuda_profile_entry(size_t i, char *name, size_t capacity, int64_t *calls, double *ms,
                          double *flops) {
  State &s = state();
  std::lock_guard<std::mutex> lock(s.lock);
  if (i >= s.snapshot.size())
    return 0;
  fill(name, capacity, s.snapshot[i].first);
  *calls = s.snapshot[i].second.calls;
  *ms = s.snapshot[i].second.ms;
  *flops = s.snapshot[i].second.flops;
  return 1;
}

void *mgpuModuleLoad(void *data, size_t size) {
  std::string name(static_cast<const char *>(data), size);
  while (!name.empty() && name.back() == '\0')
    name.pop_back();
  State &s = state();
  std::lock_guard<std::mutex> lock(s.lock);
  auto it = s.kernels.find(name);
  if (it == s.kernels.end()) {
    s.problem("the host code loads kernels '" + name + "' but the plan has no sm_90 PTX of that name");
    return nullptr;
  }
  s.modulesLoaded.insert(name);
  return &it->second;
}

void *mgpuModuleLoadJIT(void *, int) {
  State &s = state();
  std::lock_guard<std::mutex> lock(s.lock);
  s.problem("the host code embeds its PTX (mgpuModuleLoadJIT) instead of loading the plan's images");
  return nullptr;
}

void mgpuModuleUnload(void *) {}

void *mgpuModuleGetFunction(void *module, const char *name) {
  if (!module)
    return nullptr;
  State &s = state();
  std::lock_guard<std::mutex> lock(s.lock);
  auto &kernels = *static_cast<std::map<std::string, Kernel> *>(module);
  auto it = kernels.find(name);
  if (it == kernels.end()) {
    s.problem(std::string("kernel ") + name + " is not an entry of its module's PTX");
    return nullptr;
  }
  return &it->second;
}

void *mgpuStreamCreate() { return reinterpret_cast<void *>(1); }
void mgpuStreamDestroy(void *) {}
void mgpuStreamSynchronize(void *) {}

void mgpuLaunchKernel(void *function, intptr_t gridX, intptr_t gridY, intptr_t gridZ,
                      intptr_t blockX, intptr_t blockY, intptr_t blockZ, int32_t smem, void *,
                      void **params, void **extra, size_t paramsCount) {
  State &s = state();
  std::lock_guard<std::mutex> lock(s.lock);
  ++s.launches;
  if (!function) {
    s.problem("a launch of a kernel that was not found");
    return;
  }
  const Kernel &k = *static_cast<const Kernel *>(function);
  s.kernelsLaunched.insert(k.name);
  if (s.profiling) {
    ++s.profile[k.name].calls;
    s.profile[k.name].ms += 0.001;
  }
  if (paramsCount != k.params || (paramsCount && !params) || extra)
    s.problem("kernel " + k.name + " takes " + std::to_string(k.params) +
              " parameters but is launched with " + std::to_string(paramsCount));
  intptr_t threads = blockX * blockY * blockZ;
  if (threads * gridX * gridY * gridZ == 1)
    ++s.singleThread;
  if (gridX < 1 || gridY < 1 || gridZ < 1 || threads < 1 || threads > 1024 || smem < 0)
    s.problem("kernel " + k.name + " is launched on grid " + std::to_string(gridX) + "x" +
              std::to_string(gridY) + "x" + std::to_string(gridZ) + ", block " +
              std::to_string(blockX) + "x" + std::to_string(blockY) + "x" +
              std::to_string(blockZ));
}

void mt_blas_gemm_f32(int64_t ta, int64_t tb, int64_t m, int64_t n, int64_t k, int64_t a,
                      int64_t lda, int64_t b, int64_t ldb, int64_t c, int64_t ldc) {
  gemm(ta, tb, m, n, k, a, lda, b, ldb, c, ldc, sizeof(float));
}

void mt_blas_gemm_f64(int64_t ta, int64_t tb, int64_t m, int64_t n, int64_t k, int64_t a,
                      int64_t lda, int64_t b, int64_t ldb, int64_t c, int64_t ldc) {
  gemm(ta, tb, m, n, k, a, lda, b, ldb, c, ldc, sizeof(double));
}

void mt_blas_gemm_bf16(int64_t ta, int64_t tb, int64_t m, int64_t n, int64_t k, int64_t a,
                       int64_t lda, int64_t b, int64_t ldb, int64_t c, int64_t ldc) {
  gemm(ta, tb, m, n, k, a, lda, b, ldb, c, ldc, 2, 0, 0, 0, 1, sizeof(float));
}

void mt_blas_gemm_batched_bf16(int64_t ta, int64_t tb, int64_t m, int64_t n, int64_t k, int64_t a,
                               int64_t lda, int64_t sa, int64_t b, int64_t ldb, int64_t sb,
                               int64_t c, int64_t ldc, int64_t sc, int64_t count) {
  gemm(ta, tb, m, n, k, a, lda, b, ldb, c, ldc, 2, sa, sb, sc, count, sizeof(float));
}

void mt_blas_gemm_bf16_into_bf16(int64_t ta, int64_t tb, int64_t m, int64_t n, int64_t k,
                                 int64_t a, int64_t lda, int64_t b, int64_t ldb, int64_t c,
                                 int64_t ldc) {
  gemm(ta, tb, m, n, k, a, lda, b, ldb, c, ldc, 2);
}

void mt_blas_gemm_f16_into_f16(int64_t ta, int64_t tb, int64_t m, int64_t n, int64_t k, int64_t a,
                               int64_t lda, int64_t b, int64_t ldb, int64_t c, int64_t ldc) {
  gemm(ta, tb, m, n, k, a, lda, b, ldb, c, ldc, 2);
}

void mt_blas_gemm_batched_bf16_into_bf16(int64_t ta, int64_t tb, int64_t m, int64_t n, int64_t k,
                                         int64_t a, int64_t lda, int64_t sa, int64_t b,
                                         int64_t ldb, int64_t sb, int64_t c, int64_t ldc,
                                         int64_t sc, int64_t count) {
  gemm(ta, tb, m, n, k, a, lda, b, ldb, c, ldc, 2, sa, sb, sc, count);
}

void mt_blas_gemm_batched_f16_into_f16(int64_t ta, int64_t tb, int64_t m, int64_t n, int64_t k,
                                       int64_t a, int64_t lda, int64_t sa, int64_t b, int64_t ldb,
                                       int64_t sb, int64_t c, int64_t ldc, int64_t sc,
                                       int64_t count) {
  gemm(ta, tb, m, n, k, a, lda, b, ldb, c, ldc, 2, sa, sb, sc, count);
}

void mt_blas_gemm_f16(int64_t ta, int64_t tb, int64_t m, int64_t n, int64_t k, int64_t a,
                      int64_t lda, int64_t b, int64_t ldb, int64_t c, int64_t ldc) {
  gemm(ta, tb, m, n, k, a, lda, b, ldb, c, ldc, 2, 0, 0, 0, 1, sizeof(float));
}

void mt_blas_gemm_batched_f16(int64_t ta, int64_t tb, int64_t m, int64_t n, int64_t k, int64_t a,
                              int64_t lda, int64_t sa, int64_t b, int64_t ldb, int64_t sb,
                              int64_t c, int64_t ldc, int64_t sc, int64_t count) {
  gemm(ta, tb, m, n, k, a, lda, b, ldb, c, ldc, 2, sa, sb, sc, count, sizeof(float));
}

void mt_blas_gemm_batched_f32(int64_t ta, int64_t tb, int64_t m, int64_t n, int64_t k, int64_t a,
                              int64_t lda, int64_t sa, int64_t b, int64_t ldb, int64_t sb,
                              int64_t c, int64_t ldc, int64_t sc, int64_t count) {
  gemm(ta, tb, m, n, k, a, lda, b, ldb, c, ldc, sizeof(float), sa, sb, sc, count);
}

void mt_blas_gemm_batched_f64(int64_t ta, int64_t tb, int64_t m, int64_t n, int64_t k, int64_t a,
                              int64_t lda, int64_t sa, int64_t b, int64_t ldb, int64_t sb,
                              int64_t c, int64_t ldc, int64_t sc, int64_t count) {
  gemm(ta, tb, m, n, k, a, lda, b, ldb, c, ldc, sizeof(double), sa, sb, sc, count);
}

} // extern "C"
