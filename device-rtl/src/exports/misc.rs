//! Reductions, memory and the remaining entry points of the table that later
//! issues implement (#3 execution model, #4 loops and reductions).

use super::*;
use crate::{memory, reduction};
use omprt_abi::reduction::{InterWarpCopyFn, ListGlobalFn, ShuffleReduceFn};

// rustc warns that `inline` is ignored on an exported function, yet emits
// `alwaysinline` (checked by tests-gpu/tests/lowering.rs): inlined into the
// kernel, clang's callbacks become direct calls (float reductions 156 -> 31
// registers).
#[unsafe(no_mangle)]
#[allow(unused_attributes)]
#[inline(always)]
pub unsafe extern "C-unwind" fn __kmpc_nvptx_parallel_reduce_nowait_v2(
    _loc: IdentPtr,
    _size: i64,
    data: VoidPtr,
    shuffle: ShuffleReduceFn,
    copy: InterWarpCopyFn,
) -> i32 {
    // SAFETY: clang passes its reduce list and the callbacks made for it.
    unsafe { reduction::parallel_reduce(data, shuffle, copy) }
}

#[unsafe(no_mangle)]
#[allow(unused_attributes)]
#[inline(always)]
pub unsafe extern "C-unwind" fn __kmpc_nvptx_teams_reduce_nowait_v2(
    _loc: IdentPtr,
    buffer: VoidPtr,
    records: i32,
    _size: i64,
    data: VoidPtr,
    shuffle: ShuffleReduceFn,
    copy: InterWarpCopyFn,
    lg_copy: ListGlobalFn,
    lg_reduce: ListGlobalFn,
    gl_copy: ListGlobalFn,
    gl_reduce: ListGlobalFn,
) -> i32 {
    // SAFETY: clang passes the fixed buffer, its record count and callbacks.
    unsafe { reduction::teams_reduce(buffer, records as u32, data, shuffle, copy, lg_copy, lg_reduce, gl_copy, gl_reduce) }
}

#[unsafe(no_mangle)]
pub extern "C-unwind" fn __kmpc_reduction_get_fixed_buffer() -> VoidPtr {
    reduction::fixed_buffer()
}

#[unsafe(no_mangle)]
pub extern "C-unwind" fn __kmpc_shuffle_int32(value: i32, delta: i16, width: i16) -> i32 {
    reduction::shuffle_i32(value, delta, width)
}

#[unsafe(no_mangle)]
pub extern "C-unwind" fn __kmpc_shuffle_int64(value: i64, delta: i16, width: i16) -> i64 {
    reduction::shuffle_i64(value, delta, width)
}

/// Variables clang globalises; 16-byte aligned, LIFO per thread.
/// `inline(never)`: openmp-opt's heap-to-stack/shared rewrites key on the call.
#[unsafe(no_mangle)]
#[inline(never)]
pub extern "C-unwind" fn __kmpc_alloc_shared(bytes: u64) -> VoidPtr {
    memory::alloc_shared(bytes)
}

#[unsafe(no_mangle)]
#[inline(never)]
pub extern "C-unwind" fn __kmpc_free_shared(ptr: VoidPtr, bytes: u64) {
    memory::free_shared(ptr, bytes)
}

// omp_alloc & co. Predefined allocators 1..=5 (default, large_cap, const,
// high_bw, low_lat) come from the device heap, and so does the null
// allocator, which stands for the def-allocator-var ICV, on the device always
// the default allocator (`omp_get_default_allocator`); the team/thread-local
// ones (cgroup, pteam, thread) get NULL, which the spec allows for an
// allocator that cannot satisfy a request.
fn heap_backed(allocator: u64) -> bool {
    (0..=5).contains(&allocator)
}

/// Every block keeps, just below itself, the heap pointer it came from (so
/// `omp_free` serves every allocation function) and its size (for
/// `omp_realloc`).
const BLOCK_HEADER: usize = 16;

/// Where the block starting at `start` keeps its heap pointer.
fn heap_pointer_slot(start: usize) -> *mut usize {
    (start - 8) as *mut usize
}

/// Where the block starting at `start` keeps its size.
fn size_slot(start: usize) -> *mut u64 {
    (start - 16) as *mut u64
}

#[unsafe(no_mangle)]
pub extern "C-unwind" fn omp_alloc(bytes: u64, allocator: u64) -> VoidPtr {
    omp_aligned_alloc(16, bytes, allocator)
}

/// NULL also for a size the heap block cannot hold with its header and
/// alignment (a wrapped sum would have been a short block).
#[unsafe(no_mangle)]
pub extern "C-unwind" fn omp_aligned_alloc(align: u64, bytes: u64, allocator: u64) -> VoidPtr {
    if !heap_backed(allocator) || !align.is_power_of_two() {
        return core::ptr::null_mut();
    }
    let align = align.max(16);
    let Some(total) = bytes.checked_add(align + BLOCK_HEADER as u64) else { return core::ptr::null_mut() };
    let raw = crate::arch::malloc(total);
    if raw.is_null() {
        return core::ptr::null_mut();
    }
    let start = (raw as usize + BLOCK_HEADER).div_ceil(align as usize) * align as usize;
    // SAFETY: `raw <= start - 16` and `start + bytes` is inside the block.
    unsafe {
        heap_pointer_slot(start).write(raw as usize);
        size_slot(start).write(bytes);
    }
    start as VoidPtr
}

#[unsafe(no_mangle)]
pub extern "C-unwind" fn omp_calloc(count: u64, size: u64, allocator: u64) -> VoidPtr {
    omp_aligned_calloc(16, count, size, allocator)
}

#[unsafe(no_mangle)]
pub extern "C-unwind" fn omp_aligned_calloc(align: u64, count: u64, size: u64, allocator: u64) -> VoidPtr {
    let Some(bytes) = count.checked_mul(size) else { return core::ptr::null_mut() };
    let p = omp_aligned_alloc(align, bytes, allocator);
    if !p.is_null() {
        // SAFETY: a fresh block of `bytes` bytes.
        unsafe { core::ptr::write_bytes(p.cast::<u8>(), 0, bytes as usize) };
    }
    p
}

/// The block `ptr` reallocated to `bytes` with `allocator` (the null
/// allocator: `free_allocator`, which allocated `ptr`); its first bytes kept.
/// NULL `ptr`: an allocation; zero `bytes`: a free (NULL back). If the new
/// block cannot be had, NULL, and `ptr` stays as it was.
#[unsafe(no_mangle)]
pub extern "C-unwind" fn omp_realloc(ptr: VoidPtr, bytes: u64, allocator: u64, free_allocator: u64) -> VoidPtr {
    let allocator = if allocator == 0 { free_allocator } else { allocator };
    if ptr.is_null() {
        return omp_alloc(bytes, allocator);
    }
    if bytes == 0 {
        omp_free(ptr, free_allocator);
        return core::ptr::null_mut();
    }
    let fresh = omp_alloc(bytes, allocator);
    if fresh.is_null() {
        return fresh;
    }
    // SAFETY: `ptr` came from these functions, which wrote its size below it;
    // `fresh` is a new block of `bytes`.
    unsafe {
        let old = size_slot(ptr as usize).read();
        core::ptr::copy_nonoverlapping(ptr.cast::<u8>(), fresh.cast::<u8>(), old.min(bytes) as usize);
    }
    omp_free(ptr, free_allocator);
    fresh
}

#[unsafe(no_mangle)]
pub extern "C-unwind" fn omp_free(ptr: VoidPtr, _allocator: u64) {
    if ptr.is_null() {
        return;
    }
    // SAFETY: `ptr` came from these functions, which stored the heap pointer
    // just below it.
    let raw = unsafe { heap_pointer_slot(ptr as usize).read() };
    // SAFETY: that heap pointer, given up by the caller with `ptr`.
    unsafe { crate::arch::free(raw as *mut u8) }
}

not_yet! {
    // Host-runtime style reductions, never emitted for a device by clang 22.
    fn __kmpc_reduce(IdentPtr, i32, i32, u64, VoidPtr, FnPtr, CriticalNamePtr) -> i32;
    fn __kmpc_reduce_nowait(IdentPtr, i32, i32, u64, VoidPtr, FnPtr, CriticalNamePtr) -> i32;
    fn __kmpc_end_reduce(IdentPtr, i32, CriticalNamePtr);
    fn __kmpc_end_reduce_nowait(IdentPtr, i32, CriticalNamePtr);

    // Memory.
    fn __kmpc_alloc(i32, u64, VoidPtr) -> VoidPtr;
    fn __kmpc_aligned_alloc(i32, u64, u64, VoidPtr) -> VoidPtr;
    fn __kmpc_free(i32, VoidPtr, VoidPtr);
    fn __kmpc_init_allocator(i32, VoidPtr, i32, VoidPtr) -> VoidPtr;
    fn __kmpc_destroy_allocator(i32, VoidPtr);
    fn __kmpc_threadprivate_cached(IdentPtr, i32, VoidPtr, u64, *mut *mut VoidPtr) -> VoidPtr;
    fn __kmpc_threadprivate_register(IdentPtr, VoidPtr, FnPtr, FnPtr, FnPtr);

    // Tasking that the undeferred tasks of `exports::task` cannot give: `detach`.
    fn __kmpc_task_allow_completion_event(IdentPtr, i32, VoidPtr) -> VoidPtr;
    fn __kmpc_proxy_task_completed_ooo(VoidPtr);
    fn omp_fulfill_event(u64);

    // API routines that change what omprt keeps fixed on the device: the
    // def-allocator-var ICV (always the default allocator) and the device's
    // nteams-var and teams-thread-limit-var (the launch's grid).
    fn omp_set_default_allocator(u64);
    fn omp_set_num_teams(i32);
    fn omp_set_teams_thread_limit(i32);
    // Needs the thread's task nesting, which nothing records yet.
    fn omp_in_explicit_task() -> i32;
}
