// A launch storm: 10,000 kernels back to back, each allocating and freeing
// on the device heap through the runtime: `__kmpc_alloc_shared` past the
// 512-byte shared stack (a generic kernel's array shared with its parallel
// region, and in an SPMD kernel each thread's array shared with a nested
// region), dynamic loops' records, and malloc/free and omp_alloc/omp_free
// in every thread. Every launch's result is checked, and afterwards one
// kernel still gets a large block of the device heap (4 MiB of CUDA's
// default 8 MiB): launches that leaked half a KiB each would have used the
// heap up.
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

#define LAUNCHES 10000
#define M 1024
#define LARGE (4 << 20)
#define KINDS 4

#pragma omp declare target
// Each calling thread's `part` is shared with the nested (serialized)
// region, so clang allocates it with __kmpc_alloc_shared.
static long nested_part(int l) {
  int part[300];
#pragma omp parallel for num_threads(2)
  for (int i = 0; i < 300; ++i)
    part[i] = i + l;
  long bad = 0;
  for (int i = 0; i < 300; ++i)
    bad += part[i] != i + l;
  return bad;
}
#pragma omp end declare target

int main(void) {
  long wrong = 0;
  int out[M];
  int kinds[KINDS] = {0};
#pragma omp target data map(alloc : out[0 : M])
  for (int l = 0; l < LAUNCHES; ++l) {
    int kind = l % KINDS;
    ++kinds[kind];
    long bad = 0;
    if (kind == 0) {
#pragma omp target map(tofrom : bad) firstprivate(l)
      {
        int shared[300];
#pragma omp parallel num_threads(64)
        for (int i = omp_get_thread_num(); i < 300; i += omp_get_num_threads())
          shared[i] = i + l;
        for (int i = 0; i < 300; ++i)
          bad += shared[i] != i + l;
      }
    } else if (kind == 1) {
#pragma omp target teams distribute parallel for schedule(dynamic, 3) num_teams(4) thread_limit(64) firstprivate(l)
      for (int i = 0; i < M; ++i)
        out[i] = i ^ l;
#pragma omp target update from(out[0 : M])
      for (int i = 0; i < M; ++i)
        bad += out[i] != (i ^ l);
    } else if (kind == 2) {
#pragma omp target teams distribute parallel for num_teams(2) thread_limit(64) reduction(+ : bad) firstprivate(l)
      for (int i = 0; i < 128; ++i)
        bad += nested_part(l + i);
    } else {
#pragma omp target teams distribute parallel for num_teams(4) thread_limit(64) reduction(+ : bad) firstprivate(l)
      for (int i = 0; i < 256; ++i) {
        long *p = (long *)malloc(16 * sizeof(long));
        int *q = (int *)omp_alloc(8 * sizeof(int), omp_default_mem_alloc);
        if (!p || !q) {
          ++bad;
        } else {
          p[15] = i + l;
          q[7] = i;
          bad += p[15] != i + l || q[7] != i;
        }
        free(p);
        omp_free(q, omp_default_mem_alloc);
      }
    }
    wrong += bad;
  }

  int large_ok = 0;
#pragma omp target map(tofrom : large_ok)
  {
    char *big = (char *)malloc(LARGE);
    if (big) {
      big[0] = 1;
      big[LARGE - 1] = 2;
      large_ok = big[0] + big[LARGE - 1] == 3;
      free(big);
    }
  }
  printf("launch storm: %d launches (%d generic with a shared array, %d dynamic loops, %d SPMD with nested shared arrays, %d heap blocks "
         "per thread), wrong %ld\n",
         LAUNCHES, kinds[0], kinds[1], kinds[2], kinds[3], wrong);
  printf("then a 4 MiB device allocation: %s\n", large_ok ? "ok" : "FAILED");
  return wrong != 0 || !large_ok;
}
