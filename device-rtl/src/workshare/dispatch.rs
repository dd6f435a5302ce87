//! Dispatched loops (`__kmpc_dispatch_*`): dynamic, guided, auto and runtime
//! schedules, and the static and `ordered` loops clang routes through the
//! dispatcher.
//!
//! Iterations are numbered `0..=last` in a normalised space (iteration `k`
//! is `lb + k*st`), kept in 64 bits; the arithmetic runs in the loop's own
//! width ([`Count`]), so a 32-bit loop pays for no 64-bit division or
//! registers.
//!
//! Where the state lives:
//! * The team's CTA-shared statics, which only kernels with such loops
//!   reserve: the counter of handed-out iterations ([`TeamCounters`]),
//!   advanced with one atomic per warp (dynamic) or a CAS (guided), and the
//!   loop ([`TeamLoop`]). `init` brackets their writes with two team
//!   barriers, so consecutive loops, `nowait` ones too, reuse them safely.
//! * A [`Private`] record on the heap, pushed by a thread that needs progress
//!   of its own and popped by `__kmpc_dispatch_deinit`: static schedules,
//!   `ordered` loops (the current iteration; the team's turn is the records
//!   array's header, [`ordered_turn`]), and a team of one whose neighbours
//!   may run unrelated loops (nested regions, an SPMD kernel's sequential
//!   part). A record keeps its own [`LoopSpec`], so a program whose loops are
//!   all `ordered` never writes [`TeamLoop`], which then takes no memory.
//! * [`ORDERED_LOOPS_SEEN`], written by `ordered` loops only, tells `next`
//!   whether a record may be one of theirs; elsewhere that path folds.
#![allow(unsafe_code)]

use super::iv::{Count, Distance, LoopIv, runs_no_iteration};
use super::static_sched::static_balanced;
use crate::execution::{mapping, state};
use crate::{arch, config, debug, sync};
use core::cell::UnsafeCell;
use core::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use omprt_abi::Schedule;
use omprt_abi::sched::omp_sched;

arch::team_static! {
    static TEAM_COUNTERS: TeamCounters = TeamCounters::new();
}
arch::team_static! {
    static TEAM_LOOP: TeamLoop = TeamLoop::new();
}
arch::device_static! {
    /// Whether a thread has started an `ordered` dispatched loop.
    static ORDERED_LOOPS_SEEN: AtomicBool = AtomicBool::new(false);
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    Dynamic,
    Guided,
    StaticChunked,
    StaticBalanced,
}

/// The loop in the normalised space.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Bounds {
    /// The lower bound's bits.
    pub lb: u64,
    pub st: i64,
    /// Index of the last iteration; meaningless when `empty`.
    pub last: u64,
    pub empty: bool,
}

impl Bounds {
    /// `None` for a zero stride, which has no trip count.
    pub fn new<T: LoopIv>(lb: T, ub: T, st: T::Signed) -> Option<Bounds> {
        let st = T::signed_i64(st);
        if st == 0 {
            return None;
        }
        let empty = runs_no_iteration(lb, ub, st < 0);
        let distance = if empty {
            T::Unsigned::ZERO
        } else if st > 0 {
            T::distance(lb, ub)
        } else {
            T::distance(ub, lb)
        };
        // |st| fits the loop's unsigned type (|i32::MIN| = 2^31).
        let last = distance.div_nonzero(T::Unsigned::from_u64(st.unsigned_abs()));
        Some(Bounds { lb: lb.bits(), st, last: last.into(), empty })
    }

    /// Iteration `k` as a value of the loop's type, computed in its width.
    pub fn value<T: LoopIv>(&self, k: u64) -> T {
        let step = T::Unsigned::from_u64(k).wrapping_mul(T::Unsigned::from_u64(self.st as u64));
        T::from_bits(self.lb).offset(step)
    }
}

/// How a loop is handed out, decided once at `init`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Plan {
    pub kind: Kind,
    pub chunk: u64,
    pub ordered: bool,
}

impl Plan {
    /// Decodes clang's schedule. `auto` is a dynamic schedule with chunks
    /// large enough for few grabs per thread.
    pub fn new<D: Count>(sched: Schedule, chunk: i64, run_sched: (i32, i32), bounds: &Bounds, threads: u32) -> Plan {
        use Schedule::*;
        let ordered = matches!(
            sched,
            OrderedStaticChunk | OrderedStaticNoChunk | OrderedDynamic | OrderedGuided | OrderedRuntime | OrderedAuto
        );
        let (kind, chunk) = match sched {
            StaticChunk | OrderedStaticChunk | StaticBalancedChunk if chunk > 0 => (Kind::StaticChunked, chunk),
            StaticChunk | OrderedStaticChunk | StaticBalancedChunk | StaticNoChunk | OrderedStaticNoChunk => {
                (Kind::StaticBalanced, 0)
            }
            Dynamic | OrderedDynamic => (Kind::Dynamic, chunk),
            Guided | OrderedGuided => (Kind::Guided, chunk),
            Auto | OrderedAuto => return Plan::auto::<D>(bounds, threads, ordered),
            Runtime | OrderedRuntime => {
                let (kind, chunk) = (run_sched.0 & !omp_sched::MONOTONIC, i64::from(run_sched.1));
                match kind {
                    omp_sched::DYNAMIC => (Kind::Dynamic, chunk),
                    omp_sched::GUIDED => (Kind::Guided, chunk),
                    omp_sched::AUTO => return Plan::auto::<D>(bounds, threads, ordered),
                    _ if chunk > 0 => (Kind::StaticChunked, chunk),
                    _ => (Kind::StaticBalanced, 0),
                }
            }
            DistributeStaticChunk | DistributeStaticNoChunk | DistributeStaticChunkStaticOne => (Kind::StaticBalanced, 0),
        };
        // A chunk past the trip count is the trip count, so the team's
        // counter, which runs past `last` by a chunk per empty grab (32 per
        // warp), cannot wrap to 0 and run the loop again
        // (`schedule(dynamic, 1L << 62)`).
        Plan { kind, chunk: (chunk.max(1) as u64).min(bounds.last.saturating_add(1)), ordered }
    }

    fn auto<D: Count>(bounds: &Bounds, threads: u32, ordered: bool) -> Plan {
        let per_grab = D::from_u64(bounds.last).div_nonzero(D::from_u64(8 * u64::from(threads.max(1))));
        Plan { kind: Kind::Dynamic, chunk: per_grab.into().max(1), ordered }
    }

    /// Whether each thread needs a [`Private`] record, given whether its
    /// team may use the team's record.
    pub fn needs_private(&self, team_record: bool) -> bool {
        !team_record || self.ordered || matches!(self.kind, Kind::StaticChunked | Kind::StaticBalanced)
    }
}

/// `[start, start + chunk - 1]` clamped to `last`; `None` past the end.
pub fn chunk_at<D: Count>(start: D, chunk: D, last: D) -> Option<(D, D)> {
    if start > last {
        return None;
    }
    Some((start, if last - start < chunk { last } else { start + (chunk - D::ONE) }))
}

/// Guided: about half of what is left divided by the threads, at least
/// `min_chunk`. The divisor is a power of two, 2^`shift` ([`guided_shift`]),
/// so the retried step of the CAS loop shifts rather than divides.
pub fn guided_size<D: Count>(start: D, last: D, shift: u32, min_chunk: D) -> D {
    let left_minus_one = if last > start { last - start } else { D::ZERO };
    left_minus_one.shr(shift).max(min_chunk).max(D::ONE)
}

/// log2 of twice the team size, rounded up: the divisor of [`guided_size`].
pub fn guided_shift(threads: u32) -> u32 {
    (2 * threads.clamp(1, 1 << 20)).next_power_of_two().trailing_zeros()
}

/// Where a thread stands in a static schedule: the start of its next chunk,
/// the chunk's length minus one, and the distance to the chunk after it (0:
/// none). Set up at `init`, so `next` neither divides nor multiplies: inlined
/// into every dispatched loop, that would set the registers of kernels whose
/// loops are not even static.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct StaticCursor {
    next: u64,
    span: u64,
    step: u64,
    done: bool,
}

impl StaticCursor {
    const DONE: StaticCursor = StaticCursor { next: 0, span: 0, step: 0, done: true };

    out_of_line_at_o0! {
    /// Writes to `out` thread `id`'s position among `count` threads at the
    /// loop's start. Apart at -O0, where inlined it would set the record
    /// push's registers (`unoptimised_dispatched_loops_stay_small`). Not
    /// returned: at -O0 a returned cursor goes through the stack.
    ///
    /// # Safety
    /// `out` is valid for a write; it may be uninitialised (a fresh record).
    pub unsafe fn start_into<D: Count>(kind: Kind, chunk: u64, last: D, id: u32, count: u32, out: *mut StaticCursor) {
        // SAFETY: forwarded from the caller.
        unsafe { out.write(Self::initial::<D>(kind, chunk, last, id, count)) };
    }
    }

    #[inline(always)]
    fn initial<D: Count>(kind: Kind, chunk: u64, last: D, id: u32, count: u32) -> StaticCursor {
        let done = Self::DONE;
        let (start, span, step) = match kind {
            Kind::StaticBalanced => {
                let c = static_balanced::<D>(D::ZERO, last, id, count);
                if c.lb > c.ub {
                    return done;
                }
                (c.lb, c.ub - c.lb, D::ZERO)
            }
            _ => {
                let chunk = D::from_u64(chunk);
                let Some(start) = D::u_from_u32(id).checked_mul(chunk).filter(|&s| s <= last) else { return done };
                // A step past the type's range leaves one chunk: the next would start past `last`.
                (start, chunk - D::ONE, D::u_from_u32(count).checked_mul(chunk).unwrap_or(D::ZERO))
            }
        };
        StaticCursor { next: start.into(), span: span.into(), step: step.into(), done: false }
    }

    /// The next chunk as `(first, last, is_last)`, `None` past the end.
    pub fn take<D: Count>(&mut self, last: D) -> Option<(u64, u64, bool)> {
        if self.done {
            return None;
        }
        let (a, span, step) = (D::from_u64(self.next), D::from_u64(self.span), D::from_u64(self.step));
        let b = if last - a <= span { last } else { a + span };
        match a.checked_add(step) {
            Some(n) if step != D::ZERO && n <= last => self.next = n.into(),
            _ => self.done = true,
        }
        Some((a.into(), b.into(), b == last))
    }
}

/// How a dispatched loop is handed out: its bounds, its plan and the team's
/// [`guided_shift`]. Flat, so that the small fields share one word: as a
/// `Bounds`, a `Plan` and the shift, each would keep its own padding.
#[derive(Clone, Copy)]
struct LoopSpec {
    lb: u64,
    st: i64,
    last: u64,
    chunk: u64,
    kind: Kind,
    empty: bool,
    /// [`guided_shift`] of the team (at most 21).
    guided_shift: u8,
}

impl LoopSpec {
    const fn new(bounds: Bounds, plan: Plan, guided_shift: u32) -> Self {
        LoopSpec {
            lb: bounds.lb,
            st: bounds.st,
            last: bounds.last,
            chunk: plan.chunk,
            kind: plan.kind,
            empty: bounds.empty,
            guided_shift: guided_shift as u8,
        }
    }
}

/// The team's loop when no thread keeps a record of it, written by thread 0
/// between the two team barriers of `init`. Its size is charged to every
/// kernel of a module that uses it. A 64-bit loop is kept as its
/// [`LoopSpec`]; a 32-bit one in its own width, with the rest in the team's
/// counter ([`TeamCounters`]): an empty loop starts the counter past `last`,
/// and the guided shift is its top byte
/// (`narrow_dynamic_loops_take_sixteen_bytes_of_shared_memory`).
pub struct TeamLoop {
    narrow: UnsafeCell<NarrowLoop>,
    wide: UnsafeCell<LoopSpec>,
}

/// A 32-bit loop of the team. Lower bound and `last` share a word: as two
/// fields, LLVM's GlobalOpt splits them into two 4-byte statics, which the
/// linker lays out around the counter with 4 bytes of padding
/// (`narrow_dynamic_loops_take_sixteen_bytes_of_shared_memory`). The chunk
/// is stored less one: clamped to the trip count, it may be 2^32.
#[derive(Clone, Copy)]
struct NarrowLoop {
    /// `lb | last << 32`.
    lb_last: u64,
    st: i32,
    chunk_minus_one: u32,
}

// SAFETY: the write-then-barrier discipline of `state`.
unsafe impl Sync for TeamLoop {}

/// Where a 32-bit loop's guided shift sits in the team's counter. Its
/// progress stays below 2^43: `last` + 1 (at most 2^32), the last chunk's
/// overhang, and one chunk (at most 2^32) for each of a block's 1024
/// threads that finds the loop handed out.
const NARROW_SHIFT_AT: u32 = 56;

/// Whether the loop's unsigned type `D` is 32 bits wide.
#[inline(always)]
fn narrow<D: Count>() -> bool {
    core::mem::size_of::<D>() == 4
}

/// The bits of the team's counter that count iterations, for a loop of `D`.
#[inline(always)]
fn progress_mask<D: Count>() -> u64 {
    if narrow::<D>() { (1 << NARROW_SHIFT_AT) - 1 } else { u64::MAX }
}

impl TeamLoop {
    pub const fn new() -> Self {
        let empty = Bounds { lb: 0, st: 1, last: 0, empty: true };
        TeamLoop {
            narrow: UnsafeCell::new(NarrowLoop { lb_last: 0, st: 1, chunk_minus_one: 0 }),
            wide: UnsafeCell::new(LoopSpec::new(empty, Plan { kind: Kind::Dynamic, chunk: 1, ordered: false }, 1)),
        }
    }

    /// Thread 0, between the barriers of `init`: the team's loop and its
    /// counter's start.
    fn write<D: Count>(&self, counters: &TeamCounters, spec: &LoopSpec) {
        // SAFETY: the barriers order these writes before and after every
        // other thread's use of the loop.
        unsafe {
            if narrow::<D>() {
                let shift = if spec.kind == Kind::Guided { spec.guided_shift } else { 0 };
                let (last, start) = if spec.empty { (0, 1) } else { (spec.last, 0) };
                let lb_last = (spec.lb & 0xffff_ffff) | last << 32;
                *self.narrow.get() = NarrowLoop { lb_last, st: spec.st as i32, chunk_minus_one: (spec.chunk - 1) as u32 };
                counters.next.store(start | u64::from(shift) << NARROW_SHIFT_AT, Ordering::Relaxed);
            } else {
                *self.wide.get() = *spec;
                counters.next.store(0, Ordering::Relaxed);
            }
        }
    }

    /// A 64-bit loop of the team, read by any thread after `init`.
    fn wide(&self) -> &LoopSpec {
        // SAFETY: written only between the barriers of `init`.
        unsafe { &*self.wide.get() }
    }

    /// The team's 32-bit loop: its bounds word, stride and chunk.
    fn narrow_fields(&self) -> NarrowLoop {
        // SAFETY: written only between the barriers of `init`.
        unsafe { *self.narrow.get() }
    }
}

/// A loop as the code that cuts its chunks reads it, field by field where
/// each is used: a [`LoopSpec`] (a record's copy, or the team's 64-bit loop
/// in place), or the team's 32-bit loop in place ([`NarrowTeamLoop`]). Not a
/// [`LoopSpec`] unpacked from the 32-bit loop: that copy goes through the
/// stack at -O0 in every kernel with a dispatched loop, and at -O2 its early
/// loads keep registers live across the grab.
trait Spec {
    fn lb(&self) -> u64;
    fn st(&self) -> i64;
    fn last(&self) -> u64;
    fn chunk(&self) -> u64;
    fn empty(&self) -> bool;
    fn guided_shift(&self) -> u8;
    /// Whether the loop is guided and not yet down to chunks of the minimum
    /// size ([`at_minimum`]), given the team's `counters`.
    fn guided_above_minimum<D: Count>(&self, counters: &TeamCounters) -> bool;
}

impl Spec for LoopSpec {
    fn lb(&self) -> u64 {
        self.lb
    }
    fn st(&self) -> i64 {
        self.st
    }
    fn last(&self) -> u64 {
        self.last
    }
    fn chunk(&self) -> u64 {
        self.chunk
    }
    fn empty(&self) -> bool {
        self.empty
    }
    fn guided_shift(&self) -> u8 {
        self.guided_shift
    }
    /// The kind first: a dynamic loop loads no counter here.
    fn guided_above_minimum<D: Count>(&self, counters: &TeamCounters) -> bool {
        self.kind == Kind::Guided && !at_minimum::<D>(counters.next.load(Ordering::Relaxed) & progress_mask::<D>(), self)
    }
}

/// The team's 32-bit loop, read in place: see [`TeamLoop`]. Its emptiness is
/// the counter's start past `last`.
struct NarrowTeamLoop;

impl Spec for NarrowTeamLoop {
    fn lb(&self) -> u64 {
        TEAM_LOOP.get().narrow_fields().lb_last & 0xffff_ffff
    }
    fn st(&self) -> i64 {
        TEAM_LOOP.get().narrow_fields().st.into()
    }
    fn last(&self) -> u64 {
        TEAM_LOOP.get().narrow_fields().lb_last >> 32
    }
    fn chunk(&self) -> u64 {
        u64::from(TEAM_LOOP.get().narrow_fields().chunk_minus_one) + 1
    }
    fn empty(&self) -> bool {
        false
    }
    fn guided_shift(&self) -> u8 {
        (TEAM_COUNTERS.get().next.load(Ordering::Relaxed) >> NARROW_SHIFT_AT) as u8
    }
    /// Kind and progress from one load of the counter: LLVM neither merges
    /// nor drops atomic loads.
    fn guided_above_minimum<D: Count>(&self, counters: &TeamCounters) -> bool {
        let raw = counters.next.load(Ordering::Relaxed);
        raw >> NARROW_SHIFT_AT != 0 && !at_minimum::<D>(raw & progress_mask::<D>(), self)
    }
}

impl Default for TeamLoop {
    fn default() -> Self {
        Self::new()
    }
}

/// The team's progress through its dispatched loop (see the module docs):
/// the next iteration to hand out, in the bits of [`progress_mask`]; above
/// them, a 32-bit [`TeamLoop`]'s guided shift.
#[repr(C)]
pub struct TeamCounters {
    next: AtomicU64,
}

/// `ordered`: the iteration whose ordered region may run now, in the header
/// word of the team's loop records (`state::LOOP_RECORDS`). Every thread of
/// an `ordered` loop pushed a record, so the array exists; thread 0 resets
/// the turn between the barriers of `init`.
fn ordered_turn() -> &'static AtomicU64 {
    // SAFETY: the array's first word, 8-aligned like every heap block, lives
    // until the kernel ends; the team accesses it atomically only.
    unsafe { AtomicU64::from_ptr(state::LOOP_RECORDS.array_if_any().cast()) }
}

impl TeamCounters {
    pub const fn new() -> Self {
        TeamCounters { next: AtomicU64::new(0) }
    }

    out_of_line_at_o0! {
    /// Hands out the next chunk of the team's guided loop `lp` (of a dynamic
    /// one: [`Self::grab_dynamic`]). The counter stays 64-bit: it runs past
    /// `last` by up to a chunk per thread, which would wrap a 32-bit one near
    /// the top of the range. Apart at -O0: with the CAS loop inlined,
    /// `next_guided` would take more registers than LLVM 19's distribute
    /// kernels (`no_kernel_costs_more_than_with_llvm19_at_o0`). The chunk goes to
    /// `first` and `end`, `false` if there is none: returned as an `Option`,
    /// it would go through the stack at -O0.
    fn grab_guided<D: Count, S: Spec>(&self, lp: &S, first: &mut u64, end: &mut u64) -> bool {
        if lp.empty() {
            return false;
        }
        let (last, chunk, shift) = (D::from_u64(lp.last()), D::from_u64(lp.chunk()), u32::from(lp.guided_shift()));
        let mask = progress_mask::<D>();
        let mut raw = self.next.load(Ordering::Relaxed);
        loop {
            let start = raw & mask;
            if start > last.into() {
                return false;
            }
            let s = D::from_u64(start);
            let Some((a, b)) = chunk_at(s, guided_size(s, last, shift, chunk), last) else {
                return false;
            };
            match self.next.compare_exchange_weak(raw, (raw & !mask) | (b.into() + 1), Ordering::Relaxed, Ordering::Relaxed) {
                Ok(_) => {
                    (*first, *end) = (a.into(), b.into());
                    return true;
                }
                Err(now) => raw = now,
            }
        }
    }
    }

    /// Hands out the next chunk of the team's dynamic loop `lp`.
    fn grab_dynamic<D: Count, S: Spec>(&self, lp: &S) -> Option<(u64, u64)> {
        if lp.empty() {
            return None;
        }
        let chunk = lp.chunk();
        let start = arch::fetch_add_aggregated(&self.next, chunk) & progress_mask::<D>();
        let last = lp.last();
        if start > last {
            return None;
        }
        let (a, b) = chunk_at(D::from_u64(start), D::from_u64(chunk), D::from_u64(last))?;
        Some((a.into(), b.into()))
    }
}

impl Default for TeamCounters {
    fn default() -> Self {
        Self::new()
    }
}

/// Whether the guided loop `lp`, its counter at `start`, is down to chunks of
/// the minimum size (or handed out): from there on it is a dynamic loop, and
/// a warp takes its chunks with one atomic add
/// ([`TeamCounters::grab_dynamic`]) instead of a CAS per thread that the
/// whole team retries on one word (many times slower than `dynamic, 1` on a
/// GPU). Asked before the grab, so that the dynamic path the kernel has
/// anyway serves, not a copy of it in the CAS loop, which costs the
/// dispatched kernels registers (`no_kernel_costs_more_than_with_llvm19`).
fn at_minimum<D: Count>(start: u64, lp: &impl Spec) -> bool {
    let (last, chunk) = (lp.last(), D::from_u64(lp.chunk()));
    start > last || guided_size(D::from_u64(start), D::from_u64(last), u32::from(lp.guided_shift()), chunk) <= chunk
}

/// A thread's own view of a dispatched loop.
struct Private {
    /// The loop. An `ordered` dynamic or guided loop cuts its chunks by this
    /// copy, so that [`TeamLoop`] is left to loops without records.
    spec: LoopSpec,
    ordered: bool,
    /// Whether chunks and the ordered turn come from the team's counters.
    in_team: bool,
    /// Static schedules: this thread's next chunk.
    cursor_static: StaticCursor,
    /// `ordered`: the iteration this thread runs.
    cursor: u64,
    level: u32,
    previous: *mut Private,
}

/// The calling thread's innermost private loop at the current level.
fn private_top() -> *mut Private {
    if config::assume_no_thread_state() || state::LOOP_RECORDS.array_if_any().is_null() {
        return core::ptr::null_mut();
    }
    // SAFETY: only this thread touches its element and the records it pushed.
    unsafe {
        let p = (*state::LOOP_RECORDS.existing_slot()).cast::<Private>();
        // A record of an enclosing level belongs to a loop this one is nested
        // in; without nesting there is none.
        let ours = !p.is_null() && (!state::may_use_nested_parallelism() || (*p).level == state::icvs().level);
        if ours { p } else { core::ptr::null_mut() }
    }
}

/// `__kmpc_dispatch_init_*`.
pub fn init<T: LoopIv>(entry: &[u8], schedtype: i32, lb: T, ub: T, st: T::Signed, chunk: T::Signed) {
    let Some(bounds) = Bounds::new(lb, ub, st) else { debug::fatal_naming(b"zero loop stride passed to \0", entry) };
    init_bounds::<T::Unsigned>(entry, schedtype, bounds, T::signed_i64(chunk))
}

fn init_bounds<D: Count>(entry: &[u8], schedtype: i32, bounds: Bounds, chunk: i64) {
    let Some(sched) = Schedule::from_raw(schedtype) else { debug::fatal_naming(b"unknown schedule type passed to \0", entry) };
    let icvs = state::icvs();
    let threads = mapping::omp_num_threads();
    let plan = Plan::new::<D>(sched, chunk, (icvs.run_sched, icvs.run_sched_chunk), &bounds, threads);
    // A team of one may use the team's record too when no other thread of the
    // block can be in a loop meanwhile: without nesting, it is the generic
    // main thread or an SPMD region of one thread (the others wait outside it).
    // Then a dynamic or guided loop needs no heap record, and where clang's
    // constant schedule reaches this code the heap path, which costs the
    // kernel registers, can fold away.
    let in_team =
        threads > 1 || (!state::may_use_nested_parallelism() && (!mapping::is_spmd_mode() || icvs.level == 1));
    let team_loop = in_team && (plan.ordered || matches!(plan.kind, Kind::Dynamic | Kind::Guided));
    // Each path ends in one call, so that at -O0 nothing is live across it.
    if !plan.needs_private(in_team) {
        if team_loop {
            publish_team_loop::<D>(Some((&bounds, &plan)), threads);
        }
        return;
    }
    if plan.ordered {
        // Written by `ordered` loops only, so that LLVM finds it never written
        // in programs without them (see `next`).
        ORDERED_LOOPS_SEEN.get().store(true, Ordering::Relaxed);
    }
    if config::assume_no_thread_state() {
        debug::fatal_naming(b"this loop needs per-thread state, but the program was compiled with -fopenmp-assume-no-thread-state: \0", entry)
    }
    push_private::<D>(&bounds, &plan, in_team, threads, icvs.level, team_loop);
}

out_of_line_at_o0! {
/// Thread 0 resets the team's counter and writes the team's loop, if given,
/// or else (an `ordered` loop, whose threads keep their own copy) resets the
/// ordered turn, between two team barriers.
fn publish_team_loop<D: Count>(spec: Option<(&Bounds, &Plan)>, threads: u32) {
    let counters = TEAM_COUNTERS.get();
    sync::team_barrier();
    if mapping::omp_thread_num() == 0 {
        if let Some((bounds, plan)) = spec {
            TEAM_LOOP.get().write::<D>(counters, &LoopSpec::new(*bounds, *plan, guided_shift(threads)));
        } else {
            ordered_turn().store(0, Ordering::Relaxed);
            counters.next.store(0, Ordering::Relaxed);
        }
    }
    sync::team_barrier();
}
}

out_of_line_at_o0! {
/// Pushes the caller's [`Private`] record of a loop at `level`, then, for a
/// loop the team shares (`ordered`), resets the team's counter and ordered
/// turn.
fn push_private<D: Count>(bounds: &Bounds, plan: &Plan, in_team: bool, threads: u32, level: u32, team_loop: bool) {
    // The calls first and the cursor's last: ptxas -O0 spills every value
    // live across a call into the frame. The blocks given back are freed
    // with no pointer live across each `free`
    // (`no_kernel_costs_more_than_with_llvm19_with_offload_lto`).
    let slot = state::LOOP_RECORDS.my_slot();
    let record = crate::memory::heap_alloc_reclaiming_through_slot(core::mem::size_of::<Private>() as u64, crate::memory::heap::exhausted::LOOP_RECORD).cast::<Private>();
    // A thread alone in its loop runs it as one chunk.
    let kind = if in_team { plan.kind } else { Kind::StaticBalanced };
    let (id, count) = if in_team { (mapping::omp_thread_num(), threads.max(1)) } else { (0, 1) };
    // SAFETY: a fresh allocation, and this thread's own slot.
    unsafe {
        (&raw mut (*record).spec).write(LoopSpec::new(*bounds, Plan { kind, ..*plan }, guided_shift(count)));
        (&raw mut (*record).ordered).write(plan.ordered);
        (&raw mut (*record).in_team).write(in_team);
        (&raw mut (*record).cursor).write(0);
        (&raw mut (*record).level).write(level);
        (&raw mut (*record).previous).write((*slot).cast());
        *slot = record.cast();
        StaticCursor::start_into::<D>(kind, plan.chunk, D::from_u64(bounds.last), id, count, &raw mut (*record).cursor_static);
    }
    if team_loop {
        publish_team_loop::<D>(None, threads);
    }
}
}

/// `__kmpc_dispatch_next_*`: 1 and the caller's next chunk, or 0 when done.
pub fn next<T: LoopIv>(plast: &mut i32, plb: &mut T, pub_: &mut T, pst: &mut T::Signed) -> i32 {
    // SAFETY: this thread's own record, if any.
    match unsafe { private_top().as_mut() } {
        // The team's loop is read at its own address: through a pointer that
        // could also be a record's, its static would stay in programs that
        // never write it (`ordered_loops_leave_the_team_loop_record_out`).
        None if narrow::<T::Unsigned>() => next_team(&NarrowTeamLoop, plast, plb, pub_, pst),
        None => next_team(TEAM_LOOP.get().wide(), plast, plb, pub_, pst),
        // An `ordered` loop: chunks from the team's counters, the record's
        // copy of the loop, and the record follows the current iteration.
        // Only `ordered` loops push dynamic or guided records. The flag first:
        // in a program without such loops it folds to false, and with it this
        // path, which has a copy of the grabs for the record's layout
        // (`programs_without_ordered_loops_fold_the_ordered_path`).
        Some(p) if ORDERED_LOOPS_SEEN.get().load(Ordering::Relaxed) && matches!(p.spec.kind, Kind::Dynamic | Kind::Guided) => {
            next_ordered(p, plast, plb, pub_, pst)
        }
        Some(p) => next_static(p, plast, plb, pub_, pst),
    }
}

/// The next chunk of the team's loop `spec`.
#[inline(always)]
fn next_team<T: LoopIv, S: Spec>(spec: &S, plast: &mut i32, plb: &mut T, pub_: &mut T, pst: &mut T::Signed) -> i32 {
    if spec.guided_above_minimum::<T::Unsigned>(TEAM_COUNTERS.get()) {
        next_guided(spec, plast, plb, pub_, pst)
    } else {
        next_dynamic(spec, plast, plb, pub_, pst)
    }
}

out_of_line_at_o0! {
/// The next chunk of an `ordered` dynamic or guided loop: from the team's
/// counters and the record's copy of the loop; the record follows the
/// current iteration. Not a cursor argument of `next_guided` and
/// `next_dynamic`, which would raise their registers under ptxas -O0
/// (`no_kernel_costs_more_than_with_llvm19_at_o0`).
fn next_ordered<T: LoopIv>(p: &mut Private, plast: &mut i32, plb: &mut T, pub_: &mut T, pst: &mut T::Signed) -> i32 {
    let counters = TEAM_COUNTERS.get();
    let b = if p.spec.guided_above_minimum::<T::Unsigned>(counters) {
        let mut b = 0;
        if !counters.grab_guided::<T::Unsigned, _>(&p.spec, &mut p.cursor, &mut b) {
            return 0;
        }
        b
    } else {
        let Some((a, b)) = counters.grab_dynamic::<T::Unsigned, _>(&p.spec) else { return 0 };
        p.cursor = a;
        b
    };
    emit_team(&p.spec, p.cursor, b, plast, plb, pub_, pst)
}
}

out_of_line_at_o0! {
/// The next chunk of the team's guided loop.
fn next_guided<T: LoopIv, S: Spec>(spec: &S, plast: &mut i32, plb: &mut T, pub_: &mut T, pst: &mut T::Signed) -> i32 {
    let (mut a, mut b) = (0, 0);
    if !TEAM_COUNTERS.get().grab_guided::<T::Unsigned, S>(spec, &mut a, &mut b) {
        return 0;
    }
    emit_team(spec, a, b, plast, plb, pub_, pst)
}
}

out_of_line_at_o0! {
/// The next chunk of the team's dynamic loop.
fn next_dynamic<T: LoopIv, S: Spec>(spec: &S, plast: &mut i32, plb: &mut T, pub_: &mut T, pst: &mut T::Signed) -> i32 {
    let Some((a, b)) = TEAM_COUNTERS.get().grab_dynamic::<T::Unsigned, S>(spec) else { return 0 };
    emit_team(spec, a, b, plast, plb, pub_, pst)
}
}

out_of_line_at_o0! {
/// [`emit`] of a chunk of the team's loop. Seven arguments: with an eighth,
/// it would take more registers under ptxas -O0 than LLVM 19's kernels
/// (`no_kernel_costs_more_than_with_llvm19_at_o0`).
#[allow(clippy::too_many_arguments, reason = "clang's four variables")]
fn emit_team<T: LoopIv, S: Spec>(spec: &S, a: u64, b: u64, plast: &mut i32, plb: &mut T, pub_: &mut T, pst: &mut T::Signed) -> i32 {
    emit(spec, a, b, b == spec.last(), plast, plb, pub_, pst)
}
}

out_of_line_at_o0! {
/// The next chunk of a static schedule from the thread's own record.
fn next_static<T: LoopIv>(p: &mut Private, plast: &mut i32, plb: &mut T, pub_: &mut T, pst: &mut T::Signed) -> i32 {
    if p.spec.empty {
        return 0;
    }
    let Some((a, b, last)) = p.cursor_static.take(<T::Unsigned>::from_u64(p.spec.last)) else { return 0 };
    p.cursor = a;
    emit(&p.spec, a, b, last, plast, plb, pub_, pst)
}
}

/// Writes the chunk `[a, b]` of `spec` to clang's variables; returns 1.
#[inline(always)]
#[allow(clippy::too_many_arguments, reason = "clang's four variables")]
fn emit<T: LoopIv, S: Spec>(spec: &S, a: u64, b: u64, last: bool, plast: &mut i32, plb: &mut T, pub_: &mut T, pst: &mut T::Signed) -> i32 {
    let bounds = Bounds { lb: spec.lb(), st: spec.st(), last: spec.last(), empty: spec.empty() };
    *plb = bounds.value(a);
    *pub_ = bounds.value(b);
    *pst = T::signed_from_i64(bounds.st);
    *plast = i32::from(last);
    1
}

/// Waits until the team's ordered turn reaches `iteration`.
fn wait_turn(turn: &AtomicU64, iteration: u64) {
    while turn.load(Ordering::Acquire) != iteration {
        arch::spin_pause();
    }
}

/// `__kmpc_ordered`: waits for the turn of the caller's iteration. Without
/// a record of an ordered loop there is no turn to wait for: fine for a team
/// of one, but in a larger team the region would run in no order. flang's
/// loops get there (the OpenMPIRBuilder lowers every device loop, `ordered`
/// too, to a static `__kmpc_*_static_loop_*`, which has no ordered schedule;
/// upstream's `__kmpc_ordered` does nothing), so that traps, saying why.
/// Only in the copy flang's calls reach (`config::serves_out_of_line_callers`):
/// clang's ordered loops always have their record, and the test costs their
/// kernels registers. With `-foffload-lto` clang's calls reach that copy
/// too, where ordered.c's kernels pay those registers, up to LLVM 19's count;
/// the trap apart, out of line, would give them stack instead.
pub fn ordered() {
    let private = private_top();
    // SAFETY: this thread's own record.
    match unsafe { private.as_ref() } {
        Some(p) if p.ordered => {
            if p.in_team {
                wait_turn(ordered_turn(), p.cursor);
            }
        }
        _ if config::serves_out_of_line_callers() && mapping::omp_num_threads() > 1 => debug::fatal(debug::message!(
            "__kmpc_ordered outside a loop with an ordered schedule: the region cannot run in order ",
            "(flang lowers device loops, ordered ones too, to static __kmpc_*_static_loop_* calls)"
        )),
        _ => {}
    }
    arch::fence_device();
}

/// `__kmpc_end_ordered`: the turn passes on in `fini`, which also runs for
/// iterations that skip their ordered region.
pub fn end_ordered() {
    arch::fence_device();
}

/// `__kmpc_dispatch_fini_*`, after each iteration of an ordered loop.
pub fn fini() {
    let private = private_top();
    // SAFETY: this thread's own record.
    let Some(p) = (unsafe { private.as_mut() }) else { return };
    if !p.ordered {
        return;
    }
    if p.in_team {
        let turn = ordered_turn();
        wait_turn(turn, p.cursor);
        turn.store(p.cursor + 1, Ordering::Release);
    }
    p.cursor += 1;
}

/// `__kmpc_dispatch_deinit`: pops the caller's private record, if any, and
/// gives it to the next heap allocation to free (`deferred_free`): a `free`
/// here is a call in every kernel with a dispatched loop, where LLVM cannot
/// prove that no thread pushed a record, and a call costs the kernel
/// registers (`no_kernel_costs_more_than_with_llvm19`).
pub fn deinit() {
    let private = private_top();
    if private.is_null() {
        return;
    }
    // SAFETY: this thread's own slot and the record it pushed.
    unsafe {
        *state::LOOP_RECORDS.existing_slot() = (*private).previous.cast();
        crate::memory::deferred_free::free_later(private.cast());
    }
}

/// `__kmpc_dist_dispatch_init_*`: the team's balanced share of the loop,
/// then a dispatched loop over that share among the team's threads.
pub fn dist_init<T: LoopIv>(entry: &[u8], schedtype: i32, plast: &mut i32, lb: T, ub: T, st: T::Signed, chunk: T::Signed) {
    let Some(bounds) = Bounds::new(lb, ub, st) else { debug::fatal_naming(b"zero loop stride passed to \0", entry) };
    let last = T::Unsigned::from_u64(bounds.last);
    let share = static_balanced::<T::Unsigned>(T::Unsigned::ZERO, last, mapping::block_id(), mapping::num_blocks());
    let empty = bounds.empty || share.lb > share.ub;
    *plast = i32::from(!empty && share.last);
    let mine = if empty {
        Bounds { empty: true, ..bounds }
    } else {
        Bounds { lb: bounds.value::<T>(share.lb.into()).bits(), st: bounds.st, last: (share.ub - share.lb).into(), empty: false }
    };
    init_bounds::<T::Unsigned>(entry, schedtype, mine, T::signed_i64(chunk))
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn cursor<D: Count>(plan: &Plan, last: D, id: u32, count: u32) -> StaticCursor {
        let mut c = StaticCursor::DONE;
        // SAFETY: a local cursor.
        unsafe { StaticCursor::start_into::<D>(plan.kind, plan.chunk, last, id, count, &mut c) };
        c
    }

    #[test]
    fn bounds_of_full_range_and_negative_strides() {
        let b = Bounds::new(i32::MIN, i32::MAX, 1).unwrap();
        assert_eq!((b.last, b.empty), (u32::MAX as u64, false));
        let b = Bounds::new(10i64, -10, -3).unwrap();
        assert_eq!((b.last, b.empty), (6, false));
        assert_eq!(b.value::<i64>(6), -8);
        assert!(Bounds::new(5u32, 4, 1).unwrap().empty);
        assert!(Bounds::new(0i32, 0, 0).is_none());
    }

    #[test]
    fn static_cursors_near_the_top_of_a_32_bit_range() {
        let last = u32::MAX - 3;
        let plan = Plan { kind: Kind::StaticChunked, chunk: 1 << 31, ordered: false };
        let chunks = |id| {
            let mut c = cursor::<u32>(&plan, last, id, 3);
            core::iter::from_fn(move || c.take(last)).collect::<Vec<_>>()
        };
        assert_eq!(chunks(0), vec![(0, (1 << 31) - 1, false)]);
        assert_eq!(chunks(1), vec![(1 << 31, u64::from(last), true)]);
        assert_eq!(chunks(2), vec![]);
    }

    /// Runs `f` on the team loop and counters of a simulated block of one
    /// thread.
    fn on_team<R: Send>(f: impl Fn(&TeamLoop, &TeamCounters) -> R + Sync) -> R {
        let out = std::sync::Mutex::new(None);
        crate::arch::sim::launch(1, 1, || *out.lock().unwrap() = Some(f(TEAM_LOOP.get(), TEAM_COUNTERS.get())));
        out.into_inner().unwrap().unwrap()
    }

    /// Every field of `s` as the chunk-cutting code reads it.
    fn fields<S: Spec>(s: &S) -> (u64, i64, u64, u64, bool, u8) {
        (s.lb(), s.st(), s.last(), s.chunk(), s.empty(), s.guided_shift())
    }

    /// What the team's shared copy of a loop gives back, and where its
    /// counter starts.
    fn team_round_trip<D: Count>(spec: LoopSpec) -> ((u64, i64, u64, u64, bool, u8), u64) {
        on_team(|team, counters| {
            team.write::<D>(counters, &spec);
            let start = counters.next.load(Ordering::Relaxed) & progress_mask::<D>();
            (if narrow::<D>() { fields(&NarrowTeamLoop) } else { fields(team.wide()) }, start)
        })
    }

    #[test]
    fn the_team_loop_keeps_bounds_stride_chunk_and_guided_shift_in_both_widths() {
        let spec = |lb: u64, st: i64, last: u64, chunk: u64, kind: Kind| LoopSpec {
            lb,
            st,
            last,
            chunk,
            kind,
            empty: false,
            guided_shift: if kind == Kind::Guided { 21 } else { 0 },
        };
        let narrow = [
            // A negative 32-bit lower bound's bits, a negative stride, the
            // largest `last` and a chunk of 2^32 (the full range, clamped).
            spec((-5i32) as u32 as u64, -3, u32::MAX.into(), 1 << 32, Kind::Guided),
            spec(0, i32::MIN.into(), 7, 1, Kind::Dynamic),
            spec(u32::MAX.into(), i32::MAX.into(), 0, 1, Kind::Guided),
        ];
        for s in narrow {
            assert_eq!(team_round_trip::<u32>(s), (fields(&s), 0));
        }
        let wide = spec(u64::MAX - 4, i64::MIN, u64::MAX, u64::MAX, Kind::Guided);
        assert_eq!(team_round_trip::<u64>(wide), (fields(&wide), 0));
    }

    /// An empty loop hands out nothing: the 32-bit one is a counter past
    /// `last`.
    #[test]
    fn an_empty_team_loop_hands_out_nothing() {
        for kind in [Kind::Dynamic, Kind::Guided] {
            let empty = LoopSpec { lb: 3, st: 1, last: 40, chunk: 2, kind, empty: true, guided_shift: 5 };
            let grabs = on_team(|team, counters| {
                let (mut a, mut b) = (0, 0);
                team.write::<u32>(counters, &empty);
                let narrow = (counters.grab_guided::<u32, _>(&NarrowTeamLoop, &mut a, &mut b), counters.grab_dynamic::<u32, _>(&NarrowTeamLoop));
                team.write::<u64>(counters, &empty);
                let wide = (counters.grab_guided::<u64, _>(team.wide(), &mut a, &mut b), counters.grab_dynamic::<u64, _>(team.wide()));
                (narrow, wide)
            });
            assert_eq!(grabs, ((false, None), (false, None)), "{kind:?}");
        }
    }

    proptest! {
        /// Every static plan covers `0..=last` exactly once, with one `last`.
        #[test]
        fn static_plans_cover_each_iteration_once(last in 0u64..600, count in 1u32..70, chunk in 0i64..40) {
            let kind = if chunk == 0 { Schedule::StaticNoChunk } else { Schedule::StaticChunk };
            let bounds = Bounds { lb: 0, st: 1, last, empty: false };
            let plan = Plan::new::<u64>(kind, chunk, (1, 0), &bounds, count);
            let mut seen = vec![0u32; last as usize + 1];
            let mut lasts = 0;
            for id in 0..count {
                let mut c = cursor::<u64>(&plan, last, id, count);
                while let Some((a, b, is_last)) = c.take(last) {
                    for i in a..=b { seen[i as usize] += 1; }
                    lasts += u32::from(is_last);
                }
            }
            prop_assert!(seen.iter().all(|&n| n == 1));
            prop_assert_eq!(lasts, 1);
        }

        /// Guided chunks shrink with what is left and never pass the end.
        #[test]
        fn guided_chunks_stay_in_range(last in 0u64..100_000, threads in 1u32..1024, min in 1u64..50) {
            let mut start = 0;
            let mut grabs = 0u64;
            while let Some((a, b)) = chunk_at(start, guided_size(start, last, guided_shift(threads), min), last) {
                prop_assert!(a <= b && b <= last);
                start = b + 1;
                grabs += 1;
            }
            prop_assert_eq!(start, last + 1);
            prop_assert!(grabs <= last + 1);
        }
    }
}
