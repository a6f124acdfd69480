/* The machine's OpenBLAS sgemm rate (bench/cpu-vs-torch.sh): C = A B on
 * square fp32 matrices, the median of REPEATS products, in GFLOP/s.
 * Usage: sgemm_rate [SIZE] [REPEATS]   (threads: OPENBLAS_NUM_THREADS) */
#include <cblas.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static int compare(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

int main(int argc, char **argv) {
  int n = argc > 1 ? atoi(argv[1]) : 1024, repeats = argc > 2 ? atoi(argv[2]) : 15;
  if (n <= 0 || repeats <= 0) {
    fprintf(stderr, "usage: sgemm_rate [SIZE] [REPEATS]\n");
    return 2;
  }
  float *a = malloc(sizeof(float) * n * n), *b = malloc(sizeof(float) * n * n),
        *c = malloc(sizeof(float) * n * n);
  double *rates = malloc(sizeof(double) * repeats);
  if (!a || !b || !c || !rates)
    return 1;
  for (long i = 0; i < (long)n * n; ++i) {
    a[i] = (float)(i % 7) * 0.25f;
    b[i] = (float)(i % 5) * 0.5f;
  }
  cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, n, n, n, 1, a, n, b, n, 0, c, n);
  for (int r = 0; r < repeats; ++r) {
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, n, n, n, 1, a, n, b, n, 0, c, n);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    double s = (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec);
    rates[r] = 2.0 * n * n * (double)n / s / 1e9;
  }
  qsort(rates, repeats, sizeof(double), compare);
  printf("%.1f\n", rates[repeats / 2]);
  return 0;
}
