// Reductions: parallel (SPMD and generic), teams over many teams, and the
// combined construct, for + on int, * on double, max on long, && on int.
#include <omp.h>
#include <stdio.h>

#define N 100000

int main(void) {
  static double v[N];
  for (int i = 0; i < N; ++i)
    v[i] = (i % 7) - 3;
  long sum = 0, big = 0;
  double prod = 1.0;
  int all = 1, team_sum = 0, generic_sum = 0;
#pragma omp target teams distribute parallel for reduction(+ : sum) reduction(max : big) map(to : v)
  for (int i = 0; i < N; ++i) {
    sum += (long)v[i] + 3;
    if ((long)v[i] * i > big)
      big = (long)v[i] * i;
  }
#pragma omp target parallel for reduction(* : prod) reduction(&& : all)
  for (int i = 1; i <= 10; ++i) {
    prod *= 2.0;
    all = all && (i > 0);
  }
#pragma omp target teams num_teams(300) reduction(+ : team_sum)
  team_sum += 1;
#pragma omp target map(tofrom : generic_sum)
  {
    int local = 0;
#pragma omp parallel reduction(+ : local)
    local += omp_get_thread_num() + 1;
    generic_sum = local;
  }
  long expect_sum = 0, expect_big = 0;
  for (int i = 0; i < N; ++i) {
    expect_sum += (long)v[i] + 3;
    if ((long)v[i] * i > expect_big)
      expect_big = (long)v[i] * i;
  }
  int ok = sum == expect_sum && big == expect_big && prod == 1024.0 && all == 1 && team_sum == 300 && generic_sum > 0;
  printf("reductions ok=%d\n", ok);
  if (!ok)
    printf("sum=%ld/%ld big=%ld/%ld prod=%g all=%d teams=%d generic=%d\n", sum, expect_sum, big, expect_big, prod, all, team_sum,
           generic_sum);
  return !ok;
}
