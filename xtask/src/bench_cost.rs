//! Static cost of the benchmark kernels (`tests-gpu/bench`) for all three
//! runtimes the benchmarks compare: omprt (clang 22), LLVM 19's DeviceRTL
//! (clang 19) and GCC 12's nvptx offloading (libgomp).
//!
//! GCC embeds PTX, which libgomp's plugin links and JIT-compiles at run time,
//! so there is no cubin to read: its modules (mkoffload's input, kept by
//! `-save-temps`) go through ptxas for sm_90 one by one and nvlink joins
//! them, which is what the JIT does. GCC names a kernel after its function
//! (`dot$_omp_fn$0`), clang after function and line (`..._dot_l21`): kernels
//! are matched by function, in source order within one.

use crate::static_cost::{self, Cost, Runtime};
use crate::{Result, repo_root, tools};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

const GCC: &str = "/usr/bin/gcc-12";
const MKOFFLOAD: &str = "/usr/lib/gcc/x86_64-linux-gnu/12/accel/nvptx-none/mkoffload";
/// The flags `scripts/bench-bundle.sh` builds the GCC benchmarks with.
const GCC_FLAGS: [&str; 5] = ["-O2", "-fopenmp", "-no-pie", "-foffload=nvptx-none", "-foffload-options=nvptx-none=-misa=sm_80 -latomic"];

/// One kernel's figures for the three runtimes (`None`: not built there).
pub struct BenchRow {
    pub program: String,
    /// The function the target region is in.
    pub function: String,
    /// clang's kernel name (omprt and LLVM 19 agree on it).
    pub kernel: Option<String>,
    pub gcc_kernel: Option<String>,
    pub omprt: Option<Cost>,
    pub llvm19: Option<Cost>,
    pub gcc: Option<Cost>,
}

/// The function a kernel is in: `dot` for clang's
/// `__omp_offloading_fe00_5100b3_dot_l21` and for GCC's `dot$_omp_fn$0`.
pub fn function_of(kernel: &str) -> &str {
    if let Some((f, _)) = kernel.split_once("$_omp_fn$") {
        return f;
    }
    let rest = kernel.strip_prefix("__omp_offloading_").unwrap_or(kernel);
    // Past the device and file ids.
    let rest = rest.splitn(3, '_').nth(2).unwrap_or(rest);
    static_cost::line_marker(rest).map_or(rest, |i| &rest[..i])
}

/// Source order within a function: clang's line, GCC's region number.
fn order_key(kernel: &str) -> (u64, u64) {
    let digits = |s: &str| s.split(|c: char| !c.is_ascii_digit()).filter(|d| !d.is_empty()).map(|d| d.parse().unwrap_or(0)).collect::<Vec<u64>>();
    match kernel.split_once("$_omp_fn$") {
        Some((_, n)) => (digits(n).first().copied().unwrap_or(0), 0),
        None => {
            let at = static_cost::line_marker(kernel).map_or(kernel, |i| &kernel[i + 2..]);
            let d = digits(at);
            (d.first().copied().unwrap_or(0), d.get(1).copied().unwrap_or(0))
        }
    }
}

/// Pairs clang's and GCC's kernels of each function in source order.
pub fn pair(program: &str, clang: &BTreeMap<String, (Option<Cost>, Option<Cost>)>, gcc: &BTreeMap<String, Cost>) -> Vec<BenchRow> {
    let mut by_function: BTreeMap<&str, (Vec<&String>, Vec<&String>)> = BTreeMap::new();
    for k in clang.keys() {
        by_function.entry(function_of(k)).or_default().0.push(k);
    }
    for k in gcc.keys() {
        by_function.entry(function_of(k)).or_default().1.push(k);
    }
    let mut rows = Vec::new();
    for (function, (mut ours, mut theirs)) in by_function {
        ours.sort_by_key(|k| order_key(k));
        theirs.sort_by_key(|k| order_key(k));
        for i in 0..ours.len().max(theirs.len()) {
            let (kernel, gcc_kernel) = (ours.get(i).copied(), theirs.get(i).copied());
            let (omprt, llvm19) = kernel.map_or((None, None), |k| clang[k]);
            rows.push(BenchRow {
                program: program.to_string(),
                function: function.to_string(),
                kernel: kernel.cloned(),
                gcc_kernel: gcc_kernel.cloned(),
                omprt,
                llvm19,
                gcc: gcc_kernel.map(|k| gcc[k]),
            });
        }
    }
    rows
}

/// GCC 12's kernels of `src` at -O2, linked for sm_90 as libgomp's JIT would.
pub fn gcc_kernel_costs(src: &Path, work: &Path) -> Result<BTreeMap<String, Cost>> {
    if !Path::new(GCC).is_file() || !Path::new(MKOFFLOAD).is_file() {
        return Err("gcc-12 or gcc-12-offload-nvptx is missing: run 'bash scripts/setup.sh' (as root)".into());
    }
    let stem = src.file_stem().unwrap().to_string_lossy().to_string();
    let dir = work.join(format!("gcc-{stem}"));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    tools::run(Command::new(GCC).current_dir(&dir).args(GCC_FLAGS).arg("-save-temps").arg(src).args(["-o", &stem, "-lm"]))?;
    let ptx_file = dir.join(format!("{stem}.xnvptx-none.mkoffload"));
    let ptx = std::fs::read(&ptx_file).map_err(|e| format!("cannot read {}: {e}", ptx_file.display()))?;
    let cubins = split_modules(&String::from_utf8_lossy(&ptx))
        .iter()
        .enumerate()
        .map(|(i, module)| {
            let path = dir.join(format!("module{i}.ptx"));
            std::fs::write(&path, module).map_err(|e| format!("cannot write {}: {e}", path.display()))?;
            let cubin = path.with_extension("cubin");
            tools::run(Command::new(tools::ptxas()?).args(["-arch=sm_90", "-c"]).arg(&path).arg("-o").arg(&cubin))?;
            Ok(cubin)
        })
        .collect::<Result<Vec<PathBuf>>>()?;
    let linked = dir.join("linked.cubin");
    tools::run(Command::new(tools::cuda_path()?.join("bin/nvlink")).arg("-arch=sm_90").args(&cubins).arg("-o").arg(&linked))?;
    static_cost::kernel_costs(&linked)
}

/// mkoffload's input is PTX modules one after another, each from `.version` on.
pub fn split_modules(ptx: &str) -> Vec<String> {
    let mut modules: Vec<String> = Vec::new();
    for line in ptx.lines() {
        // A module's preamble comment goes with the `.version` after it.
        let starts = line.starts_with(".version") && modules.last().is_none_or(|m| m.contains(".version"));
        if starts || modules.is_empty() {
            modules.push(String::new());
        }
        let m = modules.last_mut().unwrap();
        m.push_str(line);
        m.push('\n');
    }
    modules.retain(|m| m.contains(".version"));
    modules
}

/// The folder `cargo xtask static-cost --bench` builds in.
pub fn default_work() -> PathBuf {
    repo_root().join("target/omprt/bench-cost")
}

/// The table for every benchmark program at -O2, built in `work`.
pub fn table(work: &Path) -> Result<Vec<BenchRow>> {
    let dir = repo_root().join("tests-gpu/bench");
    let mut rows = Vec::new();
    let sources = crate::corpus::programs(&dir)?;
    let progress = crate::progress::Progress::new("static-cost --bench", sources.len());
    for src in sources {
        let program = src.file_name().unwrap().to_string_lossy().to_string();
        progress.item(&program);
        let ours = static_cost::kernel_costs(&static_cost::executable(&src, Runtime::Omprt, "-O2", work)?)?;
        let theirs = static_cost::executable(&src, Runtime::Llvm19, "-O2", work).and_then(|e| static_cost::kernel_costs(&e))?;
        let clang: BTreeMap<String, (Option<Cost>, Option<Cost>)> =
            ours.keys().chain(theirs.keys()).map(|k| (k.clone(), (ours.get(k).copied(), theirs.get(k).copied()))).collect();
        let gcc = gcc_kernel_costs(&src, work)?;
        rows.extend(pair(&program, &clang, &gcc));
    }
    progress.finish();
    Ok(rows)
}

/// Where omprt needs more than LLVM 19's runtime on a benchmark kernel; the
/// kernel is named by its function and line (`copy l14`). GCC's figures are
/// not compared: they are a second anchor, not the one omprt replaces.
pub fn gaps(rows: &[BenchRow]) -> Vec<static_cost::Gap> {
    rows.iter()
        .filter_map(|r| {
            let kernel = format!("{} {}", r.function, r.kernel.as_deref().map_or("-", static_cost::kernel_line));
            Some(static_cost::cost_gaps(&r.program, &kernel, r.omprt?, r.llvm19?))
        })
        .flatten()
        .collect()
}

/// A markdown table: omprt / LLVM 19 / GCC 12 in each cell.
pub fn render(rows: &[BenchRow]) -> String {
    let mut s = String::from(
        "| program | function | clang kernel / GCC kernel | registers | stack bytes | static smem bytes |\n|---|---|---|---|---|---|\n",
    );
    let three = |f: &dyn Fn(&Cost) -> String, r: &BenchRow| {
        [r.omprt, r.llvm19, r.gcc].iter().map(|c| c.as_ref().map_or("-".to_string(), f)).collect::<Vec<_>>().join(" / ")
    };
    for r in rows {
        let line = r.kernel.as_deref().map_or("-", static_cost::kernel_line);
        s += &format!(
            "| {} | {} | {} / {} | {} | {} | {} |\n",
            r.program,
            r.function,
            line,
            r.gcc_kernel.as_deref().unwrap_or("-"),
            three(&|c| c.registers.to_string(), r),
            three(&|c| static_cost::stack_text(c.stack_bytes), r),
            three(&|c| c.smem_bytes.to_string(), r),
        );
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kernels_are_matched_by_function_in_source_order() {
        assert_eq!(function_of("__omp_offloading_fe00_5100b3_dot_l21"), "dot");
        assert_eq!(function_of("__omp_offloading_fe00_5100b3_static_1_l66_1"), "static_1");
        assert_eq!(function_of("dot$_omp_fn$0"), "dot");
        let c = |r| Cost { registers: r, stack_bytes: 0, smem_bytes: 0 };
        let clang = BTreeMap::from([
            ("__omp_offloading_fe00_1_f_l30".to_string(), (Some(c(1)), Some(c(2)))),
            ("__omp_offloading_fe00_1_f_l9".to_string(), (Some(c(3)), None)),
        ]);
        let gcc = BTreeMap::from([("f$_omp_fn$2".to_string(), c(5)), ("f$_omp_fn$0".to_string(), c(4)), ("g$_omp_fn$1".to_string(), c(6))]);
        let rows = pair("p.c", &clang, &gcc);
        let got: Vec<(&str, Option<&str>, Option<u32>)> =
            rows.iter().map(|r| (r.function.as_str(), r.gcc_kernel.as_deref(), r.omprt.map(|c| c.registers))).collect();
        assert_eq!(got, vec![("f", Some("f$_omp_fn$0"), Some(3)), ("f", Some("f$_omp_fn$2"), Some(1)), ("g", Some("g$_omp_fn$1"), None)]);
    }

    #[test]
    fn mkoffload_input_splits_into_modules() {
        let ptx = "// BEGIN PREAMBLE\n.version 7.0\n.target sm_80\n.entry a()\n{\n}\n // BEGIN PREAMBLE\n.version 6.0\n.target sm_30\n.func b()\n{\n}\n";
        let m = split_modules(ptx);
        assert_eq!(m.len(), 2);
        assert!(m[0].starts_with("// BEGIN PREAMBLE\n.version 7.0") && m[0].contains(".entry a()"), "{m:?}");
        assert!(m[1].starts_with(".version 6.0") && m[1].contains(".func b()"), "{m:?}");
        assert!(m[0].ends_with(" // BEGIN PREAMBLE\n"), "the next preamble's comment stays behind: {m:?}");
    }
}
