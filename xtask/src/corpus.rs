//! The lowering corpus: OpenMP programs in `tests-gpu/programs`, compiled with
//! clang 22 against omprt the way a user would, at -O0 and -O2.
//!
//! For each program and optimisation level this
//! * builds the offload executable for sm_90 (device link through
//!   `clang-nvlink-wrapper`: an unresolved runtime symbol fails here), and at
//!   -O2 also one with `-foffload-lto`;
//! * compiles the device code for every arch in [`ARCHS`] to a cubin, which
//!   runs ptxas for that arch, and checks the cubin has no undefined symbol
//!   beyond what the CUDA toolchain provides;
//! * records the runtime symbols the program calls, for the ABI check.
//!
//! Fortran programs (`*.f90`) go through flang 22 instead, at the same levels
//! ([`check_fortran_all`]).

use crate::progress::Progress;
use crate::{Result, abi_table, repo_root, runtime_dir, tools};
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::Command;

/// Archs every program must pass ptxas for.
pub const ARCHS: [&str; 3] = ["sm_70", "sm_80", "sm_90"];
/// Arch of the linked executables (the GPUs lent to this project are Hopper).
pub const LINK_ARCH: &str = "sm_90";
/// Archs the project's CUDA folder links (docs/install.md, "Toolkit per
/// architecture"): sm_70 through libnvJitLink, the others through CUDA 13's
/// nvlink (`nvlink/`, the folder's `bin/nvlink`).
pub const SUPPORTED_ARCHS: [&str; 8] = ["sm_70", "sm_75", "sm_80", "sm_86", "sm_89", "sm_90", "sm_100", "sm_120"];
/// The corpus links [`check_archs`] makes for every arch of
/// [`SUPPORTED_ARCHS`] (program, flags): one image from one module (saxpy,
/// also with `-foffload-lto`), the heap and tasks, a -O0 build whose runtime
/// calls stay out of line (the archive's stateless functions: more than one
/// cubin to link), the C library functions (device printf and malloc), and
/// flang at -O0 (the whole runtime and the module constants from the archive).
/// About 80 s on two cores for the eight archs.
pub const ARCH_LINKS: [(&str, &str); 6] = [
    ("saxpy.c", "-O2"),
    ("saxpy.c", "-O2 -foffload-lto"),
    ("tasks.c", "-O2"),
    ("generic_regions.c", "-O0"),
    ("device_libc.c", "-O2"),
    ("fortran_regions.f90", "-O0"),
];
pub const OPT_LEVELS: [&str; 2] = ["-O0", "-O2"];
/// Undefined symbols a cubin may keep: the CUDA toolchain resolves them
/// (device printf and heap, nvlink's per-arch tables on sm_90, and the
/// `extern __shared__` array of dynamic shared memory, which every object
/// declares and the launch sizes).
fn cuda_provided(name: &str) -> bool {
    matches!(name, "vprintf" | "malloc" | "free")
        || name == crate::ir_rewrite::DYNAMIC_SHARED
        || name.starts_with("__UDT")
        || name.starts_with("__UFT")
        || name.starts_with(".nv.")
}

pub struct Options {
    pub programs: PathBuf,
    pub out: PathBuf,
}

impl Default for Options {
    fn default() -> Self {
        Options { programs: repo_root().join("tests-gpu/programs"), out: repo_root().join("target/omprt/corpus") }
    }
}

/// One program at one optimisation level.
#[derive(Debug)]
pub struct Build {
    pub program: String,
    pub opt: String,
    pub executable: PathBuf,
    /// Runtime entry points the device code calls.
    pub needed: BTreeSet<String>,
    /// flang-rt's entry points (`_FortranA*`) flang's device code calls
    /// (empty for C and C++).
    pub fortran_runtime: BTreeSet<String>,
    /// (arch, error) for each arch that failed.
    pub failures: Vec<(String, String)>,
}

pub struct Summary {
    pub builds: Vec<Build>,
}

impl Summary {
    pub fn ok(&self) -> bool {
        self.builds.iter().all(|b| b.failures.is_empty())
    }
    pub fn needed_symbols(&self) -> BTreeSet<String> {
        self.builds.iter().flat_map(|b| b.needed.iter().cloned()).collect()
    }
    pub fn render(&self) -> String {
        let mut s = String::new();
        for b in &self.builds {
            let status = if b.failures.is_empty() { "ok".to_string() } else { "FAILED".to_string() };
            if b.opt.starts_with("sm_") {
                s += &format!("{:<20} link {}: {status}\n", b.program, b.opt);
            } else if b.program.ends_with('/') {
                s += &format!("{:<20} {:<4} link {LINK_ARCH} -foffload-lto, files compiled apart: {status}\n", b.program, b.opt);
            } else {
                let lto = if b.program.ends_with(".f90") { "" } else { " (and -foffload-lto)" };
                s += &format!("{:<20} {:<4} link {LINK_ARCH}{lto} + ptxas {}: {status}\n", b.program, b.opt, ARCHS.join("/"));
            }
            for (what, err) in &b.failures {
                s += &format!("    {what}: {}\n", err.lines().take(12).collect::<Vec<_>>().join("\n    "));
            }
        }
        s
    }
}

/// The programs of the corpus (`*.c`, `*.cpp`), sorted.
pub fn programs(dir: &Path) -> Result<Vec<PathBuf>> {
    files_ending(dir, &["c", "cpp"])
}

/// The Fortran programs of the corpus (`*.f90`), sorted: flang lowers their
/// loops through the OpenMPIRBuilder (`__kmpc_*_static_loop_*`), which clang
/// does not.
pub fn fortran_programs(dir: &Path) -> Result<Vec<PathBuf>> {
    files_ending(dir, &["f90"])
}

/// The multi-file programs of the corpus, sorted: each folder of `dir`,
/// whose C files are compiled one by one and linked into one program.
pub fn multi_file_programs(dir: &Path) -> Result<Vec<PathBuf>> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(dir)
        .map_err(|e| format!("cannot read {}: {e}", dir.display()))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.is_dir())
        .collect();
    v.sort();
    Ok(v)
}

fn files_ending(dir: &Path, extensions: &[&str]) -> Result<Vec<PathBuf>> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(dir)
        .map_err(|e| format!("cannot read {}: {e}", dir.display()))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| extensions.iter().any(|e| x == *e)))
        .collect();
    v.sort();
    Ok(v)
}

/// The flags a user passes to build against omprt without installing it
/// (the `omprt flags` CLI's), once the CUDA folder is known to exist.
pub fn user_flags(arch: &str) -> Result<Vec<String>> {
    tools::cuda_path()?;
    omprt_host::Layout::of_this_checkout().clang_flags(arch)
}

fn compiler_for(src: &Path) -> Result<PathBuf> {
    Ok(driver_for(&tools::clang()?, src))
}

/// The driver beside `clang` that compiles and links `src`: `clang++` for a
/// C++ program, which links the C++ library.
pub fn driver_for(clang: &Path, src: &Path) -> PathBuf {
    if src.extension().is_some_and(|x| x == "cpp") { clang.with_file_name("clang++") } else { clang.to_path_buf() }
}

/// Compiles and links `src` at `opt` into `out/<name>.<opt>`.
pub fn build_executable(src: &Path, opt: &str, out: &Path) -> Result<PathBuf> {
    let name = src.file_stem().unwrap().to_string_lossy();
    let exe = out.join(format!("{name}.{}", opt.trim_start_matches('-')));
    tools::run(Command::new(compiler_for(src)?).arg(opt).args(user_flags(LINK_ARCH)?).arg(src).arg("-o").arg(&exe))?;
    Ok(exe)
}

/// The sm_90 PTX clang's `-c` compile of `src` at `opt` makes, written to
/// `ptx`. Not `-save-temps`: that splits the device compile into two steps,
/// and both link the runtime bitcode in (two copies of every runtime
/// function), which changes what openmp-opt folds: the distribute chunk
/// clang asks `__kmpc_get_hardware_num_threads_in_block` for stayed a
/// division by `%ntid.x` in sched.c's kernels, where the real compile
/// divides by the constant 128 (a shift). So this replays the driver's own
/// commands (`-###`): the host step that writes the IR the device step
/// reads, then the device step, with its output redirected.
pub fn device_ptx(src: &Path, opt: &str, ptx: &Path) -> Result<String> {
    let listing = tools::run(
        Command::new(compiler_for(src)?).arg(opt).args(user_flags(LINK_ARCH)?).args(["-c", "-###"]).arg(src).arg("-o").arg(ptx.with_extension("o")),
    )?;
    let text = String::from_utf8_lossy(&listing.stderr).into_owned() + &String::from_utf8_lossy(&listing.stdout);
    let commands: Vec<Vec<String>> = text.lines().filter(|l| l.starts_with(" \"")).map(split_quoted).collect();
    let host = commands
        .iter()
        .find(|c| c.iter().any(|a| a == "-emit-llvm-bc") && !c.iter().any(|a| a.starts_with("nvptx64")))
        .ok_or_else(|| format!("no host IR step in clang's -### listing:\n{text}"))?;
    let device = commands
        .iter()
        .find(|c| c.iter().any(|a| a == "nvptx64-nvidia-cuda") && c.iter().any(|a| a == "-S"))
        .ok_or_else(|| format!("no device PTX step in clang's -### listing:\n{text}"))?;
    tools::run(Command::new(&host[0]).args(&host[1..]))?;
    let mut args = device[1..].to_vec();
    let at = args.iter().position(|a| a == "-o").ok_or("the device step has no -o")?;
    args[at + 1] = ptx.to_string_lossy().into_owned();
    let compiled = tools::run(Command::new(&device[0]).args(&args));
    // The host step's IR is a temporary of the driver's, which it would delete.
    if let Some(at) = host.iter().position(|a| a == "-o") {
        let _ = std::fs::remove_file(&host[at + 1]);
    }
    compiled?;
    std::fs::read_to_string(ptx).map_err(|e| format!("{}: {e}", ptx.display()))
}

/// The arguments of one line of clang's `-###` listing: each one in double
/// quotes, a backslash escaping the next character.
fn split_quoted(line: &str) -> Vec<String> {
    let mut args = Vec::new();
    let mut chars = line.chars();
    while let Some(c) = chars.next() {
        if c != '"' {
            continue;
        }
        let mut arg = String::new();
        while let Some(c) = chars.next() {
            match c {
                '\\' => arg.extend(chars.next()),
                '"' => break,
                _ => arg.push(c),
            }
        }
        args.push(arg);
    }
    args
}

/// Compiles and links `src` at -O2 with `-foffload-lto` into
/// `out/<name>.O2lto`: the device code stays bitcode until the link, and the
/// runtime comes from `libompdevice.a` alone.
pub fn build_lto_executable(src: &Path, out: &Path) -> Result<PathBuf> {
    build_lto_executable_at(src, "-O2", out)
}

/// [`build_lto_executable`] at `opt`, into `out/<name>.<opt>lto`. At -O0 the
/// LTO link inlines nothing, and every region goes through the archive's
/// out-of-line `__kmpc_parallel_60`.
pub fn build_lto_executable_at(src: &Path, opt: &str, out: &Path) -> Result<PathBuf> {
    let name = src.file_stem().unwrap().to_string_lossy();
    let exe = out.join(format!("{name}.{}lto", opt.trim_start_matches('-')));
    tools::run(Command::new(compiler_for(src)?).args([opt, "-foffload-lto"]).args(user_flags(LINK_ARCH)?).arg(src).arg("-o").arg(&exe))?;
    Ok(exe)
}

/// The largest captured-variable count of the `__kmpc_parallel_60` calls in
/// device IR (`i64 <n>`, the call's ninth argument), or `None` without any
/// call with a constant count.
pub fn most_region_arguments(device_ir: &str) -> Option<i64> {
    device_ir
        .lines()
        .filter_map(|l| l.split_once("call void @__kmpc_parallel_60(").map(|(_, args)| args))
        .filter_map(|args| args.split(", ").nth(8)?.strip_prefix("i64 ")?.parse().ok())
        .max()
}

/// A failure when a region of `src`'s -O0 device IR (left in `out` by
/// [`device_declarations`]) passes more captured variables than the
/// archive's out-of-line `__kmpc_parallel_60` takes: the `-O0 -foffload-lto`
/// build would trap there. Other levels inline every region.
fn check_out_of_line_region_arguments(src: &Path, opt: &str, out: &Path) -> Result<()> {
    if opt != "-O0" {
        return Ok(());
    }
    let ll = device_ir_path(src, opt, out);
    let text = std::fs::read_to_string(&ll).map_err(|e| format!("cannot read {}: {e}", ll.display()))?;
    match most_region_arguments(&text) {
        Some(n) if n > omprt_abi::MAX_OUT_OF_LINE_REGION_ARGS => Err(format!(
            "{}: a parallel region passes {n} captured variables, more than the {} the out-of-line __kmpc_parallel_60 takes (it traps at -O0 -foffload-lto)",
            ll.display(),
            omprt_abi::MAX_OUT_OF_LINE_REGION_ARGS
        )),
        _ => Ok(()),
    }
}

/// Compiles each C file of `folder` on its own (`-c`) and links the objects,
/// at `opt` with `-foffload-lto`, into `out/<folder>.<opt>lto`. The LTO link
/// gives every file the one copy of the runtime; clang's default compile
/// gives each file its own, with its own team state (README, separate
/// compilation).
pub fn build_multi_file_lto_executable(folder: &Path, opt: &str, out: &Path) -> Result<PathBuf> {
    let name = folder.file_name().unwrap().to_string_lossy();
    let level = opt.trim_start_matches('-');
    let mut objects = Vec::new();
    for src in files_ending(folder, &["c"])? {
        let stem = src.file_stem().unwrap().to_string_lossy();
        let obj = out.join(format!("{name}-{stem}.{level}lto.o"));
        tools::run(Command::new(tools::clang()?).args([opt, "-foffload-lto", "-c"]).args(user_flags(LINK_ARCH)?).arg(&src).arg("-o").arg(&obj))?;
        objects.push(obj);
    }
    let exe = out.join(format!("{name}.{level}lto"));
    tools::run(Command::new(tools::clang()?).args([opt, "-foffload-lto"]).args(user_flags(LINK_ARCH)?).args(&objects).arg("-o").arg(&exe))?;
    Ok(exe)
}

/// Runtime functions a cubin may leave for `libompdevice.a`: they keep no
/// state. A function resolved from the archive at device link runs with the
/// archive's own (internal) copy of the team state, so one that reads or
/// writes team state must be in the TU already (see
/// `device-rtl/src/exports/kernel.rs`, `worker_state_machine`). The bitcode also
/// lists them in `@llvm.compiler.used` (`ir_rewrite::KEEP_LINKED`), so the
/// calls openmp-opt adds to them resolve, and are inlined, in the TU; the
/// archive stays the fallback.
pub const STATELESS_RUNTIME_FUNCTIONS: &[&str] = &[
    "__kmpc_get_hardware_thread_id_in_block",
    "__kmpc_get_hardware_num_threads_in_block",
    "__kmpc_get_hardware_num_blocks",
    "__kmpc_get_warp_size",
    "__kmpc_barrier_simple_spmd",
    "__kmpc_barrier_simple_generic",
    "__kmpc_syncwarp",
    "__kmpc_warp_active_thread_mask",
];

/// Compiles the device side of `src` for `arch` into a cubin (runs ptxas) and
/// checks every symbol it leaves undefined: provided by the CUDA toolchain,
/// or a stateless runtime function that nvlink takes from `libompdevice.a`
/// (calls openmp-opt adds after the compile-time bitcode link stay undefined
/// in the cubin). A stateful one would see a second copy of the team state.
pub fn check_device_object(src: &Path, opt: &str, arch: &str, out: &Path, runtime_exports: &BTreeSet<String>) -> Result<()> {
    let name = src.file_stem().unwrap().to_string_lossy();
    let obj = out.join(format!("{name}.{}.{arch}.cubin", opt.trim_start_matches('-')));
    tools::run(
        Command::new(compiler_for(src)?)
            .arg(opt)
            .args(user_flags(arch)?)
            .args(["--offload-device-only", "-c"])
            .arg(src)
            .arg("-o")
            .arg(&obj),
    )?;
    let undefined: Vec<String> = undefined_symbols(&obj)?
        .into_iter()
        .filter(|s| !cuda_provided(s) && !(runtime_exports.contains(s) && STATELESS_RUNTIME_FUNCTIONS.contains(&s.as_str())))
        .collect();
    if undefined.is_empty() {
        Ok(())
    } else {
        Err(format!(
            "the {arch} cubin leaves {undefined:?} to the device link: stateful runtime functions taken from \
             libompdevice.a would use a second copy of the team state"
        ))
    }
}

/// The symbols the cubin `obj` leaves undefined (`llvm-readelf -s`).
fn undefined_symbols(obj: &Path) -> Result<Vec<String>> {
    let syms = tools::run(Command::new(tools::llvm_tool("llvm-readelf")?).args(["-s", "-W"]).arg(obj))?;
    Ok(String::from_utf8_lossy(&syms.stdout)
        .lines()
        .filter(|l| l.contains(" UND ") && !l.trim_end().ends_with("UND"))
        .filter_map(|l| l.split_whitespace().last().map(str::to_string))
        .collect())
}

/// Runtime symbols the device code of `src` calls (its external declarations
/// before the runtime is linked in).
pub fn needed_symbols(src: &Path, opt: &str, out: &Path) -> Result<BTreeSet<String>> {
    Ok(device_declarations(src, opt, out)?.into_keys().filter(|n| is_runtime_symbol(n)).collect())
}

/// The functions the device code of `src` declares, with clang's types.
pub fn device_declarations(src: &Path, opt: &str, out: &Path) -> Result<BTreeMap<String, abi_table::LlvmFnType>> {
    let mut clang = Command::new(compiler_for(src)?);
    clang
        .arg(opt)
        .args(["-fopenmp", "--offload-arch=sm_90", "-nogpulib", "--offload-device-only", "-emit-llvm", "-S"])
        .arg(format!("--cuda-path={}", tools::cuda_path()?.display()));
    declarations_in_device_ir(clang, src, opt, out)
}

/// Runs `compile` (a device-only `-emit-llvm -S` of `src` at `opt`) into
/// `out/<name>.<opt>.device.ll` and returns the functions that IR declares.
fn declarations_in_device_ir(mut compile: Command, src: &Path, opt: &str, out: &Path) -> Result<BTreeMap<String, abi_table::LlvmFnType>> {
    let ll = device_ir_path(src, opt, out);
    tools::run(compile.arg(src).arg("-o").arg(&ll))?;
    let text = std::fs::read_to_string(&ll).map_err(|e| format!("cannot read {}: {e}", ll.display()))?;
    Ok(abi_table::parse_ll_declarations(&text))
}

/// Where [`device_declarations`] leaves the device IR of `src` at `opt`.
fn device_ir_path(src: &Path, opt: &str, out: &Path) -> PathBuf {
    let name = src.file_stem().unwrap().to_string_lossy();
    out.join(format!("{name}.{}.device.ll", opt.trim_start_matches('-')))
}

/// Names the OpenMP device runtime (not libc, CUDA or LLVM) must provide.
pub fn is_runtime_symbol(name: &str) -> bool {
    ["__kmpc_", "omp_", "ompx_", "llvm_omp_", "__llvm_omp_"].iter().any(|p| name.starts_with(p))
}

/// Builds every program of the corpus at every level and arch.
pub fn check_all(opts: &Options) -> Result<Summary> {
    std::fs::create_dir_all(&opts.out).map_err(|e| format!("cannot create {}: {e}", opts.out.display()))?;
    let runtime_exports = runtime_exports()?;
    let mut builds = Vec::new();
    let sources = programs(&opts.programs)?;
    let progress = Progress::new("corpus", sources.len() * OPT_LEVELS.len());
    for src in sources {
        for opt in OPT_LEVELS {
            let program = src.file_name().unwrap().to_string_lossy().to_string();
            progress.item(&format!("{program} {opt}"));
            let mut failures = Vec::new();
            let executable = match build_executable(&src, opt, &opts.out) {
                Ok(exe) => exe,
                Err(e) => {
                    failures.push((format!("link {LINK_ARCH}"), e));
                    PathBuf::new()
                }
            };
            for arch in ARCHS {
                if let Err(e) = check_device_object(&src, opt, arch, &opts.out, &runtime_exports) {
                    failures.push((format!("ptxas {arch}"), e));
                }
            }
            if let Err(e) = build_lto_executable_at(&src, opt, &opts.out) {
                failures.push((format!("link {LINK_ARCH} -foffload-lto"), e));
            }
            let needed = match needed_symbols(&src, opt, &opts.out) {
                Ok(n) => n,
                Err(e) => {
                    failures.push(("device IR".into(), e));
                    BTreeSet::new()
                }
            };
            if let Err(e) = check_out_of_line_region_arguments(&src, opt, &opts.out) {
                failures.push(("regions called out of line".into(), e));
            }
            builds.push(Build { program, opt: opt.to_string(), executable, needed, fortran_runtime: BTreeSet::new(), failures });
        }
    }
    progress.finish();
    Ok(Summary { builds })
}

/// Builds every multi-file program of the corpus (`multi_file_programs`)
/// with `-foffload-lto` at each level; each build's program is its folder's
/// name and a `/`.
pub fn check_multi_file_all(opts: &Options) -> Result<Summary> {
    std::fs::create_dir_all(&opts.out).map_err(|e| format!("cannot create {}: {e}", opts.out.display()))?;
    let mut builds = Vec::new();
    let folders = multi_file_programs(&opts.programs)?;
    let progress = Progress::new("corpus (multi-file)", folders.len() * OPT_LEVELS.len());
    for folder in folders {
        for opt in OPT_LEVELS {
            let program = format!("{}/", folder.file_name().unwrap().to_string_lossy());
            progress.item(&format!("{program} {opt} -foffload-lto"));
            let mut failures = Vec::new();
            let executable = build_multi_file_lto_executable(&folder, opt, &opts.out).unwrap_or_else(|e| {
                failures.push((format!("link {LINK_ARCH} -foffload-lto"), e));
                PathBuf::new()
            });
            let mut needed = BTreeSet::new();
            for src in files_ending(&folder, &["c"])? {
                match needed_symbols(&src, opt, &opts.out) {
                    Ok(n) => needed.extend(n),
                    Err(e) => failures.push(("device IR".into(), e)),
                }
                if let Err(e) = check_out_of_line_region_arguments(&src, opt, &opts.out) {
                    failures.push(("regions called out of line".into(), e));
                }
            }
            builds.push(Build { program, opt: opt.to_string(), executable, needed, fortran_runtime: BTreeSet::new(), failures });
        }
    }
    progress.finish();
    Ok(Summary { builds })
}

/// The flags that make flang 22 call C's math functions for Fortran's
/// elemental functions instead of LLVM's math intrinsics, which the NVPTX
/// back end cannot compile (`no libcall available for fexp`): the device
/// link takes them from the runtime's Fortran member
/// (`device-rtl/src/exports/libm.rs`). Every Fortran build of the corpus
/// uses them, as docs/fortran-runtime.md tells users to.
pub const FLANG_MATH_FLAGS: [&str; 2] = ["-mllvm", "-math-runtime=precise"];

/// `flang-22 <opt> -fopenmp --offload-arch=<arch>` against omprt, for the
/// program `src` with outputs in `out`. flang's driver takes neither
/// `--cuda-path` nor `--libomptarget-nvptx-bc-path`: it finds CUDA through
/// the `ptxas` on PATH, and links no runtime bitcode at compile time, so the
/// whole runtime comes from `libompdevice.a` at the device link (its LTO
/// member: one copy of the team state for every call; its Fortran runtime
/// member for flang-rt's entry points). The `.mod` files of the program's
/// modules go to a folder of that compile's own (`-J`), not the working
/// directory.
fn flang_command(src: &Path, opt: &str, arch: &str, out: &Path) -> Result<Command> {
    let name = src.file_stem().unwrap().to_string_lossy();
    let modules = out.join(format!("{name}.{}.{arch}.modules", opt.trim_start_matches('-')));
    std::fs::create_dir_all(&modules).map_err(|e| format!("cannot create {}: {e}", modules.display()))?;
    let mut c = flang_with_cuda_on_path()?;
    c.arg(opt).args(flang_user_flags(arch)).arg("-J").arg(modules);
    Ok(c)
}

/// What every Fortran build of the corpus passes flang to offload to `arch`
/// against this checkout's runtime: [`FLANG_MATH_FLAGS`], OpenMP for the
/// arch, and the runtime's folder for the device link (flang's counterpart
/// of [`user_flags`]).
fn flang_user_flags(arch: &str) -> Vec<String> {
    let mut flags: Vec<String> = FLANG_MATH_FLAGS.iter().map(|f| f.to_string()).collect();
    flags.extend(["-fopenmp".to_string(), format!("--offload-arch={arch}"), "-Xoffload-linker".to_string()]);
    flags.push(format!("-L{}", runtime_dir().display()));
    flags
}

/// flang 22 with the CUDA folder's `bin` first on PATH: where flang finds
/// CUDA (without it, flang assumes a PTX version no current arch accepts).
pub fn flang_with_cuda_on_path() -> Result<Command> {
    let cuda_bin = tools::cuda_path()?.join("bin");
    let path = std::env::var_os("PATH").unwrap_or_default();
    let path = std::env::join_paths(std::iter::once(cuda_bin).chain(std::env::split_paths(&path)))
        .map_err(|e| format!("cannot put the CUDA folder on PATH: {e}"))?;
    let mut c = Command::new(tools::flang()?);
    c.env("PATH", path);
    Ok(c)
}

/// Compiles and links the Fortran program `src` at `opt` into
/// `out/<name>.<opt>` (flang has no `-foffload-lto`).
pub fn build_fortran_executable(src: &Path, opt: &str, out: &Path) -> Result<PathBuf> {
    let name = src.file_stem().unwrap().to_string_lossy();
    let exe = out.join(format!("{name}.{}", opt.trim_start_matches('-')));
    tools::run(flang_command(src, opt, LINK_ARCH, out)?.arg(src).arg("-o").arg(&exe))?;
    Ok(exe)
}

/// Compiles the device side of the Fortran program `src` for `arch` into a
/// cubin (runs ptxas on flang's code; the runtime is compiled at the device
/// link, which the corpus makes for `LINK_ARCH` and [`check_archs`] for every
/// supported arch) and checks that every
/// symbol it leaves undefined is the CUDA toolchain's or one omprt exports
/// (its runtime's, or a module constant of its Fortran member).
pub fn check_fortran_device_object(src: &Path, opt: &str, arch: &str, out: &Path, runtime_exports: &BTreeSet<String>) -> Result<()> {
    let name = src.file_stem().unwrap().to_string_lossy();
    let obj = out.join(format!("{name}.{}.{arch}.cubin", opt.trim_start_matches('-')));
    tools::run(flang_command(src, opt, arch, out)?.args(["--offload-device-only", "-c"]).arg(src).arg("-o").arg(&obj))?;
    let unknown: Vec<String> = undefined_symbols(&obj)?.into_iter().filter(|s| !cuda_provided(s) && !runtime_exports.contains(s)).collect();
    if unknown.is_empty() { Ok(()) } else { Err(format!("the {arch} cubin calls {unknown:?}, which omprt does not define")) }
}

/// The runtime functions flang's device code of `src` declares (OpenMP's
/// and flang-rt's), with the types it calls them with.
pub fn fortran_declarations(src: &Path, opt: &str, out: &Path) -> Result<BTreeMap<String, abi_table::LlvmFnType>> {
    let mut flang = flang_command(src, opt, LINK_ARCH, out)?;
    flang.args(["--offload-device-only", "-emit-llvm", "-S"]);
    Ok(declarations_in_device_ir(flang, src, opt, out)?.into_iter().filter(|(n, _)| is_runtime_symbol(n) || is_fortran_runtime_symbol(n)).collect())
}

/// flang-rt's entry points (`_FortranA*`), which the archive's Fortran
/// runtime member provides.
pub fn is_fortran_runtime_symbol(name: &str) -> bool {
    name.starts_with(crate::device_build::FORTRAN_RUNTIME_PREFIX)
}

/// The non-internal functions of the archive's Fortran runtime member, with
/// their types.
pub fn fortran_runtime_definitions() -> Result<BTreeMap<String, (abi_table::LlvmFnType, String)>> {
    let member = runtime_dir().join(crate::device_build::FORTRAN_RUNTIME_MEMBER);
    if !member.is_file() {
        return Err(format!("{} is missing: run 'cargo xtask build-device'", member.display()));
    }
    Ok(abi_table::parse_ll_definitions(&tools::disassemble(&member)?)
        .into_iter()
        .filter(|(_, (_, linkage))| !matches!(linkage.as_str(), "internal" | "private"))
        .collect())
}

/// Builds every Fortran program of the corpus at every level: the sm_90 link,
/// ptxas for every arch, and each runtime function flang declares defined by
/// omprt with the very type flang calls it with (a wrong arity or width
/// would pass the link and misread the arguments).
pub fn check_fortran_all(opts: &Options) -> Result<Summary> {
    std::fs::create_dir_all(&opts.out).map_err(|e| format!("cannot create {}: {e}", opts.out.display()))?;
    let ir = tools::disassemble(&runtime_dir().join("libomptarget-nvptx.bc"))?;
    let mut runtime_exports = exports_of(&ir);
    // flang's module constants, from the archive's Fortran member.
    let fortran_member = runtime_dir().join("libompdevice-fortran.bc");
    if !fortran_member.is_file() {
        return Err(format!("{} is missing: run 'cargo xtask build-device' with flang-22 installed", fortran_member.display()));
    }
    runtime_exports.extend(crate::fortran_modules::defined_constants(&fortran_member)?);
    // flang-rt's entry points, from the archive's Fortran runtime member.
    let fortran_runtime = fortran_runtime_definitions()?;
    runtime_exports.extend(fortran_runtime.keys().cloned());
    let mut definitions = abi_table::parse_ll_definitions(&ir);
    definitions.extend(fortran_runtime);
    let mut builds = Vec::new();
    let sources = fortran_programs(&opts.programs)?;
    let progress = Progress::new("corpus (Fortran)", sources.len() * OPT_LEVELS.len());
    for src in sources {
        for opt in OPT_LEVELS {
            let program = src.file_name().unwrap().to_string_lossy().to_string();
            progress.item(&format!("{program} {opt}"));
            let mut failures = Vec::new();
            let executable = build_fortran_executable(&src, opt, &opts.out).unwrap_or_else(|e| {
                failures.push((format!("link {LINK_ARCH}"), e));
                PathBuf::new()
            });
            for arch in ARCHS {
                if let Err(e) = check_fortran_device_object(&src, opt, arch, &opts.out, &runtime_exports) {
                    failures.push((format!("ptxas {arch}"), e));
                }
            }
            let (needed, fortran_runtime) = match fortran_declarations(&src, opt, &opts.out) {
                Ok(declared) => {
                    let wrong = abi_table::declaration_mismatches(&declared, &definitions);
                    if !wrong.is_empty() {
                        failures.push(("types".into(), wrong.join("\n")));
                    }
                    declared.into_keys().partition(|n: &String| !is_fortran_runtime_symbol(n))
                }
                Err(e) => {
                    failures.push(("device IR".into(), e));
                    (BTreeSet::new(), BTreeSet::new())
                }
            };
            builds.push(Build { program, opt: opt.to_string(), executable, needed, fortran_runtime, failures });
        }
    }
    progress.finish();
    Ok(Summary { builds })
}

/// Links `src` (C, C++ or Fortran) with `flags` for `arch` into
/// `out/<name>.<arch><flags without spaces>` and checks that its one device
/// image is a cubin for `arch`.
pub fn link_for_arch(src: &Path, flags: &str, arch: &str, out: &Path) -> Result<PathBuf> {
    let name = src.file_stem().unwrap().to_string_lossy();
    let exe = out.join(format!("{name}.{arch}{}", flags.replace(' ', "")));
    let mut cmd = if src.extension().is_some_and(|x| x == "f90") {
        let mut c = flang_with_cuda_on_path()?;
        c.args(flags.split_whitespace()).args(flang_user_flags(arch));
        c
    } else {
        let mut c = Command::new(compiler_for(src)?);
        c.args(flags.split_whitespace()).args(user_flags(arch)?);
        c
    };
    tools::run(cmd.arg(src).arg("-o").arg(&exe))?;
    let data = std::fs::read(&exe).map_err(|e| format!("cannot read {}: {e}", exe.display()))?;
    let input = omprt_host::image::read(&data).map_err(|e| format!("{}: {e}", exe.display()))?;
    let [image] = input.images.as_slice() else {
        return Err(format!("{}: {} device images, expected one", exe.display(), input.images.len()));
    };
    let sm = match image.cubin() {
        Some(Ok(cubin)) => cubin.sm,
        Some(Err(e)) => return Err(format!("{}: {e}", exe.display())),
        None => return Err(format!("{}: the device image is not a cubin", exe.display())),
    };
    if image.arch != arch || format!("sm_{sm}") != arch {
        return Err(format!("{}: an image for {} whose cubin is for sm_{sm}, expected {arch}", exe.display(), image.arch));
    }
    Ok(exe)
}

/// Links [`ARCH_LINKS`] for every arch of [`SUPPORTED_ARCHS`]; each build's
/// `opt` is `<arch> <flags>`.
pub fn check_archs(opts: &Options) -> Result<Summary> {
    let out = opts.out.join("archs");
    std::fs::create_dir_all(&out).map_err(|e| format!("cannot create {}: {e}", out.display()))?;
    let progress = Progress::new("corpus (archs)", SUPPORTED_ARCHS.len() * ARCH_LINKS.len());
    let mut builds = Vec::new();
    for arch in SUPPORTED_ARCHS {
        for (program, flags) in ARCH_LINKS {
            progress.item(&format!("{program} {flags} {arch}"));
            let mut failures = Vec::new();
            let executable = link_for_arch(&opts.programs.join(program), flags, arch, &out).unwrap_or_else(|e| {
                failures.push((format!("link {arch}"), e));
                PathBuf::new()
            });
            builds.push(Build { program: program.to_string(), opt: format!("{arch} {flags}"), executable, needed: BTreeSet::new(), fortran_runtime: BTreeSet::new(), failures });
        }
    }
    Ok(Summary { builds })
}

/// Non-internal functions and globals the runtime bitcode defines.
pub fn runtime_exports() -> Result<BTreeSet<String>> {
    Ok(exports_of(&tools::disassemble(&runtime_dir().join("libomptarget-nvptx.bc"))?))
}

/// [`runtime_exports`] of the runtime's disassembled IR.
fn exports_of(ir: &str) -> BTreeSet<String> {
    let mut names: BTreeSet<String> = abi_table::parse_ll_definitions(ir)
        .into_iter()
        .filter(|(_, (_, linkage))| !matches!(linkage.as_str(), "internal" | "private"))
        .map(|(n, _)| n)
        .collect();
    names.extend(ir.lines().filter_map(crate::ir_rewrite::global_name));
    names
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn driver_listing_lines_split_into_arguments() {
        let line = r#" "/usr/bin/clang" "-cc1" "-o" "/tmp/a b.s" "-DX=\"y\"" "back\\slash""#;
        assert_eq!(split_quoted(line), ["/usr/bin/clang", "-cc1", "-o", "/tmp/a b.s", "-DX=\"y\"", "back\\slash"]);
    }

    #[test]
    fn the_largest_region_argument_count_is_read_from_clangs_calls() {
        let ir = "  call void @__kmpc_parallel_60(ptr @1, i32 %16, i32 1, i32 64, i32 -1, ptr @f, ptr null, ptr %11, i64 3, i32 0)\n\
                  call void @__kmpc_parallel_60(ptr @1, i32 %2, i32 1, i32 -1, i32 -1, ptr @g, ptr @g_wrapper, ptr %5, i64 12, i32 0)\n\
                  call void @__kmpc_barrier(ptr @1, i32 %2)\n";
        assert_eq!(most_region_arguments(ir), Some(12));
        assert_eq!(most_region_arguments("  call void @__kmpc_barrier(ptr @1, i32 0)\n"), None);
        let dir = std::env::temp_dir();
        let src = dir.join(format!("omprt-region-arguments-{}.c", std::process::id()));
        let ll = device_ir_path(&src, "-O0", &dir);
        std::fs::write(&ll, ir).unwrap();
        let failure = check_out_of_line_region_arguments(&src, "-O0", &dir);
        let inlined = check_out_of_line_region_arguments(&src, "-O2", &dir);
        std::fs::write(&ll, ir.replace("i64 12", "i64 11")).unwrap();
        let eleven = check_out_of_line_region_arguments(&src, "-O0", &dir);
        let _ = std::fs::remove_file(&ll);
        assert!(failure.is_err_and(|e| e.contains("passes 12 captured variables")));
        assert!(inlined.is_ok() && eleven.is_ok());
    }
}
