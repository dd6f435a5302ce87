// Generic-mode kernels and what openmp-opt makes of them with the runtime
// linked in (see tests-gpu/tests/remarks.rs):
// - the first is SPMDized (OMP120): its sequential code has no side effects;
// - the second keeps generic mode (OMP121: printf is a side effect) and gets
//   a compiler-built state machine with a fallback (OMP132/OMP133).
#include <omp.h>
#include <stdio.h>

int main(void) {
  int a[256] = {0}, b[128] = {0};
#pragma omp target teams num_teams(2) map(tofrom : a)
  {
    int base = omp_get_team_num();
#pragma omp parallel
    a[base * 128 + omp_get_thread_num() % 128] = base + 1;
  }
#pragma omp target map(tofrom : b)
  {
    printf("hello from the main thread\n");
#pragma omp parallel
    b[omp_get_thread_num() % 128] = 1;
  }
  printf("a0=%d a128=%d b0=%d\n", a[0], a[128], b[0]);
  return !(a[0] == 1 && a[128] == 2 && b[0] == 1);
}
