//! Hardware ids, and where LLVM's host puts a generic-mode kernel's main
//! thread: what a thread knows without reading the team state.

use crate::arch::{self, WARP_SIZE};

#[inline(always)]
pub fn thread_id_in_block() -> u32 {
    arch::thread_id_in_block()
}
#[inline(always)]
pub fn num_threads_in_block() -> u32 {
    arch::num_threads_in_block()
}
#[inline(always)]
pub fn block_id() -> u32 {
    arch::block_id()
}
#[inline(always)]
pub fn num_blocks() -> u32 {
    arch::num_blocks()
}

/// Generic mode: the main thread is the first lane of the last warp (LLVM
/// 22's host adds that warp for it; docs/abi.md, "Kernel entry and exit").
#[inline(always)]
pub fn main_thread_id_in_generic_mode() -> u32 {
    first_lane_of_last_warp(num_threads_in_block())
}

#[inline(always)]
fn first_lane_of_last_warp(block_threads: u32) -> u32 {
    (block_threads - 1) & !(WARP_SIZE - 1)
}

/// Whether the caller is the generic-mode main thread, with the ids read
/// anew (`arch::thread_id_in_block_reread`): at a kernel's end, where the
/// ids read before the region would stay live across it, in SPMD kernels
/// too where a file has kernels of both modes. The mode is the caller's to
/// check.
#[inline(always)]
pub fn is_generic_main_thread_reread() -> bool {
    arch::thread_id_in_block_reread() == first_lane_of_last_warp(arch::num_threads_in_block_reread())
}
