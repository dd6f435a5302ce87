// `target parallel for` over a constant trip count below 2^16, unchunked
// static and static,1: the static schedule divides the trip count by the
// team size. LLVM knows both are small and would shrink that division to 16
// bits, which ptxas compiles (as clang runs it, -c) into a routine that costs
// the kernel 24 registers; the runtime keeps it 32-bit.
#include <stdio.h>

#define N 1000

int main(void) {
  int cnt[N] = {0}, cnt1[N] = {0};
#pragma omp target parallel for schedule(static) map(tofrom : cnt)
  for (int i = 0; i < N; ++i)
    cnt[i] += 1;
#pragma omp target parallel for schedule(static, 1) map(tofrom : cnt1)
  for (int i = 0; i < N; ++i)
    cnt1[i] += 1;

  int bad = 0;
  for (int i = 0; i < N; ++i)
    bad += (cnt[i] != 1) + (cnt1[i] != 1);
  printf("small_loop bad=%d\n", bad);
  return bad != 0;
}
