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
// high_bw, low_lat) come from the device heap; the team/thread-local ones
// (cgroup, pteam, thread) and null get NULL, which the spec allows for an
// allocator that cannot satisfy a request.
fn heap_backed(allocator: u64) -> bool {
    (1..=5).contains(&allocator)
}

/// Every block keeps the heap pointer it came from just below itself, so
/// `omp_free` serves both allocation functions.
#[unsafe(no_mangle)]
pub extern "C-unwind" fn omp_alloc(bytes: u64, allocator: u64) -> VoidPtr {
    omp_aligned_alloc(16, bytes, allocator)
}

#[unsafe(no_mangle)]
pub extern "C-unwind" fn omp_aligned_alloc(align: u64, bytes: u64, allocator: u64) -> VoidPtr {
    if !heap_backed(allocator) || !align.is_power_of_two() {
        return core::ptr::null_mut();
    }
    let align = align.max(16);
    let raw = crate::arch::malloc(bytes + align + 8);
    if raw.is_null() {
        return core::ptr::null_mut();
    }
    let start = (raw as usize + 8).div_ceil(align as usize) * align as usize;
    // SAFETY: `raw <= start - 8` and `start + bytes` is inside the block.
    unsafe { ((start - 8) as *mut usize).write(raw as usize) };
    start as VoidPtr
}

#[unsafe(no_mangle)]
pub extern "C-unwind" fn omp_free(ptr: VoidPtr, _allocator: u64) {
    if ptr.is_null() {
        return;
    }
    // SAFETY: `ptr` came from omp_alloc/omp_aligned_alloc, which stored the
    // heap pointer just below it.
    let raw = unsafe { ((ptr as usize - 8) as *const usize).read() };
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
}
