// Barriers inside a parallel region whose team (num_threads, known only at
// run time) is smaller than the block: the team's barriers must hold only
// the team, while the rest of the block waits at the region's end.
#include <omp.h>
#include <stdio.h>

#define TEAMS 2
#define PHASES 4

static int run(int nt) {
  int counts[TEAMS] = {0}, bad[TEAMS] = {0}, sizes[TEAMS] = {0};
#pragma omp target teams num_teams(TEAMS) thread_limit(128) map(tofrom : counts, bad, sizes) firstprivate(nt)
  {
    int team = omp_get_team_num();
#pragma omp parallel num_threads(nt)
    {
      int n = omp_get_num_threads();
      for (int phase = 1; phase <= PHASES; ++phase) {
#pragma omp atomic
        counts[team] += 1;
#pragma omp barrier
        int seen;
#pragma omp atomic read
        seen = counts[team];
        if (seen != phase * n) {
#pragma omp atomic
          bad[team] += 1;
        }
#pragma omp barrier
      }
      if (omp_get_thread_num() == 0)
        sizes[team] = n;
    }
  }
  int fails = 0;
  for (int t = 0; t < TEAMS; ++t)
    // Generic mode may round the team down to whole warps (as upstream does).
    fails += bad[t] != 0 || sizes[t] < 1 || sizes[t] > nt || counts[t] != PHASES * sizes[t];
  return fails;
}

int main(void) {
  int fails = run(64) + run(8) + run(96) + run(128);
  printf("partial_team_barrier fails=%d\n", fails);
  return fails != 0;
}
