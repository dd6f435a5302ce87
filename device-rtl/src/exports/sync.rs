//! Barriers, master/masked, flush and warp-level synchronisation.

use super::*;
use crate::execution::mapping;
use crate::{arch, sync};

/// `barrier`, explicit or implicit: the team's tasks complete first (only
/// `detach` can leave any), then its threads meet. `alwaysinline` once
/// linked (`.omprt.always_inline_later`): at -O0 the `detach` hook's call
/// would give it a frame of its own, under every region's that calls it
/// (`no_kernel_costs_more_than_with_llvm19_at_o0`).
#[unsafe(no_mangle)]
#[inline(never)]
#[cfg_attr(target_arch = "nvptx64", unsafe(link_section = ".omprt.always_inline_later"))]
pub extern "C-unwind" fn __kmpc_barrier(_loc: IdentPtr, _gtid: i32) {
    crate::tasks::detach::wait_all_if_used();
    sync::team_barrier()
}

/// An aligned barrier of the whole block, executed convergently by all threads.
#[unsafe(no_mangle)]
#[inline(never)]
pub extern "C-unwind" fn __kmpc_barrier_simple_spmd(_loc: IdentPtr, _gtid: i32) {
    sync::threads_aligned()
}

#[unsafe(no_mangle)]
pub extern "C-unwind" fn __kmpc_flush(_loc: IdentPtr) {
    arch::fence_device()
}

#[unsafe(no_mangle)]
pub extern "C-unwind" fn __kmpc_master(_loc: IdentPtr, _gtid: i32) -> i32 {
    i32::from(mapping::omp_thread_num() == 0)
}

#[unsafe(no_mangle)]
pub extern "C-unwind" fn __kmpc_end_master(_loc: IdentPtr, _gtid: i32) {}

#[unsafe(no_mangle)]
pub extern "C-unwind" fn __kmpc_masked(_loc: IdentPtr, _gtid: i32, filter: i32) -> i32 {
    i32::from(mapping::omp_thread_num() as i32 == filter)
}

#[unsafe(no_mangle)]
pub extern "C-unwind" fn __kmpc_end_masked(_loc: IdentPtr, _gtid: i32) {}

#[unsafe(no_mangle)]
pub extern "C-unwind" fn __kmpc_warp_active_thread_mask() -> i64 {
    i64::from(arch::active_mask())
}

#[unsafe(no_mangle)]
pub extern "C-unwind" fn __kmpc_syncwarp(mask: i64) {
    arch::sync_warp(mask as u32)
}

/// The non-aligned block barrier of the generic-mode worker protocol.
#[unsafe(no_mangle)]
#[inline(never)]
pub extern "C-unwind" fn __kmpc_barrier_simple_generic(_loc: IdentPtr, _gtid: i32) {
    sync::all_threads()
}

/// Cancellation is never activated on the device, so a cancellable barrier
/// is a barrier that reports "not cancelled".
#[unsafe(no_mangle)]
pub extern "C-unwind" fn __kmpc_cancel_barrier(_loc: IdentPtr, _gtid: i32) -> i32 {
    crate::tasks::detach::wait_all_if_used();
    sync::team_barrier();
    0
}
#[unsafe(no_mangle)]
pub extern "C-unwind" fn __kmpc_cancel(_loc: IdentPtr, _gtid: i32, _kind: i32) -> i32 {
    0
}
#[unsafe(no_mangle)]
pub extern "C-unwind" fn __kmpc_cancellationpoint(_loc: IdentPtr, _gtid: i32, _kind: i32) -> i32 {
    0
}

/// `#pragma omp error at(execution)`: severity 1 warns, 2 is fatal.
#[unsafe(no_mangle)]
pub unsafe extern "C-unwind" fn __kmpc_error(loc: IdentPtr, severity: i32, message: *const u8) {
    // SAFETY: clang passes the directive's location and message, constants.
    unsafe { crate::debug::user_error(loc, severity == 2, message) }
}

// `critical` locks the first word of clang's `[8 x i32]` name; clang calls
// these one lane at a time (docs/abi.md, "Synchronization").
#[unsafe(no_mangle)]
pub unsafe extern "C-unwind" fn __kmpc_critical(_loc: IdentPtr, _gtid: i32, name: CriticalNamePtr) {
    // SAFETY: clang's critical name, a live, aligned lock word.
    sync::set_lock(unsafe { sync::lock_word(name.cast()) })
}
/// Hints are performance advice; every hint gets the same lock.
#[unsafe(no_mangle)]
pub unsafe extern "C-unwind" fn __kmpc_critical_with_hint(_loc: IdentPtr, _gtid: i32, name: CriticalNamePtr, _hint: i32) {
    // SAFETY: clang's critical name, a live, aligned lock word.
    sync::set_lock(unsafe { sync::lock_word(name.cast()) })
}
#[unsafe(no_mangle)]
pub unsafe extern "C-unwind" fn __kmpc_end_critical(_loc: IdentPtr, _gtid: i32, name: CriticalNamePtr) {
    // SAFETY: clang's critical name, a live, aligned lock word.
    sync::unset_lock(unsafe { sync::lock_word(name.cast()) })
}

/// The team's thread 0 executes `single` (any one thread may).
#[unsafe(no_mangle)]
pub extern "C-unwind" fn __kmpc_single(_loc: IdentPtr, _gtid: i32) -> i32 {
    i32::from(mapping::omp_thread_num() == 0)
}
#[unsafe(no_mangle)]
pub extern "C-unwind" fn __kmpc_end_single(_loc: IdentPtr, _gtid: i32) {}

/// `ordered` inside a dispatched loop: waits for the iteration's turn.
#[unsafe(no_mangle)]
pub extern "C-unwind" fn __kmpc_ordered(_loc: IdentPtr, _gtid: i32) {
    crate::workshare::dispatch::ordered()
}
#[unsafe(no_mangle)]
pub extern "C-unwind" fn __kmpc_end_ordered(_loc: IdentPtr, _gtid: i32) {
    crate::workshare::dispatch::end_ordered()
}

/// `ordered(n)` loops: `dims` is clang's `kmp_dim[num_dims]`.
#[unsafe(no_mangle)]
pub unsafe extern "C-unwind" fn __kmpc_doacross_init(_loc: IdentPtr, _gtid: i32, num_dims: i32, dims: VoidPtr) {
    // SAFETY: clang passes its dimension array.
    unsafe { crate::workshare::doacross::init(num_dims, dims.cast()) }
}
#[unsafe(no_mangle)]
pub unsafe extern "C-unwind" fn __kmpc_doacross_post(_loc: IdentPtr, _gtid: i32, vec: *mut i64) {
    // SAFETY: clang passes one value per dimension.
    unsafe { crate::workshare::doacross::post(vec) }
}
#[unsafe(no_mangle)]
pub unsafe extern "C-unwind" fn __kmpc_doacross_wait(_loc: IdentPtr, _gtid: i32, vec: *mut i64) {
    // SAFETY: clang passes one value per dimension.
    unsafe { crate::workshare::doacross::wait(vec) }
}
#[unsafe(no_mangle)]
pub extern "C-unwind" fn __kmpc_doacross_fini(_loc: IdentPtr, _gtid: i32) {
    crate::workshare::doacross::fini()
}

// Left trapping on purpose: the contract has the other threads read the
// single thread's variables through its list, and clang keeps those variables
// in the single thread's local memory (registers or stack), which no other
// GPU thread can address: a version the host simulation accepts returns
// garbage on a GPU.
not_yet! {
    fn __kmpc_copyprivate(IdentPtr, i32, u64, VoidPtr, FnPtr, i32);
}
