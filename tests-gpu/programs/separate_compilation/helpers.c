// Device functions for main.c's kernels, in a file without a target region.
#include <omp.h>

#pragma omp declare target
int thread_number(void) { return omp_get_thread_num(); }

void fill(int *a, int n) {
#pragma omp for
  for (int i = 0; i < n; ++i)
    a[i] = 2 * i;
}

int sum_of(const int *a, int n) {
  int s = 0;
#pragma omp parallel for reduction(+ : s)
  for (int i = 0; i < n; ++i)
    s += a[i];
  return s;
}
#pragma omp end declare target
