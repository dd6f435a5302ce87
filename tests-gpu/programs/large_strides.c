// Loops whose chunks times their takers pass the loop type's range. The
// static stride of `dist_schedule(static, 1 << 20)` on 3200 teams is
// 3200 << 20, past INT_MAX: wrapped, it sends a team back to negative
// iterations. A dynamic chunk of 2^62 on a 64-bit loop: unbounded, the team's
// counter of handed-out iterations wraps to 0 after four grabs. Every
// iteration must run once; the sums say so.
#include <stdio.h>

int main(void) {
  const int n = 1000000000;
  long sum = 0, count = 0;
#pragma omp target teams distribute num_teams(3200) dist_schedule(static, 1 << 20) reduction(+ : sum, count)
  for (int i = 0; i < n; ++i) {
    sum += i;
    count += 1;
  }

  long dsum = 0, dcount = 0;
#pragma omp target parallel for num_threads(128) schedule(dynamic, 1L << 62) reduction(+ : dsum, dcount)
  for (long i = 0; i < 1000; ++i) {
    dsum += i;
    dcount += 1;
  }

  int bad = sum != 499999999500000000L || count != n || dsum != 499500 || dcount != 1000;
  printf("large_strides sum=%ld count=%ld dsum=%ld dcount=%ld\n", sum, count, dsum, dcount);
  return bad;
}
