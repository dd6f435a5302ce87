// ICVs a target region sets on the device: def-allocator-var, which the null
// allocator stands for (the main thread's setting seen by its parallel
// region, a task's setting undone when the task ends), and the device's
// nteams-var and teams-thread-limit-var, which a later kernel reads.
#include <omp.h>
#include <stdint.h>
#include <stdio.h>

#pragma omp requires dynamic_allocators

#define THREADS 64

int main(void) {
  int bad = 0, inherited = 0, task_kept = 0, max_teams = 0, thread_limit = 0;
#pragma omp target map(tofrom : bad, inherited, task_kept)
  {
    bad += omp_get_default_allocator() != omp_default_mem_alloc;
    omp_alloctrait_t traits[] = {{omp_atk_alignment, 512}};
    omp_allocator_handle_t wide = omp_init_allocator(omp_default_mem_space, 1, traits);
    omp_set_default_allocator(wide);
#pragma omp parallel num_threads(THREADS) reduction(+ : bad, inherited)
    {
      char *p = (char *)omp_alloc(24, omp_null_allocator);
      inherited += omp_get_default_allocator() == wide && p != NULL && (uintptr_t)p % 512 == 0;
      omp_free(p, omp_null_allocator);
      if (omp_get_thread_num() == 3) {
        // This thread's own: no other thread sees it.
        omp_set_default_allocator(omp_pteam_mem_alloc);
        bad += omp_alloc(8, omp_null_allocator) != NULL;
      }
    }
#pragma omp task shared(bad)
    {
      omp_set_default_allocator(omp_high_bw_mem_alloc);
      bad += omp_get_default_allocator() != omp_high_bw_mem_alloc;
    }
#pragma omp taskwait
    task_kept = omp_get_default_allocator() == wide;
    omp_set_default_allocator(omp_default_mem_alloc);
    omp_destroy_allocator(wide);
    omp_set_num_teams(12);
    omp_set_teams_thread_limit(96);
  }
#pragma omp target teams num_teams(2) map(tofrom : max_teams, thread_limit)
  if (omp_get_team_num() == 0) {
    max_teams = omp_get_max_teams();
    thread_limit = omp_get_teams_thread_limit();
  }
  printf("device ICVs inherited=%d task_kept=%d max_teams=%d thread_limit=%d bad=%d\n", inherited, task_kept,
         max_teams, thread_limit, bad);
  return inherited != THREADS || !task_kept || max_teams != 12 || thread_limit != 96 || bad != 0;
}
