//! Reductions in the host simulation, with callbacks written the way clang 22
//! generates them (docs/abi.md, "Parallel reductions" and
//! "Teams reductions"): exactly one thread gets 1, and
//! its copy holds the team's (or the league's) combined value.

mod common;

use common::*;
use omprt_abi::{ExecMode, KernelEnvironment, KernelLaunchEnvironment};
use omprt_device_rtl::arch::sim;
use omprt_device_rtl::exports::{api::*, kernel::*, misc::*, ompx::llvm_omp_target_dynamic_shared_alloc, parallel::*, sync::*};
use std::ffi::c_void;
use std::sync::atomic::{AtomicI64, AtomicU32, Ordering};
use std::sync::{Mutex, MutexGuard};

const MAX_BLOCKS: usize = 128;
/// clang's `__openmp_nvptx_data_transfer_temporary_storage`, one per block.
/// It is a global of the program, so the tests of this file take turns
/// (cargo runs them on parallel threads): see [`exclusive`].
static TRANSFER: [[AtomicI64; 32]; MAX_BLOCKS] = [const { [const { AtomicI64::new(0) }; 32] }; MAX_BLOCKS];
static TRANSFER_OWNER: Mutex<()> = Mutex::new(());

/// Held by a test for as long as its grids use [`TRANSFER`].
fn exclusive() -> MutexGuard<'static, ()> {
    TRANSFER_OWNER.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// The reduce list has one element: a pointer to the thread's private i64.
unsafe fn local(data: *mut c_void) -> *mut i64 {
    unsafe { *(data as *mut *mut i64) }
}

/// clang's shuffle-and-reduce callback for `reduction(+: i64)`.
extern "C" fn shuffle_reduce(data: *mut c_void, lane: i16, offset: i16, algo: i16) {
    let mine = unsafe { local(data) };
    let remote = __kmpc_shuffle_int64(unsafe { *mine }, offset, 32);
    if algo == 0 || (algo == 1 && lane < offset) || (algo == 2 && lane & 1 == 0 && offset > 0) {
        unsafe { *mine += remote };
    }
    if algo == 1 && lane >= offset {
        unsafe { *mine = remote };
    }
}

/// clang's inter-warp copy callback: warp masters publish, warp 0 collects.
extern "C" fn inter_warp_copy(data: *mut c_void, warps: i32) {
    let mine = unsafe { local(data) };
    let tid = __kmpc_get_hardware_thread_id_in_block();
    let slots = &TRANSFER[omp_get_team_num() as usize];
    __kmpc_barrier(std::ptr::null(), 0);
    if tid % 32 == 0 {
        slots[(tid / 32) as usize].store(unsafe { *mine }, Ordering::SeqCst);
    }
    __kmpc_barrier(std::ptr::null(), 0);
    if tid < warps {
        unsafe { *mine = slots[tid as usize].load(Ordering::SeqCst) };
    }
}

// The list <-> global buffer callbacks: record `i` is one i64.
extern "C" fn lg_copy(buf: *mut c_void, i: i32, data: *mut c_void) {
    unsafe { *(buf as *mut i64).add(i as usize) = *local(data) };
}
extern "C" fn lg_reduce(buf: *mut c_void, i: i32, data: *mut c_void) {
    unsafe { *(buf as *mut i64).add(i as usize) += *local(data) };
}
extern "C" fn gl_copy(buf: *mut c_void, i: i32, data: *mut c_void) {
    unsafe { *local(data) = *(buf as *mut i64).add(i as usize) };
}
extern "C" fn gl_reduce(buf: *mut c_void, i: i32, data: *mut c_void) {
    unsafe { *local(data) += *(buf as *mut i64).add(i as usize) };
}

struct Outcome {
    winners: AtomicU32,
    total: AtomicI64,
}

/// The parallel region: each thread contributes `value(thread)`, the winner
/// adds the team's result to `total`.
extern "C-unwind" fn region(_g: *mut i32, _b: *mut i32, out: *mut c_void) {
    let out = unsafe { &*(out as *const Outcome) };
    let mut private: i64 = i64::from(omp_get_thread_num()) + 1;
    let mut list = [&mut private as *mut i64 as *mut c_void];
    let r = unsafe { __kmpc_nvptx_parallel_reduce_nowait_v2(std::ptr::null(), 8, list.as_mut_ptr().cast(), shuffle_reduce, inter_warp_copy) };
    if r == 1 {
        out.winners.fetch_add(1, Ordering::Relaxed);
        out.total.fetch_add(private, Ordering::Relaxed);
    }
}

extern "C-unwind" fn region_wrapper(_z: i16, tid: i32) {
    let mut args: *mut *mut c_void = std::ptr::null_mut();
    unsafe { __kmpc_get_shared_variables(&mut args) };
    let (mut g, mut b) = (tid, 0);
    region(&mut g, &mut b, unsafe { *args });
}

fn triangle(n: i64) -> i64 {
    n * (n + 1) / 2
}

/// Teams of the whole block (any size) and a team of one. Not covered: an
/// SPMD region with `num_threads` smaller than the block and not a multiple
/// of 32, where clang's full-warp shuffles and block barriers would wait for
/// threads outside the region (as with LLVM's runtime).
#[test]
fn parallel_reduction_in_spmd_teams_of_any_size() {
    let _turn = exclusive();
    for (teams, threads, num_threads) in [(1, 1, -1), (2, 32, -1), (1, 45, -1), (3, 64, -1), (2, 100, -1), (2, 96, 1)] {
        let env = Shared(kernel_env(ExecMode::SPMD, threads as i32));
        let out = Outcome { winners: AtomicU32::new(0), total: AtomicI64::new(0) };
        sim::launch(teams, threads, || unsafe {
            __kmpc_target_init(env.get(), no_launch_env());
            let mut args = [&out as *const _ as *mut c_void];
            __kmpc_parallel_60(std::ptr::null(), 0, 1, num_threads, -1, region as *mut c_void, std::ptr::null_mut(), args.as_mut_ptr(), 1, 0);
            __kmpc_target_deinit();
        });
        let n = if num_threads > 0 { num_threads as i64 } else { threads as i64 };
        assert_eq!(out.winners.load(Ordering::Relaxed), teams, "one winner per team ({teams}x{threads}, n={n})");
        assert_eq!(out.total.load(Ordering::Relaxed), teams as i64 * triangle(n), "({teams}x{threads}, n={n})");
    }
}

#[test]
fn parallel_reduction_in_a_generic_kernel() {
    let _turn = exclusive();
    let env = Shared(kernel_env(ExecMode::GENERIC, 128));
    let out = Outcome { winners: AtomicU32::new(0), total: AtomicI64::new(0) };
    sim::launch(2, 128, || unsafe {
        if __kmpc_target_init(env.get(), no_launch_env()) != -1 {
            return;
        }
        let mut args = [&out as *const _ as *mut c_void];
        __kmpc_parallel_60(std::ptr::null(), 0, 1, -1, -1, region as *mut c_void, region_wrapper as *mut c_void, args.as_mut_ptr(), 1, 0);
        __kmpc_target_deinit();
    });
    assert_eq!(out.winners.load(Ordering::Relaxed), 2);
    assert_eq!(out.total.load(Ordering::Relaxed), 2 * triangle(96), "96 workers per team");
}

/// The kernel environment of a teams reduction of one `i64` with `buffer`'s
/// records, and the launch environment that hands out `buffer`.
fn teams_reduction_envs(mode: ExecMode, threads: u32, buffer: &mut [i64]) -> (KernelEnvironment, KernelLaunchEnvironment) {
    let mut env = kernel_env(mode, threads as i32);
    env.configuration.reduction_data_size = 8;
    env.configuration.reduction_buffer_length = buffer.len() as i32;
    (env, KernelLaunchEnvironment { reduction_cnt: 0, reduction_iter_cnt: 0, reduction_buffer: buffer.as_mut_ptr().cast() })
}

/// `target teams distribute parallel for reduction(+:x)` as clang lowers it:
/// a parallel reduction, then a teams reduction through the fixed buffer.
/// Few records and many teams exercise the window protocol.
#[test]
fn teams_reduction_over_more_teams_than_records() {
    let _turn = exclusive();
    // (66, 96, 80): the last team folds 66 records with two full warps
    // while its third warp only meets the barriers of the inter-warp copy.
    for (teams, threads, records) in [(1, 32, 4), (3, 64, 4), (10, 33, 4), (9, 40, 1024), (13, 32, 3), (66, 96, 80), (70, 64, 32)] {
        let mut buffer = vec![0i64; records];
        let (env, mut kle) = teams_reduction_envs(ExecMode::SPMD, threads, &mut buffer);
        let env = Shared(env);
        let kle_ptr = Shared(&mut kle as *mut KernelLaunchEnvironment);
        let winners = AtomicU32::new(0);
        let result = AtomicI64::new(0);
        sim::launch(teams, threads, || unsafe {
            __kmpc_target_init(env.get(), *kle_ptr.get());
            // Each team's partial: team t contributes (t+1) * threads.
            let mut private: i64 = i64::from(omp_get_team_num()) + 1;
            let mut list = [&mut private as *mut i64 as *mut c_void];
            let buf = __kmpc_reduction_get_fixed_buffer();
            // (The parallel part is covered above; here every thread holds its share.)
            let mut partial: i64 = private * i64::from(threads);
            list[0] = &mut partial as *mut i64 as *mut c_void;
            let r = __kmpc_nvptx_teams_reduce_nowait_v2(
                std::ptr::null(), buf, records as i32, 8, list.as_mut_ptr().cast(),
                shuffle_reduce, inter_warp_copy, lg_copy, lg_reduce, gl_copy, gl_reduce,
            );
            if r == 1 {
                winners.fetch_add(1, Ordering::Relaxed);
                result.store(partial, Ordering::Relaxed);
            }
            __kmpc_target_deinit();
        });
        assert_eq!(winners.load(Ordering::Relaxed), 1, "exactly one thread of the league ({teams} teams, {records} records)");
        assert_eq!(result.load(Ordering::Relaxed), triangle(teams as i64) * threads as i64, "({teams} teams, {records} records)");
        assert_eq!((kle.reduction_cnt, kle.reduction_iter_cnt), (0, 0), "counters reset for the next launch");
    }
}

#[test]
fn shuffles_follow_shfl_down_sync() {
    let env = Shared(kernel_env(ExecMode::SPMD, 64));
    let bad = AtomicU32::new(0);
    sim::launch(1, 64, || unsafe {
        __kmpc_target_init(env.get(), no_launch_env());
        let lane = __kmpc_get_hardware_thread_id_in_block() % 32;
        let a = __kmpc_shuffle_int32(lane * 3, 5, 32);
        let b = __kmpc_shuffle_int64((i64::from(lane) << 33) - 7, 2, 8);
        let ok_a = a == if lane + 5 < 32 { (lane + 5) * 3 } else { lane * 3 };
        let src = if lane % 8 + 2 < 8 { lane + 2 } else { lane };
        let ok_b = b == (i64::from(src) << 33) - 7;
        bad.fetch_add(u32::from(!(ok_a && ok_b)), Ordering::Relaxed);
    });
    assert_eq!(bad.load(Ordering::Relaxed), 0);
}

/// A kernel openmp-opt SPMDized (generic-SPMD): HeapToShared made the team's
/// reduction variable one shared copy, so every thread's reduce list names
/// the same variable. Only the master may fold into it.
#[test]
fn teams_reduction_with_a_team_shared_variable() {
    let _turn = exclusive();
    for (teams, threads, records) in [(5, 64, 1024), (40, 96, 8)] {
        // One variable per team, as in shared memory; team t holds t + 1.
        let team_vars: Vec<std::cell::UnsafeCell<i64>> = (0..teams).map(|t| std::cell::UnsafeCell::new(t as i64 + 1)).collect();
        let vars = Shared(&team_vars);
        check_reduction_into_team_variable(ExecMode::GENERIC_SPMD, (teams, threads, records), 0, || vars.get()[omp_get_team_num() as usize].get());
    }
}

/// A kernel clang emitted SPMD whose reduce list names one shared variable
/// for the whole team (here in dynamic shared memory): as in a SPMDized
/// kernel, only the master may fold into it. The runtime tells by the
/// variable's address, which is how the test folds in kernels openmp-opt
/// SPMDized in files whose mode test does not fold.
#[test]
fn spmd_teams_reduction_into_a_shared_variable() {
    let _turn = exclusive();
    for grid in [(5, 64, 1024), (40, 96, 8)] {
        check_reduction_into_team_variable(ExecMode::SPMD, grid, 8, || unsafe {
            let var = llvm_omp_target_dynamic_shared_alloc().cast::<i64>();
            if omp_get_thread_num() == 0 {
                *var = i64::from(omp_get_team_num()) + 1;
            }
            __kmpc_barrier(std::ptr::null(), 0);
            var
        });
    }
}

/// A teams reduction of `(teams, threads, records)` in `mode` where every
/// thread's reduce list names its team's one variable, `team_var()` (which
/// every thread calls; team t's holds t + 1): one thread wins, holding the
/// league's sum.
fn check_reduction_into_team_variable(mode: ExecMode, (teams, threads, records): (u32, u32, usize), dynamic_bytes: u32, team_var: impl Fn() -> *mut i64 + Sync) {
    let mut buffer = vec![0i64; records];
    let (env, mut kle) = teams_reduction_envs(mode, threads, &mut buffer);
    let env = Shared(env);
    let kle_ptr = Shared(&mut kle as *mut KernelLaunchEnvironment);
    let winners = AtomicU32::new(0);
    let result = AtomicI64::new(0);
    sim::launch_with_dynamic_shared(teams, threads, dynamic_bytes, || unsafe {
        __kmpc_target_init(env.get(), *kle_ptr.get());
        let var = team_var();
        let mut list = [var as *mut c_void];
        let buf = __kmpc_reduction_get_fixed_buffer();
        let r = __kmpc_nvptx_teams_reduce_nowait_v2(
            std::ptr::null(), buf, records as i32, 8, list.as_mut_ptr().cast(),
            shuffle_reduce, inter_warp_copy, lg_copy, lg_reduce, gl_copy, gl_reduce,
        );
        if r == 1 {
            winners.fetch_add(1, Ordering::Relaxed);
            result.store(*var, Ordering::Relaxed);
        }
        __kmpc_target_deinit();
    });
    assert_eq!(winners.load(Ordering::Relaxed), 1, "one winner ({mode:?}, {teams} teams)");
    assert_eq!(result.load(Ordering::Relaxed), triangle(teams as i64), "({mode:?}, {teams} teams, {records} records)");
}
