//! Parallel regions and the generic-mode worker protocol.

use super::*;
use super::kernel::kernel_is_spmd;
use crate::execution::{parallel, state};
use crate::memory;

// `alwaysinline` for clang, whose always-inliner runs after openmp-opt has
// seen the call (`entry_points_meant_for_inlining_are_always_inlined`); see
// `parallel::microtask_arities` for what that buys.
#[unsafe(no_mangle)]
#[allow(unused_attributes)]
#[inline(always)]
pub unsafe extern "C-unwind" fn __kmpc_parallel_60(
    _loc: IdentPtr,
    _gtid: i32,
    if_expr: i32,
    num_threads: i32,
    _proc_bind: i32,
    outlined: FnPtr,
    wrapper: FnPtr,
    args: *mut VoidPtr,
    nargs: i64,
    _strict: i32,
) {
    // SAFETY: clang passes its outlined region and `nargs` captured pointers.
    unsafe { parallel::parallel_60(if_expr, num_threads, outlined, wrapper, args, nargs, kernel_is_spmd) }
}

/// The 9-parameter predecessor, for objects built by clang <= 21.
#[unsafe(no_mangle)]
#[allow(unused_attributes)]
#[inline(always)]
pub unsafe extern "C-unwind" fn __kmpc_parallel_51(
    _loc: IdentPtr,
    _gtid: i32,
    if_expr: i32,
    num_threads: i32,
    _proc_bind: i32,
    outlined: FnPtr,
    wrapper: FnPtr,
    args: *mut VoidPtr,
    nargs: i64,
) {
    // SAFETY: as above.
    unsafe { parallel::parallel_60(if_expr, num_threads, outlined, wrapper, args, nargs, kernel_is_spmd) }
}

#[unsafe(no_mangle)]
pub extern "C-unwind" fn __kmpc_parallel_level(_loc: IdentPtr, _gtid: i32) -> i16 {
    state::icvs().level as i16
}

// The worker protocol; `inline(never)` so openmp-opt recognises the calls
// in the state machines it builds (docs/abi.md, "Generic-mode workers" and
// "openmp-opt").
#[unsafe(no_mangle)]
#[inline(never)]
pub unsafe extern "C-unwind" fn __kmpc_kernel_parallel(work: *mut FnPtr) -> bool {
    // SAFETY: clang passes a pointer to its work-function variable.
    parallel::kernel_parallel(unsafe { &mut *work })
}

#[unsafe(no_mangle)]
#[inline(never)]
pub extern "C-unwind" fn __kmpc_kernel_end_parallel() {
    parallel::kernel_end_parallel()
}

#[unsafe(no_mangle)]
pub extern "C-unwind" fn __kmpc_serialized_parallel(_loc: IdentPtr, _gtid: i32) {
    let pushed = state::enter_data_environment();
    // SAFETY: the state this thread just pushed.
    unsafe { (*pushed).icvs.level += 1 };
}

#[unsafe(no_mangle)]
pub extern "C-unwind" fn __kmpc_end_serialized_parallel(_loc: IdentPtr, _gtid: i32) {
    state::exit_data_environment();
}

#[unsafe(no_mangle)]
pub unsafe extern "C-unwind" fn __kmpc_begin_sharing_variables(out: *mut *mut VoidPtr, n: u64) {
    // SAFETY: clang passes a pointer to its argument-array variable.
    unsafe { *out = memory::begin_sharing_variables(n) }
}

#[unsafe(no_mangle)]
pub extern "C-unwind" fn __kmpc_end_sharing_variables() {
    memory::end_sharing_variables()
}

#[unsafe(no_mangle)]
pub unsafe extern "C-unwind" fn __kmpc_get_shared_variables(out: *mut *mut VoidPtr) {
    // SAFETY: clang passes a pointer to its argument-array variable.
    unsafe { *out = memory::shared_variables() }
}

not_yet! {
    fn __kmpc_kernel_prepare_parallel(VoidPtr);
    fn __kmpc_push_num_threads(IdentPtr, i32, i32);
    fn __kmpc_push_num_threads_strict(IdentPtr, i32, i32, i32, *const u8);
    fn __kmpc_push_proc_bind(IdentPtr, i32, i32);
    fn __kmpc_push_num_teams(IdentPtr, i32, i32, i32);
    fn __kmpc_push_num_teams_51(IdentPtr, i32, i32, i32, i32);
    fn __kmpc_set_thread_limit(IdentPtr, i32, i32);
    fn __kmpc_fork_call_if(IdentPtr, i32, FnPtr, i32, VoidPtr);
}

/// Host-runtime entry; never emitted for a device. Variadic in OMPKinds.def.
#[unsafe(no_mangle)]
#[cold]
pub unsafe extern "C-unwind" fn __kmpc_fork_call(_loc: IdentPtr, _gtid: i32, _microtask: FnPtr, _args: ...) {
    crate::debug::fatal(crate::debug::message!("not implemented yet: __kmpc_fork_call"))
}

/// Host-runtime entry; never emitted for a device. Variadic in OMPKinds.def.
#[unsafe(no_mangle)]
#[cold]
pub unsafe extern "C-unwind" fn __kmpc_fork_teams(_loc: IdentPtr, _gtid: i32, _microtask: FnPtr, _args: ...) {
    crate::debug::fatal(crate::debug::message!("not implemented yet: __kmpc_fork_teams"))
}
