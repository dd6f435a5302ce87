//! omprt's `nvlink`: the device linker `clang-nvlink-wrapper` runs, in the
//! CUDA folder `scripts/setup.sh` assembles from NVIDIA's wheels.
//!
//! No wheel of CUDA 12 ships nvlink, and CUDA 13's links no sm_70 or sm_72
//! (`nvlink fatal : Value 'sm_70' is not defined for option 'arch'`), while
//! the folder's ptxas (CUDA 12.9) compiles for them. This program takes
//! nvlink's place: for an arch NVIDIA's nvlink (kept beside it as
//! `nvlink-nvidia`) lists in its `--help`, it runs that nvlink with the same
//! arguments; for any other it links the relocatable cubins with
//! libnvJitLink (wheel `nvidia-nvjitlink-cu12`, in the folder's `lib64`),
//! CUDA 12.9's device linker as a library, which links what its ptxas
//! compiles.

pub mod archs;
pub mod cli;
pub mod jitlink;

use std::path::{Path, PathBuf};

/// File name of NVIDIA's nvlink beside this program.
pub const NVIDIA_NVLINK: &str = "nvlink-nvidia";
/// File name of libnvJitLink in the CUDA folder's `lib64`.
pub const NVJITLINK: &str = "libnvJitLink.so.12";

/// The tools a link may use.
#[derive(Debug)]
pub struct Toolkit {
    /// NVIDIA's nvlink, where there is one.
    pub nvidia: Option<PathBuf>,
    /// libnvJitLink (a path, or a name for the loader's search).
    pub nvjitlink: PathBuf,
    /// The CUDA folder's ptxas, whose archs libnvJitLink links.
    pub ptxas: Option<PathBuf>,
}

impl Toolkit {
    /// The tools beside `exe` (the CUDA folder's `bin/nvlink`):
    /// `bin/nvlink-nvidia`, `lib64/libnvJitLink.so.12`, `bin/ptxas`.
    /// `OMPRT_NVLINK_NVIDIA`, `OMPRT_NVJITLINK` and `OMPRT_PTXAS` name others.
    pub fn beside(exe: &Path, env: impl Fn(&str) -> Option<String>) -> Toolkit {
        let bin = exe.parent().unwrap_or(Path::new("."));
        let existing = |p: PathBuf| p.is_file().then_some(p);
        let nvidia = match env("OMPRT_NVLINK_NVIDIA") {
            Some(p) if !p.is_empty() => Some(PathBuf::from(p)),
            _ => existing(bin.join(NVIDIA_NVLINK)),
        };
        let nvjitlink = match env("OMPRT_NVJITLINK") {
            Some(p) if !p.is_empty() => PathBuf::from(p),
            _ => existing(bin.join("../lib64").join(NVJITLINK)).unwrap_or_else(|| PathBuf::from(NVJITLINK)),
        };
        let ptxas = match env("OMPRT_PTXAS") {
            Some(p) if !p.is_empty() => Some(PathBuf::from(p)),
            _ => existing(bin.join("ptxas")),
        };
        Toolkit { nvidia, nvjitlink, ptxas }
    }

    /// The `sm_` archs NVIDIA's nvlink links (empty without one).
    pub fn nvidia_archs(&self) -> Vec<String> {
        self.nvidia.as_ref().map_or_else(Vec::new, |n| archs::allowed_sm_values(&help_of(n), "--arch"))
    }

    /// The `sm_` archs the folder's ptxas compiles, which libnvJitLink of
    /// the same CUDA release links (empty without ptxas).
    pub fn ptxas_archs(&self) -> Vec<String> {
        self.ptxas.as_ref().map_or_else(Vec::new, |p| archs::allowed_sm_values(&help_of(p), "--gpu-name"))
    }
}

/// A tool's `--help` text (stdout and stderr), empty if it does not run.
fn help_of(tool: &Path) -> String {
    std::process::Command::new(tool)
        .arg("--help")
        .output()
        .map(|o| String::from_utf8_lossy(&o.stdout).into_owned() + &String::from_utf8_lossy(&o.stderr))
        .unwrap_or_default()
}

/// Which linker links `arch`.
#[derive(Debug, PartialEq, Eq)]
pub enum Route {
    Nvidia(PathBuf),
    JitLink,
}

/// NVIDIA's nvlink where it lists `arch`, libnvJitLink otherwise;
/// `forced` (`OMPRT_NVLINK_ROUTE`: `nvidia` or `nvjitlink`) decides instead.
pub fn route(arch: &str, nvidia: Option<&Path>, nvidia_archs: &[String], forced: Option<&str>) -> Result<Route, String> {
    match (forced.unwrap_or(""), nvidia) {
        ("nvjitlink", _) => Ok(Route::JitLink),
        ("nvidia", Some(n)) => Ok(Route::Nvidia(n.to_path_buf())),
        ("nvidia", None) => Err(format!("OMPRT_NVLINK_ROUTE=nvidia, but there is no {NVIDIA_NVLINK} beside this program")),
        ("", Some(n)) if nvidia_archs.iter().any(|a| a == arch) => Ok(Route::Nvidia(n.to_path_buf())),
        ("", _) => Ok(Route::JitLink),
        (other, _) => Err(format!("OMPRT_NVLINK_ROUTE={other}: expected 'nvidia' or 'nvjitlink'")),
    }
}

/// Links `link` with libnvJitLink and writes the executable cubin.
pub fn jit_link(toolkit: &Toolkit, link: &cli::Link) -> Result<(), String> {
    let lib = jitlink::Library::open(&toolkit.nvjitlink).map_err(|e| {
        format!("{e}\nlinking for {} needs libnvJitLink from CUDA 12: run 'bash scripts/setup.sh' (it puts the nvidia-nvjitlink-cu12 wheel's library in the CUDA folder's lib64)", link.arch)
    })?;
    let mut options = vec![format!("-arch={}", link.arch)];
    if link.debug {
        options.push("-g".into());
    }
    let inputs = link
        .inputs
        .iter()
        .map(|p| std::fs::read(p).map(|data| (p.clone(), data)).map_err(|e| format!("cannot read {p}: {e}")))
        .collect::<Result<Vec<_>, _>>()?;
    if link.verbose {
        let (major, minor) = lib.version()?;
        eprintln!(
            "omprt-nvlink: libnvJitLink {major}.{minor} ({}) {} {} -> {}",
            toolkit.nvjitlink.display(),
            options.join(" "),
            link.inputs.join(" "),
            link.output
        );
    }
    let cubin = lib.link(&options, &inputs)?;
    std::fs::write(&link.output, cubin).map_err(|e| format!("cannot write {}: {e}", link.output))
}

/// `--help`: what this program is, and the archs it links in nvlink's list
/// form (which `omprt doctor` reads as it reads NVIDIA's).
pub fn help(toolkit: &Toolkit) -> String {
    let mut all = toolkit.nvidia_archs();
    if jitlink::Library::open(&toolkit.nvjitlink).is_ok() {
        all.extend(toolkit.ptxas_archs());
    }
    all.sort_by_key(|a| (archs::number(a), a.clone()));
    all.dedup();
    let list = all.iter().map(|a| format!("'{a}'")).collect::<Vec<_>>().join(",");
    format!(
        "omprt-nvlink: the nvlink of omprt's CUDA folder\n\n\
         Usage: nvlink -arch sm_NN -o OUT [-g] [-v] INPUT.cubin...\n\
         Links with NVIDIA's nvlink ({NVIDIA_NVLINK}) the archs it knows, and with\n\
         libnvJitLink the others (OMPRT_NVLINK_ROUTE=nvidia|nvjitlink decides instead).\n\n\
         --arch <gpu architecture name>                      (-arch)\n        \
         Specify the 'sm_' name of the target architecture.\n        \
         Allowed values for this option:  {list}.\n"
    )
}

/// `--version`: this program's, NVIDIA nvlink's and libnvJitLink's.
pub fn version(toolkit: &Toolkit) -> String {
    let mut s = format!("omprt-nvlink {} (nvlink front of omprt's CUDA folder)\n", env!("CARGO_PKG_VERSION"));
    match &toolkit.nvidia {
        Some(n) => {
            let v = std::process::Command::new(n).arg("--version").output().map(|o| String::from_utf8_lossy(&o.stdout).into_owned()).unwrap_or_default();
            let release = v.lines().find(|l| l.contains("release")).unwrap_or("version unknown");
            s += &format!("NVIDIA nvlink: {} ({release})\n", n.display());
        }
        None => s += "NVIDIA nvlink: none\n",
    }
    match jitlink::Library::open(&toolkit.nvjitlink).and_then(|l| l.version()) {
        Ok((major, minor)) => s += &format!("libnvJitLink: {major}.{minor} ({})\n", toolkit.nvjitlink.display()),
        Err(e) => s += &format!("libnvJitLink: none ({e})\n"),
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nvidias_nvlink_links_what_it_lists_and_nvjitlink_the_rest() {
        let n = Path::new("/cuda/bin/nvlink-nvidia");
        let listed = ["sm_75".to_string(), "sm_90".to_string()];
        assert_eq!(route("sm_90", Some(n), &listed, None), Ok(Route::Nvidia(n.to_path_buf())));
        assert_eq!(route("sm_70", Some(n), &listed, None), Ok(Route::JitLink));
        assert_eq!(route("sm_90", None, &[], None), Ok(Route::JitLink));
        assert_eq!(route("sm_90", Some(n), &listed, Some("nvjitlink")), Ok(Route::JitLink));
        assert_eq!(route("sm_70", Some(n), &listed, Some("nvidia")), Ok(Route::Nvidia(n.to_path_buf())));
        assert!(route("sm_70", None, &[], Some("nvidia")).unwrap_err().contains("no nvlink-nvidia"));
        assert!(route("sm_70", Some(n), &listed, Some("gcc")).unwrap_err().contains("expected"));
    }

    #[test]
    fn the_tools_are_found_beside_the_program_or_where_the_environment_says() {
        let dir = std::env::temp_dir().join(format!("omprt-nvlink-beside-{}", std::process::id()));
        std::fs::create_dir_all(dir.join("bin")).unwrap();
        std::fs::create_dir_all(dir.join("lib64")).unwrap();
        let none = Toolkit::beside(&dir.join("bin/nvlink"), |_| None);
        std::fs::write(dir.join("bin").join(NVIDIA_NVLINK), "").unwrap();
        std::fs::write(dir.join("lib64").join(NVJITLINK), "").unwrap();
        let found = Toolkit::beside(&dir.join("bin/nvlink"), |_| None);
        let named = Toolkit::beside(&dir.join("bin/nvlink"), |k| Some(format!("/elsewhere/{k}")));
        std::fs::remove_dir_all(&dir).unwrap();
        assert_eq!((none.nvidia, none.nvjitlink), (None, PathBuf::from(NVJITLINK)));
        assert_eq!(found.nvidia, Some(dir.join("bin").join(NVIDIA_NVLINK)));
        assert_eq!(found.nvjitlink, dir.join("bin/../lib64").join(NVJITLINK));
        assert_eq!(named.nvidia, Some(PathBuf::from("/elsewhere/OMPRT_NVLINK_NVIDIA")));
        assert_eq!(named.nvjitlink, PathBuf::from("/elsewhere/OMPRT_NVJITLINK"));
        assert_eq!(named.ptxas, Some(PathBuf::from("/elsewhere/OMPRT_PTXAS")));
    }
}
