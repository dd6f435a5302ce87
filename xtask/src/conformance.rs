//! `cargo xtask conformance`: builds the tests of a suite written for LLVM's
//! lit (by default LLVM's `offload/test/offloading`, in
//! `../shared/conformance/llvm-offload`) with clang 22 for nvptx64 against
//! this checkout's runtime, as each test's RUN lines say, at each level of
//! [`LEVELS`], and prepares what the GPU machine runs
//! (`scripts/gpu-conformance.sh`): the executables, and for each test and
//! level a script with the RUN lines in which every build step is replaced
//! by its result.
//!
//! A RUN line is split by pipeline ([`lit::Pipeline`]): one that runs a
//! compiler (or `ar`, `mkdir`), or checks a file such a step wrote, is a
//! *build* step and runs here (`cpu.sh`); one that runs what the test built
//! (or any other program) is a *run* step, for the GPU (`gpu.sh`). Both
//! scripts keep the RUN line's `&&`, `||` and `;`, so a build step's status
//! (kept in `build.<k>.status`) steers the GPU script as it would lit.
//!
//! Levels: the level's optimisation comes first on the compiler's command
//! line, so a RUN line's own flags win (clang takes the last `-O`): at O0
//! and O2 a `%libomptarget-compileopt-…` line or one with its own `-O3`
//! still builds at -O3, as upstream's. O2lto is lit's
//! `nvptx64-nvidia-cuda-LTO` target (`-foffload-lto`, and its
//! REQUIRES/UNSUPPORTED/XFAIL name) at -O2.

use crate::lit::{self, Pipeline, Script};
use crate::progress::Progress;
use crate::{Result, repo_root, runtime_dir, tools};
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};

/// A build level: the optimisation a RUN line starts from and lit's target.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct Level {
    pub name: &'static str,
    pub opt: &'static str,
    /// lit's `libomptarget_current_target`: a feature, and the name that
    /// REQUIRES/UNSUPPORTED/XFAIL lines use.
    pub target: &'static str,
}

pub const LEVELS: [Level; 3] = [
    Level { name: "O0", opt: "-O0", target: "nvptx64-nvidia-cuda" },
    Level { name: "O2", opt: "-O2", target: "nvptx64-nvidia-cuda" },
    Level { name: "O2lto", opt: "-O2", target: "nvptx64-nvidia-cuda-LTO" },
];

impl Level {
    pub fn lto(&self) -> bool {
        self.target.ends_with("-LTO")
    }
    /// The target without `-LTO`, for `-fopenmp-targets=`.
    pub fn triple(&self) -> &'static str {
        self.target.trim_end_matches("-LTO")
    }
}

/// `O0,O2,O2lto` as levels.
pub fn parse_levels(list: &str) -> Result<Vec<Level>> {
    list.split(',')
        .map(|name| LEVELS.iter().copied().find(|l| l.name == name.trim()).ok_or_else(|| format!("unknown level '{name}' (levels: O0, O2, O2lto)")))
        .collect()
}

/// The targets of lit's `libomptarget_all_targets` in an LLVM build: a RUN
/// line's `%libomptarget-…-<target>` for one that is not the current target
/// becomes `echo ignored-command`, as in lit.cfg.
pub const ALL_TARGETS: [&str; 14] = [
    "aarch64-unknown-linux-gnu",
    "aarch64-unknown-linux-gnu-LTO",
    "amdgcn-amd-amdhsa",
    "amdgcn-amd-amdhsa-LTO",
    "nvptx64-nvidia-cuda",
    "nvptx64-nvidia-cuda-LTO",
    "s390x-ibm-linux-gnu",
    "s390x-ibm-linux-gnu-LTO",
    "spirv64-intel",
    "spirv64-intel-LTO",
    "x86_64-pc-linux-gnu",
    "x86_64-pc-linux-gnu-LTO",
    "x86_64-unknown-linux-gnu",
    "x86_64-unknown-linux-gnu-LTO",
];

/// lit's `%libomptarget-<form>-<target>` forms.
const FORMS: [&str; 17] = [
    "compilexx-run-and-check",
    "compile-run-and-check",
    "compile-fortran-run-and-check",
    "compilexx-and-run",
    "compile-and-run",
    "compile-fortran-and-run",
    "compileoptxx-run-and-check",
    "compileopt-run-and-check",
    "compileoptxx-and-run",
    "compileopt-and-run",
    "compilexxx-force-usm",
    "compileoptxx",
    "compileopt",
    "compilexx",
    "compile-fortran",
    "compile",
    "run-fail",
];

/// What the features of a level are, and why the others are missing.
pub struct Features {
    pub present: BTreeSet<String>,
}

/// Why a feature that REQUIRES names is not available here.
pub fn missing_feature_reason(feature: &str) -> &'static str {
    match feature {
        "libomptarget-debug" => "Debian's libomptarget 22 is built without debug output (no LIBOMPTARGET_DEBUG in libomptarget.so.22.1)",
        "pgo" => "Debian's LLVM 22 ships no GPU profiling runtime",
        "apu" => "an AMD APU (MI300A)",
        "amdgpu" | "amdgcn-amd-amdhsa" | "amdgcn-amd-amdhsa-LTO" => "an AMD GPU target",
        "intelgpu" | "spirv64-intel" => "an Intel GPU target",
        "nvptx64-nvidia-cuda" => "the non-LTO nvptx64 target (this level is nvptx64-nvidia-cuda-LTO)",
        "nvptx64-nvidia-cuda-LTO" => "the LTO nvptx64 target (this level is nvptx64-nvidia-cuda)",
        f if f.contains("linux-gnu") => "a host (CPU) offloading target",
        _ => "not a feature of nvptx64 with clang 22 and Debian's libomptarget 22",
    }
}

impl Features {
    /// The features of `level` on the GPU machine: the target, `gpu`,
    /// `unified_shared_memory` (lit.cfg: every NVIDIA arch from sm_70),
    /// `ompt` (Debian's libomptarget 22 has OMPT), `libc` (omprt's device C
    /// library stands in for LLVM's GPU libc, which Debian does not ship: a
    /// C function a test calls that omprt lacks fails at the device link, a
    /// failure of omprt's), `flang` where flang-22 is installed. Not:
    /// `libomptarget-debug`, `pgo`, `apu` (see [`missing_feature_reason`]).
    pub fn of(level: &Level) -> Features {
        let mut present: BTreeSet<String> =
            [level.target, "gpu", "unified_shared_memory", "ompt", "libc"].iter().map(|s| s.to_string()).collect();
        if tools::flang().is_ok() {
            present.insert("flang".into());
        }
        Features { present }
    }

    /// The N/A reason for a failed `REQUIRES: expr` or a holding
    /// `UNSUPPORTED: expr` (from [`lit::applicable`]).
    pub fn explain(&self, reason: &str) -> String {
        if let Some(expr) = reason.strip_prefix("REQUIRES: ") {
            let names: Vec<&str> = expr.split(|c: char| c.is_whitespace() || "()!&|".contains(c)).filter(|n| !n.is_empty()).collect();
            let missing: Vec<String> =
                names.iter().filter(|n| !self.present.contains(**n)).map(|n| format!("{n}: {}", missing_feature_reason(n))).collect();
            format!("{reason} ({})", missing.join("; "))
        } else if let Some(expr) = reason.strip_prefix("UNSUPPORTED: ") {
            if self.present.contains(expr.trim()) {
                format!("{reason} (upstream excludes this target)")
            } else {
                format!("{reason} (holds with this level's features)")
            }
        } else {
            reason.to_string()
        }
    }
}

/// Paths and tools a run needs.
pub struct Setup {
    pub suite: PathBuf,
    pub lit_cfg: PathBuf,
    pub cfg_names: BTreeSet<String>,
    pub out: PathBuf,
    pub clang: PathBuf,
    pub clangxx: PathBuf,
    pub flang: Option<PathBuf>,
    pub cuda: PathBuf,
    pub llvm_bin: PathBuf,
    pub known: Vec<Known>,
}

/// `../shared/conformance/llvm-offload` from the repository root.
pub fn default_suite() -> PathBuf {
    repo_root().join("../shared/conformance/llvm-offload")
}

/// The committed table of failures that are not omprt's.
pub fn known_path() -> PathBuf {
    repo_root().join("tests-gpu/conformance/known.txt")
}

/// The suite's `lit.cfg`: `given`, else `_lit/lit.cfg` (the shared copy),
/// `lit.cfg` or `../lit.cfg` (upstream's `offload/test/lit.cfg` beside
/// `offloading/`).
pub fn find_lit_cfg(suite: &Path, given: Option<&Path>) -> Result<PathBuf> {
    if let Some(g) = given {
        return if g.is_file() { Ok(g.to_path_buf()) } else { Err(format!("--lit-cfg {}: no such file", g.display())) };
    }
    ["_lit/lit.cfg", "lit.cfg", "../lit.cfg"]
        .iter()
        .map(|p| suite.join(p))
        .find(|p| p.is_file())
        .ok_or_else(|| format!("no lit.cfg found for {} (tried _lit/lit.cfg, lit.cfg, ../lit.cfg): pass --lit-cfg FILE", suite.display()))
}

impl Setup {
    pub fn new(suite: &Path, lit_cfg: Option<&Path>, out: &Path) -> Result<Setup> {
        if !suite.is_dir() {
            return Err(format!("{}: no such folder", suite.display()));
        }
        let suite = suite.canonicalize().map_err(|e| format!("{}: {e}", suite.display()))?;
        let lit_cfg = find_lit_cfg(&suite, lit_cfg)?;
        let cfg = std::fs::read_to_string(&lit_cfg).map_err(|e| format!("{}: {e}", lit_cfg.display()))?;
        let bc = runtime_dir().join("libomptarget-nvptx.bc");
        if !bc.is_file() {
            return Err(format!("{} is missing: run 'cargo xtask build-device'", bc.display()));
        }
        let clang = tools::clang()?;
        let llvm_bin = tools::llvm_tool("FileCheck")?.parent().unwrap().to_path_buf();
        if !llvm_bin.join("not").is_file() {
            return Err(format!("{}/not is missing (LLVM 22 tools): run 'bash scripts/setup.sh'", llvm_bin.display()));
        }
        let known_file = known_path();
        let known = parse_known(&std::fs::read_to_string(&known_file).map_err(|e| format!("{}: {e}", known_file.display()))?)
            .map_err(|e| format!("{}: {e}", known_file.display()))?;
        Ok(Setup {
            suite,
            cfg_names: lit::lit_cfg_names(&cfg),
            lit_cfg,
            out: out.to_path_buf(),
            clangxx: crate::corpus::driver_for(&clang, Path::new("x.cpp")),
            clang,
            flang: tools::flang().ok(),
            cuda: tools::cuda_path()?,
            llvm_bin,
            known,
        })
    }

    /// The substitution table of `level`: lit.cfg's names with the
    /// expansions lit.cfg gives them for the current target, omprt's flags
    /// in place of upstream's device runtime (`%flags_clang`: the bitcode;
    /// `%flags`: the arch and the archive's folder for the device link) and
    /// the level's optimisation right after the compiler.
    pub fn substitutions(&self, level: &Level) -> Vec<(String, String)> {
        let mut t: Vec<(String, String)> = Vec::new();
        let mut add = |name: String, expansion: String| t.push((name, expansion));
        let cur = level.target;
        let triple = level.triple();
        for form in FORMS.iter().chain(["run"].iter()) {
            let generic = if *form == "compilexxx-force-usm" {
                "%libomptarget-compilexxx-generic-force-usm".to_string()
            } else {
                format!("%libomptarget-{form}-generic")
            };
            add(generic, format!("%libomptarget-{form}-{cur}"));
        }
        for name in ["clangxx", "clang", "fcheck"] {
            add(format!("%{name}-generic"), format!("%{name}-{cur}"));
        }
        add("%fcheck-plain-generic".into(), "FileCheck".into());
        for target in ALL_TARGETS {
            let names = FORMS
                .iter()
                .chain(["run"].iter())
                .map(|f| format!("%libomptarget-{f}-{target}"))
                .chain(["clangxx", "clangxxx-force-usm", "clang", "flang", "fcheck"].iter().map(|n| format!("%{n}-{target}")));
            if target != cur {
                for n in names {
                    add(n, "echo ignored-command".into());
                }
                continue;
            }
            for (form, expansion) in [
                ("compilexx-run-and-check", format!("%libomptarget-compilexx-and-run-{cur} | FileCheck %s")),
                ("compile-run-and-check", format!("%libomptarget-compile-and-run-{cur} | FileCheck %s")),
                ("compile-fortran-run-and-check", format!("%libomptarget-compile-fortran-and-run-{cur} | FileCheck %s")),
                ("compileoptxx-run-and-check", format!("%libomptarget-compileoptxx-and-run-{cur} | FileCheck %s")),
                ("compileopt-run-and-check", format!("%libomptarget-compileopt-and-run-{cur} | FileCheck %s")),
                ("compilexx-and-run", format!("%libomptarget-compilexx-{cur} && %libomptarget-run-{cur}")),
                ("compile-and-run", format!("%libomptarget-compile-{cur} && %libomptarget-run-{cur}")),
                ("compile-fortran-and-run", format!("%libomptarget-compile-fortran-{cur} && %libomptarget-run-{cur}")),
                ("compileoptxx-and-run", format!("%libomptarget-compileoptxx-{cur} && %libomptarget-run-{cur}")),
                ("compileopt-and-run", format!("%libomptarget-compileopt-{cur} && %libomptarget-run-{cur}")),
                ("compilexxx-force-usm", format!("%clangxxx-force-usm-{cur} %s -o %t")),
                ("compileoptxx", format!("%clangxx-{cur} -O3 %s -o %t")),
                ("compileopt", format!("%clang-{cur} -O3 %s -o %t")),
                ("compilexx", format!("%clangxx-{cur} %s -o %t")),
                ("compile-fortran", format!("%flang-{cur} %s -o %t")),
                ("compile", format!("%clang-{cur} %s -o %t")),
                ("run-fail", "%not --crash %t".to_string()),
                ("run", "%t".to_string()),
            ] {
                add(format!("%libomptarget-{form}-{cur}"), expansion);
            }
            let opt = level.opt;
            add(format!("%clangxx-{cur}"), format!("%clangxx {opt} %openmp_flags %cuda_flags %flags %flags_clang -fopenmp-targets={triple}"));
            add(
                format!("%clangxxx-force-usm-{cur}"),
                format!("%clangxx {opt} %openmp_flags -fopenmp-force-usm %cuda_flags %flags %flags_clang -fopenmp-targets={triple}"),
            );
            add(format!("%clang-{cur}"), format!("%clang {opt} %openmp_flags %cuda_flags %flags %flags_clang -fopenmp-targets={triple}"));
            add(format!("%flang-{cur}"), format!("%flang {opt} %openmp_flags %flags %flags_flang -fopenmp-targets={triple}"));
            add(format!("%fcheck-{cur}"), "FileCheck %s".into());
        }
        let lib = runtime_dir();
        add("%clang++".into(), format!("{} {} %cuda_flags %flags_clang", self.clangxx.display(), level.opt));
        add("%clangxx".into(), self.clangxx.display().to_string());
        add("%clang".into(), self.clang.display().to_string());
        add("%flang".into(), self.flang.as_ref().map_or("flang-22".into(), |f| f.display().to_string()));
        add("%target_triple".into(), cur.into());
        add("%openmp_flags".into(), "-fopenmp".into());
        add("%cuda_flags".into(), format!("--cuda-path={}", self.cuda.display()));
        add("%flags_clang".into(), format!("--libomptarget-nvptx-bc-path={}", lib.join("libomptarget-nvptx.bc").display()));
        add("%flags_flang".into(), String::new());
        let lto = if level.lto() { " -foffload-lto" } else { "" };
        add(
            "%flags".into(),
            format!("-I {} --offload-arch={} -Xoffload-linker -L{}{lto}", self.suite.display(), crate::corpus::LINK_ARCH, lib.display()),
        );
        add("%not".into(), "not".into());
        add("%profdata".into(), "llvm-profdata".into());
        t
    }
}

/// Where a build failed, in the order clang's offload pipeline meets them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stage {
    FrontEnd,
    DeviceLink,
    Ptxas,
    HostLink,
    /// The test's own check of what the compiler printed (FileCheck, `not`).
    Check,
    /// A RUN line this driver cannot run.
    Driver,
}

impl Stage {
    pub fn name(self) -> &'static str {
        match self {
            Stage::FrontEnd => "front end",
            Stage::DeviceLink => "device link",
            Stage::Ptxas => "ptxas",
            Stage::HostLink => "host link",
            Stage::Check => "check of the compiler's output",
            Stage::Driver => "driver",
        }
    }
}

/// The stage of a failed build from its log, and the first line that
/// says why. clang's summary lines (`linker command failed`) count only
/// where nothing more precise precedes them.
pub fn classify(log: &str) -> (Stage, String) {
    let summary = |l: &str| l.contains("linker command failed") || l.contains("command failed with exit code");
    let stage_of = |l: &str| -> Option<Stage> {
        let lower = l.to_lowercase();
        if l.starts_with("omprt-conformance:") {
            return None;
        }
        if is_filecheck_diagnostic(l) {
            Some(Stage::Check)
        } else if lower.contains("ptxas") && (lower.contains("error") || lower.contains("fatal")) {
            Some(Stage::Ptxas)
        } else if lower.contains("nvlink") && (lower.contains("error") || lower.contains("fatal"))
            || l.contains("Undefined reference to")
            || l.contains("clang-nvlink-wrapper")
            || l.contains("clang-linker-wrapper: error")
        {
            Some(Stage::DeviceLink)
        } else if l.contains("/usr/bin/ld") || l.contains("undefined reference to `") || l.contains("collect2") || l.contains("ld.lld: error") {
            Some(Stage::HostLink)
        } else if is_source_diagnostic(l) || (lower.contains("error:") && (l.starts_with("clang") || l.contains("/clang"))) {
            Some(Stage::FrontEnd)
        } else {
            None
        }
    };
    let mut fallback = None;
    for l in log.lines() {
        if let Some(stage) = stage_of(l) {
            if summary(l) {
                fallback.get_or_insert((stage, l.trim().to_string()));
            } else {
                return (stage, l.trim().to_string());
            }
        }
    }
    fallback.unwrap_or_else(|| {
        let last = log.lines().rev().find(|l| !l.trim().is_empty()).unwrap_or("no output").trim().to_string();
        (Stage::Check, last)
    })
}

/// FileCheck's complaints about its input.
fn is_filecheck_diagnostic(l: &str) -> bool {
    ["expected string not found in input", "is not on the line after", "no check strings found", "found a match of CHECK-NOT", "FileCheck error:"]
        .iter()
        .any(|m| l.contains(m))
}

/// `file.c:12:3: error: …` (or `fatal error`).
fn is_source_diagnostic(l: &str) -> bool {
    let mut parts = l.splitn(4, ':');
    let (Some(file), Some(line), Some(_col), Some(rest)) = (parts.next(), parts.next(), parts.next(), parts.next()) else { return false };
    [".c", ".cpp", ".cc", ".h", ".hpp", ".inc", ".f90"].iter().any(|e| file.ends_with(e))
        && line.chars().all(|c| c.is_ascii_digit())
        && (rest.trim_start().starts_with("error") || rest.trim_start().starts_with("fatal error"))
}

/// A failure that is not omprt's: which test and levels, at which stage,
/// the text that identifies it in the output, whose it is and the evidence.
#[derive(Debug, Clone, PartialEq)]
pub struct Known {
    pub test: String,
    pub levels: Vec<String>,
    pub stage: String,
    pub matches: String,
    pub whose: String,
    pub evidence: String,
}

impl Known {
    /// Whether this entry covers `test` at `level` in `stage` with `output`.
    pub fn covers(&self, test: &str, level: &str, stage: &str, output: &str) -> bool {
        let test_ok = match self.test.strip_suffix('*') {
            Some(prefix) => test.starts_with(prefix),
            None => test == self.test,
        };
        test_ok && self.stage == stage && self.levels.iter().any(|l| l == level) && output.contains(&self.matches)
    }
}

/// Reads `known.txt`: blocks of `key: value` lines separated by blank
/// lines, `#` comments; keys test, levels (names or `all`), stage (`build`
/// or `run`), match, whose, evidence (which may continue on lines that
/// start with spaces).
pub fn parse_known(text: &str) -> Result<Vec<Known>> {
    let mut entries = Vec::new();
    let mut block: BTreeMap<String, String> = BTreeMap::new();
    let mut last_key: Option<String> = None;
    let mut start = 0;
    let finish = |block: &mut BTreeMap<String, String>, start: usize, entries: &mut Vec<Known>| -> Result<()> {
        if block.is_empty() {
            return Ok(());
        }
        let mut take = |k: &str| block.remove(k).filter(|v| !v.is_empty()).ok_or_else(|| format!("the entry at line {start} has no '{k}'"));
        let test = take("test")?;
        let levels = take("levels")?;
        let levels: Vec<String> = if levels == "all" {
            LEVELS.iter().map(|l| l.name.to_string()).collect()
        } else {
            let v: Vec<String> = levels.split_whitespace().map(str::to_string).collect();
            for l in &v {
                parse_levels(l).map_err(|e| format!("line {start}: {e}"))?;
            }
            v
        };
        let stage = take("stage")?;
        if stage != "build" && stage != "run" {
            return Err(format!("line {start}: stage is 'build' or 'run', not '{stage}'"));
        }
        let known = Known { test, levels, stage, matches: take("match")?, whose: take("whose")?, evidence: take("evidence")? };
        if let Some(k) = block.keys().next() {
            return Err(format!("line {start}: unknown key '{k}'"));
        }
        entries.push(known);
        Ok(())
    };
    for (i, line) in text.lines().enumerate() {
        if line.trim_start().starts_with('#') {
            continue;
        }
        if line.trim().is_empty() {
            finish(&mut block, start, &mut entries)?;
            last_key = None;
            continue;
        }
        if line.starts_with([' ', '\t']) {
            let key = last_key.as_ref().ok_or_else(|| format!("line {}: a continuation without a key", i + 1))?;
            let v = block.get_mut(key).unwrap();
            v.push(' ');
            v.push_str(line.trim());
            continue;
        }
        let (key, value) = line.split_once(':').ok_or_else(|| format!("line {}: 'key: value' expected", i + 1))?;
        if block.is_empty() {
            start = i + 1;
        }
        let key = key.trim().to_string();
        if block.insert(key.clone(), value.trim().to_string()).is_some() {
            return Err(format!("line {}: '{key}' twice in one entry", i + 1));
        }
        last_key = Some(key);
    }
    finish(&mut block, start, &mut entries)?;
    Ok(entries)
}

/// What happened to one test at one level.
#[derive(Debug, Clone, PartialEq)]
pub enum Status {
    /// Not applicable, with the reason.
    NotApplicable(String),
    Built,
    Failed {
        run_line: usize,
        stage: Stage,
        line: String,
        known: Option<usize>,
    },
}

#[derive(Debug, Clone)]
pub struct Row {
    pub test: String,
    pub level: Level,
    pub status: Status,
    /// The XFAIL expression that holds at this level.
    pub xfail: Option<String>,
    /// The test's folder under the output, relative to it.
    pub dir: String,
}

impl Row {
    pub fn applicable(&self) -> bool {
        !matches!(self.status, Status::NotApplicable(_)) && self.xfail.is_none()
    }
}

/// The test files of `suite` (lit.cfg's suffixes `.c`, `.cpp`, `.cc`,
/// `.f90`; folders named `Inputs` excluded), relative, sorted.
pub fn tests(suite: &Path) -> Result<Vec<String>> {
    fn walk(dir: &Path, rel: &str, out: &mut Vec<String>) -> Result<()> {
        let mut entries: Vec<_> = std::fs::read_dir(dir).map_err(|e| format!("cannot read {}: {e}", dir.display()))?.filter_map(|e| e.ok()).collect();
        entries.sort_by_key(|e| e.file_name());
        for e in entries {
            let name = e.file_name().to_string_lossy().to_string();
            let path = e.path();
            let rel_name = if rel.is_empty() { name.clone() } else { format!("{rel}/{name}") };
            if path.is_dir() {
                if name != "Inputs" {
                    walk(&path, &rel_name, out)?;
                }
            } else if [".c", ".cpp", ".cc", ".f90"].iter().any(|s| name.ends_with(s)) {
                out.push(rel_name);
            }
        }
        Ok(())
    }
    let mut v = Vec::new();
    walk(suite, "", &mut v)?;
    Ok(v)
}

/// How a pipeline of a RUN line is run.
#[derive(Debug, Clone, PartialEq)]
enum Kind {
    /// Here: compiles, links, archives, or checks a file a build step wrote.
    Build { outputs: Vec<String> },
    /// On the GPU machine.
    Run,
    /// Both, and it succeeds (lit.cfg's `echo ignored-command` for other
    /// targets).
    Either,
}

fn is_build_tool(program: &str) -> bool {
    let base = program.rsplit('/').next().unwrap_or(program);
    base.starts_with("clang") || base.starts_with("flang") || matches!(base, "ar" | "llvm-ar" | "ranlib" | "mkdir")
}

fn is_compiler(program: &str) -> bool {
    let base = program.rsplit('/').next().unwrap_or(program);
    base.starts_with("clang") || base.starts_with("flang")
}

/// The files a build pipeline's compilers link (their last `-o`, or
/// `a.out`), which the GPU needs; objects and assembly (`-c`, `-S`, `-E`)
/// stay here.
fn linked_outputs(p: &Pipeline) -> Vec<String> {
    let mut outs = Vec::new();
    for c in &p.commands {
        let args = c.program_args();
        if args.is_empty() || !is_compiler(&args[0]) || args.iter().any(|a| matches!(a.as_str(), "-c" | "-S" | "-E" | "-fsyntax-only" | "-###")) {
            continue;
        }
        let mut out = "a.out".to_string();
        let mut it = args.iter().peekable();
        while let Some(a) = it.next() {
            if a == "-o" {
                if let Some(o) = it.next() {
                    out = o.clone();
                }
            } else if let Some(o) = a.strip_prefix("-o").filter(|o| !o.is_empty() && !a.starts_with("-offload") && !a.starts_with("-openmp")) {
                out = o.to_string();
            }
        }
        outs.push(out);
    }
    outs
}

/// Files a build pipeline writes (compiler outputs and redirections), which
/// a later `FileCheck --input-file` checks here.
fn written_files(p: &Pipeline) -> Vec<String> {
    let mut files = linked_outputs(p);
    for c in &p.commands {
        files.extend(c.redirects.iter().filter(|r| r.op.contains('>') && !r.target.is_empty()).map(|r| r.target.clone()));
    }
    files
}

fn check_input_file(args: &[String]) -> Option<String> {
    let mut it = args.iter();
    while let Some(a) = it.next() {
        for flag in ["-input-file", "--input-file"] {
            if a == flag {
                return it.next().cloned();
            }
            if let Some(v) = a.strip_prefix(flag).and_then(|v| v.strip_prefix('=')) {
                return Some(v.to_string());
            }
        }
    }
    None
}

fn kind_of(p: &Pipeline, built_files: &BTreeSet<String>) -> Result<Kind> {
    let mut build = false;
    let mut run = false;
    for c in &p.commands {
        let args = c.program_args();
        let Some(program) = args.first() else { return Err("a command with only wrappers (env/not)".into()) };
        let base = program.rsplit('/').next().unwrap_or(program);
        if is_build_tool(program) {
            build = true;
        } else if base == "FileCheck" {
            if let Some(f) = check_input_file(args) {
                if built_files.contains(&f) { build = true } else { run = true }
            }
        } else if !matches!(base, "echo" | "true" | ":") {
            run = true;
        }
    }
    match (build, run) {
        (true, true) => Err(format!("a pipeline both builds and runs: {}", lit::render_pipeline(p, &|w| w.to_string()))),
        (true, false) => Ok(Kind::Build { outputs: linked_outputs(p) }),
        (false, true) => Ok(Kind::Run),
        (false, false) => Ok(Kind::Either),
    }
}

/// The two scripts of one test at one level.
#[derive(Debug, PartialEq)]
pub struct Scripts {
    pub cpu: String,
    pub gpu: String,
}

const CPU_PRELUDE: &str = r#"set -o pipefail
cd "$(dirname "$0")"
# omprt_built STATUS K FILE...: keeps build step K's linked files (FILE.bK)
# and status (build.K.status) for the GPU script; returns STATUS.
omprt_built() {
    local status=$1 k=$2 out
    shift 2
    for out in "$@"; do [ -f "$out" ] && cp -f "$out" "$out.b$k"; done
    echo "$status" >"build.$k.status"
    return "$status"
}
omprt_fail() { echo "omprt-conformance: RUN line $1 (line $2 of the test) failed" >&2; exit 1; }
"#;

const GPU_PRELUDE: &str = r#"set -o pipefail
cd "$(dirname "$0")"
# omprt_restore K FILE...: build step K as it went on the build machine:
# its linked files back in place, its exit status.
omprt_restore() {
    local k=$1 out status
    shift
    status=$(cat "build.$k.status" 2>/dev/null || echo 127)
    for out in "$@"; do
        mkdir -p "$(dirname "$out")" && cp -f "$out.b$k" "$out" || return 126
    done
    return "$status"
}
omprt_fail() { echo "omprt-conformance: RUN line $1 (line $2 of the test) failed" >&2; exit 1; }
"#;

/// Writes the build and run scripts of a test from its RUN lines (already
/// substituted, with the placeholders left). `cpu_word` and `gpu_word` fill
/// a word's placeholders for each machine.
pub fn scripts(header: &str, run: &[(usize, Script)], cpu_word: &dyn Fn(&str) -> String, gpu_word: &dyn Fn(&str) -> String) -> Result<Scripts> {
    let mut cpu = format!("#!/usr/bin/env bash\n# {header}: the build steps, run by `cargo xtask conformance`.\n{CPU_PRELUDE}");
    let mut gpu = format!("#!/usr/bin/env bash\n# {header}: the RUN lines, each build step replaced by its result.\n{GPU_PRELUDE}");
    let mut built_files = BTreeSet::new();
    let mut k = 0;
    for (index, (line, script)) in run.iter().enumerate() {
        let mut cpu_parts = Vec::new();
        let mut gpu_parts = Vec::new();
        for (op, p) in std::iter::once((&String::new(), &script.first)).chain(script.rest.iter().map(|(o, p)| (o, p))) {
            let kind = kind_of(p, &built_files).map_err(|e| format!("RUN line at line {line}: {e}"))?;
            let (c, g) = match kind {
                Kind::Build { outputs } => {
                    k += 1;
                    built_files.extend(written_files(p));
                    let outs: Vec<String> = outputs.iter().map(|o| lit::shell_quote(&cpu_word(o))).collect();
                    let gouts: Vec<String> = outputs.iter().map(|o| lit::shell_quote(&gpu_word(o))).collect();
                    (
                        format!(
                            "{{ {} ; omprt_built $? {k}{} ; }}",
                            lit::render_pipeline(p, cpu_word),
                            outs.iter().map(|o| format!(" {o}")).collect::<String>()
                        ),
                        format!("omprt_restore {k}{}", gouts.iter().map(|o| format!(" {o}")).collect::<String>()),
                    )
                }
                Kind::Run => (":".to_string(), lit::render_pipeline(p, gpu_word)),
                // lit's echo writes into a buffer; bash's may die of SIGPIPE
                // when the next `echo` of the pipe does not read it.
                Kind::Either => {
                    (format!("{{ {} ; }} || :", lit::render_pipeline(p, cpu_word)), format!("{{ {} ; }} || :", lit::render_pipeline(p, gpu_word)))
                }
            };
            let sep = if op.is_empty() { String::new() } else { format!(" {op} ") };
            cpu_parts.push(format!("{sep}{c}"));
            gpu_parts.push(format!("{sep}{g}"));
        }
        let n = index + 1;
        cpu += &format!("{{ {} ; }} || omprt_fail {n} {line}\n", cpu_parts.concat());
        gpu += &format!("{{ {} ; }} || omprt_fail {n} {line}\n", gpu_parts.concat());
    }
    Ok(Scripts { cpu, gpu })
}

/// The folder name of a test: its path with `/` as `__`.
pub fn test_dir_name(test: &str) -> String {
    test.replace('/', "__")
}

/// Plans, writes and builds one test at one level.
fn build_one(setup: &Setup, table: &[(String, String)], features: &Features, test: &str, level: &Level) -> Row {
    let dir_rel = format!("{}/{}", level.name, test_dir_name(test));
    let mut row = Row { test: test.to_string(), level: *level, status: Status::Built, xfail: None, dir: dir_rel.clone() };
    // A test this driver cannot run (or lit could not: an unterminated RUN
    // line) may be a known failure of the test itself.
    let driver_failure = |e: String| {
        let known = setup.known.iter().position(|k| k.covers(test, level.name, "build", &e));
        Status::Failed { run_line: 0, stage: Stage::Driver, line: e, known }
    };
    let src = setup.suite.join(test);
    let text = match std::fs::read_to_string(&src) {
        Ok(t) => t,
        Err(e) => {
            row.status = driver_failure(format!("cannot read {}: {e}", src.display()));
            return row;
        }
    };
    let parsed = match lit::parse_test(&text) {
        Ok(p) => p,
        Err(e) => {
            row.status = driver_failure(e);
            return row;
        }
    };
    match lit::applicable(&parsed, &features.present) {
        Ok(Ok(())) => {}
        Ok(Err(reason)) => {
            row.status = Status::NotApplicable(features.explain(&reason));
            return row;
        }
        Err(e) => {
            row.status = driver_failure(e);
            return row;
        }
    }
    match lit::expected_to_fail(&parsed, &features.present) {
        Ok(x) => row.xfail = x,
        Err(e) => {
            row.status = driver_failure(e);
            return row;
        }
    }
    if parsed.run.is_empty() {
        row.status = Status::NotApplicable("no RUN line".into());
        return row;
    }
    let targets: Vec<&str> = ALL_TARGETS.iter().copied().chain(["generic"]).collect();
    let mut scripts_in = Vec::new();
    for (line, cmd) in &parsed.run {
        for name in lit::names_used(cmd, table) {
            if !lit::PLACEHOLDERS.contains(&name.as_str()) && !lit::defined_by(&name, &setup.cfg_names, &targets) {
                row.status = Status::NotApplicable(format!(
                    "its RUN line at line {line} uses {name}, which {} does not define (a newer lit.cfg than the suite's)",
                    setup.lit_cfg.display()
                ));
                return row;
            }
        }
        let expanded = match lit::substitute(cmd, table) {
            Ok(e) => e,
            Err(name) => {
                row.status =
                    driver_failure(format!("line {line}: {name} is defined by lit.cfg but unknown to this driver (xtask/src/conformance.rs)"));
                return row;
            }
        };
        match lit::parse_script(&expanded) {
            Ok(s) => scripts_in.push((*line, s)),
            Err(e) => {
                row.status = driver_failure(format!("line {line}: {e}"));
                return row;
            }
        }
    }
    let work = setup.out.join(&dir_rel);
    let _ = std::fs::remove_dir_all(&work);
    if let Err(e) = std::fs::create_dir_all(&work) {
        row.status = driver_failure(format!("cannot create {}: {e}", work.display()));
        return row;
    }
    let file_name = src.file_name().unwrap().to_string_lossy().to_string();
    let src_dir = src.parent().unwrap().to_path_buf();
    let deps = setup.suite.join("_deps");
    let suite_parent = setup.suite.parent().map(Path::to_path_buf).unwrap_or_default();
    let cpu_word = |w: &str| -> String {
        let filled = lit::fill(w, &["t", &src.display().to_string(), &src_dir.display().to_string(), "./t", "."]);
        let filled = if filled == "--offload-arch=native" { format!("--offload-arch={}", crate::corpus::LINK_ARCH) } else { filled };
        // The shared copy keeps offload/test/Inputs as _deps/Inputs.
        let p = Path::new(&filled);
        if p.is_absolute() && !p.exists() && deps.is_dir() {
            let normal = normalize(p);
            if let Ok(rest) = normal.strip_prefix(&suite_parent) {
                let candidate = deps.join(rest);
                if candidate.exists() {
                    return candidate.display().to_string();
                }
            }
        }
        filled
    };
    let gpu_src = format!("./{file_name}");
    let gpu_word = |w: &str| lit::fill(w, &["t", &gpu_src, ".", "./t", "."]);
    let header = format!("{test} at {} ({})", level.name, level.target);
    let s = match scripts(&header, &scripts_in, &cpu_word, &gpu_word) {
        Ok(s) => s,
        Err(e) => {
            row.status = driver_failure(e);
            return row;
        }
    };
    let written = std::fs::write(work.join("cpu.sh"), &s.cpu)
        .and_then(|_| std::fs::write(work.join("gpu.sh"), &s.gpu))
        .and_then(|_| std::fs::copy(&src, work.join(&file_name)).map(|_| ()));
    if let Err(e) = written {
        row.status = driver_failure(format!("cannot write into {}: {e}", work.display()));
        return row;
    }
    let path = std::env::join_paths(
        std::iter::once(setup.llvm_bin.clone())
            .chain(std::iter::once(setup.cuda.join("bin")))
            .chain(std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default())),
    )
    .unwrap_or_default();
    let output = Command::new("timeout").args(["900", "bash", "cpu.sh"]).current_dir(&work).env("PATH", &path).output();
    let log = match &output {
        Ok(o) => format!("{}{}", String::from_utf8_lossy(&o.stdout), String::from_utf8_lossy(&o.stderr)),
        Err(e) => format!("cannot run bash: {e}"),
    };
    let _ = std::fs::write(work.join("build.log"), &log);
    if output.as_ref().is_ok_and(|o| o.status.success()) {
        return row;
    }
    let run_line = log.lines().find_map(|l| l.strip_prefix("omprt-conformance: RUN line ")?.split_whitespace().next()?.parse().ok()).unwrap_or(0);
    let (stage, line) = classify(&log);
    let known = setup.known.iter().position(|k| k.covers(test, level.name, "build", &log));
    row.status = Status::Failed { run_line, stage, line, known };
    row
}

/// `p` without `.` and `..` components.
fn normalize(p: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for c in p.components() {
        match c {
            std::path::Component::ParentDir => {
                out.pop();
            }
            std::path::Component::CurDir => {}
            c => out.push(c),
        }
    }
    out
}

/// Builds every test of the suite at every level of `levels`, `jobs` at a
/// time; `only` (comma-separated) keeps the tests whose path contains one
/// of its parts.
pub fn run(setup: &Setup, levels: &[Level], jobs: usize, only: Option<&str>) -> Result<Vec<Row>> {
    let tests: Vec<String> = tests(&setup.suite)?.into_iter().filter(|t| only.is_none_or(|o| o.split(',').any(|part| t.contains(part)))).collect();
    std::fs::create_dir_all(&setup.out).map_err(|e| format!("cannot create {}: {e}", setup.out.display()))?;
    let tables: Vec<Vec<(String, String)>> = levels.iter().map(|l| setup.substitutions(l)).collect();
    let features: Vec<Features> = levels.iter().map(Features::of).collect();
    let work: Vec<(usize, usize)> = (0..tests.len()).flat_map(|t| (0..levels.len()).map(move |l| (t, l))).collect();
    let rows: Mutex<Vec<Option<Row>>> = Mutex::new(vec![None; work.len()]);
    let next = AtomicUsize::new(0);
    let progress = Progress::new("conformance", work.len());
    std::thread::scope(|s| {
        for _ in 0..jobs.max(1) {
            s.spawn(|| {
                loop {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    let Some(&(t, l)) = work.get(i) else { break };
                    progress.item(&format!("{} {}", tests[t], levels[l].name));
                    let row = build_one(setup, &tables[l], &features[l], &tests[t], &levels[l]);
                    rows.lock().unwrap()[i] = Some(row);
                }
            });
        }
    });
    progress.finish();
    let rows: Vec<Row> = rows.into_inner().unwrap().into_iter().map(|r| r.expect("every item ran")).collect();
    write_manifest(setup, &rows)?;
    Ok(rows)
}

/// The cause of a failed row, as the result files print it.
pub fn cause(setup: &Setup, status: &Status) -> String {
    match status {
        Status::Failed { run_line, stage, line, known } => {
            let at = if *run_line > 0 { format!("RUN line {run_line}, ") } else { String::new() };
            match known {
                Some(k) => {
                    let k = &setup.known[*k];
                    format!("{at}{}: {line} [not omprt's: {}; {}]", stage.name(), k.whose, k.evidence)
                }
                None => format!("{at}{}: {line}", stage.name()),
            }
        }
        Status::NotApplicable(r) => r.clone(),
        Status::Built => String::new(),
    }
}

/// `manifest.tsv` (one line per test and level: level, test, folder,
/// status, XFAIL expression or `-`, detail), `known.tsv` (the known
/// failures, for the GPU script), `suite.txt` (the suite and its lit.cfg)
/// and `bundle.list` (the files the GPU machine needs), in the output
/// folder.
fn write_manifest(setup: &Setup, rows: &[Row]) -> Result<()> {
    let clean = |s: &str| s.replace(['\t', '\n'], " ");
    let mut manifest = String::from("# level\ttest\tfolder\tstatus\txfail\tdetail\n");
    let mut list = vec!["manifest.tsv".to_string(), "known.tsv".to_string(), "suite.txt".to_string()];
    for r in rows {
        let status = match &r.status {
            Status::NotApplicable(_) => "na",
            Status::Built => "run",
            Status::Failed { known: Some(_), .. } => "fail-other",
            Status::Failed { known: None, .. } => "fail-omprt",
        };
        let xfail = r.xfail.clone().unwrap_or_else(|| "-".into());
        manifest += &format!("{}\t{}\t{}\t{status}\t{}\t{}\n", r.level.name, r.test, r.dir, clean(&xfail), clean(&cause(setup, &r.status)));
        if r.status == Status::Built {
            let dir = setup.out.join(&r.dir);
            let mut files: Vec<String> = std::fs::read_dir(&dir)
                .map_err(|e| format!("cannot read {}: {e}", dir.display()))?
                .filter_map(|e| e.ok())
                .map(|e| e.file_name().to_string_lossy().to_string())
                .filter(|n| n == "gpu.sh" || n.starts_with("build.") && n.ends_with(".status") || is_snapshot(n) || r.test.ends_with(n.as_str()))
                .collect();
            // Snapshots in folders a RUN line made (`%t.testdir/lib.so.b1`).
            for sub in std::fs::read_dir(&dir).into_iter().flatten().filter_map(|e| e.ok()).filter(|e| e.path().is_dir()) {
                for f in std::fs::read_dir(sub.path()).into_iter().flatten().filter_map(|e| e.ok()) {
                    let n = f.file_name().to_string_lossy().to_string();
                    if is_snapshot(&n) {
                        files.push(format!("{}/{n}", sub.file_name().to_string_lossy()));
                    }
                }
            }
            files.sort();
            list.extend(files.into_iter().map(|f| format!("{}/{f}", r.dir)));
        }
    }
    let mut known = String::from("# test\tlevels\tstage\tmatch\twhose\tevidence\n");
    for k in &setup.known {
        known += &format!("{}\t{}\t{}\t{}\t{}\t{}\n", k.test, k.levels.join(" "), k.stage, clean(&k.matches), clean(&k.whose), clean(&k.evidence));
    }
    let write = |name: &str, text: &str| std::fs::write(setup.out.join(name), text).map_err(|e| format!("cannot write {name}: {e}"));
    write("suite.txt", &format!("{} (lit.cfg {})\n", setup.suite.display(), setup.lit_cfg.display()))?;
    write("manifest.tsv", &manifest)?;
    write("known.tsv", &known)?;
    write("bundle.list", &(list.join("\n") + "\n"))
}

/// `name.b<k>`: a build step's kept file.
fn is_snapshot(name: &str) -> bool {
    name.rsplit_once(".b").is_some_and(|(_, k)| !k.is_empty() && k.chars().all(|c| c.is_ascii_digit()))
}

/// The table: one line per test and level (N/A lines with the same reason
/// at every level asked for are joined), then the summary.
pub fn render(setup: &Setup, rows: &[Row], levels: &[Level]) -> String {
    let mut s = String::from("| test | level | front end | device link | ptxas | host link | result |\n|---|---|---|---|---|---|---|\n");
    let mut by_test: BTreeMap<&str, Vec<&Row>> = BTreeMap::new();
    for r in rows {
        by_test.entry(r.test.as_str()).or_default().push(r);
    }
    for (test, rs) in &by_test {
        let all_na_same = rs.len() > 1
            && rs.iter().all(|r| matches!(&r.status, Status::NotApplicable(x) if Some(x) == match &rs[0].status { Status::NotApplicable(y) => Some(y), _ => None }));
        if all_na_same {
            let names: Vec<&str> = rs.iter().map(|r| r.level.name).collect();
            s += &format!("| {test} | {} | | | | | N/A: {} |\n", names.join(","), cause(setup, &rs[0].status));
            continue;
        }
        for r in rs {
            let cells = stage_cells(r);
            let result = match (&r.status, &r.xfail) {
                (Status::NotApplicable(why), _) => format!("N/A: {why}"),
                (Status::Built, None) => "built".to_string(),
                (Status::Built, Some(x)) => format!("N/A: XFAIL: {x} (upstream expects it to fail here); built"),
                (st @ Status::Failed { .. }, Some(x)) => {
                    format!("N/A: XFAIL: {x} (upstream expects it to fail here); does not build: {}", cause(setup, st))
                }
                (st @ Status::Failed { known, .. }, None) => {
                    format!("{}: {}", if known.is_some() { "FAIL other" } else { "FAIL omprt" }, cause(setup, st))
                }
            };
            s += &format!("| {test} | {} | {} | {} |\n", r.level.name, cells.join(" | "), result.replace('|', "\\|"));
        }
    }
    s += "\n";
    s += &summary(setup, rows, levels);
    s
}

/// front end / device link / ptxas / host link: `ok` before the stage that
/// failed (in the order of the level's pipeline: ptxas runs at compile
/// time without LTO, after the LTO link with it), `FAIL` there, `-` after.
fn stage_cells(r: &Row) -> [String; 4] {
    let columns = [Stage::FrontEnd, Stage::DeviceLink, Stage::Ptxas, Stage::HostLink];
    match &r.status {
        Status::NotApplicable(_) => Default::default(),
        Status::Built => ["ok", "ok", "ok", "ok"].map(String::from),
        Status::Failed { stage: Stage::Check, .. } => ["ok", "ok", "ok", "ok"].map(String::from),
        Status::Failed { stage: Stage::Driver, .. } => ["-", "-", "-", "-"].map(String::from),
        Status::Failed { stage, .. } => {
            let order: [Stage; 4] = if r.level.lto() {
                [Stage::FrontEnd, Stage::DeviceLink, Stage::Ptxas, Stage::HostLink]
            } else {
                [Stage::FrontEnd, Stage::Ptxas, Stage::DeviceLink, Stage::HostLink]
            };
            let Some(at) = order.iter().position(|s| s == stage) else { return ["?", "?", "?", "?"].map(String::from) };
            columns.map(|c| {
                let i = order.iter().position(|s| *s == c).unwrap();
                if i < at {
                    "ok".into()
                } else if i == at {
                    "FAIL".into()
                } else {
                    "-".into()
                }
            })
        }
    }
}

/// Per level, then `conformance <suite>: built N of M applicable`.
pub fn summary(setup: &Setup, rows: &[Row], levels: &[Level]) -> String {
    let mut s = String::new();
    let count = |f: &dyn Fn(&Row) -> bool| rows.iter().filter(|r| f(r)).count();
    for l in levels {
        let applicable = count(&|r| r.level == *l && r.applicable());
        let built = count(&|r| r.level == *l && r.applicable() && r.status == Status::Built);
        let na = count(&|r| r.level == *l && !r.applicable());
        s += &format!("level {}: built {built} of {applicable} applicable ({na} not applicable or XFAIL)\n", l.name);
    }
    let applicable = count(&|r| r.applicable());
    let built = count(&|r| r.applicable() && r.status == Status::Built);
    let other = count(&|r| r.applicable() && matches!(r.status, Status::Failed { known: Some(_), .. }));
    let ours = count(&|r| r.applicable() && matches!(r.status, Status::Failed { known: None, .. }));
    s += &format!("failures: {ours} not classified (omprt's until shown otherwise), {other} known not to be omprt's ({})\n", known_path().display());
    s += &format!("conformance {}: built {built} of {applicable} applicable\n", setup.suite.display());
    s
}

/// Whether every failure of an applicable test is classified: a failure
/// that no entry of the known table covers is omprt's until shown
/// otherwise. (An XFAIL test's failure is what upstream expects.)
pub fn ok(rows: &[Row]) -> bool {
    !rows.iter().any(|r| r.applicable() && matches!(r.status, Status::Failed { known: None, .. }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn failures_are_classified_by_the_first_precise_line() {
        let cases = [
            ("x.c:3:10: fatal error: 'kernel/DefineLanguageNames.inc' file not found\n1 error generated.", Stage::FrontEnd),
            ("clang-22: error: unknown argument: '-fopenmp-target-fast'", Stage::FrontEnd),
            ("ptxas fatal   : Unresolved extern function 'f'\nclang-22: error: ptxas command failed with exit code 255", Stage::Ptxas),
            ("nvlink error   : Undefined reference to '__kmpc_x' in 'a.o'\nclang-linker-wrapper: error: 'nvlink' failed", Stage::DeviceLink),
            (
                "/usr/bin/ld: a.o: in function `main':\na.c:(.text+0x1): undefined reference to `foo'\nclang-22: error: linker command failed with exit code 1",
                Stage::HostLink,
            ),
            ("clang-22: error: linker command failed with exit code 1 (use -v to see invocation)", Stage::FrontEnd),
            ("x.c:9:11: error: CHECK: expected string not found in input\nomprt-conformance: RUN line 2 (line 9 of the test) failed", Stage::Check),
        ];
        for (log, stage) in cases {
            assert_eq!(classify(log).0, stage, "{log}");
        }
        assert_eq!(classify(cases[3].0).1, "nvlink error   : Undefined reference to '__kmpc_x' in 'a.o'");
        assert_eq!(classify(cases[4].0).1, "/usr/bin/ld: a.o: in function `main':");
        assert_eq!(classify("omprt-conformance: RUN line 1 (line 3 of the test) failed\n").0, Stage::Check);
        // clang's summary of a failed step counts only where nothing more precise follows.
        let late = "clang-22: error: linker command failed with exit code 1\nnvlink error   : Undefined reference to 'f'";
        assert_eq!(classify(late), (Stage::DeviceLink, "nvlink error   : Undefined reference to 'f'".to_string()));
    }

    #[test]
    fn the_known_table_parses_and_matches_test_level_stage_and_text() {
        let text = "# comment\n\
                    test: language/*\n\
                    levels: all\n\
                    stage: build\n\
                    match: file not found\n\
                    whose: the suite's copy\n\
                    evidence: its README lists the file\n    as missing\n\
                    \n\
                    test: a.c\nlevels: O2lto\nstage: run\nmatch: x\nwhose: clang 22\nevidence: e\n";
        let k = parse_known(text).unwrap();
        assert_eq!(k.len(), 2);
        assert_eq!(k[0].levels, ["O0", "O2", "O2lto"]);
        assert_eq!(k[0].evidence, "its README lists the file as missing");
        assert!(k[0].covers("language/math.cpp", "O2", "build", "fatal error: 'x' file not found"));
        assert!(!k[0].covers("language/math.cpp", "O2", "run", "file not found"));
        assert!(!k[0].covers("languages.c", "O2", "build", "file not found"));
        assert!(!k[0].covers("language/math.cpp", "O2", "build", "undefined"));
        assert!(k[1].covers("a.c", "O2lto", "run", "x"));
        assert!(!k[1].covers("a.c", "O2", "run", "x"));
        assert!(parse_known("test: a\nlevels: O3\nstage: run\nmatch: x\nwhose: w\nevidence: e\n").is_err());
        assert!(parse_known("test: a\nlevels: O2\nstage: later\nmatch: x\nwhose: w\nevidence: e\n").is_err());
        assert!(parse_known("test: a\nlevels: O2\nstage: run\nwhose: w\nevidence: e\n").is_err(), "no match");
        assert!(parse_known("test: a\nlevels: O2\nstage: run\nmatch: x\nwhose: w\nevidence: e\ncolour: red\n").is_err());
        assert!(parse_known("test a\n").is_err());
    }

    fn plan(lines: &[&str]) -> Scripts {
        let run: Vec<(usize, Script)> = lines.iter().enumerate().map(|(i, l)| (i + 1, lit::parse_script(l).unwrap())).collect();
        let cpu = |w: &str| lit::fill(w, &["t", "/suite/x.c", "/suite", "./t", "."]);
        let gpu = |w: &str| lit::fill(w, &["t", "./x.c", ".", "./t", "."]);
        scripts("x.c at O0", &run, &cpu, &gpu).unwrap()
    }

    fn body(script: &str) -> Vec<&str> {
        script.lines().filter(|l| l.starts_with("{ ")).collect()
    }

    #[test]
    fn build_steps_run_here_and_run_steps_on_the_gpu() {
        let s = plan(&[
            "/usr/bin/clang-22 -O0 -fopenmp %s -o %t && %t | FileCheck %s",
            "/usr/bin/clang-22 -O0 -DREQ=2 %s -o %t && not --crash %t 2>&1 | FileCheck %s -check-prefix=BAD",
            "env LIBOMPTARGET_INFO=16 %t 2>&1 | FileCheck %s --check-prefix=DEFAULT",
        ]);
        assert_eq!(
            body(&s.cpu),
            [
                "{ { /usr/bin/clang-22 -O0 -fopenmp /suite/x.c -o ./t ; omprt_built $? 1 ./t ; } && : ; } || omprt_fail 1 1",
                "{ { /usr/bin/clang-22 -O0 -DREQ=2 /suite/x.c -o ./t ; omprt_built $? 2 ./t ; } && : ; } || omprt_fail 2 2",
                "{ : ; } || omprt_fail 3 3",
            ]
        );
        assert_eq!(
            body(&s.gpu),
            [
                "{ omprt_restore 1 ./t && ./t | FileCheck ./x.c ; } || omprt_fail 1 1",
                "{ omprt_restore 2 ./t && not --crash ./t 2>&1 | FileCheck ./x.c -check-prefix=BAD ; } || omprt_fail 2 2",
                "{ env LIBOMPTARGET_INFO=16 ./t 2>&1 | FileCheck ./x.c --check-prefix=DEFAULT ; } || omprt_fail 3 3",
            ]
        );
    }

    #[test]
    fn checks_of_the_compilers_output_and_objects_stay_here() {
        let s = plan(&[
            "clang -c %s -o %t.o",
            "not clang %t.o %t.o -o %t 2>&1 | FileCheck %s",
            "clang -O2 %s -Rpass=openmp-opt > %t.custom 2>&1",
            "FileCheck %s -check-prefix=CUSTOM -input-file=%t.custom",
            "FileCheck %s -input-file=%t.profraw",
            "echo ignored-command | echo ignored-command",
            "mkdir -p %t.dir && clang -shared %S/lib.c -o %t.dir/libx.so && clang %s -o %t",
        ]);
        let cpu = body(&s.cpu);
        let gpu = body(&s.gpu);
        assert_eq!(cpu[0], "{ { clang -c /suite/x.c -o ./t.o ; omprt_built $? 1 ; } ; } || omprt_fail 1 1");
        assert_eq!(gpu[0], "{ omprt_restore 1 ; } || omprt_fail 1 1");
        assert_eq!(gpu[1], "{ omprt_restore 2 ./t ; } || omprt_fail 2 2");
        assert_eq!(cpu[3], "{ { FileCheck /suite/x.c -check-prefix=CUSTOM -input-file=./t.custom ; omprt_built $? 4 ; } ; } || omprt_fail 4 4");
        assert_eq!(gpu[3], "{ omprt_restore 4 ; } || omprt_fail 4 4");
        assert_eq!(cpu[4], "{ : ; } || omprt_fail 5 5", "a file the build did not write is the run's");
        assert_eq!(gpu[4], "{ FileCheck ./x.c -input-file=./t.profraw ; } || omprt_fail 5 5");
        assert_eq!(cpu[5], "{ { echo ignored-command | echo ignored-command ; } || : ; } || omprt_fail 6 6");
        assert_eq!(gpu[5], cpu[5]);
        assert_eq!(gpu[6], "{ omprt_restore 5 && omprt_restore 6 ./t.dir/libx.so && omprt_restore 7 ./t ; } || omprt_fail 7 7");
        let run = [(1, lit::parse_script("clang %s -o %t | %t").unwrap())];
        assert!(scripts("x", &run, &|w| w.into(), &|w| w.into()).is_err(), "a pipeline that builds and runs");
    }

    fn fake_setup() -> Setup {
        Setup {
            suite: "/suite".into(),
            lit_cfg: "/suite/_lit/lit.cfg".into(),
            cfg_names: BTreeSet::new(),
            out: "/out".into(),
            clang: "/bin/clang-22".into(),
            clangxx: "/bin/clang++-22".into(),
            flang: None,
            cuda: "/cuda".into(),
            llvm_bin: "/llvm/bin".into(),
            known: Vec::new(),
        }
    }

    #[test]
    fn lit_substitutions_expand_for_the_level_and_its_target() {
        let setup = fake_setup();
        let lib = runtime_dir();
        let flags = |lto: &str| {
            format!(
                "-fopenmp --cuda-path=/cuda -I /suite --offload-arch=sm_90 -Xoffload-linker -L{}{lto} --libomptarget-nvptx-bc-path={}",
                lib.display(),
                lib.join("libomptarget-nvptx.bc").display()
            )
        };
        let o0 = setup.substitutions(&LEVELS[0]);
        assert_eq!(
            lit::substitute("%libomptarget-compile-run-and-check-generic", &o0).unwrap(),
            format!("/bin/clang-22 -O0 {} -fopenmp-targets=nvptx64-nvidia-cuda %s -o %t && %t | FileCheck %s", flags(""))
        );
        let lto = setup.substitutions(&LEVELS[2]);
        assert_eq!(
            lit::substitute("%libomptarget-compileoptxx-generic -DX && %libomptarget-run-fail-generic", &lto).unwrap(),
            format!("/bin/clang++-22 -O2 {} -fopenmp-targets=nvptx64-nvidia-cuda -O3 %s -o %t -DX && not --crash %t", flags(" -foffload-lto"))
        );
        // Other targets' commands are ignored, as lit.cfg makes them; at
        // the LTO level the plain nvptx64 target is another target.
        for line in ["%libomptarget-compile-and-run-amdgcn-amd-amdhsa", "%fcheck-amdgcn-amd-amdhsa", "%libomptarget-run-fail-nvptx64-nvidia-cuda"] {
            assert_eq!(lit::substitute(line, &lto).unwrap(), "echo ignored-command", "{line}");
        }
        assert_eq!(lit::substitute("%libomptarget-run-fail-nvptx64-nvidia-cuda", &o0).unwrap(), "not --crash %t");
        assert_eq!(lit::substitute("%fcheck-plain-generic %s --check-prefix=A", &o0).unwrap(), "FileCheck %s --check-prefix=A");
        assert_eq!(lit::substitute("%target_triple.%basename_t", &lto).unwrap(), "nvptx64-nvidia-cuda-LTO.%basename_t");
    }

    #[test]
    fn kept_files_of_build_steps_are_recognised_for_the_bundle() {
        for (name, kept) in [("t.b1", true), ("libslfm.so.b12", true), ("t.bc", false), ("t.b", false), ("build.1.status", false), ("t", false)] {
            assert_eq!(is_snapshot(name), kept, "{name}");
        }
    }

    #[test]
    fn levels_parse_and_reject_unknown_names() {
        assert_eq!(parse_levels("O0,O2lto").unwrap(), [LEVELS[0], LEVELS[2]]);
        assert!(parse_levels("O3").is_err());
        assert_eq!(LEVELS[2].triple(), "nvptx64-nvidia-cuda");
    }

    #[test]
    fn missing_features_are_explained() {
        let f = Features { present: ["gpu", "nvptx64-nvidia-cuda"].iter().map(|s| s.to_string()).collect() };
        let r = f.explain("REQUIRES: gpu, pgo");
        assert!(r.contains("pgo: Debian's LLVM 22 ships no GPU profiling runtime") && !r.contains("gpu:"), "{r}");
        assert_eq!(f.explain("UNSUPPORTED: nvptx64-nvidia-cuda"), "UNSUPPORTED: nvptx64-nvidia-cuda (upstream excludes this target)");
    }
}
