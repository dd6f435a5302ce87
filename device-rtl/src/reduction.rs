//! Reductions. clang generates the callbacks that move and combine the
//! reduction variables (ABI-CONTRACT.md 5.3–5.5); the runtime decides who
//! combines with whom and returns 1 in exactly the thread whose copy then
//! holds the result (clang combines it into the original variable, without
//! atomics).
//!
//! * Parallel reduction: a shuffle tree within each warp (algorithm 0 for
//!   full warps, 1 for the contiguous partial last warp of an SPMD team),
//!   then warp results gathered into warp 0 by clang's inter-warp copy and
//!   reduced there. Thread 0 of the team returns 1.
//! * Teams reduction: each team's master writes its value into record
//!   `team % records` of the launch-environment buffer (copy in the first
//!   window, combine in later ones), counts itself in with a wrapping atomic
//!   increment, and the master of the last team to arrive folds all records
//!   into its copy and returns 1. Teams beyond the buffer's records wait for
//!   the window to advance.
#![allow(unsafe_code)]

use crate::{arch, mapping, state};
use core::ffi::c_void;
use core::sync::atomic::{AtomicU32, Ordering};
use omprt_abi::reduction::{InterWarpCopyFn, ListGlobalFn, ShuffleReduceFn};

const WARP: u32 = arch::WARP_SIZE;

/// Algorithm 0: all 32 lanes take part; lane 0 ends with the warp's value.
unsafe fn full_warp_reduce(data: *mut c_void, shuffle: ShuffleReduceFn) {
    let mut offset = WARP / 2;
    while offset > 0 {
        // SAFETY: clang's callback over clang's reduce list.
        unsafe { shuffle(data, 0, offset as i16, 0) };
        offset /= 2;
    }
}

/// Algorithm 1: the first `size` lanes (logical ids `lane`); lane 0 ends with
/// their value. Each step halves the active range, rounding up.
unsafe fn partial_warp_reduce(data: *mut c_void, shuffle: ShuffleReduceFn, size: u32, lane: u32) {
    let mut size = size;
    while size > 1 {
        let offset = size / 2;
        // SAFETY: as above.
        unsafe { shuffle(data, lane as i16, offset as i16, 1) };
        size = size.div_ceil(2);
    }
}

/// `__kmpc_nvptx_parallel_reduce_nowait_v2`.
///
/// # Safety
/// `data` is clang's reduce list; the callbacks are clang's for it.
pub unsafe fn parallel_reduce(data: *mut c_void, shuffle: ShuffleReduceFn, copy: InterWarpCopyFn) -> i32 {
    let n = mapping::omp_num_threads();
    if n == 1 {
        return 1;
    }
    // The team's threads are hardware ids 0..n (SPMD, and generic workers).
    let tid = mapping::thread_id_in_block();
    let warps = n.div_ceil(WARP);
    let warp = tid / WARP;
    // SAFETY: forwarded from the caller.
    unsafe {
        if n % WARP == 0 || warp + 1 < warps {
            full_warp_reduce(data, shuffle);
        } else {
            partial_warp_reduce(data, shuffle, n % WARP, tid % WARP);
        }
        if n > WARP {
            copy(data, warps as i32);
            if warp == 0 {
                partial_warp_reduce(data, shuffle, warps, tid);
            }
        }
    }
    i32::from(tid == 0)
}

/// CUDA's `atomicInc`: returns the old value, stores `old >= limit ? 0 : old + 1`.
fn atomic_inc_wrapping(counter: &AtomicU32, limit: u32) -> u32 {
    let mut old = counter.load(Ordering::Relaxed);
    loop {
        let new = if old >= limit { 0 } else { old + 1 };
        match counter.compare_exchange_weak(old, new, Ordering::SeqCst, Ordering::Relaxed) {
            Ok(v) => return v,
            Err(v) => old = v,
        }
    }
}

/// `__kmpc_nvptx_teams_reduce_nowait_v2`.
///
/// # Safety
/// `buffer` is the fixed buffer of `records` records; the callbacks are
/// clang's for `data`; the kernel has a launch environment.
#[allow(clippy::too_many_arguments)]
pub unsafe fn teams_reduce(
    buffer: *mut c_void,
    records: u32,
    data: *mut c_void,
    list_to_global_copy: ListGlobalFn,
    list_to_global_reduce: ListGlobalFn,
    global_to_list_copy: ListGlobalFn,
    global_to_list_reduce: ListGlobalFn,
) -> i32 {
    // Only the team's master takes part: thread 0 in SPMD mode, the main
    // thread in generic mode (whose workers wait in the state machine).
    if !mapping::is_initial_thread() || mapping::omp_thread_num() != 0 {
        return 0;
    }
    let launch_env = state::team(|t| t.launch_env);
    // SAFETY: kernels with a teams reduction get a launch environment.
    let (count, window) = unsafe {
        (AtomicU32::from_ptr(&raw mut (*launch_env).reduction_cnt), AtomicU32::from_ptr(&raw mut (*launch_env).reduction_iter_cnt))
    };
    let team = mapping::block_id();
    let teams = mapping::num_blocks();
    // Wait until this team's record is in the open window.
    let base = loop {
        let base = window.load(Ordering::Acquire);
        if team < base + records {
            break base;
        }
        arch::spin_pause();
    };
    let slot = (team % records) as i32;
    // SAFETY: clang's callbacks over its buffer and reduce list.
    unsafe {
        if team < records {
            list_to_global_copy(buffer, slot, data);
        } else {
            list_to_global_reduce(buffer, slot, data);
        }
    }
    arch::fence_device();
    let arrived = atomic_inc_wrapping(count, records - 1);
    if arrived == teams - base - 1 {
        // The last team: every record is written. Fold them into our copy.
        arch::fence_device();
        let filled = teams.min(records);
        // SAFETY: as above.
        unsafe {
            global_to_list_copy(buffer, 0, data);
            for i in 1..filled {
                global_to_list_reduce(buffer, i as i32, data);
            }
        }
        count.store(0, Ordering::Relaxed);
        window.store(0, Ordering::Release);
        return 1;
    }
    if arrived == records - 1 {
        // This window is complete: let the next `records` teams in.
        window.fetch_add(records, Ordering::AcqRel);
    }
    0
}

/// `__kmpc_reduction_get_fixed_buffer`: the launch environment's buffer.
pub fn fixed_buffer() -> *mut c_void {
    let launch_env = state::team(|t| t.launch_env);
    // SAFETY: only called by kernels with a teams reduction, which have one.
    unsafe { (*launch_env).reduction_buffer.cast() }
}

/// `__kmpc_shuffle_int32`: `__shfl_down_sync(all lanes, value, delta, width)`.
pub fn shuffle_i32(value: i32, delta: i16, width: i16) -> i32 {
    arch::shuffle_down_u32(u32::MAX, value as u32, delta as u32, width as u32) as i32
}

/// `__kmpc_shuffle_int64`: the same on both halves.
pub fn shuffle_i64(value: i64, delta: i16, width: i16) -> i64 {
    arch::shuffle_down_u64(u32::MAX, value as u64, delta as u32, width as u32) as i64
}
