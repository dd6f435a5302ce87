// `lastprivate` on `target teams distribute parallel for` (an SPMD kernel).
// KNOWN FAILURE with omprt on a GPU (2026-11-23, H100): every iteration runs
// once, but the value copied out is often not the last iteration's. clang
// globalises the team's copy of the variable with __kmpc_alloc_shared, which
// in an SPMD kernel gives each thread its own copy; the inner loop's last
// thread writes its copy, and then every thread of the distribute-last team
// copies its own copy out. See the closing note of issue #4.
#include <stdio.h>

#define N 1000

int main(void) {
  int fails = 0;
  int last = -1;
#pragma omp target teams distribute parallel for lastprivate(last) map(tofrom : last)
  for (int i = 0; i < N; ++i)
    last = i;
  if (last != N - 1) {
    printf("static: lastprivate %d (expected %d)\n", last, N - 1);
    ++fails;
  }
  last = -1;
#pragma omp target teams distribute parallel for schedule(dynamic, 4) lastprivate(last) map(tofrom : last)
  for (int i = 0; i < N; ++i)
    last = i;
  if (last != N - 1) {
    printf("dynamic,4: lastprivate %d (expected %d)\n", last, N - 1);
    ++fails;
  }
  printf("lastprivate_combined ok=%d\n", fails == 0);
  return fails != 0;
}
