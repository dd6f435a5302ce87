//! The captured variables of a generic-mode parallel region, which the main
//! thread passes to its workers (`__kmpc_begin_sharing_variables` & co.):
//! the main thread's stack is private to it.
#![allow(unsafe_code)]

use super::heap_alloc;
use crate::arch;
use crate::execution::state;
use core::ffi::c_void;

arch::team_static! {
    static TEAM_ARG_SLOTS: ArgSlots = ArgSlots::new();
}

/// The team's shared-memory argument slots.
fn inline_arg_slots() -> *mut *mut c_void {
    TEAM_ARG_SLOTS.get().0.get().cast()
}

/// The slots through which a generic-mode region's main thread passes up to
/// `SHARED_ARG_SLOTS` captured variables; a static of its own, which SPMD
/// kernels do not reserve.
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
/// that the workers can read. The team records only a heap buffer (null: the
/// inline slots), so in a module without larger regions openmp-opt folds the
/// workers' look-up to the slots, and a kernel keeps only the slots it uses
/// (`no_kernel_costs_more_than_with_llvm19`).
pub fn begin_sharing_variables(n: u64) -> *mut *mut c_void {
    if n as usize <= state::SHARED_ARG_SLOTS {
        return inline_arg_slots();
    }
    let buffer = heap_alloc(n * 8, super::heap::exhausted::SHARING_VARIABLES).cast();
    state::update_team(|t| t.shared_args = buffer);
    buffer
}

/// Copies `n` captured variables into the buffer of `begin_sharing_variables`.
///
/// Into the inline slots one store per slot at a constant index, so that
/// openmp-opt forwards each value to the workers' loads and the slots fold
/// away, where a `memcpy` would hide the values
/// (`generic_region_arguments_reach_the_workers_without_the_slots`).
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
