//! OpenMP memory allocators on the device (`omp_alloc` & co.): the
//! predefined allocators, and those `omp_init_allocator` makes, which a
//! target region may create under `requires dynamic_allocators`.
//!
//! Every memory space a device thread can allocate from (default,
//! large-capacity, constant, high-bandwidth, low-latency, LLVM's device
//! space) is the device heap. The cgroup, pteam and thread allocators and
//! LLVM's host and shared spaces have no memory here and give NULL, as the
//! spec allows. The null allocator is the task's def-allocator-var.
//!
//! An allocator of [`init`] is a heap record (its handle is its address)
//! with the traits an allocation honours: alignment, pool size, fallback.
//! Below every block lie its heap pointer, size and pool record, so
//! `omp_free` serves every allocation function.
#![allow(unsafe_code)]

use crate::execution::state;
use crate::{arch, debug};
use core::ffi::c_void;
use core::sync::atomic::{AtomicU64, Ordering};
use omprt_abi::alloc::{AllocTrait, allocator, key, memspace, value};

/// The room in front of a block; a multiple of 16, which every block's
/// alignment is at least.
const BLOCK_HEADER: usize = 32;

/// Handles below this are predefined (or no allocator); an allocator record
/// is a heap address, far above.
const FIRST_RECORD_HANDLE: u64 = 1 << 16;

/// Written into a live record, cleared when it is destroyed: a handle that
/// does not point at one traps instead of reading traits out of garbage.
const RECORD_MAGIC: u64 = 0x6f6d_7072_745f_616c;

/// What a handle allocates from.
enum Source {
    /// The device heap, without traits.
    Heap,
    /// No memory on the device.
    Nothing,
    /// An allocator made by [`init`].
    Record(&'static Record),
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Fallback {
    /// Try again on the device heap without the allocator's traits.
    DefaultMem,
    Null,
    Abort,
    /// Try again with the allocator in `fb_data`.
    Allocator(u64),
}

/// An allocator made by [`init`].
#[repr(C)]
struct Record {
    magic: AtomicU64,
    alignment: u64,
    fallback: Fallback,
    /// `u64::MAX`: no pool, only the heap's limit.
    pool_size: u64,
    /// Bytes of the pool its live blocks take.
    pool_used: AtomicU64,
}

fn source(handle: u64) -> Source {
    match handle {
        allocator::NULL..=allocator::LOW_LAT_MEM | allocator::LLVM_TARGET_DEVICE_MEM => Source::Heap,
        h if h < FIRST_RECORD_HANDLE => Source::Nothing,
        h => {
            debug::check(h.is_multiple_of(8), debug::message!("omp_alloc & co.: an allocator handle that omp_init_allocator did not return"));
            // SAFETY: a handle this large came from `init` (checked next):
            // the address of a live record, or of one the caller destroyed,
            // which the spec leaves undefined.
            let record = unsafe { &*(h as *const Record) };
            debug::check(
                record.magic.load(Ordering::Relaxed) == RECORD_MAGIC,
                debug::message!("omp_alloc & co.: an allocator handle that omp_init_allocator did not return, or one destroyed"),
            );
            Source::Record(record)
        }
    }
}

/// Where the block starting at `start` keeps its heap pointer, its size and
/// the record its pool counts it in (0: none).
fn header_slots(start: usize) -> (*mut usize, *mut u64, *mut u64) {
    ((start - 8) as *mut usize, (start - 16) as *mut u64, (start - 24) as *mut u64)
}

/// `bytes` from the device heap at `align` (a power of two); NULL when the
/// heap is exhausted or the size cannot hold the header and alignment.
fn heap_block(align: u64, bytes: u64, pool: u64) -> *mut c_void {
    let align = align.max(16);
    let Some(total) = bytes.checked_add(align + BLOCK_HEADER as u64) else { return core::ptr::null_mut() };
    let raw = arch::malloc(total);
    if raw.is_null() {
        return core::ptr::null_mut();
    }
    let start = (raw as usize + BLOCK_HEADER).div_ceil(align as usize) * align as usize;
    let (heap_pointer, size, record) = header_slots(start);
    // SAFETY: `raw <= start - BLOCK_HEADER` and `start + bytes` is inside the block.
    unsafe {
        heap_pointer.write(raw as usize);
        size.write(bytes);
        record.write(pool);
    }
    start as *mut c_void
}

/// Takes `bytes` of the record's pool, if they are left.
fn reserve(record: &Record, bytes: u64) -> bool {
    record.pool_size == u64::MAX
        || record
            .pool_used
            .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |used| used.checked_add(bytes).filter(|&u| u <= record.pool_size))
            .is_ok()
}

fn unreserve(record: &Record, bytes: u64) {
    if record.pool_size != u64::MAX {
        record.pool_used.fetch_sub(bytes, Ordering::Relaxed);
    }
}

/// `omp_aligned_alloc`: `bytes` at `align` (a power of two) from
/// `handle`. An allocator of [`init`] that cannot satisfy the request takes
/// its fallback; NULL where no allocator can.
pub fn alloc(align: u64, bytes: u64, handle: u64) -> *mut c_void {
    if !align.is_power_of_two() {
        return core::ptr::null_mut();
    }
    // The null allocator is the def-allocator-var ICV (itself null: the
    // default allocator, as `source` takes it).
    let mut handle = if handle == allocator::NULL { state::def_allocator() } else { handle };
    // A loop, not recursion: each fallback allocator was made before the one
    // naming it, so the chain ends. A null `fb_data` is the default
    // allocator, not the ICV, which may name an allocator of the chain.
    loop {
        let record = match source(handle) {
            Source::Heap => return heap_block(align, bytes, 0),
            Source::Nothing => return core::ptr::null_mut(),
            Source::Record(record) => record,
        };
        if reserve(record, bytes) {
            let block = heap_block(align.max(record.alignment), bytes, record as *const Record as u64);
            if !block.is_null() {
                return block;
            }
            unreserve(record, bytes);
        }
        match record.fallback {
            Fallback::DefaultMem => return heap_block(align, bytes, 0),
            Fallback::Null => return core::ptr::null_mut(),
            Fallback::Abort => debug::fatal(debug::message!("omp_alloc & co.: an allocator with the abort_fb fallback could not allocate")),
            Fallback::Allocator(next) => handle = next,
        }
    }
}

/// `omp_free`: gives `ptr` (from [`alloc`], or NULL) back.
pub fn free(ptr: *mut c_void) {
    if ptr.is_null() {
        return;
    }
    let (heap_pointer, size, record) = header_slots(ptr as usize);
    // SAFETY: `ptr` came from `alloc`, which wrote the header below it; a
    // pool's record outlives its blocks (destroying it first is undefined).
    unsafe {
        let record = record.read() as *const Record;
        if !record.is_null() {
            unreserve(&*record, size.read());
        }
        arch::free(heap_pointer.read() as *mut u8);
    }
}

/// The size `ptr` (from [`alloc`]) was allocated with.
///
/// # Safety
/// `ptr` came from [`alloc`] and is live.
pub unsafe fn size_of_block(ptr: *mut c_void) -> u64 {
    // SAFETY: forwarded from the caller.
    unsafe { header_slots(ptr as usize).1.read() }
}

/// `omp_init_allocator`: an allocator on `space` with `traits`, or the null
/// allocator when the device cannot make one that honours them (a memory
/// space the device cannot allocate from, a value the spec does not define,
/// an `allocator_fb` fallback without `fb_data`, an exhausted heap).
///
/// # Safety
/// `traits` points to `ntraits` traits (it may be null when there are none).
pub unsafe fn init(space: u64, ntraits: i32, traits: *const AllocTrait) -> u64 {
    if !matches!(space, memspace::DEFAULT | memspace::LARGE_CAP..=memspace::LOW_LAT | memspace::LLVM_TARGET_DEVICE) {
        return allocator::NULL;
    }
    if ntraits < 0 || (ntraits > 0 && traits.is_null()) {
        return allocator::NULL;
    }
    let (mut alignment, mut fallback, mut fb_data, mut pool_size) = (1, value::DEFAULT_MEM_FB, None, u64::MAX);
    for i in 0..ntraits as usize {
        // SAFETY: the caller's array of `ntraits` traits.
        let AllocTrait { key, value: v } = unsafe { traits.add(i).read() };
        let known = match key {
            _ if v == value::DEFAULT => (key::SYNC_HINT..=key::PART_SIZE).contains(&key),
            key::SYNC_HINT => (value::CONTENDED..=value::PRIVATE).contains(&v),
            key::ALIGNMENT if v.is_power_of_two() => {
                alignment = v;
                true
            }
            // Every thread of the device can reach the heap.
            key::ACCESS => (value::DEVICE..=value::CGROUP).contains(&v) || v == value::ALL,
            key::POOL_SIZE => {
                pool_size = v;
                true
            }
            key::FALLBACK if (value::DEFAULT_MEM_FB..=value::ALLOCATOR_FB).contains(&v) => {
                fallback = v;
                true
            }
            key::FB_DATA => {
                fb_data = Some(v);
                true
            }
            // The heap is device memory, which is never paged out.
            key::PINNED => v == value::FALSE || v == value::TRUE,
            key::PARTITION => (value::ENVIRONMENT..=value::INTERLEAVED).contains(&v),
            // OpenMP 6's traits: only their defaults are honoured.
            _ => false,
        };
        if !known {
            return allocator::NULL;
        }
    }
    let fallback = match (fallback, fb_data) {
        (value::NULL_FB, _) => Fallback::Null,
        (value::ABORT_FB, _) => Fallback::Abort,
        (value::ALLOCATOR_FB, Some(next)) => Fallback::Allocator(next),
        (value::ALLOCATOR_FB, None) => return allocator::NULL,
        _ => Fallback::DefaultMem,
    };
    let record = arch::malloc(core::mem::size_of::<Record>() as u64).cast::<Record>();
    if record.is_null() {
        return allocator::NULL;
    }
    let fields = Record { magic: AtomicU64::new(RECORD_MAGIC), alignment, fallback, pool_size, pool_used: AtomicU64::new(0) };
    // SAFETY: a fresh heap block of the record's size, 16-byte aligned.
    unsafe { record.write(fields) };
    record as u64
}

/// `omp_destroy_allocator`: the predefined allocators stay; a record goes.
pub fn destroy(handle: u64) {
    if let Source::Record(record) = source(handle) {
        record.magic.store(0, Ordering::Relaxed);
        // SAFETY: the record `init` allocated; the caller gives it up.
        unsafe { arch::free(record as *const Record as *mut u8) }
    }
}
