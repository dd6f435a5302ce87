//! What ptxas would give each kernel if it compiled the device code whole
//! (no `-c`, no nvlink), against the linked image clang makes today.
//!
//! With `-foffload-lto` the device code of a program is one module: clang-
//! nvlink-wrapper compiles its PTX with `ptxas -c` and nvlink links the one
//! relocatable cubin, giving each kernel the registers of the largest
//! function it may call. ptxas on the same PTX without `-c` allocates
//! across the calls. `cargo xtask static-cost --whole-program [--bench]`
//! prints both, per kernel, for sm_90 (the LTO PTX is kept with
//! `-Wl,--save-temps`). A measurement for deciding on a whole-program link:
//! the builds themselves are unchanged.

use crate::progress::Progress;
use crate::static_cost::{self, Cost, Runtime};
use crate::{Result, corpus, repo_root, tools};
use std::path::{Path, PathBuf};
use std::process::Command;

/// One kernel: as linked today, and compiled whole-program.
pub struct Row {
    pub program: String,
    pub kernel: String,
    pub linked: Cost,
    pub whole: Option<Cost>,
}

/// The LTO build of `src` in `work` and the PTX its link left there.
fn lto_build(src: &Path, work: &Path) -> Result<(PathBuf, PathBuf)> {
    std::fs::create_dir_all(work).map_err(|e| format!("cannot create {}: {e}", work.display()))?;
    let stem = src.file_stem().unwrap().to_string_lossy().to_string();
    let exe = work.join(&stem);
    let mut cmd = static_cost::device_compile(Runtime::Omprt, src)?;
    tools::run(cmd.current_dir(work).args(["-O2", "-foffload-lto", "-Wl,--save-temps"]).arg(src).arg("-o").arg(&exe).arg("-lm"))?;
    let ptx = work.join(format!("{stem}.nvptx64.{}.s", static_cost::ARCH));
    if !ptx.is_file() {
        return Err(format!("the LTO link of {} left no {}", src.display(), ptx.display()));
    }
    Ok((exe, ptx))
}

/// The rows for every C/C++ program of `dir`.
pub fn table(dir: &Path, work: &Path) -> Result<Vec<Row>> {
    let ptxas = tools::ptxas()?;
    let sources = corpus::programs(dir)?;
    let progress = Progress::new("static-cost --whole-program", sources.len());
    let mut rows = Vec::new();
    for src in sources {
        let program = src.file_name().unwrap().to_string_lossy().to_string();
        progress.item(&program);
        let (exe, ptx) = lto_build(&src, &work.join(src.file_stem().unwrap()))?;
        let whole_cubin = ptx.with_extension("whole.cubin");
        tools::run(Command::new(&ptxas).args(["-m64", "-O2", "-arch", static_cost::ARCH]).arg(&ptx).arg("-o").arg(&whole_cubin))?;
        let whole = static_cost::kernel_costs(&whole_cubin)?;
        for (kernel, linked) in static_cost::kernel_costs(&exe)? {
            rows.push(Row { program: program.clone(), whole: whole.get(&kernel).copied(), kernel, linked });
        }
    }
    Ok(rows)
}

/// The corpus's table, or the benchmarks' with `bench`.
pub fn table_for(bench: bool) -> Result<Vec<Row>> {
    let dir = repo_root().join(if bench { "tests-gpu/bench" } else { "tests-gpu/programs" });
    table(&dir, &repo_root().join("target/omprt/whole-program"))
}

/// A markdown table, linked / whole-program in each cell, and the totals.
pub fn render(rows: &[Row]) -> String {
    let mut s = String::from("| program | kernel (line) | registers linked / whole | stack bytes linked / whole |\n|---|---|---|---|\n");
    for r in rows {
        let show = |f: &dyn Fn(&Cost) -> String| r.whole.as_ref().map_or("-".to_string(), f);
        s += &format!(
            "| {} | {} | {} / {} | {} / {} |\n",
            r.program,
            static_cost::kernel_line(&r.kernel),
            r.linked.registers,
            show(&|c| c.registers.to_string()),
            static_cost::stack_text(r.linked.stack_bytes),
            show(&|c| static_cost::stack_text(c.stack_bytes)),
        );
    }
    s + "\n" + &totals(rows)
}

/// Registers over the kernels both builds have, and where they differ.
pub fn totals(rows: &[Row]) -> String {
    let both: Vec<(Cost, Cost)> = rows.iter().filter_map(|r| Some((r.linked, r.whole?))).collect();
    let linked: u64 = both.iter().map(|(l, _)| u64::from(l.registers)).sum();
    let whole: u64 = both.iter().map(|(_, w)| u64::from(w.registers)).sum();
    let fewer = both.iter().filter(|(l, w)| w.registers < l.registers).count();
    let more = both.iter().filter(|(l, w)| w.registers > l.registers).count();
    // A stack ptxas cannot bound (u32::MAX) is left out of the sums.
    let known = |c: &Cost| if c.stack_bytes == u32::MAX { 0 } else { u64::from(c.stack_bytes) };
    let (stack_linked, stack_whole): (u64, u64) = both.iter().fold((0, 0), |(a, b), (l, w)| (a + known(l), b + known(w)));
    let deeper = both.iter().filter(|(l, w)| known(w) > known(l)).count();
    format!(
        "{} kernels: {linked} registers linked, {whole} whole-program; fewer in {fewer}, more in {more}\n\
         stack: {stack_linked} bytes linked, {stack_whole} whole-program; more in {deeper}\n",
        both.len()
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn totals_count_the_kernels_both_builds_have() {
        let c = |registers| Cost { registers, stack_bytes: registers / 10, smem_bytes: 0 };
        let row = |k: &str, l, w: Option<u32>| Row { program: "p.c".into(), kernel: k.into(), linked: c(l), whole: w.map(c) };
        let rows = [row("k_l1", 40, Some(32)), row("k_l2", 28, Some(29)), row("k_l3", 20, Some(20)), row("k_l4", 99, None)];
        assert_eq!(
            totals(&rows),
            "3 kernels: 88 registers linked, 81 whole-program; fewer in 1, more in 1\nstack: 8 bytes linked, 7 whole-program; more in 0\n"
        );
        assert!(render(&rows).contains("| p.c | l4 | 99 / - | 9 / - |"), "{}", render(&rows));
    }
}
