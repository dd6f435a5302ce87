// The grid of a streaming loop (BabelStream's Triad, a[i] = b[i] + s * c[i]
// on N = 2^25 doubles, 24 * N bytes per rep) under the clauses a user can
// write. Without clauses libomptarget 22 launches 3200 teams of 128 threads
// (its default team count caps the 2^25 / 128 teams the trip count asks
// for), so each team walks ~82 distribute chunks; see
// docs/performance-babelstream.md, "The grid".
//   triad              no clause (3200 x 128)
//   triad_teams_max    num_teams(262144): one iteration per thread
//   triad_teams_cuda   num_teams(32768) thread_limit(256): BabelStream's
//                      CUDA grid for 2^25 elements (4 iterations per thread)
//   triad_threads_256  thread_limit(256) (3200 x 256)
//   triad_threads_1024 thread_limit(1024) (3200 x 1024)
#include "bench.h"

#define SCALAR 0.4

#define TRIAD_KERNEL(NAME, CLAUSES)                                                                                    \
  static void NAME(double *a, const double *b, const double *c, int n) {                                             \
    _Pragma(CLAUSES) for (int i = 0; i < n; ++i) a[i] = b[i] + SCALAR * c[i];                                         \
  }

TRIAD_KERNEL(triad, "omp target teams distribute parallel for")
TRIAD_KERNEL(triad_teams_max, "omp target teams distribute parallel for num_teams(262144)")
TRIAD_KERNEL(triad_teams_cuda, "omp target teams distribute parallel for num_teams(32768) thread_limit(256)")
TRIAD_KERNEL(triad_threads_256, "omp target teams distribute parallel for thread_limit(256)")
TRIAD_KERNEL(triad_threads_1024, "omp target teams distribute parallel for thread_limit(1024)")

int main(int argc, char **argv) {
  int n = (int)bench_size(25);
  double *a = bench_alloc(sizeof(double) * n), *b = bench_alloc(sizeof(double) * n), *c = bench_alloc(sizeof(double) * n);
  for (int i = 0; i < n; ++i) {
    a[i] = 0.0;
    b[i] = (double)(i % 13) * 0.25;
    c[i] = (double)(i % 7) * 0.5;
  }
  static const struct {
    const char *name;
    void (*run)(double *, const double *, const double *, int);
  } kernels[] = {{"triad", triad},
                 {"triad_teams_max", triad_teams_max},
                 {"triad_teams_cuda", triad_teams_cuda},
                 {"triad_threads_256", triad_threads_256},
                 {"triad_threads_1024", triad_threads_1024}};
#pragma omp target data map(to : b[0 : n], c[0 : n]) map(alloc : a[0 : n])
  for (unsigned k = 0; k < sizeof kernels / sizeof kernels[0]; ++k) {
    if (!bench_wanted(argc, argv, kernels[k].name))
      continue;
#pragma omp target teams distribute parallel for
    for (int i = 0; i < n; ++i)
      a[i] = -1.0;
    double t;
    BENCH_TIME(&t, kernels[k].run(a, b, c, n));
#pragma omp target update from(a[0 : n])
    int valid = 1;
    for (int i = 0; i < n; ++i)
      valid &= a[i] == b[i] + SCALAR * c[i];
    bench_report(kernels[k].name, t, valid, 24.0 * n);
  }
  free(a);
  free(b);
  free(c);
  return 0;
}
