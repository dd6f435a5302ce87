//! SPMD kernels in the host simulation: init/deinit, hardware queries, thread
//! numbering inside and outside parallel regions, `num_threads` and `if`,
//! barriers, master/masked, warp primitives, and traps that name what is not
//! implemented yet.

mod common;

use common::*;
use omprt_abi::ExecMode;
use omprt_device_rtl::arch::{self, sim};
use omprt_device_rtl::exports::{api::*, kernel::*, misc::*, parallel::*, sync::*, workshare::*};
use std::ffi::c_void;
use std::sync::Mutex;
use std::sync::atomic::{AtomicI32, AtomicU32, Ordering};

fn spmd() -> Shared<omprt_abi::KernelEnvironment> {
    Shared(kernel_env(ExecMode::SPMD, 128))
}

/// What one thread saw inside a parallel region.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Seen {
    team: i32,
    thread: i32,
    threads: i32,
    level: i32,
    active: i32,
    in_parallel: i32,
    gtid: i32,
    master: i32,
    masked3: i32,
}

extern "C-unwind" fn record(gtid: *mut i32, btid: *mut i32, log: *mut c_void) {
    let log = unsafe { &*(log as *const Mutex<Vec<Seen>>) };
    assert_eq!(unsafe { *btid }, 0, "bound thread id");
    let seen = Seen {
        team: omp_get_team_num(),
        thread: omp_get_thread_num(),
        threads: omp_get_num_threads(),
        level: omp_get_level(),
        active: omp_get_active_level(),
        in_parallel: omp_in_parallel(),
        gtid: __kmpc_global_thread_num(std::ptr::null()),
        master: __kmpc_master(std::ptr::null(), 0),
        masked3: __kmpc_masked(std::ptr::null(), 0, 3),
    };
    assert_eq!(unsafe { *gtid }, seen.thread, "gtid passed to the outlined function");
    log.lock().unwrap().push(seen);
}

fn region(teams: u32, threads: u32, if_expr: i32, num_threads: i32) -> Vec<Seen> {
    let env = spmd();
    let log: Mutex<Vec<Seen>> = Mutex::new(Vec::new());
    sim::launch(teams, threads, || unsafe {
        assert_eq!(__kmpc_target_init(env.get(), no_launch_env()), -1);
        // Outside any parallel region: a team of one, thread 0, level 0.
        assert_eq!((omp_get_thread_num(), omp_get_num_threads(), omp_get_level()), (0, 1, 0));
        assert_eq!(__kmpc_is_spmd_exec_mode(), 1);
        assert_eq!(__kmpc_parallel_level(std::ptr::null(), 0), 0);
        let mut args = [&log as *const _ as *mut c_void];
        __kmpc_parallel_60(std::ptr::null(), 0, if_expr, num_threads, -1, record as *mut c_void, std::ptr::null_mut(), args.as_mut_ptr(), 1, 0);
        assert_eq!(omp_get_level(), 0, "level restored after the region");
        __kmpc_target_deinit();
    });
    let mut v = log.into_inner().unwrap();
    v.sort_by_key(|s| (s.team, s.thread));
    v
}

#[test]
fn full_team_numbers_every_thread_once() {
    for (teams, threads) in [(1, 1), (2, 32), (3, 45), (2, 100)] {
        let seen = region(teams, threads, 1, -1);
        assert_eq!(seen.len() as u32, teams * threads);
        for (i, s) in seen.iter().enumerate() {
            let (team, thread) = ((i as u32 / threads) as i32, (i as u32 % threads) as i32);
            let active = i32::from(threads > 1);
            assert_eq!(
                *s,
                Seen {
                    team,
                    thread: if active == 1 { thread } else { 0 },
                    threads: threads as i32,
                    level: 1,
                    active,
                    in_parallel: active,
                    gtid: s.thread,
                    master: i32::from(s.thread == 0),
                    masked3: i32::from(s.thread == 3),
                }
            );
        }
    }
}

#[test]
fn num_threads_smaller_than_the_team_runs_on_the_first_threads() {
    let seen = region(2, 100, 1, 37);
    assert_eq!(seen.len(), 2 * 37);
    assert!(seen.iter().all(|s| s.threads == 37 && s.active == 1 && s.thread < 37));
    // Larger than the block: the block size wins.
    let seen = region(1, 40, 1, 500);
    assert_eq!(seen.len(), 40);
    assert!(seen.iter().all(|s| s.threads == 40));
}

#[test]
fn if_false_runs_the_region_once_per_team_as_a_team_of_one() {
    let seen = region(3, 64, 0, -1);
    assert_eq!(seen.len(), 3);
    for s in &seen {
        assert_eq!((s.thread, s.threads, s.level, s.active, s.in_parallel), (0, 1, 1, 0, 0));
    }
    let seen = region(1, 64, 1, 1);
    assert_eq!(seen.len(), 1, "num_threads(1) is a team of one too");
}

#[test]
fn hardware_queries_match_the_grid() {
    let env = spmd();
    let bad = AtomicU32::new(0);
    sim::launch(3, 70, || unsafe {
        __kmpc_target_init(env.get(), no_launch_env());
        let ok = __kmpc_get_hardware_thread_id_in_block() == arch::thread_id_in_block() as i32
            && __kmpc_get_hardware_num_threads_in_block() == 70
            && __kmpc_get_hardware_num_blocks() == 3
            && __kmpc_get_warp_size() == 32
            && omp_get_num_teams() == 3
            && omp_get_team_num() == arch::block_id() as i32;
        bad.fetch_add(u32::from(!ok), Ordering::Relaxed);
        __kmpc_target_deinit();
    });
    assert_eq!(bad.load(Ordering::Relaxed), 0);
}

extern "C-unwind" fn barrier_phases(_g: *mut i32, _b: *mut i32, counter: *mut c_void) {
    let counter = unsafe { &*(counter as *const AtomicI32) };
    let n = omp_get_num_threads();
    for phase in 1..=5 {
        counter.fetch_add(1, Ordering::SeqCst);
        __kmpc_barrier(std::ptr::null(), 0);
        // After the barrier every thread of the region has arrived.
        assert!(counter.load(Ordering::SeqCst) >= phase * n);
        __kmpc_barrier_simple_spmd(std::ptr::null(), 0);
    }
}

#[test]
fn barriers_hold_every_thread_of_an_spmd_region() {
    let env = spmd();
    let counter = AtomicI32::new(0);
    sim::launch(1, 96, || unsafe {
        __kmpc_target_init(env.get(), no_launch_env());
        let mut args = [&counter as *const _ as *mut c_void];
        __kmpc_parallel_60(std::ptr::null(), 0, 1, -1, -1, barrier_phases as *mut c_void, std::ptr::null_mut(), args.as_mut_ptr(), 1, 0);
    });
    assert_eq!(counter.load(Ordering::SeqCst), 5 * 96);
}

extern "C-unwind" fn many_args(_g: *mut i32, _b: *mut i32, a0: *mut c_void, a1: *mut c_void, a2: *mut c_void, a3: *mut c_void, a4: *mut c_void) {
    let sum = unsafe { &*(a4 as *const AtomicU32) };
    sum.fetch_add((a0 as usize + a1 as usize + a2 as usize + a3 as usize) as u32, Ordering::Relaxed);
}

#[test]
fn captured_variables_reach_the_outlined_region_in_order() {
    let env = spmd();
    let sum = AtomicU32::new(0);
    sim::launch(1, 8, || unsafe {
        __kmpc_target_init(env.get(), no_launch_env());
        let fake = std::ptr::without_provenance_mut::<c_void>;
        let mut args = [fake(1), fake(10), fake(100), fake(1000), &sum as *const _ as *mut c_void];
        __kmpc_parallel_60(std::ptr::null(), 0, 1, -1, -1, many_args as *mut c_void, std::ptr::null_mut(), args.as_mut_ptr(), 5, 0);
    });
    assert_eq!(sum.load(Ordering::Relaxed), 8 * 1111);
}

extern "C-unwind" fn one_block(_g: *mut i32, _b: *mut i32, sum: *mut c_void) {
    unsafe { &*(sum as *const AtomicU32) }.fetch_add(1, Ordering::Relaxed);
}

/// Adds `Σ (i + 1) · a_i` over its ten captured values to the counter its
/// eleventh points at: a wrong order of the arguments changes the sum.
extern "C-unwind" fn eleven_args(
    _g: *mut i32,
    _b: *mut i32,
    a0: *mut c_void,
    a1: *mut c_void,
    a2: *mut c_void,
    a3: *mut c_void,
    a4: *mut c_void,
    a5: *mut c_void,
    a6: *mut c_void,
    a7: *mut c_void,
    a8: *mut c_void,
    a9: *mut c_void,
    sum: *mut c_void,
) {
    let values = [a0, a1, a2, a3, a4, a5, a6, a7, a8, a9];
    let weighted: usize = values.iter().enumerate().map(|(i, a)| (i + 1) * *a as usize).sum();
    unsafe { &*(sum as *const AtomicU32) }.fetch_add(weighted as u32, Ordering::Relaxed);
}

/// The ten values `eleven_args` weighs, then the counter.
fn eleven(sum: &AtomicU32) -> [*mut c_void; 11] {
    let mut args = [std::ptr::null_mut(); 11];
    for (i, a) in args.iter_mut().take(10).enumerate() {
        *a = std::ptr::without_provenance_mut(100 + i);
    }
    args[10] = sum as *const _ as *mut c_void;
    args
}

/// `eleven_args`' sum for `eleven`'s values: Σ (i + 1)(100 + i), i < 10.
const ELEVEN_SUM: u32 = 5830;

/// A region that runs `eleven_args` nested in itself, where it is serialized.
extern "C-unwind" fn nests_eleven(_g: *mut i32, _b: *mut i32, sum: *mut c_void) {
    let mut args = eleven(unsafe { &*(sum as *const AtomicU32) });
    unsafe { __kmpc_parallel_60(std::ptr::null(), 0, 1, -1, -1, eleven_args as *mut c_void, std::ptr::null_mut(), args.as_mut_ptr(), 11, 0) };
}

/// The archive's LTO member, which flang's out-of-line calls reach, calls a
/// region with up to 11 captured variables (flang passes one block, or none;
/// clang's calls reach it at `-O0 -foffload-lto`, whose link inlines nothing,
/// and elsewhere find the bitcode linked at compile time or are inlined, where
/// every arity stays), in an SPMD region and a serialized one, and traps
/// naming the way out for more.
#[test]
fn out_of_line_regions_take_up_to_eleven_arguments_and_trap_on_more() {
    sim::serve_out_of_line_callers(true);
    let env = spmd();
    let sum = AtomicU32::new(0);
    // Addresses, not pointers, cross into the simulated threads (`Sync`).
    let run = |outlined: *mut c_void, args: &[*mut c_void]| {
        let outlined = outlined.expose_provenance();
        let addrs: Vec<usize> = args.iter().map(|a| a.expose_provenance()).collect();
        sim::launch(1, 8, || unsafe {
            __kmpc_target_init(env.get(), no_launch_env());
            let mut args: Vec<*mut c_void> = addrs.iter().map(|&a| std::ptr::with_exposed_provenance_mut(a)).collect();
            let outlined = std::ptr::with_exposed_provenance_mut(outlined);
            __kmpc_parallel_60(std::ptr::null(), 0, 1, -1, -1, outlined, std::ptr::null_mut(), args.as_mut_ptr(), args.len() as i64, 0);
        })
    };
    run(one_block as *mut c_void, &[&sum as *const _ as *mut c_void]);
    assert_eq!(sum.swap(0, Ordering::Relaxed), 8, "one block");
    let fake = std::ptr::without_provenance_mut::<c_void>;
    run(many_args as *mut c_void, &[fake(1), fake(10), fake(100), fake(1000), &sum as *const _ as *mut c_void]);
    assert_eq!(sum.swap(0, Ordering::Relaxed), 8 * 1111, "five arguments");
    run(eleven_args as *mut c_void, &eleven(&sum));
    assert_eq!(sum.swap(0, Ordering::Relaxed), 8 * ELEVEN_SUM, "eleven arguments");
    run(nests_eleven as *mut c_void, &[&sum as *const _ as *mut c_void]);
    assert_eq!(sum.swap(0, Ordering::Relaxed), 8 * ELEVEN_SUM, "eleven arguments in a serialized region");
    let msg = trap_message(|| {
        let mut twelve = eleven(&sum).to_vec();
        twelve.push(std::ptr::null_mut());
        run(eleven_args as *mut c_void, &twelve)
    });
    assert!(msg.starts_with("omprt: a parallel region with more than 11 arguments called out of line"), "{msg}");
    sim::serve_out_of_line_callers(false);
}

/// Regions of every arity clang emits (0 to 32 captured variables), each
/// adding `Σ (i + 1) · a_i` over its values to `WEIGHTED`: a value dropped,
/// repeated or out of place changes the sum.
static WEIGHTED: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

macro_rules! weighted_regions {
    ($($name:ident: [$($a:ident)*],)*) => {
        $(
            extern "C-unwind" fn $name(_g: *mut i32, _b: *mut i32 $(, $a: *mut c_void)*) {
                let values: &[*mut c_void] = &[$($a),*];
                let weighted: usize = values.iter().enumerate().map(|(i, a)| (i + 1) * a.addr()).sum();
                WEIGHTED.fetch_add(weighted, Ordering::Relaxed);
            }
        )*
        /// The regions, by arity.
        const WEIGHTED_REGIONS: &[*const ()] = &[$($name as *const ()),*];
    };
}

weighted_regions! {
    region_0: [],
    region_1: [a0],
    region_2: [a0 a1],
    region_3: [a0 a1 a2],
    region_4: [a0 a1 a2 a3],
    region_5: [a0 a1 a2 a3 a4],
    region_6: [a0 a1 a2 a3 a4 a5],
    region_7: [a0 a1 a2 a3 a4 a5 a6],
    region_8: [a0 a1 a2 a3 a4 a5 a6 a7],
    region_9: [a0 a1 a2 a3 a4 a5 a6 a7 a8],
    region_10: [a0 a1 a2 a3 a4 a5 a6 a7 a8 a9],
    region_11: [a0 a1 a2 a3 a4 a5 a6 a7 a8 a9 a10],
    region_12: [a0 a1 a2 a3 a4 a5 a6 a7 a8 a9 a10 a11],
    region_13: [a0 a1 a2 a3 a4 a5 a6 a7 a8 a9 a10 a11 a12],
    region_14: [a0 a1 a2 a3 a4 a5 a6 a7 a8 a9 a10 a11 a12 a13],
    region_15: [a0 a1 a2 a3 a4 a5 a6 a7 a8 a9 a10 a11 a12 a13 a14],
    region_16: [a0 a1 a2 a3 a4 a5 a6 a7 a8 a9 a10 a11 a12 a13 a14 a15],
    region_17: [a0 a1 a2 a3 a4 a5 a6 a7 a8 a9 a10 a11 a12 a13 a14 a15 a16],
    region_18: [a0 a1 a2 a3 a4 a5 a6 a7 a8 a9 a10 a11 a12 a13 a14 a15 a16 a17],
    region_19: [a0 a1 a2 a3 a4 a5 a6 a7 a8 a9 a10 a11 a12 a13 a14 a15 a16 a17 a18],
    region_20: [a0 a1 a2 a3 a4 a5 a6 a7 a8 a9 a10 a11 a12 a13 a14 a15 a16 a17 a18 a19],
    region_21: [a0 a1 a2 a3 a4 a5 a6 a7 a8 a9 a10 a11 a12 a13 a14 a15 a16 a17 a18 a19 a20],
    region_22: [a0 a1 a2 a3 a4 a5 a6 a7 a8 a9 a10 a11 a12 a13 a14 a15 a16 a17 a18 a19 a20 a21],
    region_23: [a0 a1 a2 a3 a4 a5 a6 a7 a8 a9 a10 a11 a12 a13 a14 a15 a16 a17 a18 a19 a20 a21 a22],
    region_24: [a0 a1 a2 a3 a4 a5 a6 a7 a8 a9 a10 a11 a12 a13 a14 a15 a16 a17 a18 a19 a20 a21 a22 a23],
    region_25: [a0 a1 a2 a3 a4 a5 a6 a7 a8 a9 a10 a11 a12 a13 a14 a15 a16 a17 a18 a19 a20 a21 a22 a23 a24],
    region_26: [a0 a1 a2 a3 a4 a5 a6 a7 a8 a9 a10 a11 a12 a13 a14 a15 a16 a17 a18 a19 a20 a21 a22 a23 a24 a25],
    region_27: [a0 a1 a2 a3 a4 a5 a6 a7 a8 a9 a10 a11 a12 a13 a14 a15 a16 a17 a18 a19 a20 a21 a22 a23 a24 a25 a26],
    region_28: [a0 a1 a2 a3 a4 a5 a6 a7 a8 a9 a10 a11 a12 a13 a14 a15 a16 a17 a18 a19 a20 a21 a22 a23 a24 a25 a26 a27],
    region_29: [a0 a1 a2 a3 a4 a5 a6 a7 a8 a9 a10 a11 a12 a13 a14 a15 a16 a17 a18 a19 a20 a21 a22 a23 a24 a25 a26 a27 a28],
    region_30: [a0 a1 a2 a3 a4 a5 a6 a7 a8 a9 a10 a11 a12 a13 a14 a15 a16 a17 a18 a19 a20 a21 a22 a23 a24 a25 a26 a27 a28 a29],
    region_31: [a0 a1 a2 a3 a4 a5 a6 a7 a8 a9 a10 a11 a12 a13 a14 a15 a16 a17 a18 a19 a20 a21 a22 a23 a24 a25 a26 a27 a28 a29 a30],
    region_32: [a0 a1 a2 a3 a4 a5 a6 a7 a8 a9 a10 a11 a12 a13 a14 a15 a16 a17 a18 a19 a20 a21 a22 a23 a24 a25 a26 a27 a28 a29 a30 a31],
}

/// `WEIGHTED`'s sum for a region of `n` values `1000 + i`, on `threads` threads.
fn weighted_sum(n: usize, threads: usize) -> usize {
    threads * (0..n).map(|i| (i + 1) * (1000 + i)).sum::<usize>()
}

/// Runs the region of `n` captured variables on 8 threads of an SPMD kernel
/// and returns what it added, or the trap's message.
fn run_weighted(n: usize) -> Result<usize, String> {
    let env = spmd();
    let region = WEIGHTED_REGIONS[n].expose_provenance();
    WEIGHTED.store(0, Ordering::Relaxed);
    let run = || {
        sim::launch(1, 8, || unsafe {
            __kmpc_target_init(env.get(), no_launch_env());
            let mut args: Vec<*mut c_void> = (0..n).map(|i| std::ptr::without_provenance_mut(1000 + i)).collect();
            let outlined = std::ptr::with_exposed_provenance_mut(region);
            __kmpc_parallel_60(std::ptr::null(), 0, 1, -1, -1, outlined, std::ptr::null_mut(), args.as_mut_ptr(), n as i64, 0);
        })
    };
    match trapped(std::panic::AssertUnwindSafe(run)) {
        Some(msg) => Err(msg),
        None => Ok(WEIGHTED.load(Ordering::Relaxed)),
    }
}

/// Every arity reaches its region with its values in order: in the bitcode
/// clang links at compile time all 33, out of line (the archive's LTO member)
/// up to 11, and more traps there, saying so.
#[test]
fn every_arity_reaches_its_region_in_order() {
    for n in 0..WEIGHTED_REGIONS.len() {
        assert_eq!(run_weighted(n), Ok(weighted_sum(n, 8)), "{n} captured variables, compile-time copy");
    }
    sim::serve_out_of_line_callers(true);
    let out_of_line: Vec<_> = (0..WEIGHTED_REGIONS.len()).map(run_weighted).collect();
    sim::serve_out_of_line_callers(false);
    for (n, seen) in out_of_line.into_iter().enumerate() {
        if n <= 11 {
            assert_eq!(seen, Ok(weighted_sum(n, 8)), "{n} captured variables, out of line");
        } else {
            let msg = seen.expect_err("more than 11 captured variables out of line must trap");
            assert!(msg.starts_with("omprt: a parallel region with more than 11 arguments called out of line"), "{n}: {msg}");
        }
    }
}

/// The last thread of the region stores its number in each of the team's
/// copies, as clang's inner-loop lastprivate copy-out does.
extern "C-unwind" fn last_thread_writes(_g: *mut i32, _b: *mut i32, small: *mut c_void, big: *mut c_void) {
    if omp_get_thread_num() == omp_get_num_threads() - 1 {
        unsafe {
            *(small as *mut u32) = omp_get_thread_num() as u32;
            *(big as *mut u32).add(149) = omp_get_thread_num() as u32;
        }
    }
}

/// SPMD team code (outside any parallel region) runs on every thread, and
/// clang allocates there the team's one copy of a variable its region shares
/// (a `teams distribute parallel for` lastprivate): every thread gets the
/// same copy, on the shared stack or, when that is full, one heap block, and
/// sees what the region's last thread wrote. With a copy per thread the
/// team's copy-out races (lastprivate_combined.c on a GPU).
#[test]
fn spmd_team_code_allocations_are_one_copy_per_team() {
    let env = spmd();
    // Per thread: (team, small, big, after, small value, big value, reused).
    type Seen = (i32, usize, usize, usize, u32, u32, bool);
    let log: Mutex<Vec<Seen>> = Mutex::new(Vec::new());
    for (teams, threads) in [(2, 64), (3, 45), (1, 1)] {
        log.lock().unwrap().clear();
        sim::launch(teams, threads, || unsafe {
            __kmpc_target_init(env.get(), no_launch_env());
            let small = __kmpc_alloc_shared(4) as *mut u32;
            let big = __kmpc_alloc_shared(600) as *mut u32; // more than the stack holds
            let after = __kmpc_alloc_shared(8) as *mut u32; // fits again
            *small = u32::MAX; // every thread initialises the copy, as clang's team code does
            let mut args = [small.cast::<c_void>(), big.cast()];
            __kmpc_parallel_60(std::ptr::null(), 0, 1, -1, -1, last_thread_writes as *mut c_void, std::ptr::null_mut(), args.as_mut_ptr(), 2, 0);
            let (vs, vb) = (*small, *big.add(149));
            __kmpc_free_shared(after.cast(), 8);
            __kmpc_free_shared(big.cast(), 600);
            __kmpc_free_shared(small.cast(), 4);
            let again = __kmpc_alloc_shared(4);
            __kmpc_free_shared(again, 4);
            let entry = (omp_get_team_num(), small as usize, big as usize, after as usize, vs, vb, again == small.cast());
            log.lock().unwrap().push(entry);
            __kmpc_target_deinit();
        });
        let log = log.lock().unwrap();
        assert_eq!(log.len() as u32, teams * threads);
        for team in 0..teams as i32 {
            let mine: Vec<_> = log.iter().filter(|e| e.0 == team).collect();
            let first = mine[0];
            assert!(mine.iter().all(|e| (e.1, e.2, e.3) == (first.1, first.2, first.3)), "team {team}: threads got different copies");
            assert!(mine.iter().all(|e| e.4 == threads - 1 && e.5 == threads - 1), "team {team}: the last thread's value is lost");
            assert!(mine.iter().all(|e| e.6), "team {team}: the stack did not unwind");
            assert_eq!(first.1 % 16, 0);
            assert_eq!(first.3, first.1 + 16, "the block after the heap one is on the stack again");
        }
    }
}

/// A kernel openmp-opt made SPMD (exec mode generic-SPMD) runs the team code
/// it could not prove safe on the main thread alone, and an allocation there
/// may be such code, so there each caller keeps a block of its own: no
/// barrier may wait for threads that never come. (All threads call here, so
/// that a team allocation shows as one shared block instead of a hang.)
#[test]
fn team_code_of_a_kernel_openmp_opt_made_spmd_allocates_per_thread() {
    let env = Shared(kernel_env(ExecMode::GENERIC_SPMD, 64));
    let blocks: Mutex<Vec<usize>> = Mutex::new(Vec::new());
    sim::launch(1, 64, || unsafe {
        __kmpc_target_init(env.get(), no_launch_env());
        let p = __kmpc_alloc_shared(8);
        blocks.lock().unwrap().push(p as usize);
        // Every block is recorded before any is freed (and reused).
        __kmpc_barrier_simple_spmd(std::ptr::null(), 0);
        __kmpc_free_shared(p, 8);
        __kmpc_target_deinit();
    });
    let mut b = blocks.into_inner().unwrap();
    assert_eq!(b.len(), 64);
    b.sort();
    b.dedup();
    assert_eq!(b.len(), 64, "callers shared a block");
}

#[test]
fn warp_primitives_in_the_simulation() {
    let env = spmd();
    let bad = AtomicU32::new(0);
    sim::launch(1, 64, || unsafe {
        __kmpc_target_init(env.get(), no_launch_env());
        let lane = arch::lane_id();
        let down = arch::shuffle_down_u32(u32::MAX, lane * 10, 3, 32);
        let expect = if lane + 3 < 32 { (lane + 3) * 10 } else { lane * 10 };
        let odd = arch::ballot(u32::MAX, lane % 2 == 1);
        let wide = arch::shuffle_down_u64(u32::MAX, (u64::from(lane) << 40) | 7, 1, 16);
        let wide_expect = if lane % 16 < 15 { (u64::from(lane + 1) << 40) | 7 } else { (u64::from(lane) << 40) | 7 };
        let ok = down == expect
            && odd == 0xAAAA_AAAA
            && wide == wide_expect
            && __kmpc_warp_active_thread_mask() == 0xFFFF_FFFF;
        __kmpc_syncwarp(-1);
        __kmpc_flush(std::ptr::null());
        bad.fetch_add(u32::from(!ok), Ordering::Relaxed);
    });
    assert_eq!(bad.load(Ordering::Relaxed), 0);
}

#[test]
fn static_fini_entries_are_no_ops() {
    let env = spmd();
    sim::launch(1, 2, || unsafe {
        __kmpc_target_init(env.get(), no_launch_env());
        __kmpc_for_static_fini(std::ptr::null(), 0);
        __kmpc_distribute_static_fini(std::ptr::null(), 0);
        __kmpc_end_master(std::ptr::null(), 0);
        __kmpc_end_masked(std::ptr::null(), 0);
    });
}

#[test]
fn unimplemented_entry_points_trap_naming_themselves() {
    let env = spmd();
    type Case = Box<dyn Fn() + Sync + std::panic::RefUnwindSafe>;
    let cases: Vec<(&str, Case)> = vec![
        ("__kmpc_copyprivate", Box::new(|| unsafe {
            __kmpc_copyprivate(std::ptr::null(), 0, 0, std::ptr::null_mut(), std::ptr::null_mut(), 0);
        })),
        ("__kmpc_proxy_task_completed_ooo", Box::new(|| unsafe {
            __kmpc_proxy_task_completed_ooo(std::ptr::null_mut());
        })),
    ];
    for (name, call) in &cases {
        let msg = trap_message(|| {
            sim::launch(1, 1, || unsafe {
                __kmpc_target_init(env.get(), no_launch_env());
                call();
            })
        });
        assert_eq!(msg, format!("omprt: not implemented yet: {name} (source location unknown: clang passes it with -O1 or more and -gline-tables-only, team 0, thread 0)"));
    }
}

#[test]
fn unknown_schedule_traps_naming_the_entry_point() {
    let env = spmd();
    let msg = trap_message(|| {
        sim::launch(1, 1, || unsafe {
            __kmpc_target_init(env.get(), no_launch_env());
            let (mut last, mut lb, mut ub, mut st) = (0, 0, 9, 1);
            __kmpc_for_static_init_4(std::ptr::null(), 0, 35, &mut last, &mut lb, &mut ub, &mut st, 1, 1);
        })
    });
    assert!(msg.contains("__kmpc_for_static_init_4"), "{msg}");
}

extern "C-unwind" fn partial_team_phases(_g: *mut i32, _b: *mut i32, counter: *mut c_void) {
    let counter = unsafe { &*(counter as *const AtomicI32) };
    let n = omp_get_num_threads();
    for phase in 1..=3 {
        counter.fetch_add(1, Ordering::SeqCst);
        __kmpc_barrier(std::ptr::null(), 0);
        assert!(counter.load(Ordering::SeqCst) >= phase * n, "a barrier of the team let a thread through early");
        __kmpc_barrier(std::ptr::null(), 0);
    }
}

/// A team smaller than the block (`num_threads` below the launch size, not a
/// multiple of the warp size; `if(false)`, a team of one): its barriers hold
/// its own threads, and the threads outside it leave the region only after
/// the team is done, as many barriers later as the team took.
#[test]
fn barriers_of_a_team_smaller_than_the_block() {
    let env = spmd();
    for (if_expr, num_threads, team) in [(1, 40, 40), (1, 33, 33), (0, -1, 1)] {
        let counter = AtomicI32::new(0);
        sim::launch(1, 64, || unsafe {
            __kmpc_target_init(env.get(), no_launch_env());
            let mut args = [&counter as *const _ as *mut c_void];
            __kmpc_parallel_60(std::ptr::null(), 0, if_expr, num_threads, -1, partial_team_phases as *mut c_void, std::ptr::null_mut(), args.as_mut_ptr(), 1, 0);
            assert_eq!(counter.load(Ordering::SeqCst), 3 * team, "a thread left the region before its team finished");
            // The block barrier still pairs up after the region.
            __kmpc_barrier(std::ptr::null(), 0);
            __kmpc_target_deinit();
        });
        assert_eq!(counter.load(Ordering::SeqCst), 3 * team);
    }
}

extern "C-unwind" fn set_own_num_threads(_gtid: *mut i32, _btid: *mut i32) {
    // Inside a region: the thread gets a state of its own, and its team the
    // per-thread array that holds it.
    omp_set_num_threads(2);
}

/// The per-thread arrays a team made are not freed at the kernel's end (a
/// call there costs every kernel registers) but given back to the device
/// heap's list (`deferred_free`), and freed by the next heap allocation, of
/// any later kernel.
#[test]
fn per_thread_arrays_are_freed_by_the_next_allocation() {
    let env = spmd();
    let kernel = |teams: u32, region: bool, allocate: bool| {
        sim::launch(teams, 64, || unsafe {
            __kmpc_target_init(env.get(), no_launch_env());
            if region {
                let f = set_own_num_threads as *mut c_void;
                __kmpc_parallel_60(std::ptr::null(), 0, 1, -1, -1, f, std::ptr::null_mut(), std::ptr::null_mut(), 0, 0);
            }
            if allocate && arch::thread_id_in_block() == 0 {
                arch::free(omprt_device_rtl::memory::heap_alloc(64, omprt_device_rtl::memory::heap::exhausted::TASK).cast());
            }
            __kmpc_target_deinit();
        })
    };
    assert_eq!(omprt_device_rtl::memory::deferred_free::blocks_waiting(), 0);
    kernel(1, true, false);
    assert_eq!(omprt_device_rtl::memory::deferred_free::blocks_waiting(), 1, "the team's thread-state array");
    kernel(2, false, false);
    assert_eq!(omprt_device_rtl::memory::deferred_free::blocks_waiting(), 1, "kept by kernels that allocate nothing");
    kernel(1, true, false);
    assert_eq!(omprt_device_rtl::memory::deferred_free::blocks_waiting(), 1, "the old array freed, the new one given back");
    kernel(1, false, true);
    assert_eq!(omprt_device_rtl::memory::deferred_free::blocks_waiting(), 0, "freed by an allocation of any kind");
    // Teams that end while others allocate: every array is freed once (the
    // host allocator aborts on a double free), some maybe by a later kernel.
    kernel(8, true, false);
    assert!((1..=8).contains(&omprt_device_rtl::memory::deferred_free::blocks_waiting()));
    // The heap is only exhausted with the list freed: then the trap names it.
    sim::fail_mallocs(1);
    let message = trap_message(|| kernel(1, false, true));
    assert!(message.contains("device heap exhausted"), "{message}");
    assert_eq!(omprt_device_rtl::memory::deferred_free::blocks_waiting(), 0);
}

extern "C-unwind" fn ordered_dynamic_loop(_gtid: *mut i32, _btid: *mut i32) {
    // An `ordered` dispatched loop: each thread keeps a record of it in the
    // team's per-thread array of loop records.
    __kmpc_dispatch_init_4(std::ptr::null(), 0, 67, 0, 9, 1, 1);
    let (mut last, mut lb, mut ub, mut st) = (0, 0, 0, 0);
    while unsafe { __kmpc_dispatch_next_4(std::ptr::null(), 0, &mut last, &mut lb, &mut ub, &mut st) } != 0 {
        __kmpc_ordered(std::ptr::null(), 0);
        __kmpc_end_ordered(std::ptr::null(), 0);
        __kmpc_dispatch_fini_4(std::ptr::null(), 0);
    }
    __kmpc_dispatch_deinit(std::ptr::null(), 0);
}

extern "C-unwind" fn makes_no_array(_gtid: *mut i32, _btid: *mut i32) {
    assert_eq!(omp_get_level(), 1);
}

/// The device flag that lets LLVM drop the kernel-end release (and its
/// barrier) from programs that can make no per-thread array: kernels that
/// make none leave it unset, the first array sets it (a thread state, an
/// ordered loop's records). Each device on a thread of its own, as each
/// test thread simulates one.
#[test]
fn the_first_per_thread_array_sets_the_devices_flag() {
    type Region = extern "C-unwind" fn(*mut i32, *mut i32);
    let flag_after = |regions: &'static [Region]| {
        std::thread::spawn(move || {
            let env = spmd();
            regions
                .iter()
                .map(|&region| {
                    sim::launch(2, 64, || unsafe {
                        __kmpc_target_init(env.get(), no_launch_env());
                        __kmpc_parallel_60(std::ptr::null(), 0, 1, -1, -1, region as *mut c_void, std::ptr::null_mut(), std::ptr::null_mut(), 0, 0);
                        __kmpc_target_deinit();
                    });
                    omprt_device_rtl::execution::state::device_made_per_thread_arrays()
                })
                .collect::<Vec<_>>()
        })
        .join()
        .unwrap()
    };
    assert_eq!(flag_after(&[makes_no_array, makes_no_array]), [false, false]);
    assert_eq!(flag_after(&[makes_no_array, set_own_num_threads, makes_no_array]), [false, true, true], "a thread state");
    assert_eq!(flag_after(&[ordered_dynamic_loop]), [true], "an ordered loop's records");
}

/// What every thread of a full team must see inside an SPMD region.
fn assert_in_full_region(n: i32) {
    assert_eq!((omp_get_level(), omp_get_active_level(), omp_in_parallel(), omp_get_num_threads()), (1, 1, 1, n));
}

/// What every thread must see in an SPMD kernel's team code, between regions.
fn assert_between_regions() {
    assert_eq!((omp_get_level(), omp_get_active_level(), omp_in_parallel(), omp_get_num_threads(), omp_get_thread_num()), (0, 0, 0, 1, 0));
}

/// The region of [`back_to_back_spmd_regions_show_each_thread_its_level`];
/// its argument, the round, picks the slow thread.
extern "C-unwind" fn slow_thread_reads_its_region(_g: *mut i32, _b: *mut i32, round: *mut c_void) {
    let n = omp_get_num_threads();
    if omp_get_thread_num() == (round as usize * 7 % n as usize) as i32 {
        // Read after the others have left for the region's end barrier.
        std::thread::sleep(std::time::Duration::from_millis(2));
    }
    assert_in_full_region(n);
}

/// Back-to-back SPMD regions with a slow thread on either side of each: the
/// slow thread still sees the region inside it, after the others are done,
/// and level 0 before it, while the others wait to enter. Every thread
/// clears the region's fields itself after the end barrier, in both copies
/// of the runtime. Run in both copies, whose regions start
/// differently: in the compile-time copy inlined into clang's call every
/// thread sets the fields itself after the entry's barrier, elsewhere thread
/// 0 does and a second barrier publishes it. Cleared before the end
/// barrier, or set without the entry's first barrier, the fields show the
/// slow thread the wrong level.
#[test]
fn back_to_back_spmd_regions_show_each_thread_its_level() {
    let env = spmd();
    for (lto_member, inlined) in [(false, false), (false, true), (true, false)] {
        sim::serve_out_of_line_callers(lto_member);
        sim::inline_into_clangs_calls(inlined);
        sim::launch(2, 64, || unsafe {
            __kmpc_target_init(env.get(), no_launch_env());
            let tid = arch::thread_id_in_block() as usize;
            for round in 0..6usize {
                if tid == round * 13 % 64 {
                    std::thread::sleep(std::time::Duration::from_millis(2));
                }
                assert_between_regions();
                let mut args = [std::ptr::without_provenance_mut::<c_void>(round)];
                __kmpc_parallel_60(std::ptr::null(), 0, 1, -1, -1, slow_thread_reads_its_region as *mut c_void, std::ptr::null_mut(), args.as_mut_ptr(), 1, 0);
                assert_between_regions();
            }
            __kmpc_target_deinit();
        });
    }
    sim::serve_out_of_line_callers(false);
    sim::inline_into_clangs_calls(false);
}

/// nteams-var and teams-thread-limit-var are the device's, one copy for
/// every kernel: unset, they read as the launch's grid; set from a target
/// region (a value below 1 ignored, a thread limit capped at a block's
/// 1024), every later query of every kernel on the device reads the value.
#[test]
fn the_teams_icvs_are_the_devices() {
    let env = Shared(kernel_env(ExecMode::SPMD, 64));
    let query = || (omp_get_max_teams(), omp_get_teams_thread_limit());
    sim::launch(3, 64, || unsafe {
        __kmpc_target_init(env.get(), no_launch_env());
        assert_eq!(query(), (3, 64), "unset: the launch's grid");
        __kmpc_target_deinit();
    });
    sim::launch(3, 64, || unsafe {
        __kmpc_target_init(env.get(), no_launch_env());
        if omp_get_team_num() == 1 && arch::thread_id_in_block() == 0 {
            omp_set_num_teams(0);
            omp_set_num_teams(-3);
            omp_set_teams_thread_limit(-4);
            assert_eq!(query(), (3, 64), "a value below 1 is ignored");
            omp_set_num_teams(17);
            omp_set_teams_thread_limit(5000);
            assert_eq!(query(), (17, 1024), "the thread limit is capped at a block's");
            omp_set_teams_thread_limit(40);
        }
        __kmpc_target_deinit();
    });
    sim::launch(2, 32, || unsafe {
        __kmpc_target_init(env.get(), no_launch_env());
        assert_eq!(query(), (17, 40), "a later kernel on the device reads what the last one set");
        __kmpc_target_deinit();
    });
}

/// A trap says where: the kernel's source location from clang's `ident_t`
/// (what `-g` or `-gline-tables-only` fills in), the team and the thread.
/// The runtime runs as inlined into clang's kernels, where the kernel's
/// `ident_t` is a constant; out of line the report says the location is
/// unknown there.
#[test]
fn a_trap_names_the_kernels_source_line_team_and_thread() {
    let unknown_out_of_line = trap_message(|| {
        let env = Shared(kernel_env(ExecMode::SPMD, 32));
        sim::launch(1, 32, || unsafe {
            __kmpc_target_init(env.get(), no_launch_env());
            if arch::thread_id_in_block() == 3 {
                sim::fail_mallocs(1);
                let _ = omprt_device_rtl::memory::heap_alloc(64, omprt_device_rtl::memory::heap::exhausted::ALLOC_SHARED);
            }
            __kmpc_target_deinit();
        })
    });
    assert!(unknown_out_of_line.ends_with("(source location unknown: clang passes it with -O1 or more and -gline-tables-only, team 0, thread 3)"), "{unknown_out_of_line}");
    sim::inline_into_clangs_calls(true);
    let ident = Shared(omprt_abi::Ident { reserved_1: 0, flags: 2, reserved_2: 0, reserved_3: 0, psource: c";prog.c;main;42;3;;".as_ptr().cast() });
    let mut env = kernel_env(ExecMode::SPMD, 32);
    env.ident = ident.get();
    let env = Shared(env);
    let message = trap_message(|| {
        sim::launch(2, 32, || unsafe {
            __kmpc_target_init(env.get(), no_launch_env());
            if arch::block_id() == 1 && arch::thread_id_in_block() == 5 {
                sim::fail_mallocs(1);
                let _ = omprt_device_rtl::memory::heap_alloc(64, omprt_device_rtl::memory::heap::exhausted::ALLOC_SHARED);
            }
            __kmpc_target_deinit();
        })
    });
    assert_eq!(
        message,
        "omprt: device heap exhausted in __kmpc_alloc_shared; raise LIBOMPTARGET_HEAP_SIZE (prog.c:42:3, team 1, thread 5)"
    );
    sim::inline_into_clangs_calls(false);
}
