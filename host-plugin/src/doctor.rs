//! `omprt doctor`: whether OpenMP offloading to NVIDIA GPUs works on this
//! machine, one line per part, each problem line ending with the command
//! that fixes it.
//!
//! The checks read their inputs from [`Inputs`] (PATH, where clang-22 looks
//! for the runtime, the CUDA folder, the arch), which `omprt doctor` fills
//! from its environment and options and the tests point at broken setups.
//! Exit code: 0 when a program builds (a missing GPU or driver is a
//! warning), 1 otherwise.

use crate::driver::Driver;
use omprt_nvlink::archs::{allowed_sm_values, number};
use std::ffi::OsString;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// What the checks look at.
#[derive(Clone, Debug, Default)]
pub struct Inputs {
    /// The PATH clang-22, flang-22 and the CUDA tools are found on (and
    /// which the compile runs with).
    pub path: OsString,
    /// Where plain clang-22 looks for the runtime (`OMPRT_INSTALL_DIR`);
    /// `None`: clang's `lib/nvptx64-nvidia-cuda`. Given, the test compile
    /// names the runtime in it explicitly.
    pub install_dir: Option<PathBuf>,
    /// `--cuda-path`; `None`: the toolkit clang-22 finds by itself.
    pub cuda_path: Option<PathBuf>,
    /// `--arch`; `None`: the first GPU's, or sm_90.
    pub arch: Option<String>,
    /// An omprt checkout whose scripts the fixes may name, with its built
    /// runtime (`target/omprt/lib`) where there is one.
    pub checkout: Option<PathBuf>,
    /// Whether to ask the CUDA driver for GPUs (the tests of broken setups
    /// leave it out, so that a GPU machine gives them the same report).
    pub probe_gpus: bool,
}

impl Inputs {
    /// From the process: PATH, `OMPRT_INSTALL_DIR`, the checkout this binary
    /// was built in when it runs from there.
    pub fn from_environment() -> Inputs {
        let in_checkout = crate::layout::runs_from_checkout();
        let layout = crate::Layout::of_this_checkout();
        Inputs {
            path: std::env::var_os("PATH").unwrap_or_default(),
            install_dir: std::env::var_os("OMPRT_INSTALL_DIR").filter(|v| !v.is_empty()).map(PathBuf::from),
            cuda_path: None,
            arch: None,
            checkout: in_checkout.then_some(layout.root),
            probe_gpus: true,
        }
    }
}

/// How a line reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Level {
    Ok,
    Warn,
    Fail,
    Skip,
}

/// One part of the report.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Line {
    pub level: Level,
    pub what: &'static str,
    pub detail: String,
    /// The command that fixes a problem.
    pub fix: Option<String>,
}

/// The whole report.
#[derive(Debug, Default)]
pub struct Report {
    pub lines: Vec<Line>,
}

impl Report {
    fn push(&mut self, level: Level, what: &'static str, detail: impl Into<String>, fix: Option<String>) {
        self.lines.push(Line { level, what, detail: detail.into(), fix });
    }

    /// The line about `what`, if the report has one.
    pub fn line(&self, what: &str) -> Option<&Line> {
        self.lines.iter().find(|l| l.what == what)
    }

    /// 0 when nothing needed to build failed, 1 otherwise.
    pub fn exit_code(&self) -> u8 {
        u8::from(self.lines.iter().any(|l| l.level == Level::Fail))
    }

    pub fn render(&self) -> String {
        let mut s = String::from("omprt doctor: OpenMP offloading to NVIDIA GPUs on this machine\n");
        for l in &self.lines {
            let tag = match l.level {
                Level::Ok => "ok  ",
                Level::Warn => "warn",
                Level::Fail => "FAIL",
                Level::Skip => "skip",
            };
            let _ = write!(s, "  {tag}  {:<10} {}", l.what, l.detail);
            if let Some(fix) = &l.fix {
                let _ = write!(s, " -> fix: {fix}");
            }
            s.push('\n');
        }
        s += match self.exit_code() {
            0 if self.lines.iter().any(|l| l.level == Level::Warn) => "result: offload programs build here (see the warnings)\n",
            0 => "result: offload programs build and run here\n",
            _ => "result: offload programs do not build here: apply the fixes above\n",
        };
        s
    }
}

/// `name` on `path`, as the shell finds it.
pub fn which(name: &str, path: &OsString) -> Option<PathBuf> {
    std::env::split_paths(path).map(|d| d.join(name)).find(|p| p.is_file())
}

/// stdout and stderr of `cmd` run with `path`, or `None` if it did not start.
fn output_of(cmd: &mut Command, path: &OsString) -> Option<(bool, String)> {
    let out = cmd.env("PATH", path).stdin(Stdio::null()).output().ok()?;
    Some((out.status.success(), String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr)))
}

/// A CUDA tool's release (`12.9`) from its `--version`.
fn release_of(version_text: &str) -> Option<String> {
    let at = version_text.find("release ")?;
    Some(version_text[at + 8..].split(|c: char| c == ',' || c.is_whitespace()).next()?.to_string())
}

/// `sm_70 sm_75 ...`: the archs of `list` among the ones omprt supports
/// (docs/install.md, "Toolkit per architecture").
const SUPPORTED: [&str; 8] = ["sm_70", "sm_75", "sm_80", "sm_86", "sm_89", "sm_90", "sm_100", "sm_120"];

fn supported_among(list: &[String]) -> String {
    let have: Vec<&str> = SUPPORTED.iter().copied().filter(|a| list.iter().any(|l| l == a)).collect();
    if have.is_empty() { "none of sm_70 ... sm_120".into() } else { have.join(" ") }
}

/// The part of `text` worth showing for a failed command: its first error line.
fn first_error(text: &str) -> String {
    text.lines().find(|l| l.contains("error") || l.contains("fatal")).or_else(|| text.lines().next()).unwrap_or("").trim().to_string()
}

/// The fix for the runtime missing from where clang looks.
fn install_fix(inputs: &Inputs) -> String {
    match &inputs.checkout {
        Some(root) => format!("sudo bash {}/scripts/install.sh", root.display()),
        None => format!("sudo apt install ./omprt_{}_amd64.deb", env!("CARGO_PKG_VERSION")),
    }
}

/// A toolkit that links `arch`: this checkout's CUDA folder, or CUDA 12.
fn toolkit_fix(inputs: &Inputs, arch: &str) -> String {
    match &inputs.checkout {
        Some(root) => format!("bash {0}/scripts/setup.sh, then pass --cuda-path={0}/.toolchain/cuda (it links {arch})", root.display()),
        None => format!("install CUDA 12 (NVIDIA's cuda-toolkit-12-9) and pass --cuda-path=/usr/local/cuda-12.9 (CUDA 13 has no {})", arch),
    }
}

/// Runs every check.
pub fn run(inputs: &Inputs) -> Report {
    let mut r = Report::default();
    let path = &inputs.path;

    // Compilers.
    let clang = which("clang-22", path);
    match &clang {
        Some(c) => {
            let v = output_of(Command::new(c).arg("--version"), path).map(|(_, t)| t.lines().next().unwrap_or("").to_string()).unwrap_or_default();
            r.push(Level::Ok, "clang-22", format!("{v} ({})", c.display()), None);
        }
        None => r.push(Level::Fail, "clang-22", "not found on PATH", Some("sudo apt-get install clang-22 (Debian 12: from bookworm-security)".into())),
    }
    match which("flang-22", path) {
        Some(f) => {
            let v = output_of(Command::new(&f).arg("--version"), path).map(|(_, t)| t.lines().next().unwrap_or("").to_string()).unwrap_or_default();
            r.push(Level::Ok, "flang-22", format!("{v} ({})", f.display()), None);
        }
        None => r.push(Level::Warn, "flang-22", "not found on PATH: no Fortran offloading", Some("sudo apt-get install flang-22".into())),
    }

    // Where clang-22 keeps its libraries: <lib>/clang/22 is its resource dir.
    let llvm_lib = clang
        .as_ref()
        .and_then(|c| output_of(Command::new(c).arg("-print-resource-dir"), path))
        .and_then(|(ok, t)| ok.then(|| PathBuf::from(t.trim())))
        .and_then(|res| res.parent()?.parent().map(Path::to_path_buf))
        .unwrap_or_else(|| PathBuf::from("/usr/lib/llvm-22/lib"));

    // The runtime.
    let default_dir = llvm_lib.join("nvptx64-nvidia-cuda");
    let install_dir = inputs.install_dir.clone().unwrap_or_else(|| default_dir.clone());
    let checkout_runtime = inputs.checkout.as_ref().map(|c| c.join("target/omprt/lib")).filter(|d| d.join("libomptarget-nvptx.bc").is_file());
    let bitcode = install_dir.join("libomptarget-nvptx.bc");
    let installed = bitcode.is_file() && install_dir.join("libompdevice.a").is_file();
    // How the test compile names the runtime: nothing when clang finds it.
    let mut runtime_flags: Option<Vec<String>> = None;
    if installed {
        let ours = std::fs::read(&bitcode).is_ok_and(|b| b.windows(5).any(|w| w == b"omprt"));
        let owner = output_of(Command::new("dpkg-query").arg("-S").arg(&bitcode), path)
            .and_then(|(ok, t)| ok.then(|| t.split(':').next().unwrap_or("").to_string()))
            .map_or_else(|| "not from a package: scripts/install.sh or a copy".to_string(), |p| format!("package {p}"));
        if ours {
            r.push(Level::Ok, "runtime", format!("{} ({owner})", install_dir.display()), None);
        } else {
            r.push(Level::Fail, "runtime", format!("{} is not omprt's ({owner})", bitcode.display()), Some(install_fix(inputs)));
        }
        if inputs.install_dir.is_some() {
            runtime_flags = Some(explicit_runtime_flags(&install_dir));
        } else {
            runtime_flags = Some(Vec::new());
        }
    } else if let Some(dir) = &checkout_runtime {
        let flags = explicit_runtime_flags(dir);
        r.push(
            Level::Warn,
            "runtime",
            format!(
                "not installed in {}: plain clang-22 cannot offload; builds need $(omprt flags {})",
                install_dir.display(),
                inputs.arch.as_deref().unwrap_or("sm_90")
            ),
            Some(install_fix(inputs)),
        );
        runtime_flags = Some(flags);
    } else {
        r.push(Level::Fail, "runtime", format!("not installed in {} (where clang-22 looks)", install_dir.display()), Some(install_fix(inputs)));
    }

    // The CUDA toolkit clang-22 uses.
    let cuda = match (&inputs.cuda_path, &clang) {
        (Some(dir), _) if dir.join("bin/ptxas").is_file() => {
            r.push(Level::Ok, "CUDA", format!("{} (--cuda-path)", dir.display()), None);
            Some(dir.clone())
        }
        (Some(dir), _) => {
            r.push(Level::Fail, "CUDA", format!("no CUDA toolkit at {} (no bin/ptxas)", dir.display()), Some(toolkit_fix(inputs, "sm_70 ... sm_120")));
            None
        }
        (None, Some(c)) => {
            let found = output_of(Command::new(c).arg("-v"), path).and_then(|(_, t)| {
                let line = t.lines().find(|l| l.starts_with("Found CUDA installation: "))?.to_string();
                let rest = line.trim_start_matches("Found CUDA installation: ");
                let (dir, version) = rest.split_once(", version ").unwrap_or((rest, "?"));
                Some((PathBuf::from(dir), version.to_string()))
            });
            match found {
                Some((dir, version)) => {
                    r.push(Level::Ok, "CUDA", format!("{} (version {version}, found by clang-22)", dir.display()), None);
                    Some(dir)
                }
                None => {
                    let fix = match &inputs.checkout {
                        Some(root) => format!("sudo bash {}/scripts/install.sh (links /usr/local/cuda to the project's CUDA folder)", root.display()),
                        None => "install CUDA 12 (NVIDIA's cuda-toolkit-12-9) into /usr/local/cuda, or pass --cuda-path=DIR to clang-22".into(),
                    };
                    r.push(Level::Fail, "CUDA", "clang-22 finds no CUDA toolkit (it looks at --cuda-path, the ptxas on PATH, /usr/local/cuda)", Some(fix));
                    None
                }
            }
        }
        (None, None) => {
            r.push(Level::Skip, "CUDA", "needs clang-22 to tell which toolkit it uses", None);
            None
        }
    };

    // The GPUs decide the arch unless one is given; their lines come last.
    let mut gpu_lines = Report::default();
    let gpus = if inputs.probe_gpus { gpus(&mut gpu_lines) } else { Vec::new() };
    let arch = inputs.arch.clone().or_else(|| gpus.first().cloned()).unwrap_or_else(|| "sm_90".into());

    // ptxas and nvlink of that toolkit, and whether they take the arch.
    let mut tools_ok = cuda.is_some();
    if let Some(dir) = &cuda {
        for (tool, option, what) in [("ptxas", "--gpu-name", "compiles"), ("nvlink", "--arch", "links")] {
            let exe = dir.join("bin").join(tool);
            let Some((_, version)) = output_of(Command::new(&exe).arg("--version"), path) else {
                r.push(Level::Fail, tool, format!("{} does not run", exe.display()), Some(toolkit_fix(inputs, &arch)));
                tools_ok = false;
                continue;
            };
            let archs = output_of(Command::new(&exe).arg("--help"), path).map(|(_, h)| allowed_sm_values(&h, option)).unwrap_or_default();
            let name = if version.contains("omprt-nvlink") {
                let nvidia = version.lines().find(|l| l.starts_with("NVIDIA nvlink")).and_then(release_of).unwrap_or_else(|| "none".into());
                format!("omprt-nvlink (NVIDIA nvlink {nvidia} + libnvJitLink)")
            } else {
                format!("{tool} {}", release_of(&version).unwrap_or_else(|| "?".into()))
            };
            let detail = format!("{name} {what} {}", supported_among(&archs));
            if archs.contains(&arch) {
                r.push(Level::Ok, tool, detail, None);
            } else {
                let lowest = archs.iter().map(|a| number(a)).filter(|&n| n > 0).min();
                let why = match lowest {
                    Some(n) if number(&arch) < n => format!("{name} is too new for {arch} (it starts at sm_{n})"),
                    _ => format!("{name} does not take {arch}"),
                };
                r.push(Level::Fail, tool, format!("{detail}; {why}"), Some(toolkit_fix(inputs, &arch)));
                tools_ok = false;
            }
        }
    }

    // The host offload runtime: libomptarget, with the CUDA plugin built in.
    let libomptarget = llvm_lib.join("libomptarget.so.22.1");
    match std::fs::read(&libomptarget) {
        Ok(bytes) if bytes.windows(10).any(|w| w == b"libcuda.so") => {
            r.push(Level::Ok, "host", format!("{} (liboffload-22; CUDA plugin built in)", libomptarget.display()), None)
        }
        Ok(_) => {
            r.push(Level::Fail, "host", format!("{} has no CUDA plugin", libomptarget.display()), Some("sudo apt-get install --reinstall liboffload-22".into()))
        }
        Err(_) => {
            r.push(Level::Fail, "host", format!("{} is missing", libomptarget.display()), Some("sudo apt-get install liboffload-22 liboffload-22-dev".into()))
        }
    }
    if !llvm_lib.join("libomptarget.so").exists() {
        r.push(
            Level::Fail,
            "host",
            format!("{} is missing: the host link needs it", llvm_lib.join("libomptarget.so").display()),
            Some("sudo apt-get install liboffload-22-dev".into()),
        );
    }

    r.lines.append(&mut gpu_lines.lines);

    // The test program.
    let scratch = scratch_dir();
    let ready = clang.is_some() && tools_ok && runtime_flags.is_some();
    let built = match (&clang, ready) {
        (Some(c), true) => compile(&mut r, inputs, c, &arch, cuda.as_deref(), runtime_flags.as_deref().unwrap_or_default(), &scratch),
        _ => {
            r.push(Level::Skip, "build", format!("a target region for {arch}: fix the lines above first"), None);
            None
        }
    };
    match (&built, gpus.is_empty()) {
        (Some(exe), false) => run_program(&mut r, exe, path, &arch, &gpus),
        (Some(_), true) => r.push(Level::Skip, "run", "no GPU here: the program would run on the host (OMP_TARGET_OFFLOAD=MANDATORY would stop it)", None),
        (None, _) => r.push(Level::Skip, "run", "nothing built", None),
    }
    let _ = std::fs::remove_dir_all(&scratch);
    r
}

/// A folder of its own for one report's test program (removed when it is done).
fn scratch_dir() -> PathBuf {
    static RUNS: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let n = RUNS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    std::env::temp_dir().join(format!("omprt-doctor-{}-{n}", std::process::id()))
}

/// Flags that name the runtime in `dir` (as `omprt flags` does for a checkout).
fn explicit_runtime_flags(dir: &Path) -> Vec<String> {
    vec![format!("--libomptarget-nvptx-bc-path={}", dir.join("libomptarget-nvptx.bc").display()), "-Xoffload-linker".into(), format!("-L{}", dir.display())]
}

/// The driver and its GPUs' archs; warnings where there are none.
fn gpus(r: &mut Report) -> Vec<String> {
    let driver = match Driver::init() {
        Ok(d) => d,
        Err(e) => {
            r.push(Level::Warn, "driver", e.to_string(), Some("sudo apt-get install nvidia-driver libcuda1 (Debian non-free), then reboot".into()));
            r.push(Level::Warn, "GPUs", "none found: programs build, and run on the host", None);
            return Vec::new();
        }
    };
    match driver.version() {
        Ok((major, minor)) => r.push(Level::Ok, "driver", format!("libcuda, CUDA {major}.{minor}"), None),
        Err(e) => r.push(Level::Warn, "driver", format!("cannot read its version: {e}"), None),
    }
    let count = driver.device_count().unwrap_or(0);
    let list: Vec<_> = (0..count).filter_map(|i| driver.device(i).ok()).collect();
    if list.is_empty() {
        r.push(
            Level::Warn,
            "GPUs",
            "the driver sees none: programs build, and run on the host",
            Some("nvidia-smi (is the GPU visible to this machine?)".into()),
        );
        return Vec::new();
    }
    let shown: Vec<String> = list.iter().map(|d| format!("{} ({})", d.name, d.arch())).collect();
    r.push(Level::Ok, "GPUs", shown.join(", "), None);
    list.iter().map(|d| d.arch()).collect()
}

const TEST_PROGRAM: &str = r#"#include <omp.h>
#include <stdio.h>
int main(void) {
    int n = 0, on_device = 0;
#pragma omp target teams distribute parallel for reduction(+ : n) map(tofrom : n)
    for (int i = 0; i < 1024; ++i) n += 1;
#pragma omp target map(from : on_device)
    on_device = !omp_is_initial_device();
    printf("omprt doctor: %d %d\n", n, on_device);
    return n == 1024 && on_device ? 0 : 1;
}
"#;

/// Compiles [`TEST_PROGRAM`] for `arch`; the executable on success.
fn compile(r: &mut Report, inputs: &Inputs, clang: &Path, arch: &str, cuda: Option<&Path>, runtime_flags: &[String], dir: &Path) -> Option<PathBuf> {
    let _ = std::fs::create_dir_all(dir);
    let src = dir.join("doctor.c");
    let exe = dir.join("doctor");
    if let Err(e) = std::fs::write(&src, TEST_PROGRAM) {
        r.push(Level::Fail, "build", format!("cannot write {}: {e}", src.display()), None);
        return None;
    }
    let mut cmd = Command::new(clang);
    cmd.args(["-O2", "-fopenmp", &format!("--offload-arch={arch}")]);
    if let Some(c) = inputs.cuda_path.as_ref().and(cuda) {
        cmd.arg(format!("--cuda-path={}", c.display()));
    }
    cmd.args(runtime_flags).arg(&src).arg("-o").arg(&exe);
    let shown = format!("clang-22 -O2 -fopenmp --offload-arch={arch}{}", if runtime_flags.is_empty() { "" } else { " <runtime flags>" });
    match output_of(&mut cmd, &inputs.path) {
        Some((true, _)) => {
            r.push(Level::Ok, "build", format!("{shown} links a target region"), None);
            Some(exe)
        }
        Some((false, text)) => {
            let error = first_error(&text);
            let fix = if error.contains("-lomptarget") {
                "sudo apt-get install liboffload-22-dev".to_string()
            } else if error.contains("omp.h") {
                "sudo apt-get install libomp-22-dev".to_string()
            } else if error.contains("not defined for option 'arch'") {
                toolkit_fix(inputs, arch)
            } else {
                format!("{} (full output: clang-22 -v ... {})", install_fix(inputs), src.display())
            };
            r.push(Level::Fail, "build", format!("{shown} failed: {error}"), Some(fix));
            None
        }
        None => {
            r.push(Level::Fail, "build", format!("cannot run {}", clang.display()), Some("sudo apt-get install clang-22".into()));
            None
        }
    }
}

/// Runs the test program under OMP_TARGET_OFFLOAD=MANDATORY (30 s at most).
fn run_program(r: &mut Report, exe: &Path, path: &OsString, arch: &str, gpus: &[String]) {
    if !gpus.iter().any(|g| g == arch) {
        r.push(Level::Warn, "run", format!("built for {arch}, but the GPUs are {}", gpus.join(", ")), Some(format!("omprt doctor --arch {}", gpus[0])));
        return;
    }
    let child =
        Command::new(exe).env("PATH", path).env("OMP_TARGET_OFFLOAD", "MANDATORY").stdin(Stdio::null()).stdout(Stdio::piped()).stderr(Stdio::piped()).spawn();
    let mut child = match child {
        Ok(c) => c,
        Err(e) => return r.push(Level::Fail, "run", format!("cannot start {}: {e}", exe.display()), None),
    };
    let start = Instant::now();
    loop {
        match child.try_wait() {
            Ok(Some(_)) => break,
            Ok(None) if start.elapsed() < Duration::from_secs(30) => std::thread::sleep(Duration::from_millis(50)),
            _ => {
                let _ = child.kill();
                let _ = child.wait();
                return r.push(Level::Fail, "run", "the test program did not finish in 30 s", Some("nvidia-smi (is the GPU busy or in a bad state?)".into()));
            }
        }
    }
    match child.wait_with_output() {
        Ok(out) if out.status.success() => r.push(Level::Ok, "run", format!("ran on the GPU: {}", String::from_utf8_lossy(&out.stdout).trim()), None),
        Ok(out) => {
            let text = String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr);
            r.push(
                Level::Fail,
                "run",
                format!("OMP_TARGET_OFFLOAD=MANDATORY run failed ({}): {}", out.status, first_error(&text)),
                Some("LIBOMPTARGET_INFO=-1 <the program> (libomptarget says why)".into()),
            )
        }
        Err(e) => r.push(Level::Fail, "run", format!("cannot read its output: {e}"), None),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn releases_and_supported_archs_are_read() {
        assert_eq!(release_of("nvlink: NVIDIA (R) Cuda linker\nCuda compilation tools, release 13.0, V13.0.88\n").as_deref(), Some("13.0"));
        assert_eq!(release_of("no version"), None);
        let list = ["sm_75".to_string(), "sm_90".to_string(), "sm_90a".to_string()];
        assert_eq!(supported_among(&list), "sm_75 sm_90");
        assert_eq!(supported_among(&[]), "none of sm_70 ... sm_120");
    }

    #[test]
    fn a_failure_sets_the_exit_code_and_every_problem_line_shows_its_fix() {
        let mut r = Report::default();
        r.push(Level::Ok, "clang-22", "22.1.8", None);
        r.push(Level::Warn, "GPUs", "none", None);
        assert_eq!(r.exit_code(), 0);
        assert!(r.render().contains("see the warnings"));
        r.push(Level::Fail, "runtime", "not installed", Some("sudo bash scripts/install.sh".into()));
        assert_eq!(r.exit_code(), 1);
        assert!(r.render().contains("  FAIL  runtime    not installed -> fix: sudo bash scripts/install.sh\n"), "{}", r.render());
    }
}
