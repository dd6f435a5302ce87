//! Property tests of the reductions in the host simulation: for every
//! operator clang emits (`+ * min max & | ^ && ||`) on `int`, `long`, `float`
//! and `double` (bitwise and logical operators on the integers only), the
//! parallel reduction and the teams reduction give the sequential result —
//! exactly for the integers (`+` and `*` wrap, as on the GPU), within the
//! rounding error bound of the sum or product for `float` and `double`
//! (`min`/`max` exactly).
//!
//! All 26 op×type combinations are reduced at once: as clang does for one
//! construct with several reduction variables, the reduce list holds a
//! pointer to each of the 26 private variables, and the callbacks are written
//! the way clang 22 generates them for such a list (docs/abi.md,
//! "Parallel reductions" and "Teams reductions"):
//!
//! * shuffle-and-reduce: each element is shuffled (4-byte elements with
//!   `__kmpc_shuffle_int32`, 8-byte ones with `__kmpc_shuffle_int64`, floats
//!   as their bits) into a remote list, then `reduce_func(local, remote)`
//!   under clang's conditions for algorithms 0, 1 and 2, or the remote value
//!   copied for algorithm 1's upper lanes;
//! * inter-warp copy: each 4-byte piece of each element (an 8-byte element
//!   is two pieces, one after the other) goes through the per-block transfer
//!   storage `__openmp_nvptx_data_transfer_temporary_storage` (32 × i32)
//!   with clang's barrier / warp-master store / barrier / load pattern;
//! * list <-> global buffer: a buffer record holds all 26 variables.
//!
//! The per-iteration values come from proptest; iterations are spread over
//! the threads of the league round-robin (`schedule(static, 1)` over
//! `teams × threads`), so some threads get several and some none (and keep
//! the operator's identity).
//!
//! Per run, the four properties run 40 + 20 + 100 + 12 = 172 cases, each a
//! grid launch checking all 26 op×type combinations: 172 × 26 = 4472
//! op×type×shape checks, or about 6500 counting each team of the parallel
//! properties separately (they check every team's result: about 2.5 teams
//! per case in SPMD, 2 in generic mode). Each case also checks the winner
//! count (and the team size, or the reset launch-environment counters).
//! The file takes 25–35 s in a debug build on 2 CPUs; the properties
//! take turns on the transfer storage, so they do not run in parallel.

mod common;

use common::*;
use omprt_abi::{ExecMode, KernelLaunchEnvironment};
use omprt_device_rtl::arch::sim;
use omprt_device_rtl::exports::{api::*, kernel::*, misc::*, parallel::*, sync::*};
use proptest::prelude::*;
use std::ffi::c_void;
use std::sync::atomic::{AtomicI32, AtomicU32, Ordering};
use std::sync::{Mutex, MutexGuard};

// ---- the reduction variables ----

/// The operators clang emits for `reduction(op: x)`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Op {
    Add,
    Mul,
    Min,
    Max,
    BitAnd,
    BitOr,
    BitXor,
    And,
    Or,
}
use Op::*;

const INT_OPS: [Op; 9] = [Add, Mul, Min, Max, BitAnd, BitOr, BitXor, And, Or];
const FLOAT_OPS: [Op; 4] = [Add, Mul, Min, Max];

/// A C scalar type and clang's combiner and initializer for each operator.
trait Scalar: Copy + PartialEq + std::fmt::Debug {
    fn combine(op: Op, a: Self, b: Self) -> Self;
    fn identity(op: Op) -> Self;
}

macro_rules! int_scalar {
    ($t:ty) => {
        impl Scalar for $t {
            fn combine(op: Op, a: $t, b: $t) -> $t {
                match op {
                    Add => a.wrapping_add(b),
                    Mul => a.wrapping_mul(b),
                    // clang: `a < b ? a : b`, `a > b ? a : b`.
                    Min => if a < b { a } else { b },
                    Max => if a > b { a } else { b },
                    BitAnd => a & b,
                    BitOr => a | b,
                    BitXor => a ^ b,
                    And => <$t>::from(a != 0 && b != 0),
                    Or => <$t>::from(a != 0 || b != 0),
                }
            }
            fn identity(op: Op) -> $t {
                match op {
                    Add | BitOr | BitXor | Or => 0,
                    Mul | And => 1,
                    Min => <$t>::MAX,
                    Max => <$t>::MIN,
                    BitAnd => !0,
                }
            }
        }
    };
}
int_scalar!(i32);
int_scalar!(i64);

macro_rules! float_scalar {
    ($t:ty) => {
        impl Scalar for $t {
            fn combine(op: Op, a: $t, b: $t) -> $t {
                match op {
                    Add => a + b,
                    Mul => a * b,
                    Min => if a < b { a } else { b },
                    Max => if a > b { a } else { b },
                    _ => unreachable!("{op:?} on a floating type"),
                }
            }
            fn identity(op: Op) -> $t {
                match op {
                    Add => 0.0,
                    Mul => 1.0,
                    // Sema's initializers: the largest finite values.
                    Min => <$t>::MAX,
                    Max => <$t>::MIN,
                    _ => unreachable!("{op:?} on a floating type"),
                }
            }
        }
    };
}
float_scalar!(f32);
float_scalar!(f64);

/// The 26 reduction variables of the construct (also one buffer record, and
/// one iteration's inputs): `i[k]` is `reduction(INT_OPS[k]: int)`, etc.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq)]
struct Vars {
    i: [i32; 9],
    l: [i64; 9],
    f: [f32; 4],
    d: [f64; 4],
}

const N: usize = 26;
/// clang's reduce list: one pointer per reduction variable.
type List = [*mut c_void; N];

#[derive(Clone, Copy, PartialEq, Eq)]
enum Ty {
    I32,
    I64,
    F32,
    F64,
}

/// Type and operator of list element `k`.
fn elem(k: usize) -> (Ty, Op) {
    match k {
        0..9 => (Ty::I32, INT_OPS[k]),
        9..18 => (Ty::I64, INT_OPS[k - 9]),
        18..22 => (Ty::F32, FLOAT_OPS[k - 18]),
        _ => (Ty::F64, FLOAT_OPS[k - 22]),
    }
}

fn size_of_elem(k: usize) -> usize {
    match elem(k).0 {
        Ty::I32 | Ty::F32 => 4,
        Ty::I64 | Ty::F64 => 8,
    }
}

impl Vars {
    fn identity() -> Vars {
        Vars {
            i: INT_OPS.map(i32::identity),
            l: INT_OPS.map(i64::identity),
            f: FLOAT_OPS.map(f32::identity),
            d: FLOAT_OPS.map(f64::identity),
        }
    }

    /// A reduce list pointing at these variables.
    fn list(&mut self) -> List {
        let mut list = [std::ptr::null_mut(); N];
        let ptrs = (self.i.iter_mut().map(|v| v as *mut i32 as *mut c_void))
            .chain(self.l.iter_mut().map(|v| v as *mut i64 as *mut c_void))
            .chain(self.f.iter_mut().map(|v| v as *mut f32 as *mut c_void))
            .chain(self.d.iter_mut().map(|v| v as *mut f64 as *mut c_void));
        for (slot, p) in list.iter_mut().zip(ptrs) {
            *slot = p;
        }
        list
    }

    /// `self = self OP other`, element by element (one loop iteration's body
    /// when `other` holds the iteration's inputs).
    fn combine(&mut self, other: &Vars) {
        for (k, &op) in INT_OPS.iter().enumerate() {
            self.i[k] = i32::combine(op, self.i[k], other.i[k]);
            self.l[k] = i64::combine(op, self.l[k], other.l[k]);
        }
        for (k, &op) in FLOAT_OPS.iter().enumerate() {
            self.f[k] = f32::combine(op, self.f[k], other.f[k]);
            self.d[k] = f64::combine(op, self.d[k], other.d[k]);
        }
    }
}

// ---- the callbacks, shaped like clang's for a list of 26 elements ----

/// Element `k` of the reduce list `list`.
unsafe fn at<T>(list: *mut c_void, k: usize) -> *mut T {
    unsafe { *(list as *const *mut T).add(k) }
}

unsafe fn combine_at<T: Scalar>(op: Op, lhs: *mut c_void, rhs: *mut c_void, k: usize) {
    unsafe {
        let l = at::<T>(lhs, k);
        *l = T::combine(op, *l, *at::<T>(rhs, k));
    }
}

/// clang's `reduce_func(lhs_list, rhs_list)`: `lhs = lhs OP rhs` for each element.
unsafe fn reduce_func(lhs: *mut c_void, rhs: *mut c_void) {
    for k in 0..N {
        unsafe {
            match elem(k) {
                (Ty::I32, op) => combine_at::<i32>(op, lhs, rhs, k),
                (Ty::I64, op) => combine_at::<i64>(op, lhs, rhs, k),
                (Ty::F32, op) => combine_at::<f32>(op, lhs, rhs, k),
                (Ty::F64, op) => combine_at::<f64>(op, lhs, rhs, k),
            }
        }
    }
}

/// Copies every element of list `src` to list `dst` (by size, as clang's loads and stores).
unsafe fn copy_list(dst: *mut c_void, src: *mut c_void) {
    for k in 0..N {
        unsafe { std::ptr::copy_nonoverlapping(at::<u8>(src, k), at::<u8>(dst, k), size_of_elem(k)) };
    }
}

/// `_omp_reduction_shuffle_and_reduce_func`.
extern "C" fn shuffle_reduce(data: *mut c_void, lane: i16, offset: i16, algo: i16) {
    let width = __kmpc_get_warp_size() as i16;
    let mut remote = Vars::identity();
    let mut remote_list = remote.list();
    let remote_ptr = remote_list.as_mut_ptr().cast::<c_void>();
    for k in 0..N {
        unsafe {
            if size_of_elem(k) == 4 {
                *at::<i32>(remote_ptr, k) = __kmpc_shuffle_int32(*at::<i32>(data, k), offset, width);
            } else {
                *at::<i64>(remote_ptr, k) = __kmpc_shuffle_int64(*at::<i64>(data, k), offset, width);
            }
        }
    }
    if algo == 0 || (algo == 1 && lane < offset) || (algo == 2 && lane & 1 == 0 && offset > 0) {
        unsafe { reduce_func(data, remote_ptr) };
    }
    if algo == 1 && lane >= offset {
        unsafe { copy_list(data, remote_ptr) };
    }
}

const MAX_BLOCKS: usize = 32;
/// clang's `__openmp_nvptx_data_transfer_temporary_storage` (`[32 x i32]` in
/// shared memory), one per block. A global of the test binary, so the tests
/// of this file take turns: see [`exclusive`].
static TRANSFER: [[AtomicI32; 32]; MAX_BLOCKS] = [const { [const { AtomicI32::new(0) }; 32] }; MAX_BLOCKS];
static TRANSFER_OWNER: Mutex<()> = Mutex::new(());

/// Held by a test for as long as its grids use [`TRANSFER`].
fn exclusive() -> MutexGuard<'static, ()> {
    TRANSFER_OWNER.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// `_omp_reduction_inter_warp_copy_func`: for each 4-byte piece of each
/// element, warp masters publish and threads `tid < warps` collect.
extern "C" fn inter_warp_copy(data: *mut c_void, warps: i32) {
    let tid = __kmpc_get_hardware_thread_id_in_block();
    let warp_size = __kmpc_get_warp_size();
    let slots = &TRANSFER[omp_get_team_num() as usize];
    for k in 0..N {
        let piece = unsafe { at::<i32>(data, k) };
        for half in 0..size_of_elem(k) / 4 {
            __kmpc_barrier(std::ptr::null(), 0);
            if tid % warp_size == 0 {
                slots[(tid / warp_size) as usize].store(unsafe { *piece.add(half) }, Ordering::SeqCst);
            }
            __kmpc_barrier(std::ptr::null(), 0);
            if tid < warps {
                unsafe { *piece.add(half) = slots[tid as usize].load(Ordering::SeqCst) };
            }
        }
    }
}

/// A reduce list over record `i` of the global buffer.
unsafe fn record(buf: *mut c_void, i: i32) -> List {
    unsafe { (*(buf as *mut Vars).add(i as usize)).list() }
}

// `_omp_reduction_{list_to_global,global_to_list}_{copy,reduce}_func`.
extern "C" fn lg_copy(buf: *mut c_void, i: i32, data: *mut c_void) {
    unsafe { copy_list(record(buf, i).as_mut_ptr().cast(), data) };
}
extern "C" fn lg_reduce(buf: *mut c_void, i: i32, data: *mut c_void) {
    unsafe { reduce_func(record(buf, i).as_mut_ptr().cast(), data) };
}
extern "C" fn gl_copy(buf: *mut c_void, i: i32, data: *mut c_void) {
    unsafe { copy_list(data, record(buf, i).as_mut_ptr().cast()) };
}
extern "C" fn gl_reduce(buf: *mut c_void, i: i32, data: *mut c_void) {
    unsafe { reduce_func(data, record(buf, i).as_mut_ptr().cast()) };
}

// ---- the expected values ----

/// Checks `got` against the sequential reduction of `inputs`.
fn check(got: &Vars, inputs: &[&Vars], what: &str) -> Result<(), TestCaseError> {
    let mut exact = Vars::identity();
    for v in inputs {
        exact.combine(v);
    }
    for (k, op) in INT_OPS.iter().enumerate() {
        prop_assert_eq!(got.i[k], exact.i[k], "int {:?} ({})", op, what);
        prop_assert_eq!(got.l[k], exact.l[k], "long {:?} ({})", op, what);
    }
    for (k, &op) in FLOAT_OPS.iter().enumerate() {
        if matches!(op, Min | Max) {
            prop_assert_eq!(got.f[k], exact.f[k], "float {:?} ({})", op, what);
            prop_assert_eq!(got.d[k], exact.d[k], "double {:?} ({})", op, what);
            continue;
        }
        check_float(op, f64::from(got.f[k]), inputs.iter().map(|v| f64::from(v.f[k])), f64::from(f32::EPSILON), "float", what)?;
        check_float(op, got.d[k], inputs.iter().map(|v| v.d[k]), f64::EPSILON, "double", what)?;
    }
    Ok(())
}

/// A sum or product in any order lies within `n·eps` (relative to the sum of
/// magnitudes, or to the product) of the exact value; the reference is
/// computed in double, sequentially. Twice that bound allows for the
/// reference's own rounding.
fn check_float(op: Op, got: f64, inputs: impl Iterator<Item = f64> + Clone, eps: f64, ty: &str, what: &str) -> Result<(), TestCaseError> {
    let n = inputs.clone().count() as f64;
    let (reference, scale) = match op {
        Add => (inputs.clone().sum::<f64>(), inputs.map(f64::abs).sum::<f64>()),
        Mul => {
            let p = inputs.product::<f64>();
            (p, p.abs())
        }
        _ => unreachable!(),
    };
    let bound = 2.0 * (n + 1.0) * eps * scale;
    prop_assert!(
        (got - reference).abs() <= bound,
        "{} {:?} ({}): got {}, sequential {}, bound {}",
        ty,
        op,
        what,
        got,
        reference,
        bound
    );
    Ok(())
}

// ---- the inputs ----

/// One iteration's inputs for the integers. `rare` is about the number of
/// iterations, so the operators whose result a single input decides (`&&`,
/// `||`, `&`, `|`) see those inputs about once per case, not always.
macro_rules! int_inputs {
    ($name:ident, $t:ty, $bits:literal) => {
        fn $name(rare: u32) -> impl Strategy<Value = [$t; 9]> {
            let nonzero = || any::<$t>().prop_map(|v| if v == 0 { 1 } else { v });
            (
                any::<$t>(),
                // Odd factors keep a long wrapping product from collapsing to 0.
                prop_oneof![rare => any::<$t>().prop_map(|v| v | 1), 1 => any::<$t>()],
                any::<$t>(),
                any::<$t>(),
                prop_oneof![rare => Just(-1 as $t), 6 => (0u32..$bits).prop_map(|b: u32| !((1 as $t) << b)), 1 => any::<$t>()],
                prop_oneof![rare => Just(0 as $t), 6 => (0u32..$bits).prop_map(|b: u32| (1 as $t) << b), 1 => any::<$t>()],
                any::<$t>(),
                prop_oneof![rare => nonzero(), 1 => Just(0)],
                prop_oneof![rare => Just(0), 1 => nonzero()],
            )
                .prop_map(|(a, b, c, d, e, f, g, h, i)| [a, b, c, d, e, f, g, h, i])
        }
    };
}
int_inputs!(int_inputs, i32, 32);
int_inputs!(long_inputs, i64, 64);

/// Floating inputs: sums of values of mixed sign, products of factors near
/// ±1 (no overflow or underflow over thousands of them), any min/max.
macro_rules! float_inputs {
    ($name:ident, $t:ty) => {
        fn $name() -> impl Strategy<Value = [$t; 4]> {
            (
                -1000.0 as $t..1000.0,
                prop_oneof![20 => 0.9 as $t..1.1, 1 => -1.1 as $t..-0.9],
                -1e30 as $t..1e30,
                -1e30 as $t..1e30,
            )
                .prop_map(|(a, b, c, d)| [a, b, c, d])
        }
    };
}
float_inputs!(float_inputs, f32);
float_inputs!(double_inputs, f64);

/// Up to `max` iterations' inputs.
fn iterations(max: u32) -> impl Strategy<Value = Vec<Vars>> {
    let rare = (max / 2).max(1);
    let one = (int_inputs(rare), long_inputs(rare), float_inputs(), double_inputs()).prop_map(|(i, l, f, d)| Vars { i, l, f, d });
    proptest::collection::vec(one, 0..=max as usize)
}

/// The iterations of a `schedule(static, 1)` loop over `teams × threads`
/// that thread `tid` of team `team` runs.
fn mine(inputs: &[Vars], team: usize, teams: usize, tid: usize, threads: usize) -> impl Iterator<Item = &Vars> {
    inputs.iter().skip(team * threads + tid).step_by(teams * threads)
}

/// The inputs team `team` reduces.
fn of_team(inputs: &[Vars], team: usize, teams: usize, threads: usize) -> Vec<&Vars> {
    inputs.iter().enumerate().filter(|(j, _)| j % (teams * threads) / threads == team).map(|(_, v)| v).collect()
}

// ---- the parallel reduction ----

struct Parallel<'a> {
    inputs: &'a [Vars],
    /// Per team: the team size its threads saw, its winners and the winner's copy.
    seen_threads: Vec<AtomicU32>,
    winners: Vec<AtomicU32>,
    results: Vec<Mutex<Option<Vars>>>,
    /// Per team, for the teams property: the team's copy of the variables,
    /// into which the winner combines the team's result.
    team_vars: Vec<Mutex<Vars>>,
}

impl<'a> Parallel<'a> {
    fn new(inputs: &'a [Vars], teams: u32) -> Self {
        let teams = teams as usize;
        Parallel {
            inputs,
            seen_threads: (0..teams).map(|_| AtomicU32::new(0)).collect(),
            winners: (0..teams).map(|_| AtomicU32::new(0)).collect(),
            results: (0..teams).map(|_| Mutex::new(None)).collect(),
            team_vars: (0..teams).map(|_| Mutex::new(Vars::identity())).collect(),
        }
    }
}

/// `#pragma omp parallel for reduction(...)` over the league's share of the
/// iterations: each thread reduces its iterations into its private copies,
/// then the runtime combines the team's copies.
extern "C-unwind" fn region(_g: *mut i32, _b: *mut i32, ctx: *mut c_void) {
    let ctx = unsafe { &*(ctx as *const Parallel) };
    let team = omp_get_team_num() as usize;
    let (tid, n) = (omp_get_thread_num() as usize, omp_get_num_threads() as usize);
    ctx.seen_threads[team].store(n as u32, Ordering::Relaxed);
    let mut private = Vars::identity();
    for v in mine(ctx.inputs, team, omp_get_num_teams() as usize, tid, n) {
        private.combine(v);
    }
    let mut list = private.list();
    let size = std::mem::size_of::<Vars>() as i64;
    let r = unsafe { __kmpc_nvptx_parallel_reduce_nowait_v2(std::ptr::null(), size, list.as_mut_ptr().cast(), shuffle_reduce, inter_warp_copy) };
    if r == 1 {
        ctx.winners[team].fetch_add(1, Ordering::Relaxed);
        *ctx.results[team].lock().unwrap() = Some(private);
        // clang's epilogue on the winner: `orig = orig OP private`.
        ctx.team_vars[team].lock().unwrap().combine(&private);
    }
}

extern "C-unwind" fn region_wrapper(_z: i16, tid: i32) {
    let mut args: *mut *mut c_void = std::ptr::null_mut();
    unsafe { __kmpc_get_shared_variables(&mut args) };
    let (mut g, mut b) = (tid, 0);
    region(&mut g, &mut b, unsafe { *args });
}

/// Runs a parallel reduction in each of `teams` teams and checks every team.
fn check_parallel(mode: ExecMode, teams: u32, threads: u32, num_threads: i32, inputs: &[Vars]) -> Result<(), TestCaseError> {
    let _turn = exclusive();
    let env = Shared(kernel_env(mode, threads as i32));
    let ctx = Parallel::new(inputs, teams);
    let generic = mode == ExecMode::GENERIC;
    sim::launch(teams, threads, || unsafe {
        if __kmpc_target_init(env.get(), no_launch_env()) != -1 && generic {
            return; // a generic-mode worker, back from the state machine
        }
        let mut args = [&ctx as *const Parallel as *mut c_void];
        let wrapper = if generic { region_wrapper as *mut c_void } else { std::ptr::null_mut() };
        __kmpc_parallel_60(std::ptr::null(), 0, 1, num_threads, -1, region as *mut c_void, wrapper, args.as_mut_ptr(), 1, 0);
        __kmpc_target_deinit();
    });
    // The team size: the block in SPMD mode; whole warps of the workers in
    // generic mode, where fewer than a warp run serialized.
    let limit = if generic { threads.saturating_sub(32) } else { threads };
    let n = if num_threads > 0 { limit.min(num_threads as u32) } else { limit };
    let n = if generic { if n < 32 { 1 } else { n & !31 } } else { n };
    for team in 0..teams as usize {
        let what = format!("{mode:?}, team {team} of {teams}, {threads} threads per block, num_threads {num_threads}");
        prop_assert_eq!(ctx.seen_threads[team].load(Ordering::Relaxed), n, "team size ({})", what);
        prop_assert_eq!(ctx.winners[team].load(Ordering::Relaxed), 1, "one winner per team ({})", what);
        let got = ctx.results[team].lock().unwrap().expect("the winner's copy");
        check(&got, &of_team(inputs, team, teams as usize, n as usize), &what)?;
    }
    Ok(())
}

/// Teams and threads per block for the SPMD parallel property: any block
/// size up to 100 (non-multiples of 32, a single thread), or one of the
/// interesting ones; sometimes `num_threads(1)`.
fn spmd_shape() -> impl Strategy<Value = (u32, u32, i32)> {
    (
        1u32..=4,
        prop_oneof![proptest::sample::select(vec![1u32, 31, 32, 33, 45, 64, 65, 100]), 1u32..=100],
        prop_oneof![5 => Just(-1), 1 => Just(1)],
    )
}

/// Generic-mode kernels: 32 to 96 workers, with or without `num_threads`.
fn generic_shape() -> impl Strategy<Value = (u32, u32, i32)> {
    (1u32..=3, proptest::sample::select(vec![64u32, 96, 100, 128]), prop_oneof![3 => Just(-1), 1 => Just(16), 1 => Just(40)])
}

// ---- the teams reduction ----

/// `target teams distribute parallel for reduction(...)`: a parallel
/// reduction into each team's copy, then the teams reduction of the copies
/// through the fixed buffer of `records` records. SPMD, or generic mode
/// where only the main thread reaches the teams reduction.
fn check_teams(mode: ExecMode, teams: u32, threads: u32, records: u32, with_parallel: bool, inputs: &[Vars]) -> Result<(), TestCaseError> {
    let _turn = exclusive();
    let generic = mode == ExecMode::GENERIC;
    let mut buffer = vec![Vars::identity(); records as usize];
    let mut kle = KernelLaunchEnvironment { reduction_cnt: 0, reduction_iter_cnt: 0, reduction_buffer: buffer.as_mut_ptr().cast() };
    let mut env = kernel_env(mode, threads as i32);
    env.configuration.reduction_data_size = std::mem::size_of::<Vars>() as i32;
    env.configuration.reduction_buffer_length = records as i32;
    let env = Shared(env);
    let kle_ptr = Shared(&mut kle as *mut KernelLaunchEnvironment);
    let ctx = Parallel::new(inputs, teams);
    if !with_parallel {
        // Each team's copy as its parallel reduction would leave it (a team
        // of one per block: `target teams distribute reduction(...)`).
        for (team, vars) in ctx.team_vars.iter().enumerate() {
            for v in of_team(inputs, team, teams as usize, 1) {
                vars.lock().unwrap().combine(v);
            }
        }
    }
    let winners = AtomicU32::new(0);
    let result = Mutex::new(None);
    sim::launch(teams, threads, || unsafe {
        if __kmpc_target_init(env.get(), *kle_ptr.get()) != -1 && generic {
            return;
        }
        if with_parallel {
            let mut args = [&ctx as *const Parallel as *mut c_void];
            let wrapper = if generic { region_wrapper as *mut c_void } else { std::ptr::null_mut() };
            __kmpc_parallel_60(std::ptr::null(), 0, 1, -1, -1, region as *mut c_void, wrapper, args.as_mut_ptr(), 1, 0);
        }
        // The team's copies, reduced across the league.
        let mut copy = *ctx.team_vars[omp_get_team_num() as usize].lock().unwrap();
        let mut list = copy.list();
        let buf = __kmpc_reduction_get_fixed_buffer();
        let r = __kmpc_nvptx_teams_reduce_nowait_v2(
            std::ptr::null(),
            buf,
            records as i32,
            std::mem::size_of::<Vars>() as i64,
            list.as_mut_ptr().cast(),
            shuffle_reduce,
            inter_warp_copy,
            lg_copy,
            lg_reduce,
            gl_copy,
            gl_reduce,
        );
        if r == 1 {
            winners.fetch_add(1, Ordering::Relaxed);
            *result.lock().unwrap() = Some(copy);
        }
        __kmpc_target_deinit();
    });
    let what = format!("{mode:?}, {teams} teams of {threads} threads, {records} records");
    prop_assert_eq!(winners.load(Ordering::Relaxed), 1, "exactly one thread of the league ({})", what);
    let got = result.lock().unwrap().expect("the winner's copy");
    check(&got, &inputs.iter().collect::<Vec<_>>(), &what)?;
    prop_assert_eq!((kle.reduction_cnt, kle.reduction_iter_cnt), (0, 0), "counters reset ({})", what);
    Ok(())
}

/// Many teams, usually more than the buffer has records (1..=8), sometimes
/// as many or fewer; SPMD or generic mode; warps full, partial and single.
fn teams_shape(max_teams: u32) -> impl Strategy<Value = (bool, u32, u32, u32)> {
    (any::<bool>(), 1u32..=max_teams, prop_oneof![4 => 1u32..=8, 1 => 9u32..=32]).prop_flat_map(|(generic, teams, records)| {
        let threads = if generic {
            proptest::sample::select(vec![64u32, 96]).boxed()
        } else {
            proptest::sample::select(vec![32u32, 33, 45, 64]).boxed()
        };
        (Just(generic), Just(teams), threads, Just(records))
    })
}

fn config(cases: u32) -> ProptestConfig {
    // Each case is a grid launch: keep a failing run's shrinking bounded
    // (at most a minute per property).
    ProptestConfig { cases, max_shrink_iters: 300, max_shrink_time: 60_000, ..ProptestConfig::default() }
}

proptest! {
    #![proptest_config(config(40))]

    /// SPMD teams of any size: every op×type, in every team.
    #[test]
    fn parallel_reduction_spmd_matches_sequential(
        (shape, inputs) in spmd_shape().prop_flat_map(|s| (Just(s), iterations(2 * s.0 * s.1)))
    ) {
        let (teams, threads, num_threads) = shape;
        check_parallel(ExecMode::SPMD, teams, threads, num_threads, &inputs)?;
    }
}

proptest! {
    #![proptest_config(config(20))]

    /// Generic-mode kernels: the workers' team, every op×type.
    #[test]
    fn parallel_reduction_generic_matches_sequential(
        (shape, inputs) in generic_shape().prop_flat_map(|s| (Just(s), iterations(2 * s.0 * s.1)))
    ) {
        let (teams, threads, num_threads) = shape;
        check_parallel(ExecMode::GENERIC, teams, threads, num_threads, &inputs)?;
    }
}

proptest! {
    #![proptest_config(config(100))]

    /// The league's result, with more teams than buffer records: each
    /// team's copy holds its share of the iterations (`target teams
    /// distribute reduction(...)`, one thread per team).
    #[test]
    fn teams_reduction_matches_sequential(
        (shape, inputs) in teams_shape(24).prop_flat_map(|s| (Just(s), iterations(4 * s.1)))
    ) {
        let (generic, teams, threads, records) = shape;
        let mode = if generic { ExecMode::GENERIC } else { ExecMode::SPMD };
        check_teams(mode, teams, threads, records, false, &inputs)?;
    }
}

proptest! {
    #![proptest_config(config(12))]

    /// Both levels (`target teams distribute parallel for reduction(...)`):
    /// the parallel reduction into each team's copy, then the teams reduction.
    #[test]
    fn teams_after_parallel_reduction_matches_sequential(
        (shape, inputs) in teams_shape(12).prop_flat_map(|s| (Just(s), iterations(2 * s.1 * s.2)))
    ) {
        let (generic, teams, threads, records) = shape;
        let mode = if generic { ExecMode::GENERIC } else { ExecMode::SPMD };
        check_teams(mode, teams, threads, records, true, &inputs)?;
    }
}
