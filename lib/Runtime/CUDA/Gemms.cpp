//===- Gemms.cpp - mt_blas_gemm_* on cuBLAS --------------------------------===//
//
// mt-convert-contractions-to-blas emits C += op(A) op(B) on row-major
// matrices with addresses as integers; here they are device addresses. A
// row-major matrix is its transpose to column-major cuBLAS, so the product
// is computed as C^T += op(B)^T op(A)^T. FP32 math stays FP32 (no TF32):
// the fp32 plan must agree with the CPU's.
//
//===----------------------------------------------------------------------===//
#include "CudaState.h"
#include "Profile.h"

#include <cublas_v2.h>

#include <cstdint>

namespace {

struct Handle {
  cublasHandle_t handle = nullptr;
  ~Handle() {
    if (handle)
      cublasDestroy(handle);
  }
};
thread_local Handle threadHandle;

cublasHandle_t handle() {
  if (!threadHandle.handle) {
    if (!mt::cuda::bindThread())
      return nullptr;
    cublasStatus_t s = cublasCreate(&threadHandle.handle);
    if (s != CUBLAS_STATUS_SUCCESS) {
      mt::cuda::recordMessage(std::string("cublasCreate failed: ") + cublasGetStatusString(s));
      threadHandle.handle = nullptr;
      return nullptr;
    }
    cublasSetMathMode(threadHandle.handle, CUBLAS_DEFAULT_MATH);
  }
  cublasSetStream(threadHandle.handle, mt::cuda::threadStream());
  return threadHandle.handle;
}

bool check(cublasStatus_t s, const char *what) {
  if (s == CUBLAS_STATUS_SUCCESS)
    return true;
  return mt::cuda::recordMessage(std::string(what) + " failed: " + cublasGetStatusString(s));
}

cublasOperation_t op(int64_t transposed) { return transposed ? CUBLAS_OP_T : CUBLAS_OP_N; }

/// Times one GEMM call for a profile, named by its types and shape:
/// "gemm bf16>bf16 4096x2304x768 NT", "... x48" when batched.
mt::cuda::ProfiledSpan profiled(const char *types, int64_t ta, int64_t tb, int64_t m, int64_t n,
                                int64_t k, int64_t count = 1) {
  return mt::cuda::ProfiledSpan(
      [&] {
        return std::string("gemm ") + types + " " + std::to_string(m) + "x" + std::to_string(n) +
               "x" + std::to_string(k) + " " + (ta ? "T" : "N") + (tb ? "T" : "N") +
               (count > 1 ? " x" + std::to_string(count) : "");
      },
      2.0 * static_cast<double>(m) * static_cast<double>(n) * static_cast<double>(k) *
          static_cast<double>(count));
}

} // namespace

extern "C" {

void mt_blas_gemm_f32(int64_t ta, int64_t tb, int64_t m, int64_t n, int64_t k, int64_t a,
                      int64_t lda, int64_t b, int64_t ldb, int64_t c, int64_t ldc) {
  cublasHandle_t h = handle();
  if (!h)
    return;
  auto span = profiled("f32", ta, tb, m, n, k);
  const float one = 1.0f;
  check(cublasSgemm(h, op(tb), op(ta), static_cast<int>(n), static_cast<int>(m),
                    static_cast<int>(k), &one, reinterpret_cast<const float *>(b),
                    static_cast<int>(ldb), reinterpret_cast<const float *>(a),
                    static_cast<int>(lda), &one, reinterpret_cast<float *>(c),
                    static_cast<int>(ldc)),
        "cublasSgemm");
}

void mt_blas_gemm_f64(int64_t ta, int64_t tb, int64_t m, int64_t n, int64_t k, int64_t a,
                      int64_t lda, int64_t b, int64_t ldb, int64_t c, int64_t ldc) {
  cublasHandle_t h = handle();
  if (!h)
    return;
  auto span = profiled("f64", ta, tb, m, n, k);
  const double one = 1.0;
  check(cublasDgemm(h, op(tb), op(ta), static_cast<int>(n), static_cast<int>(m),
                    static_cast<int>(k), &one, reinterpret_cast<const double *>(b),
                    static_cast<int>(ldb), reinterpret_cast<const double *>(a),
                    static_cast<int>(lda), &one, reinterpret_cast<double *>(c),
                    static_cast<int>(ldc)),
        "cublasDgemm");
}

// 16-bit A and B (bf16 or fp16), fp32 C, fp32 compute (tensor cores, no
// reduced-precision accumulation).
// `into16`: C has the operands' 16-bit type and is overwritten (beta 0),
// the fp32 sum rounded once; else C is fp32 and accumulated into.
static void gemm16(cudaDataType type, const char *what, int64_t ta, int64_t tb, int64_t m,
                   int64_t n, int64_t k, int64_t a, int64_t lda, int64_t sa, int64_t b, int64_t ldb,
                   int64_t sb, int64_t c, int64_t ldc, int64_t sc, int64_t count,
                   bool into16 = false) {
  cublasHandle_t h = handle();
  if (!h)
    return;
  auto span = profiled(type == CUDA_R_16BF ? (into16 ? "bf16>bf16" : "bf16>f32")
                                           : (into16 ? "f16>f16" : "f16>f32"),
                       ta, tb, m, n, k, count);
  const float one = 1.0f, zero = 0.0f;
  check(cublasGemmStridedBatchedEx(
            h, op(tb), op(ta), static_cast<int>(n), static_cast<int>(m), static_cast<int>(k), &one,
            reinterpret_cast<const void *>(b), type, static_cast<int>(ldb), sb,
            reinterpret_cast<const void *>(a), type, static_cast<int>(lda), sa,
            into16 ? &zero : &one, reinterpret_cast<void *>(c), into16 ? type : CUDA_R_32F,
            static_cast<int>(ldc), sc, static_cast<int>(count), CUBLAS_COMPUTE_32F,
            CUBLAS_GEMM_DEFAULT),
        what);
}

void mt_blas_gemm_bf16(int64_t ta, int64_t tb, int64_t m, int64_t n, int64_t k, int64_t a,
                       int64_t lda, int64_t b, int64_t ldb, int64_t c, int64_t ldc) {
  gemm16(CUDA_R_16BF, "cublasGemmStridedBatchedEx (bf16)", ta, tb, m, n, k, a, lda, 0, b, ldb, 0, c,
         ldc, 0, 1);
}

void mt_blas_gemm_f16(int64_t ta, int64_t tb, int64_t m, int64_t n, int64_t k, int64_t a,
                      int64_t lda, int64_t b, int64_t ldb, int64_t c, int64_t ldc) {
  gemm16(CUDA_R_16F, "cublasGemmStridedBatchedEx (fp16)", ta, tb, m, n, k, a, lda, 0, b, ldb, 0, c,
         ldc, 0, 1);
}

void mt_blas_gemm_bf16_into_bf16(int64_t ta, int64_t tb, int64_t m, int64_t n, int64_t k, int64_t a,
                                 int64_t lda, int64_t b, int64_t ldb, int64_t c, int64_t ldc) {
  gemm16(CUDA_R_16BF, "cublasGemmStridedBatchedEx (bf16 into bf16)", ta, tb, m, n, k, a, lda, 0, b,
         ldb, 0, c, ldc, 0, 1, /*into16=*/true);
}

void mt_blas_gemm_f16_into_f16(int64_t ta, int64_t tb, int64_t m, int64_t n, int64_t k, int64_t a,
                               int64_t lda, int64_t b, int64_t ldb, int64_t c, int64_t ldc) {
  gemm16(CUDA_R_16F, "cublasGemmStridedBatchedEx (fp16 into fp16)", ta, tb, m, n, k, a, lda, 0, b,
         ldb, 0, c, ldc, 0, 1, /*into16=*/true);
}

void mt_blas_gemm_batched_bf16_into_bf16(int64_t ta, int64_t tb, int64_t m, int64_t n, int64_t k,
                                         int64_t a, int64_t lda, int64_t sa, int64_t b, int64_t ldb,
                                         int64_t sb, int64_t c, int64_t ldc, int64_t sc,
                                         int64_t count) {
  gemm16(CUDA_R_16BF, "cublasGemmStridedBatchedEx (bf16 into bf16)", ta, tb, m, n, k, a, lda, sa, b,
         ldb, sb, c, ldc, sc, count, /*into16=*/true);
}

void mt_blas_gemm_batched_f16_into_f16(int64_t ta, int64_t tb, int64_t m, int64_t n, int64_t k,
                                       int64_t a, int64_t lda, int64_t sa, int64_t b, int64_t ldb,
                                       int64_t sb, int64_t c, int64_t ldc, int64_t sc,
                                       int64_t count) {
  gemm16(CUDA_R_16F, "cublasGemmStridedBatchedEx (fp16 into fp16)", ta, tb, m, n, k, a, lda, sa, b,
         ldb, sb, c, ldc, sc, count, /*into16=*/true);
}

void mt_blas_gemm_batched_bf16(int64_t ta, int64_t tb, int64_t m, int64_t n, int64_t k, int64_t a,
                               int64_t lda, int64_t sa, int64_t b, int64_t ldb, int64_t sb,
                               int64_t c, int64_t ldc, int64_t sc, int64_t count) {
  gemm16(CUDA_R_16BF, "cublasGemmStridedBatchedEx (bf16)", ta, tb, m, n, k, a, lda, sa, b, ldb, sb,
         c, ldc, sc, count);
}

void mt_blas_gemm_batched_f16(int64_t ta, int64_t tb, int64_t m, int64_t n, int64_t k, int64_t a,
                              int64_t lda, int64_t sa, int64_t b, int64_t ldb, int64_t sb,
                              int64_t c, int64_t ldc, int64_t sc, int64_t count) {
  gemm16(CUDA_R_16F, "cublasGemmStridedBatchedEx (fp16)", ta, tb, m, n, k, a, lda, sa, b, ldb, sb,
         c, ldc, sc, count);
}

void mt_blas_gemm_batched_f32(int64_t ta, int64_t tb, int64_t m, int64_t n, int64_t k, int64_t a,
                              int64_t lda, int64_t sa, int64_t b, int64_t ldb, int64_t sb,
                              int64_t c, int64_t ldc, int64_t sc, int64_t count) {
  cublasHandle_t h = handle();
  if (!h)
    return;
  auto span = profiled("f32", ta, tb, m, n, k, count);
  const float one = 1.0f;
  check(cublasSgemmStridedBatched(h, op(tb), op(ta), static_cast<int>(n), static_cast<int>(m),
                                  static_cast<int>(k), &one, reinterpret_cast<const float *>(b),
                                  static_cast<int>(ldb), sb, reinterpret_cast<const float *>(a),
                                  static_cast<int>(lda), sa, &one, reinterpret_cast<float *>(c),
                                  static_cast<int>(ldc), sc, static_cast<int>(count)),
        "cublasSgemmStridedBatched");
}

void mt_blas_gemm_batched_f64(int64_t ta, int64_t tb, int64_t m, int64_t n, int64_t k, int64_t a,
                              int64_t lda, int64_t sa, int64_t b, int64_t ldb, int64_t sb,
                              int64_t c, int64_t ldc, int64_t sc, int64_t count) {
  cublasHandle_t h = handle();
  if (!h)
    return;
  auto span = profiled("f64", ta, tb, m, n, k, count);
  const double one = 1.0;
  check(cublasDgemmStridedBatched(h, op(tb), op(ta), static_cast<int>(n), static_cast<int>(m),
                                  static_cast<int>(k), &one, reinterpret_cast<const double *>(b),
                                  static_cast<int>(ldb), sb, reinterpret_cast<const double *>(a),
                                  static_cast<int>(lda), sa, &one, reinterpret_cast<double *>(c),
                                  static_cast<int>(ldc), sc, static_cast<int>(count)),
        "cublasDgemmStridedBatched");
}

} // extern "C"
