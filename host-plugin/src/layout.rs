//! Where a built omprt checkout keeps the runtime, and the clang 22 flags
//! that compile against it (`omprt flags`, and the tests that build programs).

use std::path::{Path, PathBuf};
use std::process::Command;

/// The compiler omprt targets; `scripts/setup.sh` installs it.
pub const CLANG: &str = "clang-22";

/// Where plain clang-22 finds the runtime, and where the Debian package and
/// `scripts/install.sh` put it.
pub const INSTALL_DIR: &str = "/usr/lib/llvm-22/lib/nvptx64-nvidia-cuda";

/// Whether this binary runs from the checkout it was built in; an installed
/// one (the Debian package's `/usr/bin/omprt`, the tarball's) does not.
pub fn runs_from_checkout() -> bool {
    let layout = Layout::of_this_checkout();
    std::env::current_exe().is_ok_and(|exe| exe.starts_with(&layout.root)) && layout.root.join("scripts/install.sh").is_file()
}

/// The flags an installed binary prints for `arch`: none beyond offloading
/// itself, since the runtime is where clang-22 looks.
pub fn installed_flags(arch: &str) -> Result<Vec<String>, String> {
    if !valid_arch(arch) {
        return Err(format!("'{arch}' is not an NVIDIA arch such as sm_90"));
    }
    if !Path::new(INSTALL_DIR).join("libomptarget-nvptx.bc").is_file() {
        return Err(format!("omprt's runtime is not in {INSTALL_DIR}: run 'omprt doctor' to see why"));
    }
    Ok(vec!["-fopenmp".into(), format!("--offload-arch={arch}")])
}

/// Locations of a built omprt checkout.
pub struct Layout {
    pub root: PathBuf,
}

impl Layout {
    /// The checkout this binary was built from.
    pub fn of_this_checkout() -> Layout {
        // CARGO_MANIFEST_DIR is `<root>/host-plugin`, an absolute path, so it
        // always has a parent; fall back to it rather than panic.
        let manifest = Path::new(env!("CARGO_MANIFEST_DIR"));
        Layout { root: manifest.parent().unwrap_or(manifest).to_path_buf() }
    }
    pub fn runtime_dir(&self) -> PathBuf {
        self.root.join("target/omprt/lib")
    }
    pub fn bitcode(&self) -> PathBuf {
        self.runtime_dir().join("libomptarget-nvptx.bc")
    }
    /// The OpenMP test programs (`tests-gpu/programs/*.c`).
    pub fn programs_dir(&self) -> PathBuf {
        self.root.join("tests-gpu/programs")
    }
    pub fn cuda_dir(&self) -> PathBuf {
        self.root.join(".toolchain/cuda")
    }

    /// The clang 22 flags that compile for `arch` against this runtime.
    pub fn clang_flags(&self, arch: &str) -> Result<Vec<String>, String> {
        if !valid_arch(arch) {
            return Err(format!("'{arch}' is not an NVIDIA arch such as sm_90"));
        }
        if !self.bitcode().is_file() {
            return Err(format!("{} is missing: run 'cargo xtask build-device'", self.bitcode().display()));
        }
        Ok(vec![
            "-fopenmp".into(),
            format!("--offload-arch={arch}"),
            format!("--cuda-path={}", self.cuda_dir().display()),
            format!("--libomptarget-nvptx-bc-path={}", self.bitcode().display()),
            "-Xoffload-linker".into(),
            format!("-L{}", self.runtime_dir().display()),
        ])
    }

    /// Compiles the OpenMP program `source` with `clang-22 <opt>` for `arch`
    /// against this runtime into `output` (what the tests use).
    pub fn compile(&self, source: &Path, opt: &str, arch: &str, output: &Path) -> Result<(), String> {
        let flags = self.clang_flags(arch)?;
        let result = Command::new(CLANG).arg(opt).args(&flags).arg(source).arg("-o").arg(output).output();
        match result {
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                Err(format!("{CLANG} is not installed: run 'bash scripts/setup.sh' (it installs clang-22 and the LLVM 22 tools)"))
            }
            Err(e) => Err(format!("cannot run {CLANG}: {e}")),
            Ok(out) if !out.status.success() => Err(format!(
                "{CLANG} {opt} {} {} failed ({}):\n{}",
                flags.join(" "),
                source.display(),
                out.status,
                String::from_utf8_lossy(&out.stderr)
            )),
            Ok(_) => Ok(()),
        }
    }
}

/// `sm_` followed by two or three digits and an optional `a`/`f` suffix.
pub fn valid_arch(arch: &str) -> bool {
    let Some(rest) = arch.strip_prefix("sm_") else { return false };
    let digits = rest.trim_end_matches(['a', 'f']);
    (2..=3).contains(&digits.len()) && digits.chars().all(|c| c.is_ascii_digit()) && rest.len() - digits.len() <= 1
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn arch_names() {
        for ok in ["sm_70", "sm_90", "sm_90a", "sm_100f", "sm_120"] {
            assert!(valid_arch(ok), "{ok}");
        }
        for bad in ["sm70", "sm_", "sm_9", "sm_1000", "gfx90a", "sm_90ab", "sm_x0"] {
            assert!(!valid_arch(bad), "{bad}");
        }
    }

    #[test]
    fn flags_name_the_runtime_or_say_how_to_build_it() {
        let layout = Layout { root: std::env::temp_dir().join("omprt-no-such-checkout") };
        let err = layout.clang_flags("sm_90").unwrap_err();
        assert!(err.contains("cargo xtask build-device"), "{err}");
        assert!(layout.clang_flags("gfx90a").unwrap_err().contains("not an NVIDIA arch"));
    }
}
