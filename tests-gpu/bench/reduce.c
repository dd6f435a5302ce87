// Reductions: min and max together over N = 2^25 doubles (bytes read per rep:
// 8 * N), and a sum under `num_teams(4096) thread_limit(256)` over 2^20
// elements, one per thread, so the time is dominated by combining the
// partial results of 4096 teams. Values are multiples of 1/8 (exact sums).
#include "bench.h"

#define TEAMS 4096
#define TEAM_THREADS 256

#pragma omp declare target
static inline double value(int i) { return (double)((i * 7919u) % 100003u) * 0.125 - 6000.0; }
#pragma omp end declare target

static void minmax(const double *a, int n, double *mn_out, double *mx_out) {
  double mn = 1e300, mx = -1e300;
#pragma omp target teams distribute parallel for reduction(min : mn) reduction(max : mx) map(to : a[0 : n])
  for (int i = 0; i < n; ++i) {
    mn = a[i] < mn ? a[i] : mn;
    mx = a[i] > mx ? a[i] : mx;
  }
  *mn_out = mn;
  *mx_out = mx;
}

static double teams_sum(const double *a, int n) {
  double s = 0.0;
#pragma omp target teams distribute parallel for num_teams(TEAMS) thread_limit(TEAM_THREADS) reduction(+ : s) \
    map(to : a[0 : n])
  for (int i = 0; i < n; ++i)
    s += a[i];
  return s;
}

int main(int argc, char **argv) {
  int n = (int)bench_size(25);
  int m = (int)bench_size(20); // TEAMS * TEAM_THREADS
  if (m > n)
    m = n;
  double *a = bench_alloc(sizeof(double) * n);
  double emn = 1e300, emx = -1e300, esum = 0.0;
  for (int i = 0; i < n; ++i) {
    a[i] = value(i);
    emn = a[i] < emn ? a[i] : emn;
    emx = a[i] > emx ? a[i] : emx;
    if (i < m)
      esum += a[i];
  }
#pragma omp target data map(to : a[0 : n])
  {
    if (bench_wanted(argc, argv, "minmax")) {
      double t, mn = 0, mx = 0;
      int valid = 1;
      BENCH_TIME(&t, minmax(a, n, &mn, &mx); valid &= mn == emn && mx == emx);
      bench_report("minmax", t, valid, (double)sizeof(double) * n);
    }
    if (bench_wanted(argc, argv, "teams_sum")) {
      double t, s = 0;
      int valid = 1;
      BENCH_TIME(&t, s = teams_sum(a, m); valid &= s == esum);
      bench_report("teams_sum", t, valid, 0);
    }
  }
  free(a);
  return 0;
}
