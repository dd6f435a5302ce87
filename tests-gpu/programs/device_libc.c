// The C library a target region may call: assert (true here; a false one
// traps), abort and exit (not reached), memcmp, strlen, strcmp, strncmp and
// puts, in a generic region and in every thread of a parallel one; strcpy,
// strncpy, strcat, strncat, strchr, strrchr, strstr, memchr, strtol and
// its kin, atoi, atol, atoll and clock in a second region (_Exit not
// reached); and calls through
// host pointers to `declare target indirect` functions, which
// __llvm_omp_indirect_call_lookup turns into device pointers (clang 22
// leaves that call to the user).
#include <assert.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

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

  char text[32] = "";
  long numbers = 0;
  int found = 0, ticking = 0;
  int never = cmp == 100; // false at run time, unknown to the compiler
#pragma omp target map(tofrom : text, numbers, found, ticking) map(to : never)
  {
    clock_t start = clock();
    char tail[8];
    strcpy(text, "alpha");
    strcat(text, "-beta");
    strncat(text, "-gamma", 3);
    strncpy(tail, "xyz", sizeof tail);
    strcat(text, tail);
    found = (int)(strchr(text, '-') - text) * 100 + (int)(strrchr(text, '-') - text) * 10 +
            (strstr(text, "beta") == text + 6) + (memchr(text, 'z', 16) == text + 15) + (strchr(text, 'q') == 0);
    char *end;
    numbers = strtol("  -0x1f rest", &end, 0) * 1000 + atoi("42") + (end[1] == 'r') + (long)strtoul("777", 0, 8) +
              atol("7") + atoll("8") + strtoll("9", 0, 10) + (long)strtoull("10", 0, 10);
    ticking = clock() >= start;
    if (never)
      exit(3);
    if (never == 2)
      _Exit(4);
  }
  printf("device_libc text=%s found=%d numbers=%ld ticking=%d\n", text, found, numbers, ticking);
  return cmp != 8 || per_thread != THREADS || calls != -19 || !same || found != 603 || numbers != -30412 || !ticking;
}
