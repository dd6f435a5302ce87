// Kernels at once: host threads each launch five `target nowait` kernels
// (a teams reduction, a dynamic loop, tasks, device allocations in generic
// teams, a generic-mode region with dynamic loops), 20 in flight, while the
// first host thread also runs a chain of `depend`ed target tasks whose
// result depends on their order. The kernels share the runtime's device
// globals (the heap, the list of blocks teams give back, the device ICVs)
// while they run; every result is checked against the host's.
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

#define HOST_THREADS 4
#define N (1 << 20)
#define TEAMS 8
#define M 512
#define CHAIN 16

int main(void) {
  long wrong[HOST_THREADS][5] = {{0}};
  long chain = 1, chain_expected = 1;
  for (int step = 0; step < CHAIN; ++step)
    chain_expected = chain_expected * 3 + step;

#pragma omp parallel num_threads(HOST_THREADS) shared(wrong, chain)
  {
    int t = omp_get_thread_num();
    long k = t + 1;
    long red = 0, task_sum = -1, gen_sum = -1;
    int alloc_bad = 0;
    int *a = (int *)malloc(N * sizeof(int));

    if (t == 0) {
      for (int step = 0; step < CHAIN; ++step) {
#pragma omp target map(tofrom : chain) depend(inout : chain) firstprivate(step) nowait
        chain = chain * 3 + step;
      }
    }

#pragma omp target teams distribute parallel for reduction(+ : red) map(tofrom : red) nowait
    for (int i = 0; i < N; ++i)
      red += (long)i * k;

#pragma omp target teams distribute parallel for schedule(dynamic, 7) map(from : a[0 : N]) firstprivate(k) nowait
    for (int i = 0; i < N; ++i)
      a[i] = (int)((i ^ k) & 0x7fffffff);

#pragma omp target map(tofrom : task_sum) firstprivate(k) nowait
#pragma omp parallel num_threads(64)
#pragma omp single
    {
      long parts[16];
      for (int p = 0; p < 16; ++p) {
#pragma omp task shared(parts) firstprivate(p, k)
        {
          long s = 0;
          for (int i = p; i < 4096; i += 16)
            s += (i % 7) * k;
          parts[p] = s;
        }
      }
#pragma omp taskwait
      long s = 0;
      for (int p = 0; p < 16; ++p)
        s += parts[p];
      task_sum = s;
    }

#pragma omp target teams num_teams(TEAMS) thread_limit(64) map(tofrom : alloc_bad) firstprivate(k) nowait
    {
      int team = omp_get_team_num();
      int *m = (int *)malloc(M * sizeof(int));
      long *o = (long *)omp_alloc(M * sizeof(long), omp_default_mem_alloc);
      int bad = m == NULL || o == NULL;
      if (!bad) {
#pragma omp parallel for
        for (int i = 0; i < M; ++i) {
          m[i] = i + team;
          o[i] = (long)i * team * k;
        }
        for (int i = 0; i < M; ++i)
          bad += m[i] != i + team || o[i] != (long)i * team * k;
      }
      free(m);
      omp_free(o, omp_default_mem_alloc);
#pragma omp atomic
      alloc_bad += bad;
    }

#pragma omp target map(tofrom : gen_sum) firstprivate(k) nowait
    {
      long s = 0;
      for (int round = 0; round < 4; ++round) {
        long part = 0;
#pragma omp parallel for schedule(dynamic, 5) reduction(+ : part)
        for (int i = 0; i < 1000; ++i)
          part += i * (round + 1) * k;
        s += part;
      }
      gen_sum = s;
    }

#pragma omp taskwait

    long red_expected = 0, task_expected = 0, gen_expected = 0;
    for (long i = 0; i < N; ++i)
      red_expected += i * k;
    for (int i = 0; i < 4096; ++i)
      task_expected += (i % 7) * k;
    for (int round = 0; round < 4; ++round)
      for (int i = 0; i < 1000; ++i)
        gen_expected += i * (round + 1) * k;
    long dyn_bad = 0;
    for (int i = 0; i < N; ++i)
      dyn_bad += a[i] != (int)((i ^ k) & 0x7fffffff);
    wrong[t][0] = red != red_expected;
    wrong[t][1] = dyn_bad;
    wrong[t][2] = task_sum != task_expected;
    wrong[t][3] = alloc_bad;
    wrong[t][4] = gen_sum != gen_expected;
    free(a);
  }

  const char *kinds[5] = {"teams reduction", "dynamic loop", "tasks", "device allocations", "generic region"};
  int failed = chain != chain_expected;
  for (int kind = 0; kind < 5; ++kind) {
    long w = 0;
    for (int t = 0; t < HOST_THREADS; ++t)
      w += wrong[t][kind];
    printf("concurrent %s: %d kernels, wrong %ld\n", kinds[kind], HOST_THREADS, w);
    failed |= w != 0;
  }
  printf("depend chain of %d target tasks: %s\n", CHAIN, chain == chain_expected ? "in order" : "WRONG");
  return failed;
}
