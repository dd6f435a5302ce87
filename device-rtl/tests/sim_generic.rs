//! Generic-mode kernels in the host simulation, lowered the way clang 22 does:
//! the main thread (first lane of the last warp) runs the sequential region
//! and calls `__kmpc_parallel_60` with a wrapper; the workers serve regions in
//! the runtime's state machine, or in a custom state machine written the way
//! openmp-opt emits it.

mod common;

use common::*;
use omprt_abi::{ExecMode, Ident};
use omprt_device_rtl::arch::sim;
use omprt_device_rtl::exports::{api::*, kernel::*, misc::*, parallel::*, sync::*};
use std::ffi::c_void;
use std::sync::Mutex;
use std::sync::atomic::{AtomicI32, AtomicU32, Ordering};

/// One observation inside a region: (label, thread, threads, level, active, ancestor(1), team_size(1)).
type Row = (&'static str, i32, i32, i32, i32, i32, i32);

fn row(label: &'static str) -> Row {
    (label, omp_get_thread_num(), omp_get_num_threads(), omp_get_level(), omp_get_active_level(), omp_get_ancestor_thread_num(1), omp_get_team_size(1))
}

struct Ctx {
    log: Mutex<Vec<Row>>,
    counter: AtomicI32,
}

fn ctx() -> Ctx {
    Ctx { log: Mutex::new(Vec::new()), counter: AtomicI32::new(0) }
}

// ---- outlined regions and their wrappers, shaped like clang's ----

extern "C-unwind" fn nested_inner(_g: *mut i32, _b: *mut i32, c: *mut c_void) {
    let c = unsafe { &*(c as *const Ctx) };
    c.log.lock().unwrap().push(row("nested"));
}

extern "C-unwind" fn region_one(_g: *mut i32, _b: *mut i32, c: *mut c_void) {
    let ctx = unsafe { &*(c as *const Ctx) };
    ctx.log.lock().unwrap().push(row("one"));
    // A nested region runs serialized on each thread.
    let mut args = [c];
    unsafe {
        __kmpc_parallel_60(std::ptr::null(), 0, 1, -1, -1, nested_inner as *mut c_void, std::ptr::null_mut(), args.as_mut_ptr(), 1, 0)
    };
    assert_eq!(omp_get_level(), 1, "level restored after the nested region");
    // Barrier phases over exactly the region's team.
    let n = omp_get_num_threads();
    for phase in 1..=3 {
        ctx.counter.fetch_add(1, Ordering::SeqCst);
        __kmpc_barrier(std::ptr::null(), 0);
        assert!(ctx.counter.load(Ordering::SeqCst) >= phase * n, "barrier let a thread through early");
        __kmpc_barrier(std::ptr::null(), 0);
    }
}

extern "C-unwind" fn region_one_wrapper(_zero: i16, tid: i32) {
    let mut args: *mut *mut c_void = std::ptr::null_mut();
    unsafe { __kmpc_get_shared_variables(&mut args) };
    let (mut gtid, mut zero) = (tid, 0);
    region_one(&mut gtid, &mut zero, unsafe { *args });
}

extern "C-unwind" fn region_two(_g: *mut i32, _b: *mut i32, c: *mut c_void, extra: *mut c_void) {
    let c = unsafe { &*(c as *const Ctx) };
    assert_eq!(extra as usize, 42, "second captured variable");
    c.log.lock().unwrap().push(row("two"));
}

extern "C-unwind" fn region_two_wrapper(_zero: i16, tid: i32) {
    let mut args: *mut *mut c_void = std::ptr::null_mut();
    unsafe { __kmpc_get_shared_variables(&mut args) };
    let (mut gtid, mut zero) = (tid, 0);
    unsafe { region_two(&mut gtid, &mut zero, *args, *args.add(1)) };
}

/// The sequential part of the target region, run by the main thread.
fn main_thread_body(c: &Ctx) {
    let p = c as *const Ctx as *mut c_void;
    c.log.lock().unwrap().push(row("serial-before"));
    let mut args = [p];
    unsafe {
        __kmpc_parallel_60(std::ptr::null(), 0, 1, -1, -1, region_one as *mut c_void, region_one_wrapper as *mut c_void, args.as_mut_ptr(), 1, 0)
    };
    c.log.lock().unwrap().push(row("serial-between"));
    let mut args = [p, 42usize as *mut c_void];
    // num_threads(40) rounds down to one warp; num_threads(16) serializes.
    unsafe {
        __kmpc_parallel_60(std::ptr::null(), 0, 1, 40, -1, region_two as *mut c_void, region_two_wrapper as *mut c_void, args.as_mut_ptr(), 2, 0);
        __kmpc_parallel_60(std::ptr::null(), 0, 1, 16, -1, region_two as *mut c_void, region_two_wrapper as *mut c_void, args.as_mut_ptr(), 2, 0);
        __kmpc_parallel_60(std::ptr::null(), 0, 0, -1, -1, region_two as *mut c_void, region_two_wrapper as *mut c_void, args.as_mut_ptr(), 2, 0);
    }
    c.log.lock().unwrap().push(row("serial-after"));
}

fn count(log: &[Row], label: &str) -> usize {
    log.iter().filter(|r| r.0 == label).count()
}

fn run_generic(threads: u32, use_runtime_state_machine: bool) -> Vec<Row> {
    let mut env = kernel_env(ExecMode::GENERIC, threads as i32);
    env.configuration.use_generic_state_machine = u8::from(use_runtime_state_machine);
    let env = Shared(env);
    let c = ctx();
    let main_runs = AtomicU32::new(0);
    sim::launch(2, threads, || unsafe {
        let r = __kmpc_target_init(env.get(), no_launch_env());
        if r == -1 {
            main_runs.fetch_add(1, Ordering::Relaxed);
            assert_eq!(__kmpc_is_spmd_exec_mode(), 0);
            main_thread_body(&c);
            __kmpc_target_deinit();
            return;
        }
        if !use_runtime_state_machine {
            custom_state_machine();
        }
    });
    assert_eq!(main_runs.load(Ordering::Relaxed), 2, "one main thread per team");
    assert_eq!(c.counter.load(Ordering::SeqCst), 2 * 3 * (threads as i32 - 32));
    c.log.into_inner().unwrap()
}

/// What openmp-opt emits when it builds a state machine (OMP130–133): the
/// worker loop in the kernel, calling the known wrapper directly.
fn custom_state_machine() {
    let tid = __kmpc_get_hardware_thread_id_in_block();
    if tid >= __kmpc_get_hardware_num_threads_in_block() - __kmpc_get_warp_size() {
        return;
    }
    loop {
        __kmpc_barrier_simple_generic(std::ptr::null(), 0);
        let mut work: *mut c_void = std::ptr::null_mut();
        let active = unsafe { __kmpc_kernel_parallel(&mut work) };
        if work.is_null() {
            return;
        }
        if active {
            if work == region_one_wrapper as *mut c_void {
                region_one_wrapper(0, tid);
            } else {
                let f: extern "C-unwind" fn(i16, i32) = unsafe { std::mem::transmute(work) };
                f(0, tid);
            }
            __kmpc_kernel_end_parallel();
        }
        __kmpc_barrier_simple_generic(std::ptr::null(), 0);
    }
}

fn check_generic_log(log: &[Row], threads: u32) {
    let workers = (threads - 32) as i32;
    // Sequential code: thread 0 of a team of one, level 0.
    for label in ["serial-before", "serial-between", "serial-after"] {
        assert_eq!(count(log, label), 2);
        assert!(log.iter().filter(|r| r.0 == label).all(|r| r.1 == 0 && r.2 == 1 && r.3 == 0 && r.4 == 0), "{label}");
    }
    // Region one: every worker once per team, numbered 0..workers.
    let one: Vec<&Row> = log.iter().filter(|r| r.0 == "one").collect();
    assert_eq!(one.len() as i32, 2 * workers);
    for r in &one {
        assert!(r.1 >= 0 && r.1 < workers && r.2 == workers && r.3 == 1 && r.4 == 1 && r.5 == r.1 && r.6 == workers, "{r:?}");
    }
    let mut ids: Vec<i32> = one.iter().map(|r| r.1).collect();
    ids.sort();
    ids.dedup();
    assert_eq!(ids.len() as i32, workers);
    // Nested regions: serialized on each thread of region one.
    let nested: Vec<&Row> = log.iter().filter(|r| r.0 == "nested").collect();
    assert_eq!(nested.len(), one.len());
    assert!(nested.iter().all(|r| r.1 == 0 && r.2 == 1 && r.3 == 2 && r.4 == 1 && r.6 == workers), "{nested:?}");
    // Region two: num_threads(40) -> 32 threads; num_threads(16) and
    // if(false) -> the main thread alone, an inactive level.
    let two: Vec<&Row> = log.iter().filter(|r| r.0 == "two").collect();
    assert_eq!(two.len(), 2 * (32 + 1 + 1));
    assert_eq!(two.iter().filter(|r| r.2 == 32 && r.3 == 1 && r.4 == 1).count(), 2 * 32);
    assert_eq!(two.iter().filter(|r| r.1 == 0 && r.2 == 1 && r.3 == 1 && r.4 == 0).count(), 2 * 2);
}

#[test]
fn generic_kernel_with_the_runtime_state_machine() {
    for threads in [128, 96] {
        check_generic_log(&run_generic(threads, true), threads);
    }
}

#[test]
fn generic_kernel_with_a_compiler_built_state_machine() {
    check_generic_log(&run_generic(128, false), 128);
}

#[test]
fn thread_limit_64_leaves_one_warp_of_workers() {
    // clang bakes MaxThreads=64 into the kernel; LLVM 22's host launches 64
    // threads: the main thread is tid 32 and only 32 workers exist.
    check_generic_log(&run_generic(64, true), 64);
}

extern "C-unwind" fn icv_region(_g: *mut i32, _b: *mut i32, c: *mut c_void) {
    let log = unsafe { &*(c as *const Mutex<Vec<(i32, i32)>>) };
    let before = omp_get_max_threads();
    if omp_get_thread_num() == 5 {
        // A change inside a region is the thread's own and ends with it.
        omp_set_num_threads(3);
        omp_set_schedule(2, 9);
        let (mut kind, mut chunk) = (0, 0);
        unsafe { omp_get_schedule(&mut kind, &mut chunk) };
        assert_eq!((kind, chunk), (2, 9));
    }
    log.lock().unwrap().push((omp_get_thread_num(), before));
}

extern "C-unwind" fn icv_wrapper(_z: i16, tid: i32) {
    let mut args: *mut *mut c_void = std::ptr::null_mut();
    unsafe { __kmpc_get_shared_variables(&mut args) };
    let (mut g, mut b) = (tid, 0);
    icv_region(&mut g, &mut b, unsafe { *args });
}

#[test]
fn icvs_at_every_level() {
    let env = Shared(kernel_env(ExecMode::GENERIC, 128));
    let log: Mutex<Vec<(i32, i32)>> = Mutex::new(Vec::new());
    sim::launch(1, 128, || unsafe {
        if __kmpc_target_init(env.get(), no_launch_env()) != -1 {
            return;
        }
        assert_eq!((omp_get_max_threads(), omp_get_thread_limit(), omp_get_supported_active_levels()), (96, 96, 1));
        assert_eq!((omp_get_max_active_levels(), omp_get_nested(), omp_in_parallel(), omp_get_dynamic()), (1, 0, 0, 0));
        assert_eq!((omp_get_ancestor_thread_num(0), omp_get_ancestor_thread_num(1), omp_get_team_size(0), omp_get_team_size(1)), (0, -1, 1, -1));
        omp_set_max_active_levels(5);
        assert_eq!(omp_get_max_active_levels(), 1, "clamped to the supported level");
        omp_set_num_threads(64);
        assert_eq!(omp_get_max_threads(), 64);
        let mut args = [&log as *const _ as *mut c_void];
        __kmpc_parallel_60(std::ptr::null(), 0, 1, -1, -1, icv_region as *mut c_void, icv_wrapper as *mut c_void, args.as_mut_ptr(), 1, 0);
        assert_eq!(log.lock().unwrap().len(), 64, "nthreads-var set by the main thread sizes the next region");
        assert!(log.lock().unwrap().iter().all(|&(_, max)| max == 1), "inside a region nested ones get one thread");
        log.lock().unwrap().clear();
        __kmpc_parallel_60(std::ptr::null(), 0, 1, -1, -1, icv_region as *mut c_void, icv_wrapper as *mut c_void, args.as_mut_ptr(), 1, 0);
        assert_eq!(log.lock().unwrap().len(), 64, "a worker's own omp_set_num_threads did not leak");
        let (mut kind, mut chunk) = (0, 0);
        omp_get_schedule(&mut kind, &mut chunk);
        assert_eq!((kind, chunk), (1, 1), "run-sched-var of the main thread unchanged");
        assert!(omp_get_wtime() >= 0.0 && omp_get_wtick() > 0.0);
        __kmpc_target_deinit();
    });
}

// ---- shared-memory stack ----

extern "C-unwind" fn worker_allocs(_g: *mut i32, _b: *mut i32, sum: *mut c_void) {
    let sum = unsafe { &*(sum as *const AtomicU32) };
    let p = __kmpc_alloc_shared(24) as *mut u32;
    assert_eq!(p as usize % 16, 0);
    unsafe { p.write(omp_get_thread_num() as u32) };
    sum.fetch_add(unsafe { p.read() }, Ordering::Relaxed);
    __kmpc_free_shared(p.cast(), 24);
}

extern "C-unwind" fn worker_allocs_wrapper(_z: i16, tid: i32) {
    let mut args: *mut *mut c_void = std::ptr::null_mut();
    unsafe { __kmpc_get_shared_variables(&mut args) };
    let (mut g, mut b) = (tid, 0);
    worker_allocs(&mut g, &mut b, unsafe { *args });
}

#[test]
fn alloc_shared_overflows_to_the_heap_without_corruption() {
    let env = Shared(kernel_env(ExecMode::GENERIC, 64));
    let sum = AtomicU32::new(0);
    sim::launch(2, 64, || unsafe {
        if __kmpc_target_init(env.get(), no_launch_env()) != -1 {
            return;
        }
        // Far more than the 512-byte shared stack, in odd sizes, LIFO.
        let sizes: Vec<u64> = (1..=40).map(|i| (i * 7) % 61 + 1).collect();
        let blocks: Vec<(*mut u8, u64)> = sizes.iter().map(|&s| (__kmpc_alloc_shared(s) as *mut u8, s)).collect();
        for (i, &(p, s)) in blocks.iter().enumerate() {
            assert_eq!(p as usize % 16, 0, "16-byte alignment");
            std::ptr::write_bytes(p, i as u8, s as usize);
        }
        for (i, &(p, s)) in blocks.iter().enumerate() {
            assert!(std::slice::from_raw_parts(p, s as usize).iter().all(|&b| b == i as u8), "block {i} was overwritten");
        }
        for &(p, s) in blocks.iter().rev() {
            __kmpc_free_shared(p.cast(), s);
        }
        // The stack is empty again: a new allocation reuses its base.
        let a = __kmpc_alloc_shared(8);
        assert_eq!(a, blocks[0].0.cast(), "shared stack not unwound");
        __kmpc_free_shared(a, 8);
        let mut args = [&sum as *const _ as *mut c_void];
        __kmpc_parallel_60(std::ptr::null(), 0, 1, -1, -1, worker_allocs as *mut c_void, worker_allocs_wrapper as *mut c_void, args.as_mut_ptr(), 1, 0);
        __kmpc_target_deinit();
    });
    assert_eq!(sum.load(Ordering::Relaxed), 2 * (0..32).sum::<u32>());
}

// ---- critical sections and locks under contention ----

/// One counter per lock (each is only changed under its own lock), a simple
/// lock and a nest lock.
type Locks = (std::cell::UnsafeCell<[u64; 3]>, std::cell::UnsafeCell<u64>, std::cell::UnsafeCell<[u32; 2]>);

static CRITICAL_NAME: Mutex<[i32; 8]> = Mutex::new([0; 8]);

extern "C-unwind" fn contend(_g: *mut i32, _b: *mut i32, c: *mut c_void) {
    let (counters, lock, nest) = unsafe { &*(c as *const Locks) };
    let name = CRITICAL_NAME.lock().unwrap().as_ptr() as *mut [i32; 8];
    for i in 0..50 {
        // clang's critical: one lane at a time, all lanes of the warp in turn.
        unsafe {
            if i % 3 == 0 {
                __kmpc_critical_with_hint(std::ptr::null(), 0, name, 0);
            } else {
                __kmpc_critical(std::ptr::null(), 0, name);
            }
            (*counters.get())[0] += 1;
            __kmpc_end_critical(std::ptr::null(), 0, name);
            omp_set_lock(lock.get().cast());
            (*counters.get())[1] += 1;
            omp_unset_lock(lock.get().cast());
            omp_set_nest_lock(nest.get().cast());
            omp_set_nest_lock(nest.get().cast());
            (*counters.get())[2] += 1;
            omp_unset_nest_lock(nest.get().cast());
            omp_unset_nest_lock(nest.get().cast());
        }
    }
}

#[test]
fn critical_and_locks_are_exclusive_within_and_across_warps() {
    let env = Shared(kernel_env(ExecMode::SPMD, 96));
    let state: Shared<Locks> = Shared((std::cell::UnsafeCell::new([0; 3]), std::cell::UnsafeCell::new(0u64), std::cell::UnsafeCell::new([0u32; 2])));
    // Both teams share the locks: initialise them once, before the launch.
    unsafe {
        omp_init_lock(state.get().1.get().cast());
        omp_init_nest_lock(state.get().2.get().cast());
    }
    sim::launch(2, 96, || unsafe {
        __kmpc_target_init(env.get(), no_launch_env());
        let mut args = [state.get() as *const _ as *mut c_void];
        __kmpc_parallel_60(std::ptr::null(), 0, 1, -1, -1, contend as *mut c_void, std::ptr::null_mut(), args.as_mut_ptr(), 1, 0);
        __kmpc_target_deinit();
    });
    assert_eq!(unsafe { *state.get().0.get() }, [2 * 96 * 50; 3]);
    let lock = state.get().1.get().cast::<u32>();
    assert_eq!(unsafe { omp_test_lock(lock) }, 1, "lock left held");
    assert_eq!(unsafe { omp_test_lock(lock) }, 0, "test_lock took a held lock");
}

#[test]
fn single_master_and_error_directive() {
    let env = Shared(kernel_env(ExecMode::GENERIC, 64));
    let singles = AtomicU32::new(0);
    sim::launch(1, 64, || unsafe {
        if __kmpc_target_init(env.get(), no_launch_env()) != -1 {
            return;
        }
        singles.fetch_add(__kmpc_single(std::ptr::null(), 0) as u32, Ordering::Relaxed);
        __kmpc_end_single(std::ptr::null(), 0);
        assert_eq!(__kmpc_master(std::ptr::null(), 0), 1);
        assert_eq!(__kmpc_cancel(std::ptr::null(), 0, 1), 0);
        __kmpc_target_deinit();
    });
    assert_eq!(singles.load(Ordering::Relaxed), 1);
    // A warning prints LLVM's line, with or without a location and message.
    let _ = sim::take_device_output();
    let here = Ident { reserved_1: 0, flags: 2, reserved_2: 0, reserved_3: 0, psource: c";prog.c;main;12;9;;".as_ptr().cast() };
    let unknown = Ident { psource: c";unknown;unknown;0;0;;".as_ptr().cast(), ..here };
    let (here, unknown) = (&here as *const Ident as usize, &unknown as *const Ident as usize);
    sim::launch(1, 1, || unsafe {
        __kmpc_error(here as *const Ident, 1, c"a warning".as_ptr().cast());
        __kmpc_error(unknown as *const Ident, 1, std::ptr::null());
        __kmpc_error(std::ptr::null(), 1, c"no ident".as_ptr().cast());
    });
    assert_eq!(
        sim::take_device_output(),
        "OMP: prog.c:12:9: Encountered user-directed warning: a warning.\n\
         OMP: unknown:0:0: Encountered user-directed warning.\n\
         OMP: unknown:0:0: Encountered user-directed warning: no ident.\n"
    );
    let env = Shared(kernel_env(ExecMode::SPMD, 32));
    let msg = trap_message(|| sim::launch(1, 1, || unsafe {
        __kmpc_target_init(env.get(), no_launch_env());
        __kmpc_error(std::ptr::null(), 2, c"stop here".as_ptr().cast());
    }));
    assert_eq!(msg, "omprt: error directive: stop here (no source location passed, team 0, thread 0)");
}

extern "C-unwind" fn record_row(_g: *mut i32, _b: *mut i32, c: *mut c_void) {
    let c = unsafe { &*(c as *const Ctx) };
    c.log.lock().unwrap().push(row("serialized"));
}
/// clang emits a wrapper for every region of a generic kernel; these regions
/// serialize, so no worker runs it.
extern "C-unwind" fn record_row_wrapper(_zero: i16, _tid: i32) {
    panic!("a worker ran a serialized region");
}

/// A kernel whose environment says no region starts inside another (what
/// openmp-opt sets when it proves it): the main thread's serialized regions
/// (`if(false)`, a team of one) keep their level in the team state.
#[test]
fn serialized_regions_of_a_kernel_without_nesting() {
    let mut env = kernel_env(ExecMode::GENERIC, 96);
    env.configuration.may_use_nested_parallelism = 0;
    let env = Shared(env);
    let c = ctx();
    sim::launch(1, 96, || unsafe {
        if __kmpc_target_init(env.get(), no_launch_env()) != -1 {
            return;
        }
        let mut args = [&c as *const Ctx as *mut c_void];
        let wrapper = record_row_wrapper as *mut c_void;
        __kmpc_parallel_60(std::ptr::null(), 0, 0, -1, -1, record_row as *mut c_void, wrapper, args.as_mut_ptr(), 1, 0);
        __kmpc_parallel_60(std::ptr::null(), 0, 1, 16, -1, record_row as *mut c_void, wrapper, args.as_mut_ptr(), 1, 0);
        assert_eq!((omp_get_level(), omp_get_active_level(), omp_get_num_threads()), (0, 0, 1), "after the regions");
        __kmpc_target_deinit();
    });
    let log = c.log.into_inner().unwrap();
    assert_eq!(log, vec![("serialized", 0, 1, 1, 0, 0, 1); 2]);
}

// ---- regions without a wrapper (the OpenMPIRBuilder's, flang's) ----

static NO_ARGS_RUNS: AtomicU32 = AtomicU32::new(0);

extern "C-unwind" fn irbuilder_region(g: *mut i32, _b: *mut i32, block: *mut c_void) {
    let c = unsafe { &*(block as *const Ctx) };
    assert_eq!(unsafe { *g }, omp_get_thread_num(), "the region's first argument is its thread number");
    c.log.lock().unwrap().push(row("irbuilder"));
}

extern "C-unwind" fn irbuilder_region_without_captures(_g: *mut i32, _b: *mut i32) {
    NO_ARGS_RUNS.fetch_add(1, Ordering::Relaxed);
}

/// The OpenMPIRBuilder passes its captured variables as one block and no
/// wrapper, in generic kernels too (flang at -O0, and where openmp-opt cannot
/// SPMDize): the workers run the runtime's wrapper, which calls the region
/// with the block.
#[test]
fn generic_regions_without_a_wrapper_run_on_the_whole_team() {
    for use_runtime_state_machine in [true, false] {
        let mut env = kernel_env(ExecMode::GENERIC, 96);
        env.configuration.use_generic_state_machine = u8::from(use_runtime_state_machine);
        let env = Shared(env);
        let c = ctx();
        NO_ARGS_RUNS.store(0, Ordering::Relaxed);
        sim::launch(2, 96, || unsafe {
            if __kmpc_target_init(env.get(), no_launch_env()) != -1 {
                if !use_runtime_state_machine {
                    custom_state_machine();
                }
                return;
            }
            let mut args = [&c as *const Ctx as *mut c_void];
            let none = std::ptr::null_mut();
            __kmpc_parallel_60(std::ptr::null(), 0, 1, -1, -1, irbuilder_region as *mut c_void, none, args.as_mut_ptr(), 1, 0);
            __kmpc_parallel_60(std::ptr::null(), 0, 1, 32, -1, irbuilder_region_without_captures as *mut c_void, none, none.cast(), 0, 0);
            // A team of one runs serialized on the main thread.
            __kmpc_parallel_60(std::ptr::null(), 0, 0, -1, -1, irbuilder_region as *mut c_void, none, args.as_mut_ptr(), 1, 0);
            __kmpc_target_deinit();
        });
        let log = c.log.into_inner().unwrap();
        // Two teams: 64 workers each in the first region, one thread in the last.
        let mut team: Vec<Row> = log.iter().filter(|r| r.2 == 64).cloned().collect();
        team.sort();
        let expected: Vec<Row> = (0..64).flat_map(|t| [("irbuilder", t, 64, 1, 1, t, 64); 2]).collect();
        assert_eq!(team, expected, "state machine of the runtime: {use_runtime_state_machine}");
        assert_eq!(log.iter().filter(|r| **r == ("irbuilder", 0, 1, 1, 0, 0, 1)).count(), 2, "{log:?}");
        assert_eq!(log.len(), 2 * 64 + 2);
        assert_eq!(NO_ARGS_RUNS.load(Ordering::Relaxed), 2 * 32);
    }
}

/// A block shaped like the OpenMPIRBuilder's: one field, a pointer to the
/// variable the region shares.
extern "C-unwind" fn irbuilder_region_of_block(_g: *mut i32, _b: *mut i32, block: *mut c_void) {
    let c = unsafe { &**(block as *const *const Ctx) };
    c.log.lock().unwrap().push(row("block"));
}

/// flang 22 at -O0 builds a generic region's block on the main thread's
/// stack, which on a GPU no worker can read: such a region runs as a team of
/// one on the main thread, with the right variables. The same region with its
/// block elsewhere (on the heap) runs on the whole team.
#[test]
fn a_generic_region_whose_block_is_on_the_main_threads_stack_runs_serialized() {
    let env = Shared(kernel_env(ExecMode::GENERIC, 96));
    let c = ctx();
    sim::launch(1, 96, || unsafe {
        if __kmpc_target_init(env.get(), no_launch_env()) != -1 {
            return;
        }
        let none = std::ptr::null_mut();
        let mut on_stack = [&c as *const Ctx];
        let mut args = [on_stack.as_mut_ptr().cast::<c_void>()];
        __kmpc_parallel_60(std::ptr::null(), 0, 1, -1, -1, irbuilder_region_of_block as *mut c_void, none, args.as_mut_ptr(), 1, 0);
        assert_eq!(omp_get_level(), 0, "after the serialized region");
        let mut on_heap = Box::new([&c as *const Ctx]);
        let mut args = [on_heap.as_mut_ptr().cast::<c_void>()];
        __kmpc_parallel_60(std::ptr::null(), 0, 1, -1, -1, irbuilder_region_of_block as *mut c_void, none, args.as_mut_ptr(), 1, 0);
        __kmpc_target_deinit();
    });
    let log = c.log.into_inner().unwrap();
    assert_eq!(log.iter().filter(|r| **r == ("block", 0, 1, 1, 0, 0, 1)).count(), 1, "{log:?}");
    let mut team: Vec<Row> = log.iter().filter(|r| r.2 == 64).cloned().collect();
    team.sort();
    assert_eq!(team, (0..64).map(|t| ("block", t, 64, 1, 1, t, 64)).collect::<Vec<Row>>());
    assert_eq!(log.len(), 65);
}

/// More than one argument block without a wrapper is no OpenMPIRBuilder code:
/// the runtime's wrapper calls only the arities that builder emits.
#[test]
fn a_generic_region_without_a_wrapper_and_two_blocks_traps_naming_it() {
    let env = Shared(kernel_env(ExecMode::GENERIC, 64));
    let c = ctx();
    let msg = common::trap_message(|| {
        sim::launch(1, 64, || unsafe {
            if __kmpc_target_init(env.get(), no_launch_env()) != -1 {
                return;
            }
            let mut args = [&c as *const Ctx as *mut c_void, std::ptr::null_mut()];
            __kmpc_parallel_60(std::ptr::null(), 0, 1, -1, -1, record_row as *mut c_void, std::ptr::null_mut(), args.as_mut_ptr(), 2, 0);
            __kmpc_target_deinit();
        })
    });
    assert_eq!(
        msg,
        "omprt: a generic-mode region without a wrapper function takes more than one argument block: __kmpc_parallel_60 \
         (source location unknown: clang passes it with -O1 or more and -gline-tables-only, team 0, thread 32)"
    );
}

// ---- captured variables beyond the inline slots ----

const MANY_ARGS: usize = 20;
static MANY_ARGS_SEEN: AtomicU32 = AtomicU32::new(0);
static FEW_ARGS_SEEN: AtomicU32 = AtomicU32::new(0);

extern "C-unwind" fn unused_outlined(_g: *mut i32, _b: *mut i32) {
    panic!("the workers run the wrapper");
}

/// Counts the workers that see every captured variable `i` as `i * 10 + 1`.
extern "C-unwind" fn many_args_wrapper(_zero: i16, _tid: i32) {
    let mut args: *mut *mut c_void = std::ptr::null_mut();
    unsafe { __kmpc_get_shared_variables(&mut args) };
    if (0..MANY_ARGS).all(|i| unsafe { *args.add(i) } as usize == i * 10 + 1) {
        MANY_ARGS_SEEN.fetch_add(1, Ordering::Relaxed);
    }
}

/// Exactly as many captured variables as the inline slots: each slot is
/// written by its own store (`memory::share_variables`).
const FULL_SLOTS_ARGS: usize = omprt_device_rtl::execution::state::SHARED_ARG_SLOTS;
static FULL_SLOTS_SEEN: AtomicU32 = AtomicU32::new(0);

/// Counts the workers that see every captured variable `i` as `i * 7 + 3`.
extern "C-unwind" fn full_slots_wrapper(_zero: i16, _tid: i32) {
    let mut args: *mut *mut c_void = std::ptr::null_mut();
    unsafe { __kmpc_get_shared_variables(&mut args) };
    if (0..FULL_SLOTS_ARGS).all(|i| unsafe { *args.add(i) } as usize == i * 7 + 3) {
        FULL_SLOTS_SEEN.fetch_add(1, Ordering::Relaxed);
    }
}

/// Counts the workers that see the first two captured variables.
extern "C-unwind" fn few_args_wrapper(_zero: i16, _tid: i32) {
    let mut args: *mut *mut c_void = std::ptr::null_mut();
    unsafe { __kmpc_get_shared_variables(&mut args) };
    if unsafe { (*args as usize, *args.add(1) as usize) } == (1, 11) {
        FEW_ARGS_SEEN.fetch_add(1, Ordering::Relaxed);
    }
}

/// More captured variables than the team's inline slots go through a heap
/// buffer; the next regions, with as many as the slots and with few, are
/// back on the slots.
#[test]
fn regions_with_more_captured_variables_than_inline_slots() {
    let env = Shared(kernel_env(ExecMode::GENERIC, 96));
    sim::launch(1, 96, || unsafe {
        if __kmpc_target_init(env.get(), no_launch_env()) != -1 {
            return;
        }
        let outlined = unused_outlined as *mut c_void;
        let mut many: Vec<*mut c_void> = (0..MANY_ARGS).map(|i| (i * 10 + 1) as *mut c_void).collect();
        __kmpc_parallel_60(std::ptr::null(), 0, 1, -1, -1, outlined, many_args_wrapper as *mut c_void, many.as_mut_ptr(), MANY_ARGS as i64, 0);
        let mut full: Vec<*mut c_void> = (0..FULL_SLOTS_ARGS).map(|i| std::ptr::without_provenance_mut(i * 7 + 3)).collect();
        __kmpc_parallel_60(std::ptr::null(), 0, 1, -1, -1, outlined, full_slots_wrapper as *mut c_void, full.as_mut_ptr(), FULL_SLOTS_ARGS as i64, 0);
        let mut few: Vec<*mut c_void> = vec![std::ptr::without_provenance_mut(1), std::ptr::without_provenance_mut(11)];
        __kmpc_parallel_60(std::ptr::null(), 0, 1, -1, -1, outlined, few_args_wrapper as *mut c_void, few.as_mut_ptr(), 2, 0);
        __kmpc_target_deinit();
    });
    // Each region's 64 workers saw its variables.
    assert_eq!(MANY_ARGS_SEEN.load(Ordering::Relaxed), 64);
    assert_eq!(FULL_SLOTS_SEEN.load(Ordering::Relaxed), 64);
    assert_eq!(FEW_ARGS_SEEN.load(Ordering::Relaxed), 64);
}
