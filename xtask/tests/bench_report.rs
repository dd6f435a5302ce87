//! `scripts/bench-run.sh --babelstream-report` on BabelStream's own output
//! (fixtures/babelstream-output: its `--csv` format, made-up figures), run
//! on the CPU: the parser of the results file's BabelStream lines.

use std::path::{Path, PathBuf};

fn fixtures() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures")
}

fn report(dir: &Path) -> String {
    let out = std::process::Command::new("bash")
        .arg(xtask::repo_root().join("scripts/bench-run.sh"))
        .arg("--babelstream-report")
        .arg(dir)
        .output()
        .expect("bash runs");
    assert!(out.status.success(), "bench-run.sh --babelstream-report failed: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout).unwrap()
}

fn scratch(tag: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("omprt-xtask-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// The report takes BabelStream's best-rep column (MB/s) as GB/s, skips the
/// CUDA model's banner, takes the median of the rounds (omprt double: three
/// runs whose Copy is 3000, 3200 and 3100 GB/s), divides by CUDA's, marks a
/// missing build with '-', and names a failed run.
#[test]
fn run_script_reports_babelstream_output_against_cuda() {
    let text = report(&fixtures().join("babelstream-output"));
    for line in [
        "babelstream omprt/cuda: copy 0.775 mul 0.912 add 0.902 triad 0.950 dot 0.911",
        "babelstream omprt-lto/cuda: copy 0.850 mul 0.850 add 0.850 triad 0.850 dot 0.850",
        "babelstream llvm19/cuda: copy 0.900 mul 0.900 add 0.900 triad 0.900 dot 0.700",
        "babelstream gcc12/cuda: copy 0.100 mul 0.100 add 0.100 triad 0.100 dot 0.100",
        "babelstream-float omprt/cuda: copy 0.750 mul 0.800 add 0.800 triad 0.900 dot 0.900",
        "babelstream-float llvm19/cuda: copy - mul - add - triad - dot -",
        "babelstream-gbs double omprt: copy 3100.0 mul 3650.0 add 3790.0 triad 3990.0 dot 3460.0",
        "babelstream-gbs double cuda: copy 4000.0 mul 4000.0 add 4200.0 triad 4200.0 dot 3800.0",
        "FAILED BabelStream runs gcc float: 1",
    ] {
        assert!(text.lines().any(|l| l == line), "no line '{line}' in:\n{text}");
    }
}

/// A run whose output has no CSV header (or another unit) gives no figure,
/// and the report says the run failed rather than inventing one.
#[test]
fn run_script_reports_an_output_without_figures_as_failed() {
    let dir = scratch("bs-report");
    std::fs::write(dir.join("omprt.double.r1.out"), "BabelStream\nVersion: 5.0\nCopy 123.4 0.1 0.1 0.1\n").unwrap();
    std::fs::write(dir.join("omprt.double.r1.rc"), "0\n").unwrap();
    let text = report(&dir);
    assert!(text.lines().any(|l| l == "FAILED BabelStream runs omprt double: no-result"), "{text}");
    assert!(text.lines().any(|l| l == "babelstream-gbs double omprt: copy - mul - add - triad - dot -"), "{text}");
    let _ = std::fs::remove_dir_all(&dir);
}
