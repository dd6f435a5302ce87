//! Checks the repr(C) types of `omprt-abi` against the struct types that
//! clang 22 really emits for an OpenMP program: device IR for nvptx64
//! (sm_90) and host IR for the x86-64 side.
//!
//! The static assertions in the crate pin the sizes we believe in; this test
//! ties those beliefs to the compiler. It needs clang 22 and fails (never
//! skips) without it, because a silent pass would hide ABI drift.

use omprt_abi::host::{KernelArgs, OffloadEntry, KERNEL_ARGS_VERSION};
use omprt_abi::symbols::{DYNAMIC_ENVIRONMENT_SUFFIX, KERNEL_ENVIRONMENT_SUFFIX, KERNEL_PREFIX};
use omprt_abi::task::{KmpTask, KmpTaskLoop};
use omprt_abi::{
    ConfigurationEnvironment, DeviceEnvironment, DynamicEnvironment, ExecMode, Ident, KernelEnvironment,
    KernelLaunchEnvironment,
};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

mod common;
use common::{assert_same_layout, parse_ty, struct_defs, struct_layout, RustLayout, Ty};

/// One kernel with a teams reduction (SPMD, launch environment) and one plain
/// `target` region (generic mode), so both flavours of kernel environment appear.
const PROGRAM: &str = r#"
double sum(const double *a, int n) {
  double s = 0;
#pragma omp target teams distribute parallel for reduction(+:s) map(to: a[0:n])
  for (int i = 0; i < n; i++)
    s += a[i];
  return s;
}

int answer(void) {
  int x = 0;
#pragma omp target map(tofrom: x)
  { x = 42; }
  return x;
}
"#;

/// A `task` and a `taskloop`, for clang's two `kmp_task_t` types.
const TASK_PROGRAM: &str = r#"
int tasks(void) {
  int s = 0, last = 0;
#pragma omp target map(tofrom: s, last)
  {
#pragma omp task shared(s)
    s += 1;
#pragma omp taskloop lastprivate(last)
    for (int i = 0; i < 4; i++)
      last = i;
  }
  return s + last;
}
"#;

// ---------------------------------------------------------------------------
// Running clang

fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap().to_path_buf()
}

fn clang() -> PathBuf {
    let on_path = std::env::var_os("PATH")
        .into_iter()
        .flat_map(|p| std::env::split_paths(&p).collect::<Vec<_>>())
        .map(|d| d.join("clang-22"))
        .find(|p| p.is_file());
    let found = on_path.or_else(|| Some(PathBuf::from("/usr/lib/llvm-22/bin/clang")).filter(|p| p.is_file()));
    let Some(clang) = found else {
        panic!("clang-22 not found on PATH: run 'bash scripts/setup.sh' (as root) to install clang 22");
    };
    let out = Command::new(&clang).arg("--version").output().expect("cannot run clang-22 --version");
    let version = String::from_utf8_lossy(&out.stdout);
    assert!(
        version.contains("version 22."),
        "{} is not clang 22 ({}): run 'bash scripts/setup.sh'",
        clang.display(),
        version.lines().next().unwrap_or("")
    );
    clang
}

/// Compiles `program` with `side_flags` (device-only or host-only) to textual IR.
/// Device attempts in order: plain; with the CUDA folder of scripts/setup.sh
/// (without a CUDA install clang defaults to PTX 4.2, too old for sm_90);
/// with the PTX version forced, so the test does not depend on that folder.
fn compile(tag: &str, program: &str, side_flags: &[&str]) -> String {
    let clang = clang();
    let dir = std::env::temp_dir().join(format!("omprt-clang-layout-{}-{tag}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let src = dir.join("prog.c");
    let out = dir.join("out.ll");
    std::fs::write(&src, program).unwrap();

    let cuda = repo_root().join(".toolchain/cuda");
    let mut attempts: Vec<Vec<String>> = vec![vec![]];
    if side_flags.contains(&"--offload-device-only") {
        if cuda.is_dir() {
            attempts.push(vec![format!("--cuda-path={}", cuda.display())]);
        }
        attempts.push(["-Xclang", "-target-feature", "-Xclang", "+ptx78"].map(String::from).to_vec());
    }
    let mut failures = String::new();
    for extra in &attempts {
        let mut cmd = Command::new(&clang);
        cmd.args(["-O0", "-fopenmp", "--offload-arch=sm_90", "-nogpulib"])
            .args(side_flags)
            .args(["-emit-llvm", "-S", "-o"])
            .arg(&out)
            .arg(&src)
            .args(extra)
            .current_dir(&dir);
        let res = cmd.output().unwrap_or_else(|e| panic!("cannot run {cmd:?}: {e}"));
        if res.status.success() {
            let ir = std::fs::read_to_string(&out).unwrap();
            let _ = std::fs::remove_dir_all(&dir);
            return ir;
        }
        failures += &format!("{cmd:?} failed ({}):\n{}\n", res.status, String::from_utf8_lossy(&res.stderr));
    }
    panic!("clang-22 could not compile the test program ({tag}); if the toolchain is incomplete run 'bash scripts/setup.sh'\n{failures}");
}

fn device_ir() -> &'static str {
    static IR: OnceLock<String> = OnceLock::new();
    IR.get_or_init(|| compile("device", PROGRAM, &["--offload-device-only"]))
}

fn task_device_ir() -> &'static str {
    static IR: OnceLock<String> = OnceLock::new();
    IR.get_or_init(|| compile("task-device", TASK_PROGRAM, &["--offload-device-only"]))
}

fn host_ir() -> &'static str {
    static IR: OnceLock<String> = OnceLock::new();
    IR.get_or_init(|| compile("host", PROGRAM, &["--offload-host-only"]))
}

fn ident() -> RustLayout {
    rust_layout!(Ident { reserved_1, flags, reserved_2, reserved_3, psource })
}
fn configuration_environment() -> RustLayout {
    rust_layout!(ConfigurationEnvironment {
        use_generic_state_machine,
        may_use_nested_parallelism,
        exec_mode,
        min_threads,
        max_threads,
        min_teams,
        max_teams,
        reduction_data_size,
        reduction_buffer_length,
    })
}
fn kernel_environment() -> RustLayout {
    rust_layout!(KernelEnvironment { configuration, ident, dynamic_env })
}
fn dynamic_environment() -> RustLayout {
    rust_layout!(DynamicEnvironment { debug_indention_level })
}
fn kernel_launch_environment() -> RustLayout {
    rust_layout!(KernelLaunchEnvironment { reduction_cnt, reduction_iter_cnt, reduction_buffer })
}
fn device_environment() -> RustLayout {
    rust_layout!(DeviceEnvironment {
        device_debug_kind,
        num_devices,
        device_num,
        dynamic_mem_size,
        clock_frequency,
        indirect_call_table,
        indirect_call_table_size,
        hardware_parallelism,
    })
}
fn kernel_args() -> RustLayout {
    rust_layout!(KernelArgs {
        version,
        num_args,
        arg_base_ptrs,
        arg_ptrs,
        arg_sizes,
        arg_types,
        arg_names,
        arg_mappers,
        tripcount,
        flags,
        num_teams,
        thread_limit,
        dyn_cgroup_mem,
    })
}
fn kmp_task() -> RustLayout {
    rust_layout!(KmpTask { shareds, routine, part_id, data1, data2 })
}
fn kmp_task_loop() -> RustLayout {
    rust_layout!(KmpTaskLoop { task, lb, ub, st, liter, reductions })
}
fn offload_entry() -> RustLayout {
    rust_layout!(OffloadEntry { reserved, version, kind, flags, address, symbol_name, size, data, aux_addr })
}

// ---------------------------------------------------------------------------
// Parser self-checks, so a parser bug cannot make the real checks vacuous.

#[test]
fn llvm_layout_parser_handles_the_needed_forms() {
    let ir = "%struct.A = type { i8, i8, i8, i32 }\n\
              %struct.B = type { %struct.A, ptr, [3 x i32], i16 }\n\
              %struct.C = type { i64, { i8, double }, [2 x %struct.A] }\n";
    let defs = struct_defs(ir);
    let a = struct_layout(&defs, "%struct.A");
    assert_eq!((a.offsets.as_slice(), a.size, a.align), (&[0, 1, 2, 4][..], 8, 4));
    let b = struct_layout(&defs, "%struct.B");
    assert_eq!((b.offsets.as_slice(), b.size, b.align), (&[0, 8, 16, 28][..], 32, 8));
    assert_eq!(b.sizes, [8, 8, 12, 2]);
    let c = struct_layout(&defs, "%struct.C");
    assert_eq!((c.offsets.as_slice(), c.size, c.align), (&[0, 8, 24][..], 40, 8));
}

#[test]
#[should_panic(expected = "packed struct types are not supported")]
fn llvm_layout_parser_rejects_packed_structs() {
    let defs = struct_defs("%struct.P = type <{ i8, i32 }>\n");
    struct_layout(&defs, "%struct.P");
}

// ---------------------------------------------------------------------------
// Device side

#[test]
fn device_ident_t_matches_ident() {
    assert_same_layout(device_ir(), "%struct.ident_t", ident());
}

#[test]
fn device_configuration_environment_matches() {
    assert_same_layout(device_ir(), "%struct.ConfigurationEnvironmentTy", configuration_environment());
}

#[test]
fn device_kernel_environment_matches() {
    assert_same_layout(device_ir(), "%struct.KernelEnvironmentTy", kernel_environment());
}

/// clang names each `kmp_task_t` it builds the same, suffixed: the one of a
/// taskloop has the bounds after the plain task's fields.
fn kmp_task_type(ir: &str, fields: usize) -> String {
    let defs = struct_defs(ir);
    let mut names: Vec<&String> = defs
        .keys()
        .filter(|n| *n == "%struct.kmp_task_t" || n.starts_with("%struct.kmp_task_t."))
        .filter(|n| matches!(parse_ty(&defs[*n]), Ty::Struct(f) if f.len() == fields))
        .collect();
    names.sort();
    names.first().unwrap_or_else(|| panic!("no kmp_task_t with {fields} fields in the device IR")).to_string()
}

#[test]
fn device_kmp_task_t_matches_kmp_task() {
    assert_same_layout(task_device_ir(), &kmp_task_type(task_device_ir(), 5), kmp_task());
}

#[test]
fn device_taskloop_kmp_task_t_matches_kmp_task_loop() {
    // KmpTaskLoop nests KmpTask where clang repeats its five fields.
    let ir = task_device_ir();
    let name = kmp_task_type(ir, 10);
    let defs = struct_defs(ir);
    let llvm = struct_layout(&defs, &name);
    let plain = kmp_task();
    let rust = kmp_task_loop();
    for (i, &(field, off, size)) in plain.fields.iter().enumerate() {
        assert_eq!((off as u64, size as u64), (llvm.offsets[i], llvm.sizes[i]), "{name} field {i} vs KmpTask::{field}");
    }
    for (j, &(field, off, size)) in rust.fields.iter().skip(1).enumerate() {
        let i = plain.fields.len() + j;
        assert_eq!((off as u64, size as u64), (llvm.offsets[i], llvm.sizes[i]), "{name} field {i} vs KmpTaskLoop::{field}");
    }
    assert_eq!((rust.size as u64, rust.align as u64), (llvm.size, llvm.align), "{name} = type {} vs KmpTaskLoop", defs[&name]);
}

#[test]
fn device_dynamic_environment_matches() {
    assert_same_layout(device_ir(), "%struct.DynamicEnvironmentTy", dynamic_environment());
}

/// Parses `{ i8 0, i8 1, ... }`, the ConfigurationEnvironmentTy initializer
/// inside a kernel environment constant.
fn configuration_values(line: &str) -> ConfigurationEnvironment {
    let start = line.find("%struct.ConfigurationEnvironmentTy {").expect("no configuration initializer")
        + "%struct.ConfigurationEnvironmentTy {".len();
    let end = start + line[start..].find('}').unwrap();
    let v: Vec<i64> = line[start..end]
        .split(',')
        .map(|f| f.split_whitespace().nth(1).and_then(|n| n.parse().ok()).unwrap_or_else(|| panic!("bad value `{f}` in {line}")))
        .collect();
    assert_eq!(v.len(), configuration_environment().fields.len(), "initializer arity: {line}");
    ConfigurationEnvironment {
        use_generic_state_machine: v[0] as u8,
        may_use_nested_parallelism: v[1] as u8,
        exec_mode: v[2] as u8,
        min_threads: v[3] as i32,
        max_threads: v[4] as i32,
        min_teams: v[5] as i32,
        max_teams: v[6] as i32,
        reduction_data_size: v[7] as i32,
        reduction_buffer_length: v[8] as i32,
    }
}

#[test]
fn device_kernel_environment_constants_are_emitted_per_kernel() {
    let ir = device_ir();
    let decl = format!("{KERNEL_ENVIRONMENT_SUFFIX} = weak_odr protected constant %struct.KernelEnvironmentTy {{");
    let envs: Vec<&str> =
        ir.lines().filter(|l| l.starts_with(&format!("@{KERNEL_PREFIX}")) && l.contains(&decl)).collect();
    assert_eq!(envs.len(), 2, "expected one kernel environment per target region, found {envs:#?}");

    for line in &envs {
        // The dynamic environment pointer names the matching per-kernel global.
        let kernel = &line[1..line.find(KERNEL_ENVIRONMENT_SUFFIX).unwrap()];
        let dyn_env = format!("@{kernel}{DYNAMIC_ENVIRONMENT_SUFFIX}");
        assert!(line.trim_end().ends_with(&format!("ptr {dyn_env} }}")), "{line}");
        assert!(ir.contains(&format!("{dyn_env} = weak_odr protected global %struct.DynamicEnvironmentTy")));
    }
    // The reduction kernel is SPMD and needs a teams-reduction buffer; the
    // plain target region is generic with max_teams -1.
    let configs: Vec<ConfigurationEnvironment> = envs.iter().map(|l| configuration_values(l)).collect();
    let spmd = configs.iter().find(|c| c.mode().is_spmd()).expect("no SPMD kernel environment");
    assert!(spmd.has_teams_reduction(), "{spmd:?}");
    assert_eq!(spmd.reduction_data_size, 8, "one double per team: {spmd:?}");
    assert_eq!(spmd.reduction_buffer_length, 1024, "{spmd:?}");
    let generic = configs.iter().find(|c| c.mode() == ExecMode::GENERIC).expect("no generic kernel environment");
    assert!(!generic.has_teams_reduction(), "{generic:?}");
    assert_eq!(generic.max_teams, -1, "{generic:?}");
}

/// These types live in the runtime and the host plugin, not in clang's output;
/// compare them when they do show up, else rely on the sizes LLVM 22 uses.
#[test]
fn launch_and_device_environments_match_llvm_22() {
    let ir = device_ir();
    let defs = struct_defs(ir);
    for (name, rust, size) in [
        ("%struct.KernelLaunchEnvironmentTy", kernel_launch_environment(), 16),
        ("%struct.DeviceEnvironmentTy", device_environment(), 48),
    ] {
        assert_eq!(rust.size, size, "{}", rust.name);
        if defs.contains_key(name) {
            assert_same_layout(ir, name, rust);
        }
    }
}

// ---------------------------------------------------------------------------
// Host side

#[test]
fn host_ident_t_matches_ident() {
    assert_same_layout(host_ir(), "%struct.ident_t", ident());
}

#[test]
fn host_kernel_arguments_match_kernel_args() {
    let ir = host_ir();
    assert_same_layout(ir, "%struct.__tgt_kernel_arguments", kernel_args());
    // Field 0 (version) is stored right after its getelementptr.
    let lines: Vec<&str> = ir.lines().map(str::trim).collect();
    let mut versions = Vec::new();
    for w in lines.windows(2) {
        if w[0].contains("getelementptr inbounds nuw %struct.__tgt_kernel_arguments") && w[0].ends_with("i32 0, i32 0") {
            let gep = w[0].split(" = ").next().unwrap();
            let value = w[1].strip_prefix("store i32 ").and_then(|r| r.strip_suffix(&format!(", ptr {gep}, align 4")));
            versions.push(value.unwrap_or_else(|| panic!("unexpected version store: {}", w[1])).to_string());
        }
    }
    assert_eq!(versions, vec![KERNEL_ARGS_VERSION.to_string(); 2], "one kernel-args block per target region");
}

#[test]
fn host_offload_entries_match_offload_entry() {
    let ir = host_ir();
    assert_same_layout(ir, "%struct.__tgt_offload_entry", offload_entry());
    let entries: Vec<&str> = ir
        .lines()
        .filter(|l| l.starts_with("@.offloading.entry.") && l.contains("constant %struct.__tgt_offload_entry {"))
        .collect();
    assert_eq!(entries.len(), 2, "{entries:#?}");
    for e in entries {
        assert!(e.contains("section \"llvm_offload_entries\""), "{e}");
        // reserved 0, version 1, kind 1 (OpenMP), as the plugin expects.
        assert!(e.contains("%struct.__tgt_offload_entry { i64 0, i16 1, i16 1, "), "{e}");
    }
}
