//! Who is who: hardware ids ([`ids`](super::ids)), the execution mode and the
//! thread that runs the team's sequential code (in the team state,
//! [`state`]), and the OpenMP thread numbering derived from them.
//!
//! The mode is read from the team state. The exported
//! `__kmpc_is_spmd_exec_mode`, which openmp-opt folds per kernel but leaves
//! behind in a TU with kernels of both modes, is called only where inlined
//! into kernels: the region entry (`parallel::in_spmd_kernel`) and the
//! kernel end (`kernel::target_deinit`).

use super::state;
use crate::arch::{self, WARP_SIZE};

pub use super::ids::*;
pub use super::state::{is_initial_thread, is_main_thread_in_generic_mode, is_spmd_kernel_from_clang, is_spmd_mode};

/// Threads that can run a parallel region: all in SPMD mode; in generic
/// mode all but the main thread's warp.
#[inline(always)]
pub fn max_team_threads() -> u32 {
    max_team_threads_in(is_spmd_mode())
}

/// `max_team_threads` where the caller knows the mode, which the team
/// state's does not tell in a file of mixed modes. Generic mode reads the
/// block size anew (`asm`), which LLVM would otherwise keep in a register
/// across the user's code (`no_kernel_costs_more_than_with_llvm19`); SPMD
/// mode keeps the plain read, which openmp-opt folds to the kernel's block
/// size (`spmd_kernel_keeps_its_static_cost`).
#[inline(always)]
pub fn max_team_threads_in(spmd: bool) -> u32 {
    if spmd { num_threads_in_block() } else { arch::num_threads_in_block_reread().saturating_sub(WARP_SIZE) }
}

/// [`max_team_threads_in`] as a region's entry computes the team, from a
/// plain read that LLVM hoists out of a loop of regions: the workers wait
/// at the entry's barrier meanwhile
/// (`generic_region_entry_sizes_the_team_outside_the_loop`).
#[inline(always)]
pub fn max_team_threads_at_entry(spmd: bool) -> u32 {
    if spmd { num_threads_in_block() } else { num_threads_in_block().saturating_sub(WARP_SIZE) }
}

/// Size of the current active team.
#[inline(always)]
pub fn active_team_size() -> u32 {
    active_team_size_in(is_spmd_mode())
}

/// `active_team_size` where the caller knows the mode.
#[inline(always)]
pub fn active_team_size_in(spmd: bool) -> u32 {
    let size = state::team(|t| t.parallel_team_size);
    // A select, not a branch: openmp-opt's first walk of a kernel's branches
    // asks for the value of a load a branch tests before it knows which
    // threads run what, and keeps the stores it then cannot rule out among
    // the load's values (`lto_region_team_size_folds_in_a_partial_team`).
    core::hint::select_unpredictable(size == 0, max_team_threads_in(spmd), size)
}

/// `omp_get_ancestor_thread_num(level)` for the calling thread.
pub fn ancestor_thread_num(level: i32) -> i32 {
    let icvs = state::icvs();
    if level < 0 || level as u32 > icvs.level {
        return -1;
    }
    if in_active_team(level, &icvs) { thread_id_in_block() as i32 } else { 0 }
}

/// Whether `level` is the active region of the calling thread. Only level 1
/// can be active on a GPU; every other level is a team of one. In SPMD mode
/// level 1 is always the collective region (nested ones are level 2 or
/// deeper), whose published team size is right even for a team of one; not
/// reading `active_level` there lets openmp-opt fold these queries, since
/// the active level stored per region depends on the block size.
#[inline(always)]
fn in_active_team(level: i32, icvs: &state::Icvs) -> bool {
    level == 1 && (is_spmd_mode() || icvs.active_level == 1)
}

/// `omp_get_team_size(level)` for the calling thread.
pub fn team_size(level: i32) -> i32 {
    let icvs = state::icvs();
    if level < 0 || level as u32 > icvs.level {
        return -1;
    }
    if in_active_team(level, &icvs) { active_team_size() as i32 } else { 1 }
}

/// OpenMP `omp_get_thread_num()` within the innermost region. Not
/// `ancestor_thread_num` of the current level (nor `omp_num_threads` its
/// `team_size`): they read the ICVs a second time to check the level against
/// itself, which LLVM cannot drop where it does not fold the two loads, and
/// the second read costs registers.
#[inline(always)]
pub fn omp_thread_num() -> u32 {
    let icvs = state::icvs();
    if in_active_team(icvs.level as i32, &icvs) { thread_id_in_block() } else { 0 }
}

/// OpenMP `omp_get_num_threads()` within the innermost region.
#[inline(always)]
pub fn omp_num_threads() -> u32 {
    let icvs = state::icvs();
    if in_active_team(icvs.level as i32, &icvs) { active_team_size() } else { 1 }
}
