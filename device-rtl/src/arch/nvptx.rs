//! nvptx64 backend of [`crate::arch`]: the only file that names NVVM
//! intrinsics or PTX. Barriers use intrinsics (not inline asm) so that LLVM
//! and openmp-opt see them for what they are.
#![allow(unsafe_code)]

use core::ffi::c_void;

#[allow(improper_ctypes)]
unsafe extern "C" {
    #[link_name = "llvm.nvvm.read.ptx.sreg.tid.x"]
    fn sreg_tid_x() -> i32;
    #[link_name = "llvm.nvvm.read.ptx.sreg.ntid.x"]
    fn sreg_ntid_x() -> i32;
    #[link_name = "llvm.nvvm.read.ptx.sreg.ctaid.x"]
    fn sreg_ctaid_x() -> i32;
    #[link_name = "llvm.nvvm.read.ptx.sreg.nctaid.x"]
    fn sreg_nctaid_x() -> i32;
    #[link_name = "llvm.nvvm.read.ptx.sreg.tid.y"]
    fn sreg_tid_y() -> i32;
    #[link_name = "llvm.nvvm.read.ptx.sreg.tid.z"]
    fn sreg_tid_z() -> i32;
    #[link_name = "llvm.nvvm.read.ptx.sreg.ntid.y"]
    fn sreg_ntid_y() -> i32;
    #[link_name = "llvm.nvvm.read.ptx.sreg.ntid.z"]
    fn sreg_ntid_z() -> i32;
    #[link_name = "llvm.nvvm.read.ptx.sreg.ctaid.y"]
    fn sreg_ctaid_y() -> i32;
    #[link_name = "llvm.nvvm.read.ptx.sreg.ctaid.z"]
    fn sreg_ctaid_z() -> i32;
    #[link_name = "llvm.nvvm.read.ptx.sreg.nctaid.y"]
    fn sreg_nctaid_y() -> i32;
    #[link_name = "llvm.nvvm.read.ptx.sreg.nctaid.z"]
    fn sreg_nctaid_z() -> i32;
    #[link_name = "llvm.nvvm.read.ptx.sreg.globaltimer"]
    fn sreg_globaltimer() -> i64;
    #[link_name = "llvm.nvvm.read.ptx.sreg.dynamic_smem_size"]
    fn sreg_dynamic_smem_size() -> i32;
    #[link_name = "llvm.nvvm.barrier.cta.sync.aligned.all"]
    fn barrier_cta_sync_aligned_all(id: i32);
    #[link_name = "llvm.nvvm.barrier.cta.sync.all"]
    fn barrier_cta_sync_all(id: i32);
    #[link_name = "llvm.nvvm.barrier.cta.red.or.all"]
    fn barrier_cta_red_or_all(id: i32, pred: bool) -> bool;
    #[link_name = "llvm.nvvm.barrier.cta.sync.count"]
    fn barrier_cta_sync(id: i32, count: i32);
    #[link_name = "llvm.nvvm.bar.warp.sync"]
    fn bar_warp_sync(mask: i32);
    #[link_name = "llvm.nvvm.activemask"]
    fn activemask() -> i32;
    #[link_name = "llvm.nvvm.shfl.sync.down.i32"]
    fn shfl_sync_down_i32(mask: i32, value: i32, delta: i32, clamp: i32) -> i32;
    #[link_name = "llvm.nvvm.shfl.sync.idx.i32"]
    fn shfl_sync_idx_i32(mask: i32, value: i32, lane: i32, clamp: i32) -> i32;
    #[link_name = "llvm.nvvm.isspacep.shared"]
    fn isspacep_shared(p: *const u8) -> bool;
    #[link_name = "llvm.nvvm.isspacep.local"]
    fn isspacep_local(p: *const u8) -> bool;
    #[link_name = "llvm.nvvm.vote.ballot.sync"]
    fn vote_ballot_sync(mask: i32, pred: bool) -> i32;
    #[link_name = "llvm.nvvm.membar.cta"]
    fn membar_cta();
    #[link_name = "llvm.nvvm.membar.gl"]
    fn membar_gl();
    #[link_name = "llvm.nvvm.membar.sys"]
    fn membar_sys();
    #[link_name = "llvm.trap"]
    fn llvm_trap() -> !;

    #[link_name = "llvm.nvvm.nanosleep"]
    fn nanosleep(ns: i32);

    /// CUDA's device printf, resolved by ptxas/nvlink.
    fn vprintf(format: *const u8, args: *const c_void) -> i32;
    /// CUDA's device heap (sized by the host, LIBOMPTARGET_HEAP_SIZE).
    #[link_name = "malloc"]
    fn cuda_malloc(bytes: u64) -> *mut u8;
    #[link_name = "free"]
    fn cuda_free(ptr: *mut u8);

    /// Becomes `llvm.assume(*p == v)` in xtask's IR rewrite (`ASSUME_MARKER`);
    /// never reaches a user's link.
    #[link_name = "__omprt_assume_u32_eq"]
    fn assume_u32_eq_marker(p: *const u32, v: u32);

    /// Taken out by xtask's IR rewrite (`UNROLL_TWICE_MARKER`), which marks
    /// the loop around the call to be unrolled twice, no more; never reaches
    /// a user's link.
    #[link_name = "__omprt_unroll_twice"]
    fn unroll_twice_marker();

    /// The block's dynamic shared memory (CUDA's `extern __shared__` array):
    /// xtask's IR rewrite declares it `external addrspace(3)`, align 16
    /// (`ir_rewrite::DYNAMIC_SHARED`), which ptxas maps to the launch's
    /// dynamic shared bytes.
    #[link_name = "__omprt_dynamic_shared"]
    static DYNAMIC_SHARED: [u8; 0];
}

#[inline(always)]
pub fn thread_id_in_block() -> u32 {
    // SAFETY: reading a special register has no preconditions.
    unsafe { sreg_tid_x() as u32 }
}
#[inline(always)]
pub fn num_threads_in_block() -> u32 {
    // SAFETY: as above.
    unsafe { sreg_ntid_x() as u32 }
}

/// Special registers read anew: an `asm` that LLVM may not merge with
/// earlier reads nor hoist out of loops, for code that runs after or inside
/// user code (a region's end, a dispatched loop's next chunk), which
/// otherwise keeps the values in registers across it.
#[inline(always)]
pub fn thread_id_in_block_reread() -> u32 {
    let out: u32;
    // SAFETY: reads a special register.
    unsafe { core::arch::asm!("mov.u32 {0}, %tid.x;", out(reg32) out, options(nomem, nostack, preserves_flags)) };
    out
}
#[inline(always)]
pub fn lanemask_lt_reread() -> u32 {
    let out: u32;
    // SAFETY: reads a special register.
    unsafe { core::arch::asm!("mov.u32 {0}, %lanemask_lt;", out(reg32) out, options(nomem, nostack, preserves_flags)) };
    out
}
#[inline(always)]
pub fn num_threads_in_block_reread() -> u32 {
    let out: u32;
    // SAFETY: reads a special register.
    unsafe { core::arch::asm!("mov.u32 {0}, %ntid.x;", out(reg32) out, options(nomem, nostack, preserves_flags)) };
    out
}
#[inline(always)]
pub fn block_id() -> u32 {
    // SAFETY: as above.
    unsafe { sreg_ctaid_x() as u32 }
}
#[inline(always)]
pub fn num_blocks() -> u32 {
    // SAFETY: as above.
    unsafe { sreg_nctaid_x() as u32 }
}
/// Nanoseconds of the GPU's global timer.
#[inline(always)]
pub fn global_timer_ns() -> u64 {
    // SAFETY: as above.
    unsafe { sreg_globaltimer() as u64 }
}

/// `d`, as a divisor LLVM cannot narrow. With a divisor known to be small
/// (a thread count, at most 1024) and a constant trip count below 2^16,
/// LLVM shrinks a 32-bit division to 16 bits, and ptxas's relocatable
/// code (`-c`, as clang compiles device code) does `div.u16` in a routine
/// that costs the kernel registers
/// (`static_schedule_over_a_small_constant_trip_count_stays_cheap`). A
/// divisor LLVM knows as a constant stays visible, so a division by it still
/// folds.
#[inline(always)]
fn wide_divisor(d: u32) -> u32 {
    if core::intrinsics::is_val_statically_known(d) {
        return d;
    }
    let out: u32;
    // SAFETY: a register move.
    unsafe { core::arch::asm!("mov.b32 {0}, {1};", out(reg32) out, in(reg32) d, options(pure, nomem, nostack, preserves_flags)) };
    out
}

/// [`wide_divisor`] of a divisor known not to be zero, still known so: a
/// division by it needs no test of its own.
#[inline(always)]
pub fn wide_nonzero_divisor(d: core::num::NonZeroU32) -> core::num::NonZeroU32 {
    // SAFETY: the move keeps the value, which is not zero.
    unsafe { core::num::NonZeroU32::new_unchecked(wide_divisor(d.get())) }
}

/// Whether LLVM knows `v` as a manifest constant (a number, not the address
/// of a function) where this is inlined: clang's calls of
/// `__kmpc_parallel_60` are inlined with their argument count a constant,
/// the OpenMPIRBuilder's call the copy that stays out of line, where it is
/// an argument. What LLVM does not know by code generation folds to false.
#[inline(always)]
pub fn is_compile_time_constant(v: i64) -> bool {
    core::intrinsics::is_val_statically_known(v)
}

/// Whether LLVM knows that no code of the module sets `flag`, a device
/// static written only with `true` (as `PER_THREAD_ARRAYS_MADE`); false
/// where it does not know. A plain read: where LLVM knows its value nothing
/// stores to the flag, elsewhere its value is unused, and the read goes,
/// where an atomic one would stay (at -O0 this one stays, a byte load whose
/// value nothing uses).
#[inline(always)]
pub fn known_never_set(flag: &core::sync::atomic::AtomicBool) -> bool {
    // SAFETY: a valid, aligned bool; see above for the race.
    let v = unsafe { flag.as_ptr().read() };
    is_compile_time_constant(i64::from(v)) && !v
}

/// Bytes of dynamic shared memory the block was launched with.
#[inline(always)]
pub fn dynamic_shared_bytes() -> u32 {
    // SAFETY: as above.
    unsafe { sreg_dynamic_smem_size() as u32 }
}
/// Start of the block's dynamic shared memory (16-byte aligned).
#[inline(always)]
pub fn dynamic_shared_base() -> *mut u8 {
    (&raw const DYNAMIC_SHARED).cast::<u8>().cast_mut()
}

/// Whether `p` points into the block's shared memory. LLVM folds the test
/// where it sees that `p` is the address of a shared variable.
#[inline(always)]
pub fn is_shared_address(p: *const u8) -> bool {
    // SAFETY: reads no memory.
    unsafe { isspacep_shared(p) }
}

/// Whether `p` points into the calling thread's local memory (its stack),
/// which no other thread can read: another thread's load of the same
/// generic address reads its own local memory.
#[inline(always)]
pub fn is_thread_local_address(p: *const u8) -> bool {
    // SAFETY: reads no memory.
    unsafe { isspacep_local(p) }
}

/// A store of `v` that every thread of the block may make, to a shared word
/// that no thread reads before its own store (or a barrier after one
/// thread's). A plain store: racing stores of one value leave that value,
/// and LLVM still drops a plain store that nothing reads (the SPMD region
/// fields, in most loops).
///
/// # Safety
/// `p` is valid for writes; every thread that stores stores the same `v`.
#[inline(always)]
pub unsafe fn store_same_in_every_thread(p: *mut u32, v: u32) {
    // SAFETY: forwarded from the caller.
    unsafe { p.write(v) }
}

/// States for the optimizer that the `u32` at `p` holds `v` here, as seen by
/// every thread reaching this point. openmp-opt uses such facts about shared
/// memory that a single thread wrote (upstream states them with assertions).
///
/// # Safety
/// It must hold: code after it is compiled as if it did.
#[inline(always)]
pub unsafe fn assume_u32_eq(p: *const u32, v: u32) {
    // SAFETY: forwarded from the caller; the marker has no run-time effect.
    unsafe { assume_u32_eq_marker(p, v) }
}

/// Called in a loop's body: in the user's compile (where the runtime's loops
/// are inlined into kernels) LLVM unrolls the loop twice and ptxas no further.
#[inline(always)]
pub fn unroll_twice() {
    // SAFETY: the marker has no run-time effect.
    unsafe { unroll_twice_marker() }
}

/// `bar.sync 0`: every thread of the block, converged, arrives.
#[inline(always)]
pub fn sync_threads_aligned() {
    // SAFETY: callers guarantee all threads of the block reach this call.
    unsafe { barrier_cta_sync_aligned_all(0) }
}
/// `barrier.sync id`: every live thread of the block, from any control flow.
#[inline(always)]
pub fn sync_threads_unaligned(id: u32) {
    // SAFETY: callers guarantee all live threads of the block reach a barrier `id`.
    unsafe { barrier_cta_sync_all(id as i32) }
}
/// `barrier.red.or id`: every live thread of the block, from any control
/// flow, with a predicate; returns whether any thread passed `true`. PTX
/// forbids mixing it with `barrier.sync` on one id.
#[inline(always)]
pub fn sync_threads_or(id: u32, pred: bool) -> bool {
    // SAFETY: callers guarantee all live threads of the block reach a `barrier.red.or id`.
    unsafe { barrier_cta_red_or_all(id as i32, pred) }
}
/// `barrier.sync id, count`: `count` threads (a multiple of the warp size).
#[inline(always)]
pub fn sync_threads_counted(id: u32, count: u32) {
    // SAFETY: callers guarantee `count` threads reach a barrier `id`.
    unsafe { barrier_cta_sync(id as i32, count as i32) }
}
#[inline(always)]
pub fn sync_warp(mask: u32) {
    // SAFETY: the lanes in `mask` all call this with the same mask.
    unsafe { bar_warp_sync(mask as i32) }
}
#[inline(always)]
pub fn active_mask() -> u32 {
    // SAFETY: no preconditions.
    unsafe { activemask() as u32 }
}
/// `__shfl_down_sync(mask, value, delta, width)`.
#[inline(always)]
pub fn shuffle_down_u32(mask: u32, value: u32, delta: u32, width: u32) -> u32 {
    let clamp = ((WARP_SIZE_U - width) << 8) | 0x1f;
    // SAFETY: the lanes in `mask` all take part.
    unsafe { shfl_sync_down_i32(mask as i32, value as i32, delta as i32, clamp as i32) as u32 }
}
const WARP_SIZE_U: u32 = super::WARP_SIZE;
/// `__shfl_sync(mask, value, lane)` over the whole warp.
#[inline(always)]
fn broadcast_u32(mask: u32, value: u32, lane: u32) -> u32 {
    // SAFETY: the lanes in `mask` all take part.
    unsafe { shfl_sync_idx_i32(mask as i32, value as i32, lane as i32, 0x1f) as u32 }
}

/// `counter.fetch_add(amount)` for each calling lane, as one atomic per warp:
/// the converged lanes get consecutive ranges in lane order.
#[inline(always)]
pub fn fetch_add_aggregated(counter: &core::sync::atomic::AtomicU64, amount: u64) -> u64 {
    let mask = active_mask();
    let leader = mask.trailing_zeros();
    // Lane masks read anew: this runs once per chunk of a dynamic loop, and
    // values LLVM hoists out of the user's loop stay in registers across it.
    let rank = (mask & lanemask_lt_reread()).count_ones();
    let mut base = 0u64;
    if thread_id_in_block_reread() % super::WARP_SIZE == leader {
        base = counter.fetch_add(amount * u64::from(mask.count_ones()), core::sync::atomic::Ordering::Relaxed);
    }
    let lo = broadcast_u32(mask, base as u32, leader);
    let hi = broadcast_u32(mask, (base >> 32) as u32, leader);
    ((u64::from(hi) << 32) | u64::from(lo)) + u64::from(rank) * amount
}

/// Thread index, block size, block index and grid size in dimension 0..=2
/// (`ompx_*`); other dimensions read as the x one, like an out-of-range
/// index in CUDA's dim3.
#[inline(always)]
pub fn thread_id_dim(dim: u32) -> u32 {
    // SAFETY: special-register reads have no preconditions.
    unsafe { (match dim { 1 => sreg_tid_y(), 2 => sreg_tid_z(), _ => sreg_tid_x() }) as u32 }
}
#[inline(always)]
pub fn block_dim(dim: u32) -> u32 {
    // SAFETY: as above.
    unsafe { (match dim { 1 => sreg_ntid_y(), 2 => sreg_ntid_z(), _ => sreg_ntid_x() }) as u32 }
}
#[inline(always)]
pub fn block_id_dim(dim: u32) -> u32 {
    // SAFETY: as above.
    unsafe { (match dim { 1 => sreg_ctaid_y(), 2 => sreg_ctaid_z(), _ => sreg_ctaid_x() }) as u32 }
}
#[inline(always)]
pub fn grid_dim(dim: u32) -> u32 {
    // SAFETY: as above.
    unsafe { (match dim { 1 => sreg_nctaid_y(), 2 => sreg_nctaid_z(), _ => sreg_nctaid_x() }) as u32 }
}
#[inline(always)]
pub fn ballot(mask: u32, pred: bool) -> u32 {
    // SAFETY: the lanes in `mask` all take part.
    unsafe { vote_ballot_sync(mask as i32, pred) as u32 }
}
#[inline(always)]
pub fn fence_block() {
    // SAFETY: no preconditions.
    unsafe { membar_cta() }
}
#[inline(always)]
pub fn fence_device() {
    // SAFETY: no preconditions.
    unsafe { membar_gl() }
}
#[inline(always)]
pub fn fence_system() {
    // SAFETY: no preconditions.
    unsafe { membar_sys() }
}

/// Device-heap allocation, 16-byte aligned; null when the heap is exhausted.
#[inline(always)]
pub fn malloc(bytes: u64) -> *mut u8 {
    // SAFETY: CUDA's malloc has no preconditions.
    unsafe { cuda_malloc(bytes) }
}
/// # Safety
/// `ptr` is null or came from [`malloc`] and is not used after.
#[inline(always)]
pub unsafe fn free(ptr: *mut u8) {
    // SAFETY: forwarded from the caller.
    unsafe { cuda_free(ptr) }
}
/// Backs off in a spin loop so the lock owner (maybe in the same warp) runs.
#[inline(always)]
pub fn spin_pause() {
    // SAFETY: no preconditions (sm_70+).
    unsafe { nanosleep(64) }
}

/// Prints a NUL-terminated message with the device printf, then traps.
/// Inlined: see `memory::heap_alloc`.
#[inline(always)]
pub fn trap_with_message(message: &[u8]) -> ! {
    // SAFETY: `message` is NUL-terminated (callers pass byte-string literals
    // ending in \0) and has no format directives; vprintf reads no arguments.
    unsafe {
        vprintf(message.as_ptr(), core::ptr::null());
        llvm_trap()
    }
}

/// Traps without printing: a `trap` is no call, where a `printf` would give
/// the kernel the register floor of one. `_what` is the reason a report
/// would have given (the simulation panics with it).
#[inline(always)]
pub fn trap_without_message(_what: &[u8]) -> ! {
    // SAFETY: no preconditions.
    unsafe { llvm_trap() }
}

/// Bytes of the line a trap's source location is written in.
pub const TRAP_LINE_BYTES: usize = 256;

/// What the first thread of the device to trap prints: the arguments of
/// its printf and the line its source location is written in. In global
/// memory: arguments or a line on the stack would give every kernel that
/// can reach a trap a stack frame.
#[repr(C)]
pub struct TrapReport {
    claimed: core::sync::atomic::AtomicU32,
    /// vprintf's argument buffer: each argument at its own alignment.
    args: core::cell::UnsafeCell<[u64; 4]>,
    line: core::cell::UnsafeCell<[u8; TRAP_LINE_BYTES]>,
}

// SAFETY: written only by the one thread that claimed it.
unsafe impl Sync for TrapReport {}

#[unsafe(link_section = ".omprt.device_global")]
static TRAP_REPORT: TrapReport = TrapReport {
    claimed: core::sync::atomic::AtomicU32::new(0),
    args: core::cell::UnsafeCell::new([0; 4]),
    line: core::cell::UnsafeCell::new([0; TRAP_LINE_BYTES]),
};

/// The line for a trap's source location, for the first thread of the
/// device that traps: its trap ends the kernel, so the message that matters
/// is the first. Every other thread gets `None` and traps without printing.
#[inline(always)]
pub fn claim_trap_line() -> Option<&'static mut [u8; TRAP_LINE_BYTES]> {
    if TRAP_REPORT.claimed.swap(1, core::sync::atomic::Ordering::Relaxed) != 0 {
        return None;
    }
    // SAFETY: the swap gave this thread the report, and nobody else writes it.
    Some(unsafe { &mut *TRAP_REPORT.line.get() })
}

/// Prints `format` with `first` (`%s`), then the block and thread ids
/// (`%u`, `%u`), for the thread that claimed the trap line, and traps.
///
/// # Safety
/// `format` is a NUL-terminated printf format with exactly those three
/// directives; `first` a NUL-terminated string that lives for the kernel.
#[inline(always)]
pub unsafe fn trap_reporting(format: &[u8], first: *const u8) -> ! {
    // SAFETY: the claiming thread's buffer, in vprintf's layout: a pointer,
    // then two 4-byte integers. The thread id is read anew, so that the one
    // read at the kernel's start stays out of a register until here.
    unsafe {
        let args = TRAP_REPORT.args.get().cast::<u8>();
        args.cast::<*const u8>().write_volatile(first);
        args.add(8).cast::<u32>().write_volatile(block_id());
        args.add(12).cast::<u32>().write_volatile(thread_id_in_block_reread());
        vprintf(format.as_ptr(), args.cast());
        llvm_trap()
    }
}

/// [`trap_reporting`] with two strings first (`%s%s`, then `%s %u %u`).
///
/// # Safety
/// As [`trap_reporting`], with `what` and `name` NUL-terminated strings too.
#[inline(always)]
pub unsafe fn trap_reporting_named(format: &[u8], what: *const u8, name: *const u8, location: *const u8) -> ! {
    // SAFETY: as above: three pointers, then two 4-byte integers.
    unsafe {
        let args = TRAP_REPORT.args.get().cast::<u8>();
        args.cast::<*const u8>().write_volatile(what);
        args.add(8).cast::<*const u8>().write_volatile(name);
        args.add(16).cast::<*const u8>().write_volatile(location);
        args.add(24).cast::<u32>().write_volatile(block_id());
        args.add(28).cast::<u32>().write_volatile(thread_id_in_block_reread());
        vprintf(format.as_ptr(), args.cast());
        llvm_trap()
    }
}

/// Prints "omprt: <what>: <name>"; both NUL-terminated.
#[inline(never)]
#[cold]
pub fn print_naming(what: &[u8], name: &[u8]) {
    #[repr(C)]
    struct Args {
        what: *const u8,
        name: *const u8,
    }
    let args = Args { what: what.as_ptr(), name: name.as_ptr() };
    // SAFETY: both strings are NUL-terminated and match the two %s.
    unsafe {
        vprintf(b"omprt: %s: %s\n\0".as_ptr(), (&raw const args).cast());
    }
}

/// Prints LLVM's line for an `error` directive's warning: `OMP: <location>:
/// Encountered user-directed warning[: <message>].`
///
/// # Safety
/// `location` is NUL-terminated; `message` is null or NUL-terminated.
#[inline(never)]
#[cold]
pub unsafe fn print_user_warning(location: *const u8, message: *const u8) {
    #[repr(C)]
    struct Args {
        location: *const u8,
        message: *const u8,
    }
    let args = Args { location, message };
    // SAFETY: the strings match the format's %s (the second only when there
    // is a message).
    unsafe {
        if message.is_null() {
            vprintf(b"OMP: %s: Encountered user-directed warning.\n\0".as_ptr(), (&raw const args).cast());
        } else {
            vprintf(b"OMP: %s: Encountered user-directed warning: %s.\n\0".as_ptr(), (&raw const args).cast());
        }
    }
}

/// Prints a NUL-terminated string and a newline with the device printf;
/// returns what `vprintf` returns (negative on failure).
///
/// # Safety
/// `s` is a NUL-terminated string.
pub unsafe fn print_line(s: *const u8) -> i32 {
    // SAFETY: one string for the one %s.
    unsafe { vprintf(b"%s\n\0".as_ptr(), (&raw const s).cast()) }
}

/// Prints glibc's message for a failed `assert` and traps. Inlined into
/// `__assert_fail`, the call user code makes, which keeps no runtime
/// function out of line behind it.
///
/// # Safety
/// `expr` and `file` are NUL-terminated strings; `function` is one or null.
#[inline(always)]
pub unsafe fn trap_assertion(expr: *const u8, file: *const u8, line: u32, function: *const u8) -> ! {
    #[repr(C)]
    struct Args {
        file: *const u8,
        line: u32,
        function: *const u8,
        separator: *const u8,
        expr: *const u8,
    }
    let (function, separator) = if function.is_null() { (b"\0".as_ptr(), b"\0".as_ptr()) } else { (function, b": \0".as_ptr()) };
    let args = Args { file, line, function, separator, expr };
    // SAFETY: the fields match the format's directives, in order and in
    // vprintf's layout (each argument at its own alignment).
    unsafe {
        vprintf(b"%s:%u: %s%sAssertion `%s' failed.\n\0".as_ptr(), (&raw const args).cast());
        llvm_trap()
    }
}

/// A team-shared static's holder ([`team_static!`](super::team_static)):
/// the value itself, in a static of section `.omprt.shared` that the bitcode
/// build moves into CTA-shared memory.
#[repr(transparent)]
pub struct TeamStatic<T>(T);

impl<T> TeamStatic<T> {
    pub const fn new(value: T) -> Self {
        TeamStatic(value)
    }

    /// The calling team's instance.
    #[inline(always)]
    pub fn get(&'static self) -> &'static T {
        &self.0
    }
}

/// A device-wide static's holder ([`device_static!`](super::device_static)):
/// the value itself, in a static of section `.omprt.device_global` (global
/// memory, one copy per loaded image).
#[repr(transparent)]
pub struct DeviceStatic<T>(T);

impl<T> DeviceStatic<T> {
    pub const fn new(value: T) -> Self {
        DeviceStatic(value)
    }

    /// The device's instance.
    #[inline(always)]
    pub fn get(&'static self) -> &'static T {
        &self.0
    }
}

/// Whether this copy is the archive's LTO member (`config::serves_out_of_line_callers`):
/// the bitcode build compiles the runtime twice, once with the feature.
#[inline(always)]
pub fn serves_out_of_line_callers() -> bool {
    cfg!(feature = "lto-member")
}

/// Called once per thread when it leaves the kernel; nothing to do on a GPU.
#[inline(always)]
pub fn thread_exit() {}

/// The correctly rounded square root: `sqrt.rn.f64`.
#[inline(always)]
pub fn sqrt_f64(x: f64) -> f64 {
    core::intrinsics::sqrtf64(x)
}
/// The correctly rounded square root: `sqrt.rn.f32`.
#[inline(always)]
pub fn sqrt_f32(x: f32) -> f32 {
    core::intrinsics::sqrtf32(x)
}
/// `x * y + z` rounded once: `fma.rn.f64`.
#[inline(always)]
pub fn fma_f64(x: f64, y: f64, z: f64) -> f64 {
    core::intrinsics::fmaf64(x, y, z)
}
/// `x * y + z` rounded once: `fma.rn.f32`.
#[inline(always)]
pub fn fma_f32(x: f32, y: f32, z: f32) -> f32 {
    core::intrinsics::fmaf32(x, y, z)
}
