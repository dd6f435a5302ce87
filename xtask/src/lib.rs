//! omprt's build and check tooling, used by the `cargo xtask` CLI and by the
//! workspace's tests.
//!
//! * [`device_build`]: device-rtl → `libomptarget-nvptx.bc` + `libompdevice.a`
//! * [`fortran_modules`]: flang's module constants for the device (an archive member)
//! * [`fortran_runtime`]: the table of flang-rt entry points the Fortran corpus needs
//! * [`ir_rewrite`]: the post-link IR step (shared memory, weak defaults, checks)
//! * [`abi_table`]: conformance against LLVM 22's `OMPKinds.def`
//! * [`corpus`]: compiling OpenMP programs with clang 22 against the runtime
//! * [`prose`]: comment lines that record history (dates, figures, outside references)
//! * [`remarks`]: openmp-opt remark ids per program and runtime
//! * [`package`]: the Debian package and the tarball (`cargo xtask package`)
//! * [`progress`]: `N/M` progress lines of long commands on a terminal
//! * [`plot`]: BabelStream's results as an SVG bar chart (`cargo xtask plot`)
//! * [`static_cost`]: linked kernels' registers/stack/shared memory, omprt vs LLVM 19's runtime
//! * [`bench_cost`]: the same for the benchmark kernels, with GCC 12's as a third column
//! * [`report`]: docs/lowering-report.md from those tables ([`report_notes`]: its explanations)
//! * [`whole_program`]: kernels' registers if ptxas compiled the LTO module whole
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
pub mod fortran_registers;
pub mod fortran_runtime;
pub mod ir_rewrite;
pub mod prose;
pub mod package;
pub mod progress;
pub mod plot;
pub mod lit;
pub mod remarks;
pub mod report;
pub mod report_notes;
pub mod static_cost;
pub mod tools;
pub mod whole_program;

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
