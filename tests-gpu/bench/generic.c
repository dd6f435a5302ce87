// Generic-mode kernels: `target teams distribute` over blocks of 1024
// doubles, each team running sequential code per block and then a
// `parallel for` over the block, as code written team-by-team does. The
// sequential part calls `printf` on a path never taken, which keeps openmp-opt
// from making the kernel SPMD (OMP121), so every block is one parallel region
// the team's main thread hands to its workers. N = 2^25 doubles, c[i] =
// s_b * a[i] with a per-block factor; bytes per rep 16 * N. `generic_scale`
// lets the runtime pick the teams; `generic_scale_few` asks for 264 teams
// (two per SM of an H100), so each team runs 127 regions.
#include "bench.h"

#define BLOCK 1024

#pragma omp declare target
static inline double block_factor(int b) { return 1.0 + (double)(b % 3) * 0.5; }
#pragma omp end declare target

// The team's loop over its blocks: sequential code, then one parallel region.
#define SCALE_BLOCKS(a, c, n)                                                                                          \
  for (int b = 0; b < (n) / BLOCK; ++b) {                                                                              \
    double s = block_factor(b);                                                                                        \
    if (s < 0.0)                                                                                                       \
      printf("negative factor in block %d\n", b);                                                                      \
    _Pragma("omp parallel for") for (int i = b * BLOCK; i < (b + 1) * BLOCK; ++i) c[i] = s * a[i];                     \
  }

static void generic_scale(const double *a, double *c, int n) {
#pragma omp target teams distribute map(to : a[0 : n]) map(tofrom : c[0 : n])
  SCALE_BLOCKS(a, c, n)
}

static void generic_scale_few(const double *a, double *c, int n) {
#pragma omp target teams distribute num_teams(264) map(to : a[0 : n]) map(tofrom : c[0 : n])
  SCALE_BLOCKS(a, c, n)
}

static int check(const double *a, const double *c, int n) {
  for (int i = 0; i < n; ++i)
    if (c[i] != block_factor(i / BLOCK) * a[i])
      return 0;
  return 1;
}

int main(int argc, char **argv) {
  int n = (int)bench_size(25);
  if (n < BLOCK)
    n = BLOCK;
  double *a = bench_alloc(sizeof(double) * n), *c = bench_alloc(sizeof(double) * n);
  for (int i = 0; i < n; ++i)
    a[i] = (double)(i % 1021) * 0.25, c[i] = 0.0;
#pragma omp target data map(to : a[0 : n]) map(alloc : c[0 : n])
  {
    static const struct {
      const char *name;
      void (*run)(const double *, double *, int);
    } kernels[] = {{"generic_scale", generic_scale}, {"generic_scale_few", generic_scale_few}};
    for (unsigned k = 0; k < sizeof kernels / sizeof kernels[0]; ++k) {
      if (!bench_wanted(argc, argv, kernels[k].name))
        continue;
      double t;
      for (int i = 0; i < n; ++i)
        c[i] = 0.0;
#pragma omp target update to(c[0 : n])
      BENCH_TIME(&t, kernels[k].run(a, c, n));
#pragma omp target update from(c[0 : n])
      bench_report(kernels[k].name, t, check(a, c, n), 2.0 * sizeof(double) * n);
    }
  }
  free(a);
  free(c);
  return 0;
}
