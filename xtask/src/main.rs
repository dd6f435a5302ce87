//! `cargo xtask <command>`: omprt's build and check tool.

use std::process::ExitCode;
use xtask::{abi_table, conformance, corpus, device_build, runtime_dir, tools};

const HELP: &str = "usage: cargo xtask <command>

commands:
  build-device   build target/omprt/lib/{libomptarget-nvptx.bc,libompdevice.a}
  check-abi      compare the built bitcode with LLVM 22's OMPKinds.def (types, coverage)
  corpus         compile tests-gpu/programs with clang 22 (C, C++) and flang 22
                 (Fortran) against the runtime (-O0 and -O2, ptxas for
                 sm_70/sm_80/sm_90) and check ABI needs
  corpus --archs link a subset of the corpus for every supported arch
                 (sm_70 ... sm_120) with the project's CUDA folder
  static-cost [-O0|-O2]
                 registers/stack/static shared memory of each linked corpus kernel (default
                 -O2), omprt (clang 22) vs LLVM 19's DeviceRTL (clang 19), with totals
  static-cost --lto
                 the same with -O2 -foffload-lto (the runtime linked after the user's
                 compile: libompdevice.a for omprt, the DeviceRTL bitcode for LLVM 19)
  static-cost --bench
                 the same for the benchmark kernels (tests-gpu/bench, -O2), with GCC 12's
                 nvptx offloading as the third column
  package        build target/omprt/omprt_<version>_amd64.deb and
                 omprt-<version>-x86_64-linux.tar.gz (the runtime, the omprt CLI,
                 its man page, copyright, changelog; scripts/package-check.sh
                 checks and installs them)
  static-cost --whole-program [--bench]
                 registers and stack of each kernel at -O2 -foffload-lto as linked
                 (ptxas -c + nvlink) and as ptxas compiles the same PTX whole
                 (no nvlink), for the corpus or the benchmarks
  plot [FILE] [-o OUT.svg] [--float]
                 BabelStream's GB/s per kernel and build as an SVG bar chart (CUDA's
                 as the reference line) from FILE, by default the newest
                 tests-gpu/results/*-bench*.txt with BabelStream figures; writes
                 docs/images/babelstream.svg unless -o says otherwise
  conformance [--suite DIR] [--lit-cfg FILE] [--levels O0,O2,O2lto] [--jobs N] [--only TEXT,...] [--out DIR]
                 build the tests of a lit suite (default ../shared/conformance/llvm-offload,
                 LLVM's offload/test/offloading) as their RUN lines say, with clang 22 for
                 nvptx64 against this runtime, at each level; prints a table and prepares
                 target/omprt/conformance/ (or --out DIR) for the GPU run (docs/conformance.md)
  remarks        openmp-opt remark ids per corpus program at -O2, omprt (clang 22)
                 vs LLVM 19's DeviceRTL (clang 19)
  prose [DIR...] comment lines in .rs files under DIR (default: the workspace's
                 members, abi device-rtl host-plugin nvlink tests-gpu xtask) with a
                 date, the word 'revision', an 'a -> b' figure of digits, or a
                 reference to ABI-CONTRACT.md, STYLE.md or DESIGN.md; exits 1 when it
                 finds any
  report [--check]
                 write docs/lowering-report.md from the remarks and the four static-cost
                 tables (--check: compare with it instead, and fail if it differs)
  fortran-symbols
                 the flang-rt entry points (_FortranA*) flang 22 emits for the
                 Fortran corpus at -O0 and -O2, as the table of
                 docs/fortran-runtime.md
  fortran-registers
                 each flang-rt entry point with the registers of the largest runtime
                 function it may call (what nvlink gives a kernel that calls it),
                 compiled with ptxas -c for sm_90, the most first
  help           this text";

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let result = match args.first().map(String::as_str) {
        Some("build-device") => build_device(),
        Some("check-abi") => check_abi(&[]),
        Some("corpus") if args.get(1).is_some_and(|a| a == "--archs") => link_archs(),
        Some("corpus") if args.len() > 1 => Err(format!("corpus takes nothing or --archs, not '{}'", args[1])),
        Some("corpus") => run_corpus(),
        Some("conformance") => run_conformance(&args[1..]),
        Some("remarks") => remarks_table(),
        Some("prose") => prose(&args[1..]),
        Some("report") => match args.get(1).map(String::as_str) {
            None => report(false),
            Some("--check") => report(true),
            Some(other) => Err(format!("report takes --check or nothing, not '{other}'")),
        },
        Some("package") => xtask::package::build().map(|a| {
            println!("{}\n{}", a.deb.display(), a.tarball.display());
        }),
        Some("plot") => xtask::plot::run(&args[1..]).map(|(from, to)| eprintln!("plotted {} into {}", from.display(), to.display())),
        Some("fortran-registers") => {
            xtask::fortran_registers::table(&xtask::repo_root().join("target/omprt/fortran-registers")).map(|rows| print!("{}", xtask::fortran_registers::render(&rows)))
        }
        Some("fortran-symbols") => xtask::fortran_runtime::table(&corpus::Options::default()).map(|t| print!("{t}")),
        Some("static-cost") => match args.get(1).map(String::as_str).unwrap_or("-O2") {
            "--whole-program" => match args.get(2).map(String::as_str) {
                None | Some("--bench") => xtask::whole_program::table_for(args.len() > 2).map(|rows| {
                    println!("{}", xtask::whole_program::render(&rows));
                }),
                Some(other) => Err(format!("static-cost --whole-program takes nothing or --bench, not '{other}'")),
            },
            "--bench" => xtask::bench_cost::table(&xtask::bench_cost::default_work()).map(|rows| println!("{}", xtask::bench_cost::render(&rows))),
            "--lto" => xtask::static_cost::table(&corpus::Options::default(), "-O2 -foffload-lto").map(|rows| {
                println!("{}", xtask::static_cost::render(&rows));
            }),
            opt @ ("-O0" | "-O2") => xtask::static_cost::table(&corpus::Options::default(), opt).map(|rows| {
                println!("{}", xtask::static_cost::render(&rows));
            }),
            other => Err(format!("static-cost takes -O0, -O2, --lto, --bench or --whole-program, not '{other}'")),
        },
        Some("help") | Some("--help") | Some("-h") | None => {
            println!("{HELP}");
            Ok(())
        }
        Some(other) => Err(format!("unknown command '{other}'\n\n{HELP}")),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("xtask: error: {e}");
            ExitCode::FAILURE
        }
    }
}

fn build_device() -> xtask::Result<()> {
    let a = device_build::build()?;
    eprintln!(
        "built {} and {} ({} bytes of static shared memory in {} static(s))",
        a.bitcode.display(),
        a.archive.display(),
        a.report.shared_bytes(),
        a.report.shared.len()
    );
    if a.fortran.is_none() {
        eprintln!("note: flang-22 is not installed, so the archive has no Fortran module constants (flang -O0 programs that use omp_lib or iso_c_binding will not link): run 'bash scripts/setup.sh'");
    }
    Ok(())
}

fn check_abi(needed: &[String]) -> xtask::Result<()> {
    let bc = runtime_dir().join("libomptarget-nvptx.bc");
    if !bc.is_file() {
        return Err(format!("{} is missing: run 'cargo xtask build-device'", bc.display()));
    }
    let report = abi_table::check_bitcode(&bc, &needed.iter().cloned().collect())?;
    println!("{}", report.render());
    if report.ok() { Ok(()) } else { Err("the runtime does not match OMPKinds.def".into()) }
}

fn run_corpus() -> xtask::Result<()> {
    let summary = corpus::check_all(&corpus::Options::default())?;
    println!("{}", summary.render());
    let multi_file = corpus::check_multi_file_all(&corpus::Options::default())?;
    println!("{}", multi_file.render());
    let fortran = corpus::check_fortran_all(&corpus::Options::default())?;
    println!("{}", fortran.render());
    let needed = summary.needed_symbols().into_iter().chain(multi_file.needed_symbols()).chain(fortran.needed_symbols());
    check_abi(&needed.collect::<Vec<_>>())?;
    let _ = tools::cuda_path()?;
    if summary.ok() && multi_file.ok() && fortran.ok() { Ok(()) } else { Err("the lowering corpus failed".into()) }
}

fn run_conformance(args: &[String]) -> xtask::Result<()> {
    let mut suite = conformance::default_suite();
    let mut lit_cfg = None;
    let mut levels = conformance::LEVELS.to_vec();
    let mut jobs = std::thread::available_parallelism().map_or(2, |n| n.get());
    let mut only = None;
    let mut out = xtask::repo_root().join("target/omprt/conformance");
    let mut it = args.iter();
    while let Some(a) = it.next() {
        let mut value = || it.next().cloned().ok_or_else(|| format!("{a} needs a value"));
        match a.as_str() {
            "--suite" => suite = std::path::PathBuf::from(value()?),
            "--lit-cfg" => lit_cfg = Some(std::path::PathBuf::from(value()?)),
            "--levels" => levels = conformance::parse_levels(&value()?)?,
            "--jobs" => jobs = value()?.parse().map_err(|e| format!("--jobs: {e}"))?,
            "--only" => only = Some(value()?),
            "--out" => out = std::path::PathBuf::from(value()?),
            other => return Err(format!("conformance: unknown argument '{other}'\n\n{HELP}")),
        }
    }
    let setup = conformance::Setup::new(&suite, lit_cfg.as_deref(), &out)?;
    let features: Vec<String> =
        levels.iter().map(|l| format!("{}: {}", l.name, conformance::Features::of(l).present.into_iter().collect::<Vec<_>>().join(", "))).collect();
    println!("suite {} (lit.cfg {}); features {}", setup.suite.display(), setup.lit_cfg.display(), features.join("; "));
    let rows = conformance::run(&setup, &levels, jobs, only.as_deref())?;
    println!("{}", conformance::render(&setup, &rows, &levels));
    if conformance::ok(&rows) {
        Ok(())
    } else {
        Err(format!("build failures that {} does not classify (omprt's until shown otherwise)", conformance::known_path().display()))
    }
}

fn link_archs() -> xtask::Result<()> {
    let summary = corpus::check_archs(&corpus::Options::default())?;
    println!("{}", summary.render());
    if summary.ok() { Ok(()) } else { Err("a link for a supported arch failed".into()) }
}

fn prose(dirs: &[String]) -> xtask::Result<()> {
    use xtask::prose;
    let dirs: Vec<std::path::PathBuf> =
        if dirs.is_empty() { prose::DEFAULT_DIRS.iter().map(std::path::PathBuf::from).collect() } else { dirs.iter().map(std::path::PathBuf::from).collect() };
    let findings = prose::check_paths(&dirs)?;
    for finding in &findings {
        println!("{finding}");
    }
    if findings.is_empty() {
        Ok(())
    } else {
        Err(format!("{} comment line(s) record history or cite files outside the repository: state the invariant or the reason as it holds now", findings.len()))
    }
}

fn remarks_table() -> xtask::Result<()> {
    let opts = corpus::Options::default();
    let rows = xtask::remarks::table(&opts, &opts.out.join("remarks"))?;
    print!("{}", xtask::remarks::render(&rows));
    Ok(())
}

fn report(check: bool) -> xtask::Result<()> {
    use xtask::report;
    let tables = report::Tables::new(&xtask::repo_root().join("target/omprt/report"));
    tables.build_all();
    let text = report::render(&tables)?;
    let path = report::committed_path();
    let unused = report::unused_notes(&tables)?;
    if !unused.is_empty() {
        return Err(format!("xtask/src/report_notes.rs explains cases the tables no longer have: {unused:?}"));
    }
    if check {
        let committed = std::fs::read_to_string(&path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
        return match report::first_difference(&committed, &text) {
            None => Ok(()),
            Some(d) => Err(format!("{} differs from what 'cargo xtask report' writes: {d}", path.display())),
        };
    }
    std::fs::write(&path, text).map_err(|e| format!("cannot write {}: {e}", path.display()))?;
    eprintln!("wrote {}", path.display());
    Ok(())
}
