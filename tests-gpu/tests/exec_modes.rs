//! Execution modes as clang 22 + openmp-opt really lower the corpus, read
//! back from the built executables with omprt's image reader (the kernel
//! environments the host plugin would read). Needs clang-22 and the built
//! runtime (`scripts/setup.sh`, `cargo xtask build-device`); a missing tool
//! fails the test with that instruction.
//!
//! Observed with clang 22 (docs/abi.md#kernel-environment, #execution-modes):
//! * `target parallel for` / `target teams distribute parallel for` are SPMD
//!   (2) at -O2;
//! * `target teams` with sequential code is GENERIC (1) with the generic state
//!   machine at -O0, and openmp-opt SPMDizes it to GENERIC_SPMD (3) at -O2,
//!   which also drops the state machine and nested parallelism.

use omprt_abi::ExecMode;
use omprt_host::image::{self, Kernel};
use omprt_host::Layout;
use std::path::PathBuf;

/// The kernels of `tests-gpu/programs/<program>` built at `opt` for sm_90,
/// after checking that each has a kernel environment.
fn kernels(program: &str, opt: &str) -> Vec<Kernel<'static>> {
    let layout = Layout::of_this_checkout();
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("exec_modes");
    std::fs::create_dir_all(&dir).unwrap();
    let exe = dir.join(format!("{program}{opt}"));
    layout
        .compile(&layout.programs_dir().join(program), opt, "sm_90", &exe)
        .unwrap_or_else(|e| panic!("building {program} {opt}: {e}"));
    // Leaked so the kernels can borrow it; a test process reads a handful.
    let bytes: &'static [u8] = Vec::leak(std::fs::read(&exe).unwrap());
    let input = image::read(bytes).unwrap_or_else(|e| panic!("{program} {opt}: {e}"));
    assert_eq!(input.images.len(), 1, "{program} {opt}: one sm_90 image expected");
    let cubin = input.images[0]
        .cubin()
        .unwrap_or_else(|| panic!("{program} {opt}: the image is not a cubin"))
        .unwrap_or_else(|e| panic!("{program} {opt}: {e}"));
    assert!(!cubin.kernels.is_empty(), "{program} {opt}: no OpenMP kernels found");
    for k in &cubin.kernels {
        assert!(k.environment.is_some(), "{program} {opt}: {} has no kernel environment", k.name);
    }
    cubin.kernels
}

fn describe(kernels: &[Kernel<'_>]) -> String {
    kernels.iter().map(|k| format!("{} {} {:?}\n", k.name, image::mode_name(k.mode()), k.environment)).collect()
}

#[test]
fn combined_parallel_constructs_are_spmd_at_o2() {
    for (program, expected) in [("saxpy.c", 1), ("parallel_for.c", 2)] {
        let ks = kernels(program, "-O2");
        assert_eq!(ks.len(), expected, "{program}:\n{}", describe(&ks));
        for k in &ks {
            assert!(k.mode().is_spmd(), "{program}: {} is not SPMD:\n{}", k.name, describe(&ks));
            assert_eq!(k.mode(), ExecMode::SPMD, "{program}: clang emits plain SPMD here, not SPMDized generic");
            let env = k.environment.unwrap();
            assert_eq!(env.use_generic_state_machine, 0, "{program}: SPMD kernels run no state machine");
        }
    }
}

#[test]
fn teams_is_generic_at_o0_and_spmdized_at_o2() {
    let o0 = kernels("teams.c", "-O0");
    assert_eq!(o0.len(), 1, "{}", describe(&o0));
    let env = o0[0].environment.unwrap();
    assert_eq!(o0[0].mode(), ExecMode::GENERIC, "{}", describe(&o0));
    assert_eq!(env.use_generic_state_machine, 1, "{}", describe(&o0));
    // num_teams(8) is a constant; thread_limit defaults to 128.
    assert_eq!((env.min_teams, env.max_teams, env.max_threads), (8, 8, 128));

    let o2 = kernels("teams.c", "-O2");
    assert_eq!(o2.len(), 1, "{}", describe(&o2));
    let env = o2[0].environment.unwrap();
    assert_eq!(o2[0].mode(), ExecMode::GENERIC_SPMD, "openmp-opt did not SPMDize teams.c:\n{}", describe(&o2));
    assert_eq!(env.use_generic_state_machine, 0, "{}", describe(&o2));
    assert_eq!(env.may_use_nested_parallelism, 0, "{}", describe(&o2));
}
