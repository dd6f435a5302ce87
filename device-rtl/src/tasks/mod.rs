//! Explicit tasks (`task`, `taskloop`, `taskwait`, `taskgroup`): each runs
//! undeferred, at once and to its end, on the thread that encounters it.
//!
//! A GPU thread has nowhere to park a task and no idle thread to steal it,
//! so every task is an included task, run at its scheduling point as OpenMP
//! allows: dependences are met when a later task starts, `taskwait` and
//! `taskgroup` have nothing to wait for, and a `taskloop` is one task (as in
//! LLVM's DeviceRTL). The exception, a task that depends on a sibling whose
//! `detach` event is not fulfilled, is kept for later by [`detach`].
//!
//! An allocation is our [`Header`], clang's task (`KmpTask` or
//! `KmpTaskLoop`, then its private copies), and, 8-byte aligned, the
//! shared-variable pointers `shareds` points to. The header keeps what
//! [`end`] needs from [`begin`] (two entry points for an `if(0)` task).
#![allow(unsafe_code)]

pub mod detach;

use crate::execution::{mapping, state};
use crate::workshare::iv::runs_no_iteration;
use crate::{arch, memory};
use core::ffi::c_void;
use omprt_abi::task::{DESTRUCTORS_FLAG, KmpTask, LITER_AFTER_LB};

/// What a task's end restores: a task has its own data environment, and
/// `omp_set_num_threads` inside it must not leak to the code that created it.
#[repr(C)]
struct Header {
    /// The thread state current when the task began (null: none).
    mark: *mut state::ThreadState,
    /// The ICVs the task began with.
    icvs: SettableIcvs,
    /// The def-allocator-var it began with.
    def_allocator: u64,
    /// Whether the task runs where ICV changes go to the team state (the
    /// team's initial thread outside any region, `state::set_icv`).
    restore_team: bool,
    /// clang's `destructors` flag: the task's private copies need their
    /// destructors run, by the function in `data1`, when it ends.
    destructors: bool,
    /// The gtid the task runs with, passed to its entry and destructors.
    gtid: i32,
    /// The level of parallel regions the task runs at: a region inside the
    /// task runs implicit tasks ([`in_explicit_task`]).
    level: u32,
    /// The thread's task record before this task began (null: none), which
    /// its end puts back (`state::TASK_RECORDS`).
    outer: *mut c_void,
}

/// The ICVs the `omp_set_*` routines change, copied one by one: a copy of
/// the whole `Icvs` is a `memcpy`, after which the optimiser keeps the team
/// state as one block (`no_kernel_costs_more_than_with_llvm19`).
#[derive(Clone, Copy)]
struct SettableIcvs {
    nthreads: u32,
    max_active_levels: u32,
    run_sched: i32,
    run_sched_chunk: i32,
    dynamic: u32,
}

impl SettableIcvs {
    fn of(icvs: &state::Icvs) -> Self {
        SettableIcvs {
            nthreads: icvs.nthreads,
            max_active_levels: icvs.max_active_levels,
            run_sched: icvs.run_sched,
            run_sched_chunk: icvs.run_sched_chunk,
            dynamic: icvs.dynamic,
        }
    }

    fn restore(self, icvs: &mut state::Icvs) {
        icvs.nthreads = self.nthreads;
        icvs.max_active_levels = self.max_active_levels;
        icvs.run_sched = self.run_sched;
        icvs.run_sched_chunk = self.run_sched_chunk;
        icvs.dynamic = self.dynamic;
    }
}

/// A multiple of 16, so that clang's task keeps the 16-byte alignment of the
/// heap block (its private copies may need it).
const HEADER_BYTES: usize = core::mem::size_of::<Header>().next_multiple_of(16);

fn header(task: *mut c_void) -> *mut Header {
    task.cast::<u8>().wrapping_sub(HEADER_BYTES).cast()
}

/// `__kmpc_omp_task_alloc`: room for clang's task of `task_bytes` (its
/// private copies included) and `shareds_bytes` of shared-variable
/// pointers, with `shareds` and the entry filled in. Traps with a message
/// when the device heap is exhausted.
#[allow(clippy::not_unsafe_ptr_arg_deref, reason = "`entry` is stored in the task, not dereferenced")]
pub fn alloc(flags: i32, task_bytes: u64, shareds_bytes: u64, entry: *mut c_void) -> *mut c_void {
    let task_part = task_bytes.next_multiple_of(8);
    let block = task_block(HEADER_BYTES as u64 + task_part + shareds_bytes);
    let task = block.cast::<u8>().wrapping_add(HEADER_BYTES);
    let shareds = if shareds_bytes == 0 { core::ptr::null_mut() } else { task.wrapping_add(task_part as usize).cast() };
    // SAFETY: the block holds the header and clang's task, which starts with
    // a `KmpTask`; clang writes its other fields itself.
    unsafe {
        (&raw mut (*task.cast::<KmpTask>()).shareds).write(shareds);
        (&raw mut (*task.cast::<KmpTask>()).routine).write(entry);
        (&raw mut (*header(task.cast())).destructors).write(flags & DESTRUCTORS_FLAG != 0);
    }
    task.cast()
}

out_of_line_at_o0! {
/// The heap block of a task. Apart at -O0: the allocation inlined into
/// `__kmpc_omp_task_alloc` would give it more registers there than LLVM 19's
/// kernels with tasks take (`no_kernel_costs_more_than_with_llvm19_at_o0`).
fn task_block(bytes: u64) -> *mut c_void {
    memory::heap_alloc(bytes, memory::heap::exhausted::TASK)
}
}

out_of_line_at_o0! {
/// `__kmpc_omp_task_begin_if0`, and the start of every task: notes the data
/// environment to restore. Apart at -O0, as [`end`] is: with both inlined
/// into `__kmpc_omp_task`, ptxas -O0 gives that function a far larger frame.
///
/// # Safety
/// `task` came from [`alloc`] and has not begun.
pub unsafe fn begin(gtid: i32, task: *mut c_void) {
    let mark = state::current_thread_state();
    let (icvs, level) = if mark.is_null() {
        state::team(|t| (SettableIcvs::of(&t.icvs), t.icvs.level))
    } else {
        // SAFETY: the calling thread's state.
        unsafe { (SettableIcvs::of(&(*mark).icvs), (*mark).icvs.level) }
    };
    let restore_team = mark.is_null() && level == 0 && mapping::is_initial_thread();
    let h = header(task);
    // SAFETY: the header `alloc` reserved in front of the task; `mark` is
    // the calling thread's state, or null.
    unsafe {
        (&raw mut (*h).mark).write(mark);
        (&raw mut (*h).icvs).write(icvs);
        (&raw mut (*h).def_allocator).write(state::def_allocator_in(mark));
        (&raw mut (*h).restore_team).write(restore_team);
        (&raw mut (*h).gtid).write(gtid);
        (&raw mut (*h).level).write(level);
    }
    let slot = state::TASK_RECORDS.my_slot();
    // SAFETY: this thread's own slot; the header as above.
    unsafe {
        (&raw mut (*h).outer).write(*slot);
        *slot = h.cast();
    }
}
}

/// The calling thread's innermost task (its header), or null: the task it
/// runs, or the one a parallel region it runs is nested in.
fn innermost_task() -> *mut Header {
    if state::TASK_RECORDS.array_if_any().is_null() {
        return core::ptr::null_mut();
    }
    // SAFETY: this thread's own slot.
    unsafe { (*state::TASK_RECORDS.existing_slot()).cast() }
}

/// Whether `top` (from [`innermost_task`]) is the task the thread runs at
/// `level`, not one a region it runs is nested in.
fn runs_at(top: *mut Header, level: u32) -> bool {
    // SAFETY: the header of a task the thread runs.
    !top.is_null() && unsafe { (*top).level } == level
}

/// `omp_in_explicit_task`: whether the calling thread runs an explicit task
/// at its current level.
pub fn in_explicit_task() -> bool {
    let top = innermost_task();
    // The level is read only where there is a task to compare it with.
    !top.is_null() && runs_at(top, state::icvs().level)
}

/// The task whose children the calling thread creates now, for [`detach`]:
/// the explicit task it runs (its header's address), or else its implicit
/// task at the current level (an odd number above the enclosing explicit
/// task's 16-byte aligned header).
pub fn context_key() -> usize {
    let (top, level) = (innermost_task(), state::icvs().level);
    if runs_at(top, level) { top as usize } else { top as usize + 1 + 2 * (level as usize % 8) }
}

/// Runs the destructors of the task's private copies, if clang asked for
/// that. Not part of [`end`]: at -O0 clang's destructors (an indirect call,
/// which nvlink sizes as the deepest task entry) would stack that frame on
/// `end`'s (`no_kernel_costs_more_than_with_llvm19_at_o0`).
///
/// # Safety
/// `task` was begun with [`begin`] and is not ended.
#[inline(always)]
pub unsafe fn destroy_privates(task: *mut c_void) {
    let h = header(task);
    // SAFETY: written by `alloc` and `begin`; clang's destructors function,
    // `i32 (i32, kmp_task_t *)`, is in `data1` when the flag is set.
    unsafe {
        if (*h).destructors {
            let destroy: arch::TaskEntry = core::mem::transmute((&raw const (*task.cast::<KmpTask>()).data1).read());
            destroy((*h).gtid, task);
        }
    }
}

out_of_line_at_o0! {
/// The end of every task, after [`destroy_privates`]: restores the data
/// environment [`begin`] noted and frees the task.
///
/// # Safety
/// `task` was begun with [`begin`] by the calling thread and is not used
/// after.
pub unsafe fn end(task: *mut c_void) {
    // Each header field is read when needed, after the calls before it:
    // ptxas -O0 spills every value live across a call.
    let h = header(task);
    // SAFETY: written by `begin`; the task is alive until the end.
    unsafe {
        // States the task pushed (ICV changes, `parallel` inside it) go.
        state::drop_states_since((*h).mark);
        let mark = (*h).mark;
        if !mark.is_null() {
            // The calling thread's state, which outlives the task.
            (*h).icvs.restore(&mut (*mark).icvs);
            state::restore_def_allocator(mark, (*h).def_allocator);
        } else if (*h).restore_team {
            let icvs = (*h).icvs;
            state::update_team(|t| icvs.restore(&mut t.icvs));
            state::restore_def_allocator(mark, (*h).def_allocator);
        }
        *state::TASK_RECORDS.existing_slot() = (*h).outer;
        if let Some(detach) = detach::hooks() {
            (detach.task_ended)(h as usize);
        }
        // The block `alloc` made; the caller gives the task up.
        arch::free(h.cast());
    }
}
}

/// `__kmpc_omp_task` and `__kmpc_omp_task_with_deps`: runs the task now
/// (and `detach`'s waits a task they deferred).
///
/// # Safety
/// `task` came from [`alloc`] with clang's entry `i32 (i32, kmp_task_t *)`
/// and is not used after.
pub unsafe fn run(gtid: i32, task: *mut c_void) {
    // SAFETY: forwarded from the caller.
    unsafe {
        begin(gtid, task);
        // From the header, not kept across `begin`: at -O0 a value live
        // across a call costs this function stack.
        let gtid = (*header(task)).gtid;
        let entry: arch::TaskEntry = core::mem::transmute((&raw const (*task.cast::<KmpTask>()).routine).read());
        entry(gtid, task);
        destroy_privates(task);
        body_ended(task);
        end(task);
    }
}

/// Where a task's completion may wait for its event (`detach`).
#[inline(always)]
pub fn body_ended(task: *mut c_void) {
    if let Some(detach) = detach::hooks() {
        (detach.body_ended)(task);
    }
}

/// `__kmpc_taskloop`: the whole loop as one task, over the bounds `lb..=ub`
/// with step `st` that the compiler put in the task. An empty loop runs no
/// iteration, and its task only ends (destructors, then freed), as the host
/// runtime's.
///
/// clang puts normalised bounds (from 0, step 1) in its `kmp_task_t` and a
/// last-iteration flag after them, set here: the one task runs the last
/// iteration. The OpenMPIRBuilder (flang) puts the loop's own signed bounds
/// and step in the shared-variable block, with no flag (its task tests for
/// the last iteration): there a flag would overwrite the pointer after the
/// step, and an unsigned test would take `do i = -5, 5` for empty.
///
/// # Safety
/// As [`run`]; `lb` and `ub` point into `task` or its shared-variable block.
pub unsafe fn taskloop(gtid: i32, task: *mut c_void, lb: *mut u64, ub: *mut u64, st: i64) {
    // SAFETY: the compiler's fields of the task.
    unsafe {
        let shareds = (*task.cast::<KmpTask>()).shareds;
        // `alloc` puts the shared-variable block after the whole task.
        let in_shareds = !shareds.is_null() && lb.cast::<c_void>() >= shareds;
        let empty = if in_shareds { runs_no_iteration(*lb as i64, *ub as i64, st < 0) } else { *lb > *ub };
        if empty {
            begin(gtid, task);
            destroy_privates(task);
            end(task);
            return;
        }
        if !in_shareds {
            lb.cast::<u8>().add(LITER_AFTER_LB).cast::<i32>().write(1);
        }
        run(gtid, task);
    }
}
