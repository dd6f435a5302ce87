//! `omprt`: the command-line face of omprt's host side.
//!
//! Exit codes mean the same for every command: 0 ok, 1 error, 2 usage,
//! 3 no GPU (no driver, or a driver without a device), so scripts can tell
//! "skip" from "fail".

use omprt_host::driver::{Driver, DriverError};
use omprt_host::launch::{self, DeviceLimits, Request};
use omprt_host::{image, report, Layout};
use std::process::ExitCode;

const HELP: &str = "usage: omprt <command> [args]

commands:
  info FILE      list the device images in FILE (a clang-22 OpenMP executable,
                 an offload binary or a cubin) and, per cubin kernel: execution
                 mode (SPMD, GENERIC, GENERIC_SPMD, BARE), whether it runs the
                 generic state machine, max threads, registers, stack bytes,
                 static shared bytes and the teams-reduction buffer.
                 Needs no GPU.
  info --functions FILE
                 the other device functions of each cubin (the runtime's,
                 clang's outlined regions) with their registers and stack
                 frame, the most registers first: what sets a kernel's
                 figures at -O0 or behind a call. Needs no GPU.
  devices        list the CUDA GPUs (name, arch, SMs, memory)
  launch FILE KERNEL [--teams N] [--thread-limit N] [--buf BYTES]...
                 run one kernel of FILE on GPU 0, its arguments being zeroed
                 device buffers of the given sizes (in order), with the grid
                 libomptarget 22 would choose (--teams defaults to the
                 constant num_teams in the kernel environment); prints the driver's view of the
                 kernel next to the reader's, the time, and the first 64 bytes
                 of each buffer as i32. KERNEL may be a unique suffix of the
                 name (e.g. main_l9).
  flags [ARCH]   print the clang-22 flags that build against this checkout's
                 runtime (ARCH defaults to sm_90; installed, the runtime is
                 where clang-22 looks and no flag names it), e.g.
                 clang-22 -O2 $(omprt flags sm_90) prog.c -o prog
  paths          print where the runtime and the CUDA folder are
  doctor [--arch ARCH] [--cuda-path DIR]
                 tell whether OpenMP offloading to NVIDIA works on this machine:
                 clang-22/flang-22, the runtime where clang-22 looks
                 (OMPRT_INSTALL_DIR: look elsewhere), the CUDA toolkit and the
                 archs its ptxas/nvlink take, libomptarget, the driver and
                 GPUs; then build a target region for ARCH (default: the
                 GPU's, or sm_90) and, with a GPU, run it under
                 OMP_TARGET_OFFLOAD=MANDATORY. Each problem line ends with
                 its fix; exit 0 when programs build (no GPU: a warning)
  help           this text

exit codes: 0 ok, 1 error, 2 usage, 3 no GPU (no CUDA driver or device)";

const USAGE: u8 = 2;
const NO_GPU: u8 = 3;

fn error(message: impl std::fmt::Display) -> ExitCode {
    eprintln!("omprt: error: {message}");
    ExitCode::FAILURE
}

fn usage(message: impl std::fmt::Display) -> ExitCode {
    eprintln!("omprt: {message}\n\n{HELP}");
    ExitCode::from(USAGE)
}

fn driver_failure(e: DriverError) -> ExitCode {
    if e.is_no_gpu() {
        eprintln!("omprt: {e}");
        ExitCode::from(NO_GPU)
    } else {
        error(e)
    }
}

fn info(path: &str, render: fn(&str, &image::Input<'_>) -> String) -> ExitCode {
    let bytes = match std::fs::read(path) {
        Ok(b) => b,
        Err(e) => return error(format!("cannot read {path}: {e}")),
    };
    match image::read(&bytes) {
        Ok(input) => {
            print!("{}", render(path, &input));
            ExitCode::SUCCESS
        }
        Err(e) => error(format!("{path}: {e}")),
    }
}

fn devices() -> Result<String, DriverError> {
    let driver = Driver::init()?;
    let count = driver.device_count()?;
    if count == 0 {
        return Err(DriverError::NoDevice { detail: "the driver reports 0 devices".into() });
    }
    let list = (0..count).map(|i| driver.device(i)).collect::<Result<Vec<_>, _>>()?;
    Ok(report::devices(driver.version()?, &list))
}

/// Why `omprt launch` stopped.
enum LaunchFailure {
    Usage(String),
    Other(String),
    Driver(DriverError),
}

impl From<DriverError> for LaunchFailure {
    fn from(e: DriverError) -> Self {
        LaunchFailure::Driver(e)
    }
}

/// `omprt launch` options; `None` = not given.
#[derive(Default)]
struct LaunchOptions {
    teams: Option<u32>,
    thread_limit: Option<u32>,
    buffers: Vec<usize>,
}

fn parse_launch_args(args: &[String]) -> Result<(&str, &str, LaunchOptions), LaunchFailure> {
    let [file, kernel, options @ ..] = args else {
        return Err(LaunchFailure::Usage("launch takes FILE KERNEL [options]".into()));
    };
    let mut parsed = LaunchOptions::default();
    let mut rest = options.iter();
    while let Some(flag) = rest.next() {
        let value = rest.next().ok_or_else(|| LaunchFailure::Usage(format!("{flag} needs a value")))?;
        let number = |v: &str| v.parse::<u32>().map_err(|_| LaunchFailure::Usage(format!("{flag}: '{v}' is not a number")));
        match flag.as_str() {
            "--teams" => parsed.teams = Some(number(value)?),
            "--thread-limit" => parsed.thread_limit = Some(number(value)?),
            "--buf" => parsed.buffers.push(number(value)? as usize),
            other => return Err(LaunchFailure::Usage(format!("unknown launch option '{other}'"))),
        }
    }
    Ok((file, kernel, parsed))
}

fn launch_command(args: &[String]) -> Result<String, LaunchFailure> {
    let (path, wanted, options) = parse_launch_args(args)?;
    let bytes = std::fs::read(path).map_err(|e| LaunchFailure::Other(format!("cannot read {path}: {e}")))?;
    let input = image::read(&bytes).map_err(|e| LaunchFailure::Other(format!("{path}: {e}")))?;
    // The first cubin holding exactly one kernel that matches.
    let mut found = None;
    for img in &input.images {
        let Some(cubin) = img.cubin() else { continue };
        let cubin = cubin.map_err(|e| LaunchFailure::Other(format!("{path}: {e}")))?;
        let matches: Vec<_> = cubin.kernels.into_iter().filter(|k| k.name == wanted || k.name.ends_with(wanted)).collect();
        match matches.as_slice() {
            [k] => {
                found = Some((img, k.clone()));
                break;
            }
            [] => {}
            _ => return Err(LaunchFailure::Usage(format!("'{wanted}' matches {} kernels", matches.len()))),
        }
    }
    let (img, kernel) = found.ok_or_else(|| LaunchFailure::Usage(format!("no kernel of {path} matches '{wanted}'")))?;
    let env = kernel
        .environment
        .ok_or_else(|| LaunchFailure::Other(format!("{} is an ompx_bare kernel; launch supports kernels with an environment", kernel.name)))?;

    let driver = Driver::init()?;
    let device = driver.device(0)?;
    let ctx = driver.context(0)?;
    let module = ctx.load_module(img.bytes)?;
    let function = module.function(kernel.name)?;
    let attrs = function.attributes()?;
    let limits = DeviceLimits::nvidia(
        u32::try_from(device.max_threads_per_block).unwrap_or(1024),
        u32::try_from(device.max_grid_x).unwrap_or(u32::MAX),
    )
    .with_environment(|name| std::env::var(name).ok());
    // Without options, what the host program would pass for constant clauses.
    let implied = Request::implied_by(&env);
    let request = Request {
        num_teams: options.teams.unwrap_or(implied.num_teams),
        thread_limit: options.thread_limit.unwrap_or(implied.thread_limit),
        trip_count: 0,
    };
    let geometry = launch::geometry(&env, request, limits);
    let buffers = options.buffers.iter().map(|&n| ctx.alloc(n).and_then(|b| b.zero().map(|()| b))).collect::<Result<Vec<_>, _>>()?;
    let args: Vec<u64> = buffers.iter().map(|b| b.device_ptr()).collect();
    // SAFETY: every argument is a live device allocation of the size the
    // user gave; a kernel that writes past one faults on the device
    // (CUDA_ERROR_ILLEGAL_ADDRESS, reported as an error), not in this process.
    let launched = unsafe { launch::launch(&ctx, &function, &env, geometry, kernel.param_bytes, &args)? };

    let mut out = format!("device 0: {} ({})\nkernel {} ({})\n", device.name, device.arch(), kernel.name, image::mode_name(kernel.mode()));
    let opt = |v: Option<u32>| v.map_or_else(|| "-".to_owned(), |v| v.to_string());
    out += &format!("  registers      reader {:>6}  driver {:>6}\n", opt(kernel.registers), attrs.registers);
    out += &format!("  static shared  reader {:>6}  driver {:>6}\n", kernel.static_shared_bytes, attrs.static_shared_bytes);
    out += &format!("  stack/local    reader {:>6}  driver {:>6}\n", opt(kernel.stack_bytes), attrs.local_bytes);
    out += &format!("  max threads    env    {:>6}  driver {:>6}\n", env.max_threads, attrs.max_threads_per_block);
    out += &format!("launched {} blocks x {} threads: {:.3} ms\n", launched.geometry.blocks, launched.geometry.threads, launched.elapsed_ms);
    for (i, buffer) in buffers.iter().enumerate() {
        let mut host = vec![0u8; buffer.len().min(64)];
        buffer.copy_to_host(&mut host)?;
        let words: Vec<String> = host.chunks_exact(4).map(|w| i32::from_le_bytes([w[0], w[1], w[2], w[3]]).to_string()).collect();
        out += &format!("  arg {i} ({} bytes): {}\n", buffer.len(), words.join(" "));
    }
    drop(buffers);
    ctx.check()?;
    Ok(out)
}

/// `omprt flags`: this checkout's runtime and CUDA folder, or, installed,
/// nothing beyond offloading (the runtime is where clang-22 looks).
fn flags(layout: &Layout, arch: &str) -> Result<Vec<String>, String> {
    if omprt_host::layout::runs_from_checkout() { layout.clang_flags(arch) } else { omprt_host::layout::installed_flags(arch) }
}

/// `omprt doctor`'s options over what the environment says.
fn doctor_inputs(args: &[String]) -> Result<omprt_host::doctor::Inputs, String> {
    let mut inputs = omprt_host::doctor::Inputs::from_environment();
    let mut rest = args.iter();
    while let Some(flag) = rest.next() {
        let (flag, inline) = match flag.split_once('=') {
            Some((f, v)) => (f, Some(v.to_string())),
            None => (flag.as_str(), None),
        };
        let mut value = || inline.clone().or_else(|| rest.next().cloned()).ok_or_else(|| format!("doctor: {flag} needs a value"));
        match flag {
            "--arch" => {
                let arch = value()?;
                if !omprt_host::valid_arch(&arch) {
                    return Err(format!("doctor: '{arch}' is not an NVIDIA arch such as sm_90"));
                }
                inputs.arch = Some(arch);
            }
            "--cuda-path" => inputs.cuda_path = Some(value()?.into()),
            other => return Err(format!("doctor: unknown option '{other}'")),
        }
    }
    Ok(inputs)
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let layout = Layout::of_this_checkout();
    let rest = args.get(1..).unwrap_or_default();
    match (args.first().map(String::as_str), rest) {
        (Some("info"), [path]) => info(path, report::info),
        (Some("info"), [flag, path]) if flag == "--functions" => info(path, report::functions),
        (Some("info"), _) => usage("info takes one FILE, or --functions FILE"),
        (Some("devices"), []) => match devices() {
            Ok(text) => {
                print!("{text}");
                ExitCode::SUCCESS
            }
            Err(e) => driver_failure(e),
        },
        (Some("launch"), _) => match launch_command(rest) {
            Ok(text) => {
                print!("{text}");
                ExitCode::SUCCESS
            }
            Err(LaunchFailure::Usage(m)) => usage(m),
            Err(LaunchFailure::Other(m)) => error(m),
            Err(LaunchFailure::Driver(e)) => driver_failure(e),
        },
        (Some("flags"), [] | [_]) => match flags(&layout, rest.first().map_or("sm_90", String::as_str)) {
            Ok(flags) => {
                println!("{}", flags.join(" "));
                ExitCode::SUCCESS
            }
            Err(e) => error(e),
        },
        (Some("paths"), []) if !omprt_host::layout::runs_from_checkout() => {
            let dir = std::path::Path::new(omprt_host::layout::INSTALL_DIR);
            println!("runtime bitcode: {}", dir.join("libomptarget-nvptx.bc").display());
            println!("runtime archive: {}", dir.join("libompdevice.a").display());
            println!("cuda folder:     the one clang-22 finds (see 'omprt doctor')");
            ExitCode::SUCCESS
        }
        (Some("paths"), []) => {
            println!("runtime bitcode: {}", layout.bitcode().display());
            println!("runtime archive: {}", layout.runtime_dir().join("libompdevice.a").display());
            println!("cuda folder:     {}", layout.cuda_dir().display());
            ExitCode::SUCCESS
        }
        (Some("doctor"), _) => match doctor_inputs(rest) {
            Ok(inputs) => {
                let report = omprt_host::doctor::run(&inputs);
                print!("{}", report.render());
                ExitCode::from(report.exit_code())
            }
            Err(m) => usage(m),
        },
        (Some("help" | "--help" | "-h") | None, _) => {
            println!("{HELP}");
            ExitCode::SUCCESS
        }
        (Some(cmd @ ("devices" | "flags" | "paths")), _) => usage(format!("too many arguments for '{cmd}'")),
        (Some(other), _) => usage(format!("unknown command '{other}'")),
    }
}
