//! Launching OpenMP kernels the way LLVM 22's libomptarget does
//! (docs/abi.md#launch-environment, #launch-geometry), so that omprt's device runtime sees the
//! same grid and parameter 0 it gets under the real host runtime.
//!
//! [`geometry`] is pure (unit-tested here, no GPU); [`launch`] adds the
//! kernel launch environment and talks to the driver.

use crate::driver::{Context, DriverError, Function};
use omprt_abi::{ConfigurationEnvironment, ExecMode, KLE_NONE};
use std::ffi::c_void;

/// The device facts the plugin's choice depends on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DeviceLimits {
    /// `CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK` (1024 on NVIDIA GPUs).
    pub max_threads_per_block: u32,
    /// `CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X`.
    pub max_blocks: u32,
    pub warp_size: u32,
    /// Threads when no `thread_limit` reached the host: 128 for NVIDIA
    /// (`GV_Default_WG_Size`), or `OMP_TEAMS_THREAD_LIMIT`.
    pub default_threads: u32,
    /// Blocks when no `num_teams` reached the host: NVIDIA's
    /// `GV_Default_Num_Teams`, or `OMP_NUM_TEAMS`.
    pub default_blocks: u32,
}

impl DeviceLimits {
    /// NVIDIA defaults for a device with these limits.
    pub fn nvidia(max_threads_per_block: u32, max_blocks: u32) -> DeviceLimits {
        DeviceLimits { max_threads_per_block, max_blocks, warp_size: 32, default_threads: 128, default_blocks: 3200 }
    }

    /// The defaults as libomptarget overrides them from the environment:
    /// `OMP_TEAMS_THREAD_LIMIT` (threads when no `thread_limit` reached the
    /// host) and `OMP_NUM_TEAMS` (blocks when no `num_teams` did). Values
    /// that are not positive integers are ignored.
    pub fn with_environment(self, var: impl Fn(&str) -> Option<String>) -> DeviceLimits {
        let positive = |name: &str| var(name).and_then(|v| v.trim().parse::<u32>().ok()).filter(|&n| n > 0);
        DeviceLimits {
            default_threads: positive("OMP_TEAMS_THREAD_LIMIT").unwrap_or(self.default_threads),
            default_blocks: positive("OMP_NUM_TEAMS").unwrap_or(self.default_blocks),
            ..self
        }
    }
}

/// What the host program asked for (`KernelArgs` fields); 0 = unspecified.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Request {
    /// `num_teams` clause value.
    pub num_teams: u32,
    /// `thread_limit` clause value.
    pub thread_limit: u32,
    /// Trip count of the distribute loop (`KernelArgs::Tripcount`).
    pub trip_count: u64,
}

impl Request {
    /// The `num_teams` clang's host code passes when it is a compile-time
    /// constant, read back from the kernel environment: plain `target` and
    /// `target parallel` run one team (MaxTeams -1 or 1), `num_teams(N)`
    /// gives N; 0 (unknown, e.g. `target teams distribute`) leaves it to
    /// [`geometry`]. `thread_limit` is not recoverable (128 is also the
    /// default), so it stays unspecified.
    pub fn implied_by(env: &ConfigurationEnvironment) -> Request {
        let num_teams = match env.max_teams {
            -1 => 1,
            n => u32::try_from(n).unwrap_or(0),
        };
        Request { num_teams, ..Request::default() }
    }
}

/// A 1-D launch: `blocks` teams of `threads` threads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Geometry {
    pub blocks: u32,
    pub threads: u32,
}

/// Blocks and threads for a non-bare kernel, following
/// `GenericKernelTy::getNumThreads/getNumBlocks` of LLVM 22's plugin.
///
/// Environment variables reach it through `limits`
/// ([`DeviceLimits::with_environment`]). Not modelled: the SPMD
/// low-trip-count thread reduction (`LIBOMPTARGET_MIN_THREADS_FOR_LOW_TRIP_COUNT`). Bare kernels take
/// `num_teams`/`thread_limit` verbatim (see [`bare_geometry`]).
pub fn geometry(env: &ConfigurationEnvironment, request: Request, limits: DeviceLimits) -> Geometry {
    let mode = env.mode();
    // Only exactly GENERIC gets the extra warp; GENERIC_SPMD kernels run
    // their sequential part on all threads' behalf and do not need it.
    let generic = mode == ExecMode::GENERIC;
    let spmd = mode == ExecMode::SPMD;

    let device_threads = limits.max_threads_per_block.max(1);
    let max_threads = match u32::try_from(env.max_threads) {
        Ok(n) if n > 0 => n.min(device_threads),
        _ => device_threads,
    };
    let preferred = u32::try_from(env.min_threads).unwrap_or(0).max(limits.default_threads);
    let asked = match request.thread_limit {
        0 => preferred,
        limit if generic => limit.saturating_add(limits.warp_size),
        limit => limit,
    };
    let threads = max_threads.min(asked).max(1);

    let block_limit = limits.max_blocks.max(1);
    let blocks = if request.num_teams > 0 {
        request.num_teams.min(block_limit)
    } else {
        let by_trip_count = match request.trip_count {
            0 => u64::MAX,
            n if spmd => (n - 1) / u64::from(threads) + 1,
            n if mode.contains(ExecMode::GENERIC) => n,
            _ => u64::MAX,
        };
        let preferred = by_trip_count.min(u64::from(limits.default_blocks));
        u32::try_from(preferred).unwrap_or(u32::MAX).min(block_limit).max(1)
    };
    Geometry { blocks, threads }
}

/// `ompx_bare` kernels: the clauses are the grid, unchanged (1 if absent).
pub fn bare_geometry(request: Request) -> Geometry {
    Geometry { blocks: request.num_teams.max(1), threads: request.thread_limit.max(1) }
}

/// Timing of one completed launch.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Launched {
    pub geometry: Geometry,
    pub elapsed_ms: f32,
}

/// Launches `kernel` with parameter 0 = the kernel launch environment and
/// then `args` (OpenMP kernels take every mapped argument as a 64-bit
/// pointer or integer), waits for it, and returns its time.
///
/// Without a teams reduction the launch environment is the all-ones sentinel
/// [`KLE_NONE`], as LLVM 22 passes; with one, a zeroed 16-byte
/// `KernelLaunchEnvironment` in device memory whose `reduction_buffer`
/// points to `reduction_data_size * reduction_buffer_length` bytes.
///
/// `param_bytes` (from the cubin's `.nv.info`, see `image::Kernel`) lets the
/// launch refuse an argument count that does not match the kernel.
///
/// # Safety
/// The kernel dereferences whatever device addresses `args` hold: they must
/// be valid for what the kernel does with them.
pub unsafe fn launch(
    ctx: &Context,
    kernel: &Function<'_>,
    env: &ConfigurationEnvironment,
    geometry: Geometry,
    param_bytes: Option<u16>,
    args: &[u64],
) -> Result<Launched, DriverError> {
    let expected = (args.len() + 1) * 8;
    if let Some(bytes) = param_bytes.filter(|&b| usize::from(b) != expected) {
        return Err(DriverError::Usage {
            what: format!("launching {}", kernel.name()),
            detail: format!("the kernel takes {bytes} bytes of parameters, {} arguments give {expected}", args.len()),
        });
    }
    // Both buffers must outlive the kernel: they are dropped after the
    // synchronisation below.
    let (kle, _reduction_buffer) = launch_environment(ctx, env)?;
    let mut values: Vec<u64> = std::iter::once(kle).chain(args.iter().copied()).collect();
    let mut params: Vec<*mut c_void> = values.iter_mut().map(|v| (v as *mut u64).cast::<c_void>()).collect();

    let start = ctx.event()?;
    let end = ctx.event()?;
    start.record()?;
    // SAFETY: one pointer per parameter, each to a u64, matching the
    // kernel's (ptr, i64...) signature (checked against param_bytes when
    // known); device addresses are the caller's obligation (see above).
    unsafe { kernel.launch_raw([geometry.blocks, 1, 1], [geometry.threads, 1, 1], 0, &mut params)? };
    end.record()?;
    end.synchronize()?;
    ctx.synchronize()?;
    let elapsed_ms = end.elapsed_ms_since(&start)?;
    ctx.check()?;
    Ok(Launched { geometry, elapsed_ms })
}

/// Parameter 0 for `env`, and the device memory behind it (if any).
fn launch_environment<'c>(
    ctx: &'c Context,
    env: &ConfigurationEnvironment,
) -> Result<(u64, Option<(crate::driver::DeviceBuffer<'c>, crate::driver::DeviceBuffer<'c>)>), DriverError> {
    if !env.has_teams_reduction() {
        return Ok((KLE_NONE as u64, None));
    }
    let bytes = reduction_buffer_bytes(env).ok_or_else(|| DriverError::Usage {
        what: "allocating the teams-reduction buffer".into(),
        detail: format!("{} x {} bytes is not a valid size", env.reduction_data_size, env.reduction_buffer_length),
    })?;
    let buffer = ctx.alloc(bytes)?;
    let mut kle = [0u8; 16];
    kle[8..].copy_from_slice(&buffer.device_ptr().to_le_bytes());
    let kle_buffer = ctx.upload(&kle)?;
    Ok((kle_buffer.device_ptr(), Some((kle_buffer, buffer))))
}

/// `reduction_data_size * reduction_buffer_length`, if both are positive and
/// the product fits.
pub fn reduction_buffer_bytes(env: &ConfigurationEnvironment) -> Option<usize> {
    let size = usize::try_from(env.reduction_data_size).ok().filter(|&n| n > 0)?;
    let len = usize::try_from(env.reduction_buffer_length).ok().filter(|&n| n > 0)?;
    size.checked_mul(len)
}

#[cfg(test)]
mod tests {
    use super::*;

    const H100: DeviceLimits = DeviceLimits {
        max_threads_per_block: 1024,
        max_blocks: i32::MAX as u32,
        warp_size: 32,
        default_threads: 128,
        default_blocks: 3200,
    };

    /// Initialisers as clang 22 emits them (docs/abi.md#kernel-environment):
    /// `{gsm, nested, mode, min_threads, max_threads, min_teams, max_teams}`.
    fn env(mode: u8, max_threads: i32, max_teams: i32) -> ConfigurationEnvironment {
        ConfigurationEnvironment {
            use_generic_state_machine: u8::from(mode == 1),
            may_use_nested_parallelism: 1,
            exec_mode: mode,
            min_threads: 1,
            max_threads,
            min_teams: max_teams.max(0),
            max_teams,
            reduction_data_size: 0,
            reduction_buffer_length: 0,
        }
    }

    fn req(num_teams: u32, thread_limit: u32, trip_count: u64) -> Request {
        Request { num_teams, thread_limit, trip_count }
    }

    #[test]
    fn plain_generic_target_gets_128_threads_and_no_extra_warp() {
        // `target` at -O0: {1,1,1, 1,128,-1,-1}; clang passes num_teams 1.
        assert_eq!(geometry(&env(1, 128, -1), req(1, 0, 0), H100), Geometry { blocks: 1, threads: 128 });
    }

    #[test]
    fn the_extra_warp_comes_only_with_a_thread_limit_and_is_capped_by_max_threads() {
        // Constant thread_limit(64): CE.MaxThreads = 64 caps 64 + 32.
        assert_eq!(geometry(&env(1, 64, 4), req(4, 64, 0), H100), Geometry { blocks: 4, threads: 64 });
        // Runtime thread_limit(tl): CE.MaxThreads = 0, so tl + 32.
        assert_eq!(geometry(&env(1, 0, -1), req(0, 100, 0), H100).threads, 132);
        // SPMD and GENERIC_SPMD never get the extra warp.
        assert_eq!(geometry(&env(2, 0, 0), req(0, 100, 0), H100).threads, 100);
        assert_eq!(geometry(&env(3, 0, 0), req(0, 100, 0), H100).threads, 100);
        // The device limit caps everything.
        assert_eq!(geometry(&env(1, 0, 0), req(0, 1024, 0), H100).threads, 1024);
    }

    #[test]
    fn blocks_come_from_num_teams_then_the_trip_count_then_the_default() {
        let spmd = env(2, 256, 8);
        assert_eq!(geometry(&spmd, req(8, 256, 1 << 20), H100), Geometry { blocks: 8, threads: 256 });
        // Combined SPMD loop: one iteration per thread.
        assert_eq!(geometry(&env(2, 128, 0), req(0, 0, 1000), H100), Geometry { blocks: 8, threads: 128 });
        // ... capped by the default number of teams for long loops.
        assert_eq!(geometry(&env(2, 128, 0), req(0, 0, 1 << 30), H100).blocks, 3200);
        // Generic `teams distribute`: one team per iteration.
        assert_eq!(geometry(&env(1, 128, 0), req(0, 0, 17), H100).blocks, 17);
        assert_eq!(geometry(&env(3, 128, 0), req(0, 0, 17), H100).blocks, 17);
        // Nothing known: the default.
        assert_eq!(geometry(&env(2, 128, 0), req(0, 0, 0), H100).blocks, 3200);
        // num_teams beyond the device limit is capped.
        let small = DeviceLimits { max_blocks: 10, ..H100 };
        assert_eq!(geometry(&spmd, req(1000, 0, 0), small).blocks, 10);
    }

    #[test]
    fn constant_team_counts_are_implied_by_the_environment() {
        // `target parallel for`: {0,1,2, 1,128,1,1} -> one team, not 3200.
        let parallel = env(2, 128, 1);
        assert_eq!(Request::implied_by(&parallel).num_teams, 1);
        assert_eq!(geometry(&parallel, Request::implied_by(&parallel), H100).blocks, 1);
        assert_eq!(Request::implied_by(&env(1, 128, -1)).num_teams, 1);
        assert_eq!(Request::implied_by(&env(1, 64, 4)).num_teams, 4);
        assert_eq!(Request::implied_by(&env(2, 128, 0)), Request::default());
        assert_eq!(Request::implied_by(&env(2, 128, -7)), Request::default());
    }

    #[test]
    fn degenerate_inputs_give_a_valid_launch() {
        let weird = ConfigurationEnvironment { min_threads: -5, max_threads: -1, ..env(2, 0, 0) };
        let zero = DeviceLimits { max_threads_per_block: 0, max_blocks: 0, default_threads: 0, default_blocks: 0, ..H100 };
        let g = geometry(&weird, req(0, u32::MAX, u64::MAX), zero);
        assert!(g.blocks >= 1 && g.threads >= 1, "{g:?}");
        assert_eq!(geometry(&env(1, 0, 0), req(0, u32::MAX, 0), H100).threads, 1024);
        assert_eq!(bare_geometry(req(0, 0, 0)), Geometry { blocks: 1, threads: 1 });
        assert_eq!(bare_geometry(req(7, 96, 0)), Geometry { blocks: 7, threads: 96 });
    }

    #[test]
    fn reduction_buffer_size_is_checked() {
        let mut e = env(2, 128, 0);
        assert_eq!(reduction_buffer_bytes(&e), None);
        e.reduction_data_size = 24;
        e.reduction_buffer_length = 1024;
        assert_eq!(reduction_buffer_bytes(&e), Some(24 * 1024));
        e.reduction_data_size = -4;
        assert_eq!(reduction_buffer_bytes(&e), None);
    }

    #[test]
    fn environment_overrides_the_defaults() {
        let base = DeviceLimits::nvidia(1024, 1 << 31);
        let env = |name: &str| match name {
            "OMP_NUM_TEAMS" => Some("40".to_string()),
            "OMP_TEAMS_THREAD_LIMIT" => Some(" 256 ".to_string()),
            _ => None,
        };
        let l = base.with_environment(env);
        assert_eq!((l.default_blocks, l.default_threads), (40, 256));
        let junk = |name: &str| if name == "OMP_NUM_TEAMS" { Some("-3".to_string()) } else { Some("x".to_string()) };
        assert_eq!(base.with_environment(junk), base);
    }
}
