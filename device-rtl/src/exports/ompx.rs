//! The `ompx_*` extensions `ompx.h` declares for bare kernels
//! (`#pragma omp target teams ompx_bare`): CUDA-style grid queries, block
//! barriers, and warp votes and shuffles. They read hardware state only, so
//! they are valid in kernels the runtime never initialised.

use super::*;
use crate::arch;

#[unsafe(no_mangle)]
pub extern "C-unwind" fn ompx_thread_id(dim: i32) -> i32 {
    arch::thread_id_dim(dim as u32) as i32
}
#[unsafe(no_mangle)]
pub extern "C-unwind" fn ompx_block_dim(dim: i32) -> i32 {
    arch::block_dim(dim as u32) as i32
}
#[unsafe(no_mangle)]
pub extern "C-unwind" fn ompx_block_id(dim: i32) -> i32 {
    arch::block_id_dim(dim as u32) as i32
}
#[unsafe(no_mangle)]
pub extern "C-unwind" fn ompx_grid_dim(dim: i32) -> i32 {
    arch::grid_dim(dim as u32) as i32
}

/// `__syncthreads()`: every thread of the block, converged. A block barrier
/// orders the block's memory accesses for any `ordering` argument.
#[unsafe(no_mangle)]
pub extern "C-unwind" fn ompx_sync_block(_ordering: i32) {
    arch::fence_block();
    arch::sync_threads_aligned()
}
#[unsafe(no_mangle)]
pub extern "C-unwind" fn ompx_sync_block_acq_rel() {
    ompx_sync_block(0)
}
/// A block barrier reached from divergent code (no convergence assumed).
#[unsafe(no_mangle)]
pub extern "C-unwind" fn ompx_sync_block_divergent(_ordering: i32) {
    arch::fence_block();
    arch::sync_threads_unaligned(0)
}

#[unsafe(no_mangle)]
pub extern "C-unwind" fn ompx_ballot_sync(mask: u64, pred: i32) -> u64 {
    u64::from(arch::ballot(mask as u32, pred != 0))
}

#[unsafe(no_mangle)]
pub extern "C-unwind" fn ompx_shfl_down_sync_i(mask: u64, var: i32, delta: u32, width: i32) -> i32 {
    arch::shuffle_down_u32(mask as u32, var as u32, delta, width as u32) as i32
}
#[unsafe(no_mangle)]
pub extern "C-unwind" fn ompx_shfl_down_sync_f(mask: u64, var: f32, delta: u32, width: i32) -> f32 {
    f32::from_bits(arch::shuffle_down_u32(mask as u32, var.to_bits(), delta, width as u32))
}
#[unsafe(no_mangle)]
pub extern "C-unwind" fn ompx_shfl_down_sync_l(mask: u64, var: i64, delta: u32, width: i32) -> i64 {
    arch::shuffle_down_u64(mask as u32, var as u64, delta, width as u32) as i64
}
#[unsafe(no_mangle)]
pub extern "C-unwind" fn ompx_shfl_down_sync_d(mask: u64, var: f64, delta: u32, width: i32) -> f64 {
    f64::from_bits(arch::shuffle_down_u64(mask as u32, var.to_bits(), delta, width as u32))
}

/// The block's dynamic shared memory (`omp.h`); null without any.
#[unsafe(no_mangle)]
pub extern "C-unwind" fn llvm_omp_target_dynamic_shared_alloc() -> VoidPtr {
    crate::memory::dynamic_shared()
}
/// Older name of [`llvm_omp_target_dynamic_shared_alloc`].
#[unsafe(no_mangle)]
pub extern "C-unwind" fn llvm_omp_get_dynamic_shared() -> VoidPtr {
    crate::memory::dynamic_shared()
}
/// Older name of [`llvm_omp_target_dynamic_shared_alloc`].
#[unsafe(no_mangle)]
pub extern "C-unwind" fn __kmpc_get_dynamic_shared() -> VoidPtr {
    crate::memory::dynamic_shared()
}
