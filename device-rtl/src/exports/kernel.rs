//! Kernel entry/exit and hardware queries.

use super::*;
use crate::{arch, kernel, mapping};
use omprt_abi::{KernelEnvironment, KernelLaunchEnvironment};

#[unsafe(no_mangle)]
pub unsafe extern "C-unwind" fn __kmpc_target_init(kernel_env: *const KernelEnvironment, launch_env: *mut KernelLaunchEnvironment) -> i32 {
    // SAFETY: clang passes the kernel's environment and its parameter 0.
    unsafe { kernel::target_init(kernel_env, launch_env) }
}

#[unsafe(no_mangle)]
pub extern "C-unwind" fn __kmpc_target_deinit() {
    kernel::target_deinit()
}

// openmp-opt folds or inserts calls to these; `inline(never)` keeps the call
// sites recognisable after the runtime is linked in (ABI-CONTRACT.md 8.6).
#[unsafe(no_mangle)]
#[inline(never)]
pub extern "C-unwind" fn __kmpc_get_hardware_thread_id_in_block() -> i32 {
    mapping::thread_id_in_block() as i32
}

#[unsafe(no_mangle)]
#[inline(never)]
pub extern "C-unwind" fn __kmpc_get_hardware_num_threads_in_block() -> i32 {
    arch::num_threads_in_block() as i32
}

#[unsafe(no_mangle)]
#[inline(never)]
pub extern "C-unwind" fn __kmpc_get_hardware_num_blocks() -> i32 {
    arch::num_blocks() as i32
}

#[unsafe(no_mangle)]
#[inline(never)]
pub extern "C-unwind" fn __kmpc_get_warp_size() -> i32 {
    arch::WARP_SIZE as i32
}

/// openmp-opt folds this per kernel where it can; clang inlines the calls it
/// leaves (`.omprt.always_inline_later`), since a kernel that makes any call
/// takes at least 24 registers (state_machines.c's SPMDized kernel with
/// `-foffload-lto`: 24 -> 10).
#[unsafe(no_mangle)]
#[inline(never)]
#[cfg_attr(target_arch = "nvptx64", unsafe(link_section = ".omprt.always_inline_later"))]
pub extern "C-unwind" fn __kmpc_is_spmd_exec_mode() -> i8 {
    i8::from(mapping::is_spmd_mode())
}

/// clang passes the result as `gtid` to later calls; upstream returns the
/// OpenMP thread number, and so does omprt.
#[unsafe(no_mangle)]
pub extern "C-unwind" fn __kmpc_global_thread_num(_loc: IdentPtr) -> i32 {
    mapping::omp_thread_num() as i32
}
