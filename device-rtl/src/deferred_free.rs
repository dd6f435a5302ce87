//! Heap blocks the runtime gives back without calling `free`, freed by the
//! next heap allocation: the per-thread arrays at the end of a kernel, and a
//! thread's record of a dispatched loop at its end (`dispatch::deinit`).
//!
//! Why: clang compiles device code relocatable (`ptxas -c`), where any call
//! gives a kernel at least 24 registers, and a call costs registers around
//! it. The kernel-end release of the per-thread arrays
//! (`state::release_thread_states`) is reachable in every kernel that cannot
//! prove the arrays were never made, which is every kernel of a file that
//! mixes SPMD and generic kernels (schedules.c: 1422 -> 1326 registers with
//! this list); the same holds for a loop's record. A push is a
//! compare-and-swap loop; the allocation path calls `malloc` anyway.
//!
//! One list per device image (a static of the module), taken whole (a swap
//! with null, so no pop of single blocks and no ABA hazard) before every
//! `malloc`: so a failed `malloc` means the heap is exhausted, and user
//! code's `malloc` competes with at most what teams gave back since the
//! runtime last allocated. The price: the first allocation after a kernel
//! whose teams gave arrays back frees them all on one thread. Lists split by
//! team spread that work, but then a failed `malloc` must free every list
//! before it may trap, and that loop cost schedules.c 52 registers. A
//! block's first word links it to the next.
#![allow(unsafe_code)]

use crate::arch;
use core::ffi::c_void;
use core::sync::atomic::{AtomicPtr, Ordering};

pub struct DeferredFrees(AtomicPtr<u8>);

impl DeferredFrees {
    pub const fn new() -> Self {
        DeferredFrees(AtomicPtr::new(core::ptr::null_mut()))
    }

    /// Adds `block`: a heap block of at least 8 bytes that nobody uses any
    /// more.
    pub fn push(&self, block: *mut u8) {
        let link = block.cast::<*mut u8>();
        let mut head = self.0.load(Ordering::Relaxed);
        loop {
            // SAFETY: the block is the caller's to give up and holds a pointer.
            unsafe { link.write(head) };
            match self.0.compare_exchange_weak(head, block, Ordering::Release, Ordering::Relaxed) {
                Ok(_) => return,
                Err(now) => head = now,
            }
        }
    }

    /// Takes every block; the caller owns the chain. A relaxed look first, so
    /// that an empty list costs one load.
    #[inline(always)]
    pub fn take_all(&self) -> *mut u8 {
        if self.0.load(Ordering::Relaxed).is_null() {
            return core::ptr::null_mut();
        }
        self.0.swap(core::ptr::null_mut(), Ordering::Acquire)
    }
}

impl Default for DeferredFrees {
    fn default() -> Self {
        Self::new()
    }
}

/// Calls `free_block` on every block of a chain from [`DeferredFrees::take_all`].
#[inline(always)]
pub fn for_each_in_chain(mut block: *mut u8, mut free_block: impl FnMut(*mut u8)) {
    while !block.is_null() {
        // SAFETY: a chain `push` linked through the blocks' first words.
        let next = unsafe { block.cast::<*mut u8>().read() };
        free_block(block);
        block = next;
    }
}

/// Gives a heap block back without a call.
#[inline(always)]
pub fn free_later(block: *mut c_void) {
    arch::deferred_frees().push(block.cast());
}

/// Frees every block given back; called before each heap allocation.
/// Inlined like `memory::heap_alloc`: out of line (a function of its own
/// until clang's -O2 inliner), the call grew `__kmpc_parallel_60`'s stack
/// frame from 72 to 128 bytes, which nested regions at -O0 stack up.
#[inline(always)]
pub fn reclaim() {
    // SAFETY: blocks their owners gave up with `free_later`.
    for_each_in_chain(arch::deferred_frees().take_all(), |block| unsafe { arch::free(block) });
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashSet;

    fn chain(list: &DeferredFrees) -> Vec<usize> {
        let mut seen = Vec::new();
        for_each_in_chain(list.take_all(), |b| seen.push(b as usize));
        seen
    }

    /// Pushes from many threads while others take: every block comes back
    /// exactly once, and a taken list is empty.
    #[test]
    fn every_pushed_block_comes_back_once() {
        let list = DeferredFrees::new();
        let mut storage: Vec<Box<[u64; 2]>> = (0..8 * 500).map(|_| Box::new([0; 2])).collect();
        let addrs: Vec<usize> = storage.iter_mut().map(|b| b.as_mut_ptr() as usize).collect();
        let taken = std::sync::Mutex::new(Vec::new());
        std::thread::scope(|s| {
            for t in 0..8usize {
                let (list, addrs, taken) = (&list, &addrs, &taken);
                s.spawn(move || {
                    for (i, &a) in addrs.iter().enumerate().filter(|(i, _)| i % 8 == t) {
                        list.push(a as *mut u8);
                        if i % 7 == 0 {
                            taken.lock().unwrap().extend(chain(list));
                        }
                    }
                });
            }
        });
        let mut back = taken.into_inner().unwrap();
        back.extend(chain(&list));
        assert!(chain(&list).is_empty());
        let unique: HashSet<usize> = back.iter().copied().collect();
        assert_eq!(unique.len(), back.len(), "a block came back twice");
        assert_eq!(unique, addrs.iter().copied().collect::<HashSet<usize>>());
    }

    #[test]
    fn taking_an_empty_list_gives_nothing() {
        assert!(chain(&DeferredFrees::new()).is_empty());
    }
}
