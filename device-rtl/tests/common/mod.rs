//! Helpers shared by the host-simulation tests: kernel environments as clang
//! 22 emits them, and the launch-environment sentinel.
#![allow(dead_code)]

use omprt_abi::{ConfigurationEnvironment, ExecMode, KLE_NONE, KernelEnvironment, KernelLaunchEnvironment};

/// A kernel environment like clang 22's for a kernel of `mode`.
pub fn kernel_env(mode: ExecMode, max_threads: i32) -> KernelEnvironment {
    KernelEnvironment {
        configuration: ConfigurationEnvironment {
            use_generic_state_machine: u8::from(mode == ExecMode::GENERIC),
            may_use_nested_parallelism: 1,
            exec_mode: mode.bits(),
            min_threads: 1,
            max_threads,
            min_teams: 0,
            max_teams: 0,
            reduction_data_size: 0,
            reduction_buffer_length: 0,
        },
        ident: core::ptr::null(),
        dynamic_env: core::ptr::null_mut(),
    }
}

/// What LLVM 22's plugin passes as the launch environment without a teams
/// reduction: all ones, never to be dereferenced.
pub fn no_launch_env() -> *mut KernelLaunchEnvironment {
    KLE_NONE as *mut KernelLaunchEnvironment
}

/// A `Sync` wrapper so test closures can share a kernel environment.
pub struct Shared<T>(pub T);
unsafe impl<T> Sync for Shared<T> {}
impl<T> Shared<T> {
    /// Borrows the whole wrapper (a closure using `.0` would capture the field alone).
    pub fn get(&self) -> &T {
        &self.0
    }
}

/// Runs `f` and returns its panic message (the simulation turns traps into panics).
pub fn trap_message(f: impl FnOnce() + std::panic::UnwindSafe) -> String {
    trapped(f).unwrap_or_else(|| panic!("expected a trap, but the code returned"))
}

/// Runs `f` with the panic hook silenced: the message of the trap it hit, or
/// `None` when it returned.
pub fn trapped(f: impl FnOnce() + std::panic::UnwindSafe) -> Option<String> {
    let prev = std::panic::take_hook();
    std::panic::set_hook(Box::new(|_| {}));
    let r = std::panic::catch_unwind(f);
    std::panic::set_hook(prev);
    let e = r.err()?;
    Some(e.downcast_ref::<String>().cloned().or_else(|| e.downcast_ref::<&str>().map(|s| s.to_string())).unwrap_or_default())
}
