//! Reductions, shared memory and allocators, the indirect-call lookup, and
//! the entry points of the table omprt leaves trapping.

use super::*;
use crate::memory::allocator;
use crate::{memory, reduction};
use omprt_abi::alloc::AllocTrait;
use omprt_abi::reduction::{InterWarpCopyFn, ListGlobalFn, ShuffleReduceFn};

// rustc warns that `inline` is ignored on an exported function, yet emits
// `alwaysinline` (`entry_points_meant_for_inlining_are_always_inlined`):
// inlined into the kernel, clang's callbacks become direct calls, which
// cost the kernel far fewer registers than calls through pointers.
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

// omp_alloc & co.: `allocator` says which allocators have memory here.
#[unsafe(no_mangle)]
pub extern "C-unwind" fn omp_alloc(bytes: u64, handle: u64) -> VoidPtr {
    allocator::alloc(16, bytes, handle)
}

#[unsafe(no_mangle)]
pub extern "C-unwind" fn omp_aligned_alloc(align: u64, bytes: u64, handle: u64) -> VoidPtr {
    allocator::alloc(align, bytes, handle)
}

#[unsafe(no_mangle)]
pub extern "C-unwind" fn omp_calloc(count: u64, size: u64, handle: u64) -> VoidPtr {
    omp_aligned_calloc(16, count, size, handle)
}

#[unsafe(no_mangle)]
pub extern "C-unwind" fn omp_aligned_calloc(align: u64, count: u64, size: u64, handle: u64) -> VoidPtr {
    let Some(bytes) = count.checked_mul(size) else { return core::ptr::null_mut() };
    let p = allocator::alloc(align, bytes, handle);
    if !p.is_null() {
        // SAFETY: a fresh block of `bytes` bytes.
        unsafe { core::ptr::write_bytes(p.cast::<u8>(), 0, bytes as usize) };
    }
    p
}

/// The block `ptr` reallocated to `bytes` with `handle` (the null
/// allocator: `free_handle`, which allocated `ptr`); its first bytes kept.
/// NULL `ptr`: an allocation; zero `bytes`: a free (NULL back). If the new
/// block cannot be had, NULL, and `ptr` stays as it was.
#[unsafe(no_mangle)]
pub extern "C-unwind" fn omp_realloc(ptr: VoidPtr, bytes: u64, handle: u64, free_handle: u64) -> VoidPtr {
    let handle = if handle == 0 { free_handle } else { handle };
    if ptr.is_null() {
        return allocator::alloc(16, bytes, handle);
    }
    if bytes == 0 {
        allocator::free(ptr);
        return core::ptr::null_mut();
    }
    let fresh = allocator::alloc(16, bytes, handle);
    if fresh.is_null() {
        return fresh;
    }
    // SAFETY: `ptr` came from these functions and is live; `fresh` is a new
    // block of `bytes`.
    unsafe {
        let old = allocator::size_of_block(ptr);
        core::ptr::copy_nonoverlapping(ptr.cast::<u8>(), fresh.cast::<u8>(), old.min(bytes) as usize);
    }
    allocator::free(ptr);
    fresh
}

#[unsafe(no_mangle)]
pub extern "C-unwind" fn omp_free(ptr: VoidPtr, _handle: u64) {
    allocator::free(ptr)
}

/// Under `requires dynamic_allocators` a target region may make allocators.
#[unsafe(no_mangle)]
pub unsafe extern "C-unwind" fn omp_init_allocator(space: u64, ntraits: i32, traits: *const AllocTrait) -> u64 {
    // SAFETY: the caller's array of `ntraits` traits.
    unsafe { allocator::init(space, ntraits, traits) }
}

#[unsafe(no_mangle)]
pub extern "C-unwind" fn omp_destroy_allocator(handle: u64) {
    allocator::destroy(handle)
}

/// The device function behind a host function pointer (`declare target
/// indirect`); see [`crate::libc::indirect_call`].
#[unsafe(no_mangle)]
pub extern "C-unwind" fn __llvm_omp_indirect_call_lookup(host: *const c_void) -> *const c_void {
    crate::libc::indirect_call::lookup(host.cast()).cast()
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

    // Proxy tasks, which only the host runtime makes.
    fn __kmpc_proxy_task_completed_ooo(VoidPtr);
}
