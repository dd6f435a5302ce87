//! `cargo xtask plot`: BabelStream's bandwidth per kernel and build as an SVG
//! bar chart, from a benchmark results file (`tests-gpu/results/*-bench*.txt`,
//! the `bench.txt` that `scripts/bench-run.sh` writes), with the CUDA model's
//! bandwidth as each kernel's reference line.
//!
//! The figures come from the results file's machine-readable lines
//!
//! ```text
//! babelstream-gbs double omprt: copy 3012.4 mul 2999.1 add 3301.0 triad 3290.2 dot 2904.8
//! ```
//!
//! one per build (`omprt`, `omprt-lto`, `llvm19`, `gcc12`, `cuda`), in GB/s;
//! `-` marks a kernel without a figure (a build that failed or was not made).

use crate::Result;
use plotters::element::DashedPathElement;
use plotters::prelude::*;
use std::path::{Path, PathBuf};

/// BabelStream's five classic kernels, in its order.
pub const KERNELS: [&str; 5] = ["copy", "mul", "add", "triad", "dot"];

/// The builds a results file may hold, in the chart's order, with their
/// legend names. The CUDA model is the reference.
pub const BUILDS: [(&str, &str); 5] = [
    ("omprt", "clang 22 + omprt"),
    ("omprt-lto", "clang 22 + omprt, -foffload-lto"),
    ("llvm19", "clang 19 + LLVM 19 DeviceRTL"),
    ("gcc12", "GCC 12 (nvptx)"),
    ("cuda", "CUDA model (clang 22 -x cuda)"),
];

/// One build's GB/s per kernel (in [`KERNELS`] order; `None`: no figure).
#[derive(Clone, Debug, PartialEq)]
pub struct BuildBandwidth {
    pub build: String,
    pub gbs: [Option<f64>; 5],
}

/// What a results file says about BabelStream for one precision.
#[derive(Clone, Debug, PartialEq)]
pub struct BabelStreamResults {
    pub date: Option<String>,
    pub device: Option<String>,
    pub precision: String,
    pub builds: Vec<BuildBandwidth>,
}

impl BabelStreamResults {
    /// The CUDA model's figures, if the file has them.
    pub fn cuda(&self) -> Option<&BuildBandwidth> {
        self.builds.iter().find(|b| b.build == "cuda")
    }
}

/// Reads the `babelstream-gbs <precision> <build>:` lines of a results file.
/// A malformed line is an error naming its line number; a file without such
/// lines for `precision` is an error too.
pub fn parse(text: &str, precision: &str) -> Result<BabelStreamResults> {
    let mut out = BabelStreamResults { date: None, device: None, precision: precision.to_string(), builds: Vec::new() };
    for (i, line) in text.lines().enumerate() {
        let at = |what: &str| format!("line {}: {what}: '{line}'", i + 1);
        if let Some(date) = line.strip_prefix("date: ") {
            out.date.get_or_insert_with(|| date.trim().to_string());
        } else if let Some(device) = line.strip_prefix("device: ") {
            out.device.get_or_insert_with(|| device.trim().to_string());
        } else if let Some(rest) = line.strip_prefix("babelstream-gbs ") {
            let (head, figures) = rest.split_once(':').ok_or_else(|| at("no ':' after the build"))?;
            let mut head = head.split_whitespace();
            let (Some(prec), Some(build), None) = (head.next(), head.next(), head.next()) else {
                return Err(at("expected 'babelstream-gbs <precision> <build>:'"));
            };
            if !BUILDS.iter().any(|(b, _)| *b == build) {
                return Err(at(&format!("unknown build '{build}'")));
            }
            let words: Vec<&str> = figures.split_whitespace().collect();
            if words.len() != 2 * KERNELS.len() {
                return Err(at("expected 'copy X mul X add X triad X dot X'"));
            }
            let mut gbs = [None; 5];
            for (k, pair) in words.chunks(2).enumerate() {
                if pair[0] != KERNELS[k] {
                    return Err(at(&format!("expected kernel '{}', found '{}'", KERNELS[k], pair[0])));
                }
                gbs[k] = match pair[1] {
                    "-" => None,
                    v => Some(v.parse::<f64>().ok().filter(|x| x.is_finite() && *x >= 0.0).ok_or_else(|| at(&format!("'{v}' is not a bandwidth")))?),
                };
            }
            if prec == precision {
                if out.builds.iter().any(|b| b.build == build) {
                    return Err(at(&format!("a second line for {precision} {build}")));
                }
                out.builds.push(BuildBandwidth { build: build.to_string(), gbs });
            }
        }
    }
    if out.builds.is_empty() {
        return Err(format!("no 'babelstream-gbs {precision} <build>:' lines"));
    }
    out.builds.sort_by_key(|b| BUILDS.iter().position(|(name, _)| *name == b.build));
    Ok(out)
}

/// The newest results file in `dir` (by name: they start with the date)
/// that holds BabelStream figures.
pub fn latest_results(dir: &Path) -> Result<PathBuf> {
    let entries = std::fs::read_dir(dir).map_err(|e| format!("cannot read {}: {e}", dir.display()))?;
    let mut files: Vec<PathBuf> = entries
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "txt") && p.file_name().is_some_and(|n| n.to_string_lossy().contains("-bench")))
        .collect();
    files.sort();
    files
        .into_iter()
        .rev()
        .find(|p| std::fs::read_to_string(p).is_ok_and(|t| t.lines().any(|l| l.starts_with("babelstream-gbs "))))
        .ok_or_else(|| {
            format!(
                "no {}/*-bench*.txt has BabelStream figures ('babelstream-gbs' lines): run the benchmark bundle on a GPU \
                 (bash scripts/bench-bundle.sh, then .bench-bundle/run.sh there) and commit its bench.txt there, \
                 or pass a results file: cargo xtask plot FILE",
                dir.display()
            )
        })
}

const WIDTH: u32 = 960;
const HEIGHT: u32 = 540;

/// Bar colours per build, in [`BUILDS`] order (CUDA's grey: the reference).
const COLOURS: [RGBColor; 5] = [RGBColor(31, 119, 180), RGBColor(23, 190, 207), RGBColor(255, 127, 14), RGBColor(44, 160, 44), RGBColor(127, 127, 127)];

/// The chart as SVG text: one group of bars per kernel, one bar per build,
/// and across each group a dashed line at the CUDA model's bandwidth.
pub fn render_svg(results: &BabelStreamResults, source: &str) -> Result<String> {
    let mut svg = String::new();
    let top = results.builds.iter().flat_map(|b| b.gbs.iter().flatten()).fold(0.0_f64, |m, &v| m.max(v));
    // Headroom above the tallest bar keeps the legend clear of the bars.
    let y_max = if top > 0.0 { top * 1.5 } else { 1.0 };
    let n = results.builds.len() as f64;
    let caption = format!(
        "BabelStream ({}, 2^25 elements): GB/s per kernel{}{}",
        results.precision,
        results.device.as_deref().map(|d| format!(", {d}")).unwrap_or_default(),
        results.date.as_deref().map(|d| format!(", {}", d.split('T').next().unwrap_or(d))).unwrap_or_default(),
    );
    {
        let root = SVGBackend::with_string(&mut svg, (WIDTH, HEIGHT)).into_drawing_area();
        let draw = |e: &dyn std::fmt::Display| format!("drawing the chart: {e}");
        root.fill(&WHITE).map_err(|e| draw(&e))?;
        let mut chart = ChartBuilder::on(&root)
            .caption(&caption, ("sans-serif", 20))
            .margin(12)
            .x_label_area_size(40)
            .y_label_area_size(64)
            .build_cartesian_2d(0.0..KERNELS.len() as f64, 0.0..y_max)
            .map_err(|e| draw(&e))?;
        chart
            .configure_mesh()
            .disable_x_mesh()
            .x_labels(KERNELS.len() * 2 + 1)
            .x_label_formatter(&|x| {
                let i = x.floor() as usize;
                if (x - i as f64 - 0.5).abs() < 1e-6 && i < KERNELS.len() { capitalised(KERNELS[i]) } else { String::new() }
            })
            .y_label_formatter(&|y| format!("{y:.0}"))
            .y_desc("GB/s (BabelStream's best rep, median of rounds)")
            .x_desc(format!("source: {source}"))
            .draw()
            .map_err(|e| draw(&e))?;
        let bar = 0.8 / n;
        for (j, b) in results.builds.iter().enumerate() {
            let colour = COLOURS[BUILDS.iter().position(|(name, _)| *name == b.build).unwrap_or(0)];
            let label = BUILDS.iter().find(|(name, _)| *name == b.build).map_or(b.build.as_str(), |(_, l)| l);
            let bars = b.gbs.iter().enumerate().filter_map(|(k, v)| v.map(|v| (k, v))).map(move |(k, v)| {
                let x0 = k as f64 + 0.1 + j as f64 * bar;
                Rectangle::new([(x0, 0.0), (x0 + bar * 0.9, v)], colour.filled())
            });
            chart
                .draw_series(bars)
                .map_err(|e| draw(&e))?
                .label(label)
                .legend(move |(x, y)| Rectangle::new([(x, y - 5), (x + 12, y + 5)], colour.filled()));
        }
        if let Some(cuda) = results.cuda() {
            let lines = cuda.gbs.iter().enumerate().filter_map(|(k, v)| v.map(|v| (k, v))).map(|(k, v)| {
                DashedPathElement::new(vec![(k as f64 + 0.05, v), (k as f64 + 0.95, v)], 6, 4, BLACK.stroke_width(2))
            });
            chart
                .draw_series(lines)
                .map_err(|e| draw(&e))?
                .label("CUDA model's GB/s (reference)")
                .legend(|(x, y)| DashedPathElement::new(vec![(x, y), (x + 12, y)], 4, 2, BLACK.stroke_width(2)));
        }
        chart
            .configure_series_labels()
            .position(SeriesLabelPosition::UpperRight)
            .background_style(WHITE.mix(0.9))
            .border_style(BLACK)
            .draw()
            .map_err(|e| draw(&e))?;
        root.present().map_err(|e| draw(&e))?;
    }
    Ok(svg)
}

fn capitalised(s: &str) -> String {
    let mut c = s.chars();
    c.next().map(|f| f.to_uppercase().chain(c).collect()).unwrap_or_default()
}

/// `cargo xtask plot [FILE] [-o OUT] [--float]`: reads FILE (default: the
/// newest results file with BabelStream figures) and writes the chart
/// (default `docs/images/babelstream.svg`). Returns the paths read and written.
pub fn run(args: &[String]) -> Result<(PathBuf, PathBuf)> {
    let root = crate::repo_root();
    let (mut input, mut output, mut precision) = (None, root.join("docs/images/babelstream.svg"), "double");
    let mut it = args.iter();
    while let Some(a) = it.next() {
        match a.as_str() {
            "-o" => output = PathBuf::from(it.next().ok_or("-o needs a file name")?),
            "--float" => precision = "float",
            s if s.starts_with('-') => return Err(format!("plot takes [FILE] [-o OUT.svg] [--float], not '{s}'")),
            s if input.is_none() => input = Some(PathBuf::from(s)),
            s => return Err(format!("plot takes one results file, not also '{s}'")),
        }
    }
    let input = match input {
        Some(p) => p,
        None => latest_results(&root.join("tests-gpu/results"))?,
    };
    let text = std::fs::read_to_string(&input).map_err(|e| format!("cannot read {}: {e}", input.display()))?;
    let results = parse(&text, precision).map_err(|e| format!("{}: {e}", input.display()))?;
    let source = input.strip_prefix(&root).unwrap_or(&input).display().to_string();
    let svg = render_svg(&results, &source)?;
    if let Some(dir) = output.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    }
    std::fs::write(&output, svg).map_err(|e| format!("cannot write {}: {e}", output.display()))?;
    Ok((input, output))
}
