//! Heap blocks the runtime gives back without calling `free`, freed by the
//! next heap allocation: the per-thread arrays at the end of a kernel, and a
//! thread's record of a dispatched loop at its end (`dispatch::deinit`).
//!
//! Why: in relocatable device code (`ptxas -c`) a call costs a kernel the
//! calling convention's registers, and the kernel-end release of the
//! per-thread arrays is reachable in every kernel that cannot prove none was
//! made, such as every kernel of a file that mixes modes
//! (`spmd_kernel_in_a_mixed_file_makes_no_call`); so is a loop record's. A
//! push is a compare-and-swap loop; the allocation path calls `malloc`
//! anyway.
//!
//! One list per device image, emptied before every `malloc`: a failed
//! `malloc` means an exhausted heap (but for blocks another thread is
//! freeing), and user code's `malloc` competes with at most what teams gave
//! back since the runtime last allocated. The price: one thread frees a
//! kernel's arrays all at once. Lists per team would spread that, but a
//! failed `malloc` would have to free every list before trapping, a loop
//! that costs registers. A block's first word links it to the next.
//!
//! Both ways to empty it take the list whole (a swap with null), so no
//! thread pops single blocks off it (no ABA hazard). [`reclaim`] walks its
//! chain in a register live across each `free`; [`reclaim_through_slot`]
//! keeps the chain in a device word one thread at a time owns. The second
//! is more code, which costs the large functions that inline it registers,
//! so only the loop record's allocation uses it, where the first's register
//! would set the kernel's count
//! (`no_kernel_costs_more_than_with_llvm19_with_offload_lto`).
#![allow(unsafe_code)]

use crate::arch;
use core::ffi::c_void;
use core::sync::atomic::{AtomicPtr, Ordering};

pub struct DeferredFrees {
    pushed: AtomicPtr<u8>,
    /// Null, or owned by the thread that set it: [`DRAINING`] or the rest of
    /// the chain that thread is freeing.
    drainer: AtomicPtr<u8>,
}

/// The drainer word of an owner with no chain left; no block is at address 1.
const DRAINING: *mut u8 = core::ptr::without_provenance_mut(1);

impl DeferredFrees {
    pub const fn new() -> Self {
        DeferredFrees { pushed: AtomicPtr::new(core::ptr::null_mut()), drainer: AtomicPtr::new(core::ptr::null_mut()) }
    }

    /// Calls `free_block` on every block, keeping the chain in the drainer
    /// word rather than a register; returns at once if another thread
    /// drains. Relaxed accesses suffice: only the owner reads the word, and
    /// the links come from blocks this thread's acquiring swap took.
    #[inline(always)]
    pub fn drain_through_slot(&self, mut free_block: impl FnMut(*mut u8)) {
        if self.pushed.load(Ordering::Relaxed).is_null() {
            return;
        }
        if self.drainer.compare_exchange(core::ptr::null_mut(), DRAINING, Ordering::Relaxed, Ordering::Relaxed).is_err() {
            return;
        }
        loop {
            let mut block = self.drainer.load(Ordering::Relaxed);
            if block == DRAINING {
                block = self.pushed.swap(core::ptr::null_mut(), Ordering::Acquire);
                if block.is_null() {
                    break;
                }
            }
            // SAFETY: a block of a chain `push` linked through first words.
            let next = unsafe { block.cast::<*mut u8>().read() };
            self.drainer.store(if next.is_null() { DRAINING } else { next }, Ordering::Relaxed);
            free_block(block);
        }
        self.drainer.store(core::ptr::null_mut(), Ordering::Relaxed);
    }

    /// Adds `block`: a heap block of at least 8 bytes that nobody uses.
    pub fn push(&self, block: *mut u8) {
        let link = block.cast::<*mut u8>();
        let mut head = self.pushed.load(Ordering::Relaxed);
        loop {
            // SAFETY: the block is the caller's to give up and holds a pointer.
            unsafe { link.write(head) };
            match self.pushed.compare_exchange_weak(head, block, Ordering::Release, Ordering::Relaxed) {
                Ok(_) => return,
                Err(now) => head = now,
            }
        }
    }

    /// Takes every block; the caller owns the chain. An empty list costs one
    /// relaxed load.
    #[inline(always)]
    pub fn take_all(&self) -> *mut u8 {
        if self.pushed.load(Ordering::Relaxed).is_null() {
            return core::ptr::null_mut();
        }
        self.pushed.swap(core::ptr::null_mut(), Ordering::Acquire)
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

arch::device_static! {
    static DEFERRED_FREES: DeferredFrees = DeferredFrees::new();
}

/// For tests, between launches: how many blocks the calling thread's device
/// has waiting to be freed. They go back in the same order, for the next
/// allocation to free.
#[cfg(not(target_arch = "nvptx64"))]
pub fn blocks_waiting() -> usize {
    let list = DEFERRED_FREES.get();
    let mut blocks = Vec::new();
    for_each_in_chain(list.take_all(), |b| blocks.push(b));
    let n = blocks.len();
    for b in blocks.into_iter().rev() {
        list.push(b);
    }
    n
}

/// Gives a heap block back without a call.
#[inline(always)]
pub fn free_later(block: *mut c_void) {
    DEFERRED_FREES.get().push(block.cast());
}

/// Frees every block given back; called before each heap allocation.
/// Inlined like `memory::heap_alloc`: out of line, the call would grow
/// `__kmpc_parallel_60`'s stack frame, which nested regions at -O0 stack up
/// (`runtime_stack_frames_stay_small`).
#[inline(always)]
pub fn reclaim() {
    // SAFETY: blocks their owners gave up with `free_later`.
    for_each_in_chain(DEFERRED_FREES.get().take_all(), |block| unsafe { arch::free(block) });
}

/// [`reclaim`] with no pointer live across each `free`.
#[inline(always)]
pub fn reclaim_through_slot() {
    // SAFETY: blocks their owners gave up with `free_later`.
    DEFERRED_FREES.get().drain_through_slot(|block| unsafe { arch::free(block) });
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

    /// Threads push the blocks they own, and take blocks back both ways
    /// (`drain_through_slot` and `take_all`), owning what they take and
    /// pushing it again later, so a block leaves and rejoins the list while
    /// others drain it. A block pushed twice or taken twice breaks a flag,
    /// and in the end every block is owned exactly once.
    #[test]
    fn draining_through_the_slot_frees_every_block_once_beside_pushes_and_takes() {
        use std::sync::atomic::AtomicBool;
        const THREADS: usize = 4;
        const BLOCKS: usize = THREADS * 256;
        let list = DeferredFrees::new();
        let mut storage = vec![[0u64; 2]; BLOCKS];
        let base = storage.as_mut_ptr() as usize;
        let listed: Vec<AtomicBool> = (0..BLOCKS).map(|_| AtomicBool::new(false)).collect();
        let index = |b: *mut u8| (b as usize - base) / 16;
        let owned: Vec<Vec<usize>> = std::thread::scope(|s| {
            let handles: Vec<_> = (0..THREADS)
                .map(|t| {
                    let (list, listed) = (&list, &listed);
                    s.spawn(move || {
                        let mut mine: Vec<usize> = (0..BLOCKS).filter(|i| i % THREADS == t).collect();
                        for round in 0..200 {
                            for &i in &mine {
                                assert!(!listed[i].swap(true, Ordering::Relaxed), "block {i} pushed while listed");
                                list.push((base + 16 * i) as *mut u8);
                            }
                            mine.clear();
                            let mut take = |b: *mut u8| {
                                assert!(listed[index(b)].swap(false, Ordering::Relaxed), "block {} taken twice", index(b));
                                mine.push(index(b));
                            };
                            if (round + t) % 3 == 0 {
                                for_each_in_chain(list.take_all(), &mut take);
                            } else {
                                list.drain_through_slot(&mut take);
                            }
                        }
                        mine
                    })
                })
                .collect();
            handles.into_iter().map(|h| h.join().unwrap()).collect()
        });
        let mut all: Vec<usize> = owned.into_iter().flatten().collect();
        list.drain_through_slot(|b| {
            assert!(listed[index(b)].swap(false, Ordering::Relaxed));
            all.push(index(b));
        });
        all.sort_unstable();
        assert_eq!(all, (0..BLOCKS).collect::<Vec<_>>(), "blocks lost or owned twice");
        assert!(listed.iter().all(|f| !f.load(Ordering::Relaxed)));
    }

    /// A thread that finds another draining returns without freeing; the
    /// blocks wait for the next allocation.
    #[test]
    fn a_drain_beside_another_leaves_the_blocks_for_later() {
        let list = DeferredFrees::new();
        let mut storage = [[0u64; 1]; 3];
        for b in &mut storage {
            list.push(b.as_mut_ptr().cast());
        }
        list.drainer.store(DRAINING, Ordering::Relaxed);
        let mut freed = 0;
        list.drain_through_slot(|_| freed += 1);
        assert_eq!(freed, 0);
        list.drainer.store(core::ptr::null_mut(), Ordering::Relaxed);
        list.drain_through_slot(|_| freed += 1);
        assert_eq!(freed, 3);
        assert!(list.drainer.load(Ordering::Relaxed).is_null(), "the drainer word stays owned");
        assert!(list.take_all().is_null());
    }

    #[test]
    fn taking_an_empty_list_gives_nothing() {
        assert!(chain(&DeferredFrees::new()).is_empty());
    }
}
