//! Grids of one device running at the same time: kernels launched from
//! several host threads (`target nowait`, or several host threads offloading)
//! share the device's globals: the list of heap blocks teams give back
//! (`memory::deferred_free`), the per-thread-array flag, the device ICVs, the
//! tasks waiting for detached tasks (`tasks::detach`) and the heap itself.
//! Each test runs two or more grids on one simulated device at once and
//! checks every result, and that the device's heap is whole afterwards.

mod common;

use common::*;
use omprt_abi::ExecMode;
use omprt_device_rtl::arch::sim::{self, Device};
use omprt_device_rtl::exports::{api::*, kernel::*, misc::*, parallel::*, task::*, workshare::*};
use omprt_device_rtl::tasks::detach::{DependInfo, dep_flags};
use std::ffi::c_void;
use std::sync::Barrier;
use std::sync::atomic::{AtomicU64, Ordering};

const DYNAMIC: i32 = 35;
const ITERATIONS: i32 = 1000;

/// A region that makes each thread a state of its own (so its team the
/// per-thread array that holds it, given back at the kernel's end), runs a
/// dynamic loop over `0..ITERATIONS` adding each iteration to the grid's sum,
/// and allocates on the heap through `__kmpc_alloc_shared`'s fallback.
extern "C-unwind" fn churn(_gtid: *mut i32, _btid: *mut i32, sum: *mut c_void) {
    omp_set_num_threads(3);
    let sum = unsafe { &*sum.cast::<AtomicU64>() };
    __kmpc_dispatch_init_4(std::ptr::null(), 0, DYNAMIC, 0, ITERATIONS - 1, 1, 7);
    let (mut last, mut lb, mut ub, mut st) = (0, 0, 0, 0);
    while unsafe { __kmpc_dispatch_next_4(std::ptr::null(), 0, &mut last, &mut lb, &mut ub, &mut st) } != 0 {
        for i in lb..=ub {
            sum.fetch_add(i as u64, Ordering::Relaxed);
        }
    }
    __kmpc_dispatch_deinit(std::ptr::null(), 0);
    // More than the team's shared stack holds: a heap block.
    let block = __kmpc_alloc_shared(4096);
    unsafe {
        block.cast::<u64>().write(7);
        __kmpc_free_shared(block, 4096);
    }
}

/// One kernel of `teams` teams of 8 threads running [`churn`] in one
/// region per team; returns the sum of the iterations it saw.
fn churn_kernel(device: &Device, teams: u32) -> u64 {
    let env = Shared(kernel_env(ExecMode::SPMD, 8));
    let sum = AtomicU64::new(0);
    let sum_ptr = Shared(&sum as *const AtomicU64 as *mut c_void);
    device.launch(teams, 8, || unsafe {
        __kmpc_target_init(env.get(), no_launch_env());
        let mut args = [*sum_ptr.get()];
        __kmpc_parallel_60(std::ptr::null(), 0, 1, -1, -1, churn as *mut c_void, std::ptr::null_mut(), args.as_mut_ptr(), 1, 0);
        __kmpc_target_deinit();
    });
    sum.into_inner()
}

/// A kernel of one thread that allocates, so that the blocks given back are
/// freed (every heap allocation frees them first).
fn reclaim(device: &Device) {
    let env = Shared(kernel_env(ExecMode::SPMD, 1));
    device.launch(1, 1, || unsafe {
        __kmpc_target_init(env.get(), no_launch_env());
        let block = __kmpc_alloc_shared(4096);
        __kmpc_free_shared(block, 4096);
        __kmpc_target_deinit();
    });
}

/// Runs `grid` on `n` host threads at once, all on `device`, each after the
/// others have started; returns what each returned.
fn at_once<R: Send>(n: usize, device: &Device, grid: impl Fn(usize, &Device) -> R + Sync) -> Vec<R> {
    let start = Barrier::new(n);
    std::thread::scope(|s| {
        let handles: Vec<_> = (0..n)
            .map(|i| {
                let (start, grid) = (&start, &grid);
                s.spawn(move || {
                    start.wait();
                    grid(i, device)
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().expect("a grid failed")).collect()
    })
}

/// Heap blocks given back by the teams of one grid are freed by the
/// allocations of another, while both run: every block is freed once (the
/// host allocator aborts on a double free) and none is lost.
#[test]
fn grids_give_back_and_free_heap_blocks_without_losing_one() {
    let device = Device::new();
    let expected = u64::from((ITERATIONS as u32) * (ITERATIONS as u32 - 1) / 2);
    let sums = at_once(4, &device, |_, device| (0..12).map(|_| churn_kernel(device, 12)).collect::<Vec<_>>());
    for sum in sums.into_iter().flatten() {
        assert_eq!(sum, 12 * expected, "a team's dynamic loop lost or repeated iterations");
    }
    assert!(device.enter(omprt_device_rtl::memory::deferred_free::blocks_waiting) > 0, "no block was given back, so this checks nothing");
    reclaim(&device);
    assert_eq!(device.enter(omprt_device_rtl::memory::deferred_free::blocks_waiting), 0);
    assert_eq!(device.live_heap_blocks(), 0, "heap blocks leaked");
    assert!(device.enter(omprt_device_rtl::execution::state::device_made_per_thread_arrays));
}

/// nteams-var and teams-thread-limit-var are the device's: a value one
/// grid sets is what another grid's later kernels read, and another
/// device's kernels never see it.
#[test]
fn device_icvs_set_by_one_grid_reach_the_other_grids_later_kernels() {
    let (device, other) = (Device::new(), Device::new());
    let env = Shared(kernel_env(ExecMode::SPMD, 32));
    let read = |device: &Device| {
        let seen = std::sync::Mutex::new(Vec::new());
        device.launch(2, 32, || unsafe {
            __kmpc_target_init(env.get(), no_launch_env());
            seen.lock().unwrap().push((omp_get_max_teams(), omp_get_teams_thread_limit()));
            __kmpc_target_deinit();
        });
        let seen = seen.into_inner().unwrap();
        assert!(seen.windows(2).all(|w| w[0] == w[1]), "threads of one kernel disagree: {seen:?}");
        seen[0]
    };
    let phase = Barrier::new(2);
    at_once(2, &device, |i, device| {
        if i == 0 {
            device.launch(1, 1, || unsafe {
                __kmpc_target_init(env.get(), no_launch_env());
                omp_set_num_teams(5);
                omp_set_teams_thread_limit(48);
                __kmpc_target_deinit();
            });
        }
        phase.wait();
        if i == 1 {
            assert_eq!(read(device), (5, 48), "a later kernel of another grid");
        }
    });
    assert_eq!(read(&other), (2, 32), "another device's kernel");
}

/// clang's `kmp_task_t` and the task's one private, its grid's counter.
#[repr(C)]
struct CountTask {
    shareds: *mut *mut c_void,
    entry: *mut c_void,
    part_id: i32,
    data1: u64,
    data2: u64,
}

/// A task's body: adds one to the counter its shareds point to, and
/// checks that the detached task it may depend on completed first.
extern "C-unwind" fn count_body(_gtid: i32, task: *mut c_void) -> i32 {
    unsafe {
        let shareds = *task.cast::<CountTask>().cast::<*mut *mut AtomicU64>();
        (**shareds).fetch_add(1, Ordering::SeqCst);
    }
    0
}

/// Each of several grids, at once: in every team, a detached task that
/// writes a location and a task that reads it, kept on the device's list
/// until the event is fulfilled, many times over. Every kept task runs once,
/// after its writer's event, in its own grid.
#[test]
fn grids_keep_their_waiting_tasks_apart_on_the_devices_list() {
    const ROUNDS: u64 = 40;
    let device = Device::new();
    let counts = at_once(3, &device, |grid, device| {
        let env = Shared(kernel_env(ExecMode::SPMD, 1));
        let counters: [AtomicU64; 4] = Default::default();
        let readers_early = AtomicU64::new(0);
        let shared = Shared(counters.as_ptr().cast_mut());
        device.launch(4, 1, || unsafe {
            __kmpc_target_init(env.get(), no_launch_env());
            let team = omprt_device_rtl::arch::block_id() as usize;
            let counter = &counters[team];
            let make = |detachable: bool| {
                let flags = if detachable { 0x41 } else { 0x1 };
                let task = __kmpc_omp_task_alloc(std::ptr::null(), 0, flags, std::mem::size_of::<CountTask>() as u64, 8, count_body as *mut c_void);
                *(*task.cast::<CountTask>()).shareds = shared.get().add(team).cast();
                let event = if detachable { __kmpc_task_allow_completion_event(std::ptr::null(), 0, task) as u64 } else { 0 };
                (task, event)
            };
            // Each team and grid uses addresses of its own, as distinct
            // variables of distinct kernels would be.
            let at = 0x10_0000 * (grid as u64 + 1) + 0x100 * team as u64;
            let deps = |flags: u8| [DependInfo { base_addr: at, len: 8, flags }];
            for _ in 0..ROUNDS {
                let before = counter.load(Ordering::SeqCst);
                let (writer, event) = make(true);
                __kmpc_omp_task_with_deps(std::ptr::null(), 0, writer, 1, deps(dep_flags::IN | dep_flags::OUT).as_ptr() as *mut c_void, 0, std::ptr::null_mut());
                let (reader, _) = make(false);
                __kmpc_omp_task_with_deps(std::ptr::null(), 0, reader, 1, deps(dep_flags::IN).as_ptr() as *mut c_void, 0, std::ptr::null_mut());
                // The writer ran; the reader waits for the event.
                if counter.load(Ordering::SeqCst) != before + 1 {
                    readers_early.fetch_add(1, Ordering::SeqCst);
                }
                omp_fulfill_event(event);
                __kmpc_omp_taskwait(std::ptr::null(), 0);
            }
            __kmpc_target_deinit();
        });
        (counters.iter().map(|c| c.load(Ordering::SeqCst)).sum::<u64>(), readers_early.into_inner())
    });
    for (grid, (count, early)) in counts.into_iter().enumerate() {
        assert_eq!(early, 0, "grid {grid}: a reader ran before its writer's event");
        assert_eq!(count, 4 * 2 * ROUNDS, "grid {grid}: tasks lost or run twice");
    }
    reclaim(&device);
    assert_eq!(device.live_heap_blocks(), 0, "heap blocks leaked");
}

/// The simulation's own check: a device's heap count sees a leak.
#[test]
fn a_leaked_block_shows_in_the_devices_heap_count() {
    let device = Device::new();
    let env = Shared(kernel_env(ExecMode::SPMD, 1));
    device.launch(1, 1, || unsafe {
        __kmpc_target_init(env.get(), no_launch_env());
        let _leaked = omprt_device_rtl::memory::heap_alloc(8, omprt_device_rtl::memory::heap::exhausted::TASK);
        __kmpc_target_deinit();
    });
    assert_eq!(device.live_heap_blocks(), 1);
    assert_eq!(sim::live_heap_blocks(), 0, "the launching thread allocated nothing itself");
}
