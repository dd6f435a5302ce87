//! clang 22's explicit-task descriptor `kmp_task_t`, which its `task` and
//! `taskloop` lowering allocates with `__kmpc_omp_task_alloc` and fills in.
//! The task's private copies follow it, in a struct of clang's own.

use core::ffi::c_void;
use core::mem::offset_of;
use static_assertions::{assert_eq_size, const_assert_eq};

/// `kmp_task_t` of a `task`.
#[repr(C)]
pub struct KmpTask {
    /// The block of pointers to the task's shared variables (null without any).
    pub shareds: *mut c_void,
    /// The task's entry, `i32 (i32 gtid, kmp_task_t *)`.
    pub routine: *mut c_void,
    pub part_id: i32,
    /// `kmp_cmplrdata_t`: the destructors' function when [`DESTRUCTORS_FLAG`]
    /// is set, else the priority.
    pub data1: *mut c_void,
    /// `kmp_cmplrdata_t`: the priority.
    pub data2: *mut c_void,
}

/// `kmp_task_t` of a `taskloop`: the normalised bounds of the iterations the
/// task runs, and the flag that it runs the last one (for `lastprivate`).
#[repr(C)]
pub struct KmpTaskLoop {
    pub task: KmpTask,
    pub lb: u64,
    pub ub: u64,
    pub st: i64,
    pub liter: i32,
    pub reductions: *mut c_void,
}

/// The task flag saying `data1` holds the function that destroys the task's
/// private copies (libomp's `destructors_thunk`).
pub const DESTRUCTORS_FLAG: i32 = 0x8;

/// Bytes from a taskloop's lower bound (the pointer `__kmpc_taskloop` gets)
/// to its last-iteration flag.
pub const LITER_AFTER_LB: usize = offset_of!(KmpTaskLoop, liter) - offset_of!(KmpTaskLoop, lb);

assert_eq_size!(KmpTask, [u8; 40]);
assert_eq_size!(KmpTaskLoop, [u8; 80]);
const_assert_eq!(offset_of!(KmpTask, data1), 24);
const_assert_eq!(LITER_AFTER_LB, 24);
