//! The device heap as the runtime uses it: CUDA's `malloc`, after freeing
//! the blocks teams gave back ([`deferred_free`](super::deferred_free)),
//! with a trap naming the cause when it is exhausted.

use super::deferred_free;
use crate::{arch, debug};
use core::ffi::c_void;

/// Device-heap allocation that traps with a message when the heap is
/// exhausted; it first frees the blocks teams gave back (`deferred_free`).
///
/// Inlined, like the other cold paths (`state::PerThread::install`, the
/// trap): a kernel's registers and stack are the maximum over its call
/// graph, cold paths included, and behind a runtime function each call
/// level costs stack and callee-saved registers
/// (`spmd_kernel_keeps_its_static_cost`).
#[inline(always)]
pub fn heap_alloc(bytes: u64, exhausted: &'static [u8]) -> *mut c_void {
    deferred_free::reclaim();
    heap_alloc_after_reclaim(bytes, exhausted)
}

/// [`heap_alloc`] freeing the blocks given back without a pointer live
/// across each `free` (`deferred_free::reclaim_through_slot`).
#[inline(always)]
pub fn heap_alloc_reclaiming_through_slot(bytes: u64, exhausted: &'static [u8]) -> *mut c_void {
    deferred_free::reclaim_through_slot();
    heap_alloc_after_reclaim(bytes, exhausted)
}

/// [`heap_alloc`] right after another (the per-thread array after a thread's
/// first state or record), with no second reclaim, which at -O0 costs
/// registers and stack.
#[inline(always)]
pub fn heap_alloc_after_reclaim(bytes: u64, exhausted: &'static [u8]) -> *mut c_void {
    let p = arch::malloc(bytes.max(1));
    if p.is_null() {
        debug::fatal(exhausted)
    }
    p.cast()
}

/// What each allocation's trap says when the heap is exhausted: the entry
/// point (or what the runtime was making for it), and the fix. Constants,
/// so that naming the caller costs nothing.
pub mod exhausted {
    use crate::debug::message;

    pub const ALLOC_SHARED: &[u8] = message!("device heap exhausted in __kmpc_alloc_shared; raise LIBOMPTARGET_HEAP_SIZE");
    pub const SHARING_VARIABLES: &[u8] = message!("device heap exhausted in __kmpc_begin_sharing_variables; raise LIBOMPTARGET_HEAP_SIZE");
    pub const TASK: &[u8] = message!("device heap exhausted in __kmpc_omp_task_alloc; raise LIBOMPTARGET_HEAP_SIZE");
    pub const DETACH: &[u8] =
        message!("device heap exhausted keeping a task that waits for a detached one (__kmpc_omp_task_with_deps); raise LIBOMPTARGET_HEAP_SIZE");
    pub const LOOP_RECORD: &[u8] = message!("device heap exhausted in __kmpc_dispatch_init (a thread's loop record); raise LIBOMPTARGET_HEAP_SIZE");
    pub const DOACROSS: &[u8] = message!("device heap exhausted in __kmpc_doacross_init; raise LIBOMPTARGET_HEAP_SIZE");
    pub const THREAD_STATE: &[u8] = message!(
        "device heap exhausted making a thread's own ICVs (a nested parallel region, or an ICV set in a region or task); raise LIBOMPTARGET_HEAP_SIZE"
    );
    pub const PER_THREAD_ARRAY: &[u8] =
        message!("device heap exhausted making a team's array of thread states, loop records or task records; raise LIBOMPTARGET_HEAP_SIZE");
}
