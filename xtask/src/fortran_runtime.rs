//! The table of flang-rt entry points (`_FortranA*`) that flang 22 emits in
//! the device code of the Fortran corpus (`tests-gpu/programs/fortran_*.f90`
//! at -O0 and -O2), with what omprt's Fortran runtime member does for each:
//! implemented, traps with a message, or not applicable. `docs/fortran-
//! runtime.md` holds the table between [`BEGIN`] and [`END`];
//! `cargo xtask fortran-symbols` regenerates it, and a lowering test fails
//! when flang emits an entry point the table does not list (or the table
//! lists one it no longer emits).

use crate::corpus::{self, OPT_LEVELS, Options};
use crate::{Result, repo_root};
use std::collections::{BTreeMap, BTreeSet};

/// The document with the table.
pub const DOC: &str = "docs/fortran-runtime.md";
/// The markers around the table in [`DOC`].
pub const BEGIN: &str = "<!-- fortran-symbols:begin (cargo xtask fortran-symbols) -->";
pub const END: &str = "<!-- fortran-symbols:end -->";

/// Entry points whose effect the device has no counterpart of, and why.
pub const NOT_APPLICABLE: &[(&str, &str)] = &[
    (
        "_FortranADateAndTime",
        "the device knows no date, time of day or zone: blank strings and `-HUGE` values, the standard's answer where none is available",
    ),
    ("_FortranAFlush", "`CALL FLUSH(unit)` (GNU): the device has no units to flush; returns"),
    ("_FortranAfeclearexcept", "clears IEEE flags (`IEEE_SET_FLAG(flag, .FALSE.)`): the GPU has no floating-point status flags; returns"),
    ("_FortranAfedisableexcept", "`IEEE_SET_HALTING_MODE(flag, .FALSE.)`: no exception halts on the GPU; returns"),
    ("_FortranAfegetexcept", "`IEEE_GET_HALTING_MODE`: no exception halts on the GPU; returns none"),
    ("_FortranAferaiseexcept", "raises IEEE flags (`NEAREST`'s edge cases): the GPU has no floating-point status flags; returns"),
];

/// Entry points that trap when called, naming themselves, and why.
pub const TRAPS: &[(&str, &str)] = &[
    ("_FortranAfeenableexcept", "`IEEE_SET_HALTING_MODE(flag, .TRUE.)`: the GPU cannot halt on a floating-point exception"),
    ("_FortranAfetestexcept", "`IEEE_GET_FLAG`: the GPU keeps no floating-point exception flags"),
];

/// What the runtime does for an I/O entry point (`_FortranAio*`): output
/// statements work, list-directed and formatted; input and non-advancing
/// output trap, a statement at its first call.
fn io_status(name: &str) -> String {
    if name.contains("Input") {
        if name.starts_with("_FortranAioBegin") {
            "traps: `READ` (also from a character variable) in a target region; the statement's first call traps".to_string()
        } else {
            "traps: input, never reached (the statement's first call traps)".to_string()
        }
    } else if name == "_FortranAioSetAdvance" {
        "traps: `ADVANCE='NO'`: each output statement on the device ends its record".to_string()
    } else {
        "implemented".to_string()
    }
}

/// What the runtime does for `name`.
pub fn status(name: &str) -> String {
    if name.starts_with("_FortranAio") {
        io_status(name)
    } else if let Some((_, why)) = TRAPS.iter().find(|(n, _)| *n == name) {
        format!("traps: {why}")
    } else if let Some((_, why)) = NOT_APPLICABLE.iter().find(|(n, _)| *n == name) {
        format!("not applicable: {why}")
    } else {
        "implemented".to_string()
    }
}

/// Each entry point the corpus emits: the levels and programs it is
/// emitted at, from `(program, level, entry points)` triples.
pub fn collect<'a>(
    builds: impl IntoIterator<Item = (&'a str, &'a str, &'a BTreeSet<String>)>,
) -> BTreeMap<String, (BTreeSet<String>, BTreeSet<String>)> {
    let mut rows: BTreeMap<String, (BTreeSet<String>, BTreeSet<String>)> = BTreeMap::new();
    for (program, opt, symbols) in builds {
        for s in symbols {
            let row = rows.entry(s.clone()).or_default();
            row.0.insert(opt.to_string());
            row.1.insert(program.trim_end_matches(".f90").to_string());
        }
    }
    rows
}

/// The table of [`collect`]'s rows, as [`DOC`] holds it.
pub fn render(rows: &BTreeMap<String, (BTreeSet<String>, BTreeSet<String>)>) -> String {
    let mut s = String::from("| entry point | omprt | emitted at | by |\n|---|---|---|---|\n");
    for (name, (levels, programs)) in rows {
        let levels: Vec<&str> = OPT_LEVELS.iter().copied().filter(|l| levels.contains(*l)).collect();
        let programs: Vec<&str> = programs.iter().map(String::as_str).collect();
        s += &format!("| `{name}` | {} | {} | {} |\n", status(name), levels.join(" "), programs.join(", "));
    }
    s
}

/// The table of a corpus run (`corpus::check_fortran_all`).
pub fn table_of(summary: &corpus::Summary) -> String {
    render(&collect(summary.builds.iter().map(|b| (b.program.as_str(), b.opt.as_str(), &b.fortran_runtime))))
}

/// The table from the corpus's device IR alone (no link, no ptxas): what
/// `cargo xtask fortran-symbols` prints.
pub fn table(opts: &Options) -> Result<String> {
    std::fs::create_dir_all(&opts.out).map_err(|e| format!("cannot create {}: {e}", opts.out.display()))?;
    let mut found = Vec::new();
    for src in corpus::fortran_programs(&opts.programs)? {
        let program = src.file_name().unwrap().to_string_lossy().to_string();
        for opt in OPT_LEVELS {
            let symbols: BTreeSet<String> =
                corpus::fortran_declarations(&src, opt, &opts.out)?.into_keys().filter(|n| corpus::is_fortran_runtime_symbol(n)).collect();
            found.push((program.clone(), opt, symbols));
        }
    }
    Ok(render(&collect(found.iter().map(|(p, o, s)| (p.as_str(), *o, s)))))
}

/// The table [`DOC`] holds now, between its markers.
pub fn documented() -> Result<String> {
    let path = repo_root().join(DOC);
    let text = std::fs::read_to_string(&path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    let start = text.find(BEGIN).ok_or_else(|| format!("{}: no {BEGIN} line", path.display()))? + BEGIN.len();
    let end = text[start..].find(END).ok_or_else(|| format!("{}: no {END} line", path.display()))? + start;
    Ok(text[start..end].trim_start_matches('\n').to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_merge_levels_and_programs_and_say_what_omprt_does() {
        let (a, b) =
            (BTreeSet::from(["_FortranAAssign".to_string(), "_FortranAioOutputAscii".to_string()]), BTreeSet::from(["_FortranAAssign".to_string()]));
        let rows = collect([("p.f90", "-O2", &b), ("q.f90", "-O0", &a)]);
        let table = render(&rows);
        assert!(table.contains("| `_FortranAAssign` | implemented | -O0 -O2 | p, q |"), "{table}");
        assert!(table.contains("| `_FortranAioOutputAscii` | implemented | -O0 | q |"), "{table}");
        assert_eq!(status("_FortranAferaiseexcept").split(':').next(), Some("not applicable"));
        assert!(status("_FortranAioBeginExternalListInput").starts_with("traps: `READ`"));
        assert!(status("_FortranAioInputInteger").starts_with("traps: input, never reached"));
        assert!(status("_FortranAioSetAdvance").starts_with("traps: `ADVANCE='NO'`"));
    }
}
