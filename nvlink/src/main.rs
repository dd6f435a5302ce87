//! `nvlink` in omprt's CUDA folder (see the library's documentation):
//! NVIDIA's nvlink for the archs it links, libnvJitLink for the others.
//! Exit codes: 0 linked, 1 the link failed, 2 a bad command line.

use omprt_nvlink::{Route, Toolkit, cli, route};
use std::os::unix::process::CommandExt;
use std::process::ExitCode;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let exe = std::env::current_exe().unwrap_or_else(|_| std::path::PathBuf::from("nvlink"));
    let toolkit = Toolkit::beside(&exe, |k| std::env::var(k).ok());
    let link = match cli::parse(&args) {
        Ok(cli::Request::Help) => {
            print!("{}", omprt_nvlink::help(&toolkit));
            return ExitCode::SUCCESS;
        }
        Ok(cli::Request::Version) => {
            print!("{}", omprt_nvlink::version(&toolkit));
            return ExitCode::SUCCESS;
        }
        Ok(cli::Request::Link(link)) => link,
        Err(e) => {
            eprintln!("nvlink (omprt-nvlink): {e}");
            return ExitCode::from(2);
        }
    };
    let forced = std::env::var("OMPRT_NVLINK_ROUTE").ok();
    let chosen = route(&link.arch, toolkit.nvidia.as_deref(), &toolkit.nvidia_archs(), forced.as_deref());
    let result = match chosen {
        Ok(Route::Nvidia(nvlink)) => {
            // Runs in this process's place: its output and exit code are nvlink's.
            // Named nvlink, as clang-nvlink-wrapper called it: its messages say "nvlink".
            let e = std::process::Command::new(&nvlink).arg0("nvlink").args(&args).exec();
            Err(format!("cannot run {}: {e}", nvlink.display()))
        }
        Ok(Route::JitLink) => omprt_nvlink::jit_link(&toolkit, &link),
        Err(e) => Err(e),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("nvlink (omprt-nvlink): error: {e}");
            ExitCode::FAILURE
        }
    }
}
