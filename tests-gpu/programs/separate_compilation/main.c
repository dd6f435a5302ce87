// Separate compilation: the kernels are in this file, the device functions
// they call in helpers.c, which has no target region. helpers.c's functions
// call the runtime (omp_get_thread_num, an orphaned `omp for`, a `parallel
// for` with a reduction), so every file must reach the one team state the
// kernel set up. Built with -foffload-lto only: in clang's default compile
// each file gets its own copy of the runtime, and helpers.c's functions
// compile to nothing (README, "separate compilation").
#include <omp.h>
#include <stdio.h>

#define N 1000
#define THREADS 64

#pragma omp declare target
int thread_number(void);
void fill(int *a, int n);
int sum_of(const int *a, int n);
#pragma omp end declare target

int main(void) {
  int a[N], ids[THREADS], sum = 0;
  for (int i = 0; i < THREADS; ++i)
    ids[i] = -1;
#pragma omp target parallel num_threads(THREADS) map(tofrom : ids) map(from : a)
  {
    ids[omp_get_thread_num()] = thread_number();
    fill(a, N);
  }
#pragma omp target map(to : a) map(from : sum)
  sum = sum_of(a, N);
  int ids_ok = 0, filled = 0;
  for (int i = 0; i < THREADS; ++i)
    ids_ok += ids[i] == i;
  for (int i = 0; i < N; ++i)
    filled += a[i] == 2 * i;
  printf("separate compilation ids=%d filled=%d sum=%d\n", ids_ok, filled, sum);
  return ids_ok != THREADS || filled != N || sum != N * (N - 1);
}
