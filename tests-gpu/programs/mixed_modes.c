// One parallel region in a declare-target function that kernels of both
// modes call. The function is not inlined, so its region entry cannot learn
// the kernel's mode at compile time and asks at run time
// (__kmpc_is_spmd_exec_mode). In the generic kernels the region gets a team
// of its own; in the SPMD kernel it is nested in the kernel's region, so each
// thread runs it alone (one thread, level 2).
#include <omp.h>
#include <stdio.h>

#pragma omp declare target
__attribute__((noinline)) void bump(int *cells) {
#pragma omp parallel num_threads(64)
  cells[omp_get_thread_num()] += omp_get_num_threads() * 10 + omp_get_level();
}
#pragma omp end declare target

int main(void) {
  int g[64] = {0}, t[3 * 64] = {0}, s[32] = {0};
#pragma omp target thread_limit(128) map(tofrom : g)
  {
    printf("generic kernel\n"); // a side effect keeps this kernel generic
    bump(g);
    bump(g);
  }
#pragma omp target teams num_teams(3) thread_limit(128) map(tofrom : t)
  bump(&t[omp_get_team_num() * 64]);
#pragma omp target parallel num_threads(32) map(tofrom : s)
  bump(&s[omp_get_thread_num()]);
  int bad = 0;
  for (int i = 0; i < 64; ++i) bad += g[i] != 2 * (64 * 10 + 1);
  for (int i = 0; i < 3 * 64; ++i) bad += t[i] != 64 * 10 + 1;
  for (int i = 0; i < 32; ++i) bad += s[i] != 1 * 10 + 2;
  printf("mixed_modes bad=%d g0=%d t0=%d s0=%d\n", bad, g[0], t[0], s[0]);
  return bad != 0;
}
