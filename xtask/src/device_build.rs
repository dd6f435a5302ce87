//! Builds the device runtime: `device-rtl` for nvptx64 → one bitcode module
//! (rustc fat LTO, core included) → [`ir_rewrite`] → `llvm-as` →
//! `target/omprt/lib/{libomptarget-nvptx.bc, libompdevice.a}`.

use crate::{Result, abi_table, fortran_modules, ir_rewrite, repo_root, runtime_dir, tools};
use omprt_abi::symbols::{CONFIG_GLOBALS, DEVICE_ENVIRONMENT};
use std::path::{Path, PathBuf};
use std::process::Command;

/// Symbols the runtime exports beyond `OMPKinds.def` and the reserved API
/// prefixes ([`API_PREFIXES`]): compatibility entry points and globals.
pub const EXTRA_API: &[&str] = &["__kmpc_parallel_51", "__kmpc_get_dynamic_shared", DEVICE_ENVIRONMENT];

/// The C library functions the runtime defines, weak (`device-rtl/src/libc/mod.rs`).
pub const LIBC_API: &[&str] = &[
    "__assert_fail",
    "abort",
    "puts",
    "memcmp",
    "strlen",
    "strcmp",
    "strncmp",
    "exit",
    "_Exit",
    "clock",
    "strcpy",
    "strncpy",
    "strcat",
    "strncat",
    "strchr",
    "strrchr",
    "strstr",
    "memchr",
    "strtol",
    "strtoll",
    "strtoul",
    "strtoull",
    "atoi",
    "atol",
    "atoll",
    "__atomic_load",
    "__atomic_store",
    "__atomic_exchange",
    "__atomic_compare_exchange",
];

/// Name prefixes the OpenMP API (and LLVM's extensions of it) reserve: user
/// code calls these through `omp.h`/`ompx.h`.
pub const API_PREFIXES: &[&str] = &["omp_", "ompx_", "llvm_omp_", "__llvm_omp_"];

/// The prefix of flang-rt's entry points (`RTNAME`), which the Fortran
/// runtime member exports (`device-rtl/src/exports/fortran.rs`).
pub const FORTRAN_RUNTIME_PREFIX: &str = "_FortranA";

/// The archive's member with flang-rt's entry points.
pub const FORTRAN_RUNTIME_MEMBER: &str = "libompdevice-flang-rt.bc";

/// The bitcode and archive clang links.
pub struct Artifacts {
    pub bitcode: PathBuf,
    pub archive: PathBuf,
    pub report: ir_rewrite::RewriteReport,
    /// The archive's member with flang's module constants; `None` without flang.
    pub fortran: Option<PathBuf>,
    /// The archive's member with flang-rt's entry points ([`FORTRAN_RUNTIME_MEMBER`]).
    pub fortran_runtime: PathBuf,
}

/// Whether `name` may be visible in the runtime bitcode.
pub fn api_checker() -> Result<impl Fn(&str) -> bool> {
    let def = std::fs::read_to_string(abi_table::OMP_KINDS_DEF)
        .map_err(|e| format!("cannot read {} ({e}): run 'bash scripts/setup.sh' (llvm-22-dev)", abi_table::OMP_KINDS_DEF))?;
    let names: Vec<String> = abi_table::parse_omp_kinds(&def)?.into_iter().map(|e| e.name).collect();
    let libc = fortran_member_c_functions()?;
    Ok(move |n: &str| {
        names.iter().any(|x| x == n)
            || EXTRA_API.contains(&n)
            || LIBC_API.contains(&n)
            || CONFIG_GLOBALS.contains(&n)
            || API_PREFIXES.iter().any(|p| n.starts_with(p))
            || n.starts_with(FORTRAN_RUNTIME_PREFIX)
            || libc.iter().any(|x| x == n)
    })
}

pub fn build() -> Result<Artifacts> {
    // Two copies, each compiled by rustc knowing which it is, so that the
    // other's paths are gone before openmp-opt sees the code: the bitcode
    // clang links at compile time, and the archive's LTO member
    // (`config::serves_out_of_line_callers`). Decided later (a byte defined
    // after rustc), the branches left for LLVM to fold would still stand
    // when openmp-opt runs, and it would keep stores it otherwise drops
    // (4 bytes of shared memory more in parallel_for.c's kernels).
    let (ir, report) = runtime_ir("target/device", &[], ir_rewrite::KEEP_LINKED)?;
    let (lto_ir, _) = runtime_ir("target/device-lto", &["--features", "lto-member"], ir_rewrite::KEEP_LINKED)?;
    // A third copy with flang-rt's entry points (`crate::fortran`), from
    // which the Fortran runtime member keeps those alone: built apart, so
    // that the two copies above do not depend on it (rustc's inliner sees no
    // extra callers of the helpers they share with it).
    let (fortran_ir, _) = runtime_ir("target/device-fortran", &["--features", "fortran"], &[])?;
    let out = runtime_dir();
    std::fs::create_dir_all(&out).map_err(|e| format!("cannot create {}: {e}", out.display()))?;
    let ll = out.join("libomptarget-nvptx.ll");
    std::fs::write(&ll, ir_rewrite::for_compile_time_link(&ir)?).map_err(|e| format!("cannot write {}: {e}", ll.display()))?;
    let bitcode = out.join("libomptarget-nvptx.bc");
    tools::run(Command::new(tools::llvm_tool("llvm-as")?).arg(&ll).arg("-o").arg(&bitcode))?;
    // The archive serves only the stateless functions openmp-opt adds calls to
    // after the bitcode link (see `corpus::STATELESS_RUNTIME_FUNCTIONS`; kept
    // linked in the bitcode too, the archive is their fallback). With
    // the whole runtime in it, nvlink counted the archive copy's shared
    // statics against kernels that called one of them (a generic kernel went
    // from 216 to 600 bytes of shared memory).
    let stateless = out.join("libompdevice-stateless.bc");
    extract_stateless("--recursive", &bitcode, &stateless)?;
    // With `-foffload-lto` clang links no bitcode at compile time: the whole
    // runtime comes from the archive, in a member of its own that leaves the
    // stateless functions to the member above. Nothing else in it is called
    // from a cubin of the default compile, so nvlink never takes it there.
    let lto_ll = out.join("libompdevice-lto.ll");
    std::fs::write(&lto_ll, ir_rewrite::for_lto(&lto_ir)).map_err(|e| format!("cannot write {}: {e}", lto_ll.display()))?;
    let lto_whole = out.join("libompdevice-lto-whole.bc");
    tools::run(Command::new(tools::llvm_tool("llvm-as")?).arg(&lto_ll).arg("-o").arg(&lto_whole))?;
    let lto = out.join("libompdevice-lto.bc");
    extract_stateless("--delete", &lto_whole, &lto)?;
    let _ = std::fs::remove_file(&lto_whole);
    // flang's module constants, for Fortran programs built at -O0.
    let fortran = fortran_modules::build(&out)?;
    let fortran_runtime = fortran_runtime_member(&fortran_ir, &out)?;
    let archive = out.join("libompdevice.a");
    let _ = std::fs::remove_file(&archive);
    tools::run(Command::new(tools::llvm_tool("llvm-ar")?).arg("rcs").arg(&archive).arg(&stateless).arg(&lto).args(&fortran).arg(&fortran_runtime))?;
    Ok(Artifacts { bitcode, archive, report, fortran, fortran_runtime })
}

/// The Fortran runtime member ([`FORTRAN_RUNTIME_MEMBER`]) from the copy of
/// the runtime built with the `fortran` feature: its `_FortranA*` functions
/// (hidden, as the LTO member's API) and what they use, everything else
/// internal and dropped (`opt -passes=internalize,globaldce`). nvlink takes
/// it only for a program that calls one of them, so a kernel that calls none
/// pays nothing. They keep no per-team state: a shared-memory static in it
/// would be a second copy of the OpenMP runtime's, and fails the build.
fn fortran_runtime_member(ir: &str, out: &Path) -> Result<PathBuf> {
    let libc = fortran_member_c_functions()?;
    let member_api = |n: &str| n.starts_with(FORTRAN_RUNTIME_PREFIX) || libc.iter().any(|f| f == n);
    let api: Vec<String> = abi_table::parse_ll_definitions(ir).into_keys().filter(|n| member_api(n)).collect();
    if !api.iter().any(|n| n.starts_with(FORTRAN_RUNTIME_PREFIX)) {
        return Err("the fortran build of the runtime defines no _FortranA* function".into());
    }
    if let Some(missing) = libc.iter().find(|f| !api.contains(f)) {
        return Err(format!("the fortran build of the runtime does not define {missing} ({LIBM_SOURCE} or {FENV_SOURCE})"));
    }
    // rustc's `@llvm.used` keeps the device environment, which this member
    // must not define.
    let kept: Vec<&str> = ir.lines().filter(|l| !l.starts_with("@llvm.used = ")).collect();
    let whole_ll = out.join("libompdevice-flang-rt-whole.ll");
    std::fs::write(&whole_ll, ir_rewrite::for_lto(&(kept.join("\n") + "\n"))).map_err(|e| format!("cannot write {}: {e}", whole_ll.display()))?;
    let member = out.join(FORTRAN_RUNTIME_MEMBER);
    tools::run(
        Command::new(tools::llvm_tool("opt")?)
            .arg("-passes=internalize,globaldce")
            .arg(format!("-internalize-public-api-list={}", api.join(",")))
            .arg(&whole_ll)
            .arg("-o")
            .arg(&member),
    )?;
    let _ = std::fs::remove_file(&whole_ll);
    let text = tools::disassemble(&member)?;
    let exported: Vec<String> = abi_table::parse_ll_definitions(&text)
        .into_iter()
        .filter(|(_, (_, linkage))| !matches!(linkage.as_str(), "internal" | "private"))
        .map(|(n, _)| n)
        .filter(|n| !member_api(n))
        .collect();
    let shared: Vec<&str> = text.lines().filter(|l| l.starts_with('@') && l.contains("addrspace(3)")).collect();
    if !exported.is_empty() || !shared.is_empty() {
        return Err(format!(
            "the Fortran runtime member must export only _FortranA*, C math and C floating-point environment functions and keep no shared memory: exports {exported:?}, shared {shared:?}"
        ));
    }
    Ok(member)
}

/// The C functions the Fortran runtime member exports beside flang-rt's
/// entry points: `<math.h>`'s ([`LIBM_SOURCE`]) and `<fenv.h>`'s
/// ([`FENV_SOURCE`]).
pub fn fortran_member_c_functions() -> Result<Vec<String>> {
    let mut names = libm_functions()?;
    let fenv = c_functions_in(FENV_SOURCE)?;
    if fenv.len() < 10 {
        return Err(format!("{FENV_SOURCE} defines {} functions; expected the 10 flang 22 calls", fenv.len()));
    }
    names.extend(fenv);
    Ok(names)
}

/// The C math functions, as a list in `from_libm!` and written out.
pub const LIBM_SOURCE: &str = "device-rtl/src/exports/libm.rs";
/// The C floating-point environment functions, written out.
pub const FENV_SOURCE: &str = "device-rtl/src/exports/fenv.rs";

/// The C math functions of [`LIBM_SOURCE`]: the lines `name(arguments) ->
/// result;` of its `from_libm!` list and its functions written out.
fn libm_functions() -> Result<Vec<String>> {
    let names = c_functions_in(LIBM_SOURCE)?;
    if names.len() < 100 {
        return Err(format!("{LIBM_SOURCE} lists {} C math functions; expected the whole of <math.h>'s double and float ones", names.len()));
    }
    Ok(names)
}

/// The functions `source` (under the repository) defines for C: those
/// written out (`extern "C-unwind" fn name(`) and the lines `name(arguments)
/// -> result;` of a list macro, sorted.
fn c_functions_in(source: &str) -> Result<Vec<String>> {
    let path = repo_root().join(source);
    let text = std::fs::read_to_string(&path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    let name_before_paren = |s: &str| s.split_once('(').map(|(n, _)| n.to_string()).filter(|n| !n.is_empty() && n.chars().all(|c| c.is_ascii_alphanumeric() || c == '_'));
    let mut names: Vec<String> = text
        .lines()
        .filter_map(|l| {
            let t = l.trim_start();
            if let Some(rest) = t.split_once("extern \"C-unwind\" fn ").map(|(_, r)| r) {
                name_before_paren(rest)
            } else if l.starts_with("    ") && !l.starts_with("     ") && t.ends_with(';') && t.contains(") -> ") {
                name_before_paren(t)
            } else {
                None
            }
        })
        .collect();
    names.sort();
    names.dedup();
    Ok(names)
}

/// rustc's bitcode of the runtime, built in `target_dir` (under the
/// repository) with `cargo_args`, rewritten ([`ir_rewrite::rewrite`], with
/// `keep` in `@llvm.compiler.used`) and checked against the runtime's memory
/// and visibility rules.
fn runtime_ir(target_dir: &str, cargo_args: &[&str], keep: &[&str]) -> Result<(String, ir_rewrite::RewriteReport)> {
    let root = repo_root();
    let target_dir = root.join(target_dir);
    let mut cargo = Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()));
    cargo
        .current_dir(&root)
        .args(["rustc", "--quiet", "-p", "omprt-device-rtl", "--release", "-Zbuild-std=core"])
        .args(cargo_args)
        .args(["--target", "nvptx64-nvidia-cuda", "--crate-type", "staticlib", "--target-dir"])
        .arg(&target_dir)
        .args(["--", "--emit=llvm-bc"])
        // The host build's RUSTFLAGS (if any) are not for the device.
        .env_remove("RUSTFLAGS")
        .env_remove("CARGO_ENCODED_RUSTFLAGS");
    tools::run(&mut cargo).map_err(|e| {
        format!("{e}\nhint: the device build needs the nightly toolchain with rust-src: run 'bash scripts/setup.sh'")
    })?;
    let bc = newest_bitcode(&target_dir.join("nvptx64-nvidia-cuda/release/deps"))?;
    let ir = tools::disassemble(&bc)?;
    let (ir, report) = ir_rewrite::rewrite(&ir, &CONFIG_GLOBALS, keep)?;
    let is_api = api_checker()?;
    let violations = ir_rewrite::check(&ir, &is_api);
    if !violations.is_empty() {
        let list: Vec<String> = violations.iter().map(|v| format!("  {v:?}")).collect();
        return Err(format!(
            "the device bitcode breaks the runtime's memory/visibility rules:\n{}\n\
             Per-team state must live in a static with #[link_section = \".omprt.shared\"]; a static meant \
             to be one device-wide instance needs #[link_section = \".omprt.device_global\"]; only API \
             symbols may be #[no_mangle].",
            list.join("\n")
        ));
    }
    Ok((ir, report))
}

/// `llvm-extract <mode>` of the stateless runtime functions
/// (`corpus::STATELESS_RUNTIME_FUNCTIONS`) from `input` into `output`:
/// `--recursive` keeps them with what they call, `--delete` keeps the rest.
fn extract_stateless(mode: &str, input: &Path, output: &Path) -> Result<()> {
    let mut extract = Command::new(tools::llvm_tool("llvm-extract")?);
    extract.arg(mode);
    for f in crate::corpus::STATELESS_RUNTIME_FUNCTIONS {
        extract.arg(format!("--func={f}"));
    }
    tools::run(extract.arg(input).arg("-o").arg(output))?;
    Ok(())
}

fn newest_bitcode(dir: &Path) -> Result<PathBuf> {
    let entries = std::fs::read_dir(dir).map_err(|e| format!("cannot read {}: {e}", dir.display()))?;
    entries
        .filter_map(|e| e.ok())
        .map(|e| e.path())
        .filter(|p| {
            p.extension().is_some_and(|x| x == "bc")
                && p.file_name().and_then(|n| n.to_str()).is_some_and(|n| n.starts_with("omprt_device_rtl-"))
        })
        .max_by_key(|p| p.metadata().and_then(|m| m.modified()).ok())
        .ok_or_else(|| format!("rustc produced no omprt_device_rtl-*.bc in {}", dir.display()))
}
