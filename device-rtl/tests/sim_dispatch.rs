//! Dispatched loops (`__kmpc_dispatch_*`) the way clang 22 lowers
//! `schedule(dynamic|guided|auto|runtime)` and `ordered` loops: init, a
//! `while (next(...))` loop over the returned chunks, `fini` after each
//! iteration of an ordered loop, then `deinit`. Every iteration must run
//! exactly once, `last` must be reported by exactly one thread, and ordered
//! regions must run in iteration order. Also the other loop entry points
//! clang and the OpenMPIRBuilder emit: dist_for/team static init, the
//! distribute-dispatch init and the callback loops.

mod common;

use common::*;
use omprt_abi::ExecMode;
use omprt_device_rtl::arch::sim;
use omprt_device_rtl::exports::{api::*, kernel::*, parallel::*, sync::*, workshare::*};
use proptest::prelude::*;
use std::ffi::c_void;
use std::sync::Mutex;
use std::sync::atomic::{AtomicU32, Ordering};

const DYNAMIC: i32 = 35;
const GUIDED: i32 = 36;
const RUNTIME: i32 = 37;
const AUTO: i32 = 38;
const STATIC_CHUNK: i32 = 33;
const STATIC: i32 = 34;
const ORDERED_STATIC: i32 = 66;
const ORDERED_DYNAMIC: i32 = 67;
const ORDERED_GUIDED: i32 = 68;
const NONMONOTONIC: i32 = 1 << 30;

/// One induction-variable type and its dispatch entry points.
trait Iv: Copy + Send + Sync + Into<i128> + TryFrom<i128> + 'static {
    type S: Copy + Send + Sync + Into<i128> + TryFrom<i128>;
    fn init(sched: i32, lb: Self, ub: Self, st: Self::S, chunk: Self::S);
    unsafe fn dist_init(sched: i32, last: &mut i32, lb: Self, ub: Self, st: Self::S, chunk: Self::S);
    unsafe fn next(last: &mut i32, lb: &mut Self, ub: &mut Self, st: &mut Self::S) -> i32;
    fn fini();
    fn of(v: i128) -> Self {
        Self::try_from(v).ok().expect("value in range")
    }
    fn s(v: i128) -> Self::S {
        Self::S::try_from(v).ok().expect("stride in range")
    }
}

macro_rules! iv {
    ($t:ty, $s:ty, $init:ident, $dist:ident, $next:ident, $fini:ident) => {
        impl Iv for $t {
            type S = $s;
            fn init(sched: i32, lb: $t, ub: $t, st: $s, chunk: $s) {
                $init(std::ptr::null(), 0, sched, lb, ub, st, chunk)
            }
            unsafe fn dist_init(sched: i32, last: &mut i32, lb: $t, ub: $t, st: $s, chunk: $s) {
                unsafe { $dist(std::ptr::null(), 0, sched, last, lb, ub, st, chunk) }
            }
            unsafe fn next(last: &mut i32, lb: &mut $t, ub: &mut $t, st: &mut $s) -> i32 {
                unsafe { $next(std::ptr::null(), 0, last, lb, ub, st) }
            }
            fn fini() {
                $fini(std::ptr::null(), 0)
            }
        }
    };
}
iv!(i32, i32, __kmpc_dispatch_init_4, __kmpc_dist_dispatch_init_4, __kmpc_dispatch_next_4, __kmpc_dispatch_fini_4);
iv!(u32, i32, __kmpc_dispatch_init_4u, __kmpc_dist_dispatch_init_4u, __kmpc_dispatch_next_4u, __kmpc_dispatch_fini_4u);
iv!(i64, i64, __kmpc_dispatch_init_8, __kmpc_dist_dispatch_init_8, __kmpc_dispatch_next_8, __kmpc_dispatch_fini_8);
iv!(u64, i64, __kmpc_dispatch_init_8u, __kmpc_dist_dispatch_init_8u, __kmpc_dispatch_next_8u, __kmpc_dispatch_fini_8u);

/// A loop `for (i = lb; st > 0 ? i <= ub : i >= ub; i += st)`.
#[derive(Clone, Copy, Debug)]
struct Loop {
    lb: i128,
    ub: i128,
    st: i128,
    sched: i32,
    chunk: i128,
}

impl Loop {
    fn trip(&self) -> usize {
        let span = if self.st > 0 { self.ub - self.lb } else { self.lb - self.ub };
        if span < 0 { 0 } else { (span / self.st.abs() + 1) as usize }
    }
    fn index(&self, i: i128) -> usize {
        ((i - self.lb) / self.st) as usize
    }
    /// The `ordered` schedules: 65 (static, chunked) ..= 70 (auto).
    fn is_ordered(&self) -> bool {
        (65..=70).contains(&self.sched)
    }
}

/// What every thread records: hits per iteration, `last` reports, and the
/// order in which ordered regions ran.
struct Tally {
    hits: Vec<AtomicU32>,
    lasts: AtomicU32,
    order: Mutex<Vec<usize>>,
}

impl Tally {
    fn new(trip: usize) -> Self {
        Tally { hits: (0..trip).map(|_| AtomicU32::new(0)).collect(), lasts: AtomicU32::new(0), order: Mutex::new(Vec::new()) }
    }
    fn check(&self, what: &str, ordered: bool) {
        for (k, h) in self.hits.iter().enumerate() {
            assert_eq!(h.load(Ordering::Relaxed), 1, "{what}: iteration #{k}");
        }
        assert_eq!(self.lasts.load(Ordering::Relaxed), u32::from(!self.hits.is_empty()), "{what}: last flags");
        if ordered {
            let order = self.order.lock().unwrap();
            assert_eq!(*order, (0..self.hits.len()).collect::<Vec<_>>(), "{what}: ordered regions out of order");
        }
    }
}

/// clang's dispatch loop, run by one thread of the team.
fn dispatch_loop<T: Iv>(lp: &Loop, tally: &Tally, ordered: bool) {
    T::init(lp.sched, T::of(lp.lb), T::of(lp.ub), T::s(lp.st), T::s(lp.chunk));
    let (mut last, mut lb, mut ub, mut st) = (0, T::of(lp.lb), T::of(lp.ub), T::s(1));
    while unsafe { T::next(&mut last, &mut lb, &mut ub, &mut st) } != 0 {
        let (l, u): (i128, i128) = (lb.into(), ub.into());
        assert_eq!(st.into(), lp.st, "stride reported by dispatch_next");
        let mut i = l;
        loop {
            let k = lp.index(i);
            tally.hits[k].fetch_add(1, Ordering::Relaxed);
            if ordered {
                // An ordered region only where the loop is `ordered` (clang
                // rejects one elsewhere); `fini` in every loop of the run.
                if lp.is_ordered() {
                    __kmpc_ordered(std::ptr::null(), 0);
                    tally.order.lock().unwrap().push(k);
                    __kmpc_end_ordered(std::ptr::null(), 0);
                }
                T::fini();
            }
            if i == u {
                break;
            }
            i += lp.st;
        }
        if last != 0 {
            tally.lasts.fetch_add(1, Ordering::Relaxed);
        }
    }
    __kmpc_dispatch_deinit(std::ptr::null(), 0);
}

struct Job<'a, T> {
    loops: &'a [(Loop, &'a Tally)],
    ordered: bool,
    _t: std::marker::PhantomData<T>,
}

/// The outlined `parallel` body: the loops one after the other, as with
/// `nowait` (no barrier in between).
extern "C-unwind" fn region<T: Iv>(_g: *mut i32, _b: *mut i32, job: *mut c_void) {
    let job = unsafe { &*(job as *const Job<T>) };
    for (lp, tally) in job.loops {
        dispatch_loop::<T>(lp, tally, job.ordered);
    }
}

extern "C-unwind" fn region_wrapper<T: Iv>(_z: i16, tid: i32) {
    let mut args: *mut *mut c_void = std::ptr::null_mut();
    unsafe { __kmpc_get_shared_variables(&mut args) };
    let (mut g, mut b) = (tid, 0);
    region::<T>(&mut g, &mut b, unsafe { *args });
}

/// Runs the loops in a `target parallel` region of `threads` per team
/// (`num_threads` -1 = all), SPMD or generic.
fn run_parallel<T: Iv>(mode: ExecMode, teams: u32, threads: u32, num_threads: i32, loops: &[(Loop, &Tally)], ordered: bool) {
    run_parallel_nesting::<T>(true, mode, teams, threads, num_threads, loops, ordered)
}

/// `run_parallel` in a kernel whose environment says whether regions may nest.
fn run_parallel_nesting<T: Iv>(nesting: bool, mode: ExecMode, teams: u32, threads: u32, num_threads: i32, loops: &[(Loop, &Tally)], ordered: bool) {
    let mut env = kernel_env(mode, threads as i32);
    env.configuration.may_use_nested_parallelism = u8::from(nesting);
    let env = Shared(env);
    let job = Job::<T> { loops, ordered, _t: std::marker::PhantomData };
    let job = Shared(&job);
    let block = if mode == ExecMode::GENERIC { threads + 32 } else { threads };
    sim::launch(teams, block, || unsafe {
        if __kmpc_target_init(env.get(), no_launch_env()) != -1 {
            return;
        }
        let mut args = [*job.get() as *const Job<T> as *mut c_void];
        __kmpc_parallel_60(std::ptr::null(), 0, 1, num_threads, -1, region::<T> as *mut c_void, region_wrapper::<T> as *mut c_void, args.as_mut_ptr(), 1, 0);
        __kmpc_target_deinit();
    });
}

fn check_one<T: Iv>(mode: ExecMode, teams: u32, threads: u32, lp: Loop, ordered: bool) {
    // Each team runs the whole loop (as in `target parallel for`).
    let tallies: Vec<Tally> = (0..teams).map(|_| Tally::new(lp.trip())).collect();
    for (team, tally) in tallies.iter().enumerate() {
        let one = [(lp, tally)];
        run_parallel::<T>(mode, 1, threads, -1, &one, ordered);
        tally.check(&format!("{lp:?} in team {team} of {threads} threads ({mode:?})"), ordered);
    }
}

const SCHEDULES: [i32; 7] = [DYNAMIC, DYNAMIC | NONMONOTONIC, GUIDED, AUTO, RUNTIME, STATIC_CHUNK, STATIC];

proptest! {
    #![proptest_config(ProptestConfig { cases: 160, ..ProptestConfig::default() })]

    /// Every schedule × chunk × trip × team size × width × bounds near the
    /// type limits × stride sign.
    #[test]
    fn every_iteration_runs_once(
        sched in proptest::sample::select(SCHEDULES.to_vec()),
        // -1: a quarter of the width's range, so that grabs past the end
        // would wrap a counter that is not guarded.
        chunk in prop_oneof![Just(0i128), Just(1), 2i128..9, Just(1000), Just(-1)],
        trip in prop_oneof![Just(0i128), Just(1), Just(2), Just(31), Just(97), 3i128..300],
        threads in prop_oneof![Just(1u32), Just(32), Just(33), Just(45), Just(64), 2u32..100],
        width in 0usize..4,
        near_top in any::<bool>(),
        negative in any::<bool>(),
        st_abs in prop_oneof![Just(1i128), 2i128..5],
    ) {
        let st = if negative { -st_abs } else { st_abs };
        let span = (trip - 1).max(0) * st_abs;
        let (min, max): (i128, i128) = match width {
            0 => (i32::MIN.into(), i32::MAX.into()),
            1 => (0, u32::MAX.into()),
            2 => (i64::MIN.into(), i64::MAX.into()),
            _ => (0, u64::MAX.into()),
        };
        // Start near a type limit or near zero; an empty loop runs backwards.
        let (lb, ub) = match (negative, near_top) {
            (false, true) => (max - span - 1, max - 1),
            (false, false) => (if min == 0 { 10 } else { -7 }, if min == 0 { 10 } else { -7 } + span),
            (true, true) => (max - 1, max - 1 - span),
            (true, false) => (min + span + 1, min + 1),
        };
        let (lb, ub) = if trip == 0 { (ub, lb + if st > 0 { -1 } else { 1 }) } else { (lb, ub) };
        let chunk = if chunk == -1 { 1i128 << if width < 2 { 30 } else { 62 } } else { chunk };
        let lp = Loop { lb, ub, st, sched, chunk };
        if trip == 0 {
            prop_assert_eq!(lp.trip(), 0);
        }
        match width {
            0 => check_one::<i32>(ExecMode::SPMD, 1, threads, lp, false),
            1 => check_one::<u32>(ExecMode::SPMD, 1, threads, lp, false),
            2 => check_one::<i64>(ExecMode::SPMD, 1, threads, lp, false),
            _ => check_one::<u64>(ExecMode::SPMD, 1, threads, lp, false),
        }
    }
}

#[test]
fn generic_mode_workers_share_the_loop() {
    for sched in [DYNAMIC, GUIDED, STATIC_CHUNK] {
        check_one::<i32>(ExecMode::GENERIC, 1, 64, Loop { lb: 0, ub: 999, st: 1, sched, chunk: 3 }, false);
    }
}

/// The chunks of a guided loop, as offsets from its lower bound.
static GUIDED_CHUNKS: Mutex<Vec<(i128, i128)>> = Mutex::new(Vec::new());

/// Where [`record_guided_chunks`] starts its loop: -5000 for signed types,
/// so that a lower bound's sign bits are part of what the team shares.
fn guided_lb<T: Iv>() -> i128 {
    if T::try_from(-1).is_ok() { -5000 } else { 7 }
}

extern "C-unwind" fn record_guided_chunks<T: Iv>(_g: *mut i32, _b: *mut i32, _job: *mut c_void) {
    let lb = guided_lb::<T>();
    T::init(GUIDED, T::of(lb), T::of(lb + 9999), T::s(1), T::s(3));
    let (mut last, mut first, mut end, mut st) = (0, T::of(lb), T::of(lb), T::s(1));
    while unsafe { T::next(&mut last, &mut first, &mut end, &mut st) } != 0 {
        GUIDED_CHUNKS.lock().unwrap().push((first.into() - lb, end.into() - lb));
    }
    __kmpc_dispatch_deinit(std::ptr::null(), 0);
}

/// `schedule(guided, 3)` over 10000 iterations and 16 threads: each chunk is
/// what is left after its start, shifted right by log2(2 x 16) = 5, but at
/// least 3 (and at most what is left). Once that is the minimum, the team
/// takes chunks the way a dynamic loop does; their sizes must not change.
/// In every width: a 32-bit loop keeps its guided shift in the team's
/// counter, and a loop that lost it would run as a dynamic one.
#[test]
fn guided_chunks_shrink_to_the_minimum_and_stay_there() {
    guided_chunks_of::<i32>();
    guided_chunks_of::<u32>();
    guided_chunks_of::<i64>();
    guided_chunks_of::<u64>();
}

fn guided_chunks_of<T: Iv>() {
    let env = Shared(kernel_env(ExecMode::SPMD, 16));
    sim::launch(1, 16, || unsafe {
        if __kmpc_target_init(env.get(), no_launch_env()) != -1 {
            return;
        }
        let mut args = [std::ptr::null_mut::<c_void>()];
        let region = record_guided_chunks::<T> as *mut c_void;
        __kmpc_parallel_60(std::ptr::null(), 0, 1, -1, -1, region, std::ptr::null_mut(), args.as_mut_ptr(), 1, 0);
        __kmpc_target_deinit();
    });
    let mut chunks = std::mem::take(&mut *GUIDED_CHUNKS.lock().unwrap());
    chunks.sort();
    let mut next = 0;
    for &(lb, ub) in &chunks {
        assert_eq!(lb, next, "chunks {chunks:?}");
        let left_minus_one = 9999 - lb;
        assert_eq!(ub - lb + 1, ((left_minus_one >> 5).max(3)).min(left_minus_one + 1), "chunk [{lb}, {ub}]");
        next = ub + 1;
    }
    assert_eq!(next, 10000, "chunks {chunks:?}");
    let at_minimum = chunks.iter().filter(|(lb, ub)| ub - lb + 1 == 3).count();
    assert!(at_minimum > 16 && at_minimum < chunks.len() - 16, "both kinds of chunk: {chunks:?}");
}

#[test]
fn consecutive_nowait_loops_reuse_the_team_record() {
    let loops: Vec<Loop> = (0..6)
        .map(|k| Loop { lb: k * 10, ub: k * 10 + 200 + k * 37, st: 1, sched: [DYNAMIC, GUIDED, STATIC][k as usize % 3], chunk: k % 4 })
        .collect();
    let tallies: Vec<Tally> = loops.iter().map(|lp| Tally::new(lp.trip())).collect();
    let pairs: Vec<(Loop, &Tally)> = loops.iter().copied().zip(tallies.iter()).collect();
    run_parallel::<i64>(ExecMode::SPMD, 1, 96, -1, &pairs, false);
    for (lp, t) in loops.iter().zip(&tallies) {
        t.check(&format!("{lp:?}"), false);
    }
}

#[test]
fn ordered_regions_run_in_iteration_order() {
    for (sched, chunk, threads) in [
        (ORDERED_DYNAMIC, 1, 64),
        (ORDERED_DYNAMIC, 3, 45),
        (ORDERED_GUIDED, 1, 64),
        (ORDERED_GUIDED, 4, 33),
        (ORDERED_STATIC, 0, 33),
        (ORDERED_STATIC, 0, 1),
    ] {
        check_one::<i32>(ExecMode::SPMD, 1, threads, Loop { lb: 0, ub: 150, st: 1, sched, chunk }, true);
    }
    check_one::<u64>(ExecMode::GENERIC, 1, 64, Loop { lb: 5, ub: 400, st: 3, sched: ORDERED_DYNAMIC, chunk: 2 }, true);
    check_one::<i64>(ExecMode::GENERIC, 1, 64, Loop { lb: 400, ub: -20, st: -3, sched: ORDERED_GUIDED, chunk: 1 }, true);
}

/// An `ordered` dynamic or guided loop hands its first chunk to the thread
/// that asks first, where a static schedule gives it to thread 0: here thread
/// 1 asks while thread 0 waits for it. (A dynamic record taken for a static
/// one still runs every iteration once and in order, so only this tells.)
#[test]
fn ordered_dynamic_loops_give_the_first_chunk_to_the_first_to_ask() {
    struct Job {
        lp: Loop,
        tally: Tally,
        thread1_first: std::sync::atomic::AtomicI64,
        thread1_asked: std::sync::atomic::AtomicBool,
    }
    fn body<T: Iv>(job: &Job) {
        let lp = job.lp;
        T::init(lp.sched, T::of(lp.lb), T::of(lp.ub), T::s(lp.st), T::s(lp.chunk));
        let me = omp_get_thread_num();
        while me == 0 && !job.thread1_asked.load(Ordering::SeqCst) {
            std::thread::yield_now();
        }
        let (mut last, mut lb, mut ub, mut st) = (0, T::of(lp.lb), T::of(lp.ub), T::s(1));
        while unsafe { T::next(&mut last, &mut lb, &mut ub, &mut st) } != 0 {
            let (l, u): (i128, i128) = (lb.into(), ub.into());
            if me == 1 && !job.thread1_asked.load(Ordering::SeqCst) {
                job.thread1_first.store(l as i64, Ordering::SeqCst);
                job.thread1_asked.store(true, Ordering::SeqCst);
            }
            for i in (l..=u).step_by(lp.st as usize) {
                job.tally.hits[lp.index(i)].fetch_add(1, Ordering::Relaxed);
                __kmpc_ordered(std::ptr::null(), 0);
                job.tally.order.lock().unwrap().push(lp.index(i));
                __kmpc_end_ordered(std::ptr::null(), 0);
                T::fini();
            }
            job.tally.lasts.fetch_add(u32::from(last != 0), Ordering::Relaxed);
        }
        job.thread1_asked.store(true, Ordering::SeqCst);
        __kmpc_dispatch_deinit(std::ptr::null(), 0);
    }
    extern "C-unwind" fn region<T: Iv>(_g: *mut i32, _b: *mut i32, arg: *mut c_void) {
        body::<T>(unsafe { &*(arg as *const Job) });
    }
    fn run<T: Iv>(sched: i32, chunk: i128) {
        let lp = Loop { lb: 10, ub: 40, st: 3, sched, chunk };
        let job = Job {
            lp,
            tally: Tally::new(lp.trip()),
            thread1_first: std::sync::atomic::AtomicI64::new(-1),
            thread1_asked: std::sync::atomic::AtomicBool::new(false),
        };
        let env = Shared(kernel_env(ExecMode::SPMD, 2));
        let arg = Shared(&job);
        sim::launch(1, 2, || unsafe {
            __kmpc_target_init(env.get(), no_launch_env());
            let mut args = [*arg.get() as *const Job as *mut c_void];
            __kmpc_parallel_60(std::ptr::null(), 0, 1, -1, -1, region::<T> as *mut c_void, std::ptr::null_mut(), args.as_mut_ptr(), 1, 0);
            __kmpc_target_deinit();
        });
        job.tally.check(&format!("{lp:?}"), true);
        assert_eq!(job.thread1_first.load(Ordering::SeqCst), 10, "{lp:?}: thread 1 asked first but did not get the first chunk");
    }
    for (sched, chunk) in [(ORDERED_DYNAMIC, 1), (ORDERED_DYNAMIC, 2), (ORDERED_GUIDED, 1)] {
        run::<i32>(sched, chunk);
        run::<u64>(sched, chunk);
    }
}

/// An `ordered` dynamic or guided loop cuts its chunks by its threads' own
/// records and leaves the team's loop record alone; the plain loops around
/// it must still find theirs, and it must not read a plain loop's.
#[test]
fn ordered_and_plain_loops_back_to_back_each_use_their_own_bounds() {
    let scheds = [ORDERED_GUIDED, DYNAMIC, ORDERED_DYNAMIC, GUIDED, ORDERED_GUIDED, ORDERED_DYNAMIC, DYNAMIC];
    let loops: Vec<Loop> = (0..scheds.len() as i128)
        .map(|k| Loop { lb: k * 11 - 30, ub: 120 + k * 29, st: 1 + k % 3, sched: scheds[k as usize], chunk: k % 3 })
        .collect();
    run_back_to_back(&loops);
}

/// Ordered loops back to back (no barrier between them): each resets the
/// team's counters at the end of its threads' record push, which must start
/// the ordered turn and the chunk counter afresh for the next loop.
#[test]
fn consecutive_ordered_loops_each_start_their_turn_at_zero() {
    let loops: Vec<Loop> = (0..5)
        .map(|k| Loop { lb: -k * 7, ub: 90 + k * 13, st: 1 + k % 2, sched: [ORDERED_DYNAMIC, ORDERED_STATIC][k as usize % 2], chunk: k % 3 + 1 })
        .collect();
    run_back_to_back(&loops);
}

/// Runs `loops` one after the other in a region of 40 threads, in SPMD and
/// generic mode, and checks each. The bodies of the `ordered` loops call
/// `__kmpc_ordered` and `__kmpc_dispatch_fini`, as clang's do; those of the
/// plain loops call `__kmpc_dispatch_fini`, which does nothing there.
fn run_back_to_back(loops: &[Loop]) {
    for mode in [ExecMode::SPMD, ExecMode::GENERIC] {
        let tallies: Vec<Tally> = loops.iter().map(|lp| Tally::new(lp.trip())).collect();
        let pairs: Vec<(Loop, &Tally)> = loops.iter().copied().zip(tallies.iter()).collect();
        run_parallel::<i32>(mode, 1, 40, -1, &pairs, true);
        for (lp, t) in loops.iter().zip(&tallies) {
            t.check(&format!("{lp:?} ({mode:?})"), lp.is_ordered());
        }
    }
}

#[test]
fn num_threads_one_makes_a_team_of_one() {
    let lp = Loop { lb: 0, ub: 99, st: 1, sched: DYNAMIC, chunk: 1 };
    let tally = Tally::new(lp.trip());
    run_parallel::<i32>(ExecMode::SPMD, 1, 64, 1, &[(lp, &tally)], false);
    tally.check("num_threads(1)", false);
}

/// Without nesting a team of one uses the team's record (the other threads
/// of the block wait outside its region): SPMD `num_threads(1)`, and a
/// generic-mode team too small for a warp, which the main thread runs alone.
#[test]
fn a_team_of_one_without_nesting_uses_the_team_record() {
    for (mode, num_threads) in [(ExecMode::SPMD, 1), (ExecMode::GENERIC, 16)] {
        for (sched, chunk, ordered) in [(DYNAMIC, 1, false), (GUIDED, 0, false), (STATIC_CHUNK, 5, false), (ORDERED_DYNAMIC, 2, true)] {
            let loops: Vec<Loop> = (0..3).map(|k| Loop { lb: k, ub: 120 + 7 * k, st: 1, sched, chunk }).collect();
            let tallies: Vec<Tally> = loops.iter().map(|lp| Tally::new(lp.trip())).collect();
            let pairs: Vec<(Loop, &Tally)> = loops.iter().copied().zip(tallies.iter()).collect();
            run_parallel_nesting::<i32>(false, mode, 1, 64, num_threads, &pairs, ordered);
            for (lp, t) in loops.iter().zip(&tallies) {
                t.check(&format!("{lp:?} in a team of one ({mode:?})"), ordered);
            }
        }
    }
}

/// A dynamic loop inside a serialized nested region: each thread of the
/// outer team runs the whole inner loop by itself.
#[test]
fn nested_serialized_loops_are_private_to_each_thread() {
    const THREADS: usize = 40;
    struct Nested {
        tallies: Vec<Tally>,
    }
    extern "C-unwind" fn inner(_g: *mut i32, _b: *mut i32, arg: *mut c_void) {
        let nested = unsafe { &*(arg as *const Nested) };
        assert_eq!((omp_get_level(), omp_get_num_threads()), (2, 1));
        let lp = Loop { lb: 0, ub: 63, st: 1, sched: DYNAMIC, chunk: 2 };
        dispatch_loop::<i32>(&lp, &nested.tallies[omp_get_ancestor_thread_num(1) as usize], false);
    }
    extern "C-unwind" fn outer(_g: *mut i32, _b: *mut i32, arg: *mut c_void) {
        // A team loop around the nested regions: private records stack.
        let lp = Loop { lb: 0, ub: THREADS as i128 - 1, st: 1, sched: DYNAMIC, chunk: 1 };
        i32::init(lp.sched, 0, lp.ub as i32, 1, 1);
        let (mut last, mut lb, mut ub, mut st) = (0, 0, 0, 0);
        let mut mine = 0;
        while unsafe { i32::next(&mut last, &mut lb, &mut ub, &mut st) } != 0 {
            mine += ub - lb + 1;
        }
        __kmpc_dispatch_deinit(std::ptr::null(), 0);
        let mut args = [arg];
        unsafe {
            __kmpc_parallel_60(std::ptr::null(), 0, 1, -1, -1, inner as *mut c_void, std::ptr::null_mut(), args.as_mut_ptr(), 1, 0)
        };
        let _ = mine;
    }
    let nested = Nested { tallies: (0..THREADS).map(|_| Tally::new(64)).collect() };
    let env = Shared(kernel_env(ExecMode::SPMD, THREADS as i32));
    let arg = Shared(&nested);
    sim::launch(1, THREADS as u32, || unsafe {
        __kmpc_target_init(env.get(), no_launch_env());
        let mut args = [*arg.get() as *const Nested as *mut c_void];
        __kmpc_parallel_60(std::ptr::null(), 0, 1, -1, -1, outer as *mut c_void, std::ptr::null_mut(), args.as_mut_ptr(), 1, 0);
        __kmpc_target_deinit();
    });
    for t in &nested.tallies {
        t.check("nested", false);
    }
}

/// Each thread's record of an `ordered` loop goes back to the heap: `deinit`
/// hands it to the device's list of blocks given back (no `free` call in the
/// kernel), which the next allocation, the next loop's record, empties. So
/// over many loops the team holds at most two loops' records, not one per
/// loop: a thread may give its record back after the others allocated for
/// the next loop, but before the barriers that end that loop's `init`, so
/// the allocations for the loop after it take it.
#[test]
fn private_loop_records_go_back_by_the_next_loop() {
    const THREADS: u32 = 32;
    const LOOPS: usize = 25;
    struct Job {
        tallies: Vec<Tally>,
        live: std::sync::atomic::AtomicI64,
    }
    extern "C-unwind" fn body(_g: *mut i32, _b: *mut i32, arg: *mut c_void) {
        let job = unsafe { &*(arg as *const Job) };
        for (k, tally) in job.tallies.iter().enumerate() {
            let lp = Loop { lb: 0, ub: 40 + k as i128, st: 1, sched: [ORDERED_STATIC, ORDERED_DYNAMIC][k % 2], chunk: 1 };
            dispatch_loop::<i32>(&lp, tally, true);
        }
    }
    let job = Job { tallies: (0..LOOPS).map(|k| Tally::new(41 + k)).collect(), live: Default::default() };
    let env = Shared(kernel_env(ExecMode::SPMD, THREADS as i32));
    let arg = Shared(&job);
    sim::launch(1, THREADS, || unsafe {
        let before = sim::live_heap_blocks();
        __kmpc_target_init(env.get(), no_launch_env());
        let mut args = [*arg.get() as *const Job as *mut c_void];
        __kmpc_parallel_60(std::ptr::null(), 0, 1, -1, -1, body as *mut c_void, std::ptr::null_mut(), args.as_mut_ptr(), 1, 0);
        __kmpc_target_deinit();
        // A block may be freed by another thread than its owner: the team's sum.
        arg.get().live.fetch_add(sim::live_heap_blocks() - before, Ordering::SeqCst);
    });
    for (k, t) in job.tallies.iter().enumerate() {
        t.check(&format!("ordered loop {k}"), true);
    }
    // The last two loops' records, and the team's per-thread arrays.
    let live = job.live.load(Ordering::SeqCst);
    assert!(live <= 2 * i64::from(THREADS) + 4, "{live} heap blocks left after {LOOPS} loops of {THREADS} threads");
}

/// `distribute` + dispatch: each team gets a balanced share of the loop.
#[test]
fn dist_dispatch_splits_the_loop_among_teams() {
    for (teams, threads, trip) in [(3u32, 32u32, 1000i128), (5, 33, 7), (4, 64, 0)] {
        let lp = Loop { lb: -50, ub: -50 + trip - 1, st: 1, sched: DYNAMIC, chunk: 4 };
        let tally = Tally::new(lp.trip());
        let team_lasts = AtomicU32::new(0);
        let env = Shared(kernel_env(ExecMode::SPMD, threads as i32));
        let shared = Shared((&tally, &team_lasts, lp));
        extern "C-unwind" fn body(_g: *mut i32, _b: *mut i32, arg: *mut c_void) {
            let (tally, team_lasts, lp) = unsafe { *(arg as *const (&Tally, &AtomicU32, Loop)) };
            let mut team_last = 0;
            unsafe { i64::dist_init(lp.sched, &mut team_last, lp.lb as i64, lp.ub as i64, 1, lp.chunk as i64) };
            if team_last != 0 && omp_get_thread_num() == 0 {
                team_lasts.fetch_add(1, Ordering::Relaxed);
            }
            let (mut last, mut lb, mut ub, mut st) = (0, 0i64, 0i64, 0i64);
            while unsafe { i64::next(&mut last, &mut lb, &mut ub, &mut st) } != 0 {
                for i in lb..=ub {
                    tally.hits[lp.index(i.into())].fetch_add(1, Ordering::Relaxed);
                }
                if last != 0 && team_last != 0 {
                    tally.lasts.fetch_add(1, Ordering::Relaxed);
                }
            }
            __kmpc_dispatch_deinit(std::ptr::null(), 0);
        }
        sim::launch(teams, threads, || unsafe {
            __kmpc_target_init(env.get(), no_launch_env());
            let mut args = [shared.get() as *const _ as *mut c_void];
            __kmpc_parallel_60(std::ptr::null(), 0, 1, -1, -1, body as *mut c_void, std::ptr::null_mut(), args.as_mut_ptr(), 1, 0);
            __kmpc_target_deinit();
        });
        tally.check(&format!("dist dispatch {teams}x{threads}"), false);
        assert_eq!(team_lasts.load(Ordering::Relaxed), u32::from(trip > 0));
    }
}

/// `distribute parallel for` through `__kmpc_dist_for_static_init_*` (in
/// the parallel region, as clang calls it) and `distribute` through
/// `__kmpc_team_static_init_*` (by each team's initial thread).
#[test]
fn dist_for_and_team_static_init_cover_the_loop() {
    struct Case<'a> {
        trip: i64,
        sched: i32,
        chunk: i64,
        hits: &'a [AtomicU32],
        lasts: &'a AtomicU32,
    }
    extern "C-unwind" fn region(_g: *mut i32, _b: *mut i32, arg: *mut c_void) {
        let c = unsafe { &*(arg as *const Case) };
        let (mut last, mut lb, mut ub, mut ubd, mut st) = (0, 0i64, c.trip - 1, 0i64, 0i64);
        unsafe { __kmpc_dist_for_static_init_8(std::ptr::null(), 0, c.sched, &mut last, &mut lb, &mut ub, &mut ubd, &mut st, 1, c.chunk) };
        while lb <= ubd {
            for i in lb..=ub.min(ubd) {
                c.hits[i as usize].fetch_add(1, Ordering::Relaxed);
            }
            lb += st;
            ub += st;
        }
        c.lasts.fetch_add(last as u32, Ordering::Relaxed);
    }
    for (teams, threads, trip, sched, chunk) in [(3u32, 32u32, 1000i64, 34, 0i64), (4, 45, 97, 33, 3), (2, 7, 1, 33, 1), (5, 32, 3, 34, 0)] {
        let hits: Vec<AtomicU32> = (0..trip).map(|_| AtomicU32::new(0)).collect();
        let team_hits: Vec<AtomicU32> = (0..trip).map(|_| AtomicU32::new(0)).collect();
        let lasts = AtomicU32::new(0);
        let team_lasts = AtomicU32::new(0);
        let env = Shared(kernel_env(ExecMode::SPMD, threads as i32));
        let case = Shared(Case { trip, sched, chunk, hits: &hits, lasts: &lasts });
        sim::launch(teams, threads, || unsafe {
            __kmpc_target_init(env.get(), no_launch_env());
            let mut args = [case.get() as *const Case as *mut c_void];
            __kmpc_parallel_60(std::ptr::null(), 0, 1, -1, -1, region as *mut c_void, std::ptr::null_mut(), args.as_mut_ptr(), 1, 0);
            if __kmpc_get_hardware_thread_id_in_block() == 0 {
                let (mut last, mut lb, mut ub, mut st) = (0, 0i64, trip - 1, 0i64);
                __kmpc_team_static_init_8(std::ptr::null(), 0, &mut last, &mut lb, &mut ub, &mut st, 1, chunk.max(2));
                while lb < trip {
                    for i in lb..=ub.min(trip - 1) {
                        team_hits[i as usize].fetch_add(1, Ordering::Relaxed);
                    }
                    lb += st;
                    ub += st;
                }
                team_lasts.fetch_add(last as u32, Ordering::Relaxed);
            }
            __kmpc_target_deinit();
        });
        for (what, h) in [("dist_for", &hits), ("team", &team_hits)] {
            assert!(h.iter().all(|h| h.load(Ordering::Relaxed) == 1), "{what}: {teams}x{threads} trip {trip}");
        }
        assert_eq!(lasts.load(Ordering::Relaxed), 1, "dist_for last flags");
        assert_eq!(team_lasts.load(Ordering::Relaxed), 1, "team last flags");
    }
}

/// The OpenMPIRBuilder's callback loops call the body once per iteration.
#[test]
fn callback_loops_call_the_body_once_per_iteration() {
    struct Hits(Vec<AtomicU32>);
    extern "C" fn body32(iv: i32, arg: *mut c_void) {
        unsafe { &*(arg as *const Hits) }.0[iv as usize].fetch_add(1, Ordering::Relaxed);
    }
    extern "C" fn body64(iv: u64, arg: *mut c_void) {
        unsafe { &*(arg as *const Hits) }.0[iv as usize].fetch_add(1, Ordering::Relaxed);
    }
    for (teams, threads, n) in [(1u32, 45u32, 1000usize), (3, 32, 77), (4, 64, 256)] {
        let (a, b, c) = (Hits((0..n).map(|_| AtomicU32::new(0)).collect()), Hits((0..n).map(|_| AtomicU32::new(0)).collect()), Hits((0..n).map(|_| AtomicU32::new(0)).collect()));
        let env = Shared(kernel_env(ExecMode::SPMD, threads as i32));
        let all = Shared((&a, &b, &c));
        extern "C-unwind" fn region(_g: *mut i32, _b: *mut i32, arg: *mut c_void) {
            let (a, b, n) = unsafe { *(arg as *const (&Hits, &Hits, usize)) };
            let threads = omp_get_num_threads();
            unsafe {
                // `parallel for` inside team 0 only: every team would run it.
                if omp_get_team_num() == 0 {
                    __kmpc_for_static_loop_4(std::ptr::null(), body32 as *mut c_void, a as *const Hits as *mut c_void, n as i32, threads, 0, 0);
                }
                __kmpc_distribute_for_static_loop_8u(std::ptr::null(), body64 as *mut c_void, b as *const Hits as *mut c_void, n as u64, threads as u64, 0, 0, 0);
            }
        }
        sim::launch(teams, threads, || unsafe {
            __kmpc_target_init(env.get(), no_launch_env());
            let (a, b, c) = *all.get();
            let mut packed = (a, b, n);
            let mut args = [&mut packed as *mut _ as *mut c_void];
            __kmpc_parallel_60(std::ptr::null(), 0, 1, -1, -1, region as *mut c_void, std::ptr::null_mut(), args.as_mut_ptr(), 1, 0);
            if __kmpc_get_hardware_thread_id_in_block() == 0 {
                __kmpc_distribute_static_loop_4(std::ptr::null(), body32 as *mut c_void, c as *const Hits as *mut c_void, n as i32, 0, 0);
            }
            __kmpc_target_deinit();
        });
        for (what, h) in [("for", &a), ("distribute for", &b), ("distribute", &c)] {
            assert!(h.0.iter().all(|h| h.load(Ordering::Relaxed) == 1), "{what}: {teams}x{threads} n={n}");
        }
    }
}

/// flang lowers an `ordered` loop to a static callback loop, which has no
/// ordered schedule: in a team of several threads its ordered regions would
/// run in no order, so `__kmpc_ordered` traps, naming why. A team of one runs
/// them in order anyway.
#[test]
fn ordered_regions_of_a_callback_loop_trap_in_a_team_and_run_alone() {
    static RAN: AtomicU32 = AtomicU32::new(0);
    extern "C-unwind" fn body(_iv: i32, _arg: *mut c_void) {
        __kmpc_ordered(std::ptr::null(), 0);
        RAN.fetch_add(1, Ordering::Relaxed);
        __kmpc_end_ordered(std::ptr::null(), 0);
    }
    extern "C-unwind" fn region(_g: *mut i32, _b: *mut i32) {
        let threads = omp_get_num_threads();
        unsafe { __kmpc_for_static_loop_4(std::ptr::null(), body as *mut c_void, std::ptr::null_mut(), 40, threads, 0, 0) };
    }
    // As flang's calls find the runtime: the archive's LTO member.
    sim::serve_out_of_line_callers(true);
    let run = |num_threads: i32| {
        let env = Shared(kernel_env(ExecMode::SPMD, 32));
        sim::launch(1, 32, || unsafe {
            __kmpc_target_init(env.get(), no_launch_env());
            __kmpc_parallel_60(std::ptr::null(), 0, 1, num_threads, -1, region as *mut c_void, std::ptr::null_mut(), std::ptr::null_mut(), 0, 0);
            __kmpc_target_deinit();
        })
    };
    run(1);
    assert_eq!(RAN.load(Ordering::Relaxed), 40, "a team of one runs every ordered region");
    let msg = trap_message(move || run(-1));
    assert!(msg.starts_with("omprt: __kmpc_ordered outside a loop with an ordered schedule"), "{msg}");
}

/// `ordered(2)` with `depend(sink: i-1, j)`, `depend(sink: i, j-1)` and
/// `depend(source)` over a collapsed 2-D nest dealt out `schedule(static, 1)`:
/// each cell is one more than the larger of its two predecessors, so the
/// result is exact only if every wait saw its post.
#[test]
fn doacross_waits_for_the_posted_iterations() {
    #[repr(C)]
    struct Dim(i64, i64, i64);
    struct Grid {
        n: i64,
        cells: Vec<std::sync::atomic::AtomicI64>,
    }
    extern "C-unwind" fn region(_g: *mut i32, _b: *mut i32, arg: *mut c_void) {
        let g = unsafe { &*(arg as *const Grid) };
        let n = g.n;
        // i from 1 to n (step 1), j from 2n-2 down to 0 (step -2): bounds and
        // strides of both signs.
        let dims = [Dim(1, n, 1), Dim(2 * n - 2, 0, -2)];
        unsafe { __kmpc_doacross_init(std::ptr::null(), 0, 2, dims.as_ptr() as *mut c_void) };
        let (mut last, mut lb, mut ub, mut st) = (0, 0i64, n * n - 1, 0i64);
        unsafe { __kmpc_for_static_init_8(std::ptr::null(), 0, STATIC_CHUNK, &mut last, &mut lb, &mut ub, &mut st, 1, 1) };
        while lb < n * n {
            for k in lb..=ub.min(n * n - 1) {
                let (i, j) = (1 + k / n, 2 * n - 2 - 2 * (k % n));
                let mut up = [i - 1, j];
                let mut left = [i, j + 2];
                unsafe {
                    __kmpc_doacross_wait(std::ptr::null(), 0, up.as_mut_ptr());
                    __kmpc_doacross_wait(std::ptr::null(), 0, left.as_mut_ptr());
                }
                let at = |i: i64, j: i64| (i - 1) * n + (2 * n - 2 - j) / 2;
                let a = if i > 1 { g.cells[at(i - 1, j) as usize].load(Ordering::Relaxed) } else { 0 };
                let b = if j < 2 * n - 2 { g.cells[at(i, j + 2) as usize].load(Ordering::Relaxed) } else { 0 };
                g.cells[at(i, j) as usize].store(a.max(b) + 1, Ordering::Relaxed);
                let mut me = [i, j];
                unsafe { __kmpc_doacross_post(std::ptr::null(), 0, me.as_mut_ptr()) };
            }
            lb += st;
            ub += st;
        }
        __kmpc_doacross_fini(std::ptr::null(), 0);
    }
    for (threads, n) in [(45u32, 12i64), (64, 5), (1, 4)] {
        let grid = Grid { n, cells: (0..n * n).map(|_| std::sync::atomic::AtomicI64::new(-1)).collect() };
        let env = Shared(kernel_env(ExecMode::SPMD, threads as i32));
        let arg = Shared(&grid);
        sim::launch(1, threads, || unsafe {
            __kmpc_target_init(env.get(), no_launch_env());
            let mut args = [*arg.get() as *const Grid as *mut c_void];
            __kmpc_parallel_60(std::ptr::null(), 0, 1, -1, -1, region as *mut c_void, std::ptr::null_mut(), args.as_mut_ptr(), 1, 0);
            __kmpc_target_deinit();
        });
        for r in 0..n {
            for c in 0..n {
                assert_eq!(grid.cells[(r * n + c) as usize].load(Ordering::Relaxed), r + c + 1, "cell ({r}, {c}) with {threads} threads");
            }
        }
    }
}
