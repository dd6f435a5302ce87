// Loop schedules under `target teams distribute parallel for`:
//  * uneven work (every 64th iteration 64x heavier), N = 2^18, with
//    schedule(dynamic,1), schedule(guided) and, for reference, schedule(static);
//  * a streaming loop c[i] = 2*a[i] over N = 2^25 doubles with schedule(static,1)
//    (neighbouring threads take neighbouring iterations) against unchunked
//    schedule(static) (each thread takes one contiguous block); bytes per rep
//    16 * N.
#include "bench.h"

#pragma omp declare target
// 1 - 2^-10 and small integers: exact inputs; the loop itself may be
// contracted into FMAs on the device, so results are compared to 1e-12.
static inline double work(int i) {
  int w = i % 64 == 0 ? 1024 : 16;
  double x = (double)(i % 1000);
  for (int k = 0; k < w; ++k)
    x = x * 0.9990234375 + 1.0;
  return x;
}
#pragma omp end declare target

static void uneven_dynamic1(double *out, int n) {
#pragma omp target teams distribute parallel for schedule(dynamic, 1) map(tofrom : out[0 : n])
  for (int i = 0; i < n; ++i)
    out[i] = work(i);
}

static void uneven_guided(double *out, int n) {
#pragma omp target teams distribute parallel for schedule(guided) map(tofrom : out[0 : n])
  for (int i = 0; i < n; ++i)
    out[i] = work(i);
}

static void uneven_static(double *out, int n) {
#pragma omp target teams distribute parallel for schedule(static) map(tofrom : out[0 : n])
  for (int i = 0; i < n; ++i)
    out[i] = work(i);
}

static void scale_static1(const double *a, double *c, int n) {
#pragma omp target teams distribute parallel for schedule(static, 1) map(to : a[0 : n]) map(tofrom : c[0 : n])
  for (int i = 0; i < n; ++i)
    c[i] = 2.0 * a[i];
}

static void scale_static(const double *a, double *c, int n) {
#pragma omp target teams distribute parallel for schedule(static) map(to : a[0 : n]) map(tofrom : c[0 : n])
  for (int i = 0; i < n; ++i)
    c[i] = 2.0 * a[i];
}

static int check_uneven(const double *out, const double *expect, int n) {
  for (int i = 0; i < n; ++i)
    if (!(fabs(out[i] - expect[i]) <= 1e-12 * fabs(expect[i]) + 1e-300))
      return 0;
  return 1;
}

static int check_scale(const double *a, const double *c, int n) {
  for (int i = 0; i < n; ++i)
    if (c[i] != 2.0 * a[i])
      return 0;
  return 1;
}

int main(int argc, char **argv) {
  int nu = (int)bench_size(18), ns = (int)bench_size(25);
  double *out = bench_alloc(sizeof(double) * nu), *expect = bench_alloc(sizeof(double) * nu);
  double *a = bench_alloc(sizeof(double) * ns), *c = bench_alloc(sizeof(double) * ns);
  for (int i = 0; i < nu; ++i)
    expect[i] = work(i), out[i] = 0.0;
  for (int i = 0; i < ns; ++i)
    a[i] = (double)(i % 1021) * 0.5, c[i] = 0.0;

#pragma omp target data map(alloc : out[0 : nu])
  {
    static const struct {
      const char *name;
      void (*run)(double *, int);
    } uneven[] = {{"dynamic1_uneven", uneven_dynamic1}, {"guided_uneven", uneven_guided}, {"static_uneven", uneven_static}};
    for (unsigned k = 0; k < sizeof uneven / sizeof uneven[0]; ++k) {
      if (!bench_wanted(argc, argv, uneven[k].name))
        continue;
      double t;
      for (int i = 0; i < nu; ++i)
        out[i] = 0.0;
#pragma omp target update to(out[0 : nu])
      BENCH_TIME(&t, uneven[k].run(out, nu));
#pragma omp target update from(out[0 : nu])
      bench_report(uneven[k].name, t, check_uneven(out, expect, nu), 0);
    }
  }

#pragma omp target data map(to : a[0 : ns]) map(alloc : c[0 : ns])
  {
    if (bench_wanted(argc, argv, "scale_static1")) {
      double t;
      BENCH_TIME(&t, scale_static1(a, c, ns));
#pragma omp target update from(c[0 : ns])
      bench_report("scale_static1", t, check_scale(a, c, ns), 2.0 * sizeof(double) * ns);
    }
    if (bench_wanted(argc, argv, "scale_static")) {
      double t;
      for (int i = 0; i < ns; ++i)
        c[i] = 0.0;
#pragma omp target update to(c[0 : ns])
      BENCH_TIME(&t, scale_static(a, c, ns));
#pragma omp target update from(c[0 : ns])
      bench_report("scale_static", t, check_scale(a, c, ns), 2.0 * sizeof(double) * ns);
    }
  }
  free(out);
  free(expect);
  free(a);
  free(c);
  return 0;
}
