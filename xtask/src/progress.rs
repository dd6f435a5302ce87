//! A one-line progress display for long xtask runs: `label [done/total] item`,
//! rewritten in place on stderr. It prints only when stderr is a terminal and
//! `CI` is unset, so logs and CI output keep only the results.

use std::io::{IsTerminal, Write};
use std::sync::atomic::{AtomicUsize, Ordering};

/// Progress over `total` items; `item` may be called from several threads.
pub struct Progress {
    label: String,
    total: usize,
    done: AtomicUsize,
    shown: bool,
}

impl Progress {
    pub fn new(label: &str, total: usize) -> Progress {
        let shown = std::io::stderr().is_terminal() && std::env::var_os("CI").is_none();
        Progress { label: label.to_string(), total, done: AtomicUsize::new(0), shown }
    }

    /// Counts one item as started and shows its name.
    pub fn item(&self, name: &str) {
        let n = self.done.fetch_add(1, Ordering::Relaxed) + 1;
        if self.shown {
            let mut err = std::io::stderr().lock();
            let _ = write!(err, "\r\x1b[2K{} [{n}/{}] {name}", self.label, self.total);
            let _ = err.flush();
        }
    }

    /// Clears the line.
    pub fn finish(self) {
        if self.shown {
            let _ = write!(std::io::stderr().lock(), "\r\x1b[2K");
        }
    }
}
