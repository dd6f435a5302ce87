//! Memory: the device heap as the runtime uses it ([`heap`]), the blocks
//! teams give back ([`deferred_free`]), the team's shared-memory stack of
//! `__kmpc_alloc_shared` ([`shared_stack`]), the captured variables of
//! generic-mode regions ([`sharing`]), the OpenMP allocators
//! ([`allocator`]), and the launch's dynamic shared memory.

use crate::arch;
use core::ffi::c_void;

pub mod allocator;
pub mod deferred_free;
pub mod heap;
pub mod shared_stack;
pub mod sharing;

pub use heap::{heap_alloc, heap_alloc_after_reclaim, heap_alloc_reclaiming_through_slot};
pub use shared_stack::{alloc_shared, free_shared};
pub use sharing::{begin_sharing_variables, end_sharing_variables, end_sharing_variables_of, share_variables, shared_variables};

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
