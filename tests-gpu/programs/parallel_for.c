// target parallel for, with and without a chunk, over int and unsigned long.
#include <stdio.h>

#define N 1000

int main(void) {
  int a[N] = {0};
  unsigned long b[N] = {0};
#pragma omp target parallel for map(tofrom : a)
  for (int i = 0; i < N; ++i)
    a[i] += i;
#pragma omp target parallel for schedule(static, 7) map(tofrom : b)
  for (unsigned long i = 0; i < N; ++i)
    b[i] += 2 * i;

  long bad = 0;
  for (int i = 0; i < N; ++i)
    bad += (a[i] != i) + (b[i] != 2ul * (unsigned long)i);
  printf("parallel_for bad=%ld\n", bad);
  return bad != 0;
}
