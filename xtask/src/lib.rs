//! omprt's build and check tooling, used by the `cargo xtask` CLI and by the
//! workspace's tests.
//!
//! * [`device_build`]: device-rtl → `libomptarget-nvptx.bc` + `libompdevice.a`
//! * [`fortran_modules`]: flang's module constants for the device (an archive member)
//! * [`ir_rewrite`]: the post-link IR step (shared memory, weak defaults, checks)
//! * [`abi_table`]: conformance against LLVM 22's `OMPKinds.def`
//! * [`corpus`]: compiling OpenMP programs with clang 22 against the runtime
//! * [`remarks`]: openmp-opt remark ids per program and runtime
//! * [`static_cost`]: linked kernels' registers/stack/shared memory, omprt vs LLVM 19's runtime
//! * [`tools`]: locating clang-22, the LLVM tools and the CUDA folder
//! * [`lit`]: LLVM lit tests' directives, feature expressions, substitutions and RUN lines
//! * [`conformance`]: building a lit suite (LLVM's offload tests) against the runtime
//! * [`progress`]: a progress line for long runs

pub mod abi_table;
pub mod bench_cost;
pub mod conformance;
pub mod corpus;
pub mod device_build;
pub mod fortran_modules;
pub mod ir_rewrite;
pub mod lit;
pub mod progress;
pub mod remarks;
pub mod static_cost;
pub mod tools;

use std::path::PathBuf;

/// The repository root (this crate lives in `<root>/xtask`).
pub fn repo_root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).parent().expect("xtask has a parent").to_path_buf()
}

/// Where the built runtime goes: `<root>/target/omprt/lib`.
pub fn runtime_dir() -> PathBuf {
    repo_root().join("target/omprt/lib")
}

/// Result type of the tooling: errors are messages for a person.
pub type Result<T> = std::result::Result<T, String>;
