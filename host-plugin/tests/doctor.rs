//! `omprt doctor` on this machine and on setups broken on purpose: each
//! problem gives its line, its fix and exit code 1; the machine's own setup
//! (the checkout's runtime and CUDA folder, no GPU) builds and exits 0.
//! Needs `cargo xtask build-device` and `bash scripts/setup.sh` (as the
//! lowering tests do).

use omprt_host::doctor::{Inputs, Level, Report, run};
use std::path::{Path, PathBuf};
use std::process::Command;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap().to_path_buf()
}

fn cuda() -> PathBuf {
    let c = root().join(".toolchain/cuda");
    assert!(c.join("bin/ptxas").is_file(), "{} is missing: run 'bash scripts/setup.sh'", c.display());
    c
}

fn runtime() -> PathBuf {
    let r = root().join("target/omprt/lib");
    assert!(r.join("libomptarget-nvptx.bc").is_file(), "{} has no runtime: run 'cargo xtask build-device'", r.display());
    r
}

fn scratch(tag: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("omprt-doctor-test-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// This machine as the tests see it: the checkout's runtime standing in for
/// an installed one, its CUDA folder, no GPU probe.
fn working() -> Inputs {
    Inputs {
        path: std::env::var_os("PATH").unwrap(),
        install_dir: Some(runtime()),
        cuda_path: Some(cuda()),
        arch: Some("sm_90".into()),
        checkout: Some(root()),
        probe_gpus: false,
    }
}

fn line<'a>(r: &'a Report, what: &str) -> &'a omprt_host::doctor::Line {
    r.line(what).unwrap_or_else(|| panic!("no '{what}' line:\n{}", r.render()))
}

#[test]
fn this_machine_builds_an_offload_program() {
    let r = run(&working());
    for what in ["clang-22", "runtime", "CUDA", "ptxas", "nvlink", "host", "build"] {
        assert_eq!(line(&r, what).level, Level::Ok, "{}", r.render());
    }
    assert_eq!(r.exit_code(), 0, "{}", r.render());
    assert!(line(&r, "nvlink").detail.contains("links sm_70 sm_75 sm_80 sm_86 sm_89 sm_90 sm_100 sm_120"), "{}", r.render());
}

#[test]
fn the_command_reports_this_machine_and_exits_0_with_warnings_only() {
    let out = Command::new(env!("CARGO_BIN_EXE_omprt"))
        .args(["doctor", "--arch", "sm_70", "--cuda-path"])
        .arg(cuda())
        .env("OMPRT_INSTALL_DIR", runtime())
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{text}{}", String::from_utf8_lossy(&out.stderr));
    assert!(text.contains("clang-22 -O2 -fopenmp --offload-arch=sm_70 <runtime flags> links a target region"), "{text}");
    assert!(!text.contains("FAIL"), "{text}");
    let bad = Command::new(env!("CARGO_BIN_EXE_omprt")).args(["doctor", "--arch", "gfx90a"]).output().unwrap();
    assert_eq!(bad.status.code(), Some(2), "a bad arch is a usage error");
}

#[test]
fn a_runtime_missing_from_where_clang_looks_names_the_install_step() {
    let empty = scratch("no-runtime");
    // From a checkout: the checkout's flags still build, the fix installs.
    let r = run(&Inputs { install_dir: Some(empty.clone()), ..working() });
    let l = line(&r, "runtime");
    assert_eq!(l.level, Level::Warn, "{}", r.render());
    assert_eq!(l.fix.as_deref(), Some(format!("sudo bash {}/scripts/install.sh", root().display()).as_str()));
    assert_eq!(r.exit_code(), 0, "{}", r.render());
    // Installed from the package, without a checkout: nothing builds.
    let r = run(&Inputs { install_dir: Some(empty.clone()), checkout: None, ..working() });
    let l = line(&r, "runtime");
    assert_eq!(l.level, Level::Fail, "{}", r.render());
    assert_eq!(l.fix.as_deref(), Some(format!("sudo apt install ./omprt_{}_amd64.deb", env!("CARGO_PKG_VERSION")).as_str()));
    assert_eq!(line(&r, "build").level, Level::Skip);
    assert_eq!(r.exit_code(), 1);
    std::fs::remove_dir_all(&empty).unwrap();
}

#[test]
fn a_missing_cuda_folder_names_setup_and_cuda_path() {
    let r = run(&Inputs { cuda_path: Some(PathBuf::from("/nonexistent/cuda")), ..working() });
    let l = line(&r, "CUDA");
    assert_eq!(l.level, Level::Fail, "{}", r.render());
    assert!(l.detail.contains("/nonexistent/cuda"), "{}", r.render());
    let fix = l.fix.as_deref().unwrap();
    assert!(fix.contains("scripts/setup.sh") && fix.contains("--cuda-path="), "{fix}");
    assert_eq!(r.exit_code(), 1);
}

#[test]
fn an_nvlink_too_new_for_the_arch_names_a_toolkit_that_links_it() {
    // NVIDIA's CUDA 13 nvlink as the folder's nvlink, with ptxas 12.9.
    let dir = scratch("cuda13-nvlink");
    std::fs::create_dir_all(dir.join("bin")).unwrap();
    for (link, target) in [("bin/ptxas", "bin/ptxas"), ("bin/nvlink", "bin/nvlink-nvidia"), ("nvvm", "nvvm"), ("include", "include")] {
        std::os::unix::fs::symlink(cuda().join(target), dir.join(link)).unwrap();
    }
    let r = run(&Inputs { cuda_path: Some(dir.clone()), arch: Some("sm_70".into()), ..working() });
    let l = line(&r, "nvlink");
    assert_eq!(l.level, Level::Fail, "{}", r.render());
    assert!(l.detail.contains("nvlink 13.0") && l.detail.contains("too new for sm_70 (it starts at sm_75)"), "{}", r.render());
    assert!(l.fix.as_deref().unwrap().contains(&format!("--cuda-path={}/.toolchain/cuda", root().display())), "{}", r.render());
    assert_eq!(line(&r, "ptxas").level, Level::Ok, "ptxas 12.9 compiles sm_70:\n{}", r.render());
    assert_eq!(r.exit_code(), 1);
    // The same folder links sm_90.
    let r90 = run(&Inputs { cuda_path: Some(dir.clone()), arch: Some("sm_90".into()), ..working() });
    assert_eq!(line(&r90, "nvlink").level, Level::Ok, "{}", r90.render());
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn clang_missing_from_path_names_its_package() {
    let empty = scratch("no-clang");
    let r = run(&Inputs { path: empty.clone().into_os_string(), ..working() });
    let l = line(&r, "clang-22");
    assert_eq!((l.level, l.detail.as_str()), (Level::Fail, "not found on PATH"), "{}", r.render());
    assert!(l.fix.as_deref().unwrap().starts_with("sudo apt-get install clang-22"), "{}", r.render());
    assert_eq!(line(&r, "flang-22").fix.as_deref(), Some("sudo apt-get install flang-22"));
    assert_eq!(line(&r, "build").level, Level::Skip);
    assert_eq!(r.exit_code(), 1);
    std::fs::remove_dir_all(&empty).unwrap();
}
