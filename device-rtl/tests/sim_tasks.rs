//! Explicit tasks in the host simulation, lowered the way clang 22 does
//! (`kmp_task_t`: `shareds` at offset 0, the entry at 8, clang's fields up to
//! 40, then a taskloop's bounds and the task's private copies; the block of
//! shared-variable pointers after it). Every task runs undeferred on the
//! thread that creates it.

mod common;

use common::*;
use omprt_abi::ExecMode;
use omprt_device_rtl::arch::sim;
use omprt_device_rtl::exports::{api::*, kernel::*, parallel::*, task::*};
use std::ffi::c_void;
use std::sync::atomic::{AtomicI32, AtomicU32, Ordering};

/// clang's `kmp_task_t` for a plain task, with one private `i32` after it.
#[repr(C)]
struct PlainTask {
    shareds: *mut *mut c_void,
    entry: *mut c_void,
    part_id: i32,
    data1: u64,
    data2: u64,
    private_a: i32,
}

/// clang's `kmp_task_t` of a taskloop: the bounds, stride, last-iteration
/// flag and reductions follow the plain fields.
#[repr(C)]
struct LoopTask {
    shareds: *mut *mut c_void,
    entry: *mut c_void,
    part_id: i32,
    data1: u64,
    data2: u64,
    lb: u64,
    ub: u64,
    st: i64,
    liter: i32,
    reductions: *mut c_void,
}

type Entry = extern "C-unwind" fn(i32, *mut c_void) -> i32;

fn spmd(threads: i32) -> Shared<omprt_abi::KernelEnvironment> {
    Shared(kernel_env(ExecMode::SPMD, threads))
}

/// Allocates a task the way clang does and fills in its shared variables.
unsafe fn new_task(bytes: usize, shared: &[*mut c_void], entry: Entry) -> *mut c_void {
    let task = unsafe { __kmpc_omp_task_alloc(std::ptr::null(), 0, 1, bytes as u64, 8 * shared.len() as u64, entry as *mut c_void) };
    assert_eq!(task as usize % 16, 0, "task not 16-byte aligned");
    let t = task.cast::<PlainTask>();
    unsafe {
        assert_eq!((*t).entry, entry as *mut c_void, "entry");
        if shared.is_empty() {
            assert!((*t).shareds.is_null(), "shareds of a task without shared variables");
        } else {
            let s = (*t).shareds;
            assert_eq!(s as usize % 8, 0, "shareds not pointer-aligned");
            assert!(s as usize >= task as usize + bytes, "shareds overlap the task's privates");
            for (i, p) in shared.iter().enumerate() {
                *s.add(i) = *p;
            }
        }
    }
    task
}

extern "C-unwind" fn do_nothing(_gtid: i32, _task: *mut c_void) -> i32 {
    0
}

/// The heap blocks the calling thread holds once the team's array of task
/// records (`state::TASK_RECORDS`, which lives until the kernel ends) exists:
/// after a task of its own, the count its later tasks must leave as it is.
unsafe fn live_blocks_with_task_records() -> i64 {
    unsafe { __kmpc_omp_task(std::ptr::null(), 0, new_task(std::mem::size_of::<PlainTask>(), &[], do_nothing)) };
    sim::live_heap_blocks()
}

/// Adds the private `a` to the shared counter.
extern "C-unwind" fn add_private(_gtid: i32, task: *mut c_void) -> i32 {
    let t = task.cast::<PlainTask>();
    unsafe {
        let counter = &*(*(*t).shareds as *const AtomicI32);
        counter.fetch_add((*t).private_a, Ordering::SeqCst);
    }
    0
}

extern "C-unwind" fn count_run(_gtid: i32, task: *mut c_void) -> i32 {
    let t = task.cast::<PlainTask>();
    unsafe { (*(*(*t).shareds as *const AtomicI32)).fetch_add(1, Ordering::SeqCst) };
    0
}

/// Tasks, with and without dependences, and `if(0)` tasks run at once, each
/// with its own private copy, and give their memory back; `taskwait`,
/// `taskgroup` and `taskyield` return at once. One block: the heap blocks a
/// thread holds are counted per thread, and another block's end gives its
/// team's arrays back to the next allocation, which may be this thread's
/// (seen once: "left: -1").
#[test]
fn tasks_run_when_created_and_free_themselves() {
    let env = spmd(64);
    let counter = AtomicI32::new(0);
    sim::launch(1, 64, || unsafe {
        __kmpc_target_init(env.get(), no_launch_env());
        let c = &counter as *const AtomicI32 as *mut c_void;
        let live = live_blocks_with_task_records();
        let tid = omp_get_thread_num();
        __kmpc_taskgroup(std::ptr::null(), 0);
        let before = counter.load(Ordering::SeqCst);
        let task = new_task(std::mem::size_of::<PlainTask>(), &[c], add_private);
        (*task.cast::<PlainTask>()).private_a = 1000;
        assert_eq!(__kmpc_omp_task(std::ptr::null(), 0, task), 0);
        assert!(counter.load(Ordering::SeqCst) >= before + 1000, "the task did not run when created");
        let task = new_task(std::mem::size_of::<PlainTask>(), &[c], add_private);
        (*task.cast::<PlainTask>()).private_a = 10;
        assert_eq!(__kmpc_omp_task_with_deps(std::ptr::null(), 0, task, 1, std::ptr::null_mut(), 0, std::ptr::null_mut()), 0);
        // `if(0)`: clang calls the entry itself.
        let task = new_task(std::mem::size_of::<PlainTask>(), &[c], add_private);
        (*task.cast::<PlainTask>()).private_a = 1;
        __kmpc_omp_wait_deps(std::ptr::null(), 0, 0, std::ptr::null_mut(), 0, std::ptr::null_mut());
        __kmpc_omp_task_begin_if0(std::ptr::null(), 0, task);
        add_private(0, task);
        __kmpc_omp_task_complete_if0(std::ptr::null(), 0, task);
        assert_eq!(__kmpc_omp_taskyield(std::ptr::null(), 0, 0), 0);
        assert_eq!(__kmpc_omp_taskwait(std::ptr::null(), 0), 0);
        __kmpc_omp_taskwait_deps_51(std::ptr::null(), 0, 0, std::ptr::null_mut(), 0, std::ptr::null_mut(), 0);
        __kmpc_end_taskgroup(std::ptr::null(), 0);
        assert_eq!(sim::live_heap_blocks(), live, "thread {tid}: a task's memory was not given back");
        __kmpc_target_deinit();
    });
    assert_eq!(counter.load(Ordering::SeqCst), 64 * 1011);
}

/// A task without shared variables gets a null `shareds`, as from the host
/// runtime; a task entry sees the task it was given.
#[test]
fn a_task_without_shared_variables_runs_too() {
    static SEEN: AtomicU32 = AtomicU32::new(0);
    extern "C-unwind" fn check_private(_gtid: i32, task: *mut c_void) -> i32 {
        let t = task.cast::<PlainTask>();
        unsafe {
            assert!((*t).shareds.is_null());
            assert_eq!((*t).private_a, 42);
        }
        SEEN.fetch_add(1, Ordering::SeqCst);
        0
    }
    let env = spmd(32);
    sim::launch(1, 32, || unsafe {
        __kmpc_target_init(env.get(), no_launch_env());
        let task = new_task(std::mem::size_of::<PlainTask>(), &[], check_private);
        (*task.cast::<PlainTask>()).private_a = 42;
        __kmpc_omp_task(std::ptr::null(), 0, task);
        __kmpc_target_deinit();
    });
    assert_eq!(SEEN.load(Ordering::SeqCst), 32);
}

/// The calling thread's run-sched-var, as `(kind, chunk)`.
fn schedule() -> (i32, i32) {
    let (mut kind, mut chunk) = (0, 0);
    unsafe { omp_get_schedule(&mut kind, &mut chunk) };
    (kind, chunk)
}

/// Sets run-sched-var and def-allocator-var inside the task; the task sees
/// its own values.
extern "C-unwind" fn set_schedule_in_task(_gtid: i32, _task: *mut c_void) -> i32 {
    omp_set_schedule(2, 7);
    omp_set_default_allocator(TASKS_ALLOCATOR);
    assert_eq!((schedule(), omp_get_default_allocator()), ((2, 7), TASKS_ALLOCATOR), "inside the task");
    0
}

/// omp_high_bw_mem_alloc, which the tests' other code never sets.
const TASKS_ALLOCATOR: u64 = 4;

unsafe fn run_icv_task() {
    let task = unsafe { new_task(std::mem::size_of::<PlainTask>(), &[], set_schedule_in_task) };
    unsafe { __kmpc_omp_task(std::ptr::null(), 0, task) };
}

extern "C-unwind" fn icv_region(_g: *mut i32, _b: *mut i32) {
    let outside = (schedule(), omp_get_default_allocator());
    // No state of its own yet: the state the task pushes goes with it.
    unsafe { run_icv_task() };
    assert_eq!((schedule(), omp_get_default_allocator()), outside, "a task's ICV change leaked into its region");
    // With a state of its own: the task's change is undone in it.
    omp_set_schedule(3, 5);
    omp_set_default_allocator(2);
    let live = sim::live_heap_blocks();
    unsafe { run_icv_task() };
    assert_eq!((schedule(), omp_get_default_allocator()), ((3, 5), 2), "a task's ICV change leaked into its thread's state");
    assert_eq!(sim::live_heap_blocks(), live, "the task's memory was not given back");
}

/// A task has its own data environment: ICVs it sets do not outlive it,
/// whether they lived in the team state (the initial thread outside any
/// region), in a thread state of their own, or in none yet.
#[test]
fn a_task_keeps_its_icv_changes_to_itself() {
    let env = spmd(64);
    sim::launch(1, 1, || unsafe {
        __kmpc_target_init(env.get(), no_launch_env());
        let outside = (schedule(), omp_get_default_allocator());
        run_icv_task();
        assert_eq!((schedule(), omp_get_default_allocator()), outside, "a task's ICV change leaked into the team state");
        omp_set_schedule(3, 5);
        omp_set_default_allocator(2);
        run_icv_task();
        assert_eq!((schedule(), omp_get_default_allocator()), ((3, 5), 2));
        __kmpc_target_deinit();
    });
    sim::launch(1, 64, || unsafe {
        __kmpc_target_init(env.get(), no_launch_env());
        __kmpc_parallel_60(std::ptr::null(), 0, 1, -1, -1, icv_region as *mut c_void, std::ptr::null_mut(), std::ptr::null_mut(), 0, 0);
        __kmpc_target_deinit();
    });
}

/// Counts each iteration of the task's bounds and what its last-iteration
/// flag said.
extern "C-unwind" fn loop_body(_gtid: i32, task: *mut c_void) -> i32 {
    let t = task.cast::<LoopTask>();
    unsafe {
        let hits = &*(*(*t).shareds as *const [AtomicU32; 16]);
        let liter = &*(*(*t).shareds.add(1) as *const AtomicI32);
        let mut i = (*t).lb;
        while i <= (*t).ub {
            hits[i as usize].fetch_add(1, Ordering::SeqCst);
            i += (*t).st as u64;
        }
        liter.store((*t).liter, Ordering::SeqCst);
    }
    0
}

/// A taskloop is one task over the whole loop, which runs its last
/// iteration, so `lastprivate` sees the flag set; an empty loop runs no
/// iteration and only ends its task. Both give the task back.
#[test]
fn taskloop_runs_each_iteration_once_and_flags_the_last() {
    let env = spmd(32);
    let hits: [AtomicU32; 16] = Default::default();
    let liter = AtomicI32::new(-1);
    let entries = AtomicU32::new(0);
    extern "C-unwind" fn must_not_run(_gtid: i32, _task: *mut c_void) -> i32 {
        panic!("the task of an empty taskloop ran");
    }
    static DESTROYED: AtomicU32 = AtomicU32::new(0);
    extern "C-unwind" fn count_destructors(_gtid: i32, _task: *mut c_void) -> i32 {
        DESTROYED.fetch_add(1, Ordering::SeqCst);
        0
    }
    sim::launch(1, 1, || unsafe {
        __kmpc_target_init(env.get(), no_launch_env());
        let live = live_blocks_with_task_records();
        let shared = [&hits as *const _ as *mut c_void, &liter as *const _ as *mut c_void];
        for (strict, lb, ub) in [(false, 0, 9), (true, 3, 15)] {
            let task = new_task(std::mem::size_of::<LoopTask>(), &shared, loop_body).cast::<LoopTask>();
            (*task).lb = lb;
            (*task).ub = ub;
            (*task).st = 1;
            (*task).liter = 0;
            let (lbp, ubp) = (&raw mut (*task).lb as *mut i64, &raw mut (*task).ub as *mut i64);
            if strict {
                __kmpc_taskloop_5(std::ptr::null(), 0, task.cast(), 1, lbp, ubp, 1, 0, 2, 4, 1, std::ptr::null_mut());
            } else {
                __kmpc_taskloop(std::ptr::null(), 0, task.cast(), 1, lbp, ubp, 1, 0, 0, 0, std::ptr::null_mut());
            }
            entries.fetch_add(1, Ordering::SeqCst);
            assert_eq!(liter.swap(-1, Ordering::SeqCst), 1, "the last-iteration flag of loop {lb}..={ub}");
        }
        // An empty loop's task only ends: its destructors run (flag 0x8).
        let task = __kmpc_omp_task_alloc(std::ptr::null(), 0, 1 | 8, std::mem::size_of::<LoopTask>() as u64, 16, must_not_run as *mut c_void)
            .cast::<LoopTask>();
        (*task).data1 = count_destructors as *const () as u64;
        (*task).lb = 1;
        (*task).ub = 0;
        __kmpc_taskloop(std::ptr::null(), 0, task.cast(), 1, &raw mut (*task).lb as *mut i64, &raw mut (*task).ub as *mut i64, 1, 0, 0, 0, std::ptr::null_mut());
        assert_eq!(sim::live_heap_blocks(), live, "a taskloop's task was not given back");
        __kmpc_target_deinit();
    });
    let counts: Vec<u32> = hits.iter().map(|h| h.load(Ordering::SeqCst)).collect();
    assert_eq!(counts, [1, 1, 1, 2, 2, 2, 2, 2, 2, 2, 1, 1, 1, 1, 1, 1]);
    assert_eq!(entries.load(Ordering::SeqCst), 2);
    assert_eq!(DESTROYED.load(Ordering::SeqCst), 1, "the empty taskloop's destructors");
}

/// The OpenMPIRBuilder's (flang's) taskloop block of shared variables: the
/// loop's own bounds and step, signed, then the shared variables.
#[repr(C)]
struct FlangLoopShareds {
    lb: i64,
    ub: i64,
    step: i64,
    sum: *const AtomicI32,
}

/// flang's taskloop entry: runs `lb..=ub` by `step` from the block, adding
/// each iteration to `sum` and counting its runs in `FLANG_LOOP_RUNS`.
static FLANG_LOOP_RUNS: AtomicU32 = AtomicU32::new(0);
extern "C-unwind" fn flang_loop_body(_gtid: i32, task: *mut c_void) -> i32 {
    unsafe {
        let b = &*(*task.cast::<PlainTask>()).shareds.cast::<FlangLoopShareds>();
        FLANG_LOOP_RUNS.fetch_add(1, Ordering::SeqCst);
        let mut i = b.lb;
        while (b.step > 0 && i <= b.ub) || (b.step < 0 && i >= b.ub) {
            (*b.sum).fetch_add(i as i32, Ordering::SeqCst);
            i += b.step;
        }
    }
    0
}

/// flang passes `__kmpc_taskloop` bounds inside the block of shared
/// variables, unnormalised, and keeps no last-iteration flag: the runtime
/// must not write clang's flag there (it overwrote the low half of the
/// pointer after the step), and must read the bounds as signed, in the
/// direction of the step.
#[test]
fn taskloop_with_the_irbuilders_bounds_in_the_shared_block() {
    let env = spmd(32);
    sim::launch(1, 1, || unsafe {
        __kmpc_target_init(env.get(), no_launch_env());
        let live = live_blocks_with_task_records();
        for (lb, ub, step, expected) in [(1, 10, 1, Some(55)), (-5, 5, 1, Some(0)), (10, -5, -3, Some(10 + 7 + 4 + 1 - 2 - 5)), (1, 0, 1, None), (0, 5, -1, None)] {
            let sum = AtomicI32::new(0);
            FLANG_LOOP_RUNS.store(0, Ordering::SeqCst);
            let bytes = std::mem::size_of::<FlangLoopShareds>() as u64;
            let task = __kmpc_omp_task_alloc(std::ptr::null(), 0, 1, 40, bytes, flang_loop_body as *mut c_void);
            let b = (*task.cast::<PlainTask>()).shareds.cast::<FlangLoopShareds>();
            b.write(FlangLoopShareds { lb, ub, step, sum: &sum });
            __kmpc_taskloop(std::ptr::null(), 0, task, 1, &raw mut (*b).lb, &raw mut (*b).ub, step, 1, 0, 0, std::ptr::null_mut());
            let runs = FLANG_LOOP_RUNS.load(Ordering::SeqCst);
            match expected {
                Some(total) => assert_eq!((runs, sum.load(Ordering::SeqCst)), (1, total), "loop {lb}..={ub} by {step}"),
                None => assert_eq!(runs, 0, "the task of the empty loop {lb}..={ub} by {step} ran"),
            }
        }
        assert_eq!(sim::live_heap_blocks(), live, "a taskloop's task was not given back");
        __kmpc_target_deinit();
    });
}

/// Tasks of a `taskgroup task_reduction` (and of a `taskloop reduction`)
/// run one after another on the creating thread, so each updates the list
/// item itself.
#[test]
fn task_reduction_copies_are_the_list_items() {
    let env = spmd(32);
    let sum = AtomicI32::new(0);
    sim::launch(1, 4, || unsafe {
        __kmpc_target_init(env.get(), no_launch_env());
        let mut input = [0u8; 56];
        let tg = __kmpc_taskred_init(0, 1, input.as_mut_ptr().cast());
        assert!(!tg.is_null());
        assert!(!__kmpc_task_reduction_init(0, 1, input.as_mut_ptr().cast()).is_null());
        let item = &sum as *const AtomicI32 as *mut c_void;
        assert_eq!(__kmpc_task_reduction_get_th_data(0, tg, item), item);
        let task = new_task(std::mem::size_of::<PlainTask>(), &[__kmpc_task_reduction_get_th_data(0, tg, item)], count_run);
        __kmpc_omp_task(std::ptr::null(), 0, task);
        __kmpc_target_deinit();
    });
    assert_eq!(sum.load(Ordering::SeqCst), 4);
}

/// `reduction(task, ...)` on a parallel region (`is_ws` 0) or a worksharing
/// loop (1): each thread passes its own copy of the list item, and the
/// `in_reduction` tasks it creates add to that copy through the handle, as
/// clang lowers them; the region's reduction then combines the copies.
#[test]
fn task_modifier_reductions_add_to_the_creating_threads_copy() {
    /// Adds `private_a` to the copy `__kmpc_task_reduction_get_th_data`
    /// gives for the shared item, with the handle the second shared variable.
    extern "C-unwind" fn add_in_reduction(gtid: i32, task: *mut c_void) -> i32 {
        let t = task.cast::<PlainTask>();
        unsafe {
            let (item, handle) = (*(*t).shareds, *(*(*t).shareds.add(1) as *const *mut c_void));
            *__kmpc_task_reduction_get_th_data(gtid, handle, item).cast::<i32>() += (*t).private_a;
        }
        0
    }
    let env = spmd(64);
    let combined = AtomicI32::new(0);
    sim::launch(1, 64, || unsafe {
        __kmpc_target_init(env.get(), no_launch_env());
        let tid = __kmpc_get_hardware_thread_id_in_block();
        for (is_ws, older_form) in [(0, false), (1, false), (0, true)] {
            let mut copy = 0i32;
            // clang's kmp_taskred_input_t: reduce_shar (the thread's copy),
            // reduce_orig, size, init, fini, comb, flags.
            let mut input = [0u64; 7];
            input[0] = &raw mut copy as u64;
            input[2] = 4;
            let mut handle = if older_form {
                __kmpc_task_reduction_modifier_init(std::ptr::null_mut(), tid, is_ws, 1, input.as_mut_ptr().cast())
            } else {
                __kmpc_taskred_modifier_init(std::ptr::null(), tid, is_ws, 1, input.as_mut_ptr().cast())
            };
            for k in 1..=3 {
                let task = new_task(std::mem::size_of::<PlainTask>(), &[(&raw mut copy).cast(), (&raw mut handle).cast()], add_in_reduction);
                (*task.cast::<PlainTask>()).private_a = k * (tid + 1);
                __kmpc_omp_task(std::ptr::null(), tid, task);
            }
            copy += 1; // the region's own update of the copy
            __kmpc_task_reduction_modifier_fini(std::ptr::null(), tid, is_ws);
            assert_eq!(copy, 6 * (tid + 1) + 1, "thread {tid}, is_ws {is_ws}: the tasks' updates of its copy");
            combined.fetch_add(copy, Ordering::SeqCst);
        }
        __kmpc_target_deinit();
    });
    // 3 forms x (6 * (1 + ... + 64) + 64)
    assert_eq!(combined.load(Ordering::SeqCst), 3 * (6 * 64 * 65 / 2 + 64));
}

/// A task whose memory the device heap cannot give traps with a message.
#[test]
fn a_task_on_an_exhausted_heap_traps_with_a_message() {
    let env = spmd(32);
    sim::fail_mallocs(1);
    let message = trap_message(|| {
        sim::launch(1, 1, || unsafe {
            __kmpc_target_init(env.get(), no_launch_env());
            new_task(std::mem::size_of::<PlainTask>(), &[], count_run);
        })
    });
    assert!(message.contains("device heap exhausted") && message.contains("task"), "{message}");
}

/// A task whose private copies need destructors (clang's flag 0x8) has them
/// run, by the function clang put in `data1`, once the task ends, also for
/// an `if(0)` task; without the flag `data1` is left alone.
#[test]
fn a_task_runs_its_destructors_after_its_body() {
    static STEPS: std::sync::Mutex<Vec<&str>> = std::sync::Mutex::new(Vec::new());
    extern "C-unwind" fn body(_gtid: i32, _task: *mut c_void) -> i32 {
        STEPS.lock().unwrap().push("body");
        0
    }
    extern "C-unwind" fn destroy(gtid: i32, task: *mut c_void) -> i32 {
        assert_eq!(gtid, 3, "gtid passed to the destructors");
        assert_eq!(unsafe { (*task.cast::<PlainTask>()).private_a }, 9, "destructors see the task");
        STEPS.lock().unwrap().push("destructors");
        0
    }
    let env = spmd(32);
    sim::launch(1, 1, || unsafe {
        __kmpc_target_init(env.get(), no_launch_env());
        for (flags, if0) in [(1 | 8, false), (1 | 8, true), (1, false)] {
            let task = __kmpc_omp_task_alloc(std::ptr::null(), 3, flags, std::mem::size_of::<PlainTask>() as u64, 0, body as *mut c_void);
            let t = task.cast::<PlainTask>();
            (*t).private_a = 9;
            // Without the flag, clang leaves data1 unset: garbage must not be called.
            (*t).data1 = if flags & 8 != 0 { destroy as *const () as u64 } else { 0xdead };
            if if0 {
                __kmpc_omp_task_begin_if0(std::ptr::null(), 3, task);
                body(3, task);
                __kmpc_omp_task_complete_if0(std::ptr::null(), 3, task);
            } else {
                __kmpc_omp_task(std::ptr::null(), 3, task);
            }
        }
        __kmpc_target_deinit();
    });
    assert_eq!(*STEPS.lock().unwrap(), ["body", "destructors", "body", "destructors", "body"]);
}

thread_local! {
    /// What `omp_in_explicit_task` said, in order, on this simulated thread.
    static IN_TASK_LOG: std::cell::RefCell<Vec<i32>> = const { std::cell::RefCell::new(Vec::new()) };
}

fn log_in_task() {
    IN_TASK_LOG.with(|l| l.borrow_mut().push(omp_in_explicit_task()));
}

extern "C-unwind" fn log_task(_gtid: i32, _task: *mut c_void) -> i32 {
    log_in_task();
    0
}

extern "C-unwind" fn log_region(_g: *mut i32, _b: *mut i32) {
    log_in_task();
}

/// In the task, a nested task, the task again, a parallel region the task
/// starts (implicit tasks), and the task once more.
extern "C-unwind" fn nesting_task(_gtid: i32, _task: *mut c_void) -> i32 {
    log_in_task();
    unsafe {
        __kmpc_omp_task(std::ptr::null(), 0, new_task(std::mem::size_of::<PlainTask>(), &[], log_task));
        log_in_task();
        __kmpc_parallel_60(std::ptr::null(), 0, 1, -1, -1, log_region as *mut c_void, std::ptr::null_mut(), std::ptr::null_mut(), 0, 0);
    }
    log_in_task();
    0
}

/// The calls `nesting_task` logs around, from outside any task and back.
unsafe fn log_tasks_around() -> Vec<i32> {
    IN_TASK_LOG.with(|l| l.borrow_mut().clear());
    log_in_task();
    unsafe {
        __kmpc_omp_task(std::ptr::null(), 0, new_task(std::mem::size_of::<PlainTask>(), &[], nesting_task));
        log_in_task();
        // `if(0)`: between the two calls clang makes around its entry.
        let task = new_task(std::mem::size_of::<PlainTask>(), &[], log_task);
        __kmpc_omp_task_begin_if0(std::ptr::null(), 0, task);
        log_task(0, task);
        __kmpc_omp_task_complete_if0(std::ptr::null(), 0, task);
    }
    log_in_task();
    IN_TASK_LOG.with(|l| l.borrow().clone())
}

/// `omp_in_explicit_task` is true in an explicit task, nested ones and
/// `if(0)` ones included, and false outside any, and in the implicit tasks of
/// a parallel region inside one: in an SPMD kernel's threads and in a generic
/// kernel's initial thread, outside any region.
#[test]
fn omp_in_explicit_task_is_true_in_explicit_tasks_only() {
    // Outside; the task; its nested task; the task again; the region inside
    // it; the task again; outside; the `if(0)` task; outside.
    let expected = vec![0, 1, 1, 1, 0, 1, 0, 1, 0];
    let env = spmd(64);
    sim::launch(2, 64, || unsafe {
        __kmpc_target_init(env.get(), no_launch_env());
        assert_eq!(log_tasks_around(), expected, "thread {}", omp_get_thread_num());
        __kmpc_target_deinit();
    });
    let env = Shared(kernel_env(ExecMode::GENERIC, 32));
    sim::launch(1, 32, || unsafe {
        if __kmpc_target_init(env.get(), no_launch_env()) == -1 {
            assert_eq!(log_tasks_around(), expected);
            __kmpc_target_deinit();
        }
    });
}
