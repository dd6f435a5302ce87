//! Static cost of each kernel of the corpus, side by side, as the GPU sees
//! it: registers, stack and static shared memory of the *linked* device image
//! (after nvlink, callees included), read with omprt-host's image reader, for
//! omprt (clang 22) and LLVM 19's DeviceRTL (clang 19, Debian's
//! libomp-19-dev and libomp5-19). These figures need no GPU; timings are
//! separate benchmarks.

use crate::progress::Progress;
use crate::{Result, corpus, repo_root, tools};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The linked image's figures for one kernel.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Cost {
    pub registers: u32,
    pub stack_bytes: u32,
    /// Static shared memory, not counting what the driver reserves per block.
    pub smem_bytes: u64,
}

/// Which runtime a kernel was built against.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Runtime {
    Omprt,
    Llvm19,
}

pub const ARCH: &str = "sm_90";

fn llvm19_lib() -> PathBuf {
    repo_root().join(".toolchain/llvm19/usr/lib/llvm-19/lib")
}

/// LLVM 19's DeviceRTL bitcode extracted by `scripts/setup.sh`.
pub fn llvm19_bitcode() -> Result<PathBuf> {
    let bc = llvm19_lib().join("libomptarget-nvptx-sm_90.bc");
    if bc.is_file() { Ok(bc) } else { Err(format!("{} is missing: run 'bash scripts/setup.sh'", bc.display())) }
}

fn llvm19_include() -> PathBuf {
    llvm19_lib().join("clang/19/include")
}

/// A folder with the `libomptarget.so`/`libomp.so` names clang 19's host
/// link asks for (Debian's libomp5-19 ships only the versioned files).
fn llvm19_host_libs() -> Result<PathBuf> {
    let dir = repo_root().join("target/omprt/llvm19-host");
    std::fs::create_dir_all(&dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    for (link, target) in [("libomptarget.so", "/usr/lib/llvm-19/lib/libomptarget.so.19.1"), ("libomp.so", "/usr/lib/llvm-19/lib/libomp.so.5")] {
        if !Path::new(target).exists() {
            return Err(format!("{target} is missing: run 'bash scripts/setup.sh' (clang-19 brings libomp5-19)"));
        }
        let l = dir.join(link);
        if !l.exists() {
            std::os::unix::fs::symlink(target, &l).map_err(|e| format!("cannot link {}: {e}", l.display()))?;
        }
    }
    Ok(dir)
}

/// A compile of the program `src` against `runtime` (clang 22 + omprt, or
/// clang 19 + LLVM 19's DeviceRTL); the caller adds what to produce. A C++
/// program gets the `clang++` driver (`corpus::driver_for`).
pub fn device_compile(runtime: Runtime, src: &Path) -> Result<Command> {
    Ok(match runtime {
        Runtime::Omprt => {
            let mut c = Command::new(corpus::driver_for(&tools::clang()?, src));
            c.args(corpus::user_flags(ARCH)?);
            c
        }
        Runtime::Llvm19 => {
            let clang19 = Path::new("/usr/lib/llvm-19/bin/clang");
            if !clang19.is_file() {
                return Err("clang-19 not found: run 'bash scripts/setup.sh'".into());
            }
            let mut c = Command::new(corpus::driver_for(clang19, src));
            c.args(["-fopenmp", &format!("--offload-arch={ARCH}")])
                .arg(format!("--cuda-path={}", tools::cuda_path()?.display()))
                .arg(format!("--libomptarget-nvptx-bc-path={}", llvm19_bitcode()?.display()))
                .arg(format!("-I{}", llvm19_include().display()));
            c
        }
    })
}

/// Builds `src` with the flags `opt` (`-O0`, `-O2`, `-O2 -foffload-lto`) into an
/// offload executable against `runtime`.
pub fn executable(src: &Path, runtime: Runtime, opt: &str, work: &Path) -> Result<PathBuf> {
    std::fs::create_dir_all(work).map_err(|e| format!("cannot create {}: {e}", work.display()))?;
    let exe = work.join(format!("{}{}.{runtime:?}", src.file_stem().unwrap().to_string_lossy(), opt.replace(' ', "")));
    let mut cmd = device_compile(runtime, src)?;
    if runtime == Runtime::Llvm19 {
        cmd.arg(format!("-L{}", llvm19_lib().display())).arg(format!("-L{}", llvm19_host_libs()?.display()));
    }
    // clang's temporaries in `work` too: a link that fails (LLVM 19 lacks
    // some entry points) leaves its objects behind, and the callers remove `work`.
    tools::run(cmd.env("TMPDIR", work).args(opt.split_whitespace()).arg(src).arg("-o").arg(&exe))?;
    Ok(exe)
}

/// Each kernel's figures in the linked device image of `exe`.
pub fn kernel_costs(exe: &Path) -> Result<BTreeMap<String, Cost>> {
    let data = std::fs::read(exe).map_err(|e| format!("cannot read {}: {e}", exe.display()))?;
    let input = omprt_host::image::read(&data).map_err(|e| format!("{}: {e}", exe.display()))?;
    let mut costs = BTreeMap::new();
    for image in &input.images {
        let Some(cubin) = image.cubin() else { continue };
        let cubin = cubin.map_err(|e| format!("{}: {e}", exe.display()))?;
        for k in &cubin.kernels {
            costs.insert(
                k.name.to_string(),
                Cost {
                    registers: k.registers.unwrap_or(0),
                    stack_bytes: k.stack_bytes.or(k.frame_bytes).unwrap_or(0),
                    smem_bytes: k.static_shared_bytes,
                },
            );
        }
    }
    Ok(costs)
}

/// One kernel with both runtimes' figures (`None`: that build failed).
pub struct Row {
    pub program: String,
    pub kernel: String,
    pub omprt: Option<Cost>,
    pub llvm19: Option<Cost>,
    /// Why the LLVM 19 build failed, if it did.
    pub llvm19_error: Option<String>,
}

/// The table for every program of the corpus at `opt` (`-O0`, `-O2`).
pub fn table(opts: &corpus::Options, opt: &str) -> Result<Vec<Row>> {
    let work = opts.out.join("static-cost");
    let mut rows = Vec::new();
    let sources = corpus::programs(&opts.programs)?;
    let progress = Progress::new(&format!("static-cost {opt}"), sources.len());
    for src in sources {
        let program = src.file_name().unwrap().to_string_lossy().to_string();
        progress.item(&program);
        let ours = kernel_costs(&executable(&src, Runtime::Omprt, opt, &work)?)?;
        let (theirs, error) = match executable(&src, Runtime::Llvm19, opt, &work).and_then(|e| kernel_costs(&e)) {
            Ok(c) => (c, None),
            Err(e) => (BTreeMap::new(), e.lines().find(|l| l.contains("error")).map(str::to_string)),
        };
        let kernels: std::collections::BTreeSet<&String> = ours.keys().chain(theirs.keys()).collect();
        for k in kernels {
            rows.push(Row {
                program: program.clone(),
                kernel: k.clone(),
                omprt: ours.get(k).copied(),
                llvm19: theirs.get(k).copied(),
                llvm19_error: error.clone(),
            });
        }
    }
    progress.finish();
    Ok(rows)
}

/// Stack cells: ptxas records `u32::MAX` when the stack depth is unknown
/// (recursion, calls through pointers); shown as "dyn".
fn stack_cell(a: Option<u32>, b: Option<u32>) -> String {
    let show = |v: Option<u32>| v.map_or("-".to_string(), stack_text);
    let worse = matches!((a, b), (Some(a), Some(b)) if a > b);
    format!("{} / {}{}", show(a), show(b), if worse { " !" } else { "" })
}

/// A stack size, "dyn" where ptxas could not bound it.
pub fn stack_text(bytes: u32) -> String {
    if bytes == u32::MAX { "dyn".to_string() } else { bytes.to_string() }
}

/// Where the `_l<line>` part of clang's kernel name starts (at its `_`).
pub fn line_marker(kernel: &str) -> Option<usize> {
    kernel.match_indices("_l").map(|(i, _)| i).filter(|&i| kernel[i + 2..].starts_with(|c: char| c.is_ascii_digit())).last()
}

/// The source line part of clang's kernel name: `l69`, or `l69_1` for the
/// second kernel of that line.
pub fn kernel_line(kernel: &str) -> &str {
    line_marker(kernel).map_or(kernel, |i| &kernel[i + 1..])
}

/// A markdown table: omprt / LLVM 19 in each cell, `!` where omprt is worse.
pub fn render(rows: &[Row]) -> String {
    let mut s = String::from("| program | kernel (line) | registers | stack bytes | static smem bytes |\n|---|---|---|---|---|\n");
    let cell = |a: Option<u64>, b: Option<u64>| match (a, b) {
        (Some(a), Some(b)) => format!("{a} / {b}{}", if a > b { " !" } else { "" }),
        (a, b) => format!("{} / {}", a.map_or("-".into(), |v| v.to_string()), b.map_or("-".into(), |v| v.to_string())),
    };
    let mut notes = Vec::new();
    for r in rows {
        let line = kernel_line(&r.kernel);
        let (o, l) = (r.omprt, r.llvm19);
        s += &format!(
            "| {} | {} | {} | {} | {} |\n",
            r.program,
            line,
            cell(o.map(|c| c.registers.into()), l.map(|c| c.registers.into())),
            stack_cell(o.map(|c| c.stack_bytes), l.map(|c| c.stack_bytes)),
            cell(o.map(|c| c.smem_bytes), l.map(|c| c.smem_bytes)),
        );
        if let Some(e) = &r.llvm19_error {
            let note = format!("- {}: LLVM 19 build failed: `{}`", r.program, without_paths(e.trim()));
            if !notes.contains(&note) {
                notes.push(note);
            }
        }
    }
    if !notes.is_empty() {
        s += "\n";
        s += &notes.join("\n");
        s += "\n";
    }
    s += "\n";
    s += &totals(rows);
    s
}

/// A build error without the file it names (` in '<path>'`): the path is a
/// temporary of the build folder, which differs from run to run.
fn without_paths(error: &str) -> &str {
    error.split_once(" in '").map_or(error, |(head, _)| head).trim_end()
}

/// One figure of one kernel where omprt needs more than LLVM 19's runtime.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Gap {
    pub program: String,
    /// The kernel as the tables show it (`l69_1`; for the benchmarks, `function l21`).
    pub kernel: String,
    /// `registers`, `stack bytes` or `shared bytes`.
    pub what: &'static str,
    pub omprt: u64,
    pub llvm19: u64,
}

/// The figures where `omprt` needs more than `llvm19`. A stack of unknown
/// depth ("dyn", `u32::MAX`) counts as more than any known one, as in [`totals`].
pub fn cost_gaps(program: &str, kernel: &str, omprt: Cost, llvm19: Cost) -> Vec<Gap> {
    [
        ("registers", u64::from(omprt.registers), u64::from(llvm19.registers)),
        ("stack bytes", u64::from(omprt.stack_bytes), u64::from(llvm19.stack_bytes)),
        ("shared bytes", omprt.smem_bytes, llvm19.smem_bytes),
    ]
    .into_iter()
    .filter(|(_, o, l)| o > l)
    .map(|(what, o, l)| Gap { program: program.to_string(), kernel: kernel.to_string(), what, omprt: o, llvm19: l })
    .collect()
}

/// Every gap of a table, over the kernels both runtimes build.
pub fn gaps(rows: &[Row]) -> Vec<Gap> {
    rows.iter()
        .filter_map(|r| Some(cost_gaps(&r.program, kernel_line(&r.kernel), r.omprt?, r.llvm19?)))
        .flatten()
        .collect()
}

/// Sums over the kernels both runtimes build, and on how many omprt needs
/// more. A stack of unknown depth ("dyn") counts as worse than any known one
/// and is left out of the sums.
pub fn totals(rows: &[Row]) -> String {
    let both: Vec<(Cost, Cost)> = rows.iter().filter_map(|r| Some((r.omprt?, r.llvm19?))).collect();
    let known = |v: u32| if v == u32::MAX { 0 } else { u64::from(v) };
    let line = |what: &str, f: &dyn Fn(&Cost) -> u64, worse: &dyn Fn(&Cost, &Cost) -> bool| {
        let (o, l): (u64, u64) = both.iter().fold((0, 0), |(a, b), (o, l)| (a + f(o), b + f(l)));
        let n = both.iter().filter(|(o, l)| worse(o, l)).count();
        format!("| {what} | {o} | {l} | {n} |\n")
    };
    let mut s = format!("Totals over the {} kernels both runtimes build:\n\n| | omprt | LLVM 19 | kernels where omprt needs more |\n|---|---|---|---|\n", both.len());
    s += &line("registers", &|c| c.registers.into(), &|o, l| o.registers > l.registers);
    s += &line("stack bytes", &|c| known(c.stack_bytes), &|o, l| {
        o.stack_bytes != l.stack_bytes && (o.stack_bytes == u32::MAX || (l.stack_bytes != u32::MAX && o.stack_bytes > l.stack_bytes))
    });
    s += &line("static shared bytes", &|c| c.smem_bytes, &|o, l| o.smem_bytes > l.smem_bytes);
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(kernel: &str, o: (u32, u32, u64), l: Option<(u32, u32, u64)>) -> Row {
        let cost = |(registers, stack_bytes, smem_bytes)| Cost { registers, stack_bytes, smem_bytes };
        Row { program: "p.c".into(), kernel: kernel.into(), omprt: Some(cost(o)), llvm19: l.map(cost), llvm19_error: None }
    }

    #[test]
    fn gaps_are_the_figures_where_omprt_needs_more() {
        let rows = [
            row("k_l1", (20, 0, 100), Some((24, 8, 50))),
            row("k_l2", (30, u32::MAX, 0), Some((28, u32::MAX, 0))),
            row("k_l3", (99, 99, 99), None),
            row("k_l4", (10, u32::MAX, 0), Some((10, 16, 0))),
        ];
        let got: Vec<(String, &str, u64, u64)> = gaps(&rows).into_iter().map(|g| (g.kernel, g.what, g.omprt, g.llvm19)).collect();
        let want = [("l1", "shared bytes", 100, 50), ("l2", "registers", 30, 28), ("l4", "stack bytes", u64::from(u32::MAX), 16)];
        assert_eq!(got, want.map(|(k, w, o, l)| (k.to_string(), w, o, l)));
    }

    #[test]
    fn build_errors_are_shown_without_the_temporary_they_name() {
        let e = "nvlink error   : Undefined reference to 'omp_alloc' in '/x/static-cost/allocators-1b2a58.cubin'";
        assert_eq!(without_paths(e), "nvlink error   : Undefined reference to 'omp_alloc'");
        assert_eq!(without_paths("error: no such file"), "error: no such file");
    }

    #[test]
    fn kernels_are_shown_by_line() {
        assert_eq!(kernel_line("__omp_offloading_fe00_5100b3_dynamic_1_l69_1"), "l69_1");
        assert_eq!(kernel_line("__omp_offloading_fe00_5100b3_auto__l73"), "l73");
        assert_eq!(kernel_line("main"), "main");
    }

    #[test]
    fn totals_count_kernels_both_build_and_where_omprt_needs_more() {
        let rows = [
            row("k_l1", (20, 0, 100), Some((24, 8, 50))),
            row("k_l2", (30, u32::MAX, 0), Some((28, 16, 0))),
            row("k_l3", (99, 99, 99), None),
        ];
        let t = totals(&rows);
        assert!(t.contains("the 2 kernels"), "{t}");
        assert!(t.contains("| registers | 50 | 52 | 1 |"), "{t}");
        assert!(t.contains("| stack bytes | 0 | 24 | 1 |"), "{t}");
        assert!(t.contains("| static shared bytes | 100 | 50 | 1 |"), "{t}");
    }
}
