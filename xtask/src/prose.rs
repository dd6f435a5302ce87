//! `cargo xtask prose`: comment lines that record history rather than state
//! what holds. Comments say the invariant or the reason as it is now; dates,
//! numbered versions of a report ([`REPORT_VERSION_WORD`]) and "before -> after"
//! figures belong in commits, the changelog and the generated reports, and
//! the repository documents itself rather than pointing at design notes
//! outside it ([`OUTSIDE_DOCS`]).
//!
//! Only comments are read (`//`, `///`, `//!` and block comments): string
//! literals and code are skipped by a small lexer that knows Rust's strings,
//! raw strings, character literals and lifetimes.

use crate::Result;
use std::path::{Path, PathBuf};

/// The directories `cargo xtask prose` reads when given none: the
/// workspace's members, each with its tests (`scripts/test.sh` runs it).
pub const DEFAULT_DIRS: [&str; 6] = ["abi", "device-rtl", "host-plugin", "nvlink", "tests-gpu", "xtask"];

/// The word that numbers versions of a report, in any case.
pub const REPORT_VERSION_WORD: &str = "revision";

/// Files outside the repository that comments must not cite.
pub const OUTSIDE_DOCS: [&str; 3] = ["ABI-CONTRACT.md", "STYLE.md", "DESIGN.md"];

/// What a comment line holds that it should not.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Problem {
    /// A date, `20YY-MM-DD`.
    Date,
    /// [`REPORT_VERSION_WORD`].
    Revision,
    /// A figure with digits on both sides of `->`.
    Figure,
    /// A reference to a file outside the repository.
    OutsideDoc(&'static str),
}

impl std::fmt::Display for Problem {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Problem::Date => f.write_str("a date"),
            Problem::Revision => f.write_str("a revision"),
            Problem::Figure => f.write_str("an 'a -> b' figure"),
            Problem::OutsideDoc(name) => write!(f, "a reference to {name}, which is not in the repository"),
        }
    }
}

/// One comment line with a problem.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Finding {
    pub path: PathBuf,
    /// 1-based.
    pub line: usize,
    pub problems: Vec<Problem>,
    pub text: String,
}

impl std::fmt::Display for Finding {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let what: Vec<String> = self.problems.iter().map(ToString::to_string).collect();
        // The text after `//`, without the `/` or `!` of a doc comment.
        write!(f, "{}:{}: {}: {}", self.path.display(), self.line, what.join(", "), self.text.trim_start_matches(['/', '!']).trim())
    }
}

/// The problems of one comment's text.
pub fn problems(comment: &str) -> Vec<Problem> {
    let mut found = Vec::new();
    if has_date(comment) {
        found.push(Problem::Date);
    }
    if comment.to_lowercase().contains(REPORT_VERSION_WORD) {
        found.push(Problem::Revision);
    }
    if has_figure(comment) {
        found.push(Problem::Figure);
    }
    for name in OUTSIDE_DOCS {
        if comment.contains(name) {
            found.push(Problem::OutsideDoc(name));
        }
    }
    found
}

/// `20YY-MM-DD` anywhere in `text`.
fn has_date(text: &str) -> bool {
    let b = text.as_bytes();
    let digits = |range: std::ops::Range<usize>| b[range].iter().all(u8::is_ascii_digit);
    (0..b.len().saturating_sub(9)).any(|i| b[i..i + 2] == *b"20" && digits(i + 2..i + 4) && b[i + 4] == b'-' && digits(i + 5..i + 7) && b[i + 7] == b'-' && digits(i + 8..i + 10))
}

/// A digit, then `->`, then a digit, spaces allowed around the arrow.
fn has_figure(text: &str) -> bool {
    text.match_indices("->").any(|(at, _)| {
        let before = text[..at].trim_end().chars().next_back();
        let after = text[at + 2..].trim_start().chars().next();
        before.is_some_and(|c| c.is_ascii_digit()) && after.is_some_and(|c| c.is_ascii_digit())
    })
}

/// The comment text of each line of Rust source `src`, with its 1-based line
/// number, in order (a line with two comments, or a block comment's lines,
/// give one entry each).
pub fn comments(src: &str) -> Vec<(usize, String)> {
    let chars: Vec<char> = src.chars().collect();
    let mut out: Vec<(usize, String)> = Vec::new();
    let (mut i, mut line) = (0, 1);
    let at = |i: usize, s: &str| s.chars().enumerate().all(|(k, c)| chars.get(i + k) == Some(&c));
    let ident = |c: Option<&char>| c.is_some_and(|c| c.is_alphanumeric() || *c == '_');
    while i < chars.len() {
        let c = chars[i];
        if c == '\n' {
            line += 1;
            i += 1;
        } else if at(i, "//") {
            let end = chars[i..].iter().position(|&c| c == '\n').map_or(chars.len(), |n| i + n);
            out.push((line, chars[i + 2..end].iter().collect()));
            i = end;
        } else if at(i, "/*") {
            // Nested, as Rust's are; each line's part is an entry of its own.
            let (mut depth, mut text) = (1, String::new());
            i += 2;
            while i < chars.len() && depth > 0 {
                if at(i, "/*") {
                    depth += 1;
                    i += 2;
                } else if at(i, "*/") {
                    depth -= 1;
                    i += 2;
                } else if chars[i] == '\n' {
                    out.push((line, std::mem::take(&mut text)));
                    line += 1;
                    i += 1;
                } else {
                    text.push(chars[i]);
                    i += 1;
                }
            }
            out.push((line, text));
        } else if c == '"' {
            i += 1;
            while i < chars.len() && chars[i] != '"' {
                if chars[i] == '\\' {
                    i += 1;
                }
                if chars.get(i) == Some(&'\n') {
                    line += 1;
                }
                i += 1;
            }
            i += 1;
        } else if (c == 'r' || (c == 'b' && chars.get(i + 1) == Some(&'r'))) && !ident(i.checked_sub(1).and_then(|p| chars.get(p))) {
            // A raw string `r#"…"#` (or `br…`); otherwise an identifier.
            let start = if c == 'b' { i + 2 } else { i + 1 };
            let hashes = chars[start..].iter().take_while(|&&c| c == '#').count();
            if chars.get(start + hashes) != Some(&'"') {
                i += 1;
                continue;
            }
            let close: String = std::iter::once('"').chain(std::iter::repeat_n('#', hashes)).collect();
            i = start + hashes + 1;
            while i < chars.len() && !at(i, &close) {
                if chars[i] == '\n' {
                    line += 1;
                }
                i += 1;
            }
            i += close.chars().count();
        } else if c == '\'' {
            // A character literal, or a lifetime (`'a`), which has no closing quote.
            if chars.get(i + 1) == Some(&'\\') {
                i += 2;
                while i < chars.len() && chars[i] != '\'' {
                    i += 1;
                }
                i += 1;
            } else if chars.get(i + 2) == Some(&'\'') {
                i += 3;
            } else {
                i += 1;
            }
        } else if ident(Some(&c)) {
            // A whole identifier, so that an `r` or `b` inside one is not a raw string.
            while ident(chars.get(i)) {
                i += 1;
            }
        } else {
            i += 1;
        }
    }
    out
}

/// The findings in one file's source.
pub fn check_source(path: &Path, src: &str) -> Vec<Finding> {
    comments(src)
        .into_iter()
        .filter_map(|(line, text)| {
            let problems = problems(&text);
            (!problems.is_empty()).then(|| Finding { path: path.to_path_buf(), line, problems, text })
        })
        .collect()
}

/// The findings in every `.rs` file under `dirs` (or in `dirs` themselves
/// where they are files), skipping `target` and hidden directories. A
/// relative path is taken from the current directory if it exists there,
/// else from the repository root.
pub fn check_paths(dirs: &[PathBuf]) -> Result<Vec<Finding>> {
    let mut files = Vec::new();
    for dir in dirs {
        let path = if dir.is_relative() && !dir.exists() { crate::repo_root().join(dir) } else { dir.clone() };
        if !path.exists() {
            return Err(format!("{}: no such file or directory", dir.display()));
        }
        collect_rust_files(&path, &mut files)?;
    }
    files.sort();
    let mut findings = Vec::new();
    for file in files {
        let src = std::fs::read_to_string(&file).map_err(|e| format!("cannot read {}: {e}", file.display()))?;
        findings.extend(check_source(&file, &src));
    }
    Ok(findings)
}

fn collect_rust_files(path: &Path, files: &mut Vec<PathBuf>) -> Result<()> {
    if path.is_file() {
        if path.extension().is_some_and(|e| e == "rs") {
            files.push(path.to_path_buf());
        }
        return Ok(());
    }
    let entries = std::fs::read_dir(path).map_err(|e| format!("cannot list {}: {e}", path.display()))?;
    for entry in entries {
        let entry = entry.map_err(|e| format!("cannot list {}: {e}", path.display()))?;
        let name = entry.file_name();
        let name = name.to_string_lossy();
        if name.starts_with('.') || name == "target" {
            continue;
        }
        collect_rust_files(&entry.path(), files)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn flagged(src: &str) -> Vec<(usize, Vec<Problem>)> {
        check_source(Path::new("x.rs"), src).into_iter().map(|f| (f.line, f.problems)).collect()
    }

    #[test]
    fn each_kind_of_history_in_a_comment_is_found() {
        let cases: [(&str, Problem); 8] = [
            ("// Until 2026-11-26 thread 0 cleared them.", Problem::Date),
            ("// measured on 2026-11-25", Problem::Date),
            ("/// Lowering report, thirty-third Revision.", Problem::Revision),
            ("//! schedules.c l74 42 -> 40 registers", Problem::Figure),
            ("// 2223->2205 over the corpus", Problem::Figure),
            ("// see ABI-CONTRACT.md 4.1", Problem::OutsideDoc("ABI-CONTRACT.md")),
            ("/* as STYLE.md asks */", Problem::OutsideDoc("STYLE.md")),
            ("let x = 1; // DESIGN.md says so", Problem::OutsideDoc("DESIGN.md")),
        ];
        for (line, problem) in cases {
            assert_eq!(flagged(line), vec![(1, vec![problem])], "{line}");
        }
        assert_eq!(flagged("// 2026-11-29, revision 3: 5 -> 4").first().map(|f| f.1.len()), Some(3));
    }

    #[test]
    fn present_tense_comments_and_code_are_not_flagged() {
        let src = r##"
/// Inlined: out of line, ptxas gives a non-kernel function callee-saved
/// registers (`no_kernel_costs_more_than_with_llvm19`); a -> b; x-1 -> y.
fn f<'a>(s: &'a str) -> u32 {
    let date = "2026-11-29 // revision 3 -> 4 ABI-CONTRACT.md";
    let raw = r#"5 -> 6 "STYLE.md" // 2026-01-01"#;
    let (c, q, lt) = ('"', '\'', b'/');
    if 3 -> 4 {} // code, not a comment: the figure is in the code
    0
}
"##;
        assert_eq!(flagged(src), vec![]);
    }

    #[test]
    fn comments_after_strings_and_lifetimes_are_read_on_their_own_lines() {
        let src = "fn f<'a>(x: &'a str) {\n    let s = \"a\\\"b // not a comment\n still the string\"; // 1 -> 2\n    /* one\n       2026-11-29 */ let c = '/';\n}\n";
        assert_eq!(flagged(src), vec![(3, vec![Problem::Figure]), (5, vec![Problem::Date])]);
    }

    /// A crate added to the workspace is read too, or its comments go
    /// unchecked.
    #[test]
    fn the_default_dirs_are_the_workspace_members() {
        let manifest = std::fs::read_to_string(crate::repo_root().join("Cargo.toml")).expect("the workspace's Cargo.toml");
        let line = manifest.lines().find(|l| l.trim_start().starts_with("members")).expect("a members line in Cargo.toml");
        let list = line.split_once('[').and_then(|(_, rest)| rest.split_once(']')).expect("members = [...] on one line").0;
        let mut members: Vec<&str> = list.split(',').map(|m| m.trim().trim_matches('"')).filter(|m| !m.is_empty()).collect();
        members.sort_unstable();
        let mut dirs = DEFAULT_DIRS.to_vec();
        dirs.sort_unstable();
        assert_eq!(dirs, members);
    }

    #[test]
    fn a_missing_directory_is_an_error() {
        let err = check_paths(&[PathBuf::from("no/such/dir-for-prose")]).unwrap_err();
        assert!(err.contains("no/such/dir-for-prose"), "{err}");
    }
}
