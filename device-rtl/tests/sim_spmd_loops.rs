//! `target teams distribute parallel for` run the way clang 22 lowers it, on
//! simulated grids: target_init → distribute_static_init → parallel_60 →
//! for_static_init → deinit, through the exported C entry points. Every
//! iteration must run exactly once and `last` must be set on exactly one
//! thread of the grid, for many grids, trip counts, chunks, bounds and
//! induction-variable types.

mod common;

use common::*;
use omprt_abi::ExecMode;
use omprt_device_rtl::arch::sim;
use omprt_device_rtl::exports::{kernel::*, parallel::*, workshare::*};
use std::ffi::c_void;
use std::sync::atomic::{AtomicU32, Ordering};

/// One induction-variable type and its entry points.
trait Iv: Copy + Send + Sync + Into<i128> + TryFrom<i128> + 'static {
    type S: Copy + Send + Sync + Into<i128> + TryFrom<i128>;
    unsafe fn dist_init(sched: i32, last: &mut i32, lb: &mut Self, ub: &mut Self, st: &mut Self::S, chunk: Self::S);
    unsafe fn for_init(sched: i32, last: &mut i32, lb: &mut Self, ub: &mut Self, st: &mut Self::S, chunk: Self::S);
    fn from(v: i128) -> Self {
        Self::try_from(v).ok().expect("value in range")
    }
    fn s(v: i128) -> Self::S {
        Self::S::try_from(v).ok().expect("stride in range")
    }
}

macro_rules! iv {
    ($t:ty, $s:ty, $dist:ident, $for:ident) => {
        impl Iv for $t {
            type S = $s;
            unsafe fn dist_init(sched: i32, last: &mut i32, lb: &mut $t, ub: &mut $t, st: &mut $s, chunk: $s) {
                unsafe { $dist(std::ptr::null(), 0, sched, last, lb, ub, st, 1, chunk) }
            }
            unsafe fn for_init(sched: i32, last: &mut i32, lb: &mut $t, ub: &mut $t, st: &mut $s, chunk: $s) {
                unsafe { $for(std::ptr::null(), 0, sched, last, lb, ub, st, 1, chunk) }
            }
        }
    };
}
iv!(i32, i32, __kmpc_distribute_static_init_4, __kmpc_for_static_init_4);
iv!(u32, i32, __kmpc_distribute_static_init_4u, __kmpc_for_static_init_4u);
iv!(i64, i64, __kmpc_distribute_static_init_8, __kmpc_for_static_init_8);
iv!(u64, i64, __kmpc_distribute_static_init_8u, __kmpc_for_static_init_8u);

struct Case {
    teams: u32,
    threads: u32,
    /// The normalised loop `[lb, ub]` (inclusive).
    lb: i128,
    ub: i128,
    dist_sched: i32,
    dist_chunk: i128,
    for_sched: i32,
    for_chunk: i128,
}

/// What the inner outlined region receives: the team's chunk and the tallies.
struct Region<'a, T: Iv> {
    lb: T,
    ub: T,
    case: &'a Case,
    team_last: bool,
    hits: &'a [AtomicU32],
    lasts: &'a AtomicU32,
}

/// clang's outlined `parallel for` body.
extern "C-unwind" fn outlined<T: Iv>(_gtid: *mut i32, _btid: *mut i32, region: *mut c_void) {
    let r = unsafe { &*(region as *const Region<T>) };
    let (mut lb, mut ub, mut st, mut last) = (r.lb, r.ub, T::s(1), 0);
    unsafe { T::for_init(r.case.for_sched, &mut last, &mut lb, &mut ub, &mut st, T::s(r.case.for_chunk)) };
    let region_ub: i128 = r.ub.into();
    let (mut l, mut u, st): (i128, i128, i128) = (lb.into(), ub.into(), st.into());
    while l <= region_ub {
        for i in l..=u.min(region_ub) {
            r.hits[(i - r.case.lb) as usize].fetch_add(1, Ordering::Relaxed);
        }
        l += st;
        u += st;
    }
    if last != 0 && r.team_last {
        r.lasts.fetch_add(1, Ordering::Relaxed);
    }
}

fn run<T: Iv>(case: &Case) {
    let trip = (case.ub - case.lb + 1) as usize;
    let hits: Vec<AtomicU32> = (0..trip).map(|_| AtomicU32::new(0)).collect();
    let lasts = AtomicU32::new(0);
    let env = Shared(kernel_env(ExecMode::SPMD, case.threads as i32));
    sim::launch(case.teams, case.threads, || unsafe {
        assert_eq!(__kmpc_target_init(env.get(), no_launch_env()), -1);
        let (mut lb, mut ub, mut st, mut last) = (T::from(case.lb), T::from(case.ub), T::s(1), 0);
        T::dist_init(case.dist_sched, &mut last, &mut lb, &mut ub, &mut st, T::s(case.dist_chunk));
        let (mut l, mut u, st): (i128, i128, i128) = (lb.into(), ub.into(), st.into());
        // The distribute loop; every thread of the team runs it (SPMD).
        while l <= case.ub {
            let chunk_ub = u.min(case.ub);
            let region = Region::<T> {
                lb: T::from(l),
                ub: T::from(chunk_ub),
                case,
                team_last: last != 0 && chunk_ub == case.ub,
                hits: &hits,
                lasts: &lasts,
            };
            let mut args = [&region as *const Region<T> as *mut c_void];
            __kmpc_parallel_60(std::ptr::null(), 0, 1, -1, -1, outlined::<T> as *mut c_void, std::ptr::null_mut(), args.as_mut_ptr(), 1, 0);
            l += st;
            u += st;
        }
        __kmpc_target_deinit();
    });
    for (i, h) in hits.iter().enumerate() {
        let h = h.load(Ordering::Relaxed);
        assert_eq!(h, 1, "iteration {} ran {h} times ({} teams x {} threads)", case.lb + i as i128, case.teams, case.threads);
    }
    assert_eq!(lasts.load(Ordering::Relaxed), 1, "last-iteration flag count");
}

const GRIDS: [(u32, u32); 6] = [(1, 1), (1, 33), (2, 64), (3, 45), (4, 100), (5, 7)];
const TRIPS: [i128; 7] = [1, 2, 31, 97, 128, 257, 1000];

fn sweep<T: Iv>(min: i128, max: i128) {
    let mut n = 0;
    for (g, &(teams, threads)) in GRIDS.iter().enumerate() {
        for (k, &trip) in TRIPS.iter().enumerate() {
            // Alternate lower bounds: 0, negative (signed types), near the top.
            let lb = match (g + k) % 3 {
                0 => 0,
                1 => (min + 5).max(-1000),
                _ => max - 1 - trip,
            }
            .max(min);
            let ub = lb + trip - 1;
            // clang's defaults: dist chunk = threads, inner static chunk 1; plus
            // unchunked and odd chunk sizes on both levels.
            let variants = [(91, threads as i128, 33, 1), (92, 1, 34, 1), (91, 7, 33, 3), (92, 1, 33, trip + 5), (91, 1, 34, 1)];
            for &(ds, dc, fs, fc) in &variants {
                run::<T>(&Case { teams, threads, lb, ub, dist_sched: ds, dist_chunk: dc, for_sched: fs, for_chunk: fc });
                n += 1;
            }
        }
    }
    assert_eq!(n, GRIDS.len() * TRIPS.len() * 5);
}

#[test]
fn combined_construct_i32() {
    sweep::<i32>(i32::MIN as i128, i32::MAX as i128);
}

#[test]
fn combined_construct_u32() {
    sweep::<u32>(0, u32::MAX as i128);
}

#[test]
fn combined_construct_i64() {
    sweep::<i64>(i64::MIN as i128, i64::MAX as i128);
}

#[test]
fn combined_construct_u64_near_overflow() {
    sweep::<u64>(0, u64::MAX as i128);
}

/// A user loop with a negative stride, normalised the way clang does:
/// `for (i = 1000; i > -7; i -= 3)` becomes iv in `[0, trip)`, i = 1000 - 3*iv.
#[test]
fn negative_stride_loop_is_covered_after_normalisation() {
    let (start, end, step) = (1000i128, -7i128, 3i128);
    let trip = (start - end + step - 1) / step;
    run::<i32>(&Case { teams: 3, threads: 40, lb: 0, ub: trip - 1, dist_sched: 91, dist_chunk: 40, for_sched: 33, for_chunk: 1 });
    let covered: Vec<i128> = (0..trip).map(|iv| start - step * iv).collect();
    assert_eq!(covered.first(), Some(&1000));
    assert!(covered.iter().all(|&i| i > end) && covered.last().unwrap() - step <= end);
}
