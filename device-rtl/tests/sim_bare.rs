//! `ompx_*` in a bare kernel (`target teams ompx_bare`): no
//! `__kmpc_target_init`, only hardware queries, block barriers and warp
//! collectives.

use omprt_device_rtl::arch::sim;
use omprt_device_rtl::exports::ompx::*;
use std::sync::atomic::{AtomicU32, Ordering};

#[test]
fn grid_queries_barriers_and_warp_collectives() {
    const BLOCKS: u32 = 3;
    const THREADS: u32 = 64;
    let slots: Vec<AtomicU32> = (0..BLOCKS * THREADS).map(|_| AtomicU32::new(0)).collect();
    let errors = AtomicU32::new(0);
    sim::launch(BLOCKS, THREADS, || {
        let (t, b) = (ompx_thread_id(0), ompx_block_id(0));
        let ok = ompx_block_dim(0) == THREADS as i32
            && ompx_grid_dim(0) == BLOCKS as i32
            && (ompx_thread_id(1), ompx_block_id(2), ompx_block_dim(1), ompx_grid_dim(2)) == (0, 0, 1, 1);
        // Each thread writes its slot; after the barrier it reads a neighbour's.
        let me = (b as u32 * THREADS + t as u32) as usize;
        slots[me].store(t as u32 + 1, Ordering::Relaxed);
        ompx_sync_block_acq_rel();
        let neighbour = b as u32 * THREADS + (t as u32 + 1) % THREADS;
        let seen = slots[neighbour as usize].load(Ordering::Relaxed);
        ompx_sync_block_divergent(0);
        let ballot = ompx_ballot_sync(u64::MAX, t % 2);
        let down = ompx_shfl_down_sync_i(u64::MAX, t, 1, 32);
        let down_l = ompx_shfl_down_sync_l(u64::MAX, i64::from(t) << 33, 2, 32);
        let down_d = ompx_shfl_down_sync_d(u64::MAX, f64::from(t) * 0.5, 4, 32);
        let lane = t % 32;
        let expect = |delta: i32| if lane + delta < 32 { t + delta } else { t };
        let good = ok
            && seen == (t as u32 + 1) % THREADS + 1
            && ballot == 0xAAAA_AAAA
            && down == expect(1)
            && down_l == i64::from(expect(2)) << 33
            && down_d == f64::from(expect(4)) * 0.5
            && ompx_shfl_down_sync_f(u64::MAX, t as f32, 8, 16) == (if lane % 16 + 8 < 16 { t + 8 } else { t }) as f32;
        if !good {
            errors.fetch_add(1, Ordering::Relaxed);
        }
    });
    assert_eq!(errors.load(Ordering::Relaxed), 0);
}

#[test]
fn dynamic_shared_memory_is_the_blocks_own() {
    const BLOCKS: u32 = 2;
    const THREADS: u32 = 40;
    let errors = AtomicU32::new(0);
    sim::launch_with_dynamic_shared(BLOCKS, THREADS, THREADS * 4, || {
        let p = llvm_omp_target_dynamic_shared_alloc().cast::<u32>();
        let same = p == llvm_omp_get_dynamic_shared().cast() && p == __kmpc_get_dynamic_shared().cast();
        let (t, b) = (ompx_thread_id(0) as u32, ompx_block_id(0) as u32);
        // SAFETY: THREADS u32 slots were provided; each thread writes its own.
        unsafe { p.add(t as usize).write_volatile(b * 1000 + t) };
        ompx_sync_block_acq_rel();
        let next = (t + 1) % THREADS;
        // SAFETY: as above, written before the barrier.
        let seen = unsafe { p.add(next as usize).read_volatile() };
        if !same || p.is_null() || !(p as usize).is_multiple_of(16) || seen != b * 1000 + next {
            errors.fetch_add(1, Ordering::Relaxed);
        }
    });
    assert_eq!(errors.load(Ordering::Relaxed), 0);
    sim::launch(1, 2, || assert!(llvm_omp_target_dynamic_shared_alloc().is_null(), "a launch without dynamic shared memory gets null"));
}
