// reduction(task, ...) on a parallel region and on a worksharing loop: the
// `in_reduction` tasks (and a taskloop's) add to the copy of the thread that
// creates them, and the construct's reduction combines the copies. omprt
// runs each task undeferred where it is created; LLVM 19's runtime has none
// of the modifier's entry points. The host gives the same output.
#include <omp.h>
#include <stdio.h>

#define N 1000
#define THREADS 128

int main(void) {
  int task_red = 0, team = 0;
  long ws_red = 0;
#pragma omp target parallel num_threads(THREADS) reduction(task, + : task_red) map(tofrom : task_red, team)
  {
    if (omp_get_thread_num() == 0)
      team = omp_get_num_threads();
#pragma omp task in_reduction(+ : task_red)
    task_red += 2;
    task_red += 1;
#pragma omp masked
#pragma omp taskloop in_reduction(+ : task_red) num_tasks(4)
    for (int i = 0; i < 10; ++i)
      task_red += 5;
  }
#pragma omp target parallel for reduction(task, + : ws_red) map(tofrom : ws_red)
  for (int i = 0; i < N; ++i) {
#pragma omp task in_reduction(+ : ws_red) firstprivate(i)
    ws_red += i;
    ws_red += 1;
  }
  printf("task_reduction_modifier team_ok=%d ws_red=%ld\n", team > 0 && task_red == 3 * team + 50, ws_red);
  return !(team > 0 && task_red == 3 * team + 50 && ws_red == 500500);
}
