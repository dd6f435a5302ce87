// Atomic operations on objects no atomic instruction covers: `#pragma omp
// atomic` on a `double _Complex` (16 bytes, aligned to 8), for which clang
// calls libatomic's generic __atomic_load, __atomic_store and
// __atomic_compare_exchange, and GCC's __atomic_exchange builtin on a
// 24-byte struct; omprt defines them on the device, each object guarded by
// a lock from a table in device memory.
// Every thread of 64 teams of 128 adds to one sum and to one of 8 others
// (neighbours in memory), then one thread reads and writes the sum and
// swaps a 24-byte struct.
// The atomics are compiled for the device only: on the host they would
// need -latomic, and the program reports where its kernels ran.
#include <complex.h>
#include <omp.h>
#include <stdio.h>

#define TEAMS 64
#define THREADS 128
#define N (TEAMS * THREADS * 4)

int main(void) {
  double _Complex total = 0, parts[8] = {0}, seen = 0;
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

  struct triple {
    double x, y, z;
  } box = {-1, -2, -3}, old = {0, 0, 0};
#pragma omp target map(tofrom: total, seen, box, old)
  {
#ifdef __NVPTX__
#pragma omp atomic read
    seen = total;
#pragma omp atomic write
    total = 0.5 + 0.25 * I;
    // A 24-byte object: no instruction covers it on any arch, so clang
    // calls the generic function (a 16-byte swap becomes a 128-bit
    // exchange, which sm_70 cannot do and sm_90 only 16-byte aligned).
    struct triple fresh = {1, 2, 3};
#pragma clang diagnostic push
#pragma clang diagnostic ignored "-Watomic-alignment" // the point of the test
    __atomic_exchange(&box, &fresh, &old, __ATOMIC_SEQ_CST);
#pragma clang diagnostic pop
#endif
  }
  printf("read %.1f %.1f write %.2f %.2f\n", creal(seen), cimag(seen), creal(total), cimag(total));
  printf("exchange %.0f %.0f %.0f for %.0f %.0f %.0f\n", old.x, old.y, old.z, box.x, box.y, box.z);
  return 0;
}
