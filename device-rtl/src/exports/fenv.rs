//! C's floating-point environment (`<fenv.h>`) on the device, for the code
//! flang 22 wraps around every procedure that uses `IEEE_EXCEPTIONS` or
//! `IEEE_ARITHMETIC`: on entry it saves the raised flags and the halting
//! modes (`fetestexcept(FE_ALL_EXCEPT)`, `fegetexcept`) and clears the
//! flags; on return it restores both (`feraiseexcept`, `feenableexcept`,
//! `fedisableexcept`). `IEEE_GET_STATUS`/`IEEE_SET_STATUS` and
//! `IEEE_GET_MODES`/`IEEE_SET_MODES` call `fegetenv`/`fesetenv` and
//! `fegetmode`/`fesetmode`.
//!
//! The GPU records no exception flags and never halts on an exception
//! (its rounding is chosen per instruction, not by a mode). These
//! functions describe that environment: no flag is ever raised, so testing
//! finds none and clearing succeeds; no exception halts, so disabling
//! succeeds and enabling any fails (-1, as C's `feenableexcept` reports a
//! failure); raising reports failure (nonzero) for any flag; an environment
//! or mode saved holds nothing and restoring one succeeds. What Fortran
//! code asks of the flags itself (`IEEE_GET_FLAG`,
//! `IEEE_SET_HALTING_MODE(..., .TRUE.)`) goes through flang-rt's
//! `_FortranAfe*` entry points, which trap (`exports::fortran`).
//!
//! In the Fortran runtime member beside `exports::libm`; weak on the GPU,
//! Rust names in the host simulation, as those are.

use core::ffi::c_void;

/// `fetestexcept`: the raised flags among `excepts`; none are ever raised.
#[cfg_attr(target_arch = "nvptx64", unsafe(no_mangle), linkage = "weak")]
pub extern "C-unwind" fn fetestexcept(_excepts: i32) -> i32 {
    0
}

/// `feclearexcept`: succeeds, as no flag is raised.
#[cfg_attr(target_arch = "nvptx64", unsafe(no_mangle), linkage = "weak")]
pub extern "C-unwind" fn feclearexcept(_excepts: i32) -> i32 {
    0
}

/// `feraiseexcept`: fails for any flag, as none can be raised; flang
/// ignores the result.
#[cfg_attr(target_arch = "nvptx64", unsafe(no_mangle), linkage = "weak")]
pub extern "C-unwind" fn feraiseexcept(excepts: i32) -> i32 {
    i32::from(excepts != 0)
}

/// `fegetexcept`: the exceptions that halt, none.
#[cfg_attr(target_arch = "nvptx64", unsafe(no_mangle), linkage = "weak")]
pub extern "C-unwind" fn fegetexcept() -> i32 {
    0
}

/// `fedisableexcept`: the exceptions that halted before, none.
#[cfg_attr(target_arch = "nvptx64", unsafe(no_mangle), linkage = "weak")]
pub extern "C-unwind" fn fedisableexcept(_excepts: i32) -> i32 {
    0
}

/// `feenableexcept`: the exceptions that halted before (none) when asked
/// for none, which is what flang restores on the device; -1 for any other.
#[cfg_attr(target_arch = "nvptx64", unsafe(no_mangle), linkage = "weak")]
pub extern "C-unwind" fn feenableexcept(excepts: i32) -> i32 {
    if excepts == 0 { 0 } else { -1 }
}

/// `fegetenv`: there is nothing to save; `env` is left as it is.
#[cfg_attr(target_arch = "nvptx64", unsafe(no_mangle), linkage = "weak")]
pub extern "C-unwind" fn fegetenv(_env: *mut c_void) -> i32 {
    0
}

/// `fesetenv`: every saved environment is the one in force.
#[cfg_attr(target_arch = "nvptx64", unsafe(no_mangle), linkage = "weak")]
pub extern "C-unwind" fn fesetenv(_env: *const c_void) -> i32 {
    0
}

/// `fegetmode`: there is nothing to save; `modes` is left as it is.
#[cfg_attr(target_arch = "nvptx64", unsafe(no_mangle), linkage = "weak")]
pub extern "C-unwind" fn fegetmode(_modes: *mut c_void) -> i32 {
    0
}

/// `fesetmode`: every saved mode is the one in force.
#[cfg_attr(target_arch = "nvptx64", unsafe(no_mangle), linkage = "weak")]
pub extern "C-unwind" fn fesetmode(_modes: *const c_void) -> i32 {
    0
}
