//! Kernel entry and exit: `__kmpc_target_init` / `__kmpc_target_deinit`, and
//! the generic-mode worker state machine.
//!
//! Every thread of the block calls init.
//! * SPMD (also a kernel openmp-opt SPMDized): thread 0 initialises the team
//!   state, an aligned barrier publishes it, every thread returns -1.
//! * Generic: the main thread (first lane of the last warp) initialises the
//!   team state and returns -1 at once to run the sequential region. Threads
//!   below `ntid - 32` are workers: with `UseGenericStateMachine` they serve
//!   parallel regions in the runtime's worker loop until the kernel ends;
//!   without it they return their id to the compiler's state machine. The
//!   other lanes of the main warp return their id and exit.
//!
//! Workers wait in a block barrier (`barrier.sync 2`) that the main thread
//! joins from `__kmpc_parallel_60` or releases by exiting: exited threads
//! count as arrived, so no thread may wait for one that is gone.
#![allow(unsafe_code)]

use crate::execution::{mapping, parallel, state};
use crate::{arch, debug};
use omprt_abi::{ExecMode, KernelEnvironment, KernelLaunchEnvironment};

/// Returns -1 for threads that run the target region, else their thread id.
/// A generic-mode worker first serves parallel regions in `worker_loop` (the
/// C ABI's, which calls the exported protocol functions) when the kernel
/// asks for the runtime's state machine.
///
/// # Safety
/// `kernel_env` points to the kernel's environment as clang emits it;
/// `launch_env` is only stored, never dereferenced here (it is all-ones for
/// kernels without a teams reduction).
#[inline(always)]
pub unsafe fn target_init(kernel_env: *const KernelEnvironment, launch_env: *mut KernelLaunchEnvironment, worker_loop: impl FnOnce()) -> i32 {
    // From clang's constant itself, so openmp-opt's rewrites of it flow in.
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
            // SAFETY: as above.
            debug::note_kernel_source(unsafe { (*kernel_env).ident });
        }
        arch::sync_threads_aligned();
        return -1;
    }
    let ntid = mapping::num_threads_in_block();
    if tid == mapping::main_thread_id_in_generic_mode() {
        state::init_team(kernel_env, launch_env, config.exec_mode, config.may_use_nested_parallelism);
        // SAFETY: as above.
        debug::note_kernel_source(unsafe { (*kernel_env).ident });
        return -1;
    }
    if config.use_generic_state_machine != 0 && tid + arch::WARP_SIZE < ntid {
        worker_loop();
    }
    tid as i32
}

/// Called by the threads that got -1 from [`target_init`] when the region
/// ends. `kernel_is_spmd` is the C ABI's `__kmpc_is_spmd_exec_mode`, whose
/// calls openmp-opt folds per kernel.
pub fn target_deinit(kernel_is_spmd: impl FnOnce() -> bool) {
    // The kernel's tasks complete before it ends.
    crate::tasks::detach::wait_all_if_used();
    // Folded per kernel, where the team state's mode does not fold in a file
    // with kernels of both modes.
    if kernel_is_spmd() {
        // Thread states may have been made by any thread: free them once all
        // threads are done with them. Where nothing in the module (a file in
        // the default build, the device image with `-foffload-lto`) sets the
        // flag, LLVM knows it unset and the kernel ends without this barrier,
        // and openmp-opt can drop the one that ends the last region too
        // (`lto_kernels_end_without_a_barrier_where_no_per_thread_array_is_made`).
        // The flag is never read at run time.
        if !crate::config::assume_no_thread_state() && !arch::known_never_set(state::PER_THREAD_ARRAYS_MADE.get()) {
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
