//! Kernel entry and exit: `__kmpc_target_init` / `__kmpc_target_deinit`, and
//! the generic-mode worker state machine.
//!
//! Every thread of the block calls init.
//! * SPMD (also a generic kernel openmp-opt SPMDized): thread 0 initialises
//!   the team state, an aligned barrier publishes it, every thread returns -1.
//! * Generic: the main thread (first lane of the last warp) initialises the
//!   team state and returns -1 at once to run the sequential region. Threads
//!   below `ntid - 32` are workers: with `UseGenericStateMachine` they serve
//!   parallel regions in [`worker_state_machine`] until the main thread ends
//!   the kernel; without it they return their id to the compiler's own state
//!   machine. The other lanes of the main warp return their id and exit.
//!
//! Barrier hazard: workers wait in a block barrier (`barrier.sync 2`) that
//! the main thread joins from `__kmpc_parallel_60` or releases by exiting;
//! exited threads count as arrived, so no thread may wait for a thread that is
//! already gone.
#![allow(unsafe_code)]

use crate::{arch, mapping, parallel, state};
use omprt_abi::{ExecMode, KernelEnvironment, KernelLaunchEnvironment};

/// Returns -1 for threads that run the target region, else their thread id.
///
/// # Safety
/// `kernel_env` points to the kernel's environment as clang emits it;
/// `launch_env` is only stored, never dereferenced here (it is all-ones for
/// kernels without a teams reduction).
#[inline(always)]
pub unsafe fn target_init(kernel_env: *const KernelEnvironment, launch_env: *mut KernelLaunchEnvironment) -> i32 {
    // Read the fields straight from the constant clang emitted, so openmp-opt's
    // rewrites of it and constant propagation flow into this code.
    // SAFETY: the caller passes the kernel's own environment.
    let config = unsafe { (*kernel_env).configuration };
    // Only a teams reduction reads the launch environment, and the host
    // makes one only for a kernel whose environment declares a reduction: a
    // constant of the kernel. Elsewhere the team state's field is not
    // written. The write would stay in every kernel of a file that has one
    // teams reduction (the other kernel's read keeps the static), and
    // `ptxas -c` + nvlink then give each such kernel the file's whole block
    // of static shared memory, clang's 128-byte reduction scratch included
    // (lowering test kernels_without_a_teams_reduction_use_no_shared_memory).
    let launch_env = config.has_teams_reduction().then_some(launch_env);
    let tid = mapping::thread_id_in_block();
    if ExecMode::from_bits_retain(config.exec_mode).is_spmd() {
        if tid == 0 {
            state::init_team(kernel_env, launch_env, config.exec_mode, config.may_use_nested_parallelism);
        }
        arch::sync_threads_aligned();
        return -1;
    }
    let ntid = mapping::num_threads_in_block();
    if tid == mapping::main_thread_id_in_generic_mode() {
        state::init_team(kernel_env, launch_env, config.exec_mode, config.may_use_nested_parallelism);
        return -1;
    }
    if config.use_generic_state_machine != 0 && tid + arch::WARP_SIZE < ntid {
        worker_state_machine();
    }
    tid as i32
}

/// The runtime's own worker loop (ABI-CONTRACT.md 3.4): wait for the main
/// thread to publish a region, run it if this thread is part of its team,
/// meet the main thread again, repeat until it publishes "done" (null).
///
/// It calls the *exported* protocol functions on purpose. clang links only
/// the runtime functions a TU references (`-mlink-builtin-bitcode`), and
/// openmp-opt later inserts calls to `__kmpc_kernel_parallel` & co. when it
/// builds a state machine; a function missing from the TU then comes from
/// `libompdevice.a` at device link, with its *own* copy of the team state,
/// and the workers never see the main thread's regions. Referencing them
/// from here (every generic kernel reaches `__kmpc_target_init`) keeps them
/// in the TU, next to the one team state.
#[inline(never)]
pub fn worker_state_machine() {
    use crate::exports::{parallel as rt, sync as rt_sync};
    loop {
        rt_sync::__kmpc_barrier_simple_generic(core::ptr::null(), 0);
        let mut work: *mut core::ffi::c_void = core::ptr::null_mut();
        // SAFETY: `work` is a valid out-pointer.
        let active = unsafe { rt::__kmpc_kernel_parallel(&mut work) };
        if work.is_null() {
            return;
        }
        if active {
            // SAFETY: the main thread published clang's wrapper for this region.
            unsafe { parallel::invoke_wrapper(work, mapping::thread_id_in_block()) };
            rt::__kmpc_kernel_end_parallel();
        }
        rt_sync::__kmpc_barrier_simple_generic(core::ptr::null(), 0);
    }
}

/// Called by the threads that got -1 from [`target_init`] when the region ends.
pub fn target_deinit() {
    // The kernel's tasks complete before it ends.
    crate::detach::wait_all_if_used();
    // Inlined into each kernel, where openmp-opt folds the call: the mode in
    // the team state does not fold in a file with kernels of both modes.
    if crate::exports::kernel::__kmpc_is_spmd_exec_mode() != 0 {
        // Thread states may have been made by any thread: free them once all
        // threads are done with them. Not where no code can make them: where
        // nothing in the module (a file's in the default build, the device
        // image's with `-foffload-lto`) sets the flag, LLVM knows it unset,
        // and the kernel ends without this barrier. openmp-opt can then drop
        // the one that ends the last region too (`-foffload-lto`:
        // thread_ids.c l10 16 -> 12 registers, LLVM 19: 14). Elsewhere this
        // is unchanged: the flag's value is never read at run time.
        if !crate::config::assume_no_thread_state() && !arch::known_never_set(arch::per_thread_arrays_made()) {
            arch::sync_threads_aligned();
            if mapping::thread_id_in_block() == 0 {
                state::release_thread_states();
            }
        }
        return;
    }
    if mapping::is_generic_main_thread_reread() {
        // Workers wait at the top of their loop: nothing else reads the state.
        state::release_thread_states();
        state::update_team(|t| t.parallel_region_fn = core::ptr::null_mut());
        arch::fence_block();
    } else {
        // A thread of a compiler-built state machine: the null function
        // published by the main thread ends its loop.
        let mut work = core::ptr::null_mut();
        parallel::kernel_parallel(&mut work);
    }
}
