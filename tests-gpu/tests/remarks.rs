//! openmp-opt with omprt linked in: generic kernels are SPMDized where they
//! can be (OMP120), the remark names what prevents it (OMP121), and a kernel
//! that stays generic gets a compiler-built state machine (OMP130–133) that
//! drives omprt's worker protocol. (With the runtime only declared,
//! openmp-opt builds none; docs/abi.md#generic-mode-workers.)

use xtask::remarks::{Remark, remarks};
use xtask::repo_root;
use xtask::static_cost::Runtime;

fn has(r: &[Remark], line: u32, id: &str) -> bool {
    r.iter().any(|x| x.line == line && x.id == id)
}

#[test]
fn state_machine_program_gets_the_expected_remarks() {
    let src = repo_root().join("tests-gpu/programs/state_machines.c");
    let work = repo_root().join("target/omprt/remarks");
    let r = remarks(&src, Runtime::Omprt, &work).unwrap_or_else(|e| panic!("{e}"));
    println!("{r:?}");
    assert!(has(&r, 11, "OMP120"), "first kernel not SPMDized: {r:?}");
    assert!(has(&r, 19, "OMP121"), "printf should prevent SPMDization: {r:?}");
    assert!(r.iter().any(|x| x.line == 17 && ["OMP130", "OMP131", "OMP132"].contains(&x.id.as_str())), "no custom state machine: {r:?}");
    // LLVM 19's runtime under clang 19 gives the same decisions.
    let theirs = remarks(&src, Runtime::Llvm19, &work).unwrap_or_else(|e| panic!("{e}"));
    let decisions = |r: &[Remark]| -> Vec<Remark> { r.iter().filter(|x| x.id.starts_with("OMP12") || x.id.starts_with("OMP13")).cloned().collect() };
    // clang 19 drops the location of some remarks: compare the ids only.
    let ids = |r: &[Remark]| -> Vec<String> {
        let mut v: Vec<String> = decisions(r).into_iter().map(|x| x.id).collect();
        v.sort();
        v
    };
    assert_eq!(ids(&r), ids(&theirs), "omprt {r:?} vs LLVM 19 {theirs:?}");
}
