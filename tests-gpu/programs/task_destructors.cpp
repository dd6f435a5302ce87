// A C++ task with a firstprivate object: clang sets the task's `destructors`
// flag and the runtime must destroy the task's copy when the task ends
// (the host runtime does; LLVM's DeviceRTL leaves the copy undestroyed).
// Each object adds its value to `destroyed` when it dies.
#include <cstdio>

struct Tracked {
  int value;
  int *destroyed;
  Tracked(int v, int *d) : value(v), destroyed(d) {}
  Tracked(const Tracked &o) : value(o.value), destroyed(o.destroyed) {}
  ~Tracked() {
#pragma omp atomic
    *destroyed += value;
  }
};

int main() {
  int sum = 0, destroyed = 0;
#pragma omp target map(tofrom : sum, destroyed)
  {
    Tracked t(10, &destroyed);
#pragma omp task firstprivate(t) shared(sum)
    sum += t.value;
#pragma omp task if (0) firstprivate(t) shared(sum)
    sum += t.value;
#pragma omp taskwait
  }
  // The two tasks' copies and the original: 3 * 10.
  std::printf("task_destructors sum=%d destroyed=%d\n", sum, destroyed);
  return 0;
}
