//! Builds the corpus programs with clang 22 once per test binary. A missing
//! clang-22 or runtime is a failure naming the setup step, never a skip.

use omprt_host::Layout;
use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::{Mutex, OnceLock};

/// `tests-gpu/programs/<program>` compiled at `opt` for sm_90; the bytes.
pub fn build(program: &str, opt: &str) -> Vec<u8> {
    static BUILT: OnceLock<Mutex<HashMap<(String, String), PathBuf>>> = OnceLock::new();
    let layout = Layout::of_this_checkout();
    // Inside the target directory, one folder per test binary (reused, so
    // repeated runs do not accumulate files).
    let binary = std::env::current_exe().ok().and_then(|p| p.file_stem().map(|s| s.to_string_lossy().into_owned()));
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(binary.unwrap_or_else(|| "corpus".into()));
    let mut built = BUILT.get_or_init(Default::default).lock().unwrap_or_else(|e| e.into_inner());
    let key = (program.to_owned(), opt.to_owned());
    if !built.contains_key(&key) {
        std::fs::create_dir_all(&dir).unwrap();
        let exe = dir.join(format!("{program}{opt}"));
        layout
            .compile(&layout.programs_dir().join(program), opt, "sm_90", &exe)
            .unwrap_or_else(|e| panic!("building {program} {opt}: {e}"));
        built.insert(key.clone(), exe);
    }
    std::fs::read(&built[&key]).unwrap()
}
