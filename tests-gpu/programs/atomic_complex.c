// Atomic operations on an object no atomic instruction covers: `#pragma omp
// atomic` on a `double _Complex` (16 bytes, aligned to 8), for which clang
// calls libatomic's generic __atomic_load, __atomic_store,
// __atomic_exchange and __atomic_compare_exchange; omprt defines them on
// the device, each object guarded by a lock from a table in device memory.
// Every thread of 64 teams of 128 adds to one sum and to one of 8 others
// (neighbours in memory), then one thread reads, writes and swaps the sum.
// The atomics are compiled for the device only: on the host they would
// need -latomic, and the program reports where its kernels ran.
#include <complex.h>
#include <omp.h>
#include <stdio.h>

#define TEAMS 64
#define THREADS 128
#define N (TEAMS * THREADS * 4)

int main(void) {
  double _Complex total = 0, parts[8] = {0}, seen = 0, swapped = 0;
  int on_device = 0;
#pragma omp target teams distribute parallel for num_teams(TEAMS) thread_limit(THREADS) \
    map(tofrom: total, parts, on_device)
  for (int i = 0; i < N; ++i) {
    if (i == 0)
      on_device = !omp_is_initial_device();
#ifdef __NVPTX__
#pragma omp atomic update
    total += 1.0 + 2.0 * I;
#pragma omp atomic update
    parts[i % 8] += (double)(i % 8) - 1.0 * I;
#endif
  }
  printf("device %d\n", on_device);
  printf("total %.1f %.1f\n", creal(total), cimag(total));
  for (int k = 0; k < 8; ++k)
    printf("part %d %.1f %.1f\n", k, creal(parts[k]), cimag(parts[k]));

#pragma omp target map(tofrom: total, seen, swapped)
  {
#ifdef __NVPTX__
#pragma omp atomic read
    seen = total;
#pragma omp atomic write
    total = 0.5 + 0.25 * I;
#pragma omp atomic capture
    {
      swapped = total;
      total = 7.0 - 7.0 * I;
    }
#endif
  }
  printf("read %.1f %.1f write-swap %.2f %.2f now %.1f %.1f\n", creal(seen), cimag(seen), creal(swapped),
         cimag(swapped), creal(total), cimag(total));
  return 0;
}
