// Barriers in an SPMD parallel region whose team is smaller than the block
// (num_threads from a variable, so the launch keeps the default 64 threads):
// the threads outside the team must not pair with the team's barriers.
#include <omp.h>
#include <stdio.h>

int main(void) {
  int bad = 0, counter = 0, nt = 40;
#pragma omp target teams num_teams(1) thread_limit(64) map(tofrom : bad, counter)
#pragma omp parallel num_threads(nt)
  {
    for (int phase = 1; phase <= 3; ++phase) {
#pragma omp atomic
      counter += 1;
#pragma omp barrier
      int seen;
#pragma omp atomic read
      seen = counter;
      if (seen < phase * omp_get_num_threads()) {
#pragma omp atomic
        bad += 1;
      }
#pragma omp barrier
    }
  }
  printf("partial_team_barrier bad=%d counter=%d\n", bad, counter);
  return bad != 0 || counter != 120;
}
