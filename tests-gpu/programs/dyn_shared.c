// Dynamic shared memory: `ompx_dyn_cgroup_mem(n)` asks for n bytes of
// CTA-shared memory per team at launch, and `llvm_omp_target_dynamic_shared_alloc()`
// (omp.h) returns them. Each team's threads write their slot, meet at a
// barrier and read a neighbour's: the memory is the team's own (another team
// writing the same slots must not show) and shared by its threads. Checked
// in a generic kernel with a parallel region, an SPMD kernel and a bare one;
// a kernel launched without the clause gets a null pointer from omprt
// (LIBOMPTARGET_SHARED_MEMORY_SIZE unset).
#include <omp.h>
#include <ompx.h>
#include <stdint.h>
#include <stdio.h>

#define TEAMS 6
#define THREADS 64

static int failures;

static void report(const char *what, int bad) {
  if (bad) {
    printf("%s: %d bad\n", what, bad);
    ++failures;
  }
}

// A generic kernel: the team's main thread fills the memory before the
// region, the region's threads read it and write their own slots back.
static int generic_kernel(void) {
  int bad = 0;
#pragma omp target teams num_teams(TEAMS) thread_limit(THREADS) ompx_dyn_cgroup_mem(THREADS * sizeof(int)) map(tofrom : bad)
  {
    int *slot = (int *)llvm_omp_target_dynamic_shared_alloc();
    int team = omp_get_team_num(), team_bad = 0;
    if (slot == 0 || (uintptr_t)slot % 16 != 0) {
      team_bad = 1000;
    } else {
      for (int i = 0; i < THREADS; ++i)
        slot[i] = team * 1000 + i;
#pragma omp parallel num_threads(THREADS) reduction(+ : team_bad)
      {
        int t = omp_get_thread_num(), n = omp_get_num_threads();
        int mine = slot[t];
#pragma omp barrier
        slot[(t + 1) % n] = mine + 1;
#pragma omp barrier
        team_bad += slot[t] != team * 1000 + (t + n - 1) % n + 1;
      }
    }
#pragma omp atomic
    bad += team_bad;
  }
  return bad;
}

// An SPMD kernel: every thread writes its slot, then reads its neighbour's;
// the teams combine their counts with a teams reduction.
static int spmd_kernel(void) {
  int bad = 0;
#pragma omp target teams num_teams(TEAMS) thread_limit(THREADS) ompx_dyn_cgroup_mem(THREADS * sizeof(long)) reduction(+ : bad)
#pragma omp parallel reduction(+ : bad)
  {
    long *slot = (long *)llvm_omp_target_dynamic_shared_alloc();
    int t = omp_get_thread_num(), n = omp_get_num_threads(), team = omp_get_team_num();
    slot[t] = team * 100000L + t;
#pragma omp barrier
    bad += slot[(t + 1) % n] != team * 100000L + (t + 1) % n;
  }
  return bad;
}

// A bare kernel (no runtime initialisation).
static int bare_kernel(void) {
  static int seen[TEAMS * THREADS];
#pragma omp target teams ompx_bare num_teams(TEAMS) thread_limit(THREADS) ompx_dyn_cgroup_mem(THREADS * sizeof(int)) map(from : seen)
  {
    int *slot = (int *)llvm_omp_target_dynamic_shared_alloc();
    int t = ompx_thread_id_x(), b = ompx_block_id_x();
    slot[t] = b * 1000 + t;
    ompx_sync_block(ompx_seq_cst);
    seen[b * THREADS + t] = slot[(t + 1) % THREADS];
  }
  int bad = 0;
  for (int g = 0; g < TEAMS * THREADS; ++g)
    bad += seen[g] != (g / THREADS) * 1000 + (g % THREADS + 1) % THREADS;
  return bad;
}

int main(void) {
  int on_device = 0, without_clause_null = 0;
#pragma omp target map(from : on_device, without_clause_null)
  {
    on_device = !omp_is_initial_device();
    without_clause_null = llvm_omp_target_dynamic_shared_alloc() == 0;
  }
  if (on_device) {
    report("generic", generic_kernel());
    report("spmd", spmd_kernel());
    report("bare", bare_kernel());
    report("without the clause, not null", !without_clause_null);
  }
  printf("dyn_shared ok=%d\n", failures == 0);
  return failures != 0;
}
