//! Team and thread state: the ICVs and bookkeeping of one team (CUDA block)
//! in CTA-shared memory, plus per-thread ICV overrides made only when a
//! thread needs its own values.
//!
//! Discipline for the team state, which makes its plain loads and stores
//! race-free: a field is written by one thread (the team's initial thread,
//! or a region protocol's leader) and published by a block barrier. The
//! exception: an SPMD region's fields, which every thread may store with the
//! same values after a barrier and reads only after its own stores
//! ([`set_spmd_region_fields`], [`clear_spmd_region_fields`]). The
//! per-thread arrays, installed concurrently with a compare-and-swap, live
//! apart ([`PerThreadArrayCell`]).
#![allow(unsafe_code)]

use super::ids;
use crate::memory::heap::exhausted;
use crate::memory::{deferred_free, heap_alloc, heap_alloc_after_reclaim};
use crate::{arch, config, debug};
use omprt_abi::ExecMode;
use core::cell::UnsafeCell;
use core::ffi::c_void;
use core::sync::atomic::{AtomicBool, AtomicI32, AtomicPtr, Ordering};
use omprt_abi::{KernelEnvironment, KernelLaunchEnvironment};

/// The OpenMP ICVs a device thread can observe or change.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Icvs {
    /// nthreads-var: 0 = "as many as the team has".
    pub nthreads: u32,
    /// Enclosing parallel regions, active or not.
    pub level: u32,
    /// Enclosing *active* parallel regions (0 or 1 on a GPU).
    pub active_level: u32,
    pub max_active_levels: u32,
    /// run-sched-var as an `omp_sched_t` value and its chunk.
    pub run_sched: i32,
    pub run_sched_chunk: i32,
    pub dynamic: u32,
}

impl Icvs {
    pub const INITIAL: Icvs = Icvs {
        nthreads: 0,
        level: 0,
        active_level: 0,
        max_active_levels: 1,
        run_sched: omprt_abi::sched::omp_sched::STATIC,
        run_sched_chunk: 1,
        dynamic: 0,
    };
}

/// Slots for the captured variables a generic-mode parallel region passes to
/// its workers; more spill to the device heap.
pub const SHARED_ARG_SLOTS: usize = 16;

/// Team-wide state (upstream's `TeamStateTy`).
#[repr(C)]
pub struct TeamState {
    pub icvs: Icvs,
    /// Threads of the current active region; 0 = all that can run one.
    pub parallel_team_size: u32,
    /// Puts the bytes at offsets that are not multiples of 8: LLVM's GlobalOpt
    /// splits this static into one per field in use, each as aligned as its
    /// offset, and an 8-aligned byte would cost up to 7 bytes of padding.
    pub _pad: [u8; 2],
    /// `ExecMode` bits of the running kernel.
    pub exec_mode: u8,
    pub may_use_nested_parallelism: u8,
    pub kernel_env: *const KernelEnvironment,
    /// Only valid when the kernel has a teams reduction (all-ones otherwise).
    pub launch_env: *mut KernelLaunchEnvironment,
    /// Generic mode: the wrapper the workers run next; null = kernel done.
    pub parallel_region_fn: *mut c_void,
    /// Generic mode: the captured variables of the current region.
    pub shared_args: *mut *mut c_void,
    /// Bytes of the shared-memory stack in use (see `memory`).
    pub stack_top: u32,
    /// The block `memory` hands to every thread of an SPMD team.
    pub team_block: *mut c_void,
}

/// The team state in CTA-shared memory, a cost of every kernel: what only
/// some kernels need (argument slots, the shared stack, loop records) lives
/// in statics of its own, which only the kernels that use them reserve.
#[repr(C)]
pub struct TeamShared {
    pub state: TeamState,
}

/// A thread's own ICVs, pushed when it enters a data environment (a
/// serialized parallel region, or a change of an ICV inside a region).
#[repr(C)]
pub struct ThreadState {
    pub icvs: Icvs,
    pub previous: *mut ThreadState,
    /// def-allocator-var, apart from `icvs` as the team's is (see
    /// [`DefAllocatorCell`]).
    pub def_allocator: u64,
}

/// The shared-memory cell; shared memory has no initialiser, so `init_team`
/// writes it before use.
#[repr(C)]
pub struct TeamSharedCell(UnsafeCell<TeamShared>);

// SAFETY: accesses follow the discipline above (one writer, then a barrier;
// or the same value from every thread, read after its own store).
unsafe impl Sync for TeamSharedCell {}
// SAFETY: the raw pointers inside are addresses shared by the whole team; the
// host simulation moves a block's cell to the threads that simulate it.
unsafe impl Send for TeamSharedCell {}

impl TeamSharedCell {
    pub const fn new() -> Self {
        TeamSharedCell(UnsafeCell::new(TeamShared {
            state: TeamState {
                icvs: Icvs::INITIAL,
                parallel_team_size: 0,
                _pad: [0; 2],
                exec_mode: 0,
                may_use_nested_parallelism: 0,
                kernel_env: core::ptr::null(),
                launch_env: core::ptr::null_mut(),
                parallel_region_fn: core::ptr::null_mut(),
                shared_args: core::ptr::null_mut(),
                stack_top: 0,
                team_block: core::ptr::null_mut(),
            },
        }))
    }

    #[inline(always)]
    pub fn get(&self) -> *mut TeamShared {
        self.0.get()
    }
}

impl Default for TeamSharedCell {
    fn default() -> Self {
        Self::new()
    }
}

arch::team_static! {
    /// The team state: the runtime's static shared-memory cost in every kernel.
    static TEAM_SHARED: TeamSharedCell = TeamSharedCell::new();
}

#[inline(always)]
pub fn team_ptr() -> *mut TeamState {
    // SAFETY: only a raw pointer is formed; no reference to shared data escapes.
    unsafe { &raw mut (*TEAM_SHARED.get().get()).state }
}

/// Reads one field of the team state.
#[inline(always)]
pub fn team<R>(f: impl FnOnce(&TeamState) -> R) -> R {
    // SAFETY: see the module discipline; the reference lives only for `f`.
    unsafe { f(&*team_ptr()) }
}

/// Runs `f` on the team state; the caller is the single writer of the fields
/// it changes, and publishes them with a barrier.
#[inline(always)]
pub fn update_team(f: impl FnOnce(&mut TeamState)) {
    // SAFETY: single writer per the module discipline; the &mut lives only for `f`.
    unsafe { f(&mut *team_ptr()) }
}

/// The kernel's execution mode and the team's roles, read from the team state.
#[inline(always)]
pub fn is_spmd_mode() -> bool {
    ExecMode::from_bits_retain(team(|t| t.exec_mode)).is_spmd()
}

/// Whether clang emitted the kernel in SPMD mode (no GENERIC bit, which
/// openmp-opt keeps when it SPMDizes): only there does every thread run the
/// team's sequential code in step; openmp-opt runs what it cannot prove safe
/// guarded, on one thread.
#[inline(always)]
pub fn is_spmd_kernel_from_clang() -> bool {
    let mode = ExecMode::from_bits_retain(team(|t| t.exec_mode));
    mode.is_spmd() && !mode.contains(ExecMode::GENERIC)
}

#[inline(always)]
pub fn is_main_thread_in_generic_mode() -> bool {
    !is_spmd_mode() && ids::thread_id_in_block() == ids::main_thread_id_in_generic_mode()
}

/// The thread that runs the team's sequential code: thread 0 in SPMD mode,
/// the main thread in generic mode.
#[inline(always)]
pub fn is_initial_thread() -> bool {
    if is_spmd_mode() { ids::thread_id_in_block() == 0 } else { is_main_thread_in_generic_mode() }
}

/// Whether a parallel region of this kernel may start inside another: not
/// under `-fopenmp-assume-no-nested-parallelism`, nor where openmp-opt
/// cleared the kernel environment's flag.
#[inline(always)]
pub fn may_use_nested_parallelism() -> bool {
    !config::assume_no_nested_parallelism() && team(|t| t.may_use_nested_parallelism != 0)
}

/// Clears the fields an SPMD region set: no region, level 0. Called by every
/// thread of the block after the barrier that ends the region (every read of
/// the region's values); each then sees the cleared fields without a barrier
/// to publish them (identical stores need none).
#[inline(always)]
pub fn clear_spmd_region_fields() {
    let t = team_ptr();
    // SAFETY: places in the team state, formed without a reference; every
    // thread that stores stores the same value.
    unsafe {
        arch::store_same_in_every_thread(&raw mut (*t).parallel_team_size, 0);
        arch::store_same_in_every_thread(&raw mut (*t).icvs.level, 0);
        arch::store_same_in_every_thread(&raw mut (*t).icvs.active_level, 0);
    }
}

/// Sets the fields of an SPMD region that starts, after the barrier that
/// ends every read of the previous values: by every thread of the block, or
/// by thread 0 alone, followed by a barrier.
#[inline(always)]
pub fn set_spmd_region_fields(size: u32, active: bool) {
    let t = team_ptr();
    // SAFETY: places in the team state, formed without a reference; every
    // thread stores the same values.
    unsafe {
        arch::store_same_in_every_thread(&raw mut (*t).parallel_team_size, size);
        arch::store_same_in_every_thread(&raw mut (*t).icvs.level, 1);
        arch::store_same_in_every_thread(&raw mut (*t).icvs.active_level, u32::from(active));
    }
}

/// Resets the team state at kernel start; called by the team's initial thread.
/// `launch_env` is `None` for a kernel without a teams reduction, which never
/// reads it: its field keeps whatever shared memory holds.
pub fn init_team(kernel_env: *const KernelEnvironment, launch_env: Option<*mut KernelLaunchEnvironment>, exec_mode: u8, nested: u8) {
    update_team(|t| {
        // Field by field: openmp-opt cannot see the values a struct copy's
        // memcpy writes, and no ICV load would fold.
        let Icvs { nthreads, level, active_level, max_active_levels, run_sched, run_sched_chunk, dynamic } = Icvs::INITIAL;
        t.icvs.nthreads = nthreads;
        t.icvs.level = level;
        t.icvs.active_level = active_level;
        t.icvs.max_active_levels = max_active_levels;
        t.icvs.run_sched = run_sched;
        t.icvs.run_sched_chunk = run_sched_chunk;
        t.icvs.dynamic = dynamic;
        t.parallel_team_size = 0;
        t.exec_mode = exec_mode;
        t.may_use_nested_parallelism = nested;
        t.kernel_env = kernel_env;
        if let Some(launch_env) = launch_env {
            t.launch_env = launch_env;
        }
        t.parallel_region_fn = core::ptr::null_mut();
        t.shared_args = core::ptr::null_mut();
        t.stack_top = 0;
    });
    // SAFETY: the initial thread, before the barrier that releases the others.
    unsafe {
        *TEAM_THREAD_STATES.get().field() = core::ptr::null_mut();
        *TEAM_LOOP_RECORDS.get().field() = core::ptr::null_mut();
        *TEAM_TASK_RECORDS.get().field() = core::ptr::null_mut();
        *TEAM_DEF_ALLOCATOR.get().field() = DEFAULT_ALLOCATOR;
    }
}

/// The team's def-allocator-var, set by the initial thread outside regions:
/// a static of its own, read only by programs that call
/// `omp_set_default_allocator` ([`def_allocator`]) and dropped elsewhere,
/// where as a field it would cost shared memory and tasks registers
/// (`programs_that_never_set_a_default_allocator_drop_its_icv`).
#[repr(C)]
pub struct DefAllocatorCell(UnsafeCell<u64>);

// SAFETY: as for `TeamSharedCell`: written by the team's initial thread
// outside regions, read after the barrier that starts one.
unsafe impl Sync for DefAllocatorCell {}
// SAFETY: as for `TeamSharedCell`.
unsafe impl Send for DefAllocatorCell {}

impl DefAllocatorCell {
    pub const fn new() -> Self {
        Self::holding(DEFAULT_ALLOCATOR)
    }

    /// A cell with `handle` in it (the simulation's garbage).
    pub const fn holding(handle: u64) -> Self {
        DefAllocatorCell(UnsafeCell::new(handle))
    }

    #[inline(always)]
    fn field(&self) -> *mut u64 {
        self.0.get()
    }
}

impl Default for DefAllocatorCell {
    fn default() -> Self {
        Self::new()
    }
}

arch::team_static! {
    /// The team's def-allocator-var; garbage in the simulation, as shared
    /// memory is on the GPU, so `init_team` must set it.
    static TEAM_DEF_ALLOCATOR: DefAllocatorCell = DefAllocatorCell::new(), simulated as DefAllocatorCell::holding(0xdead_beef);
}

arch::device_static! {
    /// Whether a thread has set a def-allocator-var: written only by
    /// `omp_set_default_allocator`, so its loads fold elsewhere.
    static DEFAULT_ALLOCATOR_SET: AtomicBool = AtomicBool::new(false);
}

/// def-allocator-var's initial value, `omp_default_mem_alloc`.
const DEFAULT_ALLOCATOR: u64 = omprt_abi::alloc::allocator::DEFAULT_MEM;

/// Where one of the team's per-thread arrays ([`PerThread`]) hangs, null
/// until a thread needs it. Each is a static of its own: the
/// compare-and-swap that installs one keeps LLVM from splitting the static
/// it lives in, and a kernel whose loops push records keeps the thread-state
/// array null, so its ICV queries still fold
/// (`lto_ordered_loops_keep_their_turn_with_the_records`).
pub struct PerThreadArrayCell(UnsafeCell<*mut c_void>);

// SAFETY: installed with a compare-and-swap, read with benign plain loads
// (see `PerThread`), reset by the initial thread between barriers.
unsafe impl Sync for PerThreadArrayCell {}
// SAFETY: as for `TeamSharedCell`.
unsafe impl Send for PerThreadArrayCell {}

impl PerThreadArrayCell {
    pub const fn new() -> Self {
        PerThreadArrayCell(UnsafeCell::new(core::ptr::null_mut()))
    }

    #[inline(always)]
    fn field(&self) -> *mut *mut c_void {
        self.0.get()
    }
}

impl Default for PerThreadArrayCell {
    fn default() -> Self {
        Self::new()
    }
}

arch::team_static! {
    static TEAM_THREAD_STATES: PerThreadArrayCell = PerThreadArrayCell::new();
}
arch::team_static! {
    static TEAM_LOOP_RECORDS: PerThreadArrayCell = PerThreadArrayCell::new();
}
arch::team_static! {
    static TEAM_TASK_RECORDS: PerThreadArrayCell = PerThreadArrayCell::new();
}

arch::device_static! {
    /// Whether a thread has made a per-thread array: written only there, so
    /// that where none is made LLVM drops the kernel-end release with its
    /// barrier (`kernel::target_deinit`).
    pub static PER_THREAD_ARRAYS_MADE: AtomicBool = AtomicBool::new(false);
}

arch::device_static! {
    /// The device's nteams-var (`omp_set_num_teams`; 0: never set), read by
    /// later kernels; written only by its setter, so its loads fold elsewhere.
    pub static DEVICE_NTEAMS: AtomicI32 = AtomicI32::new(0);
}
arch::device_static! {
    /// The device's teams-thread-limit-var (`omp_set_teams_thread_limit`),
    /// as [`DEVICE_NTEAMS`].
    pub static DEVICE_TEAMS_THREAD_LIMIT: AtomicI32 = AtomicI32::new(0);
}

/// For tests, between launches: whether a grid of the calling thread's
/// device made one of the per-thread arrays.
#[cfg(not(target_arch = "nvptx64"))]
pub fn device_made_per_thread_arrays() -> bool {
    PER_THREAD_ARRAYS_MADE.get().load(Ordering::Relaxed)
}

#[inline(always)]
fn thread_states_cell() -> &'static PerThreadArrayCell {
    TEAM_THREAD_STATES.get()
}
#[inline(always)]
fn loop_records_cell() -> &'static PerThreadArrayCell {
    TEAM_LOOP_RECORDS.get()
}
#[inline(always)]
fn task_records_cell() -> &'static PerThreadArrayCell {
    TEAM_TASK_RECORDS.get()
}

/// The calling thread's own state, if it has one.
#[inline(always)]
pub fn current_thread_state() -> *mut ThreadState {
    if config::assume_no_thread_state() || THREAD_STATES.array_if_any().is_null() {
        return core::ptr::null_mut();
    }
    // SAFETY: only this thread reads or writes its element.
    unsafe { *THREAD_STATES.existing_slot() }
}

/// States for the optimizer that the team's level is 1 here: one thread's
/// store does not let openmp-opt prove it for the others.
///
/// # Safety
/// Every thread reaching this point sees level 1 in the team state.
#[inline(always)]
pub unsafe fn assume_team_level_one() {
    // SAFETY: forwarded from the caller.
    unsafe { arch::assume_u32_eq(&raw const (*team_ptr()).icvs.level, 1) }
}

/// States for the optimizer that the team's size field holds `size` here,
/// so a region's `omp_get_num_threads` needs no shared memory once inlined.
///
/// # Safety
/// Every thread reaching this point sees `size` in the team state.
#[inline(always)]
pub unsafe fn assume_team_size(size: u32) {
    // SAFETY: forwarded from the caller.
    unsafe { arch::assume_u32_eq(&raw const (*team_ptr()).parallel_team_size, size) }
}

/// The ICVs the calling thread sees.
#[inline(always)]
pub fn icvs() -> Icvs {
    let ts = current_thread_state();
    if ts.is_null() {
        team(|t| t.icvs)
    } else {
        // SAFETY: a thread's state is only touched by that thread.
        unsafe { (*ts).icvs }
    }
}

/// One of the team's lazily allocated arrays with a pointer per thread of
/// the block, held by a [`PerThreadArrayCell`], and `header` words before
/// the threads' elements (the loop records' `ordered` turn).
///
/// The cell is read with plain loads (every ICV query reads the thread-state
/// one): an atomic load cannot be merged with its neighbours, and an acquire
/// load would order every later load behind it
/// (`spmd_kernel_keeps_its_static_cost`). The race with the installing
/// compare-and-swap is benign: a thread sees null or the array, and reads
/// its element only after a block-scope fence (`existing_slot`). In kernels
/// that never install the array, openmp-opt folds the loads to null.
pub struct PerThread<T> {
    cell: fn() -> &'static PerThreadArrayCell,
    header: usize,
    elements: core::marker::PhantomData<fn() -> T>,
}

// Not derived: a derive would require `T: Copy`.
impl<T> Clone for PerThread<T> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<T> Copy for PerThread<T> {}

pub const THREAD_STATES: PerThread<ThreadState> =
    PerThread { cell: thread_states_cell, header: 0, elements: core::marker::PhantomData };
/// Its header is the team's turn in an `ordered` loop: on the heap with the
/// records every thread of such a loop pushes, not in shared memory
/// (`lto_ordered_loops_keep_their_turn_with_the_records`).
pub const LOOP_RECORDS: PerThread<c_void> =
    PerThread { cell: loop_records_cell, header: 1, elements: core::marker::PhantomData };
/// The explicit task each thread runs, for `omp_in_explicit_task`; apart
/// from the loop records, whose array it would double.
pub const TASK_RECORDS: PerThread<c_void> =
    PerThread { cell: task_records_cell, header: 0, elements: core::marker::PhantomData };

impl<T> PerThread<T> {
    #[inline(always)]
    fn field(self) -> *mut *mut *mut T {
        (self.cell)().field().cast()
    }

    /// The array, or null while no thread has needed it.
    #[inline(always)]
    pub fn array_if_any(self) -> *mut *mut T {
        // SAFETY: an aligned read of the team state; see the type's docs.
        unsafe { *self.field() }
    }

    /// The calling thread's element once the array exists. The block-scope
    /// fence makes the array's zeroing visible (a stale L1 line of reused
    /// heap would look like a pointer); the installer is in the same block,
    /// and `fence(Acquire)` would be system scope. The thread id is read
    /// anew: `__kmpc_dispatch_next` runs per chunk, and LLVM would keep a
    /// hoisted id live across the user's loop
    /// (`no_kernel_costs_more_than_with_llvm19`).
    #[inline(always)]
    pub fn existing_slot(self) -> *mut *mut T {
        arch::fence_block();
        // SAFETY: the header and one element per thread of the block.
        unsafe { self.array_if_any().add(self.header + arch::thread_id_in_block_reread() as usize) }
    }

    /// The calling thread's element, the array allocated (zeroed) by the
    /// first thread that needs it. Called right after a `memory::heap_alloc`
    /// of the thread, which freed the blocks given back.
    pub fn my_slot(self) -> *mut *mut T {
        if self.array_if_any().is_null() {
            self.install();
        }
        self.existing_slot()
    }

    /// Allocates the zeroed array and installs it, unless another thread
    /// was first. Inlined like `memory::heap_alloc`.
    #[inline(always)]
    fn install(self) {
        let n = self.header + ids::num_threads_in_block() as usize;
        let fresh = heap_alloc_after_reclaim((n * core::mem::size_of::<*mut T>()) as u64, exhausted::PER_THREAD_ARRAY).cast::<*mut T>();
        for i in 0..n {
            // SAFETY: `fresh` holds the header and one element per thread of the block.
            unsafe { fresh.add(i).write(core::ptr::null_mut()) };
        }
        // SAFETY: the field is aligned and lives as long as the team; its
        // concurrent accesses are this compare-and-swap and benign plain reads.
        let cell = unsafe { AtomicPtr::from_ptr(self.field()) };
        if cell.compare_exchange(core::ptr::null_mut(), fresh, Ordering::AcqRel, Ordering::Relaxed).is_err() {
            // SAFETY: this thread's fresh allocation, never published.
            unsafe { arch::free(fresh.cast()) };
        } else {
            // See `PER_THREAD_ARRAYS_MADE`. Here, not before the allocation,
            // where it costs registers.
            PER_THREAD_ARRAYS_MADE.get().store(true, Ordering::Relaxed);
        }
    }

    /// Gives the array back once no thread can use it (`deferred_free`).
    /// Plain accesses: to openmp-opt an atomic exchange writes an unknown
    /// value, and no load of the field would fold to null.
    fn release(self) {
        let array = self.array_if_any();
        if !array.is_null() {
            // SAFETY: as in `array_if_any`; nobody else accesses it now.
            unsafe { *self.field() = core::ptr::null_mut() };
            deferred_free::free_later(array.cast());
        }
    }
}

out_of_line_at_o0! {
/// Pushes a copy of the thread's current ICVs as its own state and returns
/// a handle to pop it with [`exit_data_environment`]. Apart at -O0, as the
/// pop is: inlined with `__kmpc_parallel_60` into clang's code there, the two
/// would set the registers of kernels with a region
/// (`no_kernel_costs_more_than_with_llvm19_at_o0`).
pub fn enter_data_environment() -> *mut ThreadState {
    if config::assume_no_thread_state() {
        debug::fatal(debug::message!("a thread state was needed but the program was compiled with -fopenmp-assume-no-thread-state"))
    }
    let state = heap_alloc(core::mem::size_of::<ThreadState>() as u64, exhausted::THREAD_STATE).cast::<ThreadState>();
    let slot = THREAD_STATES.my_slot();
    // SAFETY: this thread's slot; `state` is a fresh allocation; the team
    // state is only written between barriers this thread is not inside.
    unsafe {
        let top = *slot;
        let current: *const Icvs = if top.is_null() { &raw const (*team_ptr()).icvs } else { &raw const (*top).icvs };
        core::ptr::copy_nonoverlapping(current, &raw mut (*state).icvs, 1);
        (&raw mut (*state).previous).write(top);
        (&raw mut (*state).def_allocator).write(def_allocator_in(top));
        *slot = state;
    }
    state
}
}

out_of_line_at_o0! {
/// Pops the thread's innermost state.
pub fn exit_data_environment() {
    debug::check(!THREAD_STATES.array_if_any().is_null(), debug::message!("no data environment to leave: omp thread state"));
    // SAFETY: this thread's slot and the state it pushed.
    unsafe {
        let slot = THREAD_STATES.existing_slot();
        let top = *slot;
        *slot = (*top).previous;
        arch::free(top.cast());
    }
}
}

/// Pops the calling thread's states down to `mark` (null: all of them).
pub fn drop_states_since(mark: *mut ThreadState) {
    while current_thread_state() != mark && !current_thread_state().is_null() {
        exit_data_environment();
    }
}

/// Changes one ICV of the calling thread: in the team state for the team's
/// initial thread outside any region, in a thread state otherwise.
/// [`set_def_allocator`] makes the same choice; one function for both keeps
/// the state and the team apart less well, which costs tasks registers.
pub fn set_icv(f: impl FnOnce(&mut Icvs)) {
    let ts = current_thread_state();
    if !ts.is_null() {
        // SAFETY: only this thread touches its state.
        unsafe { f(&mut (*ts).icvs) };
    } else if icvs().level == 0 && is_initial_thread() {
        update_team(|t| f(&mut t.icvs));
    } else {
        let ts = enter_data_environment();
        // SAFETY: as above; the state lives until the region that made it ends.
        unsafe { f(&mut (*ts).icvs) };
    }
}

/// The def-allocator-var a thread whose innermost state is `top` (null:
/// none) sees; read only once a thread has set one (`DEFAULT_ALLOCATOR_SET`).
///
/// # Safety
/// `top` is null or the calling thread's live state.
pub unsafe fn def_allocator_in(top: *const ThreadState) -> u64 {
    if !DEFAULT_ALLOCATOR_SET.get().load(Ordering::Relaxed) {
        DEFAULT_ALLOCATOR
    } else if top.is_null() {
        // SAFETY: the team's cell, written outside regions (see its type).
        unsafe { *TEAM_DEF_ALLOCATOR.get().field() }
    } else {
        // SAFETY: a thread's state is only touched by that thread.
        unsafe { (*top).def_allocator }
    }
}

/// The calling task's def-allocator-var.
pub fn def_allocator() -> u64 {
    // SAFETY: the calling thread's innermost state, or null.
    unsafe { def_allocator_in(current_thread_state()) }
}

/// `omp_set_default_allocator`: in the calling task's data environment,
/// where [`set_icv`] puts every other ICV.
pub fn set_def_allocator(handle: u64) {
    DEFAULT_ALLOCATOR_SET.get().store(true, Ordering::Relaxed);
    let ts = current_thread_state();
    let home = if !ts.is_null() || (icvs().level == 0 && is_initial_thread()) { ts } else { enter_data_environment() };
    // SAFETY: the calling thread's own state, or null for the team's initial
    // thread outside any region.
    unsafe { write_def_allocator(home, handle) };
}

/// Restores def-allocator-var to `handle` where the thread whose innermost
/// state is `top` keeps it (null: the team's cell), if the ICV is in use.
///
/// # Safety
/// As [`write_def_allocator`].
pub unsafe fn restore_def_allocator(top: *mut ThreadState, handle: u64) {
    if DEFAULT_ALLOCATOR_SET.get().load(Ordering::Relaxed) {
        // SAFETY: forwarded from the caller.
        unsafe { write_def_allocator(top, handle) };
    }
}

/// Writes def-allocator-var into `home` (null: the team's cell).
///
/// # Safety
/// `home` is null or the calling thread's live state; with null, the caller
/// is the team's initial thread outside any region.
unsafe fn write_def_allocator(home: *mut ThreadState, handle: u64) {
    // SAFETY: forwarded from the caller; the team's cell is written outside
    // regions only (see its type).
    unsafe {
        if home.is_null() {
            *TEAM_DEF_ALLOCATOR.get().field() = handle;
        } else {
            (*home).def_allocator = handle;
        }
    }
}

/// Releases the per-thread arrays at the end of a kernel. All threads that
/// could use them must be done (see `kernel::target_deinit`).
pub fn release_thread_states() {
    THREAD_STATES.release();
    LOOP_RECORDS.release();
    TASK_RECORDS.release();
}
