//! The Fortran runtime's one window on memory: every load, store, copy,
//! allocation and procedure call through a pointer that [`crate::fortran`]
//! makes goes through this file.
//!
//! A narrow exception to the crate's `deny(unsafe_code)`, as `libc.rs` is,
//! for the same reason: flang's contract with its runtime is raw memory. A
//! descriptor is an address, the data it describes may overlap the data of
//! another descriptor (the two sides of `a(2:n) = a(1:n-1)`), and a derived
//! type's allocatable component is a descriptor inside the very data another
//! descriptor describes. Rust references cannot express that aliasing, so
//! the runtime holds addresses ([`Addr`]) and everything else in
//! `crate::fortran` is safe code over the functions here.
//!
//! What makes them sound is where an [`Addr`] comes from: the C ABI edge
//! (`exports::fortran`), which turns flang's pointer arguments into
//! addresses with [`Addr::from_flang`] under flang's contract (a descriptor
//! describes memory the program owns, a type description is flang's), an
//! allocation here, or a pointer loaded from memory flang described; and
//! the runtime derives offsets only from those descriptors and type
//! descriptions. A wrong descriptor breaks flang's contract, as a wrong
//! pointer breaks C's.
#![allow(unsafe_code)]

use core::ffi::c_void;

/// A device address flang gave the runtime, or one derived from it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(transparent)]
pub struct Addr(*mut u8);

/// Types the runtime loads and stores whole: plain data, any bit pattern valid.
///
/// # Safety
/// Every bit pattern of the type's size is a valid value.
pub unsafe trait Plain: Copy {}
// SAFETY: integers and floats have no invalid bit patterns.
unsafe impl Plain for u8 {}
unsafe impl Plain for i8 {}
unsafe impl Plain for u16 {}
unsafe impl Plain for i16 {}
unsafe impl Plain for u32 {}
unsafe impl Plain for i32 {}
unsafe impl Plain for u64 {}
unsafe impl Plain for i64 {}
unsafe impl Plain for usize {}
unsafe impl Plain for f32 {}
unsafe impl Plain for f64 {}
// SAFETY: two floats without padding.
unsafe impl Plain for Complex<f32> {}
// SAFETY: as above.
unsafe impl Plain for Complex<f64> {}

/// A LOGICAL element of a kind: the kind's unsigned integer, nonzero for
/// true (a result holds 1).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(transparent)]
pub struct Logical<T>(pub T);
// SAFETY: a transparent integer; every bit pattern is a LOGICAL value.
unsafe impl<T: Plain> Plain for Logical<T> {}

/// A COMPLEX element: the real part, then the imaginary part (flang-rt's
/// `std::complex`, C's `_Complex`).
#[derive(Clone, Copy, PartialEq, Debug)]
#[repr(C)]
pub struct Complex<T> {
    pub re: T,
    pub im: T,
}

impl Addr {
    pub const NULL: Addr = Addr(core::ptr::null_mut());

    /// An address flang's code passed the runtime.
    ///
    /// # Safety
    /// `ptr` is null or flang's: a descriptor, type description, string or
    /// data object that lives for the call, of the kind the entry point's
    /// flang-rt signature says.
    #[inline(always)]
    pub unsafe fn from_flang(ptr: *const c_void) -> Addr {
        Addr(ptr as *mut u8)
    }

    /// The pointer to hand back to flang's code.
    #[inline(always)]
    pub fn as_ptr(self) -> *mut c_void {
        self.0.cast()
    }

    #[inline(always)]
    pub fn is_null(self) -> bool {
        self.0.is_null()
    }

    /// The address as a number, for ordering and overlap tests.
    #[inline(always)]
    pub fn value(self) -> usize {
        self.0 as usize
    }

    /// `bytes` further on (or back, when negative).
    #[inline(always)]
    pub fn offset(self, bytes: i64) -> Addr {
        Addr(self.0.wrapping_offset(bytes as isize))
    }

    /// `bytes` further on.
    #[inline(always)]
    pub fn plus(self, bytes: usize) -> Addr {
        Addr(self.0.wrapping_add(bytes))
    }

    /// The `T` at this address, naturally aligned.
    #[inline(always)]
    pub fn load<T: Plain>(self) -> T {
        // SAFETY: the address is flang's or derived from flang's descriptors
        // (module docs); `T: Plain` takes any bit pattern.
        unsafe { self.0.cast::<T>().read() }
    }

    #[inline(always)]
    pub fn store<T: Plain>(self, value: T) {
        // SAFETY: as for `load`.
        unsafe { self.0.cast::<T>().write(value) }
    }

    /// The pointer stored at this address.
    #[inline(always)]
    pub fn load_addr(self) -> Addr {
        // SAFETY: as for `load`; a pointer field of flang's.
        Addr(unsafe { self.0.cast::<*mut u8>().read() })
    }

    #[inline(always)]
    pub fn store_addr(self, value: Addr) {
        // SAFETY: as for `load`.
        unsafe { self.0.cast::<*mut u8>().write(value.0) }
    }

    /// Copies `bytes` from `from`, which may overlap (`memmove`).
    #[inline(always)]
    pub fn copy_from(self, from: Addr, bytes: usize) {
        if bytes != 0 {
            // SAFETY: both ranges are flang's or the runtime's (module docs).
            unsafe { core::ptr::copy(from.0, self.0, bytes) }
        }
    }

    /// Sets `bytes` bytes to `byte`.
    #[inline(always)]
    pub fn fill(self, byte: u8, bytes: usize) {
        if bytes != 0 {
            // SAFETY: as for `copy_from`.
            unsafe { core::ptr::write_bytes(self.0, byte, bytes) }
        }
    }
}

/// `bytes` from the device heap (at least one), or [`Addr::NULL`] when the
/// heap is exhausted: what flang's own code allocates with (CUDA's `malloc`),
/// so that either frees what the other allocated.
#[inline(always)]
pub fn allocate(bytes: usize) -> Addr {
    Addr(crate::arch::malloc(bytes.max(1) as u64))
}

/// Gives back an allocation of [`allocate`] or of flang's code; null is
/// ignored.
#[inline(always)]
pub fn deallocate(addr: Addr) {
    // SAFETY: the address is a heap block: flang's descriptors of allocated
    // objects hold what `malloc` returned, and the runtime frees each once
    // (it clears the descriptor's base address as it frees).
    unsafe { crate::arch::free(addr.0) }
}

/// Moves `value` into a new block of the device heap: state of the
/// runtime's own that outlives one call (an I/O statement, from its first
/// call to its last, behind the cookie flang passes back). `None` when the
/// heap is exhausted.
pub fn boxed<T>(value: T) -> Option<Addr> {
    let at = allocate(core::mem::size_of::<T>());
    if at.is_null() {
        return None;
    }
    // SAFETY: a fresh heap block of `T`'s size, 16-byte aligned (CUDA's
    // `malloc`, the host's in the simulation), which `T`'s alignment divides.
    unsafe { at.0.cast::<T>().write(value) };
    Some(at)
}

/// The value [`boxed`] put at `at`.
///
/// # Safety
/// `at` is what [`boxed`] returned for a `T`, not yet given to [`unbox`],
/// and no other reference to the value is live.
pub unsafe fn boxed_mut<'a, T>(at: Addr) -> &'a mut T {
    // SAFETY: forwarded from the caller.
    unsafe { &mut *at.0.cast::<T>() }
}

/// Gives back the block of [`boxed`] at `at` (`T` has no destructor to run).
///
/// # Safety
/// As for [`boxed_mut`]; the value is not used afterwards.
pub unsafe fn unbox<T: Copy>(at: Addr) {
    deallocate(at)
}

/// A Fortran procedure of one pointer argument, as the runtime calls it. In
/// the host simulation a test's procedure may trap, a panic that unwinds.
#[cfg(target_arch = "nvptx64")]
pub type Procedure = extern "C" fn(*mut u8);
#[cfg(not(target_arch = "nvptx64"))]
pub type Procedure = extern "C-unwind" fn(*mut u8);

/// Calls the Fortran procedure at `proc` with one argument (a final
/// subroutine: the object's address or its descriptor).
pub fn call_procedure(proc: Addr, argument: Addr) {
    // SAFETY: `proc` comes from a type description flang emitted for the
    // device (the `TYPE(C_FUNPTR)` of a special binding), a procedure of one
    // pointer argument, whose kind the binding states and the caller passes.
    unsafe {
        let f: Procedure = core::mem::transmute(proc.0);
        f(argument.0)
    }
}

/// Prints `line` (which ends with its NUL) and a newline on the device's
/// output.
pub fn print_line(line: &[u8]) {
    if line.last() == Some(&0) {
        // SAFETY: NUL-terminated, checked above.
        unsafe { crate::arch::print_line(line.as_ptr()) };
    }
}
