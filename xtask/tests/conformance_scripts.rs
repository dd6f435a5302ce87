//! The conformance pipeline end to end on a small lit suite written here:
//! `conformance::run` builds it with clang 22 against the built runtime
//! (`cargo xtask build-device`, which `scripts/test.sh` runs first), then
//! `scripts/gpu-conformance.sh` runs the RUN lines through the host fallback
//! (no GPU here) and `scripts/gpu-sanitize.sh --all` runs a stand-in
//! compute-sanitizer over the tests that passed. What is checked is the
//! scripts' logic: results per test, the classification of failures, the
//! summary, the sanitizer counts.

use std::path::{Path, PathBuf};
use std::process::Command;
use xtask::conformance::{self, Known, Status};

const LIT_CFG: &str = r#"
config.substitutions.append(("%libomptarget-compile-run-and-check-generic", "..."))
config.substitutions.append(("%libomptarget-compile-generic", "..."))
config.substitutions.append(("%libomptarget-run-generic", "..."))
config.substitutions.append(("%libomptarget-run-fail-generic", "..."))
config.substitutions.append(("%fcheck-generic", "..."))
"#;

/// A program whose target region sets x to 42 and prints it (and `extra`).
fn program(directives: &str, extra: &str) -> String {
    format!(
        "{directives}\n#include <stdio.h>\n#include <stdlib.h>\nint main(void) {{\n  int x = 0;\n#pragma omp target map(from : x)\n  x = 42;\n  \
         printf(\"x = %d\\n\", x);\n  {extra}\n  return 0;\n}}\n"
    )
}

fn suite(dir: &Path) {
    let files = [
        ("pass.c", program("// RUN: %libomptarget-compile-run-and-check-generic\n// CHECK: x = 42", "")),
        ("fail.c", program("// RUN: %libomptarget-compile-run-and-check-generic\n// CHECK: x = 43", "")),
        ("known_fail.c", program("// RUN: %libomptarget-compile-run-and-check-generic\n// CHECK: x = 44", "")),
        ("xfail.c", program("// RUN: %libomptarget-compile-run-and-check-generic\n// XFAIL: *\n// CHECK: x = 45", "")),
        ("na.c", program("// RUN: %libomptarget-compile-run-and-check-generic\n// REQUIRES: amdgpu", "")),
        (
            "env.c",
            program(
                "// RUN: %libomptarget-compile-generic\n// RUN: env OMPRT_SELFTEST=7 %libomptarget-run-generic | %fcheck-generic\n// CHECK: value 7",
                "printf(\"value %s\\n\", getenv(\"OMPRT_SELFTEST\"));",
            ),
        ),
        (
            "crash.c",
            "// RUN: %libomptarget-compile-generic && %libomptarget-run-fail-generic\nint main(void) {\n#pragma omp target\n  __builtin_trap();\n  return 0;\n}\n"
                .to_string(),
        ),
        ("nolink.c", program("// RUN: %libomptarget-compile-generic", "extern void omprt_selftest_undefined(void); omprt_selftest_undefined();")),
    ];
    std::fs::create_dir_all(dir.join("_lit")).unwrap();
    std::fs::write(dir.join("_lit/lit.cfg"), LIT_CFG).unwrap();
    for (name, text) in files {
        std::fs::write(dir.join(name), text).unwrap();
    }
}

fn scratch() -> PathBuf {
    let d = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(format!("conformance-scripts-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn script(name: &str) -> PathBuf {
    xtask::repo_root().join("scripts").join(name)
}

#[test]
fn a_small_suite_builds_runs_and_is_classified() {
    let dir = scratch();
    let (suite_dir, out, results, bin) = (dir.join("suite"), dir.join("out"), dir.join("results"), dir.join("bin"));
    suite(&suite_dir);
    std::fs::create_dir_all(&results).unwrap();
    let mut setup = conformance::Setup::new(&suite_dir, None, &out).unwrap_or_else(|e| panic!("{e}"));
    setup.known = vec![Known {
        test: "known_fail.c".into(),
        levels: vec!["O0".into()],
        stage: "run".into(),
        matches: "x = 44".into(),
        whose: "the self-test".into(),
        evidence: "it checks for 44".into(),
    }];
    let rows = conformance::run(&setup, &[conformance::LEVELS[0]], 2, None).unwrap_or_else(|e| panic!("{e}"));
    let table = conformance::render(&setup, &rows, &[conformance::LEVELS[0]]);
    let status = |t: &str| &rows.iter().find(|r| r.test == t).unwrap_or_else(|| panic!("no row for {t}:\n{table}")).status;
    for t in ["pass.c", "fail.c", "known_fail.c", "env.c", "crash.c", "xfail.c"] {
        assert_eq!(status(t), &Status::Built, "{t}:\n{table}");
    }
    assert!(matches!(status("na.c"), Status::NotApplicable(r) if r.contains("REQUIRES: amdgpu")), "{table}");
    assert!(
        matches!(status("nolink.c"), Status::Failed { stage: conformance::Stage::HostLink, known: None, .. }),
        "an undefined host function fails the host link, unclassified:\n{table}"
    );
    assert!(!conformance::ok(&rows), "an unclassified build failure fails the run");
    assert!(table.contains("conformance ") && table.contains(": built 5 of 6 applicable"), "{table}");

    // The GPU script, through the host fallback.
    let run = Command::new("bash")
        .arg(script("gpu-conformance.sh"))
        .args(["--levels", "O0", "--jobs", "2"])
        .env("CONFORMANCE_DIR", &out)
        .env("CONFORMANCE_HOST_FALLBACK", "1")
        .env("OUT", &results)
        .output()
        .unwrap();
    let text = std::fs::read_to_string(results.join("conformance.txt"))
        .unwrap_or_else(|e| panic!("no conformance.txt ({e}): {}{}", String::from_utf8_lossy(&run.stdout), String::from_utf8_lossy(&run.stderr)));
    for line in [
        "PASS pass.c O0",
        "PASS env.c O0",
        "PASS crash.c O0",
        "FAIL omprt: fail.c O0: RUN line 1 (line 1 of the test), exit 1:",
        "FAIL other: known_fail.c O0: the self-test: it checks for 44",
        "N/A: xfail.c O0: XFAIL: * (upstream expects it to fail here); ran: fails as expected",
        "N/A: na.c O0: REQUIRES: amdgpu",
        "FAIL omprt: nolink.c O0: did not build: RUN line 1, host link:",
        "summary: 3 of 6 applicable tests pass; omprt failures 2 (levels O0)",
    ] {
        assert!(text.lines().any(|l| l.starts_with(line)), "no line starting '{line}' in:\n{text}");
    }
    let passing = std::fs::read_to_string(results.join("conformance-passing.txt")).unwrap();
    assert_eq!(passing.lines().count(), 3, "{passing}");

    // The sanitizer stage with stand-ins for nvidia-smi and compute-sanitizer:
    // racecheck "finds" one error in env.c; crash.c (`not`) is left out.
    std::fs::create_dir_all(&bin).unwrap();
    let fake = |name: &str, body: &str| {
        let p = bin.join(name);
        std::fs::write(&p, format!("#!/usr/bin/env bash\n{body}\n")).unwrap();
        Command::new("chmod").arg("+x").arg(&p).status().unwrap();
    };
    fake("nvidia-smi", "echo 'GPU 0: stand-in'");
    fake(
        "compute-sanitizer",
        r#"tool=memcheck log=/dev/null
while [ $# -gt 0 ]; do case "$1" in --tool) tool=$2; shift 2;; --log-file) log=$2; shift 2;; --version) echo version 0; exit 0;; --*) shift 2;; *) break;; esac; done
"$@" >/dev/null 2>&1; rc=$?
n=0; [[ $tool == racecheck && "$*" == *env.c* ]] && n=1
echo "========= ERROR SUMMARY: $n errors" >"${log//%p/$$}"
exit $rc"#,
    );
    let path = format!("{}:{}", bin.display(), std::env::var("PATH").unwrap_or_default());
    let san = Command::new("bash")
        .arg(script("gpu-sanitize.sh"))
        .args(["--all", "--levels", "O0", "--budget", "300", "--jobs", "2", "--conformance"])
        .arg(results.join("conformance-passing.txt"))
        .env("PATH", path)
        .env("OUT", &results)
        .output()
        .unwrap();
    let counts = std::fs::read_to_string(results.join("sanitizers.txt"))
        .unwrap_or_else(|e| panic!("no sanitizers.txt ({e}): {}{}", String::from_utf8_lossy(&san.stdout), String::from_utf8_lossy(&san.stderr)));
    assert!(counts.contains("memcheck: 2 run, 0 not run (budget), 0 with reports, 0 errors"), "{counts}");
    assert!(counts.contains("racecheck: 2 run, 0 not run (budget), 1 with reports, 1 errors"), "{counts}");
    let _ = std::fs::remove_dir_all(&dir);
}
