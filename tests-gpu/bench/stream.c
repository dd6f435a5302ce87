// BabelStream-style Copy (c[i] = a[i]) and Dot (sum of a[i]*b[i]) on doubles,
// N = 2^25 (256 MiB per array), with the arrays resident on the device
// (`target data`), so only the kernels are timed. Reports bytes moved per
// rep (2 * 8 * N for both) for GB/s. The inputs are multiples of 1/8 and 1/4,
// so the dot product is exact in double in any summation order.
#include "bench.h"

#pragma omp declare target
static inline double a_init(int i) { return 1.0 + (double)(i % 7) * 0.25; }
static inline double b_init(int i) { return 2.0 - (double)(i % 5) * 0.125; }
#pragma omp end declare target

static void copy(const double *a, double *c, int n) {
#pragma omp target teams distribute parallel for map(to : a[0 : n]) map(tofrom : c[0 : n])
  for (int i = 0; i < n; ++i)
    c[i] = a[i];
}

static double dot(const double *a, const double *b, int n) {
  double s = 0.0;
#pragma omp target teams distribute parallel for reduction(+ : s) map(to : a[0 : n], b[0 : n])
  for (int i = 0; i < n; ++i)
    s += a[i] * b[i];
  return s;
}

int main(int argc, char **argv) {
  int n = (int)bench_size(25);
  double *a = bench_alloc(sizeof(double) * n), *b = bench_alloc(sizeof(double) * n), *c = bench_alloc(sizeof(double) * n);
  double expect_dot = 0.0;
  for (int i = 0; i < n; ++i) {
    a[i] = a_init(i);
    b[i] = b_init(i);
    c[i] = 0.0;
    expect_dot += a[i] * b[i];
  }
#pragma omp target data map(to : a[0 : n], b[0 : n]) map(alloc : c[0 : n])
  {
    if (bench_wanted(argc, argv, "copy")) {
      double t;
      BENCH_TIME(&t, copy(a, c, n));
#pragma omp target update from(c[0 : n])
      int valid = memcmp(a, c, sizeof(double) * n) == 0;
      bench_report("copy", t, valid, 2.0 * sizeof(double) * n);
    }
    if (bench_wanted(argc, argv, "dot")) {
      double t, s = 0.0;
      int valid = 1;
      BENCH_TIME(&t, s = dot(a, b, n); valid &= s == expect_dot);
      bench_report("dot", t, valid, 2.0 * sizeof(double) * n);
    }
  }
  free(a);
  free(b);
  free(c);
  return 0;
}
