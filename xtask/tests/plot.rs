//! `cargo xtask plot` on a results file made for the tests
//! (fixtures/FIXTURE-bench.txt: the layout of `bench-run.sh`'s bench.txt,
//! made-up figures).

use std::path::PathBuf;
use xtask::plot;

fn fixtures() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures")
}

fn scratch(tag: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("omprt-xtask-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn fixture_results() -> plot::BabelStreamResults {
    let text = std::fs::read_to_string(fixtures().join("FIXTURE-bench.txt")).unwrap();
    plot::parse(&text, "double").unwrap_or_else(|e| panic!("{e}"))
}

#[test]
fn plot_reads_every_build_of_a_results_file() {
    let r = fixture_results();
    assert_eq!(r.date.as_deref(), Some("2026-01-01T00:00:00Z"));
    assert_eq!(r.device.as_deref(), Some("FIXTURE GPU, 0.0"));
    let builds: Vec<&str> = r.builds.iter().map(|b| b.build.as_str()).collect();
    assert_eq!(builds, ["omprt", "omprt-lto", "llvm19", "gcc12", "cuda"]);
    assert_eq!(r.cuda().unwrap().gbs, [Some(4000.0), Some(4000.0), Some(4200.0), Some(4200.0), Some(3800.0)]);
    let float = plot::parse(&std::fs::read_to_string(fixtures().join("FIXTURE-bench.txt")).unwrap(), "float").unwrap();
    assert_eq!(float.builds.iter().find(|b| b.build == "llvm19").unwrap().gbs, [None; 5]);
}

/// One bar per figure, in the build's colour, a dashed reference segment
/// per kernel at CUDA's bandwidth, the five kernels named on the axis.
#[test]
fn plot_draws_a_bar_per_figure_and_cudas_reference() {
    let r = fixture_results();
    let svg = plot::render_svg(&r, "FIXTURE-bench.txt").unwrap();
    assert!(svg.starts_with("<svg"), "{}", &svg[..svg.len().min(200)]);
    for (fill, bars) in [("#1F77B4", 5), ("#17BECF", 5), ("#FF7F0E", 5), ("#2CA02C", 5), ("#7F7F7F", 5)] {
        // Each build's colour also fills its legend swatch.
        let n = svg.matches(&format!("fill=\"{fill}\"")).count();
        assert_eq!(n, bars + 1, "{fill}: {n} rects");
    }
    let texts: Vec<&str> = svg.split("<text").skip(1).map(|t| t.split_once('>').unwrap().1.split("</text>").next().unwrap().trim()).collect();
    for kernel in ["Copy", "Mul", "Add", "Triad", "Dot"] {
        assert!(texts.contains(&kernel), "no axis label {kernel}: {texts:?}");
    }
    // The dashed segments (2 px wide; the axes and ticks are 1 px): several
    // per kernel, and two in the legend's sample.
    let dashes = svg.matches("<polyline").count();
    let wide = svg.split("<polyline").filter(|p| p.split("/>").next().unwrap().contains("stroke-width=\"2\"")).count();
    assert!(wide > 5 * 2, "{wide} wide segments of {dashes} polylines: no dashed CUDA reference per kernel");
    let float = plot::parse(&std::fs::read_to_string(fixtures().join("FIXTURE-bench.txt")).unwrap(), "float").unwrap();
    let svg = plot::render_svg(&float, "FIXTURE-bench.txt").unwrap();
    assert_eq!(svg.matches("fill=\"#FF7F0E\"").count(), 1, "a build without figures keeps only its legend swatch");
}

#[test]
fn plot_takes_the_newest_results_file_with_babelstream_figures() {
    let dir = scratch("plot-latest");
    let with = "babelstream-gbs double cuda: copy 1 mul 1 add 1 triad 1 dot 1\n";
    for (name, text) in [
        ("2025-12-01-h200-bench.txt", with),
        ("2026-01-01-h200-bench.txt", with),
        ("2026-02-01-h200-bench.txt", "copy 0.2\n"),
        ("2026-03-01-h200.txt", with),
    ] {
        std::fs::write(dir.join(name), text).unwrap();
    }
    assert_eq!(plot::latest_results(&dir).unwrap(), dir.join("2026-01-01-h200-bench.txt"));
    std::fs::remove_file(dir.join("2025-12-01-h200-bench.txt")).unwrap();
    std::fs::remove_file(dir.join("2026-01-01-h200-bench.txt")).unwrap();
    let err = plot::latest_results(&dir).unwrap_err();
    assert!(err.contains("bench-bundle.sh"), "{err}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn plot_rejects_malformed_lines_with_their_line_number() {
    for (text, says) in [
        ("date: x\nbabelstream-gbs double omprt: copy x mul 1 add 1 triad 1 dot 1\n", "line 2"),
        ("babelstream-gbs double clang: copy 1 mul 1 add 1 triad 1 dot 1\n", "unknown build"),
        ("babelstream-gbs double omprt: copy 1 mul 1 add 1\n", "expected 'copy X"),
        ("babelstream-gbs double omprt: mul 1 copy 1 add 1 triad 1 dot 1\n", "expected kernel 'copy'"),
        ("babelstream-gbs double omprt copy 1\n", "no ':'"),
        ("babelstream-gbs double omprt: copy -1 mul 1 add 1 triad 1 dot 1\n", "not a bandwidth"),
        ("nothing here\n", "no 'babelstream-gbs double"),
    ] {
        let err = plot::parse(text, "double").unwrap_err();
        assert!(err.contains(says), "'{err}' does not say '{says}'");
    }
}

#[test]
fn plot_command_writes_the_svg_where_asked() {
    let dir = scratch("plot-run");
    let out = dir.join("sub/chart.svg");
    let args = [fixtures().join("FIXTURE-bench.txt").display().to_string(), "-o".into(), out.display().to_string()];
    let (from, to) = plot::run(&args).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!((from, to.clone()), (fixtures().join("FIXTURE-bench.txt"), out.clone()));
    assert!(std::fs::read_to_string(&out).unwrap().contains("FIXTURE GPU"));
    assert!(plot::run(&["--bogus".into()]).unwrap_err().contains("plot takes"));
    let _ = std::fs::remove_dir_all(&dir);
}
