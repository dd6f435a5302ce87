// target parallel: every thread reports omp_get_thread_num/num_threads once;
// num_threads smaller than the team and if(false) shrink the region.
#include <omp.h>
#include <stdio.h>

#define MAX 1024

int main(void) {
  int hits[MAX] = {0}, nthreads = -1, small = -1, level = -1;
#pragma omp target parallel map(tofrom : hits, nthreads, level)
  {
    int t = omp_get_thread_num();
    if (t < MAX)
      hits[t] += 1;
    if (t == 0) {
      nthreads = omp_get_num_threads();
      level = omp_get_level();
    }
  }
  int bad = 0;
  for (int t = 0; t < MAX; ++t)
    bad += hits[t] != (t < nthreads);

#pragma omp target teams num_teams(1) thread_limit(128) map(tofrom : small)
  {
#pragma omp parallel num_threads(40)
    {
      if (omp_get_thread_num() == 0)
        small = omp_get_num_threads();
    }
  }
  printf("thread_ids bad=%d team>0=%d level=%d small=%d\n", bad, nthreads > 0, level, small);
  return bad != 0 || nthreads <= 0 || level != 1 || small != 40;
}
