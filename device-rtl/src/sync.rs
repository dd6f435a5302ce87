//! Barriers, critical sections and locks.
//!
//! Barrier ids: 0 is the aligned block barrier (SPMD regions, kernel init),
//! 8 the unaligned all-threads barrier of the generic-mode worker protocol,
//! 1 the counted barrier of a generic-mode parallel team (its size is a
//! multiple of the warp size, as `barrier.sync` requires).
//!
//! Locks are spin locks on one 32-bit word with device-scope atomics, taken
//! by one lane at a time: they never assume a warp runs in lockstep, so lanes
//! of one warp contending for one lock cannot deadlock (independent thread
//! scheduling on sm_70+ lets the owner make progress).

use crate::{arch, mapping, state};
use core::sync::atomic::{AtomicU32, Ordering};

const BARRIER_ALL: u32 = 8;
const BARRIER_TEAM: u32 = 1;

/// All threads of the block, converged (SPMD regions, kernel init).
#[inline(always)]
pub fn threads_aligned() {
    arch::sync_threads_aligned()
}

/// All live threads of the block, from any control flow (generic mode).
#[inline(always)]
pub fn all_threads() {
    arch::sync_threads_unaligned(BARRIER_ALL)
}

/// `__kmpc_barrier`: the threads of the current team meet.
pub fn team_barrier() {
    if mapping::is_spmd_mode() {
        let level = state::icvs().level;
        if level == 1 {
            spmd_region_barrier();
        } else if level == 0 {
            arch::sync_threads_aligned();
        } else {
            // A serialized nested region is a team of one.
            arch::fence_block();
        }
        return;
    }
    let icvs = state::icvs();
    if icvs.active_level == 1 && icvs.level == 1 {
        arch::sync_threads_counted(BARRIER_TEAM, mapping::active_team_size());
    } else {
        // The main thread outside a region, or a serialized region: a team
        // of one, for which a barrier is only a fence.
        arch::fence_block();
    }
}

/// A barrier inside an SPMD kernel's parallel region. A team smaller than the
/// block (`num_threads`) must not use the block barrier: the threads outside
/// the team wait at the region's end on that barrier, and would release the
/// team early and then pair with the wrong barrier (upstream's runtime uses
/// the block barrier here: `__kmpc_barrier` in its Synchronization.cpp). A team of whole warps meets on its own counted barrier, a
/// team inside one warp on a warp barrier. A team of more than a warp that
/// does not end on a warp boundary cannot be counted by the hardware (the
/// count must be a multiple of 32), and keeps the block barrier.
///
/// Out of line, as a leaf function (no stack, few registers): inlined, the
/// three variants grew every worksharing loop's outlined region past LLVM's
/// inlining budget (ordered.c: 51 -> 118 registers).
#[inline(never)]
fn spmd_region_barrier() {
    let team = state::team(|t| t.parallel_team_size);
    if team == 0 {
        arch::sync_threads_aligned();
    } else {
        partial_team_barrier(team);
    }
}

#[inline(always)]
fn partial_team_barrier(team: u32) {
    if team < arch::WARP_SIZE {
        arch::sync_warp(u32::MAX >> (arch::WARP_SIZE - team));
    } else if team % arch::WARP_SIZE == 0 {
        arch::sync_threads_counted(BARRIER_TEAM, team);
    } else {
        arch::sync_threads_aligned();
    }
}

/// `omp_lock_t` / `critical`: the first word is the lock.
#[inline(always)]
pub fn lock_word(ptr: *mut u32) -> &'static AtomicU32 {
    // SAFETY: callers pass a live, 4-byte aligned lock object that outlives
    // every use (clang's critical-name arrays and omp_lock_t are).
    #[allow(unsafe_code)]
    unsafe {
        AtomicU32::from_ptr(ptr)
    }
}

pub fn set_lock(lock: &AtomicU32) {
    while lock.compare_exchange_weak(0, 1, Ordering::Acquire, Ordering::Relaxed).is_err() {
        arch::spin_pause();
    }
    arch::fence_device();
}

pub fn unset_lock(lock: &AtomicU32) {
    arch::fence_device();
    lock.store(0, Ordering::Release);
}

pub fn test_lock(lock: &AtomicU32) -> bool {
    let taken = lock.compare_exchange(0, 1, Ordering::Acquire, Ordering::Relaxed).is_ok();
    if taken {
        arch::fence_device();
    }
    taken
}
