// target teams: each team records its number and the team count.
#include <omp.h>
#include <stdio.h>

#define TEAMS 8

int main(void) {
  int seen[TEAMS] = {0}, count[TEAMS] = {0};
#pragma omp target teams num_teams(TEAMS) map(tofrom : seen, count)
  {
    int t = omp_get_team_num();
    if (t < TEAMS) {
      seen[t] = t + 1;
      count[t] = omp_get_num_teams();
    }
  }
  int bad = 0;
  for (int t = 0; t < TEAMS; ++t)
    bad += seen[t] != t + 1 || count[t] != TEAMS;
  printf("teams bad=%d\n", bad);
  return bad != 0;
}
