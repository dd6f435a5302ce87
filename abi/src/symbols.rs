//! Symbol names the compiler, the runtime and the host agree on.

/// Suffix of the per-kernel constant `KernelEnvironment` global.
pub const KERNEL_ENVIRONMENT_SUFFIX: &str = "_kernel_environment";
/// Suffix of the per-kernel `DynamicEnvironment` global.
pub const DYNAMIC_ENVIRONMENT_SUFFIX: &str = "_dynamic_environment";
/// Written by the host plugin into every loaded image.
pub const DEVICE_ENVIRONMENT: &str = "__omp_rtl_device_environment";
/// Prefix of every OpenMP offload kernel.
pub const KERNEL_PREFIX: &str = "__omp_offloading_";

/// Configuration globals clang emits as `weak_odr hidden constant i32` in
/// every device TU compiled without `-nogpulib` (docs/abi.md#configuration-globals); the
/// runtime provides weak zero defaults.
pub const CONFIG_GLOBALS: [&str; 5] = [
    "__omp_rtl_debug_kind",
    "__omp_rtl_assume_teams_oversubscription",
    "__omp_rtl_assume_threads_oversubscription",
    "__omp_rtl_assume_no_thread_state",
    "__omp_rtl_assume_no_nested_parallelism",
];
