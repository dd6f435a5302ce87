//! Lowering tests: the corpus compiled with clang 22 against the built
//! runtime (`cargo xtask build-device`, which `scripts/test.sh` runs first).

use std::collections::BTreeSet;
use xtask::{abi_table, corpus, device_build, fortran_modules, fortran_runtime, ir_rewrite, report, runtime_dir, tools};

fn runtime_ir() -> String {
    let bc = runtime_dir().join("libomptarget-nvptx.bc");
    assert!(bc.is_file(), "{} is missing: run 'cargo xtask build-device' (scripts/test.sh does)", bc.display());
    tools::disassemble(&bc).expect("llvm-dis of the runtime")
}

#[test]
fn corpus_links_passes_ptxas_and_finds_every_entry_point_with_its_exact_type() {
    let summary = corpus::check_all(&corpus::Options::default()).unwrap_or_else(|e| panic!("{e}"));
    println!("{}", summary.render());
    let programs: BTreeSet<&str> = summary.builds.iter().map(|b| b.program.as_str()).collect();
    for required in ["saxpy.c", "parallel_for.c", "teams.c"] {
        assert!(programs.contains(required), "the corpus lacks {required}");
    }
    assert_eq!(summary.builds.len(), programs.len() * corpus::OPT_LEVELS.len());
    assert!(summary.ok(), "corpus failures:\n{}", summary.render());
    for b in &summary.builds {
        assert!(b.executable.is_file(), "{} {}: no executable", b.program, b.opt);
        assert!(b.needed.contains("__kmpc_target_init"), "{} {}: no kernel found in the device IR", b.program, b.opt);
    }
    // Optimised, every runtime function is inlined or folded: one left in an
    // image is called, and a call costs a kernel at least 24 registers (see
    // `lto_link_inlines_the_mode_query_it_cannot_fold`). The ones at risk are
    // `__kmpc_is_spmd_exec_mode` where the mode does not fold (mixed_modes.O2,
    // state_machines.O2lto) and Rust's panic code (doacross.O2lto). Out of
    // line stay clang's functions (regions, wrappers, task entries), ptxas's
    // division routines, and in detach.c `detach`'s hooks; that no other
    // program has those checks that a program without `detach` pays nothing.
    for (program, build) in programs.iter().flat_map(|p| ["O2", "O2lto"].map(|b| (p, b))) {
        let stem = program.rsplit_once('.').map_or(*program, |(stem, _)| stem);
        let exe = corpus::Options::default().out.join(format!("{stem}.{build}"));
        let data = std::fs::read(&exe).unwrap_or_else(|e| panic!("{}: {e}", exe.display()));
        let input = omprt_host::image::read(&data).unwrap_or_else(|e| panic!("{}: {e}", exe.display()));
        for image in &input.images {
            let Some(cubin) = image.cubin() else { continue };
            let cubin = cubin.unwrap_or_else(|e| panic!("{}: {e}", exe.display()));
            let left: Vec<&str> = cubin
                .functions
                .iter()
                .map(|f| f.name)
                .filter(|name| is_runtime_function(name) && !(*program == "detach.c" && is_detach_hook(name)))
                .collect();
            assert!(left.is_empty(), "{}: runtime functions left out of line: {left:?}", exe.display());
        }
        // A program that calls no flang-rt entry point links none of the
        // Fortran runtime member: nvlink takes an archive member only for a
        // symbol it resolves.
        let fortran = fortran_runtime_functions(&exe);
        assert!(fortran.is_empty(), "{}: Fortran runtime functions {fortran:?}", exe.display());
    }
    let report = abi_table::check_bitcode(&runtime_dir().join("libomptarget-nvptx.bc"), &summary.needed_symbols())
        .unwrap_or_else(|e| panic!("{e}"));
    println!("{}", report.render());
    assert!(report.ok(), "{}", report.render());
    assert_eq!(report.defined, report.total, "every device-relevant OMPKinds.def entry is defined");
}

/// flang lowers loops through the OpenMPIRBuilder: the callback loops
/// (`__kmpc_*_static_loop_*`), which clang never emits, are checked here
/// against real compiler output, as are its team reductions and SPMD regions
/// without a wrapper.
/// The Fortran corpus programs that call flang-rt's entry points (the
/// others use OpenMP alone).
const FORTRAN_RUNTIME_PROGRAMS: [&str; 8] =
    ["fortran_assign", "fortran_reduce", "fortran_strings", "fortran_numeric", "fortran_complex", "fortran_math", "fortran_poly", "fortran_print"];

#[test]
fn flang_corpus_links_passes_ptxas_and_declares_each_entry_point_with_omprts_type() {
    let summary = corpus::check_fortran_all(&corpus::Options::default()).unwrap_or_else(|e| panic!("{e}"));
    println!("{}", summary.render());
    let programs: BTreeSet<&str> = summary.builds.iter().map(|b| b.program.as_str()).collect();
    for required in ["fortran_loops", "fortran_regions", "fortran_sync"].iter().chain(&FORTRAN_RUNTIME_PROGRAMS).map(|p| format!("{p}.f90")) {
        let required = required.as_str();
        assert!(programs.contains(required), "the corpus lacks {required}");
    }
    assert!(summary.ok(), "Fortran corpus failures:\n{}", summary.render());
    // flang-rt's entry points the corpus makes flang emit are the table of
    // docs/fortran-runtime.md, row by row (each defined with flang's type:
    // the "types" check of each build above), and what omprt does for each.
    let table = fortran_runtime::table_of(&summary);
    let documented = fortran_runtime::documented().unwrap_or_else(|e| panic!("{e}"));
    assert!(
        documented == table,
        "{} does not list what flang 22 emits for the corpus: replace its table with `cargo xtask fortran-symbols`:\n{table}",
        fortran_runtime::DOC
    );
    assert!(table.lines().count() > 80, "the Fortran corpus no longer reaches flang's runtime:\n{table}");
    // nvlink takes the Fortran runtime member only for the programs that
    // call flang-rt's entry points; the OpenMP-only ones pay nothing. The
    // member keeps no state in shared memory.
    // (flang at -O0 declares `_FortranAAssign` in programs that never call
    // it: ptxas drops the declaration, and nvlink links nothing for it.)
    for b in &summary.builds {
        let fortran = fortran_runtime_functions(&b.executable);
        let calls = FORTRAN_RUNTIME_PROGRAMS.iter().any(|p| b.program.strip_suffix(".f90") == Some(p));
        assert_eq!(!fortran.is_empty(), calls, "{} {}: Fortran runtime functions {fortran:?}", b.program, b.opt);
    }
    let member = tools::disassemble(&runtime_dir().join(device_build::FORTRAN_RUNTIME_MEMBER)).unwrap();
    assert!(!member.lines().any(|l| l.starts_with('@') && l.contains("addrspace(3)")), "the Fortran runtime member keeps shared memory");
    // The Fortran runtime leaves no cycle in a kernel's call graph (derived
    // types are walked through a work list): nvlink bounds every stack, which
    // the driver then reserves. A cycle makes nvlink warn "Stack size for
    // entry function cannot be statically determined", and the driver gives
    // each thread 1 KiB, less than flang's own -O0 frames (fortran_assign's
    // `deep`: 2888 bytes).
    for program in FORTRAN_RUNTIME_PROGRAMS {
        for level in ["O0", "O2"] {
            let exe = corpus::Options::default().out.join(format!("{program}.{level}"));
            let data = std::fs::read(&exe).unwrap_or_else(|e| panic!("{}: {e}", exe.display()));
            let input = omprt_host::image::read(&data).unwrap_or_else(|e| panic!("{}: {e}", exe.display()));
            let cubin = input.images[0].cubin().expect("a cubin").unwrap_or_else(|e| panic!("{}: {e}", exe.display()));
            for k in &cubin.kernels {
                let stack = k.stack_bytes.unwrap_or(0);
                assert!(stack < u32::MAX, "{}: {} has a stack nvlink cannot bound", exe.display(), k.name);
            }
        }
    }
    for b in &summary.builds {
        assert!(b.executable.is_file(), "{} {}: no executable", b.program, b.opt);
    }
    // What the programs are there for: were flang to stop emitting one of
    // these, the test would no longer check it.
    let needed = summary.needed_symbols();
    for entry in [
        "__kmpc_for_static_loop_4u",
        "__kmpc_distribute_static_loop_4u",
        "__kmpc_distribute_for_static_loop_4u",
        "__kmpc_distribute_for_static_loop_8u",
        "__kmpc_nvptx_teams_reduce_nowait_v2",
        "__kmpc_nvptx_parallel_reduce_nowait_v2",
        "__kmpc_parallel_60",
        "__kmpc_single",
        "__kmpc_masked",
        "__kmpc_barrier",
        "__kmpc_omp_task",
        "__kmpc_taskloop",
        "__kmpc_taskgroup",
        "__kmpc_for_static_init_4u",
    ] {
        assert!(needed.contains(entry), "flang no longer calls {entry} in the Fortran corpus: {needed:?}");
    }
    // At -O0 flang's target regions with code around their parallel regions
    // are generic-mode kernels, and their regions come without a wrapper:
    // the runtime's wrapper runs them, from the archive's LTO member; the
    // bitcode clang links at compile time has none of it.
    //
    // At both levels the archive's out-of-line `__kmpc_parallel_60` sets the
    // registers of every flang kernel with a region: nvlink gives a kernel
    // those of the largest function it may call. It takes at most 62. Its
    // serialized path and its caller of regions with 2 to 11 captured
    // variables (clang's calls at `-O0 -foffload-lto`) are functions of their
    // own that take no more: inlined, either one raises it past 62.
    for level in ["O0", "O2"] {
        let exe = corpus::Options::default().out.join(format!("fortran_regions.{level}"));
        let data = std::fs::read(&exe).unwrap_or_else(|e| panic!("{}: {e}", exe.display()));
        let input = omprt_host::image::read(&data).unwrap_or_else(|e| panic!("{}: {e}", exe.display()));
        let cubin = input.images[0].cubin().expect("a cubin").unwrap_or_else(|e| panic!("{}: {e}", exe.display()));
        if level == "O0" {
            let generic = cubin.kernels.iter().filter(|k| !k.mode().is_spmd()).count();
            assert!(generic >= 2, "{}: {generic} generic-mode kernels, expected at least 2", exe.display());
            let is_wrapper = |name: &str| name.ends_with(ir_rewrite::IRBUILDER_WRAPPER_SUFFIX);
            assert!(cubin.functions.iter().any(|f| is_wrapper(f.name)), "{}: no runtime wrapper for flang's regions", exe.display());
        }
        let registers = |part: &str| {
            let f = cubin.functions.iter().find(|f| f.name.contains(part));
            f.and_then(|f| f.registers).unwrap_or_else(|| panic!("{}: no registers recorded for a function named like {part}", exe.display()))
        };
        let region_call = registers("__kmpc_parallel_60");
        assert!(region_call <= 62, "{}: __kmpc_parallel_60 takes {region_call} registers, more than 62", exe.display());
        for part in ["8parallel16serialized_apart", "8parallel14call_with_many"] {
            let apart = registers(part);
            assert!(apart <= region_call, "{}: {part} takes {apart} registers, __kmpc_parallel_60 {region_call}", exe.display());
        }
    }
    assert!(!runtime_ir().lines().any(|l| l.starts_with("define ") && l.contains(ir_rewrite::IRBUILDER_WRAPPER_SUFFIX)));
    // `use omp_lib` at -O0: flang declares every named constant of the module
    // in the device code, and the links above find them in the archive's
    // Fortran member (without it, each is an undefined reference to nvlink).
    let ll = corpus::Options::default().out.join("fortran_regions.O0.device.ll");
    let text = std::fs::read_to_string(&ll).unwrap_or_else(|e| panic!("{}: {e}", ll.display()));
    let declared = text.lines().filter(|l| l.starts_with("@_QMomp_libEC") && l.contains(" = external constant ")).count();
    assert!(declared > 100, "{}: {declared} omp_lib constants declared; the test no longer needs the Fortran member", ll.display());
}

/// Output statements and the reductions without `DIM=` take no more
/// registers than `__kmpc_parallel_60`, which every flang kernel with a
/// parallel region pays already: nvlink gives a kernel the registers of the
/// largest function it may call, so a `PRINT` on a path a kernel never takes
/// still sets its count, and at -O0 flang calls the runtime for every
/// `SUM`. (See "Registers" in device-rtl/src/fortran/output.rs.)
#[test]
fn fortran_output_and_total_reductions_take_no_more_registers_than_a_region_call() {
    let dir = scratch_dir("fortran-registers");
    let totals = dir.join("totals.f90");
    std::fs::write(&totals, TOTALS_F90).unwrap();
    let print = xtask::repo_root().join("tests-gpu/programs/fortran_print.f90");
    let builds = [(&print, "-O0", "_FortranAioOutputReal64"), (&print, "-O2", "_FortranAioOutputReal64"), (&totals, "-O0", "_FortranASumReal8")];
    for (src, opt, needed) in builds {
        let exe = corpus::build_fortran_executable(src, opt, &dir).unwrap_or_else(|e| panic!("{e}"));
        let data = std::fs::read(&exe).unwrap_or_else(|e| panic!("{}: {e}", exe.display()));
        let input = omprt_host::image::read(&data).unwrap_or_else(|e| panic!("{}: {e}", exe.display()));
        let cubin = input.images[0].cubin().expect("a cubin").unwrap_or_else(|e| panic!("{}: {e}", exe.display()));
        let registers = |f: &omprt_host::image::cubin::Function| f.registers.unwrap_or_else(|| panic!("{}: no registers recorded for {}", exe.display(), f.name));
        let region_call = cubin.functions.iter().find(|f| f.name == "__kmpc_parallel_60").map(registers);
        let region_call = region_call.unwrap_or_else(|| panic!("{}: no __kmpc_parallel_60", exe.display()));
        let fortran: Vec<_> = cubin.functions.iter().filter(|f| f.name.starts_with("_FortranA") || f.name.contains("omprt_device_rtl7fortran")).collect();
        assert!(fortran.iter().any(|f| f.name == needed), "{} {opt}: no {needed}; the test no longer sees the code it bounds", src.display());
        let worst = fortran.iter().max_by_key(|f| registers(f)).unwrap();
        assert!(
            registers(worst) <= region_call,
            "{} {opt}: {} takes {} registers, __kmpc_parallel_60 {region_call}",
            src.display(),
            worst.name,
            registers(worst)
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// A region that calls the reductions without `DIM=`, which flang's -O0
/// code leaves to the runtime.
const TOTALS_F90: &str = "program totals
  implicit none
  real(8) :: a(1000), s, p, hi
  integer :: m(1000), lo, n
  logical :: l(1000), t, u
  integer :: i
  do i = 1, 1000
    a(i) = 1d0 + i / 1d4
    m(i) = mod(i * 7, 1000)
    l(i) = mod(i, 3) /= 0
  end do
  !$omp target map(to: a, m, l) map(from: s, p, hi, lo, n, t, u)
  !$omp parallel num_threads(1)
  s = sum(a)
  p = product(a(1:10))
  hi = maxval(a)
  lo = minval(m)
  n = count(l)
  t = all(l)
  u = any(l)
  !$omp end parallel
  !$omp end target
  print *, s, p, hi, lo, n, t, u
end program
";

/// The functions of the Fortran runtime member (flang-rt's entry points and
/// the runtime code under them) in the images of the executable `exe`.
fn fortran_runtime_functions(exe: &std::path::Path) -> Vec<String> {
    let data = std::fs::read(exe).unwrap_or_else(|e| panic!("{}: {e}", exe.display()));
    let input = omprt_host::image::read(&data).unwrap_or_else(|e| panic!("{}: {e}", exe.display()));
    let mut found = Vec::new();
    for image in &input.images {
        let Some(cubin) = image.cubin() else { continue };
        let cubin = cubin.unwrap_or_else(|e| panic!("{}: {e}", exe.display()));
        found.extend(cubin.functions.iter().map(|f| f.name).filter(|n| n.starts_with("_FortranA") || n.contains("omprt_device_rtl7fortran")).map(String::from));
    }
    found
}

/// The Fortran runtime member serves any device link that asks for its
/// entry points: a C target region that calls `_FortranASumReal8` with a
/// descriptor it builds (the host fallback gets a stand-in of its own)
/// links with clang's default compile and with `-foffload-lto` (where nvlink
/// takes it into the LTO link), and flang's `Sum` is there.
#[test]
fn the_fortran_runtime_member_serves_clangs_default_and_offload_lto_links() {
    let dir = scratch_dir("flang-rt-from-c");
    let src = dir.join("sum.c");
    std::fs::write(
        &src,
        "#include <stddef.h>\n#include <stdint.h>\n#include <stdio.h>\n\
         typedef struct { void *base; size_t elem_len; int version; unsigned char rank; signed char type;\n\
                          unsigned char attribute, extra; int64_t lower, extent, stride; } vector;\n\
         double _FortranASumReal8(const vector *, const char *, int, int, const void *);\n\
         #ifndef __NVPTX__\n\
         double _FortranASumReal8(const vector *v, const char *f, int l, int d, const void *m) { return -1; }\n\
         #endif\n\
         int main(void) {\n  double a[4] = {1, 2, 3, 4}, s = 0;\n\
         #pragma omp target map(to: a) map(from: s)\n  {\n\
             vector v = {a, 8, 20240719, 1, 28, 0, 0, 1, 4, 8};\n    s = _FortranASumReal8(&v, 0, 0, 0, 0);\n  }\n\
           printf(\"%g\\n\", s);\n  return 0;\n}\n",
    )
    .unwrap();
    for lto in [false, true] {
        let exe = dir.join(if lto { "sum.lto" } else { "sum" });
        let mut cc = std::process::Command::new(tools::clang().unwrap());
        cc.arg("-O2").args(corpus::user_flags(corpus::LINK_ARCH).unwrap());
        if lto {
            cc.arg("-foffload-lto");
        }
        tools::run(cc.arg(&src).arg("-o").arg(&exe)).unwrap_or_else(|e| panic!("-foffload-lto {lto}: {e}"));
        let data = std::fs::read(&exe).unwrap();
        let input = omprt_host::image::read(&data).unwrap();
        let cubin = input.images[0].cubin().expect("a cubin").unwrap();
        let fortran = cubin.functions.iter().any(|f| f.name == "_FortranASumReal8" || f.name.contains("omprt_device_rtl7fortran"));
        let kernel_calls = cubin.kernels.len();
        assert!(kernel_calls == 1 && (fortran || lto), "-foffload-lto {lto}: no _FortranASumReal8 in {}", exe.display());
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// Each named constant flang's -O0 device code declares for a program that
/// uses one of its modules (`omp_lib`, `iso_c_binding`, `iso_fortran_env`,
/// ...) is defined by the archive's Fortran member; nvlink fails on any
/// that is not.
#[test]
fn flang_module_constants_are_all_defined_by_the_archive() {
    let member = runtime_dir().join("libompdevice-fortran.bc");
    assert!(member.is_file(), "{} is missing: cargo xtask build-device needs flang-22", member.display());
    let work = corpus::Options::default().out.join("fortran-modules");
    let defined = fortran_modules::defined_constants(&member).unwrap_or_else(|e| panic!("{e}"));
    for m in fortran_modules::USER_MODULES {
        let missing = fortran_modules::undefined_constants(m, &defined, &work).unwrap_or_else(|e| panic!("{e}"));
        assert!(missing.is_empty(), "use {m}: the archive does not define {missing:?}");
    }
}

/// Every routine clang 22's `omp.h` declares, called from a target region,
/// is defined by omprt with clang's exact type, or is one the runtime leaves
/// to the host (`abi_table::HOST_ONLY_API`, each with its reason). Any
/// other leaves the device link with an undefined reference.
#[test]
fn every_omp_h_routine_is_defined_with_clangs_type_or_host_only() {
    let header = std::fs::read_to_string(abi_table::OMP_H).unwrap_or_else(|e| panic!("{}: {e}", abi_table::OMP_H));
    let names = abi_table::omp_h_routines(&header);
    assert!(names.len() > 80, "only {} routines found in omp.h", names.len());
    let out = corpus::Options::default().out.join("api");
    std::fs::create_dir_all(&out).unwrap();
    let src = out.join("omp_h_routines.c");
    std::fs::write(&src, abi_table::api_probe_source(&names)).unwrap();
    let declared = corpus::device_declarations(&src, "-O0", &out).unwrap_or_else(|e| panic!("{e}"));
    let device: std::collections::BTreeMap<String, abi_table::LlvmFnType> =
        declared.into_iter().filter(|(n, _)| names.contains(n) && abi_table::host_only_reason(n).is_none()).collect();
    assert!(device.len() > 60, "only {} device routines declared by the probe", device.len());
    let defs = abi_table::parse_ll_definitions(&runtime_ir());
    let wrong = abi_table::declaration_mismatches(&device, &defs);
    assert!(wrong.is_empty(), "omp.h routines omprt lacks or types differently:\n{}", wrong.join("\n"));
}

/// The C library functions device_libc.c and atomic_complex.c call in
/// their target regions (every one of `device_build::LIBC_API`: `assert`'s
/// `__assert_fail`, `<string.h>`'s, `strtol`'s kin, libatomic's, ...) and
/// `__llvm_omp_indirect_call_lookup` are defined by omprt with the types
/// clang declares them with. A missing one fails the device link
/// ("Undefined reference to '__assert_fail'").
#[test]
fn the_c_library_functions_a_target_region_calls_are_defined_with_clangs_types() {
    let programs = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("programs");
    let out = corpus::Options::default().out.join("api");
    std::fs::create_dir_all(&out).unwrap();
    let wanted: Vec<&str> = device_build::LIBC_API.iter().copied().chain(["__llvm_omp_indirect_call_lookup"]).collect();
    let mut called = std::collections::BTreeMap::<String, abi_table::LlvmFnType>::new();
    for program in ["device_libc.c", "atomic_complex.c"] {
        let declared = corpus::device_declarations(&programs.join(program), "-O0", &out).unwrap_or_else(|e| panic!("{e}"));
        called.extend(declared.into_iter().filter(|(n, _)| wanted.contains(&n.as_str())));
    }
    assert_eq!(called.len(), wanted.len(), "the programs no longer call each of {wanted:?}: {:?}", called.keys());
    let wrong = abi_table::declaration_mismatches(&called, &abi_table::parse_ll_definitions(&runtime_ir()));
    assert!(wrong.is_empty(), "C library functions omprt lacks or types differently:\n{}", wrong.join("\n"));
}

#[test]
fn runtime_state_is_in_shared_memory_and_only_the_api_is_visible() {
    let ir = runtime_ir();
    let dynamic = format!("@{} = external addrspace(3) global [0 x i8], align 16", ir_rewrite::DYNAMIC_SHARED);
    assert!(ir.lines().any(|l| l == dynamic), "the dynamic shared memory is not declared as {dynamic}");
    let shared: Vec<&str> =
        ir.lines().filter(|l| l.starts_with('@') && l.contains("addrspace(3) global") && *l != dynamic).collect();
    assert!(!shared.is_empty(), "no CTA-shared runtime state in the bitcode");
    assert!(shared.iter().all(|l| l.contains("internal") && l.contains("undef")), "{shared:?}");
    let is_api = device_build::api_checker().unwrap();
    let violations = ir_rewrite::check(&ir, &is_api);
    assert!(violations.is_empty(), "{violations:?}");
    assert!(!ir.contains("\"target-cpu\"") && !ir.contains("\"target-features\""), "a target CPU is pinned");
    assert!(ir.contains("@__omp_rtl_device_environment = weak protected addrspace(4) global"));
    for g in omprt_abi::symbols::CONFIG_GLOBALS {
        assert!(ir.contains(&format!("@{g} = weak hidden constant i32 0")), "{g} has no weak default");
    }
    // openmp-opt must still recognise these calls after linking.
    let defs = abi_table::parse_ll_definitions(&ir);
    for f in ["__kmpc_get_hardware_thread_id_in_block", "__kmpc_get_hardware_num_threads_in_block", "__kmpc_get_warp_size", "__kmpc_barrier_simple_spmd"] {
        assert!(defs.contains_key(f), "{f} missing");
        let line = ir.lines().find(|l| l.starts_with("define") && l.contains(&format!("@{f}("))).unwrap();
        let group = line.rsplit('#').next().unwrap().trim_end_matches(" {").trim();
        let attrs = ir.lines().find(|l| l.starts_with(&format!("attributes #{group} "))).unwrap();
        assert!(attrs.contains("noinline"), "{f} must be noinline: {attrs}");
    }
}

#[test]
fn config_globals_fold_to_the_values_clang_emits() {
    // A TU compiled with -fopenmp-assume-no-thread-state carries
    // `__omp_rtl_assume_no_thread_state = weak_odr hidden constant i32 1`;
    // linked with the runtime, the user's definition must win.
    let dir = scratch_dir("fold");
    let user = dir.join("user.ll");
    std::fs::write(
        &user,
        "target triple = \"nvptx64-nvidia-cuda\"\n@__omp_rtl_assume_no_thread_state = weak_odr hidden constant i32 1\n\
         define i32 @read() {\n  %v = load i32, ptr @__omp_rtl_assume_no_thread_state\n  ret i32 %v\n}\n",
    )
    .unwrap();
    let linked = dir.join("linked.bc");
    tools::run(
        std::process::Command::new(tools::llvm_tool("llvm-link").unwrap())
            .arg(&user)
            .arg(runtime_dir().join("libomptarget-nvptx.bc"))
            .arg("-o")
            .arg(&linked),
    )
    .unwrap();
    let text = tools::disassemble(&linked).unwrap();
    assert!(text.contains("@__omp_rtl_assume_no_thread_state = weak_odr hidden constant i32 1"), "the runtime's default won");
    let opt = tools::run(
        std::process::Command::new(tools::llvm_tool("opt").unwrap()).args(["-O2", "-S"]).arg(&linked).arg("-o").arg("-"),
    )
    .unwrap();
    let optimised = String::from_utf8_lossy(&opt.stdout);
    let read = optimised.split("define").find(|f| f.contains("@read(")).unwrap();
    assert!(read.contains("ret i32 1"), "the load did not fold: {read}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// Nested parallel regions at -O0 chain runtime frames on CUDA's default
/// 1 KiB stack; a dispatcher frame of 504 bytes overflows it on an H100.
/// Every runtime function's frame stays at most 256 bytes.
#[test]
fn runtime_stack_frames_stay_small() {
    let dir = scratch_dir("frames");
    let ptx = dir.join("rt.ptx");
    tools::run(
        std::process::Command::new(tools::llvm_tool("llc").unwrap())
            .args(["-O3", "-mcpu=sm_90", "-mattr=+ptx80"])
            .arg(runtime_dir().join("libomptarget-nvptx.bc"))
            .arg("-o")
            .arg(&ptx),
    )
    .unwrap();
    let out = tools::run(std::process::Command::new(tools::ptxas().unwrap()).args(["-arch=sm_90", "-c", "-v"]).arg(&ptx).arg("-o").arg(dir.join("rt.cubin")))
        .unwrap();
    let log = String::from_utf8_lossy(&out.stderr).to_string() + &String::from_utf8_lossy(&out.stdout);
    let mut frames = Vec::new();
    let mut current = String::new();
    for line in log.lines() {
        if let Some(name) = line.split("Function properties for ").nth(1) {
            current = name.trim().to_string();
        } else if let Some(bytes) = line.trim().strip_suffix(" bytes spill loads").and_then(|_| line.split_whitespace().next()) {
            frames.push((current.clone(), bytes.parse::<u32>().unwrap()));
        }
    }
    assert!(frames.len() > 50, "ptxas -v printed no frames:\n{log}");
    let worst = frames.iter().max_by_key(|f| f.1).unwrap();
    assert!(worst.1 <= 256, "largest runtime stack frame: {worst:?}");
    // `__kmpc_parallel_60`'s bound allows for the thread-state push and pop
    // being calls at -O0 (`out_of_line_at_o0!`); clang always inlines this
    // entry, so what the kernels pay for its frame is in the -O0 static-cost
    // table (`no_kernel_costs_more_than_with_llvm19_at_o0`).
    let parallel = frames.iter().filter(|f| f.0.contains("parallel_60")).map(|f| f.1).max().unwrap();
    assert!(parallel <= 112, "parallel_60 frame {parallel} bytes");
    let _ = std::fs::remove_dir_all(&dir);
}

/// saxpy.c built at `opt` in a fresh folder: the folder (the caller removes
/// it), the source, and the linked image's kernel costs.
fn saxpy_costs(opt: &str) -> (std::path::PathBuf, std::path::PathBuf, Costs) {
    program_costs("saxpy", opt)
}

type Costs = std::collections::BTreeMap<String, xtask::static_cost::Cost>;

/// Builds a corpus program and reads its kernels' costs from the image.
fn program_costs(program: &str, opt: &str) -> (std::path::PathBuf, std::path::PathBuf, Costs) {
    costs_of(corpus_source(program), opt, |src, dir| corpus::build_executable(src, opt, dir))
}

/// [`program_costs`] of the program linked with `-O2 -foffload-lto`.
fn lto_program_costs(program: &str) -> (std::path::PathBuf, std::path::PathBuf, Costs) {
    costs_of(corpus_source(program), "-O2lto", corpus::build_lto_executable)
}

fn corpus_source(program: &str) -> std::path::PathBuf {
    xtask::repo_root().join(format!("tests-gpu/programs/{program}.c"))
}

/// Builds `src` with `build` in a fresh folder named by its stem and `tag`.
fn costs_of(
    src: std::path::PathBuf,
    tag: &str,
    build: impl Fn(&std::path::Path, &std::path::Path) -> xtask::Result<std::path::PathBuf>,
) -> (std::path::PathBuf, std::path::PathBuf, Costs) {
    let dir = scratch_dir(&format!("cost-{}{tag}", src.file_stem().unwrap().to_string_lossy()));
    let exe = build(&src, &dir).unwrap_or_else(|e| panic!("{e}"));
    let costs = xtask::static_cost::kernel_costs(&exe).unwrap_or_else(|e| panic!("{e}"));
    (dir, src, costs)
}

/// Compiles `src` at -O2 into `dir` and returns the device PTX with the
/// runtime linked in, as clang's `-c` compile makes it
/// (`corpus::device_ptx`; `--offload-device-only -S` does not link it).
fn device_ptx(src: &std::path::Path, dir: &std::path::Path) -> (std::path::PathBuf, String) {
    let name = src.file_stem().unwrap().to_string_lossy();
    let ptx = dir.join(format!("{name}-openmp-nvptx64-nvidia-cuda-{}.s", corpus::LINK_ARCH));
    let text = corpus::device_ptx(src, "-O2", &ptx).unwrap_or_else(|e| panic!("{e}"));
    (ptx, text)
}

/// `device_ptx` of a corpus program (`schedules.c`).
fn corpus_ptx(program: &str, dir: &std::path::Path) -> (std::path::PathBuf, String) {
    device_ptx(&xtask::repo_root().join("tests-gpu/programs").join(program), dir)
}

/// `corpus_ptx` of a program with dispatched loops, which a check of their
/// code needs: without the team's counters it would prove nothing.
fn dispatched_loops_ptx(program: &str, dir: &std::path::Path) -> String {
    let (ptx, text) = corpus_ptx(program, dir);
    assert!(text.contains("TEAM_COUNTERS"), "{program}: no dispatched loop's counters, so this checks nothing: {}", ptx.display());
    text
}

/// clang with the corpus's flags, `-O2 -foffload-lto`, and `--save-temps`
/// for the LTO link, which leaves its PTX beside the output
/// ([`lto_link_ptx`]); the caller adds inputs, output and folder.
fn lto_link_keeping_ptx() -> std::process::Command {
    let mut link = std::process::Command::new(tools::clang().unwrap());
    link.args(["-O2", "-foffload-lto", "-Wl,--save-temps"]).args(corpus::user_flags(corpus::LINK_ARCH).unwrap());
    link
}

/// A corpus program linked with `-O2 -foffload-lto` in `dir`, and the PTX
/// of the LTO link.
fn lto_ptx(program: &str, dir: &std::path::Path) -> (std::path::PathBuf, String) {
    let exe = dir.join(program);
    tools::run(lto_link_keeping_ptx().arg(corpus_source(program)).arg("-o").arg(&exe).current_dir(dir)).unwrap_or_else(|e| panic!("{e}"));
    lto_link_ptx(&exe)
}

/// The PTX `--save-temps` leaves beside `exe` from its LTO link.
fn lto_link_ptx(exe: &std::path::Path) -> (std::path::PathBuf, String) {
    let name = exe.file_name().unwrap().to_string_lossy().into_owned();
    let ptx = std::fs::read_dir(exe.parent().unwrap())
        .unwrap()
        .filter_map(|e| e.ok().map(|e| e.path()))
        .find(|p| p.extension().is_some_and(|x| x == "s") && p.file_name().unwrap().to_string_lossy().starts_with(&format!("{name}.")));
    let ptx = ptx.unwrap_or_else(|| panic!("no PTX from the LTO link of {}", exe.display()));
    let text = std::fs::read_to_string(&ptx).unwrap();
    (ptx, text)
}

/// The PTX of the first kernel of `text` whose name `wanted` accepts.
fn kernel_body<'a>(text: &'a str, ptx: &std::path::Path, wanted: impl Fn(&str) -> bool) -> &'a str {
    let start = text
        .match_indices(".entry ")
        .map(|(i, _)| i)
        .find(|&i| text[i + ".entry ".len()..].split('(').next().is_some_and(&wanted))
        .unwrap_or_else(|| panic!("no such kernel in {}", ptx.display()));
    &text[start..start + text[start..].find("\n}\n").unwrap()]
}

/// A fresh folder for one test's files, named by `tag` and the process; the
/// test removes it when it passes.
fn scratch_dir(tag: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("omprt-{tag}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// The SPMD workhorse (`target teams distribute parallel for`, saxpy.c)
/// takes at most 16 registers, no stack, no shared memory and no call
/// (LLVM 19's runtime: 20 / 0 / 0). That
/// needs openmp-opt to fold every runtime path of the kernel: the nested and
/// serialized paths (behind the kernel environment's MayUseNestedParallelism),
/// every write of a thread state, and the ICV queries inside the region
/// (behind the `level == 1` fact `spmd_region` states). A runtime change that
/// hides a value from openmp-opt (a memcpy into the team state, an atomic
/// exchange, an unconditional heap path) shows up here as registers, shared
/// bytes or a call.
#[test]
fn spmd_kernel_keeps_its_static_cost() {
    let (dir, src, costs) = saxpy_costs("-O2");
    assert_eq!(costs.len(), 1, "{costs:?}");
    let (name, cost) = costs.iter().next().unwrap();
    assert!(cost.registers <= 16, "{name}: {} registers", cost.registers);
    assert_eq!(cost.stack_bytes, 0, "{name}: stack frame");
    assert_eq!(cost.smem_bytes, 0, "{name}: static shared memory");
    // Every ICV query reads the thread-state pointer; an acquire load there
    // (`ld.acquire.sys`) would sit in this kernel's loop, ten times per region.
    let (ptx, text) = device_ptx(&src, &dir);
    assert!(text.contains(".entry") && text.contains("__omp_rtl_"), "no kernel with the runtime linked in {}", ptx.display());
    assert!(!text.contains("ld.acquire"), "an acquire load in saxpy's device code");
    assert!(!text.contains("call.uni"), "a call left in saxpy's device code (heap, trap or runtime path not folded)");
    let _ = std::fs::remove_dir_all(&dir);
}

/// With `-foffload-lto` the runtime comes from `libompdevice.a` and is linked
/// after the user's compile; its exported functions are hidden there, so the
/// LTO link internalises them and openmp-opt folds the team state as in the
/// default compile: saxpy's kernel takes fewer than 24 registers (LLVM 19's
/// LTO build: 24), no stack and no shared memory. With the runtime's
/// functions visible the LTO link keeps them, and sched.c's kernels store
/// the team state (112 bytes of shared memory) and need 48-78 registers.
#[test]
fn lto_link_internalises_the_runtime_and_folds_its_state() {
    let (dir, _, costs) = lto_program_costs("saxpy");
    assert_eq!(costs.len(), 1, "{costs:?}");
    let (name, cost) = costs.iter().next().unwrap();
    assert!(cost.registers < 24, "{name}: {} registers", cost.registers);
    assert_eq!(cost.stack_bytes, 0, "{name}: stack frame");
    assert_eq!(cost.smem_bytes, 0, "{name}: static shared memory (the team state was not folded)");
    let _ = std::fs::remove_dir_all(&dir);
}

/// With `-foffload-lto` every parallel region is inlined into its kernel, as
/// in the default compile: the LTO member calls clang's outlined functions
/// with a plain `call` (`ir_rewrite::for_lto`), which openmp-opt makes direct.
/// A region left out of line takes its two thread-id slots on the stack, so a
/// kernel that calls one has a stack frame: with `invoke`s in the runtime,
/// 18 of schedules.c's kernels call their region (8 bytes of stack each;
/// `dynamic_1` 48 registers, 27 inlined). No kernel of schedules.c has one.
#[test]
fn lto_link_inlines_the_parallel_regions() {
    let (dir, _, costs) = lto_program_costs("schedules");
    assert!(costs.len() > 30, "{costs:?}");
    let framed: Vec<&String> = costs.iter().filter(|(_, c)| c.stack_bytes > 0).map(|(name, _)| name).collect();
    assert!(framed.is_empty(), "kernels with a stack frame (a region called, not inlined): {framed:?}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// A kernel that calls a function takes at least 24 registers: ptxas -c
/// compiles a `.func` to the calling convention's registers and nvlink gives
/// the kernel the most of anything it calls (a function of one shared load
/// is enough). In a file with kernels of both modes openmp-opt cannot fold
/// `__kmpc_is_spmd_exec_mode` in the runtime's shared functions, so the
/// query is inlined after openmp-opt: left a call (`noinline`), it costs the
/// LTO build of state_machines.c's SPMDized kernel 24 registers and 5 bytes
/// of shared memory. The kernel takes fewer than 24 registers and no shared
/// memory (LLVM 19's LTO build: 10 and none).
#[test]
fn lto_link_inlines_the_mode_query_it_cannot_fold() {
    let (dir, _, costs) = lto_program_costs("state_machines");
    let (name, cost) = costs.iter().find(|(name, _)| name.ends_with("_l11")).unwrap_or_else(|| panic!("no l11 kernel: {costs:?}"));
    assert!(cost.registers < 24, "{name}: {} registers (a call left in the kernel?)", cost.registers);
    assert_eq!(cost.smem_bytes, 0, "{name}: static shared memory");
    let _ = std::fs::remove_dir_all(&dir);
}

/// `detach`'s functions, which the runtime calls through a table that only
/// a program with `detach` publishes (`detach::hooks`): indirect calls, out
/// of line by design.
fn is_detach_hook(name: &str) -> bool {
    name.contains("omprt_device_rtl5tasks6detach")
}

/// A runtime function in a linked image: `__kmpc_*`/`omp_*` entry points and
/// the runtime's own (Rust-mangled) functions.
fn is_runtime_function(name: &str) -> bool {
    name.starts_with("__kmpc_") || name.starts_with("omp_") || name.starts_with("_RN")
}

/// A static schedule over a constant trip count below 2^16 divides it by the
/// team size, which LLVM knows is at most 1024: unless the runtime hides the
/// divisor's range (`arch::wide_divisor`), LLVM makes that a 16-bit division
/// and ptxas -c a routine call. With the 32-bit division small_loop.c's
/// unchunked kernel takes at most 16 registers; with the call, 24 (LLVM 19:
/// 24).
#[test]
fn static_schedule_over_a_small_constant_trip_count_stays_cheap() {
    let (dir, _, costs) = program_costs("small_loop", "-O2");
    let (name, cost) = costs.iter().find(|(name, _)| name.ends_with("_l12")).unwrap_or_else(|| panic!("no l12 kernel: {costs:?}"));
    assert!(cost.registers <= 16, "{name}: {} registers", cost.registers);
    let _ = std::fs::remove_dir_all(&dir);
}

/// openmp-opt adds calls to runtime functions after clang has linked the
/// runtime in (SPMD-ization guards call `__kmpc_barrier_simple_spmd`, state
/// machines `__kmpc_get_hardware_thread_id_in_block`). The runtime keeps those
/// in every link (`ir_rewrite::KEEP_LINKED`), so the calls find a definition
/// and are inlined; left calls into libompdevice.a, they cost a kernel
/// registers (teams.c's kernel: 24 with the call, 14 without).
#[test]
fn calls_openmp_opt_adds_are_inlined() {
    let dir = scratch_dir("keep-linked");
    for program in ["dyn_shared", "teams", "state_machines"] {
        let (ptx, text) = corpus_ptx(&format!("{program}.c"), &dir);
        assert!(text.contains(".entry"), "no kernel in {}", ptx.display());
        for name in xtask::ir_rewrite::KEEP_LINKED {
            assert!(!text.contains(&format!("call.uni {name},")) && !text.contains(&format!("(retval0), {name},")), "{program}: a call of {name} left in {}", ptx.display());
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// An SPMD kernel in a file with generic ones (where openmp-opt cannot fold
/// the mode in the team state) makes no call: a call costs a kernel
/// registers. Its end must not call `free` for per-thread arrays it never
/// made (the team gives them back to a list the next allocation frees,
/// `deferred_free`), and the trap for a generic-mode region without a wrapper
/// must not `printf` (its message needs `-fopenmp-target-debug`,
/// `debug::contract`): the `free` costs schedules.c's `schedule(dynamic, 1)`
/// kernel 4 registers, the `printf` its `schedule(static)` kernel 8 (16
/// without it, as with LLVM 19). The region entry asks
/// `__kmpc_is_spmd_exec_mode`, which openmp-opt folds per kernel, so that
/// trap is not in such kernels at all; an entry that reads the team state's
/// mode brings it back.
#[test]
fn spmd_kernel_in_a_mixed_file_makes_no_call() {
    let dir = scratch_dir("kernel-end");
    let (ptx, text) = corpus_ptx("schedules.c", &dir);
    let body = kernel_body(&text, &ptx, |name| name.contains("_static_unchunked_l") && name.ends_with("_1"));
    assert!(body.contains("bar.sync"), "not the kernel's body: {}", ptx.display());
    assert!(!body.contains("trap;"), "the region entry's mode did not fold: the wrapper-less region's trap is in {}", ptx.display());
    assert!(!body.contains("call"), "a call left in the kernel ({})", ptx.display());
    let _ = std::fs::remove_dir_all(&dir);
}

/// In a kernel openmp-opt SPMDized, the team's reduction variables are one
/// shared copy, so the last team's master folds the teams' records alone; the
/// test that says so must fold in files with kernels of both modes too
/// (large_strides.c), by the reduce list naming a shared variable, or clang's
/// copy callback and its 128-byte buffer in shared memory stay. The
/// master's loop over the records is unrolled twice by LLVM and then carries ptxas's `nounroll` (the
/// `__omprt_unroll_twice` marker): unrolled by ptxas, the kernel takes 48
/// registers rather than 26 (LLVM 19: 31).
#[test]
fn spmdized_teams_reduction_folds_on_the_master_unrolled_twice() {
    let dir = scratch_dir("teams-fold");
    let (ptx, text) = corpus_ptx("large_strides.c", &dir);
    let body = kernel_body(&text, &ptx, |name| name.ends_with("_l12"));
    assert!(body.contains("atom.global.add"), "not the teams reduction's kernel: {}", ptx.display());
    assert!(!body.contains("data_transfer_temporary_storage"), "the team fold (clang's copy callback) stayed in {}", ptx.display());
    assert!(body.contains(".pragma \"nounroll\""), "ptxas may unroll the master's fold loop: {}", ptx.display());
    let _ = std::fs::remove_dir_all(&dir);
}

/// An `ordered` loop keeps its bounds in each thread's record, so a program
/// whose dispatched loops are all `ordered` never writes the team's loop
/// record and the optimiser drops that static: 40 bytes of every kernel's
/// shared memory. schedules.c, with plain dynamic loops, must keep it, or the
/// check proves nothing.
#[test]
fn ordered_loops_leave_the_team_loop_record_out() {
    let dir = scratch_dir("team-loop");
    let declares = |program: &str| {
        // The mangled name gives its length first: `9TEAM_LOOP`, not `17TEAM_LOOP_RECORDS`.
        dispatched_loops_ptx(program, &dir).lines().any(|l| l.starts_with(".shared") && l.contains("9TEAM_LOOP"))
    };
    assert!(declares("schedules.c"), "schedules.c's dynamic loops lost the team's loop record");
    assert!(!declares("ordered.c"), "ordered.c keeps the team's loop record in shared memory");
    let _ = std::fs::remove_dir_all(&dir);
}

/// Only `ordered` loops write the flag that lets `__kmpc_dispatch_next_*`
/// look for an `ordered` record, so in a program without such loops the
/// optimiser folds it, and the record path with its copy of the chunk grabs
/// goes (it costs schedules.c's kernels 27 registers in all at -O2).
/// ordered.c must keep the flag, or the check proves nothing.
#[test]
fn programs_without_ordered_loops_fold_the_ordered_path() {
    let dir = scratch_dir("ordered-flag");
    let keeps_flag = |program: &str| dispatched_loops_ptx(program, &dir).contains("ORDERED_LOOPS_SEEN");
    assert!(keeps_flag("ordered.c"), "ordered.c's loops no longer set the flag");
    assert!(!keeps_flag("schedules.c"), "schedules.c keeps the flag of ordered loops it does not have");
    let _ = std::fs::remove_dir_all(&dir);
}

/// Files compiled apart and linked with `-foffload-lto`, the README's way
/// for device functions in a file without a target region that call the
/// runtime: tests-gpu/programs/separate_compilation links (its expected
/// output is for the GPU run), and the final image's kernels keep the
/// helpers' work: the orphaned loop's store and the reduction's shuffles.
/// In the default compile the helpers' file compiles to empty functions.
#[test]
fn separately_compiled_files_link_with_offload_lto() {
    let summary = corpus::check_multi_file_all(&corpus::Options::default()).unwrap_or_else(|e| panic!("{e}"));
    println!("{}", summary.render());
    assert!(summary.builds.iter().any(|b| b.program == "separate_compilation/"), "the corpus lacks separate_compilation/");
    assert!(summary.ok(), "failures:\n{}", summary.render());
    for b in &summary.builds {
        for needed in ["__kmpc_target_init", "omp_get_thread_num", "__kmpc_for_static_init_4", "__kmpc_nvptx_parallel_reduce_nowait_v2"] {
            assert!(b.needed.contains(needed), "{}: the device IR calls no {needed}", b.program);
        }
    }
    // The link again, keeping the LTO result's PTX (`--save-temps` writes it
    // beside the output).
    let dir = scratch_dir("separate");
    let out = corpus::Options::default().out;
    let objects = ["main", "helpers"].map(|f| out.join(format!("separate_compilation-{f}.O2lto.o")));
    tools::run(lto_link_keeping_ptx().args(&objects).arg("-o").arg(dir.join("a.out")).current_dir(&dir)).unwrap_or_else(|e| panic!("{e}"));
    let (ptx, text) = lto_link_ptx(&dir.join("a.out"));
    let sum_of = kernel_body(&text, &ptx, |name| name.contains("main_l29"));
    assert!(sum_of.contains("shfl.sync"), "the kernel calling helpers.c's sum_of has no shuffle of its reduction: {}", ptx.display());
    let fill = kernel_body(&text, &ptx, |name| name.contains("main_l24"));
    assert!(fill.contains("%tid.x") && fill.contains("st.global"), "the kernel calling helpers.c's fill stores nothing: {}", ptx.display());
    let _ = std::fs::remove_dir_all(&dir);
}

/// def-allocator-var costs only programs that set it: its team copy is a
/// shared static of its own, read (as are the saves and restores of every
/// task) only once a device flag says a thread has set one, and only
/// `omp_set_default_allocator` writes the flag. tasks.c, whose tasks would
/// save and restore it, keeps neither; device_icvs.c, which sets it, keeps
/// both, or the check proves nothing. As a field of the team state the ICV
/// costs reductions_all.c 4 bytes of shared memory and tasks.c l15 6
/// registers.
#[test]
fn programs_that_never_set_a_default_allocator_drop_its_icv() {
    let dir = scratch_dir("def-allocator");
    let (sets, never) = (corpus_ptx("device_icvs.c", &dir).1, corpus_ptx("tasks.c", &dir).1);
    for symbol in ["TEAM_DEF_ALLOCATOR", "DEFAULT_ALLOCATOR_SET"] {
        assert!(sets.contains(symbol), "device_icvs.c sets a default allocator but has no {symbol}");
        assert!(!never.contains(symbol), "tasks.c never sets a default allocator but keeps {symbol}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// In clang's default compile no pass drops a redundant block barrier from a
/// kernel (openmp-opt runs once, before the regions are inlined), so the
/// runtime's own count is what the kernel executes. The benchmark's copy
/// (`target teams distribute parallel for`) has one at its start and two per
/// chunk of the team loop: one at the SPMD region's entry, after which every
/// thread sets the region's fields itself, and one at its end, after which
/// every thread clears them, so no barrier publishes them. The kernel's end
/// barrier, before the release of per-thread arrays, goes with that release
/// in a file that makes none. At most 3 in all.
#[test]
fn spmd_region_in_a_team_loop_costs_two_block_barriers() {
    let dir = scratch_dir("spmd-barriers");
    let (ptx, text) = device_ptx(&xtask::repo_root().join("tests-gpu/bench/stream.c"), &dir);
    let copy = kernel_body(&text, &ptx, |name| name.contains("_copy_l"));
    let barriers = copy.matches("bar.sync").count();
    assert!(barriers <= 3, "{barriers} block barriers in copy: {}", ptx.display());
    let _ = std::fs::remove_dir_all(&dir);
}

/// Only a teams reduction reads the launch environment, so only a kernel
/// whose environment declares one writes it into the team state. In a file
/// with a teams reduction (stream.c's dot) the field stays a shared-memory
/// static; a kernel that writes it without reading it (copy) reserves static
/// shared memory for it: 8 bytes in stream.c, and in BabelStream's OpenMP
/// model, where `ptxas -c` puts the field in one shared block with clang's
/// 128-byte reduction scratch, 136 bytes in every kernel (LLVM 19's
/// whole-program build: 0).
#[test]
fn kernels_without_a_teams_reduction_use_no_shared_memory() {
    let src = xtask::repo_root().join("tests-gpu/bench/stream.c");
    let (dir, _, costs) = costs_of(src, "-O2", |src, dir| corpus::build_executable(src, "-O2", dir));
    let cost = |kernel: &str| costs.iter().find(|(name, _)| name.contains(kernel)).unwrap_or_else(|| panic!("no {kernel} kernel: {costs:?}")).1;
    assert!(cost("_dot_l").smem_bytes > 0, "dot has no teams reduction's shared memory, so this checks nothing: {costs:?}");
    assert_eq!(cost("_copy_l").smem_bytes, 0, "copy reserves shared memory: {costs:?}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// A generic-mode region's entry sizes the team from a plain read of the
/// block size, which LLVM computes once before a team's loop of regions
/// (generic.c): the main thread's path to the entry barrier, which every
/// worker waits for, reads no `%ntid.x`: at most 5 reads in the kernel. An
/// `asm` re-read there makes it 7, 2 of them in that path.
#[test]
fn generic_region_entry_sizes_the_team_outside_the_loop() {
    let dir = scratch_dir("generic-entry");
    let (ptx, text) = device_ptx(&xtask::repo_root().join("tests-gpu/bench/generic.c"), &dir);
    let kernel = kernel_body(&text, &ptx, |name| name.contains("generic_scale_few"));
    let reads = kernel.matches("%ntid.x").count();
    assert!(reads <= 5, "{reads} reads of %ntid.x in generic_scale_few: {}", ptx.display());
    let _ = std::fs::remove_dir_all(&dir);
}

/// With `-foffload-lto` every thread clears an SPMD region's fields after
/// its end barrier, as in the compile-time copy, at no cost to
/// schedules.c's `target parallel for schedule(dynamic)` kernels: at most 520
/// bytes of shared memory and 18 registers (LLVM 19: 1552 bytes, 28). A
/// clearing that keeps the path of a thread's own loop records alive shows
/// here as more of both.
#[test]
fn lto_dynamic_loops_keep_their_shared_memory() {
    let (dir, _, costs) = lto_program_costs("schedules");
    let dynamic: Vec<_> = costs.iter().filter(|(name, _)| name.contains("dynamic") && name.ends_with("_1")).collect();
    assert_eq!(dynamic.len(), 5, "{costs:?}");
    for (name, cost) in dynamic {
        assert!(cost.smem_bytes <= 520, "{name}: {} bytes of shared memory", cost.smem_bytes);
        assert!(cost.registers <= 18, "{name}: {} registers", cost.registers);
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// With `-foffload-lto`, a kernel that ends with its SPMD region ends without
/// a barrier in a program that makes no per-thread array: LLVM knows the
/// device flag that only the making of one sets unset and drops the kernel
/// end's release with its barrier, and openmp-opt then drops the region's end
/// barrier, after which every thread only clears the region's fields.
/// tasks.c's tasks make records: it keeps the flag, or the check proves
/// nothing.
#[test]
fn lto_kernels_end_without_a_barrier_where_no_per_thread_array_is_made() {
    let dir = scratch_dir("lto-kernel-end");
    for (program, kernel) in [("thread_ids", "main_l10"), ("parallel_for", "main_l9")] {
        let (ptx, text) = lto_ptx(program, &dir);
        assert!(!text.contains("PER_THREAD_ARRAYS_MADE"), "{program} keeps the per-thread arrays' flag: {}", ptx.display());
        let body = kernel_body(&text, &ptx, |name| name.ends_with(kernel));
        assert!(!body.contains("bar.sync") && !body.contains("barrier.sync"), "{program}'s {kernel} has a barrier: {}", ptx.display());
    }
    let (ptx, text) = lto_ptx("tasks", &dir);
    assert!(text.contains("PER_THREAD_ARRAYS_MADE"), "tasks.c no longer makes a per-thread array: {}", ptx.display());
    let _ = std::fs::remove_dir_all(&dir);
}

/// The team size a region's `omp_get_num_threads` reads is chosen by a
/// select, not a branch: openmp-opt's first walk of a kernel's branches asks
/// for the value a branch tests before it knows which threads run what, and
/// then keeps the stores it could not rule out. With `-foffload-lto`
/// thread_ids.c l24 (a `num_threads(40)` region whose thread 0 asks, in a
/// kernel whose end has no release) takes at most 8 registers and no shared
/// memory (LLVM 19: 8, 0); with a branch it keeps the team state's size
/// field and its stores: 11 registers and 4 bytes.
#[test]
fn lto_region_team_size_folds_in_a_partial_team() {
    let (dir, _, costs) = lto_program_costs("thread_ids");
    let (name, cost) = costs.iter().find(|(name, _)| name.ends_with("_l24")).unwrap_or_else(|| panic!("no l24 kernel: {costs:?}"));
    assert_eq!(cost.smem_bytes, 0, "{name}: static shared memory (the team size not folded)");
    assert!(cost.registers <= 8, "{name}: {} registers", cost.registers);
    let _ = std::fs::remove_dir_all(&dir);
}

/// A 32-bit dynamic or guided loop with constant stride and chunk takes 16
/// bytes of the team's shared memory, as with LLVM 19's runtime: the counter,
/// and the lower bound and last iteration in one word, the guided shift
/// riding in the counter's top byte (with the loop's 64-bit record the
/// benchmark's uneven_dynamic1 and uneven_guided take 28 and 27 bytes).
#[test]
fn narrow_dynamic_loops_take_sixteen_bytes_of_shared_memory() {
    let src = xtask::repo_root().join("tests-gpu/bench/sched.c");
    let (dir, _, costs) = costs_of(src, "-O2", |src, dir| corpus::build_executable(src, "-O2", dir));
    let dispatched: Vec<_> = costs.iter().filter(|(name, _)| name.contains("uneven_dynamic1") || name.contains("uneven_guided")).collect();
    assert_eq!(dispatched.len(), 2, "{costs:?}");
    for (name, cost) in dispatched {
        assert!(cost.smem_bytes <= 16, "{name}: {} bytes of shared memory", cost.smem_bytes);
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// With `-foffload-lto`, ordered.c's kernels reserve the team's counter and
/// the pointer to the threads' loop records, 16 bytes, and 4 more where the
/// team is smaller than the block (its size): the `ordered` turn is the
/// records array's header word on the heap, and the thread-state array, which
/// these kernels never install, has a static of its own that the link drops
/// (LLVM 19: 16-20 bytes).
#[test]
fn lto_ordered_loops_keep_their_turn_with_the_records() {
    let (dir, _, costs) = lto_program_costs("ordered");
    assert_eq!(costs.len(), 5, "{costs:?}");
    for (name, cost) in &costs {
        assert!(cost.smem_bytes <= 20, "{name}: {} bytes of shared memory", cost.smem_bytes);
    }
    assert!(costs.values().filter(|c| c.smem_bytes <= 16).count() >= 3, "{costs:?}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// In a program whose kernels all run SPMD (dyn_shared.c: openmp-opt
/// SPMDizes both generic ones), nothing waits for a generic-mode region, so
/// the optimiser must drop every generic-mode wrapper, and with them the
/// argument slots. The region entry's generic-mode path holds them, so the
/// entry asks `__kmpc_is_spmd_exec_mode`, which openmp-opt folds per kernel,
/// not the team state's mode, which does not fold in a file with kernels of
/// several modes. With the slots gone, openmp-opt forwards the variables
/// clang globalizes for the region (48 bytes of l30's shared memory).
/// state_machines.c, with a kernel that stays generic, must keep its wrapper,
/// or the check proves nothing.
#[test]
fn all_spmd_program_keeps_no_generic_mode_wrapper() {
    let dir = scratch_dir("all-spmd");
    let program_ptx = |program: &str| {
        let (ptx, text) = corpus_ptx(program, &dir);
        assert!(text.contains(".entry"), "{program}: no kernel in {}", ptx.display());
        (ptx, text)
    };
    let wrapper_funcs = |text: &str| text.lines().filter(|l| l.contains(".func") && l.contains("_wrapper")).count();
    let (ptx, generic) = program_ptx("state_machines.c");
    assert!(wrapper_funcs(&generic) > 0, "state_machines.c's generic kernel lost its wrapper: {}", ptx.display());
    let (ptx, all_spmd) = program_ptx("dyn_shared.c");
    assert_eq!(wrapper_funcs(&all_spmd), 0, "dyn_shared.c, all SPMD, keeps a generic-mode wrapper: {}", ptx.display());
    assert!(!all_spmd.contains("TEAM_ARG_SLOTS"), "dyn_shared.c keeps the argument slots: {}", ptx.display());
    let _ = std::fs::remove_dir_all(&dir);
}

/// A generic-mode region whose captured variables have one address each
/// (bench/generic.c: kernel pointers and variables clang globalizes) reaches
/// its workers without the argument slots: the main thread writes each slot
/// with its own store (`memory::share_variables`), openmp-opt forwards the
/// values to the workers' loads, and the slots fold away: the region's loop
/// reads `c` and `a` with global loads and stores and its factor once. A
/// `memcpy` into the slots leaves generic pointers and a shared load per
/// iteration, and costs the kernel 6 registers and 64 bytes of shared
/// memory.
#[test]
fn generic_region_arguments_reach_the_workers_without_the_slots() {
    let dir = scratch_dir("generic-args");
    let (ptx, text) = device_ptx(&xtask::repo_root().join("tests-gpu/bench/generic.c"), &dir);
    // The state machine compares the region with the wrapper's ID.
    assert!(text.contains("_wrapper_$_ID"), "generic.c's kernels are no longer generic: {}", ptx.display());
    assert!(!text.contains("TEAM_ARG_SLOTS"), "the workers read the region's variables through the argument slots: {}", ptx.display());
    let _ = std::fs::remove_dir_all(&dir);
}

/// mixed_modes.c's region sits in a function that a generic and an SPMD
/// kernel both call, so its entry cannot fold the mode per kernel: the
/// function must keep both region entries and choose at run time, which is
/// the path the program's expected output checks on a GPU. The choice is
/// `__kmpc_is_spmd_exec_mode`, inlined once openmp-opt has folded what it
/// can (a call left in a kernel costs it registers), so the test looks for
/// both entries: the generic one hands the workers the region's wrapper, the
/// SPMD one holds the threads outside the team in a `barrier.red.or` (that
/// no call is left: the corpus test). If the
/// kernels stop calling the function or openmp-opt learns to fold the mode
/// there, the program misses that path and needs another shape.
#[test]
fn region_shared_by_both_modes_asks_the_mode_at_run_time() {
    let dir = scratch_dir("mixed-modes");
    let (ptx, text) = corpus_ptx("mixed_modes.c", &dir);
    // openmp-opt gives the kernels an internalized copy of `bump`.
    let callee = "bump_$_internalized";
    let calls = text.lines().filter(|l| l.trim_start().starts_with(&format!("call.uni {callee},"))).count();
    assert!(calls >= 4, "the kernels call {callee} {calls} times, not at their 4 call sites: {}", ptx.display());
    let body: Vec<&str> = text
        .lines()
        .skip_while(|l| !l.starts_with(&format!(".func {callee}(")))
        .take_while(|l| *l != "}")
        .collect();
    assert!(!body.is_empty(), "{callee} is not defined: {}", ptx.display());
    let code = |l: &&&str| !l.trim_start().starts_with("//") && !l.trim_start().starts_with('$');
    assert!(body.iter().filter(code).any(|l| l.contains("bump_omp_outlined_wrapper")), "{callee} lost the generic-mode entry: {}", ptx.display());
    assert!(body.iter().filter(code).any(|l| l.contains("barrier.red.or")), "{callee} lost the SPMD entry: {}", ptx.display());
    let _ = std::fs::remove_dir_all(&dir);
}

/// At -O0 only the always-inliner runs: inlining `__kmpc_parallel_60` with
/// clang's constant `nargs` must leave only that arity's call, or the
/// 32-argument one sets every kernel's registers (156; LLVM 19: 59). At most
/// 64.
#[test]
fn unoptimised_kernel_keeps_one_region_arity() {
    let (dir, _, costs) = saxpy_costs("-O0");
    let (name, cost) = costs.iter().next().expect("no kernel in saxpy at -O0");
    assert!(cost.registers <= 64, "{name}: {} registers at -O0", cost.registers);
    let _ = std::fs::remove_dir_all(&dir);
}

/// At -O0 a kernel needs the registers of the largest runtime function it can
/// reach, and in schedules.c (every loop kind, regions called through
/// pointers) every kernel reaches the dispatched loops. ptxas -O0 gives a
/// function about as many registers as it has code, so those stay split
/// into functions of their own at -O0 (`out_of_line_at_o0!`): 54 registers,
/// 60 in the two kernels with 64-bit dispatched loops (75 with `init_bounds`
/// in one function; LLVM 19: 54-60).
#[test]
fn unoptimised_dispatched_loops_stay_small() {
    let (dir, _, costs) = program_costs("schedules", "-O0");
    assert!(costs.len() > 30, "{costs:?}");
    for (name, cost) in &costs {
        assert!(cost.registers <= 60, "{name}: {} registers at -O0", cost.registers);
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// The functions kept apart at -O0 are inlined when the user optimises:
/// none of them is left in schedules.c's PTX at -O2.
#[test]
fn functions_apart_at_o0_are_inlined_when_optimising() {
    const APART: [&str; 12] = [
        "enter_data_environment",
        "next_static",
        "next_guided",
        "next_dynamic",
        "next_ordered",
        "emit_team",
        "grab_guided",
        "push_private",
        "publish_team_loop",
        "_apart",
        "StaticCursor10start_into",
        "exit_data_environment",
    ];
    let ir = runtime_ir();
    let apart: Vec<String> = ir
        .lines()
        .filter(|l| l.starts_with("define") && APART.iter().any(|f| l.contains(f)))
        .filter_map(|l| l.split('@').nth(1)?.split('(').next().map(str::to_string))
        .collect();
    for fragment in APART {
        assert!(apart.iter().any(|f| f.contains(fragment)), "no function {fragment} in the runtime: {apart:?}");
    }
    let dir = scratch_dir("apart");
    let (_, ptx) = corpus_ptx("schedules.c", &dir);
    // Inlined code keeps the names in comments (`// %..._RINv...new.exit`).
    let code: Vec<&str> = ptx.lines().map(|l| l.split("//").next().unwrap_or("")).collect();
    for name in &apart {
        assert!(!code.iter().any(|l| l.contains(name.as_str())), "{name} is still a function at -O2");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// These entry points reach clang with `alwaysinline`: the reductions, so
/// its shuffle and copy callbacks become direct calls in the kernel; the
/// region calls, so that each keeps only its arity (see `parallel.rs`).
#[test]
fn entry_points_meant_for_inlining_are_always_inlined() {
    let ir = runtime_ir();
    for name in ["__kmpc_nvptx_parallel_reduce_nowait_v2", "__kmpc_nvptx_teams_reduce_nowait_v2", "__kmpc_parallel_60", "__kmpc_parallel_51"] {
        let define = ir.lines().find(|l| l.starts_with("define") && l.contains(&format!("@{name}("))).unwrap_or_else(|| panic!("{name} not defined"));
        let group = define.split_whitespace().rev().find(|w| w.starts_with('#')).unwrap_or_else(|| panic!("{name}: no attributes"));
        let attrs = ir.lines().find(|l| l.starts_with(&format!("attributes {group} = "))).unwrap();
        assert!(attrs.contains("alwaysinline"), "{name}: {attrs}");
    }
}

/// At -O2 (`cargo xtask static-cost`) no kernel of the corpus needs more
/// registers, stack or static shared memory with omprt (clang 22) than with
/// LLVM 19's runtime (clang 19).
#[test]
fn no_kernel_costs_more_than_with_llvm19() {
    assert_no_gaps_but("-O2", &[]);
}

/// The same bar at -O0 (clang's and ptxas's), where a kernel's stack is the
/// deepest chain of frames it can call, through clang's indirect calls too.
#[test]
fn no_kernel_costs_more_than_with_llvm19_at_o0() {
    assert_no_gaps_but("-O0", &[]);
}

/// The same bar with `-foffload-lto`, both runtimes linked after the
/// user's code.
#[test]
fn no_kernel_costs_more_than_with_llvm19_with_offload_lto() {
    assert_no_gaps_but("--lto", &[]);
}

/// The tables of `cargo xtask report`, each built once for this test binary:
/// the tests above read the static-cost tables, and
/// `lowering_report_is_what_cargo_xtask_report_writes` all of them.
fn report_tables() -> &'static report::Tables {
    static TABLES: std::sync::OnceLock<report::Tables> = std::sync::OnceLock::new();
    TABLES.get_or_init(|| report::Tables::new(&xtask::repo_root().join("target/omprt/report-test")))
}

/// docs/lowering-report.md is what `cargo xtask report` writes for this
/// tree's runtime, so it cannot drift from the tables, and every explanation
/// in `xtask/src/report_notes.rs` still has its case.
#[test]
fn lowering_report_is_what_cargo_xtask_report_writes() {
    let tables = report_tables();
    tables.build_all();
    let generated = report::render(tables).unwrap_or_else(|e| panic!("{e}"));
    let path = report::committed_path();
    let committed = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    if let Some(d) = report::first_difference(&committed, &generated) {
        panic!("{} differs from what 'cargo xtask report' writes (run it to regenerate the file): {d}", path.display());
    }
    let unused = report::unused_notes(tables).unwrap_or_else(|e| panic!("{e}"));
    assert!(unused.is_empty(), "xtask/src/report_notes.rs explains cases the tables no longer have: {unused:?}");
}

/// `table`: the static-cost table (`-O2`, `-O0`, `--lto`); `known`:
/// (program, kernel line, what, the most omprt may use).
fn assert_no_gaps_but(table: &str, known: &[(&str, &str, &str, u64)]) {
    let rows = report_tables().costs(table).as_ref().unwrap_or_else(|e| panic!("{e}"));
    let gaps = xtask::static_cost::gaps(rows);
    let mut problems = Vec::new();
    for g in &gaps {
        match known.iter().find(|k| k.0 == g.program && k.1 == g.kernel && k.2 == g.what) {
            None => problems.push(format!("{} {}: {} {} (LLVM 19: {})", g.program, g.kernel, g.what, g.omprt, g.llvm19)),
            Some(k) if g.omprt > k.3 => {
                problems.push(format!("{} {}: {} {}, more than the {} listed (LLVM 19: {})", g.program, g.kernel, g.what, g.omprt, k.3, g.llvm19))
            }
            Some(_) => {}
        }
    }
    for k in known {
        if !gaps.iter().any(|g| (g.program.as_str(), g.kernel.as_str(), g.what) == (k.0, k.1, k.2)) {
            problems.push(format!("{} {}: {} no longer worse than with LLVM 19 (or gone): take it off the list", k.0, k.1, k.2));
        }
    }
    assert!(rows.iter().filter(|r| r.llvm19.is_some()).count() >= 60, "too few kernels built against LLVM 19: {}", rows.len());
    assert!(problems.is_empty(), "at {table}:\n{}", problems.join("\n"));
}
