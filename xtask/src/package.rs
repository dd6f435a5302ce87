//! `cargo xtask package`: omprt as a Debian package and as a tarball with an
//! install script, for machines without Rust.
//!
//! Both hold the same files: the runtime (`libomptarget-nvptx.bc`,
//! `libompdevice.a`) where clang-22 looks, the `omprt` CLI (host-plugin's,
//! release build, stripped), its man page (from `omprt help`), and
//! `/usr/share/doc/omprt` (`copyright` in Debian's machine-readable format,
//! the changelog). The `.deb` is made with `dpkg-deb` from a staged tree (no
//! debhelper); `scripts/package-check.sh` checks it (contents, metadata,
//! lintian, install, plain clang-22 and flang-22 link, removal).

use crate::{Result, device_build, repo_root, runtime_dir, tools};
use std::path::{Path, PathBuf};
use std::process::Command;

/// The package's name, also the tarball's.
pub const NAME: &str = "omprt";
/// Where clang-22 looks for the runtime (`omprt_host::layout::INSTALL_DIR`).
pub const RUNTIME_DIR: &str = "usr/lib/llvm-22/lib/nvptx64-nvidia-cuda";
/// The runtime's two files.
pub const RUNTIME_FILES: [&str; 2] = ["libomptarget-nvptx.bc", "libompdevice.a"];

/// The lintian tags that do not apply, each with its reason.
pub const LINTIAN_OVERRIDES: &str = "\
# libompdevice.a holds LLVM bitcode only (the runtime for clang-nvlink-wrapper's
# link-time optimisation and for flang-22): it has no machine code by design.
omprt: no-code-sections [usr/lib/llvm-22/lib/nvptx64-nvidia-cuda/libompdevice.a]
# omprt is Rust: it calls no C library function that _FORTIFY_SOURCE guards.
omprt: hardening-no-fortify-functions [usr/bin/omprt]
";

/// What `cargo xtask package` makes.
pub struct Artifacts {
    pub deb: PathBuf,
    pub tarball: PathBuf,
}

/// The workspace version (`[workspace.package]` of Cargo.toml).
pub fn version() -> &'static str {
    env!("CARGO_PKG_VERSION")
}

/// The `.deb`'s file name: `omprt_<version>_amd64.deb`.
pub fn deb_name() -> String {
    format!("{NAME}_{}_amd64.deb", version())
}

/// The tarball's file name.
pub fn tarball_name() -> String {
    format!("{NAME}-{}-x86_64-linux.tar.gz", version())
}

/// The control file's relations. clang-22 or flang-22 compile the programs
/// and link the runtime; libomp-22-dev (omp.h, libomp) and liboffload-22-dev
/// (libomptarget.so, which `-fopenmp --offload-arch` links; it brings
/// liboffload-22, the host runtime) are needed to link them. An NVIDIA
/// driver runs them (Debian's libcuda1, in non-free); a CUDA toolkit where
/// clang-22 finds it (ptxas, nvlink) builds them: Debian's is
/// nvidia-cuda-toolkit (non-free, CUDA 11.8), NVIDIA's cuda-toolkit-12-*
/// cover sm_70 to sm_120 (docs/install.md). No Debian package ships the
/// runtime's paths (`apt-file search nvptx64-nvidia-cuda/libomptarget`
/// finds none for LLVM 22), so the package conflicts with none.
pub const DEPENDS: &str = "clang-22 | flang-22, libomp-22-dev, liboffload-22-dev";
pub const RECOMMENDS: &str = "libcuda1";
pub const SUGGESTS: &str = "nvidia-cuda-toolkit";

/// Builds the runtime, the CLI, and both artifacts into `target/omprt/`.
pub fn build() -> Result<Artifacts> {
    let out = repo_root().join("target/omprt");
    device_build::build()?;
    let omprt = build_cli()?;
    let stage = out.join("package/debian").join(NAME);
    let _ = std::fs::remove_dir_all(out.join("package"));
    stage_tree(&stage, &omprt)?;
    let deb = out.join(deb_name());
    build_deb(&out.join("package"), &stage, &deb)?;
    let tarball = out.join(tarball_name());
    build_tarball(&stage, &out.join("package"), &tarball)?;
    Ok(Artifacts { deb, tarball })
}

/// `cargo build --release -p omprt-host --bin omprt`, stripped.
fn build_cli() -> Result<PathBuf> {
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    tools::run(
        Command::new(cargo)
            .current_dir(repo_root())
            .args(["build", "--quiet", "--release", "-p", "omprt-host", "--bin", "omprt"])
            .env("CARGO_PROFILE_RELEASE_STRIP", "symbols"),
    )?;
    Ok(repo_root().join("target/release/omprt"))
}

fn write(path: &Path, contents: impl AsRef<[u8]>, mode: u32) -> Result<()> {
    use std::os::unix::fs::PermissionsExt;
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    }
    std::fs::write(path, contents).map_err(|e| format!("cannot write {}: {e}", path.display()))?;
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode)).map_err(|e| format!("cannot chmod {}: {e}", path.display()))
}

fn copy(from: &Path, to: &Path, mode: u32) -> Result<()> {
    let data = std::fs::read(from).map_err(|e| format!("cannot read {}: {e}", from.display()))?;
    write(to, data, mode)
}

/// gzip -9n: no name or time stamp, so the same input gives the same bytes.
fn gzip(path: &Path, data: &[u8]) -> Result<()> {
    let plain = path.with_extension("");
    write(&plain, data, 0o644)?;
    tools::run(Command::new("gzip").args(["-9nf"]).arg(&plain)).map_err(|e| format!("{e}\n(gzip comes with Debian's base system: apt-get install gzip)"))?;
    Ok(())
}

/// The last commit's time (Unix seconds), the date of the changelog entry
/// and the man page, so a rebuild of the same commit gives the same text.
fn source_date() -> Result<i64> {
    if let Some(t) = std::env::var("SOURCE_DATE_EPOCH").ok().and_then(|v| v.parse().ok()) {
        return Ok(t);
    }
    let out = tools::run(Command::new("git").current_dir(repo_root()).args(["log", "-1", "--format=%ct"]))?;
    String::from_utf8_lossy(&out.stdout).trim().parse().map_err(|e| format!("git log printed no time: {e}"))
}

/// `date -R` / `date +%Y-%m-%d` of `epoch`, in UTC.
fn date(epoch: i64, format: &str) -> Result<String> {
    let out = tools::run(Command::new("date").args(["-u", "-d", &format!("@{epoch}"), format]))?;
    Ok(String::from_utf8_lossy(&out.stdout).trim().to_string())
}

/// `Name <email>`: DEBFULLNAME/DEBEMAIL (Debian's convention), else git's
/// user of this checkout (who builds the package maintains it).
pub fn maintainer() -> Result<String> {
    let git = |key: &str| {
        tools::run(Command::new("git").current_dir(repo_root()).args(["config", key])).ok().map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
    };
    let name = std::env::var("DEBFULLNAME").ok().filter(|v| !v.is_empty()).or_else(|| git("user.name"));
    let email = std::env::var("DEBEMAIL").ok().filter(|v| !v.is_empty()).or_else(|| git("user.email"));
    match (name, email) {
        (Some(n), Some(e)) if !n.is_empty() && e.contains('@') => Ok(format!("{n} <{e}>")),
        _ => Err("no maintainer: set DEBFULLNAME and DEBEMAIL, or git config user.name and user.email".into()),
    }
}

/// The Debian changelog: one entry for this version whose text is the
/// repository's CHANGELOG.md where there is one.
pub fn debian_changelog(version: &str, maintainer: &str, date_rfc2822: &str, changelog_md: Option<&str>) -> String {
    let mut s = format!("{NAME} ({version}) unstable; urgency=medium\n\n");
    match changelog_md {
        Some(md) => {
            s += &format!("  * Release {version}. The project's CHANGELOG.md:\n");
            for line in md.lines() {
                // Every line indented: the changelog format reads a line
                // starting in column 0 as a new entry or its trailer.
                let line = line.trim_end();
                if line.is_empty() {
                    s += "\n";
                } else {
                    s += &wrapped(line, 4, CHANGELOG_COLUMNS);
                }
            }
        }
        None => s += &format!("  * Release {version}: the OpenMP device runtime for NVIDIA GPUs for clang-22\n    and flang-22, and the omprt command.\n"),
    }
    // Blank lines inside an entry are allowed, not at its end.
    while s.ends_with("\n\n") {
        s.pop();
    }
    s += &format!("\n -- {maintainer}  {date_rfc2822}\n");
    s
}

/// The widest line lintian accepts in a Debian changelog.
const CHANGELOG_COLUMNS: usize = 80;

/// `line` indented by `indent`, wrapped at spaces to at most `columns`
/// columns; a continuation goes under the text after the line's own
/// indentation and list marker (`- `, `* `). A word longer than a line
/// stands alone on its line.
fn wrapped(line: &str, indent: usize, columns: usize) -> String {
    let own = line.len() - line.trim_start().len();
    let marker = if line.trim_start().starts_with("- ") || line.trim_start().starts_with("* ") { 2 } else { 0 };
    let first = " ".repeat(indent + own);
    let next = " ".repeat(indent + own + marker);
    let mut out = String::new();
    let mut current = first.clone();
    let mut empty = true;
    for word in line.trim_start().split(' ').filter(|w| !w.is_empty()) {
        if !empty && current.chars().count() + 1 + word.chars().count() > columns {
            out += &current;
            out.push('\n');
            current = next.clone();
            empty = true;
        }
        if !empty {
            current.push(' ');
        }
        current += word;
        empty = false;
    }
    out += &current;
    out.push('\n');
    out
}

/// `debian/copyright` in the machine-readable format (DEP-5).
pub fn copyright(year: &str, bundled: &str) -> String {
    format!(
        "Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/\n\
         Upstream-Name: omprt\n\
         Comment: The omprt command and the runtime's bitcode are built from Rust:\n \
         they include parts of Rust's core and std (MIT or Apache-2.0) and of\n \
         these crates:\n{bundled}\n \
         .\n \
         A crate above licensed under MIT alone comes with this notice, its\n \
         authors being the copyright holders:\n \
         .\n \
         Permission is hereby granted, free of charge, to any person obtaining a\n \
         copy of this software and associated documentation files (the\n \
         \"Software\"), to deal in the Software without restriction, including\n \
         without limitation the rights to use, copy, modify, merge, publish,\n \
         distribute, sublicense, and/or sell copies of the Software, and to\n \
         permit persons to whom the Software is furnished to do so, subject to\n \
         the following conditions:\n \
         .\n \
         The above copyright notice and this permission notice shall be included\n \
         in all copies or substantial portions of the Software.\n \
         .\n \
         THE SOFTWARE IS PROVIDED \"AS IS\", WITHOUT WARRANTY OF ANY KIND, EXPRESS\n \
         OR IMPLIED, INCLUDING BUT NOT LIMITED TO THE WARRANTIES OF\n \
         MERCHANTABILITY, FITNESS FOR A PARTICULAR PURPOSE AND NONINFRINGEMENT. IN\n \
         NO EVENT SHALL THE AUTHORS OR COPYRIGHT HOLDERS BE LIABLE FOR ANY CLAIM,\n \
         DAMAGES OR OTHER LIABILITY, WHETHER IN AN ACTION OF CONTRACT, TORT OR\n \
         OTHERWISE, ARISING FROM, OUT OF OR IN CONNECTION WITH THE SOFTWARE OR THE\n \
         USE OR OTHER DEALINGS IN THE SOFTWARE.\n \
         .\n \
         A crate above licensed under ISC comes with this notice, its authors\n \
         being the copyright holders:\n \
         .\n \
         Permission to use, copy, modify, and/or distribute this software for any\n \
         purpose with or without fee is hereby granted, provided that the above\n \
         copyright notice and this permission notice appear in all copies.\n \
         .\n \
         THE SOFTWARE IS PROVIDED \"AS IS\" AND THE AUTHOR DISCLAIMS ALL WARRANTIES\n \
         WITH REGARD TO THIS SOFTWARE INCLUDING ALL IMPLIED WARRANTIES OF\n \
         MERCHANTABILITY AND FITNESS. IN NO EVENT SHALL THE AUTHOR BE LIABLE FOR\n \
         ANY SPECIAL, DIRECT, INDIRECT, OR CONSEQUENTIAL DAMAGES OR ANY DAMAGES\n \
         WHATSOEVER RESULTING FROM LOSS OF USE, DATA OR PROFITS, WHETHER IN AN\n \
         ACTION OF CONTRACT, NEGLIGENCE OR OTHER TORTIOUS ACTION, ARISING OUT OF\n \
         OR IN CONNECTION WITH THE USE OR PERFORMANCE OF THIS SOFTWARE.\n\
         \n\
         Files: *\n\
         Copyright: {year} omprt developers\n\
         License: Apache-2.0 with LLVM-exception\n\
         \n\
         License: Apache-2.0 with LLVM-exception\n \
         Licensed under the Apache License, Version 2.0 (the \"License\"); you may\n \
         not use this file except in compliance with the License. You may obtain a\n \
         copy of the License at http://www.apache.org/licenses/LICENSE-2.0\n \
         .\n \
         Unless required by applicable law or agreed to in writing, software\n \
         distributed under the License is distributed on an \"AS IS\" BASIS,\n \
         WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.\n \
         See the License for the specific language governing permissions and\n \
         limitations under the License.\n \
         .\n \
         On Debian systems, the full text of the Apache License, Version 2.0 can\n \
         be found in /usr/share/common-licenses/Apache-2.0.\n \
         .\n \
         ---- LLVM Exceptions to the Apache 2.0 License ----\n \
         .\n \
         As an exception, if, as a result of your compiling your source code,\n \
         portions of this Software are embedded into an Object form of such source\n \
         code, you may redistribute such embedded portions in such Object form\n \
         without complying with the conditions of Sections 4(a), 4(b) and 4(d) of\n \
         the License.\n \
         .\n \
         In addition, if you combine or link compiled forms of this Software with\n \
         software that is licensed under the GPLv2 (\"Combined Software\") and if a\n \
         court of competent jurisdiction determines that the patent provision\n \
         (Section 3), the indemnity provision (Section 9) or other Section of the\n \
         License conflicts with the conditions of the GPLv2, you may retroactively\n \
         and prospectively choose to deem waived or otherwise exclude such\n \
         Section(s) of the License, but only in their entirety and only with\n \
         respect to the Combined Software.\n"
    )
}

/// The crates linked into the omprt command and compiled into the device
/// runtime, one ` name version (license)` line each (continuation lines of
/// the copyright file's Comment).
fn bundled_crates() -> Result<String> {
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let out = tools::run(Command::new(cargo).current_dir(repo_root()).args([
        "tree",
        "-q",
        "-p",
        "omprt-host",
        "-p",
        "omprt-device-rtl",
        "-e",
        "normal",
        "--prefix",
        "none",
        "--format",
        "{p} ({l})",
    ]))?;
    let mut lines: Vec<String> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter(|l| !l.starts_with("omprt") && !l.trim().is_empty())
        .map(|l| format!("  {}", l.trim_end_matches(" (*)").replace(" (/", " (path /")))
        .collect();
    lines.sort();
    lines.dedup();
    Ok(lines.join("\n"))
}

/// The man page: `omprt help` in troff, with a description and the files.
pub fn man_page(help: &str, version: &str, date_ymd: &str) -> String {
    let escape = |line: &str| {
        let line = line.replace('\\', "\\e");
        if line.starts_with('.') || line.starts_with('\'') { format!("\\&{line}") } else { line }
    };
    let body: Vec<String> = help.lines().skip_while(|l| !l.starts_with("commands:")).skip(1).map(escape).collect();
    format!(
        ".TH OMPRT 1 \"{date_ymd}\" \"omprt {version}\" \"User Commands\"\n\
         .SH NAME\n\
         omprt \\- inspect OpenMP offload programs and check a machine for offloading to NVIDIA GPUs\n\
         .SH SYNOPSIS\n\
         .B omprt\n\
         .I command\n\
         .RI [ args ]\n\
         .SH DESCRIPTION\n\
         omprt is the OpenMP device runtime for NVIDIA GPUs that clang\\-22 and\n\
         flang\\-22 link into every target region (\\fIlibomptarget\\-nvptx.bc\\fR and\n\
         \\fIlibompdevice.a\\fR in \\fI/usr/lib/llvm\\-22/lib/nvptx64\\-nvidia\\-cuda\\fR), so that\n\
         .B clang\\-22 \\-fopenmp \\-\\-offload\\-arch=sm_90 prog.c\n\
         offloads. The \\fBomprt\\fR command reads the device images of such programs,\n\
         launches their kernels, and tells whether offloading works on this machine\n\
         (\\fBomprt doctor\\fR).\n\
         .SH COMMANDS\n\
         .nf\n\
         {}\n\
         .fi\n\
         .SH FILES\n\
         .TP\n\
         .I /usr/lib/llvm\\-22/lib/nvptx64\\-nvidia\\-cuda/libomptarget\\-nvptx.bc\n\
         the runtime clang\\-22 links into each device compile\n\
         .TP\n\
         .I /usr/lib/llvm\\-22/lib/nvptx64\\-nvidia\\-cuda/libompdevice.a\n\
         the runtime for the device link (\\-foffload\\-lto, flang\\-22)\n\
         .SH ENVIRONMENT\n\
         .TP\n\
         .B OMPRT_INSTALL_DIR\n\
         where \\fBomprt doctor\\fR looks for the runtime instead of clang\\-22's folder\n\
         .TP\n\
         .B OMP_TARGET_OFFLOAD=MANDATORY\n\
         makes a program fail instead of running on the host when it cannot offload\n\
         .SH EXIT STATUS\n\
         0 ok, 1 error (\\fBdoctor\\fR: offload programs do not build), 2 usage, 3 no GPU.\n\
         .SH SEE ALSO\n\
         .BR clang (1)\n",
        body.join("\n")
    )
}

/// The package's tree under `stage` (`<stage>/usr/...`).
fn stage_tree(stage: &Path, omprt: &Path) -> Result<()> {
    for f in RUNTIME_FILES {
        copy(&runtime_dir().join(f), &stage.join(RUNTIME_DIR).join(f), 0o644)?;
    }
    copy(omprt, &stage.join("usr/bin/omprt"), 0o755)?;
    // What dh_strip removes beyond cargo's strip (lintian: binary-has-unneeded-section).
    tools::run(Command::new("strip").args(["--remove-section=.comment", "--remove-section=.note"]).arg(stage.join("usr/bin/omprt")))
        .map_err(|e| format!("{e}\n(strip: apt-get install binutils)"))?;
    write(&stage.join("usr/share/lintian/overrides").join(NAME), LINTIAN_OVERRIDES, 0o644)?;
    let epoch = source_date()?;
    let doc = stage.join("usr/share/doc").join(NAME);
    let year = date(epoch, "+%Y")?;
    write(&doc.join("copyright"), copyright(&year, &bundled_crates()?), 0o644)?;
    let changelog_md = std::fs::read_to_string(repo_root().join("CHANGELOG.md")).ok();
    let changelog = debian_changelog(version(), &maintainer()?, &date(epoch, "-R")?, changelog_md.as_deref());
    // A native package (its version has no Debian part): its changelog is changelog.gz.
    gzip(&doc.join("changelog.gz"), changelog.as_bytes())?;
    let help = tools::run(Command::new(omprt).arg("help"))?;
    let man = man_page(&String::from_utf8_lossy(&help.stdout), version(), &date(epoch, "+%Y-%m-%d")?);
    gzip(&stage.join("usr/share/man/man1/omprt.1.gz"), man.as_bytes())?;
    Ok(())
}

/// The control file, md5sums, and `dpkg-deb --build`.
fn build_deb(work: &Path, stage: &Path, deb: &Path) -> Result<()> {
    // dpkg-shlibdeps reads debian/control (empty will do) in its folder.
    write(&work.join("debian/control"), "", 0o644)?;
    let shlibs = tools::run(Command::new("dpkg-shlibdeps").current_dir(work).args(["-O", "-e"]).arg(stage.join("usr/bin/omprt")))
        .map_err(|e| format!("{e}\n(dpkg-shlibdeps: apt-get install dpkg-dev)"))?;
    let shlibs = String::from_utf8_lossy(&shlibs.stdout);
    let host_libs = shlibs.lines().find_map(|l| l.strip_prefix("shlibs:Depends=")).ok_or("dpkg-shlibdeps printed no shlibs:Depends")?.trim().to_string();
    let files = files_under(stage)?;
    let installed_kib: u64 = files.iter().map(|f| std::fs::metadata(stage.join(f)).map(|m| m.len().div_ceil(1024)).unwrap_or(0)).sum();
    let control = format!(
        "Package: {NAME}\n\
         Version: {}\n\
         Architecture: amd64\n\
         Maintainer: {}\n\
         Installed-Size: {installed_kib}\n\
         Depends: {DEPENDS}, {host_libs}\n\
         Recommends: {RECOMMENDS}\n\
         Suggests: {SUGGESTS}\n\
         Section: devel\n\
         Priority: optional\n\
         Description: OpenMP device runtime for NVIDIA GPUs for clang-22 and flang-22\n \
         omprt is the library clang-22 links into every OpenMP target region\n \
         compiled for NVIDIA GPUs (libomptarget-nvptx.bc and libompdevice.a, in\n \
         /usr/lib/llvm-22/lib/nvptx64-nvidia-cuda), which Debian's LLVM 22 does\n \
         not ship: with it, clang-22 -fopenmp --offload-arch=sm_90 and flang-22\n \
         -fopenmp --offload-arch=sm_90 offload. The omprt command reads offload\n \
         executables and tells whether offloading works on this machine (omprt\n \
         doctor).\n \
         .\n \
         Building needs a CUDA toolkit (ptxas, nvlink) where clang-22 finds it;\n \
         running needs an NVIDIA driver.\n",
        version(),
        maintainer()?
    );
    let debian = stage.join("DEBIAN");
    write(&debian.join("control"), control, 0o644)?;
    let mut sums = String::new();
    for f in &files {
        let out = tools::run(Command::new("md5sum").current_dir(stage).arg(f))?;
        sums += &String::from_utf8_lossy(&out.stdout);
    }
    write(&debian.join("md5sums"), sums, 0o644)?;
    let _ = std::fs::remove_file(deb);
    tools::run(
        Command::new("dpkg-deb").env("SOURCE_DATE_EPOCH", source_date()?.to_string()).args(["--root-owner-group", "-Zxz", "--build"]).arg(stage).arg(deb),
    )
    .map_err(|e| format!("{e}\n(dpkg-deb comes with dpkg)"))?;
    std::fs::remove_dir_all(&debian).map_err(|e| format!("cannot remove {}: {e}", debian.display()))?;
    Ok(())
}

/// Every file under `dir`, relative, sorted.
fn files_under(dir: &Path) -> Result<Vec<String>> {
    let mut files = Vec::new();
    let mut todo = vec![dir.to_path_buf()];
    while let Some(d) = todo.pop() {
        for entry in std::fs::read_dir(&d).map_err(|e| format!("cannot read {}: {e}", d.display()))? {
            let path = entry.map_err(|e| format!("{}: {e}", d.display()))?.path();
            if path.is_dir() {
                todo.push(path);
            } else {
                files.push(path.strip_prefix(dir).unwrap().to_string_lossy().into_owned());
            }
        }
    }
    files.sort();
    Ok(files)
}

/// The tarball: `omprt-<version>/` with the package's files in a prefix
/// layout (`bin/`, `share/`, the runtime in `lib/nvptx64-nvidia-cuda/`)
/// and `install.sh` (`scripts/dist-install.sh`).
fn build_tarball(stage: &Path, work: &Path, tarball: &Path) -> Result<()> {
    let top = format!("{NAME}-{}", version());
    let dir = work.join("tar").join(&top);
    for f in RUNTIME_FILES {
        copy(&stage.join(RUNTIME_DIR).join(f), &dir.join("lib/nvptx64-nvidia-cuda").join(f), 0o644)?;
    }
    copy(&stage.join("usr/bin/omprt"), &dir.join("bin/omprt"), 0o755)?;
    // Debian's lintian overrides mean nothing elsewhere.
    for f in files_under(&stage.join("usr/share"))?.into_iter().filter(|f| !f.starts_with("lintian/")) {
        copy(&stage.join("usr/share").join(&f), &dir.join("share").join(&f), 0o644)?;
    }
    copy(&repo_root().join("scripts/dist-install.sh"), &dir.join("install.sh"), 0o755)?;
    let _ = std::fs::remove_file(tarball);
    tools::run(
        Command::new("tar").current_dir(work.join("tar")).args(["--owner=0", "--group=0", "--numeric-owner", "--sort=name", "-czf"]).arg(tarball).arg(&top),
    )?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_changelog_is_one_debian_entry_with_changelog_md_indented() {
        let md = "# Changelog\n\n## 0.1.0\n- first\n\n";
        let c = debian_changelog("0.1.0", "A B <a@b.c>", "Sun, 29 Nov 2026 03:52:30 +0000", Some(md));
        assert!(c.starts_with("omprt (0.1.0) unstable; urgency=medium\n\n  * Release 0.1.0."), "{c}");
        assert!(c.contains("\n    # Changelog\n\n    ## 0.1.0\n    - first\n"), "{c}");
        assert!(c.ends_with("    - first\n\n -- A B <a@b.c>  Sun, 29 Nov 2026 03:52:30 +0000\n"), "{c:?}");
        // No line of the body starts in column 0.
        let body: Vec<&str> = c.lines().skip(1).filter(|l| !l.is_empty() && !l.starts_with(" -- ")).collect();
        assert!(body.iter().all(|l| l.starts_with("  ")), "{c}");
        let minimal = debian_changelog("0.1.0", "A B <a@b.c>", "date", None);
        assert!(minimal.contains("  * Release 0.1.0: the OpenMP device runtime"), "{minimal}");
    }

    /// lintian warns on changelog lines over 80 columns: CHANGELOG.md's
    /// lines (up to 100 columns, indented by 4 here) are wrapped, a list
    /// item's continuation under its text, with every word kept.
    #[test]
    fn the_changelog_wraps_long_lines_at_80_columns() {
        let item = format!("- {} (2026-11-29)", "a changed word".repeat(12));
        let md = format!("## [Unreleased]\n\n{item}\n  {}\n", "continued".repeat(3));
        let c = debian_changelog("0.1.0", "A B <a@b.c>", "date", Some(&md));
        assert!(c.lines().all(|l| l.chars().count() <= 80), "{c}");
        let words = |t: &str| t.split_whitespace().map(str::to_string).collect::<Vec<_>>();
        let body: String = c.lines().filter(|l| l.starts_with("    ")).collect::<Vec<_>>().join(" ");
        assert_eq!(words(&body), words(&md), "{c}");
        assert!(c.contains("\n    - a changed word"), "{c}");
        assert!(c.contains("\n      a changed word") || c.contains("\n      changed word") || c.contains("\n      word"), "continuation under the item's text: {c}");
        // The project's own CHANGELOG.md, as the package ships it.
        let ours = std::fs::read_to_string(repo_root().join("CHANGELOG.md")).unwrap();
        let c = debian_changelog("0.1.0", "A B <a@b.c>", "date", Some(&ours));
        let long: Vec<&str> = c.lines().filter(|l| l.chars().count() > 80).collect();
        assert!(long.is_empty(), "{long:?}");
    }

    #[test]
    fn the_man_page_escapes_the_help_text() {
        let help = "usage: omprt <command>\n\ncommands:\n  info FILE   a \\ b\n.starts with a dot\n";
        let man = man_page(help, "0.1.0", "2026-11-29");
        assert!(man.starts_with(".TH OMPRT 1 \"2026-11-29\" \"omprt 0.1.0\""), "{man}");
        assert!(man.contains(".nf\n  info FILE   a \\e b\n\\&.starts with a dot\n.fi\n"), "{man}");
        assert!(!man.contains("usage:"), "{man}");
    }

    #[test]
    fn the_copyright_file_names_its_license_and_the_bundled_crates() {
        let c = copyright("2026", "  object 0.37.3 (Apache-2.0 OR MIT)");
        assert!(c.starts_with("Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/\n"));
        assert!(c.contains("\n  object 0.37.3 (Apache-2.0 OR MIT)\n .\n A crate above licensed under MIT alone"), "{c}");
        assert!(c.contains("USE OR OTHER DEALINGS IN THE SOFTWARE.\n .\n A crate above licensed under ISC"), "{c}");
        assert!(c.contains("PERFORMANCE OF THIS SOFTWARE.\n\nFiles: *\n"), "{c}");
        assert!(c.contains("/usr/share/common-licenses/Apache-2.0"));
        assert_eq!(c.matches("License: Apache-2.0 with LLVM-exception").count(), 2);
    }
}
