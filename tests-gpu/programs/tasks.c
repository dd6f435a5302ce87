// Explicit tasks in target regions: `task` (shared, firstprivate, `if(0)`,
// `depend`), `taskwait`, `taskgroup`, `taskloop` with `lastprivate` and
// `reduction`, a task's own ICVs, tasks by every thread of a parallel region
// (`omp_in_explicit_task` tells them from implicit tasks). omprt runs tasks
// undeferred; the results are any valid schedule's (the host gives them too).
#include <omp.h>
#include <stdio.h>

#define N 1000
#define THREADS 128

int main(void) {
  int sum = 0, chain = 0, last = -1, icv_kept = 0;
  long loop_sum = 0;
#pragma omp target map(tofrom : sum, chain, last, loop_sum, icv_kept)
  {
    int a = 5;
#pragma omp task shared(sum) firstprivate(a)
    sum += a;
    a = 50; // the task above copied 5
#pragma omp task if (0) shared(sum)
    sum += 100;
#pragma omp taskwait
#pragma omp taskgroup
    {
#pragma omp task depend(out : chain) shared(chain)
      chain = 7;
#pragma omp task depend(inout : chain) shared(chain)
      chain = chain * 3;
#pragma omp task depend(in : chain) shared(chain, sum)
      sum += chain;
    }
#pragma omp taskloop lastprivate(last) shared(sum) grainsize(16)
    for (int i = 0; i < N; ++i) {
#pragma omp atomic
      sum += i % 3;
      last = i;
    }
#pragma omp taskloop reduction(+ : loop_sum) num_tasks(8)
    for (long i = -500; i < N; i += 3)
      loop_sum += i;
    omp_sched_t kind0, kind1;
    int chunk0, chunk1;
    omp_get_schedule(&kind0, &chunk0);
#pragma omp task
    omp_set_schedule(omp_sched_dynamic, 17);
#pragma omp taskwait
    omp_get_schedule(&kind1, &chunk1);
    icv_kept = kind0 == kind1 && chunk0 == chunk1;
  }

  int per_thread[THREADS] = {0}, bad_threads = 0;
#pragma omp target parallel num_threads(THREADS) map(tofrom : per_thread)
  {
    int t = omp_get_thread_num();
    for (int k = 0; k < 4; ++k) {
#pragma omp task shared(per_thread) firstprivate(t, k)
      per_thread[t] += (k + 1) * omp_in_explicit_task();
    }
#pragma omp taskwait
    per_thread[t] += 1000 * omp_in_explicit_task(); // an implicit task
  }
  for (int t = 0; t < THREADS; ++t)
    bad_threads += per_thread[t] != 10;

  printf("tasks sum=%d chain=%d last=%d loop_sum=%ld icv_kept=%d bad_threads=%d\n", sum, chain, last, loop_sum, icv_kept,
         bad_threads);
  return 0;
}
