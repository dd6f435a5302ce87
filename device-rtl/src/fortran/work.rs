//! A list of pending work on the device heap, so that walking nested derived
//! types is a loop instead of recursion.
//!
//! A recursive function (or a cycle of them) in a kernel's call graph keeps
//! ptxas and nvlink from bounding the kernel's stack, and the driver then
//! gives each thread only the default stack limit (1 KiB; flang's -O0
//! frames alone can exceed it, fortran_assign.f90's `deep` takes 2.9 KiB),
//! where a bounded stack is reserved in full. So assignment, destruction,
//! finalization and default initialization of derived types keep the
//! instances and descriptors still to visit here, as flang-rt's `WorkQueue`
//! does for the same reason, and none of them calls itself or another of
//! them that calls back. The list takes no heap until the first push: an
//! assignment of an intrinsic type, or of a derived type without nested
//! components, never allocates one.

use super::memory::{self, Addr};
use super::terminator::{self, Site};

/// Words of one entry.
const WORDS: usize = 5;

/// An entry: a kind, three addresses and a count, which its kind gives
/// meaning to (descriptors, instances, type descriptions).
#[derive(Clone, Copy, Debug)]
pub struct Entry {
    pub kind: u32,
    pub flags: i32,
    pub a: Addr,
    pub b: Addr,
    pub c: Addr,
    pub count: usize,
}

impl Entry {
    pub fn new(kind: u32, a: Addr, b: Addr, c: Addr, count: usize, flags: i32) -> Entry {
        Entry { kind, flags, a, b, c, count }
    }
}

/// A LIFO of [`Entry`]s on the device heap, freed when dropped.
pub struct Worklist {
    base: Addr,
    len: usize,
    capacity: usize,
}

impl Worklist {
    pub const fn new() -> Worklist {
        Worklist { base: Addr::NULL, len: 0, capacity: 0 }
    }

    fn entry(&self, i: usize) -> Addr {
        self.base.plus(i * WORDS * 8)
    }

    pub fn push(&mut self, e: Entry) {
        if self.len == self.capacity {
            self.grow();
        }
        let at = self.entry(self.len);
        at.store(u64::from(e.kind) | (u64::from(e.flags as u32) << 32));
        at.plus(8).store_addr(e.a);
        at.plus(16).store_addr(e.b);
        at.plus(24).store_addr(e.c);
        at.plus(32).store(e.count as u64);
        self.len += 1;
    }

    pub fn pop(&mut self) -> Option<Entry> {
        if self.len == 0 {
            return None;
        }
        self.len -= 1;
        let at = self.entry(self.len);
        let head = at.load::<u64>();
        Some(Entry {
            kind: head as u32,
            flags: (head >> 32) as u32 as i32,
            a: at.plus(8).load_addr(),
            b: at.plus(16).load_addr(),
            c: at.plus(24).load_addr(),
            count: at.plus(32).load::<u64>() as usize,
        })
    }

    #[cold]
    #[inline(never)]
    fn grow(&mut self) {
        let capacity = (self.capacity * 2).max(8);
        let storage = memory::allocate(capacity * WORDS * 8);
        if storage.is_null() {
            terminator::crash_with(Site::UNKNOWN, b"out of device heap for the work list of a derived type's components");
        }
        storage.copy_from(self.base, self.len * WORDS * 8);
        memory::deallocate(self.base);
        self.base = storage;
        self.capacity = capacity;
    }
}

impl Default for Worklist {
    fn default() -> Self {
        Worklist::new()
    }
}

impl Drop for Worklist {
    fn drop(&mut self) {
        memory::deallocate(self.base);
    }
}
