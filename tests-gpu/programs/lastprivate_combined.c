// `lastprivate` on `target teams distribute parallel for` (an SPMD kernel).
// clang allocates the team's copy of the variable with __kmpc_alloc_shared
// in SPMD team code, which every thread of the team runs; the inner loop's
// last thread writes the copy, and then every thread of the distribute-last
// team copies it out. Failed on an H100 (2026-11-23) while each thread got a
// copy of its own (the copy-out raced); omprt now gives the team one copy
// (host-simulation test spmd_team_code_allocations_are_one_copy_per_team),
// not yet run on a GPU.
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
