//! Host simulation backend of [`crate::arch`].
//!
//! [`launch`] runs a grid of `blocks × threads` OS threads on a simulated
//! [`Device`]. Each thread knows its ids through a thread-local; each
//! simulated block owns its instances of the team statics ([`TeamStatic`]),
//! a block barrier, counted ("named") barriers and one exchange area per warp
//! for shuffles and votes; each device owns its instances of the device
//! statics ([`DeviceStatic`]) and what its kernels printed.
//!
//! Barriers follow the hardware rule the runtime relies on: a thread that has
//! left the kernel counts as arrived. Warp collectives model *converged* warps
//! only (every live lane of the warp takes part), which is how the runtime
//! uses them. A trap in any simulated thread poisons the grid: every thread
//! blocked in a barrier panics too, so a failing test ends instead of hanging.
#![allow(unsafe_code)]

use super::WARP_SIZE;
use std::any::Any;
use std::cell::RefCell;
use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicI64, AtomicU32, AtomicUsize, Ordering};
use std::sync::{Arc, Condvar, Mutex, OnceLock, PoisonError};
use std::time::{Duration, Instant};

/// A barrier over the threads still alive: exiting lowers the count.
struct LiveBarrier {
    state: Mutex<LiveState>,
    cv: Condvar,
}

struct LiveState {
    live: u32,
    arrived: u32,
    generation: u64,
    /// `barrier.red.or`: the predicates of this generation so far, and the
    /// result of the last completed one.
    any: bool,
    result: bool,
}

impl LiveBarrier {
    fn new(live: u32) -> Self {
        LiveBarrier { state: Mutex::new(LiveState { live, arrived: 0, generation: 0, any: false, result: false }), cv: Condvar::new() }
    }

    fn wait(&self, poisoned: &AtomicBool) {
        self.wait_or(poisoned, false);
    }

    /// Waits like `wait`; returns whether any arriving thread passed `true`.
    fn wait_or(&self, poisoned: &AtomicBool, pred: bool) -> bool {
        let mut s = lock(&self.state);
        s.any |= pred;
        s.arrived += 1;
        if s.arrived >= s.live {
            Self::complete(&mut s);
            self.cv.notify_all();
            return s.result;
        }
        let generation = s.generation;
        while s.generation == generation {
            check_poison(poisoned);
            s = self.cv.wait_timeout(s, Duration::from_millis(20)).unwrap_or_else(PoisonError::into_inner).0;
        }
        // The next generation cannot complete without this thread.
        s.result
    }

    fn complete(s: &mut LiveState) {
        s.result = s.any;
        s.any = false;
        s.arrived = 0;
        s.generation += 1;
    }

    fn leave(&self) {
        // A thread that trapped while holding the lock poisoned it; leaving
        // must still count, or the others wait forever.
        let mut s = lock(&self.state);
        s.live -= 1;
        if s.arrived > 0 && s.arrived >= s.live {
            Self::complete(&mut s);
            self.cv.notify_all();
        }
    }
}

/// Locks a mutex of the simulation. A simulated thread that traps panics
/// while holding one (a barrier's, in `check_poison`); the others must still
/// get in, see the poison and end with "another simulated thread trapped",
/// not with a `PoisonError` taken for the launch's failure.
fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

fn check_poison(poisoned: &AtomicBool) {
    if poisoned.load(Ordering::Relaxed) {
        panic!("omprt sim: another simulated thread trapped");
    }
}

/// Barrier `id` with an explicit thread count (PTX `barrier.sync id, count`).
#[derive(Default)]
struct CountedState {
    arrived: HashMap<u32, (u32, u64)>,
}

struct Warp {
    barrier: LiveBarrier,
    slots: Mutex<[u64; WARP_SIZE as usize]>,
}

struct Block {
    barrier: LiveBarrier,
    /// The `barrier.red.or` of `sync_threads_or` (its own barrier id on the GPU).
    or_barrier: LiveBarrier,
    counted: Mutex<CountedState>,
    counted_cv: Condvar,
    warps: Vec<Warp>,
    /// The block's instances of the team statics: its shared memory.
    statics: Instances,
    dynamic: DynamicShared,
}

/// How many team statics, and how many device statics, the runtime may declare.
const STATIC_SLOTS: usize = 32;

/// One instance of a team or device static, with the bytes it spans.
struct Instance {
    value: Box<dyn Any + Send + Sync>,
    start: usize,
    bytes: usize,
}

/// A block's (or a device's) instances of the statics, by slot; each made on
/// first use.
struct Instances(Box<[OnceLock<Instance>]>);

impl Instances {
    fn new() -> Self {
        Instances((0..STATIC_SLOTS).map(|_| OnceLock::new()).collect())
    }

    fn get_or_make<T: Send + Sync + 'static>(&self, slot: usize, make: fn() -> T) -> &T {
        let instance = self.0[slot].get_or_init(|| {
            let value = Box::new(make());
            let start = std::ptr::addr_of!(*value) as usize;
            Instance { value, start, bytes: size_of::<T>() }
        });
        instance.value.downcast_ref::<T>().expect("omprt sim: a static's slot holds another type")
    }

    fn contains(&self, p: usize) -> bool {
        self.0.iter().filter_map(OnceLock::get).any(|i| (i.start..i.start + i.bytes).contains(&p))
    }
}

static NEXT_TEAM_SLOT: AtomicUsize = AtomicUsize::new(0);
static NEXT_DEVICE_SLOT: AtomicUsize = AtomicUsize::new(0);

/// The slot of a static, given on its first use.
fn slot_of(slot: &OnceLock<usize>, next: &AtomicUsize) -> usize {
    *slot.get_or_init(|| {
        let given = next.fetch_add(1, Ordering::Relaxed);
        assert!(given < STATIC_SLOTS, "omprt sim: more than {STATIC_SLOTS} statics of one kind");
        given
    })
}

/// A team-shared static's holder ([`team_static!`](super::team_static)):
/// every simulated block has its own instance, made on first use.
pub struct TeamStatic<T> {
    make: fn() -> T,
    slot: OnceLock<usize>,
}

impl<T: Send + Sync + 'static> TeamStatic<T> {
    pub const fn new(make: fn() -> T) -> Self {
        TeamStatic { make, slot: OnceLock::new() }
    }

    /// The calling simulated thread's block's instance.
    pub fn get(&'static self) -> &'static T {
        let slot = slot_of(&self.slot, &NEXT_TEAM_SLOT);
        // SAFETY: the block outlives every simulated thread of it (launch
        // joins all threads before dropping the blocks), and only those
        // threads call this.
        with(|t| unsafe { &*std::ptr::from_ref(t.block.statics.get_or_make(slot, self.make)) })
    }
}

/// A device-wide static's holder ([`device_static!`](super::device_static)):
/// every simulated [`Device`] has its own instance, made on first use.
pub struct DeviceStatic<T> {
    make: fn() -> T,
    slot: OnceLock<usize>,
}

impl<T: Send + Sync + 'static> DeviceStatic<T> {
    pub const fn new(make: fn() -> T) -> Self {
        DeviceStatic { make, slot: OnceLock::new() }
    }

    /// The instance of the device the caller runs on: a simulated thread's
    /// grid's, or, between launches, the calling thread's ([`Device::enter`]).
    pub fn get(&'static self) -> &'static T {
        let slot = slot_of(&self.slot, &NEXT_DEVICE_SLOT);
        let device = current_device();
        // SAFETY: a grid's device lives until all its threads ended; the
        // calling thread's lives until the thread ends or enters another,
        // and a test reads what it needs between those points.
        unsafe { &*std::ptr::from_ref(device.0.statics.get_or_make(slot, self.make)) }
    }
}

/// A simulated GPU: its instances of the device statics, what its kernels
/// printed, and the device-heap failures a test asked for. Clones are the
/// same device, so that grids launched from several host threads share it
/// as kernels of one program share a GPU.
#[derive(Clone)]
pub struct Device(Arc<DeviceState>);

struct DeviceState {
    statics: Instances,
    /// What the device printed ([`print_line`]).
    output: Mutex<String>,
    /// `malloc`s still to fail ([`fail_mallocs`]).
    failing_mallocs: AtomicU32,
    /// Heap blocks allocated and not freed, by any grid of the device.
    live_heap_blocks: AtomicI64,
}

impl Default for Device {
    fn default() -> Self {
        Self::new()
    }
}

impl Device {
    /// A fresh device: every device static at its initial value.
    pub fn new() -> Self {
        Device(Arc::new(DeviceState {
            statics: Instances::new(),
            output: Mutex::new(String::new()),
            failing_mallocs: AtomicU32::new(0),
            live_heap_blocks: AtomicI64::new(0),
        }))
    }

    /// The device the calling thread launches on, one per host thread (so
    /// per test), unless the thread [`enter`](Device::enter)s another.
    pub fn of_this_thread() -> Self {
        THIS_THREADS_DEVICE.with(|d| d.borrow().clone())
    }

    /// Makes this the calling thread's device while `f` runs: its launches
    /// and its reads of device statics between launches go to it.
    pub fn enter<R>(&self, f: impl FnOnce() -> R) -> R {
        let previous = THIS_THREADS_DEVICE.with(|d| std::mem::replace(&mut *d.borrow_mut(), self.clone()));
        struct Restore(Option<Device>);
        impl Drop for Restore {
            fn drop(&mut self) {
                let previous = self.0.take();
                THIS_THREADS_DEVICE.with(|d| *d.borrow_mut() = previous.expect("the device to restore"));
            }
        }
        let _restore = Restore(Some(previous));
        f()
    }

    /// Heap blocks the device's grids allocated and did not free: with every
    /// grid ended and the blocks given back freed, 0 unless something leaked.
    pub fn live_heap_blocks(&self) -> i64 {
        self.0.live_heap_blocks.load(Ordering::SeqCst)
    }

    /// [`launch`] on this device.
    pub fn launch<F: Fn() + Sync>(&self, num_blocks: u32, threads_per_block: u32, body: F) {
        self.enter(|| launch(num_blocks, threads_per_block, body))
    }
}

fn current_device() -> Device {
    CURRENT.with(|c| match c.borrow().as_ref() {
        Some(t) => t.grid.device.clone(),
        None => Device::of_this_thread(),
    })
}

/// The block's dynamic shared memory, 16-byte aligned like the GPU's.
struct DynamicShared(Box<[std::cell::UnsafeCell<u128>]>, u32);

// SAFETY: the runtime hands out a raw pointer; the simulated threads of the
// block synchronise their accesses as they would on a GPU.
unsafe impl Sync for DynamicShared {}

struct Grid {
    poisoned: AtomicBool,
    start: Instant,
    device: Device,
    /// [`serve_out_of_line_callers`] at launch.
    out_of_line_callers: bool,
    /// [`inline_into_clangs_calls`] at launch.
    inlined_into_clangs_calls: bool,
}

#[derive(Clone)]
struct SimThread {
    tid: u32,
    bid: u32,
    ntid: u32,
    nblocks: u32,
    block: Arc<Block>,
    grid: Arc<Grid>,
    /// The top of the simulated thread's own stack: what lies below it, within
    /// [`SIM_STACK_BYTES`], is the thread's local memory.
    stack_top: usize,
}

/// The stack of each simulated thread.
const SIM_STACK_BYTES: usize = 256 * 1024;

thread_local! {
    static CURRENT: RefCell<Option<SimThread>> = const { RefCell::new(None) };
    /// The device a thread launches on: one per thread that launches grids,
    /// that is per test, so that tests running side by side share no device
    /// statics.
    static THIS_THREADS_DEVICE: RefCell<Device> = RefCell::new(Device::new());
    static OUT_OF_LINE_CALLERS: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
    static INLINED_INTO_CLANGS_CALLS: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
    /// Heap blocks this OS thread allocated minus those it freed
    /// ([`live_heap_blocks`]).
    static LIVE_HEAP_BLOCKS: std::cell::Cell<i64> = const { std::cell::Cell::new(0) };
}

/// For tests: heap blocks the calling (simulated) thread has allocated and
/// not freed, so that a test can tell a runtime entry gave back what it took.
pub fn live_heap_blocks() -> i64 {
    LIVE_HEAP_BLOCKS.with(std::cell::Cell::get)
}

fn with<R>(f: impl FnOnce(&SimThread) -> R) -> R {
    CURRENT.with(|c| {
        let c = c.borrow();
        let t = c.as_ref().expect("omprt sim: runtime entry point called outside arch::sim::launch");
        f(t)
    })
}

/// Runs `body` on a simulated grid of `num_blocks` blocks of
/// `threads_per_block` threads and waits for all of them. Panics (after all
/// threads ended) if any simulated thread panicked or trapped.
pub fn launch<F>(num_blocks: u32, threads_per_block: u32, body: F)
where
    F: Fn() + Sync,
{
    launch_with_dynamic_shared(num_blocks, threads_per_block, 0, body)
}

/// [`launch`] with `dynamic_bytes` of dynamic shared memory per block (the
/// launch's `sharedMemBytes`: `ompx_dyn_cgroup_mem`, `LIBOMPTARGET_SHARED_MEMORY_SIZE`).
pub fn launch_with_dynamic_shared<F>(num_blocks: u32, threads_per_block: u32, dynamic_bytes: u32, body: F)
where
    F: Fn() + Sync,
{
    assert!(num_blocks > 0 && threads_per_block > 0 && threads_per_block <= 1024);
    let grid = Arc::new(Grid {
        poisoned: AtomicBool::new(false),
        start: Instant::now(),
        device: Device::of_this_thread(),
        out_of_line_callers: OUT_OF_LINE_CALLERS.with(std::cell::Cell::get),
        inlined_into_clangs_calls: INLINED_INTO_CLANGS_CALLS.with(std::cell::Cell::get),
    });
    let warps_per_block = threads_per_block.div_ceil(WARP_SIZE);
    let blocks: Vec<Arc<Block>> = (0..num_blocks)
        .map(|_| {
            let warps = (0..warps_per_block)
                .map(|w| {
                    let lanes = (threads_per_block - w * WARP_SIZE).min(WARP_SIZE);
                    Warp { barrier: LiveBarrier::new(lanes), slots: Mutex::new([0; WARP_SIZE as usize]) }
                })
                .collect();
            Arc::new(Block {
                barrier: LiveBarrier::new(threads_per_block),
                or_barrier: LiveBarrier::new(threads_per_block),
                counted: Mutex::new(CountedState::default()),
                counted_cv: Condvar::new(),
                warps,
                statics: Instances::new(),
                dynamic: DynamicShared(
                    (0..dynamic_bytes.div_ceil(16)).map(|_| std::cell::UnsafeCell::new(0)).collect(),
                    dynamic_bytes,
                ),
            })
        })
        .collect();
    let body = &body;
    let failures = std::thread::scope(|s| {
        let mut handles = Vec::new();
        for (bid, block) in blocks.iter().enumerate() {
            for tid in 0..threads_per_block {
                let me = SimThread {
                    tid,
                    bid: bid as u32,
                    ntid: threads_per_block,
                    nblocks: num_blocks,
                    block: block.clone(),
                    grid: grid.clone(),
                    stack_top: 0,
                };
                let handle = std::thread::Builder::new()
                    .stack_size(SIM_STACK_BYTES)
                    .spawn_scoped(s, move || {
                        let top = 0u8;
                        let me = SimThread { stack_top: std::ptr::addr_of!(top) as usize, ..me };
                        CURRENT.with(|c| *c.borrow_mut() = Some(me.clone()));
                        let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(body));
                        if result.is_err() {
                            me.grid.poisoned.store(true, Ordering::Relaxed);
                        }
                        let failure = result.err().map(panic_message);
                        // The trap's message is the result even if leaving
                        // the barriers panics too (a lock another trapped
                        // thread poisoned): dropped with a join error, it
                        // would let the launch look as if it ended normally.
                        let _ = std::panic::catch_unwind(thread_exit);
                        CURRENT.with(|c| *c.borrow_mut() = None);
                        failure
                    })
                    .expect("omprt sim: cannot spawn a simulated thread");
                handles.push(handle);
            }
        }
        handles
            .into_iter()
            .filter_map(|h| match h.join() {
                Ok(failure) => failure,
                Err(e) => Some(panic_message(e)),
            })
            .collect::<Vec<_>>()
    });
    if !failures.is_empty() {
        // Report the root cause, not the threads that were woken by the poison.
        let first = failures
            .iter()
            .find(|m| !m.contains("another simulated thread trapped"))
            .unwrap_or(&failures[0]);
        panic!("{first}");
    }
}

fn panic_message(e: Box<dyn std::any::Any + Send>) -> String {
    if let Some(s) = e.downcast_ref::<String>() {
        s.clone()
    } else if let Some(s) = e.downcast_ref::<&str>() {
        (*s).to_string()
    } else {
        "omprt sim: a simulated thread panicked".to_string()
    }
}

/// The nvptx backend hides the divisor's range from LLVM; nothing to hide here.
pub fn wide_nonzero_divisor(d: core::num::NonZeroU32) -> core::num::NonZeroU32 {
    d
}

/// For tests, before a launch: the launching thread's grids run as the
/// archive's LTO member does, the copy flang's out-of-line calls reach
/// (`config::serves_out_of_line_callers`); by default as the bitcode clang
/// links at compile time.
pub fn serve_out_of_line_callers(yes: bool) {
    OUT_OF_LINE_CALLERS.with(|c| c.set(yes));
}

pub fn serves_out_of_line_callers() -> bool {
    with(|t| t.grid.out_of_line_callers)
}

/// For tests, before a launch: the launching thread's grids run the runtime
/// as inlined into clang's code, where a call's arguments are constants
/// (`arch::is_compile_time_constant`); by default nothing is, and every call
/// takes the path of the out-of-line copy, which handles all callers.
pub fn inline_into_clangs_calls(yes: bool) {
    INLINED_INTO_CLANGS_CALLS.with(|c| c.set(yes));
}

pub fn is_compile_time_constant(_v: i64) -> bool {
    with(|t| t.grid.inlined_into_clangs_calls)
}

/// What the GPU build learns from the optimizer, which the simulation has
/// not: never known, so the simulation takes the path for a set flag.
pub fn known_never_set(_flag: &AtomicBool) -> bool {
    false
}

pub fn thread_id_in_block() -> u32 {
    with(|t| t.tid)
}
pub fn num_threads_in_block() -> u32 {
    with(|t| t.ntid)
}
pub fn thread_id_in_block_reread() -> u32 {
    thread_id_in_block()
}
pub fn num_threads_in_block_reread() -> u32 {
    num_threads_in_block()
}
pub fn block_id() -> u32 {
    with(|t| t.bid)
}
pub fn num_blocks() -> u32 {
    with(|t| t.nblocks)
}
pub fn global_timer_ns() -> u64 {
    with(|t| t.grid.start.elapsed().as_nanos() as u64)
}

pub fn sync_threads_aligned() {
    with(|t| t.block.barrier.wait(&t.grid.poisoned))
}
/// One barrier is simulated for every id: the runtime's two uses (a partial
/// SPMD team's region, the teams reduction's verdict) never overlap.
pub fn sync_threads_or(_id: u32, pred: bool) -> bool {
    with(|t| t.block.or_barrier.wait_or(&t.grid.poisoned, pred))
}
/// The GPU's racing plain stores of one value, as relaxed atomic stores.
///
/// # Safety
/// `p` is valid for writes and 4-aligned; every thread that stores stores
/// the same `v`.
pub unsafe fn store_same_in_every_thread(p: *mut u32, v: u32) {
    // SAFETY: forwarded from the caller.
    unsafe { std::sync::atomic::AtomicU32::from_ptr(p) }.store(v, Ordering::Relaxed);
}
/// Checks what the GPU build states to the optimizer (see nvptx's).
///
/// # Safety
/// `p` is valid for reads.
pub unsafe fn assume_u32_eq(p: *const u32, v: u32) {
    // SAFETY: forwarded from the caller.
    let seen = unsafe { p.read_volatile() };
    assert_eq!(seen, v, "omprt: a fact stated to the optimizer does not hold");
}
/// Unrolling is the compiler's business; nothing to simulate.
pub fn unroll_twice() {}
pub fn sync_threads_unaligned(_id: u32) {
    sync_threads_aligned()
}
pub fn sync_threads_counted(id: u32, count: u32) {
    with(|t| {
        let block = &t.block;
        let mut s = lock(&block.counted);
        let entry = s.arrived.entry(id).or_insert((0, 0));
        entry.0 += 1;
        if entry.0 >= count {
            entry.0 = 0;
            entry.1 += 1;
            block.counted_cv.notify_all();
            return;
        }
        let generation = entry.1;
        while s.arrived[&id].1 == generation {
            check_poison(&t.grid.poisoned);
            s = block.counted_cv.wait_timeout(s, Duration::from_millis(20)).unwrap_or_else(PoisonError::into_inner).0;
        }
    })
}

fn warp_of(t: &SimThread) -> &Warp {
    &t.block.warps[(t.tid / WARP_SIZE) as usize]
}

pub fn sync_warp(_mask: u32) {
    with(|t| warp_of(t).barrier.wait(&t.grid.poisoned))
}
/// The live lanes of the caller's warp (the sim models converged warps).
pub fn active_mask() -> u32 {
    with(|t| {
        let live = lock(&warp_of(t).barrier.state).live;
        if live >= 32 { u32::MAX } else { (1u32 << live) - 1 }
    })
}

/// Every live lane publishes `mine`, then reads lane `pick(lane)`.
fn warp_exchange(mine: u64, pick: impl FnOnce(u32) -> u32) -> u64 {
    with(|t| {
        let warp = warp_of(t);
        let lane = t.tid % WARP_SIZE;
        lock(&warp.slots)[lane as usize] = mine;
        warp.barrier.wait(&t.grid.poisoned);
        let value = lock(&warp.slots)[pick(lane) as usize];
        warp.barrier.wait(&t.grid.poisoned);
        value
    })
}

pub fn shuffle_down_u32(_mask: u32, value: u32, delta: u32, width: u32) -> u32 {
    warp_exchange(u64::from(value), |lane| {
        let segment_end = (lane / width) * width + width;
        if lane + delta < segment_end { lane + delta } else { lane }
    }) as u32
}

pub fn ballot(mask: u32, pred: bool) -> u32 {
    let mut result = 0u32;
    for lane in 0..WARP_SIZE {
        let bit = warp_exchange(u64::from(pred), |_| lane);
        if bit != 0 {
            result |= 1 << lane;
        }
    }
    result & mask
}

pub fn fence_block() {
    std::sync::atomic::fence(Ordering::SeqCst)
}
pub fn fence_device() {
    std::sync::atomic::fence(Ordering::SeqCst)
}
pub fn fence_system() {
    std::sync::atomic::fence(Ordering::SeqCst)
}

const HEADER: usize = 16;

/// For tests: the next `n` device-heap allocations of the device the caller
/// runs on (a grid's, or the launching thread's) fail, as on an exhausted GPU heap.
pub fn fail_mallocs(n: u32) {
    current_device().0.failing_mallocs.store(n, Ordering::SeqCst);
}

/// Heap allocation with a 16-byte header holding the size (`free` needs it).
pub fn malloc(bytes: u64) -> *mut u8 {
    let fail = with(|t| t.grid.device.0.failing_mallocs.fetch_update(Ordering::SeqCst, Ordering::SeqCst, |n| n.checked_sub(1)).is_ok());
    if fail {
        return std::ptr::null_mut();
    }
    let layout = std::alloc::Layout::from_size_align(bytes as usize + HEADER, 16).expect("allocation size");
    // SAFETY: the layout has a non-zero size.
    unsafe {
        let base = std::alloc::alloc(layout);
        if base.is_null() {
            return base;
        }
        base.cast::<u64>().write(bytes);
        LIVE_HEAP_BLOCKS.with(|n| n.set(n.get() + 1));
        current_device().0.live_heap_blocks.fetch_add(1, Ordering::SeqCst);
        base.add(HEADER)
    }
}

/// # Safety
/// `ptr` is null or came from [`malloc`] and is not used after.
pub unsafe fn free(ptr: *mut u8) {
    if ptr.is_null() {
        return;
    }
    // SAFETY: `ptr` came from `malloc`, which put the size just before it.
    unsafe {
        let base = ptr.sub(HEADER);
        let bytes = base.cast::<u64>().read() as usize;
        std::alloc::dealloc(base, std::alloc::Layout::from_size_align_unchecked(bytes + HEADER, 16));
        LIVE_HEAP_BLOCKS.with(|n| n.set(n.get() - 1));
        current_device().0.live_heap_blocks.fetch_sub(1, Ordering::SeqCst);
    }
}

/// Spin loops (locks, ordered turns) end a test that would hang: after
/// [`SPIN_LIMIT`] of kernel time a spinning thread panics.
pub fn spin_pause() {
    with(|t| {
        check_poison(&t.grid.poisoned);
        if t.grid.start.elapsed() > SPIN_LIMIT {
            t.grid.poisoned.store(true, Ordering::Relaxed);
            panic!("omprt sim: still spinning after {SPIN_LIMIT:?} (a deadlock?)");
        }
    });
    std::thread::yield_now()
}
const SPIN_LIMIT: Duration = Duration::from_secs(60);

fn c_str(bytes: &[u8]) -> &str {
    let end = bytes.iter().position(|&b| b == 0).unwrap_or(bytes.len());
    std::str::from_utf8(&bytes[..end]).unwrap_or("<non-utf8>")
}

pub fn trap_with_message(message: &[u8]) -> ! {
    panic!("{}", c_str(message).trim_end())
}

/// A trap costs the simulation nothing either way: it says what happened,
/// as a report without its location (`format` as `trap_reporting` takes it).
pub fn trap_without_message(format: &[u8]) -> ! {
    let text = fill(c_str(format), &["", "", "", "", ""]);
    panic!("{}", text.split(" (, team , thread )").next().unwrap_or(&text))
}

/// Bytes of the line a trap's source location is written in.
pub const TRAP_LINE_BYTES: usize = 256;

/// A line of its own for every simulated thread that traps: the simulation
/// reports each thread's trap, where the GPU prints the first.
pub fn claim_trap_line() -> Option<&'static mut [u8; TRAP_LINE_BYTES]> {
    Some(Box::leak(Box::new([0; TRAP_LINE_BYTES])))
}

/// Panics with the line the GPU prints: `format` with `first` and the
/// block and thread ids for its `%s`, `%u` and `%u`.
///
/// # Safety
/// `first` is a NUL-terminated string.
pub unsafe fn trap_reporting(format: &[u8], first: *const u8) -> ! {
    // SAFETY: forwarded from the caller.
    let first = unsafe { c_string(first) };
    panic!("{}", fill(c_str(format), &[&first, &block_id().to_string(), &thread_id_in_block().to_string()]))
}

/// [`trap_reporting`] with two strings first.
///
/// # Safety
/// All three are NUL-terminated strings.
pub unsafe fn trap_reporting_named(format: &[u8], what: *const u8, name: *const u8, location: *const u8) -> ! {
    // SAFETY: forwarded from the caller.
    let (what, name, location) = unsafe { (c_string(what), c_string(name), c_string(location)) };
    panic!("{}", fill(c_str(format), &[&what, &name, &location, &block_id().to_string(), &thread_id_in_block().to_string()]))
}

/// `format` with its `%s` and `%u` directives replaced by `values` in
/// order and `%%` by `%`, without its line end, as the GPU's printf prints it.
fn fill(format: &str, values: &[&str]) -> String {
    let mut out = String::new();
    let mut values = values.iter();
    let mut rest = format;
    while let Some(at) = rest.find('%') {
        out.push_str(&rest[..at]);
        match rest[at + 1..].chars().next() {
            Some('%') => out.push('%'),
            Some('s' | 'u') => out.push_str(values.next().expect("omprt sim: a directive without a value")),
            // Not a report's format: the text as it is.
            _ => {
                out.push('%');
                rest = &rest[at + 1..];
                continue;
            }
        }
        rest = &rest[at + 2..];
    }
    out.push_str(rest);
    out.trim_end().to_string()
}

pub fn print_naming(what: &[u8], name: &[u8]) {
    eprintln!("omprt: {}: {}", c_str(what), c_str(name));
}

/// # Safety
/// `s` is null or a NUL-terminated string.
unsafe fn c_string(s: *const u8) -> String {
    if s.is_null() {
        return String::new();
    }
    // SAFETY: forwarded from the caller.
    unsafe { std::ffi::CStr::from_ptr(s.cast()) }.to_string_lossy().into_owned()
}

/// The device's `print_user_warning`, into the device output.
///
/// # Safety
/// `location` is NUL-terminated; `message` is null or NUL-terminated.
pub unsafe fn print_user_warning(location: *const u8, message: *const u8) {
    // SAFETY: forwarded from the caller.
    let (location, message) = unsafe { (c_string(location), c_string(message)) };
    let line = if message.is_empty() {
        format!("OMP: {location}: Encountered user-directed warning.\0")
    } else {
        format!("OMP: {location}: Encountered user-directed warning: {message}.\0")
    };
    // SAFETY: NUL-terminated above.
    unsafe { print_line(line.as_ptr()) };
}

/// Appends the line to the launching thread's device output
/// ([`take_device_output`]).
///
/// # Safety
/// `s` is a NUL-terminated string.
pub unsafe fn print_line(s: *const u8) -> i32 {
    // SAFETY: forwarded from the caller.
    let line = unsafe { c_string(s) };
    let device = current_device();
    let mut out = lock(&device.0.output);
    out.push_str(&line);
    out.push('\n');
    line.len() as i32 + 1
}

/// For tests, after a launch: what the launching thread's grids printed
/// with [`print_line`] since the last call.
pub fn take_device_output() -> String {
    std::mem::take(&mut *lock(&Device::of_this_thread().0.output))
}

/// A trap whose message is glibc's for a failed `assert`.
///
/// # Safety
/// `expr` and `file` are NUL-terminated strings; `function` is one or null.
pub unsafe fn trap_assertion(expr: *const u8, file: *const u8, line: u32, function: *const u8) -> ! {
    // SAFETY: forwarded from the caller.
    let (expr, file, function) = unsafe { (c_string(expr), c_string(file), c_string(function)) };
    let function = if function.is_empty() { function } else { function + ": " };
    panic!("{file}:{line}: {function}Assertion `{expr}' failed.")
}

pub fn dynamic_shared_bytes() -> u32 {
    with(|t| t.block.dynamic.1)
}
pub fn dynamic_shared_base() -> *mut u8 {
    with(|t| t.block.dynamic.0.as_ptr().cast_mut().cast::<u8>())
}

/// The block's shared memory is its instances of the team statics and its
/// dynamic shared memory.
pub fn is_shared_address(p: *const u8) -> bool {
    with(|t| {
        let dynamic = t.block.dynamic.0.as_ptr() as usize;
        t.block.statics.contains(p as usize)
            || (dynamic..dynamic + t.block.dynamic.0.len() * size_of::<u128>()).contains(&(p as usize))
    })
}

/// A simulated thread's local memory is its own stack: other simulated
/// threads could read it (they are host threads), a GPU's could not.
pub fn is_thread_local_address(p: *const u8) -> bool {
    with(|t| (t.stack_top.saturating_sub(SIM_STACK_BYTES)..=t.stack_top).contains(&(p as usize)))
}

/// Simulated lanes do not run in lockstep, so each caller adds on its own;
/// the result (a distinct range per caller) is what the GPU version gives.
pub fn fetch_add_aggregated(counter: &std::sync::atomic::AtomicU64, amount: u64) -> u64 {
    counter.fetch_add(amount, Ordering::Relaxed)
}

/// The simulated grid is one-dimensional: y and z ids are 0, extents 1.
pub fn thread_id_dim(dim: u32) -> u32 {
    if dim == 0 { thread_id_in_block() } else { 0 }
}
pub fn block_dim(dim: u32) -> u32 {
    if dim == 0 { num_threads_in_block() } else { 1 }
}
pub fn block_id_dim(dim: u32) -> u32 {
    if dim == 0 { block_id() } else { 0 }
}
pub fn grid_dim(dim: u32) -> u32 {
    if dim == 0 { num_blocks() } else { 1 }
}

/// Marks the calling simulated thread as gone for barriers and warp collectives.
pub fn thread_exit() {
    CURRENT.with(|c| {
        if let Some(t) = c.borrow().as_ref() {
            t.block.barrier.leave();
            t.block.or_barrier.leave();
            warp_of(t).barrier.leave();
        }
    })
}

/// The correctly rounded square root.
pub fn sqrt_f64(x: f64) -> f64 {
    x.sqrt()
}
/// The correctly rounded square root.
pub fn sqrt_f32(x: f32) -> f32 {
    x.sqrt()
}
/// `x * y + z` rounded once.
pub fn fma_f64(x: f64, y: f64, z: f64) -> f64 {
    x.mul_add(y, z)
}
/// `x * y + z` rounded once.
pub fn fma_f32(x: f32, y: f32, z: f32) -> f32 {
    x.mul_add(y, z)
}
