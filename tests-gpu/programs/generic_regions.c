// A generic-mode target region: sequential code between parallel regions, a
// nested (serialized) region, num_threads, critical, locks and single.
#include <omp.h>
#include <stdio.h>

int main(void) {
  int serial_ok = 0, first = 0, second = 0, nested_ok = 0, crit = 0, locked = 0, singles = 0;
#pragma omp target map(tofrom : serial_ok, first, second, nested_ok, crit, locked, singles)
  {
    omp_lock_t lock;
    omp_init_lock(&lock);
    serial_ok = omp_get_level() == 0 && omp_get_num_threads() == 1 && omp_get_thread_num() == 0;
#pragma omp parallel
    {
#pragma omp atomic
      first += 1;
#pragma omp parallel
      {
        if (omp_get_level() == 2 && omp_get_num_threads() == 1 && omp_get_active_level() == 1) {
#pragma omp atomic
          nested_ok += 1;
        }
      }
#pragma omp critical
      crit += 1;
      omp_set_lock(&lock);
      locked += 1;
      omp_unset_lock(&lock);
#pragma omp single
      singles += 1;
    }
    serial_ok = serial_ok && omp_get_level() == 0;
#pragma omp parallel num_threads(32)
    {
      if (omp_get_num_threads() == 32) {
#pragma omp atomic
        second += 1;
      }
    }
    omp_destroy_lock(&lock);
  }
  int ok = serial_ok && first > 0 && nested_ok == first && crit == first && locked == first && singles == 1 && second == 32;
  printf("generic_regions ok=%d\n", ok);
  if (!ok)
    printf("serial_ok=%d first=%d nested_ok=%d crit=%d locked=%d singles=%d second=%d\n", serial_ok, first, nested_ok, crit, locked,
           singles, second);
  return !ok;
}
