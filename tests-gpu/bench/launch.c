// Launch cost: kernels that do no work, so that their time is the device
// side of the runtime's kernel start and end (`__kmpc_target_init` and
// `__kmpc_target_deinit`) plus the launch itself. Both run LAUNCH_TEAMS
// teams of 128 threads, the grid libomptarget 22 picks for a long streaming
// loop (3200 x 128), so the per-team cost is paid as often as there.
//   empty_spmd     `target teams distribute parallel for` over one
//                  iteration per thread with an empty body: an SPMD kernel
//                  (clang makes the combined construct SPMD itself)
//   empty_generic  `target teams` whose body calls `printf` on a path never
//                  taken: a generic-mode kernel (the call keeps openmp-opt
//                  from making it SPMD, OMP121) with no parallel region, so
//                  the workers wait in the state machine until the kernel
//                  ends
// launch.cu is the same pair as empty CUDA kernels on the same grid.
// Bytes per rep: 0 (no bandwidth). scripts/bench-run.sh reports the time
// per launch from the host (BENCH_TIME) and, with ncu, the kernel's own.
#include "bench.h"

#define LAUNCH_TEAMS 3200
#define LAUNCH_THREADS 128

static void empty_spmd(int n) {
#pragma omp target teams distribute parallel for num_teams(LAUNCH_TEAMS) thread_limit(LAUNCH_THREADS)
  for (int i = 0; i < n; ++i) {
  }
}

static void empty_generic(int never) {
#pragma omp target teams num_teams(LAUNCH_TEAMS) thread_limit(LAUNCH_THREADS)
  {
    if (never)
      printf("launch.c: the never-taken path ran\n");
  }
}

int main(int argc, char **argv) {
  int n = LAUNCH_TEAMS * LAUNCH_THREADS;
  // A value the compiler cannot know, 0 at run time.
  int never = argc > 2;
  double t;
  if (bench_wanted(argc, argv, "empty_spmd")) {
    BENCH_TIME(&t, empty_spmd(n));
    bench_report("empty_spmd", t, 1, 0);
  }
  if (bench_wanted(argc, argv, "empty_generic")) {
    BENCH_TIME(&t, empty_generic(never));
    bench_report("empty_generic", t, 1, 0);
  }
  return 0;
}
