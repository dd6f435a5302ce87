//! Traps with messages, whole lines built at compile time (`message!`) and
//! printed with a `printf` that takes no arguments: an argument buffer would
//! give every kernel that can reach a trap a stack frame.

/// `"omprt: <parts>\n\0"` as a byte string, for [`fatal`] and [`check`].
macro_rules! message {
    ($($part:expr),+ $(,)?) => {
        concat!("omprt: ", $($part),+, "\n\0").as_bytes()
    };
}
pub(crate) use message;

/// Traps with `message` (made by [`message!`]).
#[inline(always)]
pub fn fatal(message: &'static [u8]) -> ! {
    crate::arch::trap_with_message(message)
}

/// Traps with "omprt: <what>: <name>", `name` known at run time (the entry
/// point of a shared implementation); its printf arguments cost a frame.
#[inline(always)]
pub fn fatal_naming(what: &[u8], name: &[u8]) -> ! {
    crate::arch::trap_naming(what, name)
}

/// Checks a contract clang's code keeps, only under `-fopenmp-target-debug`
/// (`ASSERTION`, as upstream's `ASSERT`): elsewhere it folds away with its
/// `printf` call (`no_kernel_costs_more_than_with_llvm19`).
#[inline(always)]
pub fn assertion(condition: bool, message: &'static [u8]) {
    if crate::config::debug_kind().contains(omprt_abi::DeviceDebugKind::ASSERTION) && !condition {
        fatal(message)
    }
}

/// Checks a contract of the compiler's code whose violation would hang or
/// corrupt: always traps, printing `message` only under
/// `-fopenmp-target-debug`, since where the condition does not fold a
/// `printf` costs every kernel a call (`spmd_kernel_in_a_mixed_file_makes_no_call`).
#[inline(always)]
pub fn contract(condition: bool, message: &'static [u8]) {
    if !condition {
        assertion(false, message);
        crate::arch::trap_without_message(message)
    }
}

/// Checks a runtime invariant; `message` (made by [`message!`]) names the
/// entry point.
#[inline(always)]
pub fn check(condition: bool, message: &'static [u8]) {
    if !condition {
        fatal(message)
    }
}

/// `#pragma omp error at(execution)`: prints the user's message; a fatal
/// severity then traps.
///
/// # Safety
/// `message` is null or a NUL-terminated string that lives for the kernel.
#[allow(unsafe_code)]
pub unsafe fn user_error(fatal: bool, message: *const u8) {
    // SAFETY: forwarded from the caller.
    let message: &[u8] = if message.is_null() { b"(no message)\0" } else { unsafe { crate::arch::c_string(message) } };
    if fatal {
        crate::arch::trap_naming(b"error directive\0", message)
    }
    crate::arch::print_naming(b"warning directive\0", message)
}
