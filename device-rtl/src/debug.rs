//! Traps with messages. An entry point omprt does not implement traps with
//! a message that names it, never returning a plausible wrong value.
//!
//! A message names the entry point and the reason, then where: the source
//! location of the kernel's target construct (from clang's `ident_t`,
//! filled in when the program is built with `-g` or `-gline-tables-only`)
//! and the team and thread that hit it: `omprt: device heap exhausted in
//! __kmpc_alloc_shared; raise LIBOMPTARGET_HEAP_SIZE (prog.c:42:3, team 7,
//! thread 65)`. The reason is a constant (`message!`); the location is
//! written into a line of device memory, and the printf's arguments live
//! there too (`arch::trap_reporting`): arguments or a line on the stack
//! would give every kernel that can reach a trap a stack frame
//! (`no_kernel_costs_more_than_with_llvm19` and its -O0 and LTO siblings).
#![allow(unsafe_code)]

use crate::arch;
use core::cell::UnsafeCell;
use omprt_abi::Ident;

/// A trap's report as the printf format [`fatal`] and [`check`] print:
/// `omprt: <reason> (%s, team %u, thread %u)\n`, the `%s` being where.
/// Built at compile time, so that a trap site stores three values and
/// calls printf. The reason has no `%`.
macro_rules! message {
    ($($part:expr),+ $(,)?) => {
        concat!("omprt: ", $($part),+, " (%s, team %u, thread %u)\n\0").as_bytes()
    };
}
pub(crate) use message;

/// The `ident_t` of the kernel's target construct, null when clang passed
/// none. Written by the team's initial thread at the kernel's start, read
/// only by traps: inlined into a kernel, the read folds to the kernel's own
/// constant (openmp-opt forwards the one store that reaches it), and the
/// static and its store go.
pub struct SourceCell(UnsafeCell<*const Ident>);

// SAFETY: written by the team's initial thread before the barrier that
// starts the team, read after it.
unsafe impl Sync for SourceCell {}
// SAFETY: an address of a constant that lives for the program.
unsafe impl Send for SourceCell {}

impl SourceCell {
    pub const fn new() -> Self {
        SourceCell(UnsafeCell::new(core::ptr::null()))
    }
}

impl Default for SourceCell {
    fn default() -> Self {
        Self::new()
    }
}

arch::team_static! {
    static KERNEL_SOURCE: SourceCell = SourceCell::new();
}

/// Records the kernel's source location for its traps; called by the
/// team's initial thread at the kernel's start.
#[inline(always)]
pub fn note_kernel_source(ident: *const Ident) {
    // SAFETY: the initial thread's write, before the team starts.
    unsafe { *KERNEL_SOURCE.get().0.get() = ident }
}

/// The kernel's `ident_t`, null where clang passed none.
#[inline(always)]
fn kernel_ident() -> *const Ident {
    // SAFETY: the initial thread's write, read after the team starts.
    unsafe { *KERNEL_SOURCE.get().0.get() }
}

/// Traps with `message` (made by [`message!`]) and where it happened:
/// reported by the device's first thread to trap (the first trap ends the
/// kernel), the others trap at once.
#[inline(always)]
pub fn fatal(message: &'static [u8]) -> ! {
    let ident = kernel_ident();
    let Some(line) = arch::claim_trap_line() else { arch::trap_without_message(message) };
    // SAFETY: the format's one `%s` is a NUL-terminated location.
    unsafe { arch::trap_reporting(message, location(line, ident)) }
}

/// Traps with "omprt: <what><name>" where `name` is only known at run
/// time (the entry point of a shared implementation), and the team and
/// thread. Out of line and cold: these checks sit in the static and
/// dispatched loops' init, functions of their own at -O0, where the
/// report's code inline would cost every kernel with a loop registers
/// (`no_kernel_costs_more_than_with_llvm19_at_o0`); out of line the
/// kernel's location is not known, and the report says no location is
/// passed.
#[inline(never)]
#[cold]
pub fn fatal_naming(what: &'static [u8], name: &[u8]) -> ! {
    report_naming(what, name, core::ptr::null())
}

/// The format of [`fatal_naming`]'s report.
const NAMING_FORMAT: &[u8] = b"omprt: %s%s (%s, team %u, thread %u)\n\0";

/// [`fatal`] with a reason and a name given at run time, and the source
/// location of the construct `ident` describes (null: none passed).
#[inline(always)]
fn report_naming(what: &[u8], name: &[u8], ident: *const Ident) -> ! {
    let Some(line) = arch::claim_trap_line() else { arch::trap_without_message(what) };
    let location = if ident.is_null() { LOCATION_NOT_PASSED.as_ptr() } else { location(line, ident) };
    // SAFETY: `what`, `name` and the location are NUL-terminated.
    unsafe { arch::trap_reporting_named(NAMING_FORMAT, what.as_ptr(), name.as_ptr(), location) }
}

/// The location a report gives for `ident`: where LLVM knows `ident` as a
/// constant here (a kernel's, inlined at -O1 and above), its `file:line:column`
/// written into `line`; elsewhere (at -O0, or in a function that stays out
/// of line) [`LOCATION_NOT_KNOWN_HERE`], without reading it. The test is on
/// `ident` itself, so that where it fails the formatting code is dead: a
/// load of shared memory and a parsing loop in every runtime function that
/// can trap would cost -O0 kernels registers
/// (`no_kernel_costs_more_than_with_llvm19_at_o0`).
#[inline(always)]
fn location(line: &mut [u8; arch::TRAP_LINE_BYTES], ident: *const Ident) -> *const u8 {
    if !arch::is_compile_time_constant(ident as i64) {
        return LOCATION_NOT_KNOWN_HERE.as_ptr();
    }
    // SAFETY: null, or clang's constant `ident_t`.
    let psource = if ident.is_null() { core::ptr::null() } else { unsafe { (*ident).psource } };
    // SAFETY: null, or clang's NUL-terminated constant.
    unsafe { write_location(line, psource) }
}

/// Bytes a cut file name leaves for `:line:column` and the NUL.
const ROW_AND_COLUMN_ROOM: usize = 24;

/// What a report says where the trap's caller passes no source location.
pub const LOCATION_NOT_PASSED: &[u8] = b"no source location passed\0";

/// What a report says where the program carries no source location.
pub const NO_LOCATION: &[u8] = b"source location unknown: build with -gline-tables-only\0";

/// What a report says where the location is not known at the trap (at -O0,
/// or in the runtime's out-of-line copy).
pub const LOCATION_NOT_KNOWN_HERE: &[u8] = b"source location unknown: clang passes it with -O1 or more and -gline-tables-only\0";

/// Writes `file:line:column` from clang's `psource`
/// (`";file;function;line;column;;"`) into `line`, NUL-terminated, and
/// returns it; [`NO_LOCATION`] where `psource` is clang's without debug
/// information (`";unknown;unknown;0;0;;"`), [`LOCATION_NOT_PASSED`] where
/// it is null. The end of a file name
/// too long for the line is cut. One pass with raw accesses: this code is
/// inlined at every trap site, and a bounds check would bring core's panic
/// formatting and its stack frame into every kernel that can trap
/// (`no_kernel_costs_more_than_with_llvm19`).
///
/// # Safety
/// `psource` is null or a NUL-terminated string.
#[inline(always)]
pub unsafe fn write_location<const N: usize>(line: &mut [u8; N], psource: *const u8) -> *const u8 {
    let out = line.as_mut_ptr();
    // SAFETY: a NUL-terminated string's bytes up to its NUL, which the
    // prefix test stops at too; `out` below `N`, as each
    // write checks.
    unsafe {
        if psource.is_null() {
            return LOCATION_NOT_PASSED.as_ptr();
        }
        if *psource == 0 || (0..UNKNOWN.len()).all(|k| *psource.add(k) == UNKNOWN[k]) {
            return NO_LOCATION.as_ptr();
        }
        // The fields after the leading ';': file, function (left out),
        // line and column, joined by ':'.
        let (mut field, mut n, mut i) = (0u32, 0usize, 1usize);
        loop {
            let mut b = *psource.add(i);
            i += 1;
            if b == 0 {
                break;
            }
            if b == b';' {
                field += 1;
                if field == 4 {
                    break;
                }
                if field == 1 {
                    continue;
                }
                b = b':';
            } else if field == 1 {
                continue;
            }
            // The file's end is cut where it would leave no room for the rest.
            let room = if field == 0 { ROW_AND_COLUMN_ROOM } else { 1 };
            if n + room < N {
                *out.add(n) = b;
                n += 1;
            }
        }
        *out.add(n) = 0;
        out
    }
}

/// How `psource` starts without debug information.
const UNKNOWN: &[u8] = b";unknown;";

/// Checks a contract that clang's generated code keeps, only in programs
/// built with `-fopenmp-target-debug` (debug kind `ASSERTION`, as upstream's
/// `ASSERT`): elsewhere the check folds away, and with it a `printf` call,
/// which costs a kernel registers (`no_kernel_costs_more_than_with_llvm19`).
#[inline(always)]
pub fn assertion(condition: bool, message: &'static [u8]) {
    if crate::config::debug_kind().contains(omprt_abi::DeviceDebugKind::ASSERTION) && !condition {
        fatal(message)
    }
}

/// Checks a contract of the compiler's code whose violation would hang or
/// corrupt (a generic-mode region without a wrapper): always traps,
/// printing `message` only under `-fopenmp-target-debug`, as [`assertion`]
/// does, since where the condition does not fold a `printf` costs every
/// kernel a call (`spmd_kernel_in_a_mixed_file_makes_no_call`).
#[inline(always)]
pub fn contract(condition: bool, message: &'static [u8]) {
    if !condition {
        assertion(false, message);
        arch::trap_without_message(message)
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

/// Bytes of an `error` directive warning's location, its NUL included.
const WARNING_LOCATION_BYTES: usize = 160;

/// `#pragma omp error at(execution)`. A warning prints LLVM's line, `OMP:
/// <file>:<line>:<column>: Encountered user-directed warning: <message>.`
/// (`unknown:0:0` where clang passes no location, no `: <message>` without
/// a message); the location is always written out, as only kernels with
/// the directive call this. A fatal severity traps, saying where the
/// directive is (`loc`).
///
/// # Safety
/// `message` is null or a NUL-terminated string that lives for the kernel;
/// `loc` is null or clang's `ident_t`.
pub unsafe fn user_error(loc: *const Ident, fatal: bool, message: *const u8) {
    if fatal {
        // SAFETY: forwarded from the caller.
        let message: &[u8] = if message.is_null() { b"(no message)\0" } else { unsafe { arch::c_string(message) } };
        report_naming(b"error directive: \0", message, loc)
    }
    // Room for the location: every runtime frame stays within 256 bytes
    // (`runtime_stack_frames_stay_small`); a longer file name is cut.
    let mut line = [0u8; WARNING_LOCATION_BYTES];
    // SAFETY: null, or clang's `ident_t` with its NUL-terminated `psource`.
    let written = unsafe { write_location(&mut line, if loc.is_null() { core::ptr::null() } else { (*loc).psource }) };
    let location = if written == LOCATION_NOT_PASSED.as_ptr() || written == NO_LOCATION.as_ptr() { c"unknown:0:0".as_ptr().cast() } else { written };
    // SAFETY: both NUL-terminated (the message when not null).
    unsafe { arch::print_user_warning(location, message) }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn location(psource: &[u8]) -> String {
        let mut line = [0xffu8; arch::TRAP_LINE_BYTES];
        let p = if psource.is_empty() { core::ptr::null() } else { psource.as_ptr() };
        let text = unsafe { std::ffi::CStr::from_ptr(write_location(&mut line, p).cast()) };
        text.to_str().unwrap().to_string()
    }

    #[test]
    fn clangs_psource_becomes_file_line_and_column() {
        assert_eq!(location(b";prog.c;main;42;3;;\0"), "prog.c:42:3");
        assert_eq!(location(b";/src/a b.c;f;1;0;;\0"), "/src/a b.c:1:0");
        assert_eq!(location(b";u.c\0"), "u.c", "a string cut short");
        assert_eq!(location(b";x.f90;omp_main;1000;17;;\0"), "x.f90:1000:17");
    }

    #[test]
    fn without_a_location_the_report_says_how_to_get_one() {
        let none = "source location unknown: build with -gline-tables-only";
        assert_eq!(location(b""), "no source location passed");
        assert_eq!(location(b";unknown;unknown;0;0;;\0"), none);
        assert_eq!(location(b"\0"), none);
    }

    #[test]
    fn a_long_file_name_is_cut_to_the_line() {
        let psource = format!(";/{};f;12;5;;\0", "d/".repeat(400));
        let text = location(psource.as_bytes());
        assert!(text.len() < arch::TRAP_LINE_BYTES, "{text}");
        assert!(text.starts_with("/d/d/") && text.ends_with(":12:5"), "{text}");
    }
}
