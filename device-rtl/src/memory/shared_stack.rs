//! `__kmpc_alloc_shared`: variables clang "globalises" because other threads
//! may see them.
//!
//! A 512-byte stack in CTA-shared memory serves the team's sequential code,
//! where clang globalises the variables a region shares: the generic-mode
//! main thread, or every thread outside a region of a kernel clang made SPMD,
//! which all get the same address ([`alloc_in_spmd_team_code`]). (Upstream
//! splits its 512 bytes over all threads: none each from 64 threads on.)
//! Other requests, and those that do not fit, go to the device heap.
//! Allocations are LIFO per thread and 16-byte aligned (clang's call sites
//! say `align 16`).
#![allow(unsafe_code)]

use super::heap::exhausted;
use super::heap_alloc;
use crate::execution::{mapping, state};
use crate::{arch, debug, sync};
use core::ffi::c_void;

pub const SHARED_STACK_BYTES: usize = 512;
pub const ALIGNMENT: u64 = 16;

/// The team's stack, a static of its own that only kernels calling
/// `__kmpc_alloc_shared` reserve.
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

arch::team_static! {
    static TEAM_STACK: SharedStack = SharedStack::new();
}

fn stack_base() -> *mut u8 {
    TEAM_STACK.get().bytes.get().cast()
}

#[inline(always)]
fn round_up(bytes: u64) -> u64 {
    bytes.div_ceil(ALIGNMENT) * ALIGNMENT
}

/// Whether the caller runs an SPMD team's sequential code, in step with the
/// block: in kernels clang made SPMD. Kernels openmp-opt SPMDized keep the
/// heap, where a guarded allocation hands its block to the others.
#[inline(always)]
fn in_spmd_team_code() -> bool {
    mapping::is_spmd_kernel_from_clang() && state::icvs().level == 0
}

/// `__kmpc_alloc_shared` in SPMD team code, where clang allocates the team's
/// copy of a variable its region shares (the `lastprivate` of `target teams
/// distribute parallel for`, which every thread copies out): one copy for
/// the team, or the copy-out races (lastprivate_combined.c). Every thread
/// makes the same calls; thread 0 allocates and publishes, after a barrier
/// that keeps it from replacing a block a slow thread has not read.
fn alloc_in_spmd_team_code(size: u64) -> *mut c_void {
    sync::all_threads();
    if arch::thread_id_in_block() == 0 {
        let block = stack_push(size).unwrap_or_else(|| heap_alloc(size, exhausted::ALLOC_SHARED));
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
    heap_alloc(size, exhausted::ALLOC_SHARED)
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

