//! Traps with messages. An entry point omprt does not implement yet traps
//! with a message that names it, never returning a plausible wrong value.

/// Traps with "omprt: not implemented yet: <name>". `name` is NUL-terminated.
#[inline(always)]
pub fn not_implemented(name: &[u8]) -> ! {
    crate::arch::trap_naming(b"not implemented yet\0", name)
}

/// Traps with "omprt: <what>: <name>"; both NUL-terminated.
#[inline(always)]
pub fn fatal(what: &[u8], name: &[u8]) -> ! {
    crate::arch::trap_naming(what, name)
}

/// Checks a runtime invariant; the failure message names the entry point.
#[inline(always)]
pub fn check(condition: bool, what: &[u8], name: &[u8]) {
    if !condition {
        fatal(what, name)
    }
}

/// `#pragma omp error at(execution)`: prints the user's message; a fatal
/// severity then traps.
pub fn user_error(fatal: bool, message: *const u8) {
    let message: &[u8] = if message.is_null() { b"(no message)\0" } else { crate::arch::c_string(message) };
    if fatal {
        crate::arch::trap_naming(b"error directive\0", message)
    }
    crate::arch::print_naming(b"warning directive\0", message)
}
