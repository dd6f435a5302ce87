//! Reading tests written for LLVM's `lit` (the `offload/test` suites): the
//! directives of a test file, lit's boolean feature expressions, the
//! substitutions of a suite's `lit.cfg`, and the shell language of RUN lines,
//! parsed so that a RUN line can be split into what is built here and what
//! runs on the GPU machine ([`Script`]).
//!
//! What follows lit (`llvm/utils/lit`):
//! * a directive is `KEYWORD:` anywhere in a line (`// RUN:`, `/* RUN:`);
//!   a RUN line ending in `\` continues on the next RUN line;
//! * REQUIRES lines are all needed; each is a comma-separated list of
//!   expressions, all needed. An UNSUPPORTED or XFAIL list holds when any
//!   of its expressions does; `*` in XFAIL matches everything;
//! * expressions: feature names, `!`, `&&`, `||`, parentheses, `true`;
//! * RUN lines are run by a shell with `pipefail`: `;`, `&&`, `||`, `|`,
//!   redirections (`>`, `>>`, `<`, `2>`, `2>&1`, `&>`), single and double
//!   quotes, `env NAME=VALUE`, `not` and `not --crash` (LLVM's `not`).

use crate::Result;
use std::collections::BTreeSet;

/// The directives of one test file.
#[derive(Debug, Default, PartialEq)]
pub struct TestFile {
    /// Each RUN command with its continuations joined, and the line it starts on.
    pub run: Vec<(usize, String)>,
    pub requires: Vec<String>,
    pub unsupported: Vec<String>,
    pub xfail: Vec<String>,
}

/// The text after `keyword:` on `line`, where the keyword starts a word.
fn directive<'a>(line: &'a str, keyword: &str) -> Option<&'a str> {
    let needle = format!("{keyword}:");
    let mut from = 0;
    while let Some(at) = line[from..].find(&needle) {
        let at = from + at;
        let starts_word = line[..at].chars().next_back().is_none_or(|c| !(c.is_alphanumeric() || c == '_' || c == '-'));
        if starts_word {
            return Some(&line[at + needle.len()..]);
        }
        from = at + needle.len();
    }
    None
}

/// Reads the directives of a test's text. A RUN line that continues (`\`)
/// into the end of the file is an error, as in lit.
pub fn parse_test(text: &str) -> Result<TestFile> {
    let mut t = TestFile::default();
    let mut pending: Option<(usize, String)> = None;
    for (i, line) in text.lines().enumerate() {
        let number = i + 1;
        if let Some(rest) = directive(line, "RUN") {
            let rest = rest.trim_end();
            let (piece, continues) = match rest.strip_suffix('\\') {
                Some(p) => (p, true),
                None => (rest, false),
            };
            let entry = pending.get_or_insert_with(|| (number, String::new()));
            entry.1.push_str(piece);
            if !continues {
                let (at, cmd) = pending.take().unwrap();
                t.run.push((at, cmd.trim().to_string()));
            }
            continue;
        }
        for (keyword, list) in [("REQUIRES", &mut t.requires), ("UNSUPPORTED", &mut t.unsupported), ("XFAIL", &mut t.xfail)] {
            if let Some(rest) = directive(line, keyword) {
                list.extend(rest.split(',').map(str::trim).filter(|s| !s.is_empty()).map(str::to_string));
            }
        }
    }
    if let Some((at, _)) = pending {
        return Err(format!("the RUN line at line {at} continues ('\\') past the last RUN line"));
    }
    Ok(t)
}

/// Evaluates one of lit's boolean expressions over `features`.
pub fn eval(expr: &str, features: &BTreeSet<String>) -> Result<bool> {
    let tokens = expr_tokens(expr)?;
    let mut p = ExprParser { tokens: &tokens, at: 0, features };
    let v = p.or()?;
    if p.at != tokens.len() {
        return Err(format!("'{expr}': unexpected '{}'", tokens[p.at]));
    }
    Ok(v)
}

fn expr_tokens(expr: &str) -> Result<Vec<String>> {
    let mut tokens = Vec::new();
    let chars: Vec<char> = expr.chars().collect();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        if c.is_whitespace() {
            i += 1;
        } else if c == '(' || c == ')' || c == '!' {
            tokens.push(c.to_string());
            i += 1;
        } else if (c == '&' || c == '|') && chars.get(i + 1) == Some(&c) {
            tokens.push(format!("{c}{c}"));
            i += 2;
        } else if c.is_alphanumeric() || "-+=._*".contains(c) {
            let start = i;
            while i < chars.len() && (chars[i].is_alphanumeric() || "-+=._*".contains(chars[i])) {
                i += 1;
            }
            tokens.push(chars[start..i].iter().collect());
        } else {
            return Err(format!("'{expr}': unexpected '{c}' in a feature expression"));
        }
    }
    Ok(tokens)
}

struct ExprParser<'a> {
    tokens: &'a [String],
    at: usize,
    features: &'a BTreeSet<String>,
}

impl ExprParser<'_> {
    fn peek(&self) -> Option<&str> {
        self.tokens.get(self.at).map(String::as_str)
    }
    fn or(&mut self) -> Result<bool> {
        let mut v = self.and()?;
        while self.peek() == Some("||") {
            self.at += 1;
            v |= self.and()?;
        }
        Ok(v)
    }
    fn and(&mut self) -> Result<bool> {
        let mut v = self.not()?;
        while self.peek() == Some("&&") {
            self.at += 1;
            v &= self.not()?;
        }
        Ok(v)
    }
    fn not(&mut self) -> Result<bool> {
        match self.tokens.get(self.at).map(String::as_str) {
            Some("!") => {
                self.at += 1;
                Ok(!self.not()?)
            }
            Some("(") => {
                self.at += 1;
                let v = self.or()?;
                if self.peek() != Some(")") {
                    return Err("a '(' without its ')' in a feature expression".into());
                }
                self.at += 1;
                Ok(v)
            }
            Some(name) if !matches!(name, ")" | "&&" | "||") => {
                let holds = name == "true" || name == "*" || self.features.contains(name);
                self.at += 1;
                Ok(holds)
            }
            other => Err(format!("a feature name expected, not {other:?}")),
        }
    }
}

/// Whether the test runs with `features`: `Err(reason)` names the first
/// REQUIRES expression that fails or UNSUPPORTED expression that holds.
pub fn applicable(t: &TestFile, features: &BTreeSet<String>) -> Result<std::result::Result<(), String>> {
    for r in &t.requires {
        if !eval(r, features)? {
            return Ok(Err(format!("REQUIRES: {r}")));
        }
    }
    for u in &t.unsupported {
        if eval(u, features)? {
            return Ok(Err(format!("UNSUPPORTED: {u}")));
        }
    }
    Ok(Ok(()))
}

/// The XFAIL expression that holds with `features`, if any.
pub fn expected_to_fail(t: &TestFile, features: &BTreeSet<String>) -> Result<Option<String>> {
    for x in &t.xfail {
        if eval(x, features)? {
            return Ok(Some(x.clone()));
        }
    }
    Ok(None)
}

/// Names a RUN line keeps until its commands are rendered for a phase: the
/// test's source (`%s`) and folder (`%S`), its temporary path (`%t`), that
/// path's folder (`%T`) and file name (`%basename_t`).
pub const PLACEHOLDERS: [&str; 5] = ["%basename_t", "%s", "%S", "%t", "%T"];

/// Expands `text` with `table` (name, expansion): at each `%`, the longest
/// name of the table that starts there (lit applies its list in order, and
/// lists longer names first where one is a prefix of another), then the
/// expansion's own names. Placeholders stay. A `%name` that neither knows
/// is an error that names it.
pub fn substitute(text: &str, table: &[(String, String)]) -> Result<String> {
    fn go(text: &str, table: &[(String, String)], depth: usize) -> Result<String> {
        if depth > 16 {
            return Err(format!("substitutions nest too deep in '{text}'"));
        }
        let mut out = String::new();
        let mut rest = text;
        while let Some(at) = rest.find('%') {
            out.push_str(&rest[..at]);
            rest = &rest[at..];
            let known = table.iter().filter(|(name, _)| rest.starts_with(name.as_str())).max_by_key(|(name, _)| name.len());
            let placeholder = PLACEHOLDERS.iter().filter(|p| rest.starts_with(**p)).max_by_key(|p| p.len());
            match (known, placeholder) {
                (Some((name, expansion)), p) if p.is_none_or(|p| name.len() >= p.len()) => {
                    out.push_str(&go(expansion, table, depth + 1)?);
                    rest = &rest[name.len()..];
                }
                (_, Some(p)) => {
                    out.push_str(p);
                    rest = &rest[p.len()..];
                }
                _ => {
                    let name: String = rest[1..].chars().take_while(|c| c.is_alphanumeric() || "-_+".contains(*c)).collect();
                    if name.is_empty() {
                        out.push('%');
                        rest = &rest[1..];
                    } else {
                        return Err(format!("%{name}"));
                    }
                }
            }
        }
        out.push_str(rest);
        Ok(out)
    }
    go(text, table, 0)
}

/// Replaces the placeholders of `word` with `values` (same order as
/// [`PLACEHOLDERS`]).
pub fn fill(word: &str, values: &[&str; 5]) -> String {
    let mut out = String::new();
    let mut rest = word;
    'outer: while !rest.is_empty() {
        if rest.starts_with('%') {
            for (p, v) in PLACEHOLDERS.iter().zip(values) {
                if rest.starts_with(p) {
                    out.push_str(v);
                    rest = &rest[p.len()..];
                    continue 'outer;
                }
            }
        }
        let c = rest.chars().next().unwrap();
        out.push(c);
        rest = &rest[c.len_utf8()..];
    }
    out
}

/// A token of a RUN line.
#[derive(Debug, Clone, PartialEq)]
enum Token {
    Word(String),
    Op(String),
}

/// Splits a RUN line into words and operators, as lit's shell lexer: quotes
/// join into the word they touch (`-DDIR='target teams'` is one word).
fn lex(line: &str) -> Result<Vec<Token>> {
    let chars: Vec<char> = line.chars().collect();
    let mut tokens = Vec::new();
    let mut i = 0;
    let mut word: Option<String> = None;
    let flush = |word: &mut Option<String>, tokens: &mut Vec<Token>| {
        if let Some(w) = word.take() {
            tokens.push(Token::Word(w));
        }
    };
    while i < chars.len() {
        let c = chars[i];
        let next = chars.get(i + 1).copied();
        match c {
            ' ' | '\t' => {
                flush(&mut word, &mut tokens);
                i += 1;
            }
            '\'' => {
                let end = chars[i + 1..].iter().position(|&x| x == '\'').ok_or_else(|| format!("an unclosed ' in: {line}"))?;
                word.get_or_insert_with(String::new).extend(&chars[i + 1..i + 1 + end]);
                i += end + 2;
            }
            '"' => {
                let w = word.get_or_insert_with(String::new);
                i += 1;
                loop {
                    match chars.get(i) {
                        None => return Err(format!("an unclosed \" in: {line}")),
                        Some('"') => break,
                        Some('\\') if matches!(chars.get(i + 1), Some('"' | '\\' | '$' | '`')) => {
                            w.push(chars[i + 1]);
                            i += 2;
                        }
                        Some(&x) => {
                            w.push(x);
                            i += 1;
                        }
                    }
                }
                i += 1;
            }
            '\\' => {
                let x = next.ok_or_else(|| format!("a lone \\ at the end of: {line}"))?;
                word.get_or_insert_with(String::new).push(x);
                i += 2;
            }
            '|' | '&' | ';' | '<' | '>' => {
                // A file descriptor number right before a redirection is part of it (2>, 2>&1).
                let mut op = String::new();
                if (c == '>' || c == '<') && word.as_deref().is_some_and(|w| w.chars().all(|d| d.is_ascii_digit()) && !w.is_empty()) {
                    op = word.take().unwrap();
                }
                flush(&mut word, &mut tokens);
                let two: String = [c].into_iter().chain(next).collect();
                let taken = match (c, next) {
                    ('|', Some('|')) | ('&', Some('&')) | ('>', Some('>')) | ('>', Some('&')) | ('&', Some('>')) => two.len(),
                    _ => 1,
                };
                op.extend(&chars[i..i + taken]);
                i += taken;
                // `2>&1`: the descriptor duplicated is part of the operator.
                if op.ends_with(">&") {
                    while i < chars.len() && chars[i].is_ascii_digit() {
                        op.push(chars[i]);
                        i += 1;
                    }
                }
                tokens.push(Token::Op(op));
            }
            _ => {
                word.get_or_insert_with(String::new).push(c);
                i += 1;
            }
        }
    }
    flush(&mut word, &mut tokens);
    Ok(tokens)
}

/// A redirection: `op` is `>`, `>>`, `<`, `2>`, `2>>`, `&>`, or a complete
/// duplication such as `2>&1` (then `target` is empty).
#[derive(Debug, Clone, PartialEq)]
pub struct Redirect {
    pub op: String,
    pub target: String,
}

/// One command: its words and redirections.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Command {
    pub args: Vec<String>,
    pub redirects: Vec<Redirect>,
}

impl Command {
    /// The words after the `env NAME=VALUE`, `not` and `not --crash`
    /// wrappers: the program and its arguments.
    pub fn program_args(&self) -> &[String] {
        let mut a = &self.args[..];
        loop {
            match a.first().map(String::as_str) {
                Some("env") => {
                    a = &a[1..];
                    while a.first().is_some_and(|w| w.contains('=') && !w.starts_with('-')) {
                        a = &a[1..];
                    }
                }
                Some("not") | Some("--crash") => a = &a[1..],
                _ => return a,
            }
        }
    }
}

/// Commands joined by `|`.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Pipeline {
    pub commands: Vec<Command>,
}

/// A RUN line: pipelines joined by `&&`, `||` or `;` (the operator before
/// each pipeline but the first), as the shell reads them.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Script {
    pub first: Pipeline,
    pub rest: Vec<(String, Pipeline)>,
}

impl Script {
    pub fn pipelines(&self) -> impl Iterator<Item = &Pipeline> {
        std::iter::once(&self.first).chain(self.rest.iter().map(|(_, p)| p))
    }
}

/// Parses a RUN line (after substitution).
pub fn parse_script(line: &str) -> Result<Script> {
    let tokens = lex(line)?;
    let mut pipelines: Vec<(String, Pipeline)> = Vec::new();
    let mut op = String::new();
    let mut pipeline = Pipeline::default();
    let mut command = Command::default();
    let mut it = tokens.into_iter().peekable();
    let end_command = |command: &mut Command, pipeline: &mut Pipeline| -> Result<()> {
        if command.args.is_empty() {
            return Err(format!("an empty command in: {line}"));
        }
        pipeline.commands.push(std::mem::take(command));
        Ok(())
    };
    while let Some(t) = it.next() {
        match t {
            Token::Word(w) => command.args.push(w),
            Token::Op(o) if o == "|" => end_command(&mut command, &mut pipeline)?,
            Token::Op(o) if matches!(o.as_str(), "&&" | "||" | ";") => {
                end_command(&mut command, &mut pipeline)?;
                pipelines.push((std::mem::replace(&mut op, o), std::mem::take(&mut pipeline)));
            }
            Token::Op(o) if o.contains('>') || o.contains('<') => {
                if o.contains(">&") && o.len() > 2 && !o.ends_with('&') {
                    command.redirects.push(Redirect { op: o, target: String::new() });
                } else {
                    match it.next() {
                        Some(Token::Word(target)) => command.redirects.push(Redirect { op: o, target }),
                        _ => return Err(format!("'{o}' without a file in: {line}")),
                    }
                }
            }
            Token::Op(o) => return Err(format!("'{o}' is not supported in RUN lines: {line}")),
        }
    }
    end_command(&mut command, &mut pipeline)?;
    pipelines.push((op, pipeline));
    let mut all = pipelines.into_iter();
    let (_, first) = all.next().unwrap();
    Ok(Script { first, rest: all.collect() })
}

/// `word` quoted for bash where it needs it.
pub fn shell_quote(word: &str) -> String {
    if !word.is_empty() && word.chars().all(|c| c.is_ascii_alphanumeric() || "-_./=:,+@%^".contains(c)) {
        word.to_string()
    } else {
        format!("'{}'", word.replace('\'', r"'\''"))
    }
}

/// A command as bash reads it, each word through `fill_word`.
pub fn render_command(c: &Command, fill_word: &dyn Fn(&str) -> String) -> String {
    let mut parts: Vec<String> = c.args.iter().map(|a| shell_quote(&fill_word(a))).collect();
    for r in &c.redirects {
        if r.target.is_empty() { parts.push(r.op.clone()) } else { parts.push(format!("{} {}", r.op, shell_quote(&fill_word(&r.target)))) }
    }
    parts.join(" ")
}

/// A pipeline as bash reads it.
pub fn render_pipeline(p: &Pipeline, fill_word: &dyn Fn(&str) -> String) -> String {
    p.commands.iter().map(|c| render_command(c, fill_word)).collect::<Vec<_>>().join(" | ")
}

/// The names a `lit.cfg` defines as substitutions: each string literal that
/// starts with `%` and is the first element of a `substitutions.append`
/// tuple. A name ending in `-` is completed with a target name in the file
/// (`"%libomptarget-compile-" + libomptarget_target`).
pub fn lit_cfg_names(cfg: &str) -> BTreeSet<String> {
    let mut names = BTreeSet::new();
    for piece in cfg.split("substitutions.append").skip(1) {
        let piece = piece.trim_start().trim_start_matches('(').trim_start().trim_start_matches('(').trim_start();
        let Some(rest) = piece.strip_prefix('"').or_else(|| piece.strip_prefix('\'')) else { continue };
        let Some(end) = rest.find(['"', '\'']) else { continue };
        if rest.starts_with('%') {
            names.insert(rest[..end].to_string());
        }
    }
    names
}

/// Whether `name` is defined by a `lit.cfg` whose names are `cfg_names`
/// ([`lit_cfg_names`]), where `targets` are the target names a prefix such
/// as `%libomptarget-compile-` is completed with.
pub fn defined_by(name: &str, cfg_names: &BTreeSet<String>, targets: &[&str]) -> bool {
    cfg_names.contains(name)
        || cfg_names.iter().filter(|n| n.ends_with('-')).any(|prefix| name.strip_prefix(prefix.as_str()).is_some_and(|t| targets.contains(&t)))
}

/// The `%names` of `text` (as written, before expansion), longest first
/// where one is a prefix of another in `table`.
pub fn names_used(text: &str, table: &[(String, String)]) -> Vec<String> {
    let mut names = Vec::new();
    let mut rest = text;
    while let Some(at) = rest.find('%') {
        rest = &rest[at..];
        let known = table.iter().map(|(n, _)| n.as_str()).chain(PLACEHOLDERS).filter(|n| rest.starts_with(n)).max_by_key(|n| n.len());
        match known {
            Some(n) => {
                names.push(n.to_string());
                rest = &rest[n.len()..];
            }
            None => {
                let n: String = rest[1..].chars().take_while(|c| c.is_alphanumeric() || "-_+".contains(*c)).collect();
                names.push(format!("%{n}"));
                rest = &rest[1 + n.len()..];
            }
        }
    }
    names
}

#[cfg(test)]
mod tests {
    use super::*;

    fn features(list: &[&str]) -> BTreeSet<String> {
        list.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn run_lines_join_their_continuations_and_directives_split_on_commas() {
        let text = "// RUN: %libomptarget-compile-generic && \\\n\
                    // RUN: env OMP_MAX_ACTIVE_LEVELS=2 %libomptarget-run-generic | \\\n\
                    // RUN: %fcheck-generic -allow-empty\n\
                    # RUN: %libomptarget-compileopt-generic\n\
                    int x; // CHECK: PREFIXRUN: not a directive\n\
                    // REQUIRES: gpu, libc\n\
                    // REQUIRES: unified_shared_memory\n\
                    // UNSUPPORTED: nvptx64-nvidia-cuda-LTO\n\
                    // XFAIL: *\n";
        let t = parse_test(text).unwrap();
        assert_eq!(
            t.run,
            vec![
                (
                    1,
                    "%libomptarget-compile-generic &&  env OMP_MAX_ACTIVE_LEVELS=2 %libomptarget-run-generic |  %fcheck-generic -allow-empty"
                        .to_string()
                ),
                (4, "%libomptarget-compileopt-generic".to_string()),
            ]
        );
        assert_eq!(t.requires, ["gpu", "libc", "unified_shared_memory"]);
        assert_eq!(t.unsupported, ["nvptx64-nvidia-cuda-LTO"]);
        assert_eq!(t.xfail, ["*"]);
        assert!(parse_test("// RUN: a \\\nint x;\n").is_err(), "a continuation into no RUN line");
    }

    #[test]
    fn feature_expressions_follow_lits_precedence() {
        let f = features(&["gpu", "nvptx64-nvidia-cuda"]);
        assert!(eval("gpu", &f).unwrap());
        assert!(!eval("amdgpu", &f).unwrap());
        assert!(eval("!amdgpu", &f).unwrap());
        assert!(eval("amdgpu || gpu && nvptx64-nvidia-cuda", &f).unwrap());
        assert!(!eval("(amdgpu || gpu) && libc", &f).unwrap());
        assert!(eval("!(libc && gpu)", &f).unwrap());
        assert!(eval("true", &f).unwrap());
        assert!(eval("*", &f).unwrap());
        assert!(eval("gpu &&", &f).is_err());
        assert!(eval("(gpu", &f).is_err());
        assert!(eval("gpu $ x", &f).is_err());
    }

    #[test]
    fn requires_needs_all_and_unsupported_any() {
        let f = features(&["gpu", "nvptx64-nvidia-cuda"]);
        let t = |text: &str| parse_test(text).unwrap();
        assert_eq!(applicable(&t("// REQUIRES: gpu\n// REQUIRES: nvptx64-nvidia-cuda\n"), &f).unwrap(), Ok(()));
        assert_eq!(applicable(&t("// REQUIRES: gpu, libc\n"), &f).unwrap(), Err("REQUIRES: libc".to_string()));
        assert_eq!(
            applicable(&t("// UNSUPPORTED: amdgcn-amd-amdhsa\n// UNSUPPORTED: nvptx64-nvidia-cuda\n"), &f).unwrap(),
            Err("UNSUPPORTED: nvptx64-nvidia-cuda".to_string())
        );
        assert_eq!(applicable(&t("// UNSUPPORTED: nvptx64-nvidia-cuda-LTO\n"), &f).unwrap(), Ok(()));
        assert_eq!(expected_to_fail(&t("// XFAIL: amdgcn-amd-amdhsa\n"), &f).unwrap(), None);
        assert_eq!(expected_to_fail(&t("// XFAIL: intelgpu\n// XFAIL: nvptx64-nvidia-cuda\n"), &f).unwrap(), Some("nvptx64-nvidia-cuda".into()));
    }

    fn table() -> Vec<(String, String)> {
        [
            ("%libomptarget-compile-run-and-check-generic", "%libomptarget-compile-and-run-generic | %fcheck-generic"),
            ("%libomptarget-compile-and-run-generic", "%libomptarget-compile-generic && %libomptarget-run-generic"),
            ("%libomptarget-compile-generic", "%clang-generic %s -o %t"),
            ("%libomptarget-run-generic", "%t"),
            ("%libomptarget-run-fail-generic", "%not --crash %t"),
            ("%fcheck-generic", "FileCheck %s"),
            ("%clang-generic", "%clang -fopenmp"),
            ("%clang", "clang-22"),
            ("%not", "not"),
            ("%target_triple", "nvptx64-nvidia-cuda"),
        ]
        .into_iter()
        .map(|(a, b)| (a.to_string(), b.to_string()))
        .collect()
    }

    #[test]
    fn substitutions_expand_longest_first_and_keep_placeholders() {
        let t = table();
        assert_eq!(substitute("%libomptarget-compile-run-and-check-generic", &t).unwrap(), "clang-22 -fopenmp %s -o %t && %t | FileCheck %s");
        assert_eq!(substitute("%libomptarget-run-fail-generic 2>&1", &t).unwrap(), "not --crash %t 2>&1");
        assert_eq!(substitute("%target_triple.%basename_t.profraw", &t).unwrap(), "nvptx64-nvidia-cuda.%basename_t.profraw");
        assert_eq!(substitute("-o %t.o %S/x 100%", &t).unwrap(), "-o %t.o %S/x 100%");
        // As lit: without a `%clang++` of its own, `%clang` takes its prefix.
        assert_eq!(substitute("%clang++ -x cuda", &t).unwrap(), "clang-22++ -x cuda");
        assert_eq!(names_used("%clang++ -x cuda", &t), ["%clang"]);
        let mut with_cxx = t.clone();
        with_cxx.push(("%clang++".into(), "clang++-22".into()));
        assert_eq!(substitute("%clang++ -x cuda", &with_cxx).unwrap(), "clang++-22 -x cuda");
        assert_eq!(names_used("%clang++ -x cuda", &with_cxx), ["%clang++"]);
        assert_eq!(substitute("%profdata show", &t), Err("%profdata".to_string()));
        assert_eq!(fill("%t.%basename_t-%T/%s:%S", &["b", "src.c", "dir", "./t", "."]), "./t.b-./src.c:dir");
    }

    #[test]
    fn run_lines_parse_into_pipelines_with_redirections() {
        let s = parse_script("clang -DDIR='target teams' \"-DX=\\\"y\\\"\" x.c -o ./t && env A=1 B= not --crash ./t 2>&1 | FileCheck x.c --check-prefix=BAD; echo ok > log 2>>err").unwrap();
        assert_eq!(s.first.commands[0].args, ["clang", "-DDIR=target teams", "-DX=\"y\"", "x.c", "-o", "./t"]);
        assert_eq!(s.rest.len(), 2);
        let (op, run) = &s.rest[0];
        assert_eq!(op, "&&");
        assert_eq!(run.commands.len(), 2);
        assert_eq!(run.commands[0].program_args(), ["./t"]);
        assert_eq!(run.commands[0].redirects, [Redirect { op: "2>&1".into(), target: String::new() }]);
        assert_eq!(run.commands[1].args, ["FileCheck", "x.c", "--check-prefix=BAD"]);
        let (op, echo) = &s.rest[1];
        assert_eq!(op, ";");
        assert_eq!(
            echo.commands[0].redirects,
            [Redirect { op: ">".into(), target: "log".into() }, Redirect { op: "2>>".into(), target: "err".into() }]
        );
        let again = render_pipeline(run, &|w| w.to_string());
        assert_eq!(again, "env A=1 B= not --crash ./t 2>&1 | FileCheck x.c --check-prefix=BAD");
        assert_eq!(render_command(&s.first.commands[0], &|w| w.to_string()), "clang '-DDIR=target teams' '-DX=\"y\"' x.c -o ./t");
        assert!(parse_script("a | | b").is_err());
        assert!(parse_script("a 'open").is_err());
        assert!(parse_script("a > ").is_err());
        assert!(parse_script("a & b").is_err());
    }

    #[test]
    fn lit_cfg_names_include_target_completed_prefixes() {
        let cfg = r#"
        config.substitutions.append(("%libomptarget-compile-generic",
            "%libomptarget-compile-" + libomptarget_target))
        config.substitutions.append(("%libomptarget-compile-" + \
            libomptarget_target, "%clang"))
        config.substitutions.append(("%clang", config.test_c_compiler))
        "#;
        let names = lit_cfg_names(cfg);
        assert_eq!(names, features(&["%clang", "%libomptarget-compile-", "%libomptarget-compile-generic"]));
        let targets = ["nvptx64-nvidia-cuda", "amdgcn-amd-amdhsa"];
        assert!(defined_by("%libomptarget-compile-amdgcn-amd-amdhsa", &names, &targets));
        assert!(defined_by("%clang", &names, &targets));
        assert!(!defined_by("%clang++", &names, &targets));
        assert!(!defined_by("%libomptarget-compile-spirv64-intel", &names, &targets));
        assert_eq!(names_used("%fcheck-generic %flags -o %t.cuda", &table()), ["%fcheck-generic", "%flags", "%t"]);
    }
}
