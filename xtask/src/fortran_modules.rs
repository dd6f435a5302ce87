//! The named constants of flang's intrinsic modules (`omp_lib`,
//! `iso_c_binding`, ...) for the device: a member of `libompdevice.a`.
//!
//! flang at -O0 declares every named constant of a module the program uses
//! (`@_QMomp_libECkmp_cancel_loop = external constant i32`), used or not,
//! and ptxas keeps each declaration as an undefined symbol, so nvlink fails:
//! `use omp_lib` alone left 135 undefined references, `use iso_c_binding` 65.
//! (On the host an unused declaration leaves no reference behind.) No device
//! library defines them. flang's `.mod` files are Fortran source, so compiling each
//! one for the device with the installed flang gives the definitions with
//! flang's own values; only the constants are kept, `weak_odr`, so a device
//! Fortran runtime that defines them too wins without a clash. nvlink takes
//! the member only for a program that references one of them.

use crate::{Result, corpus, tools};
use std::path::{Path, PathBuf};
use std::process::Command;

/// The modules compiled, each after the ones it uses (then the probe of
/// [`FOLDED_AT_USE`]). Left out:
/// `ieee_arithmetic` (its procedures take `REAL(10)`, which flang does not
/// enable for nvptx) and `__fortran_ieee_exceptions` (it names a private
/// component of `__fortran_builtins`, which only flang's own build may).
pub const MODULES: &[&str] = &[
    "__fortran_builtins",
    "__fortran_type_info",
    "iso_c_binding",
    "iso_fortran_env_impl",
    "iso_fortran_env",
    "ieee_exceptions",
    "ieee_features",
    "omp_lib_kinds",
    "omp_lib",
];

/// Named constants flang declares for a module but leaves out when it
/// compiles the module, as their value is folded where they are used
/// (`numeric_storage_size`, the default integer's size in bits): `(module,
/// name, type)`. Each is defined from a probe module compiled with flang's
/// defaults (32; a file built with `-fdefault-integer-8` folds 64 itself and
/// reads the definition only if it passes the constant by reference).
const FOLDED_AT_USE: &[(&str, &str, &str)] = &[("iso_fortran_env", "numeric_storage_size", "integer(4)")];

/// The probe module for [`FOLDED_AT_USE`]: constant `p<i>` holds entry `i`.
fn probe_source() -> String {
    let mut src = String::from("module omprt_probe\n");
    for (m, name, _) in FOLDED_AT_USE {
        src += &format!("use {m}, only: {name}\n");
    }
    for (i, (_, name, ty)) in FOLDED_AT_USE.iter().enumerate() {
        src += &format!("{ty}, parameter :: p{i} = {name}\n");
    }
    src + "end module\n"
}

/// Where flang keeps its module files: `<prefix>/include/flang` beside its
/// `<prefix>/bin`.
fn module_dir(flang: &Path) -> Result<PathBuf> {
    let real = std::fs::canonicalize(flang).map_err(|e| format!("cannot resolve {}: {e}", flang.display()))?;
    let dir = real.parent().and_then(Path::parent).map(|p| p.join("include/flang"));
    dir.filter(|d| d.join("omp_lib.mod").is_file())
        .ok_or_else(|| format!("no omp_lib.mod beside {}: reinstall flang-22 ('bash scripts/setup.sh')", real.display()))
}

/// flang's -O0 device code of `src` for `arch`, as LLVM IR in `ll`. It runs
/// in `work`, where flang writes the `.mod` of each module it compiles, and
/// finds CUDA's PTX version through the `ptxas` on PATH.
fn device_ir(src: &Path, ll: &Path, arch: &str, work: &Path) -> Result<()> {
    let mut cmd = corpus::flang_with_cuda_on_path()?;
    cmd.current_dir(work).args(["-O0", "-fopenmp", &format!("--offload-arch={arch}"), "--offload-device-only", "-S", "-emit-llvm"]);
    tools::run(cmd.arg(src).arg("-o").arg(ll)).map(drop)
}

/// Builds `<out>/libompdevice-fortran.bc`, or returns `None` when flang 22 is
/// not installed (the archive then serves clang alone).
pub fn build(out: &Path) -> Result<Option<PathBuf>> {
    let Ok(flang) = tools::flang() else { return Ok(None) };
    let modules = module_dir(&flang)?;
    // flang writes the `.mod` of each module it compiles into its working
    // directory: a folder of our own.
    let work = out.join("fortran-modules");
    let _ = std::fs::remove_dir_all(&work);
    std::fs::create_dir_all(&work).map_err(|e| format!("cannot create {}: {e}", work.display()))?;
    let mut compiled = Vec::new();
    let mut sources = Vec::new();
    for m in MODULES {
        let text = std::fs::read_to_string(modules.join(format!("{m}.mod")))
            .map_err(|e| format!("cannot read {m}.mod in {} ({e}): reinstall flang-22", modules.display()))?;
        sources.push((m.to_string(), text.trim_start_matches('\u{feff}').to_string()));
    }
    sources.push(("omprt_probe".to_string(), probe_source()));
    for (m, text) in sources {
        let src = work.join(format!("{m}.f90"));
        std::fs::write(&src, text).map_err(|e| format!("cannot write {}: {e}", src.display()))?;
        let ll = work.join(format!("{m}.ll"));
        // Any arch: the constants are data.
        device_ir(&src, &ll, "sm_70", &work)?;
        compiled.push(ll);
    }
    let linked = work.join("modules.bc");
    tools::run(Command::new(tools::llvm_tool("llvm-link")?).args(&compiled).arg("-o").arg(&linked))?;
    let constants = work.join("constants.ll");
    tools::run(Command::new(tools::llvm_tool("llvm-extract")?).arg("--rglob=^_QM.*EC").arg("-S").arg(&linked).arg("-o").arg(&constants))?;
    let mut ir = std::fs::read_to_string(&constants).map_err(|e| format!("cannot read {}: {e}", constants.display()))?;
    for (i, (m, name, _)) in FOLDED_AT_USE.iter().enumerate() {
        let probe = format!("@_QMomprt_probeECp{i} = ");
        if !ir.contains(&probe) {
            return Err(format!("flang's probe of {m}'s {name} gave no constant"));
        }
        ir = ir.replace(&probe, &format!("@_QM{m}EC{name} = "));
    }
    let weak = weak_constants(&ir)?;
    let member = out.join("libompdevice-fortran.bc");
    let weak_ll = work.join("constants-weak.ll");
    std::fs::write(&weak_ll, weak).map_err(|e| format!("cannot write {}: {e}", weak_ll.display()))?;
    tools::run(Command::new(tools::llvm_tool("llvm-as")?).arg(&weak_ll).arg("-o").arg(&member))?;
    let _ = std::fs::remove_dir_all(&work);
    Ok(Some(member))
}

/// The modules a program names in `use`, as opposed to the ones only
/// flang's own modules use.
pub const USER_MODULES: &[&str] = &["iso_c_binding", "iso_fortran_env", "ieee_exceptions", "ieee_features", "omp_lib_kinds", "omp_lib"];

/// The globals `member` (the archive's Fortran member, as built) defines.
pub fn defined_constants(member: &Path) -> Result<std::collections::BTreeSet<String>> {
    Ok(tools::disassemble(member)?.lines().filter_map(crate::ir_rewrite::global_name).collect())
}

/// The named constants flang's -O0 device code declares for a program that
/// uses `module`, and that are not among `defined` ([`defined_constants`]):
/// what nvlink would report undefined.
pub fn undefined_constants(module: &str, defined: &std::collections::BTreeSet<String>, work: &Path) -> Result<Vec<String>> {
    std::fs::create_dir_all(work).map_err(|e| format!("cannot create {}: {e}", work.display()))?;
    let src = work.join(format!("uses_{module}.f90"));
    let program = format!(
        "program uses_{module}\n  use {module}\n  integer :: x\n  x = 0\n  !$omp target map(tofrom: x)\n  x = 1\n  !$omp end target\n  print *, x\nend program\n"
    );
    std::fs::write(&src, program).map_err(|e| format!("cannot write {}: {e}", src.display()))?;
    let ll = work.join(format!("uses_{module}.ll"));
    device_ir(&src, &ll, "sm_90", work)?;
    let declared = std::fs::read_to_string(&ll).map_err(|e| format!("cannot read {}: {e}", ll.display()))?;
    Ok(declared
        .lines()
        .filter(|l| l.contains(" = external constant "))
        .filter_map(crate::ir_rewrite::global_name)
        .filter(|n| n.starts_with("_QM") && n.contains("EC") && !defined.contains(n))
        .collect())
}

/// `ir` with each module constant's definition made `weak_odr`; an error
/// if it defines none, or one in a form this does not know.
pub fn weak_constants(ir: &str) -> Result<String> {
    let mut count = 0;
    let mut lines = Vec::new();
    for line in ir.lines() {
        if line.starts_with("@_QM") {
            let Some((name, rest)) = line.split_once(" = constant ") else {
                return Err(format!("unexpected module constant definition: {line}"));
            };
            lines.push(format!("{name} = weak_odr constant {rest}"));
            count += 1;
        } else if line.starts_with('@') {
            return Err(format!("a global other than a module constant: {line}"));
        } else {
            lines.push(line.to_string());
        }
    }
    if count == 0 {
        return Err("flang's modules gave no named constants".into());
    }
    Ok(lines.join("\n") + "\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn constants_become_weak_odr_and_other_globals_are_refused() {
        let ir = "%t = type { i8 }\n@_QMomp_libECa = constant i32 3\n@_QMxECb = constant %t { i8 1 }\n";
        let out = weak_constants(ir).unwrap();
        assert!(out.contains("@_QMomp_libECa = weak_odr constant i32 3"));
        assert!(out.contains("@_QMxECb = weak_odr constant %t { i8 1 }"));
        assert!(weak_constants("@other = global i32 0\n").is_err());
        assert!(weak_constants("@_QMxECc = internal constant i32 1\n").is_err());
        assert!(weak_constants("%t = type { i8 }\n").is_err());
    }
}
