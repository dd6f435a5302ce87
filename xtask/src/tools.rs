//! Finding the external tools; a missing one is an error that names the fix.

use crate::{Result, repo_root};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

const SETUP: &str = "run 'bash scripts/setup.sh' (as root) to install it";

/// `/usr/lib/llvm-22/bin/<name>`, or `<name>-22` on PATH.
pub fn llvm_tool(name: &str) -> Result<PathBuf> {
    let direct = Path::new("/usr/lib/llvm-22/bin").join(name);
    if direct.is_file() {
        return Ok(direct);
    }
    let suffixed = format!("{name}-22");
    which(&suffixed).ok_or_else(|| format!("{suffixed} not found (LLVM 22 tools): {SETUP}"))
}

pub fn clang() -> Result<PathBuf> {
    llvm_tool("clang")
}

/// flang 22 (Debian's flang-22), for the corpus's Fortran programs.
pub fn flang() -> Result<PathBuf> {
    llvm_tool("flang")
}

fn which(name: &str) -> Option<PathBuf> {
    std::env::var_os("PATH")?.to_str()?.split(':').map(|d| Path::new(d).join(name)).find(|p| p.is_file())
}

/// The CUDA folder for `--cuda-path` assembled by `scripts/setup.sh`.
pub fn cuda_path() -> Result<PathBuf> {
    let dir = repo_root().join(".toolchain/cuda");
    if dir.join("bin/ptxas").is_file() && dir.join("nvvm/libdevice/libdevice.10.bc").is_file() {
        Ok(dir)
    } else {
        Err(format!("no CUDA folder at {}: {SETUP}", dir.display()))
    }
}

pub fn ptxas() -> Result<PathBuf> {
    Ok(cuda_path()?.join("bin/ptxas"))
}

/// Runs a command and returns its output, or an error with its stderr.
pub fn run(cmd: &mut Command) -> Result<Output> {
    let shown = format!("{cmd:?}");
    let out = cmd.output().map_err(|e| format!("cannot run {shown}: {e}"))?;
    if out.status.success() {
        Ok(out)
    } else {
        Err(format!(
            "command failed ({}): {shown}\n{}{}",
            out.status,
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        ))
    }
}

/// `llvm-dis` of a bitcode file, as text.
pub fn disassemble(bc: &Path) -> Result<String> {
    let out = run(Command::new(llvm_tool("llvm-dis")?).arg(bc).arg("-o").arg("-"))?;
    String::from_utf8(out.stdout).map_err(|e| format!("llvm-dis printed non-UTF-8: {e}"))
}
