//! openmp-opt's remarks for a program compiled against a runtime: which
//! kernels were SPMDized (OMP120), what prevented it (OMP121), and which
//! state machine a generic kernel got (OMP130–133).

use crate::static_cost::{Runtime, device_compile};
use crate::{Result, corpus, tools};
use std::collections::BTreeSet;
use std::path::Path;

/// One remark: source line (0 when clang gave none) and its `OMPnnn` id.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Remark {
    pub line: u32,
    pub id: String,
}

/// Compiles the device side of `src` at -O2 with every openmp-opt remark on.
pub fn remarks(src: &Path, runtime: Runtime, work: &Path) -> Result<Vec<Remark>> {
    std::fs::create_dir_all(work).map_err(|e| format!("cannot create {}: {e}", work.display()))?;
    let mut cmd = device_compile(runtime, src)?;
    cmd.args(["-O2", "--offload-device-only", "-c", "-Rpass=openmp-opt", "-Rpass-missed=openmp-opt", "-Rpass-analysis=openmp-opt"])
        .arg(src)
        .arg("-o")
        .arg(work.join(format!("{}.{runtime:?}.o", src.file_stem().unwrap().to_string_lossy())));
    let out = tools::run(&mut cmd)?;
    Ok(parse(&String::from_utf8_lossy(&out.stderr), &src.file_name().unwrap().to_string_lossy()))
}

/// One program's remarks with each runtime.
pub struct RemarkRow {
    pub program: String,
    pub omprt: Vec<Remark>,
    pub llvm19: Vec<Remark>,
}

/// The remarks that say openmp-opt left something undone: a state machine
/// it does not rewrite (OMP101) or that needs a fallback (OMP132), a
/// variable that stays globalized (OMP112, OMP113), a kernel kept generic
/// (OMP121) or a call that may hold unknown parallel regions (OMP133). The
/// others report what it did (OMP110, OMP111, OMP120, OMP130, OMP131).
pub const MISSED: [&str; 6] = ["OMP101", "OMP112", "OMP113", "OMP121", "OMP132", "OMP133"];

impl RemarkRow {
    /// The [`MISSED`] remark ids omprt's compile gets and LLVM 19's does
    /// not. Ids, not lines: clang 19 drops the source line of some remarks.
    pub fn missed_by_omprt_only(&self) -> BTreeSet<&str> {
        let theirs: BTreeSet<&str> = self.llvm19.iter().map(|r| r.id.as_str()).collect();
        self.omprt.iter().map(|r| r.id.as_str()).filter(|id| MISSED.contains(id) && !theirs.contains(id)).collect()
    }
}

/// Every C and C++ program of the corpus with both runtimes, compiled in `work`.
pub fn table(opts: &corpus::Options, work: &Path) -> Result<Vec<RemarkRow>> {
    let sources = corpus::programs(&opts.programs)?;
    let progress = crate::progress::Progress::new("remarks", sources.len());
    let rows = sources
        .iter()
        .map(|src| {
            progress.item(&src.file_name().unwrap().to_string_lossy());
            Ok(RemarkRow {
                program: src.file_name().unwrap().to_string_lossy().to_string(),
                omprt: remarks(src, Runtime::Omprt, work)?,
                llvm19: remarks(src, Runtime::Llvm19, work)?,
            })
        })
        .collect();
    progress.finish();
    rows
}

/// A markdown table: each program's remark ids, with their lines, per runtime.
pub fn render(rows: &[RemarkRow]) -> String {
    let show = |r: &[Remark]| {
        r.iter().map(|x| if x.line > 0 { format!("{} (l{})", x.id, x.line) } else { x.id.clone() }).collect::<Vec<_>>().join(", ")
    };
    let mut s = String::from("| program | omprt (clang 22) | LLVM 19 DeviceRTL (clang 19) |\n|---|---|---|\n");
    for r in rows {
        s += &format!("| {} | {} | {} |\n", r.program, show(&r.omprt), show(&r.llvm19));
    }
    s
}

/// Picks `file:line:col: remark: ... [OMPnnn]` lines out of clang's output.
pub fn parse(log: &str, file: &str) -> Vec<Remark> {
    let mut v: Vec<Remark> = log
        .lines()
        .filter(|l| l.contains("remark:"))
        .filter_map(|l| {
            let id = l.split('[').find_map(|p| p.strip_prefix("OMP").and_then(|r| r.split(']').next()))?;
            let line = l.split(&format!("{file}:")).nth(1).and_then(|r| r.split(':').next()).and_then(|n| n.parse().ok()).unwrap_or(0);
            Some(Remark { line, id: format!("OMP{id}") })
        })
        .collect();
    v.sort();
    v.dedup();
    v
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_render_with_lines_and_name_the_missed_ids_only_omprt_gets() {
        let r = |line, id: &str| Remark { line, id: id.to_string() };
        let row = RemarkRow {
            program: "p.c".into(),
            omprt: vec![r(0, "OMP113"), r(11, "OMP120"), r(12, "OMP110"), r(0, "OMP121")],
            llvm19: vec![r(0, "OMP120"), r(12, "OMP111"), r(13, "OMP121")],
        };
        assert_eq!(row.missed_by_omprt_only(), BTreeSet::from(["OMP113"]));
        let empty = RemarkRow { program: "q.c".into(), omprt: vec![], llvm19: vec![] };
        assert_eq!(render(&[row, empty]).lines().skip(2).collect::<Vec<_>>(), ["| p.c | OMP113, OMP120 (l11), OMP110 (l12), OMP121 | OMP120, OMP111 (l12), OMP121 (l13) |", "| q.c |  |  |"]);
    }

    #[test]
    fn parses_remarks() {
        let log = "x/p.c:11:1: remark: Transformed generic-mode kernel to SPMD-mode. [OMP120] [-Rpass=openmp-opt]\n\
remark: Call may contain unknown parallel regions. [OMP133] [-Rpass-analysis=openmp-opt]\nwarning: other\n";
        let r = super::parse(log, "p.c");
        assert_eq!(r.len(), 2);
        assert_eq!((r[0].line, r[0].id.as_str()), (0, "OMP133"));
        assert_eq!((r[1].line, r[1].id.as_str()), (11, "OMP120"));
    }
}
