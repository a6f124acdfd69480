/* The ABI between compiled code and OpenBLAS: mt-convert-contractions-to-blas
 * emits calls with plain 64-bit integers (addresses included) so the
 * generated IR needs no pointer types; this shim forwards them to CBLAS.
 * Linked into every native code object mtc produces. */
#include <cblas.h>
#include <stdint.h>

void mt_blas_gemm_f32(int64_t ta, int64_t tb, int64_t m, int64_t n, int64_t k, int64_t a,
                      int64_t lda, int64_t b, int64_t ldb, int64_t c, int64_t ldc) {
  cblas_sgemm(CblasRowMajor, ta ? CblasTrans : CblasNoTrans, tb ? CblasTrans : CblasNoTrans,
              (int)m, (int)n, (int)k, 1.0f, (const float *)(intptr_t)a, (int)lda,
              (const float *)(intptr_t)b, (int)ldb, 1.0f, (float *)(intptr_t)c, (int)ldc);
}

void mt_blas_gemm_f64(int64_t ta, int64_t tb, int64_t m, int64_t n, int64_t k, int64_t a,
                      int64_t lda, int64_t b, int64_t ldb, int64_t c, int64_t ldc) {
  cblas_dgemm(CblasRowMajor, ta ? CblasTrans : CblasNoTrans, tb ? CblasTrans : CblasNoTrans,
              (int)m, (int)n, (int)k, 1.0, (const double *)(intptr_t)a, (int)lda,
              (const double *)(intptr_t)b, (int)ldb, 1.0, (double *)(intptr_t)c, (int)ldc);
}
