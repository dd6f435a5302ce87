//! Memory the compiler asks the runtime for: `__kmpc_alloc_shared` (variables
//! clang "globalises" because other threads may see them) and the argument
//! buffer of generic-mode parallel regions.
//!
//! Budget: a 512-byte stack in CTA-shared memory serves the team's
//! sequential code, which is where clang globalises the variables a parallel
//! region shares: the generic-mode main thread, or in a kernel clang made
//! SPMD every thread outside a parallel region, which all get the same
//! address (see [`alloc_in_spmd_team_code`]). Upstream splits 512 bytes over all threads,
//! which leaves each one 0 bytes at 64+ threads. Every other request, and any
//! request that does not fit, falls back to the device heap; an exhausted heap
//! traps with a message. Allocations are LIFO per thread and 16-byte aligned
//! (clang marks the call sites `align 16`).
#![allow(unsafe_code)]

use crate::{arch, debug, deferred_free, mapping, state, sync};
use core::ffi::c_void;

pub const SHARED_STACK_BYTES: usize = 512;
pub const ALIGNMENT: u64 = 16;

/// The team's stack: its own static (see `arch::team_stack`), so that only
/// kernels that call `__kmpc_alloc_shared` pay its shared memory.
#[repr(C, align(16))]
pub struct SharedStack {
    bytes: core::cell::UnsafeCell<[u8; SHARED_STACK_BYTES]>,
}

// SAFETY: only the generic-mode main thread uses the stack (see `alloc_shared`).
unsafe impl Sync for SharedStack {}

impl SharedStack {
    pub const fn new() -> Self {
        SharedStack { bytes: core::cell::UnsafeCell::new([0; SHARED_STACK_BYTES]) }
    }
}

impl Default for SharedStack {
    fn default() -> Self {
        Self::new()
    }
}

fn stack_base() -> *mut u8 {
    arch::team_stack().bytes.get().cast()
}

#[inline(always)]
fn round_up(bytes: u64) -> u64 {
    bytes.div_ceil(ALIGNMENT) * ALIGNMENT
}

/// Device-heap allocation that traps with a message when the heap is
/// exhausted. It first frees the blocks teams gave back at their kernels'
/// end (`deferred_free`), so a failed `malloc` means an exhausted heap.
///
/// Why this and the other cold paths (`state::PerThread::install`, the trap)
/// are inlined: a kernel's registers and stack are the maximum over its call
/// graph, cold paths included. Called from a kernel, `malloc` and `printf` cost
/// no stack; behind a runtime function each call level cost 8-16 bytes of
/// stack, and every value live across a call a callee-saved register (24-52
/// registers for a few lines of code). Measured with `cargo xtask
/// static-cost`: saxpy went from 72 to 0 stack bytes.
#[inline(always)]
pub fn heap_alloc(bytes: u64) -> *mut c_void {
    deferred_free::reclaim();
    heap_alloc_after_reclaim(bytes)
}

/// [`heap_alloc`] freeing the blocks given back without a pointer live
/// across each `free` (`deferred_free::reclaim_through_slot`).
#[inline(always)]
pub fn heap_alloc_reclaiming_through_slot(bytes: u64) -> *mut c_void {
    deferred_free::reclaim_through_slot();
    heap_alloc_after_reclaim(bytes)
}

/// [`heap_alloc`] for an allocation that follows one right away (the
/// per-thread array after a thread's first state or loop record): the list
/// of blocks given back was just freed, and at -O0 each inlined reclaim costs
/// the runtime function registers and stack.
#[inline(always)]
pub fn heap_alloc_after_reclaim(bytes: u64) -> *mut c_void {
    let p = arch::malloc(bytes.max(1));
    if p.is_null() {
        debug::fatal(debug::message!(
            "device heap exhausted (thread state, loop record, task or __kmpc_alloc_shared fallback); raise LIBOMPTARGET_HEAP_SIZE"
        ))
    }
    p.cast()
}

/// Whether the caller runs an SPMD team's sequential code, which every
/// thread of the block runs, in step: in kernels clang made SPMD. Kernels
/// openmp-opt made SPMD keep the heap: an allocation there may run guarded,
/// and the guard hands its block on to the other threads.
#[inline(always)]
fn in_spmd_team_code() -> bool {
    mapping::is_spmd_kernel_from_clang() && state::icvs().level == 0
}

/// `__kmpc_alloc_shared` in SPMD team code. clang allocates there the team's
/// copy of a variable that the team's parallel region shares: in
/// `target teams distribute parallel for lastprivate(x)`, the copy that the
/// thread running the inner loop's last iteration writes and that every
/// thread then copies out. So the team's threads must get one copy, not one
/// each (with one each, the copy-out raced: lastprivate_combined.c). They
/// all make the same calls, so thread 0 allocates for the team and
/// publishes the block; the first barrier keeps it from replacing a
/// published block that a slow thread has not read yet.
fn alloc_in_spmd_team_code(size: u64) -> *mut c_void {
    sync::all_threads();
    if arch::thread_id_in_block() == 0 {
        let block = stack_push(size).unwrap_or_else(|| heap_alloc(size));
        state::update_team(|t| t.team_block = block);
    }
    sync::all_threads();
    state::team(|t| t.team_block)
}

/// `__kmpc_alloc_shared`.
pub fn alloc_shared(bytes: u64) -> *mut c_void {
    let size = round_up(bytes);
    if in_spmd_team_code() {
        return alloc_in_spmd_team_code(size);
    }
    if mapping::is_main_thread_in_generic_mode()
        && let Some(block) = stack_push(size)
    {
        return block;
    }
    heap_alloc(size)
}

/// `size` bytes on the shared stack, if they fit; called by the one thread
/// that runs the team's sequential code.
fn stack_push(size: u64) -> Option<*mut c_void> {
    let top = state::team(|t| t.stack_top) as u64;
    if top + size > SHARED_STACK_BYTES as u64 {
        return None;
    }
    state::update_team(|t| t.stack_top = (top + size) as u32);
    // SAFETY: `top + size` is within the stack array.
    Some(unsafe { stack_base().add(top as usize) }.cast())
}

/// `__kmpc_free_shared`: `bytes` is the size passed to the allocation.
pub fn free_shared(ptr: *mut c_void, bytes: u64) {
    let base = stack_base() as usize;
    let addr = ptr as usize;
    let in_stack = addr >= base && addr < base + SHARED_STACK_BYTES;
    // In SPMD team code every thread frees the team's block: once all are
    // done with it, thread 0 frees it for the team.
    let for_team = in_spmd_team_code();
    if for_team {
        sync::all_threads();
    }
    if !for_team || arch::thread_id_in_block() == 0 {
        free_own(addr.wrapping_sub(base), in_stack, ptr, bytes);
    }
}

/// Frees a block the caller allocated: the shared stack's top one at
/// `offset`, or a heap block.
fn free_own(offset: usize, in_stack: bool, ptr: *mut c_void, bytes: u64) {
    if in_stack {
        let size = round_up(bytes) as u32;
        let top = state::team(|t| t.stack_top);
        debug::assertion(offset + size as usize == top as usize, debug::message!("frees out of LIFO order: __kmpc_free_shared"));
        state::update_team(|t| t.stack_top = top - size);
    } else {
        // SAFETY: a heap block of `alloc_shared` (not in the stack), which
        // `__kmpc_free_shared`'s caller gives up.
        unsafe { arch::free(ptr.cast()) };
    }
}

/// The team's shared-memory argument slots.
fn inline_arg_slots() -> *mut *mut c_void {
    arch::team_arg_slots().0.get().cast()
}

/// The slots through which a generic-mode region's main thread passes up to
/// `SHARED_ARG_SLOTS` captured variables to its workers; its own static so
/// that SPMD kernels, which never use it, do not reserve it.
pub struct ArgSlots(pub core::cell::UnsafeCell<[*mut c_void; state::SHARED_ARG_SLOTS]>);

// SAFETY: written by the main thread before the barrier that starts a region,
// read by the workers after it.
unsafe impl Sync for ArgSlots {}
// SAFETY: as for `state::TeamSharedCell`: addresses shared by the team.
unsafe impl Send for ArgSlots {}

impl ArgSlots {
    pub const fn new() -> Self {
        ArgSlots(core::cell::UnsafeCell::new([core::ptr::null_mut(); state::SHARED_ARG_SLOTS]))
    }
}

impl Default for ArgSlots {
    fn default() -> Self {
        Self::new()
    }
}

/// `__kmpc_begin_sharing_variables`: a buffer for `n` captured variables
/// that the workers can read (the main thread's stack is private to it).
///
/// The team records only a heap buffer; null means the inline slots. So in a
/// module without regions of more than `SHARED_ARG_SLOTS` variables every
/// store of the field writes null, openmp-opt folds the workers' look-up to
/// the slots' address, and only the slots a kernel uses stay in its shared
/// memory (as with LLVM's runtime: state_machines.c 161 -> 41 bytes).
pub fn begin_sharing_variables(n: u64) -> *mut *mut c_void {
    if n as usize <= state::SHARED_ARG_SLOTS {
        return inline_arg_slots();
    }
    let buffer = heap_alloc(n * 8).cast();
    state::update_team(|t| t.shared_args = buffer);
    buffer
}

/// Copies `n` captured variables into the buffer of `begin_sharing_variables`.
///
/// Into the inline slots one store per slot, each at a constant index under
/// its own `n > i` test: openmp-opt then sees which value each slot holds and
/// forwards it to the workers' loads, so the slots (and the loads) fold away.
/// A `memcpy` of `n * 8` bytes hid the values.
///
/// # Safety
/// `args` holds `n` pointers and `shared` has room for as many.
#[inline(always)]
pub unsafe fn share_variables(args: *const *mut c_void, shared: *mut *mut c_void, n: usize) {
    if n > state::SHARED_ARG_SLOTS {
        // SAFETY: as the caller guarantees.
        unsafe { core::ptr::copy_nonoverlapping(args, shared, n) };
        return;
    }
    for i in 0..state::SHARED_ARG_SLOTS {
        if i < n {
            // SAFETY: `i < n`.
            unsafe { *shared.add(i) = *args.add(i) };
        }
    }
}

/// `__kmpc_end_sharing_variables`.
pub fn end_sharing_variables() {
    let buffer = state::team(|t| t.shared_args);
    if !buffer.is_null() {
        // SAFETY: the buffer `begin_sharing_variables` allocated; the region
        // that read it is over.
        unsafe { arch::free(buffer.cast()) };
        state::update_team(|t| t.shared_args = core::ptr::null_mut());
    }
}

/// Ends the sharing of `n` variables; with a constant `n` that fits the
/// inline slots there is nothing to free, and no call.
#[inline(always)]
pub fn end_sharing_variables_of(n: u64) {
    if n as usize > state::SHARED_ARG_SLOTS {
        end_sharing_variables();
    }
}

/// `__kmpc_get_shared_variables`.
pub fn shared_variables() -> *mut *mut c_void {
    let buffer = state::team(|t| t.shared_args);
    if buffer.is_null() { inline_arg_slots() } else { buffer }
}

/// `llvm_omp_target_dynamic_shared_alloc`: the block's dynamic shared memory
/// (`ompx_dyn_cgroup_mem(n)` bytes, or `LIBOMPTARGET_SHARED_MEMORY_SIZE`),
/// 16-byte aligned; null when the kernel was launched without any, so that a
/// program can tell (upstream returns the address of an empty array). The
/// runtime keeps none of it for itself.
pub fn dynamic_shared() -> *mut c_void {
    if arch::dynamic_shared_bytes() == 0 {
        core::ptr::null_mut()
    } else {
        arch::dynamic_shared_base().cast()
    }
}
