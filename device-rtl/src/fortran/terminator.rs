//! How the Fortran runtime ends a kernel: flang-rt's fatal errors
//! (`fatal Fortran runtime error(file:line): message`), `STOP` and
//! `ERROR STOP`, each a line on the device's output and then a trap.
//!
//! A GPU thread cannot end its host process, nor can one thread end the
//! others of its kernel normally: the trap ends the kernel, and the host's
//! offload runtime reports the failed launch and exits with an error, as
//! flang-rt built for the GPU does. So a `STOP` in a target region, even
//! `STOP 0`, does not end the program with exit status 0.
//!
//! Messages are built at run time in a buffer of the cold function that
//! prints them, so that the functions that may fail keep no buffer in
//! their own frame.

use super::memory::{self, Addr};

/// The source position flang passes with a call (`sourceFile`, `sourceLine`).
#[derive(Clone, Copy, Debug)]
pub struct Site {
    /// A NUL-terminated file name, or null.
    pub file: Addr,
    pub line: i32,
}

impl Site {
    pub const UNKNOWN: Site = Site { file: Addr::NULL, line: 0 };
}

/// Bytes of a message line, its NUL included; longer messages are cut.
const LINE_BYTES: usize = 240;

/// A message being built: text, numbers, and strings from flang.
pub struct Line {
    buf: [u8; LINE_BYTES],
    len: usize,
}

impl Line {
    pub fn new() -> Line {
        Line { buf: [0; LINE_BYTES], len: 0 }
    }

    /// The text so far, without a NUL.
    pub fn as_bytes(&self) -> &[u8] {
        &self.buf[..self.len]
    }

    pub fn byte(&mut self, b: u8) -> &mut Line {
        // One byte stays for the NUL.
        if self.len + 1 < LINE_BYTES {
            self.buf[self.len] = b;
            self.len += 1;
        }
        self
    }

    pub fn text(&mut self, text: &[u8]) -> &mut Line {
        for &b in text {
            self.byte(b);
        }
        self
    }

    /// `n` in decimal.
    pub fn int(&mut self, n: i64) -> &mut Line {
        let mut digits = [0u8; 20];
        let mut at = digits.len();
        let mut v = n.unsigned_abs();
        loop {
            at -= 1;
            digits[at] = b'0' + (v % 10) as u8;
            v /= 10;
            if v == 0 {
                break;
            }
        }
        if n < 0 {
            self.byte(b'-');
        }
        self.text(&digits[at..])
    }

    /// The NUL-terminated string at `s` (up to the line's room).
    pub fn c_string(&mut self, s: Addr) -> &mut Line {
        let mut at = s;
        while self.len + 1 < LINE_BYTES {
            let b: u8 = at.load();
            if b == 0 {
                break;
            }
            self.byte(b);
            at = at.plus(1);
        }
        self
    }

    /// `length` characters at `s` (Fortran's strings have no NUL).
    pub fn chars(&mut self, s: Addr, length: usize) -> &mut Line {
        for i in 0..length.min(LINE_BYTES) {
            self.byte(s.plus(i).load());
        }
        self
    }

    /// The line with its NUL, to print.
    pub fn finish(&mut self) -> &[u8] {
        self.buf[self.len] = 0;
        &self.buf[..=self.len]
    }
}

impl Default for Line {
    fn default() -> Self {
        Line::new()
    }
}

/// Prints `line` (built by [`Line::finish`]) and ends the kernel.
fn print_and_trap(line: &[u8]) -> ! {
    memory::print_line(line);
    crate::arch::trap_without_message(line)
}

/// flang-rt's `Terminator::Crash`: `fatal Fortran runtime error(file:line):
/// <message>`, then a trap.
#[cold]
#[inline(never)]
pub fn crash(site: Site, message: impl FnOnce(&mut Line)) -> ! {
    let mut line = Line::new();
    line.text(b"fatal Fortran runtime error");
    if !site.file.is_null() {
        line.text(b"(").c_string(site.file).text(b":").int(site.line.into()).text(b")");
    }
    line.text(b": ");
    message(&mut line);
    print_and_trap(line.finish())
}

/// [`crash`] with a fixed message.
#[cold]
#[inline(never)]
pub fn crash_with(site: Site, message: &[u8]) -> ! {
    crash(site, |m| {
        m.text(message);
    })
}

/// A flang-rt entry point, or a case of one, that the device cannot carry
/// out: `omprt: <name>: not supported on the device: <why>`, then a trap.
#[cold]
#[inline(never)]
pub fn unsupported(name: &[u8], why: &[u8]) -> ! {
    let mut line = Line::new();
    line.text(b"omprt: ").text(name).text(b": not supported on the device: ").text(why);
    print_and_trap(line.finish())
}

/// `STOP` / `ERROR STOP` with an integer code (`_FortranAStopStatement`):
/// `Fortran STOP` or `Fortran ERROR STOP`, with `: code <n>` unless the code
/// is 0, unless `quiet` (`QUIET=.TRUE.`); then a trap.
#[cold]
#[inline(never)]
pub fn stop(code: i32, error_stop: bool, quiet: bool) -> ! {
    let mut line = Line::new();
    if !quiet {
        line.text(if error_stop { b"Fortran ERROR STOP" } else { b"Fortran STOP" });
        if code != 0 {
            line.text(b": code ").int(code.into());
        }
        memory::print_line(line.finish());
    }
    crate::arch::trap_without_message(line.finish())
}

/// `STOP` / `ERROR STOP` with a character code (`_FortranAStopStatementText`):
/// `Fortran STOP: <text>` (`Fortran ERROR STOP: <text>`) unless `quiet`; then
/// a trap.
#[cold]
#[inline(never)]
pub fn stop_text(text: Addr, length: usize, error_stop: bool, quiet: bool) -> ! {
    let mut line = Line::new();
    if !quiet {
        line.text(if error_stop { b"Fortran ERROR STOP: " } else { b"Fortran STOP: " }).chars(text, length);
        memory::print_line(line.finish());
    }
    crate::arch::trap_without_message(line.finish())
}

/// The GNU extension `CALL EXIT(status)` (`_FortranAExit`): `Fortran EXIT:
/// status <n>`, then a trap; like `STOP`, even `EXIT(0)` ends the kernel
/// and the program with an error.
#[cold]
#[inline(never)]
pub fn exit(status: i32) -> ! {
    let mut line = Line::new();
    line.text(b"Fortran EXIT: status ").int(status.into());
    print_and_trap(line.finish())
}

/// The GNU extension `CALL ABORT()` (`_FortranAAbort`): `Fortran ABORT`,
/// then a trap.
#[cold]
#[inline(never)]
pub fn abort() -> ! {
    print_and_trap(b"Fortran ABORT\0")
}
