//! Plain-text tables for `omprt info` and `omprt devices`. Kept apart from
//! `main.rs` so the output format is unit-tested and usable from tests.

use crate::driver::DeviceInfo;
use crate::image::{self, Container, Input, Kernel};
use std::fmt::Write;

/// Left-aligned columns separated by two spaces.
fn table(header: &[&str], rows: &[Vec<String>]) -> String {
    let mut widths: Vec<usize> = header.iter().map(|h| h.len()).collect();
    for row in rows {
        for (w, cell) in widths.iter_mut().zip(row) {
            *w = (*w).max(cell.chars().count());
        }
    }
    let mut out = String::new();
    let mut line = |cells: &mut dyn Iterator<Item = &str>| {
        let text: Vec<String> = cells.zip(&widths).map(|(c, w)| format!("{c:<w$}")).collect();
        let _ = writeln!(out, "  {}", text.join("  ").trim_end());
    };
    line(&mut header.iter().copied());
    for row in rows {
        line(&mut row.iter().map(String::as_str));
    }
    out
}

fn opt<T: ToString>(value: Option<T>) -> String {
    value.map_or_else(|| "-".into(), |v| v.to_string())
}

fn kernel_row(k: &Kernel<'_>) -> Vec<String> {
    let env = k.environment.as_ref();
    vec![
        k.name.to_owned(),
        image::mode_name(k.mode()),
        opt(env.map(|e| if e.use_generic_state_machine != 0 { "yes" } else { "no" })),
        opt(env.map(|e| e.max_threads)),
        opt(k.registers),
        opt(k.stack_bytes),
        match k.reserved_shared_bytes {
            0 => k.static_shared_bytes.to_string(),
            reserved => format!("{} (+{reserved} rsvd)", k.static_shared_bytes),
        },
        opt(env.filter(|e| e.has_teams_reduction()).map(|e| format!("{}x{}", e.reduction_data_size, e.reduction_buffer_length))),
    ]
}

/// `omprt info`: the device images of `input` and, for cubins, their kernels.
/// A cubin that cannot be read is reported in place, not fatal.
pub fn info(path: &str, input: &Input<'_>) -> String {
    let container = match input.container {
        Container::HostExecutable => "host executable",
        Container::OffloadBinary => "offload binary",
        Container::Cubin => "cubin",
    };
    let mut out = format!("{path}: {container}, {} device image(s)\n", input.images.len());
    for (i, img) in input.images.iter().enumerate() {
        let producer = img.producer.map_or_else(|| "-".into(), |p| p.name());
        let _ = writeln!(
            out,
            "\nimage {i}: triple {}, arch {}, kind {}, producer {producer}, {} bytes",
            img.triple,
            img.arch,
            img.kind.name(),
            img.bytes.len()
        );
        match img.cubin() {
            None => out.push_str("  (not a cubin: no kernel details)\n"),
            Some(Err(e)) => {
                let _ = writeln!(out, "  error: {e}");
            }
            Some(Ok(cubin)) if cubin.kernels.is_empty() => out.push_str("  no OpenMP kernels\n"),
            Some(Ok(cubin)) => {
                let rows: Vec<Vec<String>> = cubin.kernels.iter().map(kernel_row).collect();
                out.push_str(&table(
                    &["kernel", "mode", "generic-sm", "max-threads", "regs", "stack", "shared", "teams-red"],
                    &rows,
                ));
            }
        }
    }
    out
}

/// `omprt info --functions`: every cubin's device functions other than the
/// kernels, the most registers first (a kernel needs the most of what it
/// can reach: at -O0, or behind a call, these set its figures).
pub fn functions(path: &str, input: &Input<'_>) -> String {
    let mut out = format!("{path}: device functions other than kernels\n");
    for (i, img) in input.images.iter().enumerate() {
        let _ = writeln!(out, "\nimage {i}: arch {}", img.arch);
        match img.cubin() {
            None => out.push_str("  (not a cubin)\n"),
            Some(Err(e)) => {
                let _ = writeln!(out, "  error: {e}");
            }
            Some(Ok(cubin)) if cubin.functions.is_empty() => out.push_str("  none\n"),
            Some(Ok(cubin)) => {
                let mut functions = cubin.functions.clone();
                functions.sort_by_key(|f| (std::cmp::Reverse(f.registers), std::cmp::Reverse(f.frame_bytes), f.name));
                let rows: Vec<Vec<String>> =
                    functions.iter().map(|f| vec![opt(f.registers), opt(f.frame_bytes), f.name.to_owned()]).collect();
                out.push_str(&table(&["regs", "frame", "function"], &rows));
            }
        }
    }
    out
}

/// `omprt devices`.
pub fn devices(driver_version: (i32, i32), devices: &[DeviceInfo]) -> String {
    let rows: Vec<Vec<String>> = devices
        .iter()
        .map(|d| {
            vec![
                d.ordinal.to_string(),
                d.name.clone(),
                d.arch(),
                d.sm_count.to_string(),
                format!("{} MiB", d.total_memory >> 20),
                d.max_threads_per_block.to_string(),
                format!("{} KiB", d.shared_memory_per_block >> 10),
            ]
        })
        .collect();
    let mut out = format!("CUDA driver {}.{}, {} device(s)\n", driver_version.0, driver_version.1, devices.len());
    out.push_str(&table(&["#", "name", "arch", "SMs", "memory", "max-threads", "shared/block"], &rows));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tables_align_and_mark_missing_values() {
        let t = table(&["a", "bb"], &[vec!["xxx".into(), "-".into()], vec!["y".into(), "zz".into()]]);
        assert_eq!(t, "  a    bb\n  xxx  -\n  y    zz\n");
        assert_eq!(opt::<u32>(None), "-");
    }

    #[test]
    fn devices_table_shows_arch_and_sizes() {
        let d = DeviceInfo {
            ordinal: 0,
            name: "NVIDIA H100 80GB HBM3".into(),
            compute_capability: (9, 0),
            sm_count: 132,
            total_memory: 80 << 30,
            max_threads_per_block: 1024,
            max_grid_x: i32::MAX,
            warp_size: 32,
            shared_memory_per_block: 48 << 10,
        };
        let out = devices((12, 8), &[d]);
        assert!(out.starts_with("CUDA driver 12.8, 1 device(s)\n"), "{out}");
        assert!(out.contains("sm_90") && out.contains("81920 MiB") && out.contains("48 KiB"), "{out}");
    }
}
