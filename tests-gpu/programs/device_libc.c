// The C library a target region may call: assert (true here; a false one
// traps), abort (not reached), memcmp, strlen, strcmp, strncmp and puts, in
// a generic region and in every thread of a parallel one; and calls through
// host pointers to `declare target indirect` functions, which
// __llvm_omp_indirect_call_lookup turns into device pointers (clang 22
// leaves that call to the user).
#include <assert.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#pragma omp begin declare variant match(device = {kind(gpu)})
void *__llvm_omp_indirect_call_lookup(void *host_ptr);
#pragma omp declare target to(__llvm_omp_indirect_call_lookup) device_type(nohost)
#pragma omp end declare variant
#pragma omp begin declare variant match(device = {kind(cpu)})
void *__llvm_omp_indirect_call_lookup(void *host_ptr) { return host_ptr; }
#pragma omp end declare variant

#pragma omp begin declare target indirect
int twice(int x) { return 2 * x; }
int plus_one(int x) { return x + 1; }
int negate(int x) { return -x; }
#pragma omp end declare target

typedef int (*op_t)(int);

#define THREADS 96

int main(void) {
  int cmp = 0, per_thread = 0, calls = 0, same = 0;
  char a[8] = "omprt", b[8] = "ompRT";
  op_t ops[3] = {negate, twice, plus_one};
#pragma omp target map(to : a, b, ops) map(tofrom : cmp, per_thread, calls, same)
  {
    assert(strlen(a) == 5);
    cmp = (memcmp(a, b, 3) == 0) + (memcmp(a, b, 4) > 0) + (strcmp(a, b) > 0) + (strcmp(b, a) < 0) +
          (strncmp(a, b, 3) == 0) + (strncmp(a, b, 8) != 0) + (strcmp(a, a) == 0) + (strlen("") == 0);
    if (cmp < 0)
      abort(); // never: a count of true comparisons
    puts("device_libc: puts from the device");
#pragma omp parallel num_threads(THREADS) reduction(+ : per_thread)
    {
      char mine[4] = {'t', (char)('0' + omp_get_thread_num() % 10), 0, 0};
      per_thread += strlen(mine) == 2 && strncmp(mine, "t", 1) == 0 && memcmp(mine, a, 1) != 0;
    }
    int x = 10;
    for (int i = 0; i < 3; ++i)
      x = ((op_t)__llvm_omp_indirect_call_lookup((void *)ops[i]))(x);
    calls = x;
    // A device pointer is no host pointer of the table: it comes back as is.
    same = __llvm_omp_indirect_call_lookup((void *)twice) == (void *)twice &&
           __llvm_omp_indirect_call_lookup(0) == 0;
  }
  printf("device_libc cmp=%d per_thread=%d calls=%d same=%d\n", cmp, per_thread, calls, same);
  return cmp != 8 || per_thread != THREADS || calls != -19 || !same;
}
