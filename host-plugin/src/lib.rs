//! omprt's host side: everything that runs on the CPU.
//!
//! * [`layout`]: where this checkout's runtime lives and the clang 22 flags
//!   that compile against it;
//! * [`image`]: reading clang-22 OpenMP offload executables and cubins
//!   (device images, kernels, kernel environments, resources) with no GPU;
//! * [`driver`]: the CUDA driver, loaded at run time (no link-time
//!   dependency, so the crate builds and its tests run on machines without
//!   one);
//! * [`launch`]: launch geometry the way LLVM 22's libomptarget chooses it,
//!   and kernel launches with the launch-environment parameter;
//! * [`report`]: the tables `omprt info` and `omprt devices` print;
//! * [`doctor`]: `omprt doctor`, whether offloading works on this machine.

pub mod doctor;
pub mod driver;
pub mod image;
pub mod launch;
pub mod layout;
pub mod report;

pub use layout::{valid_arch, Layout};
