//! The one target-specific layer: a small vocabulary of GPU primitives with
//! two backends.
//!
//! * `nvptx`: LLVM NVVM intrinsics, compiled into the device bitcode.
//! * `sim`: a host simulation of a grid (see [`sim::launch`]) used by tests.
//!
//! Everything outside this module is written against these functions only,
//! so the same runtime logic runs on the GPU and in `cargo test`.
//!
//! The layer is a leaf: it names no runtime module. State that lives in GPU
//! memory is declared by the module that owns it, with [`team_static!`]
//! (one instance per team: CTA-shared memory on the GPU, one per simulated
//! block on the host) or [`device_static!`] (one instance per device: global
//! memory on the GPU, one per simulated device on the host). Each backend
//! implements the two holders, [`TeamStatic`] and [`DeviceStatic`].

#[cfg(target_arch = "nvptx64")]
mod nvptx;
#[cfg(target_arch = "nvptx64")]
pub use nvptx::*;

#[cfg(not(target_arch = "nvptx64"))]
pub mod sim;
#[cfg(not(target_arch = "nvptx64"))]
pub use sim::*;

/// Declares a team-shared static: `static NAME: Type = init;` becomes a
/// [`TeamStatic`]`<Type>` read with `NAME.get()`. On the GPU it is a static
/// in section `.omprt.shared`, which the bitcode build moves into CTA-shared
/// memory (addrspace 3), where initialisers do not exist: the team's initial
/// thread writes what it reads. The simulation gives every block its own
/// instance, made from `init` on first use, or from the expression after
/// `simulated as` where a test must see that nothing relies on `init`.
macro_rules! team_static {
    ($(#[$meta:meta])* $vis:vis static $name:ident: $ty:ty = $init:expr $(, simulated as $sim:expr)?;) => {
        $(#[$meta])*
        #[allow(unsafe_code, reason = "the section only marks the static for the bitcode build")]
        #[cfg_attr(target_arch = "nvptx64", unsafe(link_section = ".omprt.shared"))]
        $vis static $name: $crate::arch::TeamStatic<$ty> = $crate::arch::static_holder!(TeamStatic, $init $(, $sim)?);
    };
}

/// The holder a [`team_static!`] or [`device_static!`] starts from: the
/// value on the GPU, a maker of per-block or per-device instances in the
/// simulation (the second expression, if given, is the simulation's).
#[cfg(target_arch = "nvptx64")]
macro_rules! static_holder {
    ($holder:ident, $init:expr $(, $sim:expr)?) => {
        $crate::arch::$holder::new($init)
    };
}
#[cfg(not(target_arch = "nvptx64"))]
macro_rules! static_holder {
    ($holder:ident, $init:expr) => {
        $crate::arch::$holder::new(|| $init)
    };
    ($holder:ident, $init:expr, $sim:expr) => {
        $crate::arch::$holder::new(|| $sim)
    };
}
pub(crate) use static_holder;
pub(crate) use team_static;

/// Declares a device-wide static: `static NAME: Type = init;` becomes a
/// [`DeviceStatic`]`<Type>` read with `NAME.get()`. On the GPU it is a static
/// in section `.omprt.device_global` (global memory, shared by every kernel
/// of the module, and initialised); the simulation gives every simulated
/// device its own instance, made from `init` on first use.
macro_rules! device_static {
    ($(#[$meta:meta])* $vis:vis static $name:ident: $ty:ty = $init:expr;) => {
        $(#[$meta])*
        #[allow(unsafe_code, reason = "the section only marks the static for the bitcode build")]
        #[cfg_attr(target_arch = "nvptx64", unsafe(link_section = ".omprt.device_global"))]
        $vis static $name: $crate::arch::DeviceStatic<$ty> = $crate::arch::static_holder!(DeviceStatic, $init);
    };
}
pub(crate) use device_static;

/// clang's task entry, `i32 (i32 gtid, kmp_task_t *)`, as the runtime calls
/// it. On the GPU nothing unwinds: through an `extern "C"` pointer the call
/// is a plain `call`, where a `"C-unwind"` one would be an `invoke` whose
/// abort-on-unwind landing pad keeps rustc's panic machinery (and its
/// `vprintf`s) in every kernel with a task. In the host simulation a test's
/// failed assertion inside a task unwinds to the test.
#[cfg(target_arch = "nvptx64")]
pub type TaskEntry = unsafe extern "C" fn(i32, *mut core::ffi::c_void) -> i32;
#[cfg(not(target_arch = "nvptx64"))]
pub type TaskEntry = unsafe extern "C-unwind" fn(i32, *mut core::ffi::c_void) -> i32;

/// Threads per warp on every NVIDIA GPU omprt targets.
pub const WARP_SIZE: u32 = 32;

/// Lane of the calling thread within its warp.
#[inline(always)]
pub fn lane_id() -> u32 {
    thread_id_in_block() % WARP_SIZE
}

/// Warp of the calling thread within its block.
#[inline(always)]
pub fn warp_id() -> u32 {
    thread_id_in_block() / WARP_SIZE
}

/// The bytes of a NUL-terminated string, the NUL included.
///
/// # Safety
/// `ptr` is a NUL-terminated string that lives for the kernel (clang's
/// constant strings do).
#[allow(unsafe_code)]
pub unsafe fn c_string(ptr: *const u8) -> &'static [u8] {
    let mut len = 0;
    // SAFETY: forwarded from the caller.
    unsafe {
        while *ptr.add(len) != 0 {
            len += 1;
        }
        core::slice::from_raw_parts(ptr, len + 1)
    }
}

/// `__shfl_down_sync` on 64 bits, as two 32-bit shuffles.
#[inline(always)]
pub fn shuffle_down_u64(mask: u32, value: u64, delta: u32, width: u32) -> u64 {
    let lo = shuffle_down_u32(mask, value as u32, delta, width);
    let hi = shuffle_down_u32(mask, (value >> 32) as u32, delta, width);
    (u64::from(hi) << 32) | u64::from(lo)
}
