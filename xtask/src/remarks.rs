//! openmp-opt's remarks for a program compiled against a runtime: which
//! kernels were SPMDized (OMP120), what prevented it (OMP121), and which
//! state machine a generic kernel got (OMP130–133).

use crate::static_cost::{Runtime, device_compile};
use crate::{Result, tools};
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
