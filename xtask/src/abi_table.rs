//! ABI-table conformance: compares the runtime functions LLVM declares in
//! `OMPKinds.def` (what clang / OpenMPIRBuilder emit calls to) with the
//! functions our device bitcode defines (as printed by `llvm-dis-22`).
//!
//! Only LLVM *types* are compared: attributes, parameter names and calling
//! conventions are ignored, because the linker only cares that a call and its
//! callee agree on the function type.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;

/// Default location of the file (installed by Debian's llvm-22-dev).
pub const OMP_KINDS_DEF: &str = "/usr/lib/llvm-22/include/llvm/Frontend/OpenMP/OMPKinds.def";

/// An LLVM function type, each type rendered as LLVM IR text (`i32`, `ptr`, ...).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LlvmFnType {
    pub ret: String,
    pub params: Vec<String>,
    pub vararg: bool,
}

impl LlvmFnType {
    /// Renders the type the way LLVM IR spells it, e.g. `i32 (ptr, i32, ...)`.
    pub fn render(&self) -> String {
        let mut parts: Vec<&str> = self.params.iter().map(String::as_str).collect();
        if self.vararg {
            parts.push("...");
        }
        format!("{} ({})", self.ret, parts.join(", "))
    }
}

/// One `__OMP_RTL` entry of `OMPKinds.def`.
#[derive(Clone, Debug)]
pub struct RtlEntry {
    pub name: String,
    pub ty: LlvmFnType,
}

// ---------------------------------------------------------------------------
// OMPKinds.def
// ---------------------------------------------------------------------------

/// Parses every `__OMP_RTL(Name, IsVarArg, ReturnType, ParamTypes...)` entry,
/// in file order, mapping OMPKinds type names to nvptx64 LLVM IR types.
///
/// The `#define __OMP_RTL` line and the `__last` sentinel are skipped; an
/// unknown type name is an error so that a new LLVM type cannot silently turn
/// into a wrong comparison.
pub fn parse_omp_kinds(def_text: &str) -> Result<Vec<RtlEntry>, String> {
    const MACRO: &str = "__OMP_RTL(";
    let text = strip_preprocessor(&strip_c_comments(def_text));
    let mut entries = Vec::new();
    let mut rest = text.as_str();
    while let Some(pos) = rest.find(MACRO) {
        // `__OMP_RTL(` inside a longer identifier (e.g. `X__OMP_RTL(`) is not ours.
        let preceded_by_ident = rest[..pos].chars().next_back().is_some_and(is_c_ident_char);
        let args_start = pos + MACRO.len();
        let Some(args_len) = matching_close(&rest[args_start..], '(', ')') else {
            return Err(format!(
                "unterminated __OMP_RTL( entry near: {}",
                snippet(&rest[pos..])
            ));
        };
        let args = &rest[args_start..args_start + args_len];
        rest = &rest[args_start + args_len + 1..];
        if preceded_by_ident {
            continue;
        }
        if let Some(entry) = parse_rtl_args(args)? {
            entries.push(entry);
        }
    }
    Ok(entries)
}

/// Parses the argument list of one `__OMP_RTL(...)`; `None` for `__last`.
fn parse_rtl_args(args: &str) -> Result<Option<RtlEntry>, String> {
    let mut parts = split_top_level(args, |c| c == ',');
    // `__OMP_RTL(omp_get_level, false, Int32, )` has an empty trailing argument
    // standing for "no parameters".
    if parts.last().is_some_and(|p| p.is_empty()) {
        parts.pop();
    }
    let [name, vararg, ret, params @ ..] = parts.as_slice() else {
        return Err(format!("__OMP_RTL entry with too few arguments: ({args})"));
    };
    if *name == "__last" {
        return Ok(None);
    }
    let vararg = match *vararg {
        "true" => true,
        "false" => false,
        other => {
            return Err(format!(
                "{name}: IsVarArg is `{other}`, expected true/false"
            ));
        }
    };
    let ret = omp_type_to_llvm(ret).map_err(|e| format!("{name}: {e}"))?;
    let params = params
        .iter()
        .map(|p| match omp_type_to_llvm(p) {
            Ok(t) if t == "void" => Err(format!("{name}: `{p}` used as a parameter type")),
            other => other.map_err(|e| format!("{name}: {e}")),
        })
        .collect::<Result<Vec<_>, _>>()?;
    Ok(Some(RtlEntry {
        name: name.to_string(),
        ty: LlvmFnType {
            ret,
            params,
            vararg,
        },
    }))
}

/// Maps an OMPKinds type name to its LLVM IR type on nvptx64.
fn omp_type_to_llvm(name: &str) -> Result<String, String> {
    let ty = match name {
        "Void" => "void",
        "Int1" => "i1",
        "Int8" => "i8",
        "Int16" => "i16",
        "Int32" => "i32",
        "Int63" => "i63",
        "Int64" => "i64",
        // nvptx64's DataLayout has 64-bit pointers, so IntPtrType is i64.
        "SizeTy" => "i64",
        "Double" => "double",
        // With opaque pointers every pointer-ish OMPKinds name (Int8Ptr,
        // VoidPtrPtrPtr, IdentPtr, FuncPtrTy, KmpCriticalNamePtrTy, ...) is `ptr`
        // in the default address space.
        _ if name.ends_with("Ptr") || name.ends_with("PtrTy") => "ptr",
        "" => return Err("empty type name".to_string()),
        _ => return Err(format!("unknown OMPKinds type name `{name}`")),
    };
    Ok(ty.to_string())
}

/// Replaces `/* ... */` and `// ...` comments with spaces (newlines kept, so
/// line structure survives for the preprocessor pass). String literals are
/// copied verbatim so a `//` inside one is not mistaken for a comment.
fn strip_c_comments(src: &str) -> String {
    let mut out = String::with_capacity(src.len());
    let mut chars = src.chars().peekable();
    while let Some(c) = chars.next() {
        match (c, chars.peek()) {
            ('/', Some('*')) => {
                chars.next();
                let mut prev = '\0';
                for c in chars.by_ref() {
                    if c == '\n' {
                        out.push('\n');
                    }
                    if prev == '*' && c == '/' {
                        break;
                    }
                    prev = c;
                }
                out.push(' ');
            }
            ('/', Some('/')) => {
                while chars.peek().is_some_and(|&c| c != '\n') {
                    chars.next();
                }
            }
            ('"', _) => {
                out.push('"');
                while let Some(c) = chars.next() {
                    out.push(c);
                    match c {
                        '\\' => out.extend(chars.next()),
                        '"' | '\n' => break,
                        _ => {}
                    }
                }
            }
            _ => out.push(c),
        }
    }
    out
}

/// Drops preprocessor directives (with their `\` continuation lines, which is
/// how the multi-line `#define __OMP_RTL(...)` goes away) and the bodies of
/// `#if 0` blocks, which the compiler never sees either.
fn strip_preprocessor(src: &str) -> String {
    let mut out = String::with_capacity(src.len());
    let mut lines = src.lines();
    // >0 while inside an `#if 0`: the nesting depth of conditionals there.
    let mut skip_depth = 0usize;
    while let Some(line) = lines.next() {
        let trimmed = line.trim_start();
        if let Some(directive) = trimmed.strip_prefix('#') {
            let mut continued = line.trim_end().ends_with('\\');
            while continued {
                continued = lines.next().is_some_and(|l| l.trim_end().ends_with('\\'));
            }
            let directive = directive.trim_start();
            let word = directive.split_whitespace().next().unwrap_or("");
            match word {
                "if" | "ifdef" | "ifndef" if skip_depth > 0 => skip_depth += 1,
                "if" if directive["if".len()..].trim() == "0" => skip_depth = 1,
                "endif" if skip_depth > 0 => skip_depth -= 1,
                "else" | "elif" if skip_depth == 1 => skip_depth = 0,
                _ => {}
            }
            out.push('\n');
            continue;
        }
        if skip_depth == 0 {
            out.push_str(line);
        }
        out.push('\n');
    }
    out
}

fn is_c_ident_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_'
}

/// First few characters of `s`, for error messages.
fn snippet(s: &str) -> String {
    s.chars().take(60).collect()
}

// ---------------------------------------------------------------------------
// Device-relevance filter
// ---------------------------------------------------------------------------

/// False for entries that only the host runtime (libomp / libomptarget)
/// provides, which a device runtime never needs to define.
pub fn is_device_relevant(name: &str) -> bool {
    const HOST_ONLY: &[&str] = &[
        "__kmpc_begin",
        "__kmpc_end",
        "__kmpc_push_target_tripcount_mapper",
        "__llvm_profile_register_function",
        "__llvm_profile_register_names_function",
    ];
    !name.starts_with("__tgt_") && !HOST_ONLY.contains(&name)
}

// ---------------------------------------------------------------------------
// Textual LLVM IR (llvm-dis output)
// ---------------------------------------------------------------------------

/// Linkage keywords that may appear in a function header; anything else before
/// the return type (visibility, dso_local, calling convention, return
/// attributes) is irrelevant here.
const LINKAGES: &[&str] = &[
    "private",
    "internal",
    "available_externally",
    "linkonce",
    "weak",
    "common",
    "appending",
    "extern_weak",
    "linkonce_odr",
    "weak_odr",
    "external",
];

/// Parses the `define` lines of textual LLVM IR: name -> (type, linkage), where
/// the linkage is `"external"` when the header has no linkage keyword.
pub fn parse_ll_definitions(ll_text: &str) -> BTreeMap<String, (LlvmFnType, String)> {
    ll_text
        .lines()
        .filter_map(|line| line.strip_prefix("define "))
        .filter_map(parse_fn_header)
        .map(|h| (h.name, (h.ty, h.linkage)))
        .collect()
}

/// Parses the `declare` lines of textual LLVM IR (same rules as definitions):
/// the external functions a module calls.
pub fn parse_ll_declarations(ll_text: &str) -> BTreeMap<String, LlvmFnType> {
    ll_text
        .lines()
        .filter_map(|line| line.strip_prefix("declare "))
        .filter_map(parse_fn_header)
        .map(|h| (h.name, h.ty))
        .collect()
}

struct FnHeader {
    name: String,
    ty: LlvmFnType,
    linkage: String,
}

/// Parses a function header after its `define`/`declare` keyword:
/// `[linkage] [visibility] [cc] [ret attrs] <ret type> @name(<params>) ...`.
/// Returns `None` for a line it cannot make sense of.
fn parse_fn_header(header: &str) -> Option<FnHeader> {
    let at = find_top_level(header, '@')?;
    let (prefix, after_at) = (&header[..at], &header[at + 1..]);

    // Name: quoted (`@"foo.bar"`; LLVM escapes quotes as `\22`, so the next `"`
    // ends it) or a bare identifier.
    let (name, after_name) = if let Some(quoted) = after_at.strip_prefix('"') {
        let end = quoted.find('"')?;
        (&quoted[..end], &quoted[end + 1..])
    } else {
        let end = after_at
            .find(|c: char| !(c.is_ascii_alphanumeric() || "_.$-".contains(c)))
            .unwrap_or(after_at.len());
        (&after_at[..end], &after_at[end..])
    };
    if name.is_empty() {
        return None;
    }

    let params_text = after_name.trim_start().strip_prefix('(')?;
    let params_len = matching_close(params_text, '(', ')')?;
    let mut params = Vec::new();
    let mut vararg = false;
    for param in split_top_level(&params_text[..params_len], |c| c == ',') {
        match param {
            "" => {}
            "..." => vararg = true,
            _ => params.push(leading_type(&tokens(param))?),
        }
    }

    let prefix_tokens = tokens(prefix);
    let ret = trailing_type(&prefix_tokens)?;
    let linkage = prefix_tokens
        .iter()
        .find(|t| LINKAGES.contains(t))
        .map_or("external", |t| t)
        .to_string();

    Some(FnHeader {
        name: name.to_string(),
        ty: LlvmFnType {
            ret,
            params,
            vararg,
        },
        linkage,
    })
}

/// The type at the start of a parameter's tokens (`ptr noundef %p` -> `ptr`).
/// Types are single tokens (`i32`, `{ i32, i64 }`, `<4 x float>`) except
/// `ptr addrspace(N)`.
fn leading_type(tokens: &[&str]) -> Option<String> {
    let first = *tokens.first()?;
    Some(match tokens.get(1) {
        Some(next) if first == "ptr" && next.starts_with("addrspace(") => {
            format!("ptr {}", normalize_ws(next))
        }
        _ => normalize_ws(first),
    })
}

/// The return type at the end of a header prefix: LLVM prints return
/// attributes before the type, so the type is always the last token(s).
fn trailing_type(tokens: &[&str]) -> Option<String> {
    let (last, before) = tokens.split_last()?;
    Some(match before.last() {
        Some(&"ptr") if last.starts_with("addrspace(") => format!("ptr {}", normalize_ws(last)),
        _ => normalize_ws(last),
    })
}

/// Collapses whitespace runs so `{ i32,  i64 }` compares equal to `{ i32, i64 }`.
fn normalize_ws(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

// ---------------------------------------------------------------------------
// Shared bracket-aware scanning
// ---------------------------------------------------------------------------

/// Calls `f(byte_index, char, depth)` for every character outside string
/// literals, where `depth` is the bracket nesting (`()[]{}<>`) before it; stops
/// early when `f` returns true and yields that index.
fn scan(s: &str, mut f: impl FnMut(usize, char, usize) -> bool) -> Option<usize> {
    let mut depth = 0usize;
    let mut in_string = false;
    for (i, c) in s.char_indices() {
        if in_string {
            in_string = c != '"';
            continue;
        }
        if f(i, c, depth) {
            return Some(i);
        }
        match c {
            '"' => in_string = true,
            '(' | '[' | '{' | '<' => depth += 1,
            ')' | ']' | '}' | '>' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    None
}

/// Index of the first `target` at bracket depth 0.
fn find_top_level(s: &str, target: char) -> Option<usize> {
    scan(s, |_, c, depth| depth == 0 && c == target)
}

/// Length of the text up to the `close` that balances an already-consumed
/// `open` (so `s[..len]` is the bracket's contents).
fn matching_close(s: &str, open: char, close: char) -> Option<usize> {
    let mut depth = 0usize;
    scan(s, |_, c, _| {
        if c == open {
            depth += 1;
        } else if c == close {
            if depth == 0 {
                return true;
            }
            depth -= 1;
        }
        false
    })
}

/// Splits `s` at separators that are at bracket depth 0, trimming each piece.
/// Empty pieces are kept: for comma lists they carry meaning (`Int32, )`).
fn split_top_level(s: &str, is_sep: impl Fn(char) -> bool) -> Vec<&str> {
    let mut pieces = Vec::new();
    let mut start = 0;
    scan(s, |i, c, depth| {
        if depth == 0 && is_sep(c) {
            pieces.push(s[start..i].trim());
            start = i + c.len_utf8();
        }
        false
    });
    pieces.push(s[start..].trim());
    pieces
}

/// Whitespace-separated tokens at bracket depth 0, so `range(i32 0, 1024)`,
/// `{ i32, i64 }` and `<4 x float>` each stay one token.
fn tokens(s: &str) -> Vec<&str> {
    let mut pieces = split_top_level(s, char::is_whitespace);
    pieces.retain(|p| !p.is_empty());
    pieces
}

// ---------------------------------------------------------------------------
// Comparison
// ---------------------------------------------------------------------------

/// Outcome of [`check`].
#[derive(Clone, Debug, Default)]
pub struct Report {
    /// Device-relevant OMPKinds.def entries.
    pub total: usize,
    /// Of those, defined (with a link-visible linkage) in the bitcode.
    pub defined: usize,
    /// Device-relevant entries not defined, in OMPKinds.def order.
    pub missing: Vec<String>,
    /// (name, expected rendered type, found rendered type).
    pub mismatches: Vec<(String, String, String)>,
    /// Names in `needed` that the bitcode does not define.
    pub missing_needed: Vec<String>,
}

impl Report {
    /// Missing entries alone are not a failure (the runtime grows over time);
    /// a wrong type or a symbol a real program calls is.
    pub fn ok(&self) -> bool {
        self.mismatches.is_empty() && self.missing_needed.is_empty()
    }

    /// Human-readable summary.
    pub fn render(&self) -> String {
        // Writing into a String cannot fail, hence the ignored fmt::Results.
        let mut out = String::new();
        let _ = writeln!(
            out,
            "OMPKinds.def device entries defined: {}/{}",
            self.defined, self.total
        );
        if !self.missing.is_empty() {
            let _ = writeln!(out, "missing ({}):", self.missing.len());
            for name in &self.missing {
                let _ = writeln!(out, "  {name}");
            }
        }
        if !self.mismatches.is_empty() {
            let _ = writeln!(out, "type mismatches ({}):", self.mismatches.len());
            for (name, expected, found) in &self.mismatches {
                let _ = writeln!(
                    out,
                    "  {name}\n    expected: {expected}\n    found:    {found}"
                );
            }
        }
        if !self.missing_needed.is_empty() {
            let _ = writeln!(
                out,
                "called by compiled programs but not defined ({}):",
                self.missing_needed.len()
            );
            for name in &self.missing_needed {
                let _ = writeln!(out, "  {name}");
            }
        }
        out.push_str(if self.ok() {
            "result: OK\n"
        } else {
            "result: FAIL\n"
        });
        out
    }
}

/// Whether a definition with this linkage can satisfy a call from another
/// module: `internal`/`private` symbols are invisible to the linker and
/// `available_externally` bodies are never emitted.
fn is_link_visible(linkage: &str) -> bool {
    !matches!(linkage, "internal" | "private" | "available_externally")
}

/// Compares OMPKinds.def `entries` with the bitcode's definitions `defs`
/// (from [`parse_ll_definitions`]). `needed` are runtime symbols some compiled
/// program calls; they may include names absent from OMPKinds.def
/// (e.g. `omp_get_team_num`) and every undefined one is a failure.
pub fn check(
    entries: &[RtlEntry],
    defs: &BTreeMap<String, (LlvmFnType, String)>,
    needed: &BTreeSet<String>,
) -> Report {
    let defined = |name: &str| {
        defs.get(name)
            .filter(|(_, linkage)| is_link_visible(linkage))
            .map(|(ty, _)| ty)
    };
    let mut report = Report::default();
    let mut seen = BTreeSet::new();
    for entry in entries {
        if !is_device_relevant(&entry.name) || !seen.insert(entry.name.as_str()) {
            continue;
        }
        report.total += 1;
        match defined(&entry.name) {
            Some(found) => {
                report.defined += 1;
                if *found != entry.ty {
                    report
                        .mismatches
                        .push((entry.name.clone(), entry.ty.render(), found.render()));
                }
            }
            None => report.missing.push(entry.name.clone()),
        }
    }
    report.missing_needed = needed
        .iter()
        .filter(|name| defined(name).is_none())
        .cloned()
        .collect();
    report
}

/// Each function of `declared` (a compiled program's `declare`s) that the
/// runtime's `defs` lack, or define with another type, as one line.
pub fn declaration_mismatches(declared: &BTreeMap<String, LlvmFnType>, defs: &BTreeMap<String, (LlvmFnType, String)>) -> Vec<String> {
    declared
        .iter()
        .filter_map(|(name, ty)| match defs.get(name).filter(|(_, linkage)| is_link_visible(linkage)) {
            None => Some(format!("{name}: declared {}, not defined", ty.render())),
            Some((found, _)) if found != ty => Some(format!("{name}: declared {}, defined {}", ty.render(), found.render())),
            Some(_) => None,
        })
        .collect()
}

/// clang 22's `omp.h`, whose routines user code calls on the device too.
pub const OMP_H: &str = "/usr/lib/llvm-22/lib/clang/22/include/omp.h";

/// Routines of `omp.h` the device runtime leaves to the host runtime: each
/// `(prefix or name, why)`. A target region that calls one does not link.
pub const HOST_ONLY_API: &[(&str, &str)] = &[
    ("omp_target_", "device memory routines: they allocate, copy and map for the host"),
    ("omp_get_mapped_ptr", "the host's mapping table"),
    ("ompx_dump_mapping_tables", "the host's mapping table"),
    ("omp_get_interop_", "interop objects come from the host's `interop` construct"),
    ("omp_get_num_interop_properties", "interop objects come from the host's `interop` construct"),
    ("omp_get_device_from_uid", "device uids are the host runtime's"),
    ("omp_get_uid_from_device", "device uids are the host runtime's"),
    ("ompc_", "libomp's variants of the affinity-format routines for Fortran's strings"),
];

/// Why the `omp.h` routine `name` is host-only, if it is.
pub fn host_only_reason(name: &str) -> Option<&'static str> {
    HOST_ONLY_API.iter().find(|(p, _)| if p.ends_with('_') { name.starts_with(p) } else { name == *p }).map(|(_, why)| *why)
}

/// The routines `omp.h` (its text) declares: `omp_*`, `ompx_*`, `ompc_*`.
pub fn omp_h_routines(header: &str) -> Vec<String> {
    let mut names = BTreeSet::new();
    for line in header.lines().filter(|l| l.trim_start().starts_with("extern ") && l.contains("__KAI_KMPC_CONVENTION")) {
        let Some(before_paren) = line.split('(').next() else { continue };
        if let Some(name) = before_paren.split_whitespace().last()
            && ["omp_", "ompx_", "ompc_"].iter().any(|p| name.starts_with(p))
        {
            names.insert(name.to_string());
        }
    }
    names.into_iter().collect()
}

/// A C program whose target region takes the address of each of `names`:
/// its device code declares each with clang's type.
pub fn api_probe_source(names: &[String]) -> String {
    let mut src = String::from("#include <omp.h>\nint main(void) {\n  int n = 0;\n#pragma omp target map(tofrom: n)\n  {\n    void *volatile p[] = {\n");
    for n in names {
        src += &format!("      (void *)&{n},\n");
    }
    src + "    };\n    n = (int)(sizeof p / sizeof p[0]);\n  }\n  return n == 0;\n}\n"
}

/// Checks a runtime bitcode file against the installed `OMPKinds.def`.
pub fn check_bitcode(bitcode: &std::path::Path, needed: &BTreeSet<String>) -> Result<Report, String> {
    let def = std::fs::read_to_string(OMP_KINDS_DEF)
        .map_err(|e| format!("cannot read {OMP_KINDS_DEF} ({e}): run 'bash scripts/setup.sh' (llvm-22-dev)"))?;
    let entries = parse_omp_kinds(&def)?;
    let ir = crate::tools::disassemble(bitcode)?;
    Ok(check(&entries, &parse_ll_definitions(&ir), needed))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ty(ret: &str, params: &[&str], vararg: bool) -> LlvmFnType {
        LlvmFnType {
            ret: ret.into(),
            params: params.iter().map(|p| p.to_string()).collect(),
            vararg,
        }
    }

    fn entry(name: &str, t: LlvmFnType) -> RtlEntry {
        RtlEntry {
            name: name.into(),
            ty: t,
        }
    }

    #[test]
    fn render_fn_types() {
        assert_eq!(
            ty("i32", &["ptr", "i32"], true).render(),
            "i32 (ptr, i32, ...)"
        );
        assert_eq!(ty("double", &[], false).render(), "double ()");
        assert_eq!(ty("void", &[], true).render(), "void (...)");
    }

    #[test]
    fn parses_installed_omp_kinds_def() {
        let text = std::fs::read_to_string(OMP_KINDS_DEF)
            .expect("llvm-22-dev's OMPKinds.def is installed");
        let entries = parse_omp_kinds(&text).expect("OMPKinds.def parses");
        assert!(entries.len() >= 190, "only {} entries", entries.len());
        assert!(
            entries
                .iter()
                .all(|e| e.name != "__last" && !e.name.is_empty())
        );
        let get = |name: &str| {
            entries
                .iter()
                .find(|e| e.name == name)
                .unwrap_or_else(|| panic!("{name} not parsed"))
                .ty
                .render()
        };
        assert_eq!(
            get("__kmpc_parallel_60"),
            "void (ptr, i32, i32, i32, i32, ptr, ptr, ptr, i64, i32)"
        );
        assert_eq!(get("__kmpc_kernel_parallel"), "i1 (ptr)");
        assert_eq!(get("__kmpc_fork_call"), "void (ptr, i32, ptr, ...)");
        assert_eq!(get("omp_get_wtime"), "double ()");
        assert_eq!(get("__kmpc_shuffle_int64"), "i64 (i64, i16, i16)");
        assert_eq!(get("__kmpc_target_init"), "i32 (ptr, ptr)");
        // Entries with /* comments */ inside and split over lines.
        assert_eq!(
            get("__kmpc_push_num_threads_strict"),
            "void (ptr, i32, i32, i32, ptr)"
        );
        assert_eq!(
            get("__kmpc_omp_task_alloc"),
            "ptr (ptr, i32, i32, i64, i64, ptr)"
        );
    }

    #[test]
    fn parses_synthetic_def_text() {
        let text = r"
#define __OMP_RTL(Name, IsVarArg, ReturnType, ...)                             \
  OMP_RTL(OMPRTL_##Name, #Name, IsVarArg, ReturnType, __VA_ARGS__)
/// Doc comment mentioning __OMP_RTL(fake, false, Bogus)
__OMP_RTL(a, false, Int32, /* kmp_task_t */ VoidPtr,
          Int16, // trailing comment
          FuncPtrTy)
#if 0
__OMP_RTL(disabled, false, Bogus, )
#endif
__OMP_RTL_ATTRS(a, DefaultAttrs, AttributeSet(), ParamAttrs())
__OMP_RTL(b, true, Void, )
__OMP_RTL(__last, false, Void, )
";
        let entries = parse_omp_kinds(text).unwrap();
        let got: Vec<_> = entries
            .iter()
            .map(|e| (e.name.as_str(), e.ty.render()))
            .collect();
        assert_eq!(
            got,
            [
                ("a", "i32 (ptr, i16, ptr)".to_string()),
                ("b", "void (...)".to_string())
            ]
        );
    }

    #[test]
    fn unknown_omp_type_is_an_error() {
        let err = parse_omp_kinds("__OMP_RTL(f, false, Void, Int32, Float128)\n").unwrap_err();
        assert!(err.contains("Float128") && err.contains('f'), "{err}");
        assert!(parse_omp_kinds("__OMP_RTL(g, maybe, Void, )\n").is_err());
        assert!(parse_omp_kinds("__OMP_RTL(h, false, Int32, Void)\n").is_err());
    }

    #[test]
    fn device_relevance() {
        assert!(is_device_relevant("__kmpc_parallel_60"));
        assert!(is_device_relevant("omp_get_thread_num"));
        assert!(is_device_relevant("__kmpc_end_critical"));
        assert!(!is_device_relevant("__tgt_target_kernel"));
        assert!(!is_device_relevant("__kmpc_begin"));
        assert!(!is_device_relevant("__kmpc_end"));
        assert!(!is_device_relevant("__kmpc_push_target_tripcount_mapper"));
        assert!(!is_device_relevant("__llvm_profile_register_function"));
        assert!(!is_device_relevant(
            "__llvm_profile_register_names_function"
        ));
    }

    const IR: &str = r#"; ModuleID = 'omprt'
target triple = "nvptx64-nvidia-cuda"

%struct.T = type { i32, i64 }
@g = global i32 0
define noundef zeroext i1 @__kmpc_kernel_parallel(ptr noundef %0) unnamed_addr #0 {
start:
  ret i1 false
}
define void @__kmpc_fork_call(ptr %0, i32 %1, ptr %2, ...) local_unnamed_addr #1 {
define internal fastcc void @_ZN5omprt4core17h0123456789abcdefE() unnamed_addr #2 {
define weak hidden void @x() {
define noundef range(i32 0, 1024) i32 @omp_get_thread_num() unnamed_addr #3 {
define void @f(ptr noundef nonnull align 4 captures(none) %p) unnamed_addr #0 {
define noundef signext i16 @__kmpc_parallel_level(ptr noundef readnone captures(none) %loc, i32 noundef %gtid) {
define dso_local protected noalias noundef nonnull align 16 dereferenceable(8) ptr @"foo.bar"(ptr noundef readonly dereferenceable_or_null(24) %a, ptr byval(%struct.T) align 8 %b, ptr writeonly sret(%struct.T) %c) #4 {
define weak_odr dllexport ptx_kernel void @__omp_offloading_kernel(ptr addrspace(1) noalias %d, { i32, i64 } %s, <4 x float> %v, [2 x i32] %arr) #5 {
define linkonce_odr ptr addrspace(3) @shared_slot(i64 %0) {
define private double @omp_get_wtime() {
  %x = call i32 @g(i32 1)
  ret double 0.0
}
declare noundef range(i32 0, 1024) i32 @llvm.nvvm.read.ptx.sreg.tid.x() #6
declare void @__kmpc_barrier(ptr, i32) #7
declare extern_weak i32 @omp_get_team_num()
declare void @llvm.lifetime.start.p0(ptr captures(none)) #7
"#;

    #[test]
    fn parses_ll_definitions() {
        let defs = parse_ll_definitions(IR);
        let get = |name: &str| {
            let (t, linkage) = defs
                .get(name)
                .unwrap_or_else(|| panic!("{name} not parsed: {defs:?}"));
            (t.render(), linkage.as_str())
        };
        assert_eq!(
            get("__kmpc_kernel_parallel"),
            ("i1 (ptr)".into(), "external")
        );
        assert_eq!(
            get("__kmpc_fork_call"),
            ("void (ptr, i32, ptr, ...)".into(), "external")
        );
        assert_eq!(
            get("_ZN5omprt4core17h0123456789abcdefE"),
            ("void ()".into(), "internal")
        );
        assert_eq!(get("x"), ("void ()".into(), "weak"));
        assert_eq!(get("omp_get_thread_num"), ("i32 ()".into(), "external"));
        assert_eq!(get("f"), ("void (ptr)".into(), "external"));
        assert_eq!(
            get("__kmpc_parallel_level"),
            ("i16 (ptr, i32)".into(), "external")
        );
        assert_eq!(get("foo.bar"), ("ptr (ptr, ptr, ptr)".into(), "external"));
        assert_eq!(
            get("__omp_offloading_kernel"),
            (
                "void (ptr addrspace(1), { i32, i64 }, <4 x float>, [2 x i32])".into(),
                "weak_odr"
            )
        );
        assert_eq!(
            get("shared_slot"),
            ("ptr addrspace(3) (i64)".into(), "linkonce_odr")
        );
        assert_eq!(get("omp_get_wtime"), ("double ()".into(), "private"));
        // Declarations, globals and instructions are not definitions.
        assert_eq!(defs.len(), 11, "{:?}", defs.keys().collect::<Vec<_>>());
    }

    #[test]
    fn parses_ll_declarations() {
        let decls = parse_ll_declarations(IR);
        let names: Vec<_> = decls.keys().map(String::as_str).collect();
        assert_eq!(
            names,
            [
                "__kmpc_barrier",
                "llvm.lifetime.start.p0",
                "llvm.nvvm.read.ptx.sreg.tid.x",
                "omp_get_team_num"
            ]
        );
        assert_eq!(decls["__kmpc_barrier"].render(), "void (ptr, i32)");
        assert_eq!(decls["llvm.nvvm.read.ptx.sreg.tid.x"].render(), "i32 ()");
        assert_eq!(decls["omp_get_team_num"].render(), "i32 ()");
    }

    fn sample_entries() -> Vec<RtlEntry> {
        vec![
            entry("__kmpc_kernel_parallel", ty("i1", &["ptr"], false)),
            entry("__kmpc_parallel_level", ty("i16", &["ptr", "i32"], false)),
            entry("__kmpc_barrier", ty("void", &["ptr", "i32"], false)),
            entry("omp_get_wtime", ty("double", &[], false)),
            entry(
                "__tgt_target_kernel",
                ty("i32", &["ptr", "i64", "i32", "i32", "ptr", "ptr"], false),
            ),
        ]
    }

    #[test]
    fn check_counts_and_tolerates_missing_entries() {
        let defs = parse_ll_definitions(IR);
        let report = check(&sample_entries(), &defs, &BTreeSet::new());
        // __tgt_* is host-only, so 4 device entries; omp_get_wtime is only
        // defined privately, which does not count.
        assert_eq!((report.total, report.defined), (4, 2));
        assert_eq!(report.missing, ["__kmpc_barrier", "omp_get_wtime"]);
        assert!(report.mismatches.is_empty());
        assert!(report.ok(), "{}", report.render());
        assert!(
            report
                .render()
                .contains("OMPKinds.def device entries defined: 2/4")
        );
    }

    #[test]
    fn check_reports_type_mismatch() {
        let defs = parse_ll_definitions("define i32 @__kmpc_parallel_level(ptr %0, i32 %1) {\n");
        let report = check(&sample_entries(), &defs, &BTreeSet::new());
        assert_eq!(
            report.mismatches,
            [(
                "__kmpc_parallel_level".to_string(),
                "i16 (ptr, i32)".to_string(),
                "i32 (ptr, i32)".to_string()
            )]
        );
        assert!(!report.ok());
        let text = report.render();
        assert!(
            text.contains("expected: i16 (ptr, i32)") && text.contains("found:    i32 (ptr, i32)"),
            "{text}"
        );
    }

    #[test]
    fn check_reports_missing_needed() {
        let defs = parse_ll_definitions(IR);
        let needed: BTreeSet<String> = ["__kmpc_kernel_parallel", "omp_get_team_num"]
            .iter()
            .map(|s| s.to_string())
            .collect();
        let report = check(&sample_entries(), &defs, &needed);
        assert_eq!(report.missing_needed, ["omp_get_team_num"]);
        assert!(!report.ok());
        assert!(report.render().contains("omp_get_team_num"));
    }

    #[test]
    fn declarations_must_match_the_definitions_exactly() {
        let defs = parse_ll_definitions(
            "define void @__kmpc_for_static_loop_4u(ptr %0, ptr %1, ptr %2, i32 %3, i32 %4, i32 %5, i8 %6) {\n\
             define internal i32 @omp_get_num_threads() {\n",
        );
        let declared = parse_ll_declarations(
            "declare void @__kmpc_for_static_loop_4u(ptr, ptr, ptr, i32, i32, i32, i8)\n\
             declare void @__kmpc_distribute_static_loop_4u(ptr, ptr, ptr, i32, i32, i8)\n\
             declare i32 @omp_get_num_threads()\n",
        );
        let wrong = declaration_mismatches(&declared, &defs);
        assert_eq!(
            wrong,
            [
                "__kmpc_distribute_static_loop_4u: declared void (ptr, ptr, ptr, i32, i32, i8), not defined",
                "omp_get_num_threads: declared i32 (), not defined",
            ]
        );
        let older = parse_ll_declarations("declare void @__kmpc_for_static_loop_4u(ptr, ptr, ptr, i32, i32, i32)\n");
        assert_eq!(
            declaration_mismatches(&older, &defs),
            ["__kmpc_for_static_loop_4u: declared void (ptr, ptr, ptr, i32, i32, i32), defined void (ptr, ptr, ptr, i32, i32, i32, i8)"]
        );
    }
}
