//! Explicit tasks: every task runs undeferred on the thread that creates it
//! (see [`crate::tasks`]), so the waits and groups have nothing to wait for,
//! unless the program uses `detach` (see [`crate::tasks::detach`]).

use super::*;
use crate::tasks::detach;
use crate::tasks;

#[unsafe(no_mangle)]
pub unsafe extern "C-unwind" fn __kmpc_omp_task_alloc(
    _loc: IdentPtr,
    _gtid: i32,
    flags: i32,
    task_bytes: u64,
    shareds_bytes: u64,
    entry: FnPtr,
) -> VoidPtr {
    tasks::alloc(flags, task_bytes, shareds_bytes, entry)
}

/// A task of a `target nowait` nested in device code: on the device, a task
/// like any other.
#[unsafe(no_mangle)]
pub unsafe extern "C-unwind" fn __kmpc_omp_target_task_alloc(
    _loc: IdentPtr,
    _gtid: i32,
    flags: i32,
    task_bytes: u64,
    shareds_bytes: u64,
    entry: FnPtr,
    _device: i64,
) -> VoidPtr {
    tasks::alloc(flags, task_bytes, shareds_bytes, entry)
}

/// Runs the task now; 0 is the host runtime's "not queued".
#[unsafe(no_mangle)]
pub unsafe extern "C-unwind" fn __kmpc_omp_task(_loc: IdentPtr, gtid: i32, new_task: VoidPtr) -> i32 {
    // SAFETY: clang passes the task it allocated with `__kmpc_omp_task_alloc`.
    unsafe { tasks::run(gtid, new_task) };
    0
}

/// Runs the task now: every task created before it has ended, so its
/// dependences are met; with `detach`, unless it waits for a sibling that
/// has not completed, in which case it runs at a later wait.
#[unsafe(no_mangle)]
pub unsafe extern "C-unwind" fn __kmpc_omp_task_with_deps(
    _loc: IdentPtr,
    gtid: i32,
    new_task: VoidPtr,
    ndeps: i32,
    deps: VoidPtr,
    _ndeps_noalias: i32,
    _deps_noalias: VoidPtr,
) -> i32 {
    if let Some(detach) = detach::hooks() {
        // SAFETY: clang passes `ndeps` entries of `kmp_depend_info`.
        if unsafe { (detach.defer_if_blocked)(gtid, new_task, ndeps, deps) } {
            return 0;
        }
    }
    // SAFETY: as for `__kmpc_omp_task`.
    unsafe { tasks::run(gtid, new_task) };
    0
}

/// An `if(0)` task: clang calls its entry itself between this and
/// `__kmpc_omp_task_complete_if0`.
#[unsafe(no_mangle)]
pub unsafe extern "C-unwind" fn __kmpc_omp_task_begin_if0(_loc: IdentPtr, gtid: i32, new_task: VoidPtr) {
    // SAFETY: as for `__kmpc_omp_task`.
    unsafe { tasks::begin(gtid, new_task) }
}

#[unsafe(no_mangle)]
pub unsafe extern "C-unwind" fn __kmpc_omp_task_complete_if0(_loc: IdentPtr, _gtid: i32, new_task: VoidPtr) {
    // SAFETY: the task `__kmpc_omp_task_begin_if0` began on this thread.
    unsafe {
        tasks::destroy_privates(new_task);
        tasks::body_ended(new_task);
        tasks::end(new_task);
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "C-unwind" fn __kmpc_taskloop(
    _loc: IdentPtr,
    gtid: i32,
    new_task: VoidPtr,
    _if_val: i32,
    lb: *mut i64,
    ub: *mut i64,
    st: i64,
    _nogroup: i32,
    _sched: i32,
    _grainsize: i64,
    _task_dup: VoidPtr,
) {
    // SAFETY: the compiler passes its task and the bounds inside it.
    unsafe { tasks::taskloop(gtid, new_task, lb.cast(), ub.cast(), st) }
}

/// `__kmpc_taskloop` with the `strict` modifier of `grainsize`/`num_tasks`.
#[unsafe(no_mangle)]
pub unsafe extern "C-unwind" fn __kmpc_taskloop_5(
    _loc: IdentPtr,
    gtid: i32,
    new_task: VoidPtr,
    _if_val: i32,
    lb: *mut i64,
    ub: *mut i64,
    st: i64,
    _nogroup: i32,
    _sched: i32,
    _grainsize: i64,
    _modifier: i32,
    _task_dup: VoidPtr,
) {
    // SAFETY: as for `__kmpc_taskloop`.
    unsafe { tasks::taskloop(gtid, new_task, lb.cast(), ub.cast(), st) }
}

/// `taskwait`: the thread's child tasks ran when they were created; with
/// `detach`, runs the deferred ones and waits for their events.
#[unsafe(no_mangle)]
pub unsafe extern "C-unwind" fn __kmpc_omp_taskwait(_loc: IdentPtr, _gtid: i32) -> i32 {
    if let Some(detach) = detach::hooks() {
        (detach.wait_children)();
    }
    0
}

/// `taskwait depend(...)`: as `taskwait`, for the children it depends on.
/// With `nowait`, an empty task with those dependences.
#[unsafe(no_mangle)]
pub unsafe extern "C-unwind" fn __kmpc_omp_taskwait_deps_51(
    _loc: IdentPtr,
    _gtid: i32,
    ndeps: i32,
    deps: VoidPtr,
    _ndeps_noalias: i32,
    _deps_noalias: VoidPtr,
    has_no_wait: i32,
) {
    if let Some(detach) = detach::hooks() {
        // SAFETY: clang passes `ndeps` entries of `kmp_depend_info`.
        unsafe {
            if has_no_wait != 0 { (detach.empty_task_with_deps)(ndeps, deps) } else { (detach.wait_dependences)(ndeps, deps, false) }
        }
    }
}

/// The dependences of an `if(0)` task: met, as for every task; with
/// `detach`, waited for.
#[unsafe(no_mangle)]
pub unsafe extern "C-unwind" fn __kmpc_omp_wait_deps(
    _loc: IdentPtr,
    _gtid: i32,
    ndeps: i32,
    deps: VoidPtr,
    _ndeps_noalias: i32,
    _deps_noalias: VoidPtr,
) {
    if let Some(detach) = detach::hooks() {
        // SAFETY: clang passes `ndeps` entries of `kmp_depend_info`.
        unsafe { (detach.wait_dependences)(ndeps, deps, true) }
    }
}

/// `detach(event)`: the task completes when `omp_fulfill_event` is called
/// with the handle returned here, once its body has ended.
#[unsafe(no_mangle)]
pub unsafe extern "C-unwind" fn __kmpc_task_allow_completion_event(_loc: IdentPtr, _gtid: i32, task: VoidPtr) -> VoidPtr {
    detach::allow_completion_event(task)
}

/// Fulfils the event of a task with `detach` (from any thread of the device).
#[unsafe(no_mangle)]
pub unsafe extern "C-unwind" fn omp_fulfill_event(event: u64) {
    detach::fulfill(event as usize as VoidPtr)
}

/// `taskyield`: no other task is waiting to run, but for a child `detach`
/// kept, which runs here once its dependences are met.
#[unsafe(no_mangle)]
pub unsafe extern "C-unwind" fn __kmpc_omp_taskyield(_loc: IdentPtr, _gtid: i32, _end_part: i32) -> i32 {
    if let Some(detach) = detach::hooks() {
        (detach.yield_to_a_child)();
    }
    0
}

/// `affinity` is a hint; the task runs where it is created.
#[unsafe(no_mangle)]
pub unsafe extern "C-unwind" fn __kmpc_omp_reg_task_with_affinity(
    _loc: IdentPtr,
    _gtid: i32,
    _new_task: VoidPtr,
    _naffins: i32,
    _affin_list: VoidPtr,
) -> i32 {
    0
}

#[unsafe(no_mangle)]
pub unsafe extern "C-unwind" fn __kmpc_taskgroup(_loc: IdentPtr, _gtid: i32) {
    if let Some(detach) = detach::hooks() {
        (detach.begin_taskgroup)();
    }
}

/// End of a `taskgroup`: its tasks, and theirs, have ended; with `detach`,
/// waited for.
#[unsafe(no_mangle)]
pub unsafe extern "C-unwind" fn __kmpc_end_taskgroup(_loc: IdentPtr, _gtid: i32) {
    if let Some(detach) = detach::hooks() {
        (detach.end_taskgroup)();
    }
}

/// `taskgroup task_reduction(...)` (and `taskloop reduction(...)`): the
/// group's tasks run one after another on this thread, so each can update
/// the list item itself. The handle is only passed back to
/// `__kmpc_task_reduction_get_th_data`.
#[unsafe(no_mangle)]
pub unsafe extern "C-unwind" fn __kmpc_taskred_init(_gtid: i32, _num: i32, data: VoidPtr) -> VoidPtr {
    data
}

/// The older form of `__kmpc_taskred_init`.
#[unsafe(no_mangle)]
pub unsafe extern "C-unwind" fn __kmpc_task_reduction_init(_gtid: i32, _num: i32, data: VoidPtr) -> VoidPtr {
    data
}

/// `reduction(task, ...)` on a `parallel`, worksharing or `scope` construct:
/// each thread of the region passes its own copy of the list items, which its
/// tasks update where they run, on this thread, one after another; the
/// region's reduction then combines the copies. So the items stay the copies
/// the tasks update, and the handle is only passed back to
/// `__kmpc_task_reduction_get_th_data`.
#[unsafe(no_mangle)]
pub unsafe extern "C-unwind" fn __kmpc_taskred_modifier_init(_loc: IdentPtr, _gtid: i32, _is_ws: i32, _num: i32, data: VoidPtr) -> VoidPtr {
    data
}

/// The older form of `__kmpc_taskred_modifier_init`.
#[unsafe(no_mangle)]
pub unsafe extern "C-unwind" fn __kmpc_task_reduction_modifier_init(_loc: VoidPtr, _gtid: i32, _is_ws: i32, _num: i32, data: VoidPtr) -> VoidPtr {
    data
}

/// End of a `reduction(task, ...)` region's task reduction: its tasks have
/// ended, and updated the thread's copy (see `__kmpc_taskred_modifier_init`).
#[unsafe(no_mangle)]
pub unsafe extern "C-unwind" fn __kmpc_task_reduction_modifier_fini(_loc: IdentPtr, _gtid: i32, _is_ws: i32) {}

/// The copy of a reduction's list item a task (`in_reduction`) updates: the
/// item itself (see `__kmpc_taskred_init`).
#[unsafe(no_mangle)]
pub unsafe extern "C-unwind" fn __kmpc_task_reduction_get_th_data(_gtid: i32, _tg: VoidPtr, item: VoidPtr) -> VoidPtr {
    item
}
