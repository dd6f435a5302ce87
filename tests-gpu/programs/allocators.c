// Memory allocators in a target region (`requires dynamic_allocators`):
// omp_init_allocator with alignment, pool and fallback traits, each thread of
// a parallel region allocating from them, and the predefined allocators.
#include <omp.h>
#include <stdint.h>
#include <stdio.h>

#pragma omp requires dynamic_allocators

#define THREADS 64

int main(void) {
  int bad = 0, made = 0, pooled = 0;
#pragma omp target map(tofrom : bad, made, pooled)
  {
    omp_alloctrait_t aligned_traits[] = {{omp_atk_alignment, 256}, {omp_atk_access, omp_atv_all}};
    omp_allocator_handle_t aligned = omp_init_allocator(omp_high_bw_mem_space, 2, aligned_traits);
    // 16 blocks of 64 bytes fit; the other threads fall back to NULL.
    omp_alloctrait_t pool_traits[] = {{omp_atk_pool_size, 16 * 64}, {omp_atk_fallback, omp_atv_null_fb}};
    omp_allocator_handle_t pool = omp_init_allocator(omp_default_mem_space, 2, pool_traits);
    made = (aligned != omp_null_allocator) + (pool != omp_null_allocator);
#pragma omp parallel num_threads(THREADS) reduction(+ : bad, pooled)
    {
      int t = omp_get_thread_num();
      double *a = (double *)omp_alloc(10 * sizeof(double), aligned);
      int *d = (int *)omp_aligned_alloc(64, 4 * sizeof(int), omp_default_mem_alloc);
      bad += a == NULL || (uintptr_t)a % 256 != 0 || d == NULL || (uintptr_t)d % 64 != 0;
      if (a && d) {
        for (int i = 0; i < 10; ++i)
          a[i] = t + i;
        d[3] = t;
        bad += a[9] != t + 9 || d[3] != t;
      }
#pragma omp barrier
      void *p = omp_alloc(64, pool);
      pooled += p != NULL;
#pragma omp barrier
      omp_free(p, pool);
      omp_free(a, aligned);
      omp_free(d, omp_default_mem_alloc);
      bad += omp_alloc(8, omp_pteam_mem_alloc) != NULL;
    }
    omp_destroy_allocator(aligned);
    omp_destroy_allocator(pool);
  }
  printf("allocators made=%d pooled=%d bad=%d\n", made, pooled, bad);
  return made != 2 || pooled != 16 || bad != 0;
}
