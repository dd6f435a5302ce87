//! Reductions. clang generates the callbacks that move and combine the
//! reduction variables (docs/abi.md, "Parallel reductions" and
//! "Teams reductions"); the runtime decides who combines with whom and
//! returns 1 in exactly the thread whose copy holds the result, which clang
//! combines into the original variable without atomics.
//!
//! * Parallel: a shuffle tree within each warp (algorithm 0 when the team is
//!   whole warps, else algorithm 1 in every warp: one choice per team costs
//!   fewer registers than one per warp), then clang's inter-warp copy into
//!   warp 0, reduced there. Thread 0 of the team returns 1.
//! * Teams: each team's master writes its value into record
//!   `team % records` of the launch environment's buffer (copy in the first
//!   window, combine in later ones) and counts itself in with one atomic
//!   add; teams beyond the records wait for the window to advance. The last
//!   team folds all records, with all its threads in kernels clang made SPMD
//!   (strided loads, then the parallel shuffle tree), else with the master
//!   alone, and its master returns 1.
#![allow(unsafe_code)]

use crate::execution::{mapping, state};
use crate::{arch, sync};
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
    // Read anew (`asm`): in a `distribute` loop around the region LLVM would
    // hoist the lane, the warp and their addresses out of the loop and keep
    // them in registers across it (`no_kernel_costs_more_than_with_llvm19`).
    let tid = arch::thread_id_in_block_reread();
    let warps = n.div_ceil(WARP);
    let warp = tid / WARP;
    // SAFETY: forwarded from the caller.
    unsafe {
        if n.is_multiple_of(WARP) {
            full_warp_reduce(data, shuffle);
        } else {
            partial_warp_reduce(data, shuffle, (n - warp * WARP).min(WARP), tid % WARP);
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

/// `__kmpc_nvptx_teams_reduce_nowait_v2`.
///
/// # Safety
/// `buffer` is the fixed buffer of `records` records; the callbacks are
/// clang's for `data`; the kernel has a launch environment. Called by every
/// thread of the block in SPMD mode, by the main thread in generic mode.
#[allow(clippy::too_many_arguments)]
pub unsafe fn teams_reduce(
    buffer: *mut c_void,
    records: u32,
    data: *mut c_void,
    shuffle: ShuffleReduceFn,
    copy: InterWarpCopyFn,
    list_to_global_copy: ListGlobalFn,
    list_to_global_reduce: ListGlobalFn,
    global_to_list_copy: ListGlobalFn,
    global_to_list_reduce: ListGlobalFn,
) -> i32 {
    let spmd = mapping::is_spmd_mode();
    let master = mapping::is_initial_thread();
    if !spmd && !master {
        return 0;
    }
    let teams = mapping::num_blocks();
    let mut last = false;
    if master {
        // SAFETY: forwarded from the caller.
        last = unsafe { arrive(buffer, records, data, teams, list_to_global_copy, list_to_global_reduce) };
    }
    // The whole team folds only in kernels clang made SPMD: in one
    // openmp-opt SPMDized, the team's reduction variables are one shared
    // copy (HeapToShared) that only the master may write. A reduce list
    // naming a shared variable is such a copy, and that test folds where LLVM
    // sees the variable, also in files of mixed modes, where the mode test
    // does not (`spmdized_teams_reduction_folds_on_the_master_unrolled_twice`).
    //
    // The barrier itself tells the team (`bar.red.or`): through a shared word
    // the master writes, openmp-opt may hand the others their own `false`,
    // and the master would wait alone in clang's copy callback's barriers.
    // SAFETY: `data` is clang's reduce list (forwarded from the caller).
    let team_fold = mapping::is_spmd_kernel_from_clang() && !unsafe { first_variable_is_shared(data) };
    if team_fold {
        last = arch::sync_threads_or(sync::BARRIER_BLOCK, last);
    }
    if !last {
        return 0;
    }
    arch::fence_device();
    let filled = teams.min(records);
    // The master of a generic(-SPMD) kernel folds alone, as thread 0 of one.
    let (tid, threads) = if team_fold { (mapping::thread_id_in_block(), mapping::num_threads_in_block()) } else { (0, 1) };
    // Threads 0..n each fold every n-th record; n is whole warps when above
    // one, so that only full warps shuffle.
    let n = threads.min(filled);
    let n = if n > WARP { n / WARP * WARP } else { n };
    // SAFETY: clang's callbacks over its buffer and reduce list.
    unsafe {
        if tid < n {
            global_to_list_copy(buffer, tid as i32, data);
            let mut i = tid + n;
            while i < filled {
                // Two records per step keep both records' loads in flight;
                // unrolled further by ptxas, the master's fold alone (n = 1)
                // costs the kernel registers
                // (`spmdized_teams_reduction_folds_on_the_master_unrolled_twice`).
                arch::unroll_twice();
                global_to_list_reduce(buffer, i as i32, data);
                i += n;
            }
        }
        if n > WARP {
            let warps = n / WARP;
            if tid < n {
                full_warp_reduce(data, shuffle);
            }
            // clang's copy has block barriers: every thread of the block comes.
            copy(data, warps as i32);
            if tid < WARP {
                partial_warp_reduce(data, shuffle, warps, tid);
            }
        } else if n > 1 && tid < WARP {
            partial_warp_reduce(data, shuffle, n, tid);
        }
    }
    i32::from(master)
}

/// Whether the first variable of clang's reduce list is in shared memory.
///
/// # Safety
/// `data` is clang's reduce list: an array of at least one pointer.
#[inline(always)]
unsafe fn first_variable_is_shared(data: *mut c_void) -> bool {
    // SAFETY: forwarded from the caller.
    arch::is_shared_address(unsafe { *data.cast::<*const u8>() })
}

out_of_line_at_o0! {
/// The master's part: waits for its window, puts the team's value into its
/// record, and counts itself in. Returns whether this team arrived last,
/// which then resets the counters.
///
/// # Safety
/// As for [`teams_reduce`].
unsafe fn arrive(
    buffer: *mut c_void,
    records: u32,
    data: *mut c_void,
    teams: u32,
    list_to_global_copy: ListGlobalFn,
    list_to_global_reduce: ListGlobalFn,
) -> bool {
    let launch_env = state::team(|t| t.launch_env);
    // SAFETY: kernels with a teams reduction get a launch environment.
    let (count, window) = unsafe {
        (AtomicU32::from_ptr(&raw mut (*launch_env).reduction_cnt), AtomicU32::from_ptr(&raw mut (*launch_env).reduction_iter_cnt))
    };
    let team = mapping::block_id();
    // Only `records` teams at a time may write: wait for this team's window.
    while team >= window.load(Ordering::Acquire) + records {
        arch::spin_pause();
    }
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
    // One plain atomic add per team (a CAS loop would serialise thousands
    // of teams). Teams of the next window cannot count in before this one
    // is complete, so arrivals `k*records..(k+1)*records` are window k.
    let arrived = count.fetch_add(1, Ordering::AcqRel);
    if arrived == teams - 1 {
        count.store(0, Ordering::Relaxed);
        window.store(0, Ordering::Release);
        return true;
    }
    if (arrived + 1) % records == 0 {
        window.fetch_add(records, Ordering::AcqRel);
    }
    false
}
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
