//! Kernel entry/exit and hardware queries.

use super::*;
use crate::execution::{kernel, mapping, parallel};
use crate::arch;
use omprt_abi::{KernelEnvironment, KernelLaunchEnvironment};

#[unsafe(no_mangle)]
pub unsafe extern "C-unwind" fn __kmpc_target_init(kernel_env: *const KernelEnvironment, launch_env: *mut KernelLaunchEnvironment) -> i32 {
    // SAFETY: clang passes the kernel's environment and its parameter 0.
    unsafe { kernel::target_init(kernel_env, launch_env, worker_state_machine) }
}

#[unsafe(no_mangle)]
pub extern "C-unwind" fn __kmpc_target_deinit() {
    kernel::target_deinit(kernel_is_spmd)
}

/// The runtime's own worker loop (docs/abi.md, "Generic-mode workers"): wait for the main thread to publish a region, run it if this
/// thread is part of its team, meet the main thread again, repeat until it
/// publishes "done" (null).
///
/// It lives at the C ABI edge because it calls the *exported* protocol
/// functions. clang links only the runtime functions a TU references
/// (`-mlink-builtin-bitcode`), and openmp-opt later inserts calls to
/// `__kmpc_kernel_parallel` & co. when it builds a state machine; a function
/// missing from the TU then comes from `libompdevice.a` at device link, with
/// its *own* copy of the team state, and the workers never see the main
/// thread's regions. Referencing them from here (every generic kernel reaches
/// `__kmpc_target_init`) keeps them in the TU, next to the one team state.
#[inline(never)]
fn worker_state_machine() {
    loop {
        super::sync::__kmpc_barrier_simple_generic(core::ptr::null(), 0);
        let mut work: *mut core::ffi::c_void = core::ptr::null_mut();
        // SAFETY: `work` is a valid out-pointer.
        let active = unsafe { super::parallel::__kmpc_kernel_parallel(&mut work) };
        if work.is_null() {
            return;
        }
        if active {
            // SAFETY: the main thread published clang's wrapper for this region.
            unsafe { parallel::invoke_wrapper(work, mapping::thread_id_in_block()) };
            super::parallel::__kmpc_kernel_end_parallel();
        }
        super::sync::__kmpc_barrier_simple_generic(core::ptr::null(), 0);
    }
}

/// What the runtime's logic asks for the kernel's mode where openmp-opt must
/// fold the answer per kernel: a call of the exported
/// `__kmpc_is_spmd_exec_mode`, the symbol openmp-opt recognises.
#[inline(always)]
pub(super) fn kernel_is_spmd() -> bool {
    __kmpc_is_spmd_exec_mode() != 0
}

// openmp-opt folds or inserts calls to these; `inline(never)` keeps the call
// sites recognisable after the runtime is linked in (docs/abi.md,
// "openmp-opt").
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
/// leaves (`.omprt.always_inline_later`): a kernel that makes any call takes
/// the registers of the calling convention
/// (`lto_link_inlines_the_mode_query_it_cannot_fold`).
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
