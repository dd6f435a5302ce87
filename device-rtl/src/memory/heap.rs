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

/// [`heap_alloc`] right after another (the per-thread array after a thread's
/// first state or record), with no second reclaim, which at -O0 costs
/// registers and stack.
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
