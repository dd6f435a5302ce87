// `ompx_bare` kernels: `target teams ompx_bare num_teams(N) thread_limit(M)`
// launches a plain CUDA-style grid (no runtime initialisation, no state
// machine) that reads its coordinates with ompx_thread_id_x(),
// ompx_block_id_x(), ompx_block_dim_x(), ompx_grid_dim_x() and synchronises
// the block with ompx_sync_block(): each thread writes its global index, then
// after the barrier reads its right neighbour's slot within the block. A
// second bare kernel uses a thread count that is not a multiple of 32, and an
// ordinary `target teams distribute parallel for` checks the results on the
// device (the corpus wants a kernel that initialises the runtime in every
// program).
//
// On the host (no offload) clang's ompx.h maps the coordinates to OpenMP
// queries that do not describe a grid, so the program checks itself only when
// its target regions ran on a device and otherwise prints the same line.
#include <omp.h>
#include <ompx.h>
#include <stdio.h>

#define TEAMS 20
#define THREADS 64
#define ODD_THREADS 45

static int failures;

// One bare launch of `teams` x `threads`: id[g] = g, next[g] = the id the
// right neighbour (within the block, wrapping) wrote before the barrier,
// dims[g] = block_dim * 1000 + grid_dim.
static void bare_launch(int teams, int threads, int *id, int *next, int *dims, int total) {
#pragma omp target teams ompx_bare num_teams(teams) thread_limit(threads) map(from : id[0 : total], next[0 : total], dims[0 : total])
  {
    int t = ompx_thread_id_x(), b = ompx_block_id_x();
    int bd = ompx_block_dim_x(), gd = ompx_grid_dim_x();
    int g = b * bd + t;
    id[g] = g;
    dims[g] = bd * 1000 + gd;
    ompx_sync_block(ompx_seq_cst);
    next[g] = id[b * bd + (t + 1) % bd];
    ompx_sync_block_acq_rel();
    // A second phase after the barrier: the neighbour's slot is overwritten
    // only once everybody has read it.
    id[g] = -g;
  }
}

// Checks the results on the device: bad = entries that do not match.
static int device_check(int teams, int threads, const int *id, const int *next, const int *dims) {
  int total = teams * threads, bad = 0;
#pragma omp target teams distribute parallel for reduction(+ : bad) map(to : id[0 : total], next[0 : total], dims[0 : total])
  for (int g = 0; g < total; ++g) {
    int b = g / threads, t = g % threads;
    bad += id[g] != -g;
    bad += next[g] != b * threads + (t + 1) % threads;
    bad += dims[g] != threads * 1000 + teams;
  }
  return bad;
}

static void run(int teams, int threads) {
  static int id[TEAMS * THREADS], next[TEAMS * THREADS], dims[TEAMS * THREADS];
  int total = teams * threads;
  for (int g = 0; g < total; ++g)
    id[g] = next[g] = dims[g] = -7;
  bare_launch(teams, threads, id, next, dims, total);
  int bad = device_check(teams, threads, id, next, dims);
  int host_bad = 0;
  for (int g = 0; g < total; ++g) {
    int b = g / threads, t = g % threads;
    host_bad += id[g] != -g || next[g] != b * threads + (t + 1) % threads || dims[g] != threads * 1000 + teams;
  }
  if (bad || host_bad) {
    printf("bare %dx%d: %d bad on the device, %d on the host; id[1]=%d next[0]=%d dims[0]=%d\n", teams, threads, bad,
           host_bad, id[1], next[0], dims[0]);
    ++failures;
  }
}

int main(void) {
  int on_device = 0;
#pragma omp target map(from : on_device)
  on_device = !omp_is_initial_device();
  if (on_device) {
    run(TEAMS, THREADS);
    run(TEAMS - 7, ODD_THREADS);
  }
  printf("bare ok=%d\n", failures == 0);
  return failures != 0;
}
