/* Support code linked into every native code object mtc produces.
 * (Its collective hooks are in RuntimeHooks.c, shared with GPU code.)
 *
 * GEMMs: mt-convert-contractions-to-blas emits calls with plain 64-bit
 * integers (addresses included) so the generated IR needs no pointer types;
 * these forward them to CBLAS (OpenBLAS).
 *
 * Allocation: the lowered step allocates the same temporaries (some of
 * hundreds of MB, such as vocabulary-sized logits) on every call. malloc
 * would hand the large ones back to the kernel on free and fault them in
 * again, zeroed, on the next call; this cache keeps freed blocks by exact
 * size for reuse. (The memory planner's arena will replace it.) */
#include "mt/Runtime/Abi.h"

#include <cblas.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>

void mt_blas_gemm_f32(int64_t ta, int64_t tb, int64_t m, int64_t n, int64_t k, int64_t a,
                      int64_t lda, int64_t b, int64_t ldb, int64_t c, int64_t ldc) {
  cblas_sgemm(CblasRowMajor, ta ? CblasTrans : CblasNoTrans, tb ? CblasTrans : CblasNoTrans, (int)m,
              (int)n, (int)k, 1.0f, (const float *)(intptr_t)a, (int)lda,
              (const float *)(intptr_t)b, (int)ldb, 1.0f, (float *)(intptr_t)c, (int)ldc);
}

void mt_blas_gemm_f64(int64_t ta, int64_t tb, int64_t m, int64_t n, int64_t k, int64_t a,
                      int64_t lda, int64_t b, int64_t ldb, int64_t c, int64_t ldc) {
  cblas_dgemm(CblasRowMajor, ta ? CblasTrans : CblasNoTrans, tb ? CblasTrans : CblasNoTrans, (int)m,
              (int)n, (int)k, 1.0, (const double *)(intptr_t)a, (int)lda,
              (const double *)(intptr_t)b, (int)ldb, 1.0, (double *)(intptr_t)c, (int)ldc);
}

/* Strided-batched: `count` products, operand i of product p at element
 * offset p * stride (a stride of 0 shares the operand). */
void mt_blas_gemm_batched_f32(int64_t ta, int64_t tb, int64_t m, int64_t n, int64_t k, int64_t a,
                              int64_t lda, int64_t sa, int64_t b, int64_t ldb, int64_t sb,
                              int64_t c, int64_t ldc, int64_t sc, int64_t count) {
  for (int64_t p = 0; p < count; ++p)
    mt_blas_gemm_f32(ta, tb, m, n, k, a + p * sa * 4, lda, b + p * sb * 4, ldb, c + p * sc * 4,
                     ldc);
}

void mt_blas_gemm_batched_f64(int64_t ta, int64_t tb, int64_t m, int64_t n, int64_t k, int64_t a,
                              int64_t lda, int64_t sa, int64_t b, int64_t ldb, int64_t sb,
                              int64_t c, int64_t ldc, int64_t sc, int64_t count) {
  for (int64_t p = 0; p < count; ++p)
    mt_blas_gemm_f64(ta, tb, m, n, k, a + p * sa * 8, lda, b + p * sb * 8, ldb, c + p * sc * 8,
                     ldc);
}

/* 16-bit A and B, fp32 C: OpenBLAS as Debian builds it has no sbgemm or
 * hgemm, so the operands are widened (exactly) into dense fp32 copies and
 * multiplied by sgemm, which sums in fp32 as a GPU's 16-bit GEMM with fp32
 * accumulation does. */
static float bf16ToFloat(uint16_t h) {
  uint32_t bits = (uint32_t)h << 16; /* bf16 is fp32's upper half */
  float v;
  __builtin_memcpy(&v, &bits, sizeof v);
  return v;
}

static float f16ToFloat(uint16_t h) {
  uint32_t sign = (uint32_t)(h & 0x8000) << 16, exponent = (h >> 10) & 0x1f, mantissa = h & 0x3ff;
  uint32_t bits;
  if (exponent == 0x1f) {
    bits = sign | 0x7f800000u | (mantissa << 13); /* inf, nan */
  } else if (exponent) {
    bits = sign | ((exponent + 112) << 23) | (mantissa << 13);
  } else if (mantissa) {
    /* A subnormal half is a normal float: shift the mantissa up. */
    int shift = 0;
    while (!(mantissa & 0x400)) {
      mantissa <<= 1;
      ++shift;
    }
    bits = sign | ((uint32_t)(113 - shift) << 23) | ((mantissa & 0x3ff) << 13);
  } else {
    bits = sign;
  }
  float v;
  __builtin_memcpy(&v, &bits, sizeof v);
  return v;
}

static float *widen(float (*convert)(uint16_t), int64_t src, int64_t rows, int64_t cols,
                    int64_t ld) {
  float *out = (float *)malloc((size_t)(rows * cols) * sizeof(float));
  if (!out)
    return NULL;
  const uint16_t *in = (const uint16_t *)(intptr_t)src;
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t c = 0; c < cols; ++c)
      out[r * cols + c] = convert(in[r * ld + c]);
  return out;
}

static void gemm16(float (*convert)(uint16_t), int64_t ta, int64_t tb, int64_t m, int64_t n,
                   int64_t k, int64_t a, int64_t lda, int64_t b, int64_t ldb, int64_t c,
                   int64_t ldc) {
  int64_t aRows = ta ? k : m, aCols = ta ? m : k, bRows = tb ? n : k, bCols = tb ? k : n;
  float *wa = widen(convert, a, aRows, aCols, lda), *wb = widen(convert, b, bRows, bCols, ldb);
  if (!wa || !wb)
    abort(); /* out of host memory: nothing sensible to compute */
  mt_blas_gemm_f32(ta, tb, m, n, k, (int64_t)(intptr_t)wa, aCols, (int64_t)(intptr_t)wb, bCols, c,
                   ldc);
  free(wa);
  free(wb);
}

/* Round to nearest even (NaN stays NaN). */
static uint16_t floatToBf16(float v) {
  uint32_t bits;
  __builtin_memcpy(&bits, &v, sizeof bits);
  if ((bits & 0x7fffffffu) > 0x7f800000u)
    return (uint16_t)((bits >> 16) | 0x40);
  return (uint16_t)((bits + 0x7fffu + ((bits >> 16) & 1)) >> 16);
}

static uint16_t floatToF16(float v) {
  _Float16 h = (_Float16)v; /* GCC's conversion: round to nearest even */
  uint16_t bits;
  __builtin_memcpy(&bits, &h, sizeof bits);
  return bits;
}

/* C (16-bit) = op(A) op(B): summed in fp32, rounded once, C overwritten. */
static void gemm16Into16(float (*convert)(uint16_t), uint16_t (*round)(float), int64_t ta,
                         int64_t tb, int64_t m, int64_t n, int64_t k, int64_t a, int64_t lda,
                         int64_t b, int64_t ldb, int64_t c, int64_t ldc) {
  float *product = (float *)calloc((size_t)(m * n), sizeof(float));
  if (!product)
    abort();
  gemm16(convert, ta, tb, m, n, k, a, lda, b, ldb, (int64_t)(intptr_t)product, n);
  uint16_t *out = (uint16_t *)(intptr_t)c;
  for (int64_t r = 0; r < m; ++r)
    for (int64_t col = 0; col < n; ++col)
      out[r * ldc + col] = round(product[r * n + col]);
  free(product);
}

void mt_blas_gemm_bf16_into_bf16(int64_t ta, int64_t tb, int64_t m, int64_t n, int64_t k, int64_t a,
                                 int64_t lda, int64_t b, int64_t ldb, int64_t c, int64_t ldc) {
  gemm16Into16(bf16ToFloat, floatToBf16, ta, tb, m, n, k, a, lda, b, ldb, c, ldc);
}

void mt_blas_gemm_f16_into_f16(int64_t ta, int64_t tb, int64_t m, int64_t n, int64_t k, int64_t a,
                               int64_t lda, int64_t b, int64_t ldb, int64_t c, int64_t ldc) {
  gemm16Into16(f16ToFloat, floatToF16, ta, tb, m, n, k, a, lda, b, ldb, c, ldc);
}

void mt_blas_gemm_batched_bf16_into_bf16(int64_t ta, int64_t tb, int64_t m, int64_t n, int64_t k,
                                         int64_t a, int64_t lda, int64_t sa, int64_t b, int64_t ldb,
                                         int64_t sb, int64_t c, int64_t ldc, int64_t sc,
                                         int64_t count) {
  for (int64_t p = 0; p < count; ++p)
    mt_blas_gemm_bf16_into_bf16(ta, tb, m, n, k, a + p * sa * 2, lda, b + p * sb * 2, ldb,
                                c + p * sc * 2, ldc);
}

void mt_blas_gemm_batched_f16_into_f16(int64_t ta, int64_t tb, int64_t m, int64_t n, int64_t k,
                                       int64_t a, int64_t lda, int64_t sa, int64_t b, int64_t ldb,
                                       int64_t sb, int64_t c, int64_t ldc, int64_t sc,
                                       int64_t count) {
  for (int64_t p = 0; p < count; ++p)
    mt_blas_gemm_f16_into_f16(ta, tb, m, n, k, a + p * sa * 2, lda, b + p * sb * 2, ldb,
                              c + p * sc * 2, ldc);
}

void mt_blas_gemm_bf16(int64_t ta, int64_t tb, int64_t m, int64_t n, int64_t k, int64_t a,
                       int64_t lda, int64_t b, int64_t ldb, int64_t c, int64_t ldc) {
  gemm16(bf16ToFloat, ta, tb, m, n, k, a, lda, b, ldb, c, ldc);
}

void mt_blas_gemm_f16(int64_t ta, int64_t tb, int64_t m, int64_t n, int64_t k, int64_t a,
                      int64_t lda, int64_t b, int64_t ldb, int64_t c, int64_t ldc) {
  gemm16(f16ToFloat, ta, tb, m, n, k, a, lda, b, ldb, c, ldc);
}

void mt_blas_gemm_batched_bf16(int64_t ta, int64_t tb, int64_t m, int64_t n, int64_t k, int64_t a,
                               int64_t lda, int64_t sa, int64_t b, int64_t ldb, int64_t sb,
                               int64_t c, int64_t ldc, int64_t sc, int64_t count) {
  for (int64_t p = 0; p < count; ++p)
    mt_blas_gemm_bf16(ta, tb, m, n, k, a + p * sa * 2, lda, b + p * sb * 2, ldb, c + p * sc * 4,
                      ldc);
}

void mt_blas_gemm_batched_f16(int64_t ta, int64_t tb, int64_t m, int64_t n, int64_t k, int64_t a,
                              int64_t lda, int64_t sa, int64_t b, int64_t ldb, int64_t sb,
                              int64_t c, int64_t ldc, int64_t sc, int64_t count) {
  for (int64_t p = 0; p < count; ++p)
    mt_blas_gemm_f16(ta, tb, m, n, k, a + p * sa * 2, lda, b + p * sb * 2, ldb, c + p * sc * 4,
                     ldc);
}

/* Blocks carry a 64-byte header (keeping the payload 64-byte aligned as
 * malloc's 16 would not) holding their size and the free-list link. */
typedef struct Block {
  size_t size;
  struct Block *next;
  char pad[64 - sizeof(size_t) - sizeof(struct Block *)];
} Block;

enum { kBuckets = 1024 };
static Block *freeLists[kBuckets];
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

static size_t bucketOf(size_t size) { return (size * 2654435761u) % kBuckets; }

void *_mlir_memref_to_llvm_alloc(uint64_t size) {
  size_t bucket = bucketOf(size);
  pthread_mutex_lock(&lock);
  for (Block **link = &freeLists[bucket]; *link; link = &(*link)->next)
    if ((*link)->size == size) {
      Block *b = *link;
      *link = b->next;
      pthread_mutex_unlock(&lock);
      return b + 1;
    }
  pthread_mutex_unlock(&lock);
  Block *b = NULL;
  if (posix_memalign((void **)&b, 64, sizeof(Block) + size) != 0)
    return NULL;
  b->size = size;
  return b + 1;
}

void _mlir_memref_to_llvm_free(void *ptr) {
  if (!ptr)
    return;
  Block *b = (Block *)ptr - 1;
  size_t bucket = bucketOf(b->size);
  pthread_mutex_lock(&lock);
  b->next = freeLists[bucket];
  freeLists[bucket] = b;
  pthread_mutex_unlock(&lock);
}
