//! `N/M` progress of a long command on a terminal.
//!
//! A [`Progress`] rewrites one status line on stderr (`label N/M: item`) when
//! stderr is a terminal and `CI` is unset, and prints nothing otherwise, so
//! CI logs keep only the commands' results. It is `Sync`: worker threads
//! report their items through a shared reference.

use std::io::{IsTerminal, Write};
use std::sync::Mutex;

/// One long command's count of items done, shown on one line.
pub struct Progress {
    label: String,
    total: usize,
    /// Where the line goes (`None`: nowhere) and how many items were reported.
    state: Mutex<State>,
}

struct State {
    sink: Option<Box<dyn Write + Send>>,
    done: usize,
}

/// Whether progress lines go to stderr: it is a terminal and `CI` is unset
/// (CI systems set it, and a log is no place for a line rewritten in place).
pub fn shown_on_stderr() -> bool {
    shown(std::env::var_os("CI").as_deref(), std::io::stderr().is_terminal())
}

/// [`shown_on_stderr`] for a given `CI` value and terminal test.
fn shown(ci: Option<&std::ffi::OsStr>, terminal: bool) -> bool {
    terminal && ci.is_none_or(|v| v.is_empty())
}

impl Progress {
    /// Progress of `total` items under `label`, on stderr where
    /// [`shown_on_stderr`] allows.
    pub fn new(label: &str, total: usize) -> Progress {
        let sink: Option<Box<dyn Write + Send>> = if shown_on_stderr() { Some(Box::new(std::io::stderr())) } else { None };
        Progress::to(label, total, sink)
    }

    /// Progress written to `sink` (`None`: silent), whatever stderr is.
    pub fn to(label: &str, total: usize, sink: Option<Box<dyn Write + Send>>) -> Progress {
        Progress { label: label.to_string(), total, state: Mutex::new(State { sink, done: 0 }) }
    }

    /// Counts one more item and shows `label N/M: name` in place of the last line.
    pub fn item(&self, name: &str) {
        // A worker that panicked while holding the lock left a count that is
        // still a count: go on with it.
        let mut state = self.state.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        state.done += 1;
        let line = format!("{} {}/{}: {name}", self.label, state.done, self.total);
        if let Some(sink) = state.sink.as_mut() {
            // \r to the line's start, ESC[K erases what a longer line left.
            let _ = write!(sink, "\r\x1b[K{line}");
            let _ = sink.flush();
        }
    }

    /// Clears the line, leaving the terminal as it was before the first item.
    pub fn finish(self) {
        drop(self);
    }
}

/// A command that stops early (an error returned through `?`) clears the
/// line too, so its message starts on a line of its own.
impl Drop for Progress {
    fn drop(&mut self) {
        let state = self.state.get_mut().unwrap_or_else(|poisoned| poisoned.into_inner());
        if let Some(sink) = state.sink.as_mut()
            && state.done > 0
        {
            let _ = write!(sink, "\r\x1b[K");
            let _ = sink.flush();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;

    /// A sink the test reads back.
    #[derive(Clone, Default)]
    struct Shared(Arc<Mutex<Vec<u8>>>);

    impl Write for Shared {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            self.0.lock().unwrap().extend_from_slice(buf);
            Ok(buf.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }

    impl Shared {
        fn text(&self) -> String {
            String::from_utf8(self.0.lock().unwrap().clone()).unwrap()
        }
    }

    #[test]
    fn each_item_rewrites_the_line_and_finish_clears_it() {
        let out = Shared::default();
        let p = Progress::to("corpus", 3, Some(Box::new(out.clone())));
        p.item("saxpy.c -O0");
        p.item("saxpy.c -O2");
        assert_eq!(out.text(), "\r\x1b[Kcorpus 1/3: saxpy.c -O0\r\x1b[Kcorpus 2/3: saxpy.c -O2");
        p.finish();
        assert!(out.text().ends_with("saxpy.c -O2\r\x1b[K"), "{:?}", out.text());
        let early = Shared::default();
        {
            let p = Progress::to("corpus", 3, Some(Box::new(early.clone())));
            p.item("a.c -O0");
        }
        assert_eq!(early.text(), "\r\x1b[Kcorpus 1/3: a.c -O0\r\x1b[K", "dropped without finish");
    }

    #[test]
    fn a_silent_progress_writes_nothing_and_finish_without_items_leaves_the_line() {
        let out = Shared::default();
        Progress::to("static-cost", 2, Some(Box::new(out.clone()))).finish();
        assert_eq!(out.text(), "");
        let silent = Progress::to("static-cost", 2, None);
        silent.item("a.c");
        silent.finish();
    }

    #[test]
    fn items_from_worker_threads_are_each_counted_once() {
        fn is_sync<T: Sync>(_: &T) {}
        let out = Shared::default();
        let p = Progress::to("conformance", 40, Some(Box::new(out.clone())));
        is_sync(&p);
        std::thread::scope(|s| {
            for t in 0..4 {
                let p = &p;
                s.spawn(move || (0..10).for_each(|i| p.item(&format!("t{t} i{i}"))));
            }
        });
        p.finish();
        let text = out.text();
        for n in 1..=40 {
            assert_eq!(text.matches(&format!("conformance {n}/40: ")).count(), 1, "{text}");
        }
    }

    #[test]
    fn only_a_terminal_outside_ci_shows_progress() {
        use std::ffi::OsStr;
        assert!(shown(None, true));
        assert!(shown(Some(OsStr::new("")), true));
        assert!(!shown(Some(OsStr::new("true")), true));
        assert!(!shown(None, false));
        assert!(!shown(Some(OsStr::new("1")), false));
    }
}
