//! Barriers, critical sections and locks.
//!
//! Barrier ids: 0 is the aligned block barrier (SPMD regions, kernel init),
//! and the block's `barrier.red.or` (the teams reduction's verdict); 1 the
//! counted barrier of a generic-mode parallel team (its size is a multiple of
//! the warp size, as `barrier.sync` requires) and, in SPMD mode, the
//! `barrier.red.or` of a team smaller than the block (see
//! `parallel::spmd_region`): a launch runs in one mode, so the two never meet;
//! 2 the unaligned all-threads barrier of the generic-mode worker protocol.
//! Few and low on purpose: ptxas reserves every id up to the highest one
//! used, and an SM holds a fixed number of barriers, so the highest id caps
//! the blocks per SM and with them the occupancy of generic kernels.
//!
//! Locks are spin locks on one 32-bit word with device-scope atomics, taken
//! by one lane at a time: they never assume a warp runs in lockstep, so lanes
//! of one warp contending for one lock cannot deadlock (independent thread
//! scheduling on sm_70+ lets the owner make progress).

use crate::execution::{mapping, state};
use crate::arch;
use core::sync::atomic::{AtomicU32, Ordering};

const BARRIER_ALL: u32 = 2;
const BARRIER_TEAM: u32 = 1;
pub const BARRIER_PARTIAL_SPMD_TEAM: u32 = 1;
/// Every thread of the block.
pub const BARRIER_BLOCK: u32 = 0;

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
        if level == 1 && state::team(|t| t.parallel_team_size) != 0 {
            // A team smaller than the block: the other threads wait in the
            // same barrier id until the region ends.
            arch::sync_threads_or(BARRIER_PARTIAL_SPMD_TEAM, false);
        } else if level <= 1 {
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

/// `omp_lock_t` / `critical`: the first word is the lock.
///
/// # Safety
/// `ptr` is a live, 4-byte aligned lock object that outlives every use
/// (clang's critical-name arrays and omp_lock_t are).
#[inline(always)]
#[allow(unsafe_code)]
pub unsafe fn lock_word(ptr: *mut u32) -> &'static AtomicU32 {
    // SAFETY: forwarded from the caller.
    unsafe { AtomicU32::from_ptr(ptr) }
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
