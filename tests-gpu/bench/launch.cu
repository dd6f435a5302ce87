// The native anchor of launch.c: an empty CUDA kernel on the same grid
// (3200 blocks of 128 threads), under launch.c's two benchmark names, so
// scripts/bench-run.sh puts its time next to the OpenMP kernels' start and
// end. Timed like bench.h: BENCH_WARMUP launches, then BENCH_REPS timed
// ones, each followed by cudaDeviceSynchronize as libomptarget waits for a
// synchronous target region.
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <cuda_runtime.h>

__global__ void empty_kernel() {}

static int env_or(const char *name, int dflt) {
  const char *s = getenv(name);
  return s && *s ? atoi(s) : dflt;
}

static bool launch_once() {
  empty_kernel<<<3200, 128>>>();
  return cudaGetLastError() == cudaSuccess && cudaDeviceSynchronize() == cudaSuccess;
}

int main(int argc, char **argv) {
  const char *names[] = {"empty_spmd", "empty_generic"};
  int warmup = env_or("BENCH_WARMUP", 3), reps = env_or("BENCH_REPS", 20);
  for (const char *name : names) {
    if (argc > 1 && strcmp(argv[1], "all") != 0 && strcmp(argv[1], name) != 0)
      continue;
    bool ok = true;
    for (int i = 0; i < warmup; ++i)
      ok &= launch_once();
    auto t0 = std::chrono::steady_clock::now();
    for (int i = 0; i < reps; ++i)
      ok &= launch_once();
    double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() / (reps > 0 ? reps : 1);
    if (!ok) {
      fprintf(stderr, "launch.cu: %s\n", cudaGetErrorString(cudaGetLastError()));
      return 1;
    }
    printf("bench %s %.9f 1 0\n", name, s);
    fflush(stdout);
  }
  return 0;
}
