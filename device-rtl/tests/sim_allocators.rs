//! The memory allocators of `omp.h` in the host simulation: the predefined
//! ones, and those `omp_init_allocator` makes with traits (alignment, pool
//! size, each fallback), as a target region under `requires
//! dynamic_allocators` uses them.

mod common;

use common::*;
use omprt_abi::ExecMode;
use omprt_abi::alloc::{AllocTrait, allocator, key, memspace, value};
use omprt_device_rtl::arch::{self, sim};
use std::sync::atomic::{AtomicU32, Ordering};
use omprt_device_rtl::exports::{api::*, kernel::*, misc::*, parallel::*};
use std::ffi::c_void;

/// Runs `body` in one SPMD thread, after the kernel's init.
fn on_device(body: impl Fn() + Send + Sync) {
    let env = Shared(kernel_env(ExecMode::SPMD, 32));
    sim::launch(1, 1, || unsafe {
        __kmpc_target_init(env.get(), no_launch_env());
        body();
    });
}

fn make(space: u64, traits: &[(i32, u64)]) -> u64 {
    let traits: Vec<AllocTrait> = traits.iter().map(|&(key, value)| AllocTrait { key, value }).collect();
    unsafe { omp_init_allocator(space, traits.len() as i32, traits.as_ptr()) }
}

#[test]
fn omp_alloc_respects_allocators_and_alignment() {
    let env = Shared(kernel_env(ExecMode::SPMD, 32));
    sim::launch(1, 1, || unsafe {
        __kmpc_target_init(env.get(), no_launch_env());
        let p = omp_alloc(100, 1);
        assert!(!p.is_null() && (p as usize).is_multiple_of(16));
        let q = omp_aligned_alloc(256, 10, 1);
        assert!(!q.is_null() && (q as usize).is_multiple_of(256));
        assert!(omp_alloc(8, 7).is_null(), "omp_pteam_mem_alloc has no heap memory");
        assert!(!omp_alloc(8, 0).is_null(), "the null allocator is the default one");
        assert!(omp_alloc(u64::MAX - 8, 1).is_null(), "a size past the heap block's range");
        omp_free(p, 1);
        omp_free(q, 1);
        omp_free(std::ptr::null_mut(), 1);
    });
}

#[test]
fn omp_calloc_zeroes_and_omp_realloc_keeps_the_first_bytes() {
    let env = Shared(kernel_env(ExecMode::SPMD, 32));
    sim::launch(1, 1, || unsafe {
        __kmpc_target_init(env.get(), no_launch_env());
        let c = omp_calloc(10, 12, 1).cast::<u8>();
        assert!(!c.is_null() && std::slice::from_raw_parts(c, 120).iter().all(|&b| b == 0));
        assert!(omp_calloc(u64::MAX / 2, 3, 1).is_null(), "count * size overflows");
        let a = omp_aligned_calloc(128, 3, 5, 1);
        assert!(!a.is_null() && (a as usize).is_multiple_of(128));
        for i in 0..120 {
            *c.add(i) = i as u8;
        }
        // Larger (the null allocator: the one `c` came from), then smaller.
        let g = omp_realloc(c.cast(), 300, 0, 1).cast::<u8>();
        assert!(!g.is_null() && (0..120).all(|i| *g.add(i) == i as u8));
        let s = omp_realloc(g.cast(), 7, 1, 1).cast::<u8>();
        assert!(!s.is_null() && (0..7).all(|i| *s.add(i) == i as u8));
        // No new block: NULL, and the old one stays.
        assert!(omp_realloc(s.cast(), 8, 7, 1).is_null());
        assert_eq!(*s.add(6), 6);
        assert!(omp_realloc(s.cast(), 0, 1, 1).is_null(), "size 0 frees");
        let n = omp_realloc(std::ptr::null_mut(), 16, 1, 1);
        assert!(!n.is_null());
        omp_free(n, 1);
        omp_free(a, 1);
    });
}

#[test]
fn llvm_device_memory_comes_from_the_heap_and_host_memory_is_not_there() {
    on_device(|| {
        let p = omp_alloc(64, allocator::LLVM_TARGET_DEVICE_MEM);
        assert!(!p.is_null());
        omp_free(p, allocator::LLVM_TARGET_DEVICE_MEM);
        assert!(omp_alloc(64, allocator::LLVM_TARGET_HOST_MEM).is_null());
        assert!(omp_alloc(64, allocator::LLVM_TARGET_SHARED_MEM).is_null());
    });
}

#[test]
fn an_allocator_with_an_alignment_trait_aligns_every_block() {
    on_device(|| {
        let a = make(memspace::HIGH_BW, &[(key::ALIGNMENT, 1024), (key::SYNC_HINT, value::CONTENDED), (key::ACCESS, value::ALL)]);
        assert_ne!(a, allocator::NULL);
        let blocks: Vec<_> = (0..5).map(|i| omp_alloc(10 + i, a)).collect();
        assert!(blocks.iter().all(|&p| !p.is_null() && (p as usize).is_multiple_of(1024)), "{blocks:?}");
        // A larger alignment asked of the routine wins over the trait's.
        let big = omp_aligned_alloc(4096, 8, a);
        assert!((big as usize).is_multiple_of(4096));
        for p in blocks {
            omp_free(p, a);
        }
        omp_free(big, allocator::NULL);
        omp_destroy_allocator(a);
    });
}

#[test]
fn a_pool_hands_out_its_size_then_the_fallback_decides() {
    on_device(|| {
        let null_fb = make(memspace::DEFAULT, &[(key::POOL_SIZE, 100), (key::FALLBACK, value::NULL_FB)]);
        let p = omp_alloc(60, null_fb);
        assert!(!p.is_null());
        assert!(omp_alloc(41, null_fb).is_null(), "60 + 41 bytes exceed the pool of 100");
        let q = omp_alloc(40, null_fb);
        assert!(!q.is_null(), "60 + 40 bytes fit");
        omp_free(p, null_fb);
        let r = omp_calloc(6, 10, null_fb);
        assert!(!r.is_null(), "a freed block's bytes return to the pool");
        // Reallocated: the new block counts before the old one goes.
        assert!(omp_realloc(r, 61, null_fb, null_fb).is_null(), "40 + 60 + 61 bytes");
        omp_free(q, null_fb);
        let r = omp_realloc(r, 20, null_fb, null_fb);
        assert!(!r.is_null(), "60 + 20 bytes, then the 60 go");
        let s = omp_alloc(80, null_fb);
        assert!(!s.is_null(), "20 + 80 bytes fit");
        omp_free(r, null_fb);
        assert!(omp_alloc(21, null_fb).is_null(), "the block of 80 stays");
        omp_free(s, null_fb);
        assert!(!omp_alloc(100, null_fb).is_null(), "the whole pool is free again");

        // The default fallback tries the default memory without the pool.
        let default_fb = make(memspace::DEFAULT, &[(key::POOL_SIZE, 16)]);
        let big = omp_alloc(1000, default_fb);
        assert!(!big.is_null());
        omp_free(big, default_fb);

        // allocator_fb goes on to the allocator in fb_data, and its traits.
        let aligned = make(memspace::DEFAULT, &[(key::ALIGNMENT, 512)]);
        let chained = make(memspace::LARGE_CAP, &[(key::POOL_SIZE, 16), (key::FALLBACK, value::ALLOCATOR_FB), (key::FB_DATA, aligned)]);
        let c = omp_alloc(100, chained);
        assert!(!c.is_null() && (c as usize).is_multiple_of(512));
        omp_free(c, chained);
        for a in [null_fb, default_fb, chained, aligned] {
            omp_destroy_allocator(a);
        }
    });
}

#[test]
fn an_exhausted_heap_takes_the_fallback_too() {
    // Made in one launch, used in the next, whose first heap request fails.
    let handles = std::sync::Mutex::new((0, 0));
    on_device(|| *handles.lock().unwrap() = (make(memspace::DEFAULT, &[(key::FALLBACK, value::NULL_FB)]), make(memspace::DEFAULT, &[])));
    let (null_fb, default_fb) = *handles.lock().unwrap();
    sim::fail_mallocs(1);
    on_device(|| assert!(omp_alloc(8, null_fb).is_null()));
    sim::fail_mallocs(1);
    on_device(|| assert!(!omp_alloc(8, default_fb).is_null(), "the second try, on the default memory, gets a block"));
}

#[test]
fn an_abort_fallback_traps_with_a_message() {
    let msg = trap_message(|| {
        on_device(|| {
            let a = make(memspace::DEFAULT, &[(key::POOL_SIZE, 8), (key::FALLBACK, value::ABORT_FB)]);
            omp_alloc(9, a);
        })
    });
    assert!(msg.contains("abort_fb"), "{msg}");
}

#[test]
fn allocators_the_device_cannot_honour_are_not_made() {
    on_device(|| {
        assert_eq!(make(memspace::NULL, &[]), allocator::NULL, "no memory space");
        assert_eq!(make(memspace::LLVM_TARGET_HOST, &[]), allocator::NULL, "host memory");
        assert_eq!(make(memspace::DEFAULT, &[(key::ALIGNMENT, 48)]), allocator::NULL, "not a power of two");
        assert_eq!(make(memspace::DEFAULT, &[(key::FALLBACK, value::ALLOCATOR_FB)]), allocator::NULL, "no fb_data");
        assert_eq!(make(memspace::DEFAULT, &[(key::SYNC_HINT, value::BLOCKED)]), allocator::NULL, "a value of another trait");
        assert_eq!(make(memspace::DEFAULT, &[(key::PART_SIZE, 64)]), allocator::NULL, "an OpenMP 6 trait");
        assert_eq!(unsafe { omp_init_allocator(memspace::DEFAULT, -1, std::ptr::null()) }, allocator::NULL);
        let ok = make(memspace::LOW_LAT, &[(key::PART_SIZE, value::DEFAULT), (key::PINNED, value::TRUE), (key::PARTITION, value::INTERLEAVED)]);
        assert_ne!(ok, allocator::NULL, "defaults and the device's own answers are honoured");
        omp_destroy_allocator(ok);
        // A predefined allocator stays.
        omp_destroy_allocator(allocator::DEFAULT_MEM);
        assert!(!omp_alloc(8, allocator::DEFAULT_MEM).is_null());
    });
    sim::fail_mallocs(1);
    on_device(|| assert_eq!(make(memspace::DEFAULT, &[]), allocator::NULL, "the heap could not hold the record"));
}

#[test]
fn a_handle_omp_init_allocator_did_not_return_traps_with_a_message() {
    // Readable memory that is no allocator record, and a misaligned address.
    let not_a_record = Box::new([0u64; 8]);
    for handle in [not_a_record.as_ptr() as u64, not_a_record.as_ptr() as u64 + 4] {
        let msg = trap_message(move || {
            on_device(move || {
                omp_alloc(8, handle);
            })
        });
        assert!(msg.contains("omp_init_allocator did not return"), "{msg}");
    }
}

#[test]
fn a_block_of_threads_shares_a_pool_without_losing_a_byte() {
    let pool = std::sync::atomic::AtomicU64::new(0);
    on_device(|| pool.store(make(memspace::DEFAULT, &[(key::POOL_SIZE, 16 * 64), (key::FALLBACK, value::NULL_FB)]), Ordering::Relaxed));
    let pool = pool.load(Ordering::Relaxed);
    let env = Shared(kernel_env(ExecMode::SPMD, 64));
    let (got, after) = (AtomicU32::new(0), AtomicU32::new(0));
    sim::launch(1, 64, || unsafe {
        __kmpc_target_init(env.get(), no_launch_env());
        let p = omp_alloc(64, pool);
        got.fetch_add(u32::from(!p.is_null()), Ordering::Relaxed);
        // Every thread has asked before any gives its block back.
        arch::sync_threads_aligned();
        omp_free(p, pool);
        arch::sync_threads_aligned();
        let q = omp_alloc(64, pool);
        after.fetch_add(u32::from(!q.is_null()), Ordering::Relaxed);
        arch::sync_threads_aligned();
        omp_free(q, pool);
    });
    assert_eq!((got.into_inner(), after.into_inner()), (16, 16));
}

/// Whether `p` is aligned to `align`; NULL is not.
fn aligned(p: *mut c_void, align: usize) -> bool {
    !p.is_null() && (p as usize).is_multiple_of(align)
}

/// In a generic region: each worker allocates from the null allocator,
/// which must be the main thread's default (512-byte aligned); worker 3
/// then sets its own, omp_pteam_mem_alloc (no memory), which no one else
/// sees.
extern "C-unwind" fn def_allocator_region(_g: *mut i32, _b: *mut i32, wrong: *mut c_void) {
    let wrong = unsafe { &*(wrong as *const AtomicU32) };
    let inherited = omp_get_default_allocator();
    let p = omp_alloc(24, allocator::NULL);
    if inherited < 1 << 16 || !aligned(p, 512) {
        wrong.fetch_add(1, Ordering::Relaxed);
    }
    omp_free(p, allocator::NULL);
    if omp_get_thread_num() == 3 {
        omp_set_default_allocator(allocator::PTEAM_MEM);
        if omp_get_default_allocator() != allocator::PTEAM_MEM || !omp_alloc(8, allocator::NULL).is_null() {
            wrong.fetch_add(100, Ordering::Relaxed);
        }
    }
}

extern "C-unwind" fn def_allocator_wrapper(_z: i16, tid: i32) {
    let mut args: *mut *mut c_void = std::ptr::null_mut();
    unsafe { __kmpc_get_shared_variables(&mut args) };
    let (mut g, mut b) = (tid, 0);
    def_allocator_region(&mut g, &mut b, unsafe { *args });
}

/// def-allocator-var: omp_default_mem_alloc at every kernel's start; set by
/// the main thread, what the null allocator means there and in the next
/// region's threads; set by a region's thread, its own. Fails if the null
/// allocator ignores the ICV, if the workers do not inherit it, or if a new
/// kernel starts with the last one's.
#[test]
fn the_null_allocator_is_the_default_allocator_icv() {
    let env = Shared(kernel_env(ExecMode::GENERIC, 64));
    let wrong = AtomicU32::new(0);
    for launch in 0..2 {
        sim::launch(1, 64, || unsafe {
            if __kmpc_target_init(env.get(), no_launch_env()) != -1 {
                return;
            }
            assert_eq!(omp_get_default_allocator(), allocator::DEFAULT_MEM, "launch {launch} starts with the default");
            let wide = make(memspace::DEFAULT, &[(key::ALIGNMENT, 512)]);
            omp_set_default_allocator(wide);
            assert_eq!(omp_get_default_allocator(), wide);
            let blocks: Vec<_> = (0..4).map(|i| omp_alloc(8 + i, allocator::NULL)).collect();
            assert!(blocks.iter().all(|&p| aligned(p, 512)), "the null allocator did not take the ICV's alignment");
            let q = omp_realloc(blocks[0], 64, allocator::NULL, allocator::NULL);
            assert!(aligned(q, 512), "omp_realloc with two null allocators takes the ICV");
            let mut args = [&wrong as *const _ as *mut c_void];
            __kmpc_parallel_60(std::ptr::null(), 0, 1, -1, -1, def_allocator_region as *mut c_void, def_allocator_wrapper as *mut c_void, args.as_mut_ptr(), 1, 0);
            assert_eq!(omp_get_default_allocator(), wide, "a worker's setting leaked to the main thread");
            for p in [q, blocks[1], blocks[2], blocks[3]] {
                omp_free(p, allocator::NULL);
            }
            omp_destroy_allocator(wide);
            __kmpc_target_deinit();
        });
    }
    assert_eq!(wrong.into_inner(), 0, "a worker saw another default allocator than the main thread's");
}

/// An allocator whose fallback is the null allocator falls back to the
/// default one, not to the ICV: with the ICV naming that allocator, taking
/// the ICV looped for ever.
#[test]
fn a_null_fallback_allocator_is_the_default_even_when_the_icv_names_the_allocator() {
    let (done, finished) = std::sync::mpsc::channel();
    // Apart, so that a loop fails the test instead of hanging it.
    std::thread::spawn(move || {
        on_device(|| {
            let small = make(memspace::DEFAULT, &[(key::POOL_SIZE, 16), (key::FALLBACK, value::ALLOCATOR_FB), (key::FB_DATA, allocator::NULL)]);
            assert_ne!(small, allocator::NULL);
            omp_set_default_allocator(small);
            let p = omp_alloc(64, allocator::NULL);
            assert!(!p.is_null(), "the pool is too small, and the fallback is the default allocator");
            omp_free(p, allocator::NULL);
            omp_destroy_allocator(small);
        });
        done.send(()).unwrap();
    });
    finished.recv_timeout(std::time::Duration::from_secs(20)).expect("omp_alloc did not return: the fallback chain loops");
}
