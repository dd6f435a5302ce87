//! The front links for real: two relocatable cubins (a kernel and the
//! function it calls, compiled apart by the CUDA folder's ptxas) for sm_70,
//! which CUDA 13's nvlink refuses, through libnvJitLink; and an arch NVIDIA's
//! nvlink lists goes to it (a stand-in here, which says it ran).

use std::path::{Path, PathBuf};
use std::process::Command;

const KERNEL: &str = "
.version 7.0
.target sm_70
.address_size 64
.extern .func (.param .b32 r) twice (.param .b32 x);
.visible .entry omprt_nvlink_test_kernel(.param .u64 out)
{
    .reg .b32 %r<3>;
    .reg .b64 %rd<2>;
    ld.param.u64 %rd1, [out];
    mov.u32 %r1, 21;
    { .param .b32 x; .param .b32 r;
      st.param.b32 [x], %r1;
      call.uni (r), twice, (x);
      ld.param.b32 %r2, [r]; }
    st.global.u32 [%rd1], %r2;
    ret;
}
";

const CALLEE: &str = "
.version 7.0
.target sm_70
.address_size 64
.visible .func (.param .b32 r) twice (.param .b32 x)
{
    .reg .b32 %r<3>;
    ld.param.b32 %r1, [x];
    add.s32 %r2, %r1, %r1;
    st.param.b32 [r], %r2;
    ret;
}
";

fn cuda() -> PathBuf {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../.toolchain/cuda");
    assert!(
        dir.join("bin/ptxas").is_file() && dir.join("lib64/libnvJitLink.so.12").is_file(),
        "{} lacks ptxas or libnvJitLink: run 'bash scripts/setup.sh'",
        dir.display()
    );
    dir
}

fn scratch(tag: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("omprt-nvlink-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// `ptxas -c` of `ptx` for `arch` into `dir/<name>.cubin`.
fn relocatable(dir: &Path, name: &str, ptx: &str, arch: &str) -> PathBuf {
    let src = dir.join(format!("{name}.ptx"));
    std::fs::write(&src, ptx.replace("sm_70", arch)).unwrap();
    let out = dir.join(format!("{name}.cubin"));
    let st = Command::new(cuda().join("bin/ptxas")).args([&format!("-arch={arch}"), "-c"]).arg(&src).arg("-o").arg(&out).status().unwrap();
    assert!(st.success(), "ptxas -c {}", src.display());
    out
}

fn front(nvidia: &Path) -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_omprt-nvlink"));
    c.env("OMPRT_NVLINK_NVIDIA", nvidia)
        .env("OMPRT_NVJITLINK", cuda().join("lib64/libnvJitLink.so.12"))
        .env("OMPRT_PTXAS", cuda().join("bin/ptxas"))
        .env_remove("OMPRT_NVLINK_ROUTE");
    c
}

/// A stand-in for NVIDIA's nvlink that lists sm_90 only and writes
/// "stand-in" where a link's output goes.
fn stand_in(dir: &Path) -> PathBuf {
    let path = dir.join("nvlink-nvidia");
    std::fs::write(
        &path,
        "#!/bin/sh\nif [ \"$1\" = --help ]; then printf -- \"--arch <gpu architecture name>  (-arch)\\n        Allowed values for this option:  'sm_90'.\\n\"; exit 0; fi\n\
         while [ $# -gt 0 ]; do if [ \"$1\" = -o ]; then echo stand-in >\"$2\"; fi; shift; done\n",
    )
    .unwrap();
    Command::new("chmod").arg("+x").arg(&path).status().unwrap();
    path
}

#[test]
fn sm_70_links_through_nvjitlink_across_two_cubins() {
    let dir = scratch("sm70");
    let nvidia = stand_in(&dir);
    let kernel = relocatable(&dir, "kernel", KERNEL, "sm_70");
    let callee = relocatable(&dir, "callee", CALLEE, "sm_70");
    let out = dir.join("linked.cubin");
    let run = front(&nvidia).args(["-o"]).arg(&out).args(["-v", "-arch", "sm_70", "-L", "/nowhere"]).arg(&kernel).arg(&callee).output().unwrap();
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert!(run.status.success(), "{stderr}");
    assert!(stderr.contains("libnvJitLink 12."), "-v names the linker: {stderr}");
    let data = std::fs::read(&out).unwrap();
    assert!(data.starts_with(b"\x7fELF") && u16::from_le_bytes([data[18], data[19]]) == 190, "{} is no cubin", out.display());
    // ELF ABI version 7 (CUDA 12) keeps the arch in the low byte of e_flags.
    let e_flags = u32::from_le_bytes(data[48..52].try_into().unwrap());
    assert_eq!((data[8], e_flags & 0xff), (7, 70), "e_flags {e_flags:#x}");
    let kernel_info = b".nv.info.omprt_nvlink_test_kernel";
    assert!(data.windows(kernel_info.len()).any(|w| w == kernel_info), "no kernel in {}", out.display());
    // Without the callee the call is left unresolved: the link is real.
    let alone = front(&nvidia).args(["-o"]).arg(dir.join("alone.cubin")).args(["-arch", "sm_70"]).arg(&kernel).output().unwrap();
    assert!(!alone.status.success());
    assert!(String::from_utf8_lossy(&alone.stderr).contains("twice"), "{}", String::from_utf8_lossy(&alone.stderr));
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn an_arch_nvidias_nvlink_lists_goes_to_it_and_help_lists_both() {
    let dir = scratch("route");
    let nvidia = stand_in(&dir);
    let out = dir.join("linked.cubin");
    let input = dir.join("in.cubin");
    std::fs::write(&input, "not read by the stand-in").unwrap();
    let run = front(&nvidia).arg("-o").arg(&out).args(["-arch", "sm_90"]).arg(&input).output().unwrap();
    assert!(run.status.success(), "{}", String::from_utf8_lossy(&run.stderr));
    assert_eq!(std::fs::read_to_string(&out).unwrap(), "stand-in\n");
    let help = front(&nvidia).arg("--help").output().unwrap();
    let text = String::from_utf8_lossy(&help.stdout);
    let archs = omprt_nvlink::archs::allowed_sm_values(&text, "--arch");
    assert!(archs.contains(&"sm_90".to_string()) && archs.contains(&"sm_70".to_string()), "{text}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_missing_nvjitlink_names_the_fix() {
    let dir = scratch("missing");
    let nvidia = stand_in(&dir);
    let input = dir.join("in.cubin");
    std::fs::write(&input, "x").unwrap();
    let run = front(&nvidia)
        .env("OMPRT_NVJITLINK", dir.join("libnvJitLink.so.12"))
        .arg("-o")
        .arg(dir.join("o"))
        .args(["-arch", "sm_70"])
        .arg(&input)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert_eq!(run.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("bash scripts/setup.sh"), "{stderr}");
    std::fs::remove_dir_all(&dir).unwrap();
}
