//! The post-link step between rustc's bitcode and the runtime clang links.
//!
//! rustc cannot place a static in CTA-shared memory (a `#[link_section]`
//! static still lands in addrspace(0), global memory), has no weak static
//! definitions, and pins `target-cpu`/`target-features` on every function.
//! This step rewrites the textual IR (`llvm-dis` output) so that:
//!
//! * statics in section `.omprt.shared` become `addrspace(3)` (CTA-shared,
//!   uninitialised) and statics in `.omprt.constant` become `addrspace(4)`
//!   `weak protected` globals the host can write; every use is rewritten to
//!   an `addrspacecast` of the moved global;
//! * the declaration [`DYNAMIC_SHARED`] becomes an `external addrspace(3)`
//!   array aligned to 16: CUDA's `extern __shared__`, the launch's dynamic
//!   shared memory;
//! * the `__omp_rtl_*` configuration globals get `weak hidden constant i32 0`
//!   definitions, which clang's `weak_odr` constants override;
//! * functions carry no target-cpu/features, so one file serves sm_70…sm_120;
//! * functions in section `.omprt.always_inline_later` trade `noinline` for
//!   `alwaysinline`: rustc keeps them apart, openmp-opt sees the calls, then
//!   clang's always-inliner puts them into user code, where their arguments
//!   are constants;
//! * functions in section `.omprt.inline_when_optimizing` trade `noinline`
//!   for `inlinehint`: out of line at -O0, where clang inlines nothing but
//!   `alwaysinline` and ptxas -O0 gives a function about as many registers as
//!   it has code (so one big function sets every kernel's count), and left to
//!   clang's inliner at -O1 and above;
//! * each call of the marker [`ASSUME_MARKER`] becomes `llvm.assume(load == value)`: a
//!   fact the runtime states about shared memory, for openmp-opt in the user's compile.
//!   Written as `llvm.assume` in Rust, rustc's own pipeline drops it (the load has no
//!   other use) before clang ever sees it;
//! * each call of the marker [`UNROLL_TWICE_MARKER`] goes, and the loop around
//!   it gets `llvm.loop.unroll.count` 2: in the user's compile LLVM unrolls it
//!   twice and marks the result not to be unrolled, for which the NVPTX
//!   backend writes `.pragma "nounroll"`, so ptxas does not unroll it further;
//! * the functions openmp-opt may add calls to (`KEEP_LINKED`) go into
//!   `@llvm.compiler.used`: clang links the runtime in with "only needed"
//!   before openmp-opt runs, and the calls openmp-opt adds must find a
//!   definition in the file to be inlined; left to `libompdevice.a` they stay
//!   calls, and a call costs a kernel at least 24 registers (lowering test
//!   `calls_openmp_opt_adds_are_inlined`);
//! * every atomic access and fence without a scope gets `syncscope("device")`:
//!   Rust has no scopes, and LLVM's default is the system scope (`ld.acquire.sys`,
//!   `fence.acquire.sys`), which orders against the host and peer GPUs as well;
//!   the runtime only ever synchronises threads of one kernel.
//!
//! It then *checks* the result: a mutable global left in global memory, or a
//! non-internal symbol that is not part of the runtime's API, is an error.

use crate::Result;

pub const SHARED_SECTION: &str = ".omprt.shared";
pub const CONSTANT_SECTION: &str = ".omprt.constant";
/// Section for a static that is *meant* to be one device-global instance.
pub const DEVICE_GLOBAL_SECTION: &str = ".omprt.device_global";
/// Section marking a function rustc must not inline but clang's always-inliner
/// must, after openmp-opt (which runs before it) has seen it out of line.
pub const ALWAYS_INLINE_LATER_SECTION: &str = ".omprt.always_inline_later";
/// Section marking a function rustc must not inline, kept apart at -O0 and
/// left to clang's inliner when the user optimises.
pub const INLINE_WHEN_OPTIMIZING_SECTION: &str = ".omprt.inline_when_optimizing";
/// The function the runtime calls, `(ptr, i32)`, to state that the `u32` at
/// the pointer holds the value there (`arch::nvptx::assume_u32_eq`).
pub const ASSUME_MARKER: &str = "__omprt_assume_u32_eq";

/// The function the runtime calls, `()`, inside a loop to be unrolled twice
/// and no more (`arch::nvptx::unroll_twice`).
pub const UNROLL_TWICE_MARKER: &str = "__omprt_unroll_twice";

/// Functions openmp-opt adds calls to after clang has linked the runtime in
/// (SPMD-ization guards, custom state machines, folded queries): kept in
/// every link, so that those calls find a definition and are inlined.
pub const KEEP_LINKED: &[&str] = crate::corpus::STATELESS_RUNTIME_FUNCTIONS;

/// The runtime's declaration of the block's dynamic shared memory
/// (`arch::nvptx::dynamic_shared_base`).
pub const DYNAMIC_SHARED: &str = "__omprt_dynamic_shared";

/// What the rewrite did, for the build log and the tests.
#[derive(Debug, Default)]
pub struct RewriteReport {
    /// (name, bytes) of each static moved into addrspace(3).
    pub shared: Vec<(String, Option<u64>)>,
    /// Names moved into addrspace(4).
    pub constant: Vec<String>,
    /// Configuration globals given weak defaults.
    pub config_defaults: Vec<String>,
}

impl RewriteReport {
    pub fn shared_bytes(&self) -> u64 {
        self.shared.iter().filter_map(|(_, b)| *b).sum()
    }
}

/// Rewrites rustc's IR as described in the module docs; `keep` are the
/// functions to list in `@llvm.compiler.used` (the build passes [`KEEP_LINKED`]).
pub fn rewrite(ir: &str, config_globals: &[&str], keep: &[&str]) -> Result<(String, RewriteReport)> {
    let mut report = RewriteReport::default();
    let mut moved: Vec<(String, u32)> = Vec::new();
    let mut lines: Vec<String> = Vec::new();
    for line in ir.lines() {
        if let Some(name) = global_name(line) {
            if line.contains(&format!("section \"{SHARED_SECTION}\"")) {
                let (new, bytes) = move_global(line, &name, 3, false)?;
                report.shared.push((name.clone(), bytes));
                moved.push((name, 3));
                lines.push(new);
                continue;
            }
            if line.contains(&format!("section \"{CONSTANT_SECTION}\"")) {
                let (new, _) = move_global(line, &name, 4, true)?;
                report.constant.push(name.clone());
                moved.push((name, 4));
                lines.push(new);
                continue;
            }
            if name == DYNAMIC_SHARED {
                if !line.contains("= external global [0 x i8]") {
                    return Err(format!("{name}: expected a declaration of a zero-length byte array: {line}"));
                }
                lines.push(format!("@{name} = external addrspace(3) global [0 x i8], align 16"));
                moved.push((name, 3));
                continue;
            }
            if config_globals.contains(&name.as_str()) && line.contains("= external ") {
                lines.push(config_default(&name));
                report.config_defaults.push(name);
                continue;
            }
        }
        lines.push(strip_target_attributes(line));
    }
    for name in config_globals {
        if !report.config_defaults.iter().any(|n| n == name) && !lines.iter().any(|l| global_name(l).as_deref() == Some(name)) {
            lines.push(config_default(name));
            report.config_defaults.push(name.to_string());
        }
    }
    let lines = if keep.is_empty() { lines } else { keep_linked(lines, keep)? };
    let lines = release_noinline(lines, ALWAYS_INLINE_LATER_SECTION, "alwaysinline", 95000);
    let lines = release_noinline(lines, INLINE_WHEN_OPTIMIZING_SECTION, "inlinehint", 96000);
    let lines = expand_assumes(lines)?;
    let lines = unroll_twice(lines)?;
    let lines: Vec<String> = lines.into_iter().map(|l| scope_atomic(&l)).collect();
    // Rewrite uses after all definitions are known (uses may precede them).
    let mut out = String::with_capacity(ir.len() + 4096);
    for line in &lines {
        let defined_here = global_name(line);
        let mut line = line.clone();
        for (name, space) in &moved {
            if defined_here.as_deref() == Some(name.as_str()) {
                continue;
            }
            line = replace_symbol(&line, name, &format!("addrspacecast (ptr addrspace({space}) @{name} to ptr)"));
        }
        out.push_str(&line);
        out.push('\n');
    }
    Ok((out, report))
}

/// Lists `names` (each must be defined) in `@llvm.compiler.used`, which the
/// module must not have yet (rustc emits only `@llvm.used`).
fn keep_linked(mut lines: Vec<String>, names: &[&str]) -> Result<Vec<String>> {
    if lines.iter().any(|l| l.starts_with("@llvm.compiler.used ")) {
        return Err("the runtime IR already has @llvm.compiler.used; extend keep_linked to merge it".into());
    }
    for name in names {
        if !lines.iter().any(|l| l.starts_with("define ") && l.contains(&format!("@{name}("))) {
            return Err(format!("{name} is to be kept linked but the runtime does not define it"));
        }
    }
    let list: Vec<String> = names.iter().map(|n| format!("ptr @{n}")).collect();
    lines.push(format!("@llvm.compiler.used = appending global [{} x ptr] [{}], section \"llvm.metadata\"", names.len(), list.join(", ")));
    Ok(lines)
}

/// Moves each function of `section`, and every call of it, to a copy of its
/// attribute group (numbered from `first_group`) where `noinline` becomes
/// `replacement` (rustc repeats `noinline` on call sites), and drops the
/// section.
fn release_noinline(mut lines: Vec<String>, section: &str, replacement: &str, first_group: u32) -> Vec<String> {
    let marker = format!(" section \"{section}\"");
    let mut released: Vec<String> = Vec::new();
    let mut clones: Vec<(String, String)> = Vec::new();
    let clone_of = |group: &str, clones: &mut Vec<(String, String)>| {
        let clone = format!("#{}", first_group + group[1..].parse::<u32>().unwrap_or(0));
        if !clones.iter().any(|(g, _)| g == group) {
            clones.push((group.to_string(), clone.clone()));
        }
        clone
    };
    for line in lines.iter_mut() {
        if !(line.starts_with("define ") && line.contains(&marker)) {
            continue;
        }
        *line = line.replace(&marker, "");
        if let Some(at) = line.find('@') {
            released.push(line[at..].split('(').next().unwrap_or("").to_string());
        }
        let Some(group) = line.split_whitespace().find(|w| w.starts_with('#')).map(str::to_string) else { continue };
        let clone = clone_of(&group, &mut clones);
        *line = line.replacen(&format!(" {group} "), &format!(" {clone} "), 1);
    }
    for line in lines.iter_mut() {
        let is_call = line.starts_with(' ') && line.contains("call ");
        if !is_call || !released.iter().any(|f| line.contains(&format!("{f}("))) {
            continue;
        }
        // The call's attribute group ends the instruction, before any metadata
        // (`#52, !noalias !56`).
        let instruction = line.split(", !").next().unwrap_or(line);
        let Some(group) = instruction.split_whitespace().last().filter(|w| w.starts_with('#')).map(str::to_string) else { continue };
        let clone = clone_of(&group, &mut clones);
        let cut = instruction.len() - group.len();
        line.replace_range(cut..instruction.len(), &clone);
    }
    for (group, clone) in clones {
        let prefix = format!("attributes {group} = ");
        if let Some(attrs) = lines.iter().find(|l| l.starts_with(&prefix)).cloned() {
            let body = attrs[prefix.len()..].replace("noinline", replacement);
            lines.push(format!("attributes {clone} = {body}"));
        }
    }
    lines
}

/// The memory orderings of LLVM IR, the token a scope goes before.
const ORDERINGS: [&str; 6] = ["unordered", "monotonic", "acquire", "release", "acq_rel", "seq_cst"];

/// `line` with `syncscope("device")` before its first ordering, if it is an
/// atomic access or a fence without a scope.
fn scope_atomic(line: &str) -> String {
    let body = line.trim_start();
    let op = body.split_once(" = ").map_or(body, |(_, rhs)| rhs);
    let atomic = op.starts_with("load atomic ")
        || op.starts_with("store atomic ")
        || op.starts_with("cmpxchg ")
        || op.starts_with("atomicrmw ")
        || op.starts_with("fence ");
    if !atomic || line.contains("syncscope(") {
        return line.to_string();
    }
    let indent = &line[..line.len() - body.len()];
    let mut words: Vec<&str> = body.split(' ').collect();
    match words.iter().position(|w| ORDERINGS.contains(&w.trim_end_matches(','))) {
        Some(i) => {
            words.insert(i, "syncscope(\"device\")");
            format!("{indent}{}", words.join(" "))
        }
        None => line.to_string(),
    }
}

/// Replaces each call of [`ASSUME_MARKER`] with a load, a comparison and an
/// `llvm.assume`, and drops the marker's declaration.
fn expand_assumes(lines: Vec<String>) -> Result<Vec<String>> {
    let call = format!("@{ASSUME_MARKER}(");
    let mut out = Vec::with_capacity(lines.len());
    let mut expanded = 0;
    for line in lines {
        let Some(at) = line.find(&call) else {
            out.push(line);
            continue;
        };
        if line.starts_with("declare ") {
            continue;
        }
        let bad = || format!("cannot expand the {ASSUME_MARKER} call in: {line}");
        let is_call = is_void_call_at(&line, at);
        let args = call_arguments(&line[at + call.len()..]).filter(|_| is_call).ok_or_else(bad)?;
        let [ptr, value] = args.as_slice() else { return Err(bad()) };
        let (ptr, value) = (operand(ptr, "ptr").ok_or_else(bad)?, operand(value, "i32").ok_or_else(bad)?);
        expanded += 1;
        let n = expanded;
        out.push(format!("  %omprt.assume.{n} = load i32, ptr {ptr}, align 4"));
        out.push(format!("  %omprt.assume.ok.{n} = icmp eq i32 %omprt.assume.{n}, {value}"));
        out.push(format!("  call void @llvm.assume(i1 %omprt.assume.ok.{n})"));
    }
    if expanded > 0 && !out.iter().any(|l| l.starts_with("declare void @llvm.assume(")) {
        out.push("declare void @llvm.assume(i1 noundef)".to_string());
    }
    Ok(out)
}

/// Removes each call of [`UNROLL_TWICE_MARKER`] and its declaration, and gives
/// the loop around the call `llvm.loop.unroll.count` 2: the marker's loop is
/// the first branch after it back to a block at or before it (rustc lays a
/// loop's body out after its header).
fn unroll_twice(lines: Vec<String>) -> Result<Vec<String>> {
    let call = format!("@{UNROLL_TWICE_MARKER}(");
    let mut out: Vec<String> = Vec::with_capacity(lines.len());
    // Labels of the current function so far, and whether a marker waits for its loop's branch.
    let mut labels: Vec<String> = Vec::new();
    let mut waiting: Option<String> = None;
    let mut loops = 0;
    for line in lines {
        if line.starts_with("define ") {
            if let Some(marker) = waiting.take() {
                return Err(format!("no loop branch after the {UNROLL_TWICE_MARKER} call: {marker}"));
            }
            labels.clear();
        } else if let Some(label) = line.split_once(':').filter(|(l, _)| !l.starts_with(' ') && !l.is_empty()).map(|(l, _)| l) {
            labels.push(label.trim_matches('"').to_string());
        }
        if let Some(at) = line.find(&call) {
            if line.starts_with("declare ") {
                continue;
            }
            if !is_void_call_at(&line, at) || waiting.is_some() {
                return Err(format!("cannot take the {UNROLL_TWICE_MARKER} call out of: {line}"));
            }
            // The marker's block counts as seen: a one-block loop branches to it.
            waiting = Some(line);
            continue;
        }
        let targets = || line.split("label %").skip(1).map(|t| t.split([',', ' ']).next().unwrap_or("").trim_matches('"'));
        let backward = line.trim_start().starts_with("br ") && targets().any(|t| labels.iter().any(|l| l == t));
        if backward && let Some(_marker) = waiting.take() {
            if line.contains("!llvm.loop") {
                return Err(format!("the {UNROLL_TWICE_MARKER} loop already has loop metadata: {line}"));
            }
            loops += 1;
            out.push(format!("{line}, !llvm.loop !{}", UNROLL_TWICE_FIRST_NODE + 2 * loops));
            continue;
        }
        out.push(line);
    }
    if let Some(marker) = waiting {
        return Err(format!("no loop branch after the {UNROLL_TWICE_MARKER} call: {marker}"));
    }
    if loops > 0 {
        out.push(format!("!{} = !{{!\"llvm.loop.unroll.count\", i32 2}}", UNROLL_TWICE_FIRST_NODE));
        for k in 1..=loops {
            let id = UNROLL_TWICE_FIRST_NODE + 2 * k;
            out.push(format!("!{id} = distinct !{{!{id}, !{}}}", UNROLL_TWICE_FIRST_NODE));
        }
    }
    Ok(out)
}

/// First number of the metadata nodes [`unroll_twice`] adds, past
/// rustc's own.
const UNROLL_TWICE_FIRST_NODE: u32 = 970000;

/// Whether `line` is an instruction that is nothing but a plain (or `tail`)
/// call of the `void` function whose `@` is at `at`.
fn is_void_call_at(line: &str, at: usize) -> bool {
    line.starts_with(' ') && line[..at].trim_start().trim_start_matches("tail ").starts_with("call void ")
}

/// The arguments of a call, from just after its `(`: split at the commas
/// outside parentheses, up to the matching `)`.
fn call_arguments(rest: &str) -> Option<Vec<String>> {
    let mut depth = 0;
    let mut args = vec![String::new()];
    for c in rest.chars() {
        match c {
            '(' => depth += 1,
            ')' if depth == 0 => return Some(args.into_iter().map(|a| a.trim().to_string()).collect()),
            ')' => depth -= 1,
            ',' if depth == 0 => {
                args.push(String::new());
                continue;
            }
            _ => {}
        }
        args.last_mut()?.push(c);
    }
    None
}

/// The value of a call argument `ty [attributes] value`.
fn operand(arg: &str, ty: &str) -> Option<String> {
    let mut rest = arg.strip_prefix(ty)?.trim_start();
    loop {
        let word_end = rest.find([' ', '(']).unwrap_or(rest.len());
        let word = &rest[..word_end];
        let is_attribute = matches!(word, "noundef" | "nonnull" | "readonly" | "readnone" | "writeonly" | "noalias" | "nocapture")
            || word == "align" || word == "dereferenceable" || word == "dereferenceable_or_null" || word == "captures" || word == "range";
        if !is_attribute {
            break;
        }
        rest = rest[word_end..].trim_start();
        if word == "align" {
            rest = rest.trim_start_matches(|c: char| c.is_ascii_digit()).trim_start();
        } else if rest.starts_with('(') {
            rest = rest[rest.find(')')? + 1..].trim_start();
        }
    }
    (!rest.is_empty()).then(|| rest.to_string())
}

fn config_default(name: &str) -> String {
    format!("@{name} = weak hidden constant i32 0, align 4")
}

/// `@name` of a global variable definition or declaration line.
pub fn global_name(line: &str) -> Option<String> {
    let rest = line.strip_prefix('@')?;
    let end = rest.find(" = ")?;
    let name = &rest[..end];
    (!name.is_empty() && !name.contains(' ')).then(|| name.trim_matches('"').to_string())
}

/// Rewrites one global definition into address space `space`. Shared memory
/// cannot be initialised, so the initialiser becomes `undef` unless `keep_init`.
fn move_global(line: &str, name: &str, space: u32, keep_init: bool) -> Result<(String, Option<u64>)> {
    let (head, rest) = line
        .split_once(" global ")
        .ok_or_else(|| format!("{name}: a static meant for address space {space} is not a mutable global (wrap it in UnsafeCell): {line}"))?;
    let (ty, after_ty) = split_type(rest).ok_or_else(|| format!("{name}: cannot parse the type in: {line}"))?;
    let (init, tail) = match after_ty.find(", section ") {
        Some(i) => (&after_ty[..i], &after_ty[i..]),
        None => return Err(format!("{name}: no section in: {line}")),
    };
    let tail = tail.trim_start_matches(", ");
    // Drop the section attribute itself, keep what follows (align, metadata).
    let tail = match tail.find(", ") {
        Some(i) => &tail[i..],
        None => "",
    };
    let head = if space == 4 {
        // The host looks this up by name and writes it: keep it visible.
        format!("@{name} = weak protected")
    } else {
        head.to_string()
    };
    let init = if keep_init { init.trim() } else { "undef" };
    let bytes = array_bytes(ty);
    Ok((format!("{head} addrspace({space}) global {ty} {init}{tail}"), bytes))
}

/// Splits `"<type> <rest>"` where the type may be bracketed.
fn split_type(s: &str) -> Option<(&str, &str)> {
    let s = s.trim_start();
    let (open, close) = match s.chars().next()? {
        '[' => ('[', ']'),
        '{' => ('{', '}'),
        '<' => ('<', '>'),
        _ => {
            let end = s.find(' ')?;
            return Some((&s[..end], s[end..].trim_start()));
        }
    };
    let mut depth = 0;
    for (i, c) in s.char_indices() {
        if c == open {
            depth += 1;
        } else if c == close {
            depth -= 1;
            if depth == 0 {
                return Some((&s[..=i], s[i + 1..].trim_start()));
            }
        }
    }
    None
}

/// Bytes of the types rustc emits for statics: `[N x i8]`-style arrays and
/// packed structs of them (`<{ [36 x i8], [4 x i8] }>`).
fn array_bytes(ty: &str) -> Option<u64> {
    let ty = ty.trim();
    if let Some(fields) = ty.strip_prefix("<{").and_then(|t| t.strip_suffix("}>")) {
        return split_top_level(fields).iter().map(|f| array_bytes(f)).sum();
    }
    let inner = ty.strip_prefix('[')?.strip_suffix(']')?;
    let (n, elem) = inner.split_once(" x ")?;
    let size = match elem.trim() {
        "i8" => 1,
        "i16" => 2,
        "i32" | "float" => 4,
        "i64" | "double" | "ptr" => 8,
        _ => return None,
    };
    Some(n.trim().parse::<u64>().ok()? * size)
}

/// Splits at commas that are not inside brackets.
fn split_top_level(s: &str) -> Vec<&str> {
    let (mut depth, mut start, mut parts) = (0i32, 0, Vec::new());
    for (i, c) in s.char_indices() {
        match c {
            '[' | '{' | '<' | '(' => depth += 1,
            ']' | '}' | '>' | ')' => depth -= 1,
            ',' if depth == 0 => {
                parts.push(&s[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    parts.push(&s[start..]);
    parts
}

fn is_ident_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '$' | '-')
}

/// Replaces every whole-word `@name` in `line` by `with`.
fn replace_symbol(line: &str, name: &str, with: &str) -> String {
    let needle = format!("@{name}");
    let mut out = String::new();
    let mut rest = line;
    while let Some(i) = rest.find(&needle) {
        let after = &rest[i + needle.len()..];
        out.push_str(&rest[..i]);
        if after.chars().next().is_some_and(is_ident_char) {
            out.push_str(&needle);
        } else {
            out.push_str(with);
        }
        rest = after;
    }
    out.push_str(rest);
    out
}

fn strip_target_attributes(line: &str) -> String {
    if !line.starts_with("attributes #") {
        return line.to_string();
    }
    let mut out = line.to_string();
    for key in ["\"target-cpu\"=\"", "\"target-features\"=\""] {
        while let Some(i) = out.find(key) {
            let value_start = i + key.len();
            let Some(len) = out[value_start..].find('"') else { break };
            let end = value_start + len + 1;
            let end = if out[end..].starts_with(' ') { end + 1 } else { end };
            out.replace_range(i..end, "");
        }
    }
    out.replace("  ", " ")
}

/// The end of the mangled name of `parallel::irbuilder_wrapper`, the
/// runtime's wrapper for the OpenMPIRBuilder's generic-mode regions.
pub const IRBUILDER_WRAPPER_SUFFIX: &str = "8parallel17irbuilder_wrapper";

/// The runtime as clang links it into each device TU at compile time, where
/// every call of `__kmpc_parallel_60` is inlined with its argument count a
/// constant and the path that takes the address of
/// [`IRBUILDER_WRAPPER_SUFFIX`] folds away: that function goes, its address
/// becomes null. The bitcode link would otherwise bring it in with
/// `__kmpc_parallel_60`, and at -O0, where no pass removes a dead function,
/// ptxas moved the argument slots it alone reads into it and nvlink counted
/// them against every kernel (clang's -O0 SPMD kernels +40 bytes of shared
/// memory). The archive's LTO member keeps it, for flang's calls.
pub fn for_compile_time_link(ir: &str) -> Result<String> {
    let name = ir
        .lines()
        .filter_map(|l| l.strip_prefix("define ").and_then(|d| d.split('@').nth(1)).and_then(|d| d.split('(').next()))
        .find(|n| n.ends_with(IRBUILDER_WRAPPER_SUFFIX))
        .ok_or_else(|| format!("no function named *{IRBUILDER_WRAPPER_SUFFIX} in the runtime's IR"))?
        .to_string();
    let mut out = String::with_capacity(ir.len());
    let mut in_body = false;
    for line in ir.lines() {
        if line.starts_with("define ") && line.contains(&format!("@{name}(")) {
            in_body = true;
            continue;
        }
        if in_body {
            in_body = line != "}";
            continue;
        }
        out.push_str(&replace_symbol(line, &name, "null"));
        out.push('\n');
    }
    Ok(out)
}

/// The runtime for `-foffload-lto`, where it is linked from `libompdevice.a`
/// after the user's compile. Its exported functions become `hidden`:
/// clang-nvlink-wrapper keeps every symbol of default visibility visible to
/// other objects, so the LTO link did not internalise the runtime, and
/// openmp-opt, which folds the team state only in functions it sees every
/// call of, folded nothing (sched.c's kernels 48-78 registers, the team state
/// stored and read back in every kernel; 20-27 hidden). The API stays
/// callable: hidden only keeps a symbol out of other linkage units, and the
/// device image is one. They also lose the `readnone` of their parameters:
/// rustc marks an unused pointer parameter `readnone`; openmp-opt, in the LTO
/// link, adds `OMPKinds.def`'s attributes to the runtime functions it finds
/// defined, `writeonly` or `readonly` among them, and the verifier rejects
/// the pair (`omp_get_place_proc_ids`: "Attributes 'readnone and writeonly'
/// are incompatible", the link aborts). In the default compile clang links
/// the runtime into the user's module and internalises it first, and
/// openmp-opt leaves it alone.
///
/// Its calls through pointers to clang's functions become plain calls
/// ([`calls_for_invokes`]).
pub fn for_lto(ir: &str) -> String {
    let hidden: Vec<String> = ir
        .lines()
        .map(|line| match line.strip_prefix("define ") {
            Some(rest) => match linkage_of(&rest[..rest.find('@').unwrap_or(0)].split_whitespace().collect::<Vec<_>>()) {
                "private" | "internal" => line.to_string(),
                // Visibility follows the linkage keyword (the C library's weak functions).
                "external" => format!("define hidden {}", rest.replace(" readnone", "")),
                linkage => format!("define {linkage} hidden {}", rest.replacen(&format!("{linkage} "), "", 1).replace(" readnone", "")),
            },
            None => line.to_string(),
        })
        .collect();
    let mut out = calls_for_invokes(&hidden).join("\n");
    out.push('\n');
    out
}

/// Rewrites each `invoke` of a function pointer (the runtime's calls of
/// clang's outlined regions and wrappers) as a `call` and a branch to its
/// normal destination. The runtime is built with `panic=abort`, so its only
/// unwind edges are rustc's abort-on-unwind guards around calls through
/// `extern "C-unwind"` pointers, and nothing unwinds on the GPU. openmp-opt
/// turns an indirect `call`, not an `invoke`, into direct calls of the
/// regions the module passes; the LTO link, whose inliner runs once with no
/// devirtualisation rounds, inlines a region only then (lowering test
/// `lto_link_inlines_the_parallel_regions`). The default compile keeps the
/// invokes: its inliner makes the call direct by itself, and with
/// openmp-opt's direct calls in the shared entry, kernels of one file see
/// each other's regions and fold less (more registers and shared memory in
/// the benchmark kernels).
fn calls_for_invokes(lines: &[String]) -> Vec<String> {
    let mut out = Vec::with_capacity(lines.len());
    let mut i = 0;
    while i < lines.len() {
        let line = &lines[i];
        let next = lines.get(i + 1).map(|l| l.trim_start());
        let normal = next.and_then(|l| l.strip_prefix("to label ")).and_then(|l| l.split(" unwind label ").next());
        match (line.strip_prefix("  invoke "), normal) {
            (Some(call), Some(normal)) if call.split('(').next().is_some_and(|callee| callee.split_whitespace().last().is_some_and(|c| c.starts_with('%'))) => {
                out.push(format!("  call {call}"));
                out.push(format!("  br label {normal}"));
                i += 2;
            }
            _ => {
                out.push(line.clone());
                i += 1;
            }
        }
    }
    out
}

/// Linkage keyword of a `define` or global line ("external" when absent).
fn linkage_of(words: &[&str]) -> &'static str {
    const LINKAGES: [&str; 10] = [
        "private", "internal", "available_externally", "linkonce", "weak", "common", "appending", "extern_weak",
        "linkonce_odr", "weak_odr",
    ];
    for w in words {
        if let Some(l) = LINKAGES.iter().find(|l| **l == *w) {
            return l;
        }
    }
    "external"
}

/// A problem [`check`] found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Violation {
    /// A mutable global in global memory that is not marked device-global.
    MutableGlobalInGlobalMemory(String),
    /// A visible symbol that is not part of the runtime's API.
    ExportedInternalSymbol(String),
}

/// Checks the final IR: runtime state lives in shared or constant memory
/// unless marked device-global, and only API symbols are visible.
pub fn check(ir: &str, is_api: &dyn Fn(&str) -> bool) -> Vec<Violation> {
    let mut violations = Vec::new();
    for line in ir.lines() {
        if let Some(name) = global_name(line) {
            let rhs = &line[line.find(" = ").unwrap() + 3..];
            let words: Vec<&str> = rhs.split_whitespace().collect();
            let is_decl = words.first().is_some_and(|w| *w == "external" || *w == "extern_weak");
            let is_mutable = words.iter().take_while(|w| **w != "constant").any(|w| *w == "global");
            let in_global_memory = !rhs.contains("addrspace(3)") && !rhs.contains("addrspace(4)");
            let is_metadata = name.starts_with("llvm.");
            if !is_decl && is_mutable && in_global_memory && !is_metadata && !line.contains(DEVICE_GLOBAL_SECTION) {
                violations.push(Violation::MutableGlobalInGlobalMemory(name.clone()));
            }
            let linkage = linkage_of(&words);
            if !is_decl && !is_metadata && !matches!(linkage, "private" | "internal") && !is_api(&name) {
                violations.push(Violation::ExportedInternalSymbol(name));
            }
        } else if let Some(rest) = line.strip_prefix("define ") {
            let Some(at) = rest.find('@') else { continue };
            let words: Vec<&str> = rest[..at].split_whitespace().collect();
            let name: String = rest[at + 1..].chars().take_while(|c| is_ident_char(*c)).collect();
            if !matches!(linkage_of(&words), "private" | "internal") && !is_api(&name) {
                violations.push(Violation::ExportedInternalSymbol(name));
            }
        }
    }
    violations
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lto_runtime_hides_exported_definitions_and_drops_their_readnone() {
        let ir = "define void @omp_get_place_proc_ids(i32 noundef %p, ptr noundef readnone captures(none) %ids) #0 {\n\
                  define internal void @helper(ptr readnone %x) #0 {\n\
                  declare void @ext(ptr readnone)\n\
                  define weak noundef i64 @strlen(ptr noundef readnone %s) #0 {\n";
        let out = for_lto(ir);
        assert!(out.contains("define hidden void @omp_get_place_proc_ids(i32 noundef %p, ptr noundef captures(none) %ids)"), "{out}");
        assert!(out.contains("define weak hidden noundef i64 @strlen(ptr noundef %s)"), "{out}");
        assert!(out.contains("@helper(ptr readnone %x)"), "{out}");
        assert!(out.contains("declare void @ext(ptr readnone)"), "{out}");
    }

    #[test]
    fn lto_runtime_calls_clang_functions_without_invokes() {
        let ir = "define internal void @call_with(ptr %outlined, ptr %g) #0 personality ptr @rust_eh_personality {\n\
                  start:\n\
                  \x20 invoke void %outlined(ptr noundef nonnull %g, ptr noundef %g)\n\
                  \x20         to label %bb67 unwind label %cleanup\n\
                  \n\
                  cleanup:                                          ; preds = %start\n\
                  \x20 %1 = landingpad { ptr, i32 }\n\
                  \x20         cleanup\n\
                  \x20 tail call fastcc void @panic_cannot_unwind() #1\n\
                  \x20 unreachable\n\
                  \n\
                  bb67:                                             ; preds = %start\n\
                  \x20 invoke void @direct(ptr %g)\n\
                  \x20         to label %bb68 unwind label %cleanup\n\
                  bb68:\n\
                  \x20 ret void\n\
                  }\n";
        let out = for_lto(ir);
        assert!(out.contains("start:\n  call void %outlined(ptr noundef nonnull %g, ptr noundef %g)\n  br label %bb67\n\ncleanup:"), "{out}");
        // A direct call keeps its guard: only calls of clang's functions through pointers change.
        assert!(out.contains("  invoke void @direct(ptr %g)\n          to label %bb68 unwind label %cleanup"), "{out}");
    }

    const SAMPLE: &str = r#"@_RNv4TEAM = internal unnamed_addr global [56 x i8] c"\00\01", section ".omprt.shared", align 8
@__omp_rtl_device_environment = global [48 x i8] zeroinitializer, section ".omprt.constant", align 8
@llvm.used = appending global [1 x ptr] [ptr @__omp_rtl_device_environment], section "llvm.metadata"
@__omp_rtl_debug_kind = external global i32
@_RNv4TEAM2 = internal global i32 0
define i32 @omp_get_level() unnamed_addr #0 {
  %a = load i32, ptr getelementptr inbounds nuw (i8, ptr @_RNv4TEAM, i64 4), align 4
  %b = load i32, ptr @_RNv4TEAM, align 4
  %c = load i32, ptr @__omp_rtl_debug_kind, align 4
  ret i32 %a
}
define internal void @helper() #0 {
  ret void
}
define void @leaked() #0 {
  ret void
}
attributes #0 = { convergent nounwind "target-cpu"="sm_70" "target-features"="+ptx70" }
"#;

    #[test]
    fn kept_functions_go_into_compiler_used_and_must_be_defined() {
        let (out, _) = rewrite(SAMPLE, &[], &["omp_get_level", "helper"]).unwrap();
        assert!(out.contains("@llvm.compiler.used = appending global [2 x ptr] [ptr @omp_get_level, ptr @helper], section \"llvm.metadata\""), "{out}");
        assert!(rewrite(SAMPLE, &[], &["omp_get_thread_num"]).is_err(), "a kept function the runtime does not define");
    }

    #[test]
    fn moves_shared_and_constant_statics_and_rewrites_uses() {
        let (ir, report) = rewrite(SAMPLE, &["__omp_rtl_debug_kind", "__omp_rtl_assume_no_thread_state"], &[]).unwrap();
        assert!(ir.contains("@_RNv4TEAM = internal unnamed_addr addrspace(3) global [56 x i8] undef, align 8"), "{ir}");
        assert!(ir.contains("getelementptr inbounds nuw (i8, ptr addrspacecast (ptr addrspace(3) @_RNv4TEAM to ptr), i64 4)"));
        assert!(ir.contains("load i32, ptr addrspacecast (ptr addrspace(3) @_RNv4TEAM to ptr), align 4"));
        // A name that merely starts with a moved name is left alone.
        assert!(ir.contains("@_RNv4TEAM2 = internal global i32 0"));
        assert!(ir.contains("@__omp_rtl_device_environment = weak protected addrspace(4) global [48 x i8] zeroinitializer, align 8"));
        assert!(ir.contains("[ptr addrspacecast (ptr addrspace(4) @__omp_rtl_device_environment to ptr)]"));
        assert!(ir.contains("@__omp_rtl_debug_kind = weak hidden constant i32 0"));
        assert!(ir.contains("@__omp_rtl_assume_no_thread_state = weak hidden constant i32 0"));
        assert!(!ir.contains("target-cpu") && !ir.contains("target-features"));
        assert_eq!(report.shared, vec![("_RNv4TEAM".to_string(), Some(56))]);
    }

    #[test]
    fn atomics_get_device_scope() {
        let body = [
            "  %a = load atomic i64, ptr %p acquire, align 8",
            "  store atomic i64 %v, ptr %p release, align 8",
            "  %c = cmpxchg weak ptr %p, i64 %a, i64 %v acq_rel monotonic, align 8",
            "  %r = atomicrmw add ptr %p, i64 %v monotonic, align 8",
            "  fence acquire",
            "  fence syncscope(\"block\") seq_cst",
            "  %acquire = load i64, ptr %p, align 8",
            "  ret void",
        ];
        let ir = format!("define void @f(ptr %p, i64 %v) {{\n{}\n}}\n", body.join("\n"));
        let (out, _) = rewrite(&ir, &[], &[]).unwrap();
        for want in [
            "  %a = load atomic i64, ptr %p syncscope(\"device\") acquire, align 8\n",
            "  store atomic i64 %v, ptr %p syncscope(\"device\") release, align 8\n",
            "  %c = cmpxchg weak ptr %p, i64 %a, i64 %v syncscope(\"device\") acq_rel monotonic, align 8\n",
            "  %r = atomicrmw add ptr %p, i64 %v syncscope(\"device\") monotonic, align 8\n",
            "  fence syncscope(\"device\") acquire\n",
            "  fence syncscope(\"block\") seq_cst\n",
            "  %acquire = load i64, ptr %p, align 8\n",
        ] {
            assert!(out.contains(want), "missing {want:?} in\n{out}");
        }
    }

    #[test]
    fn dynamic_shared_memory_becomes_an_extern_shared_array() {
        let ir = "@__omprt_dynamic_shared = external global [0 x i8]\n\
define ptr @f() {\n  ret ptr @__omprt_dynamic_shared\n}\n";
        let (out, _) = rewrite(ir, &[], &[]).unwrap();
        assert!(out.contains("@__omprt_dynamic_shared = external addrspace(3) global [0 x i8], align 16\n"), "{out}");
        assert!(out.contains("ret ptr addrspacecast (ptr addrspace(3) @__omprt_dynamic_shared to ptr)"), "{out}");
        assert!(check(&out, &|n| n == "f").is_empty(), "a declaration is no leaked symbol");
        assert!(rewrite("@__omprt_dynamic_shared = external global i32\n", &[], &[]).is_err());
    }

    #[test]
    fn check_flags_global_memory_state_and_leaked_symbols() {
        let (ir, _) = rewrite(SAMPLE, &["__omp_rtl_debug_kind"], &[]).unwrap();
        let api = |n: &str| n.starts_with("omp_") || n.starts_with("__omp_rtl_");
        let v = check(&ir, &api);
        assert!(v.contains(&Violation::MutableGlobalInGlobalMemory("_RNv4TEAM2".into())), "{v:?}");
        assert!(v.contains(&Violation::ExportedInternalSymbol("leaked".into())), "{v:?}");
        assert!(!v.iter().any(|x| matches!(x, Violation::ExportedInternalSymbol(n) if n == "helper" || n == "omp_get_level")));
        assert!(!v.iter().any(|x| matches!(x, Violation::MutableGlobalInGlobalMemory(n) if n == "_RNv4TEAM")));
    }

    #[test]
    fn the_compile_time_link_drops_the_irbuilder_wrapper() {
        let ir = "define void @__kmpc_parallel_60(ptr %p) {\n  store ptr @_RNvX8parallel17irbuilder_wrapper, ptr %p, align 8\n  store ptr @_RNvX8parallel17irbuilder_wrapper2, ptr %p, align 8\n  ret void\n}\n\
define internal void @_RNvX8parallel17irbuilder_wrapper(i16 %0, i32 %1) unnamed_addr #3 {\nstart:\n  ret void\n}\n\
define internal void @_RNvX8parallel17irbuilder_wrapper2() {\n  ret void\n}\n";
        let out = for_compile_time_link(ir).unwrap();
        assert_eq!(
            out,
            "define void @__kmpc_parallel_60(ptr %p) {\n  store ptr null, ptr %p, align 8\n  store ptr @_RNvX8parallel17irbuilder_wrapper2, ptr %p, align 8\n  ret void\n}\n\
define internal void @_RNvX8parallel17irbuilder_wrapper2() {\n  ret void\n}\n"
        );
        assert!(for_compile_time_link("define void @f() {\n  ret void\n}\n").unwrap_err().contains(IRBUILDER_WRAPPER_SUFFIX));
    }

    #[test]
    fn always_inline_later_functions_become_alwaysinline() {
        let ir = "define internal void @a() unnamed_addr #0 section \".omprt.always_inline_later\" {\n  ret void\n}\n\
define internal void @b() unnamed_addr #0 {\n  call void @a() #1\n  call void @b() #1\n  ret void\n}\n\
attributes #0 = { convergent noinline nounwind }\nattributes #1 = { noinline }\n";
        let (out, _) = rewrite(ir, &[], &[]).unwrap();
        assert!(out.contains("define internal void @a() unnamed_addr #95000 {"), "{out}");
        // Only the marked function and its calls change.
        assert!(out.contains("define internal void @b() unnamed_addr #0 {"));
        assert!(out.contains("attributes #0 = { convergent noinline nounwind }"));
        assert!(out.contains("  call void @b() #1\n"), "{out}");
        assert!(out.contains("attributes #95000 = { convergent alwaysinline nounwind }"), "{out}");
        assert!(out.contains("  call void @a() #95001\n") && out.contains("attributes #95001 = { alwaysinline }"), "{out}");
        assert!(!out.contains("section"), "{out}");
    }

    #[test]
    fn inline_when_optimizing_functions_become_inlinehint_also_at_calls_with_metadata() {
        let ir = "define internal void @a() unnamed_addr #0 section \".omprt.inline_when_optimizing\" {\n  ret void\n}\n\
define internal void @b() unnamed_addr #0 {\n  call void @a() #1, !noalias !5\n  call void @b() #1, !noalias !5\n  ret void\n}\n\
attributes #0 = { convergent noinline nounwind }\nattributes #1 = { noinline }\n";
        let (out, _) = rewrite(ir, &[], &[]).unwrap();
        assert!(out.contains("define internal void @a() unnamed_addr #96000 {"), "{out}");
        assert!(out.contains("attributes #96000 = { convergent inlinehint nounwind }"), "{out}");
        // The call keeps its metadata; only its group changes.
        assert!(out.contains("  call void @a() #96001, !noalias !5\n") && out.contains("attributes #96001 = { inlinehint }"), "{out}");
        assert!(out.contains("  call void @b() #1, !noalias !5\n"), "{out}");
        assert!(!out.contains("section"), "{out}");
    }

    #[test]
    fn assume_markers_become_assumptions_on_the_moved_global() {
        let ir = "@_RNv4TEAM = internal global [8 x i8] undef, section \".omprt.shared\", align 8\n\
define internal void @f() #0 {\n  tail call void @__omprt_assume_u32_eq(ptr noundef nonnull align 4 getelementptr inbounds nuw (i8, ptr @_RNv4TEAM, i64 4), i32 noundef 1) #1\n  ret void\n}\n\
declare void @__omprt_assume_u32_eq(ptr noundef, i32 noundef) unnamed_addr #1\n";
        let (out, _) = rewrite(ir, &[], &[]).unwrap();
        let gep = "getelementptr inbounds nuw (i8, ptr addrspacecast (ptr addrspace(3) @_RNv4TEAM to ptr), i64 4)";
        assert!(out.contains(&format!("  %omprt.assume.1 = load i32, ptr {gep}, align 4\n")), "{out}");
        assert!(out.contains("  %omprt.assume.ok.1 = icmp eq i32 %omprt.assume.1, 1\n"), "{out}");
        assert!(out.contains("  call void @llvm.assume(i1 %omprt.assume.ok.1)\n"), "{out}");
        assert!(out.contains("declare void @llvm.assume(i1 noundef)"), "{out}");
        assert!(!out.contains(ASSUME_MARKER), "{out}");
        // A value's attributes (`range(...)` has a comma of its own) are not part of it.
        let ranged = "define internal void @h(i32 %n) {\n  tail call void @__omprt_assume_u32_eq(ptr @x, i32 noundef range(i32 0, -32) %n)\n  ret void\n}\n";
        let (out, _) = rewrite(ranged, &[], &[]).unwrap();
        assert!(out.contains("  %omprt.assume.ok.1 = icmp eq i32 %omprt.assume.1, %n\n"), "{out}");
        // Anything but a plain call of the marker is an error, not a silent drop.
        let odd = "define internal void @g() {\n  store ptr @__omprt_assume_u32_eq(ptr null, i32 1), ptr null\n  ret void\n}\n";
        assert!(rewrite(odd, &[], &[]).is_err());
    }

    #[test]
    fn unroll_twice_markers_set_the_unroll_count_of_their_loop() {
        let ir = [
            "define internal void @f(i32 %n) {",
            "start:",
            "  br label %bb2",
            "bb2:                                              ; preds = %bb2, %start",
            "  %i = phi i32 [ 0, %start ], [ %j, %bb2 ]",
            "  tail call void @__omprt_unroll_twice() #1",
            "  %j = add i32 %i, 1",
            "  %c = icmp ult i32 %j, %n",
            "  br i1 %c, label %bb2, label %\"bb3.i\"",
            "",
            "\"bb3.i\":",
            "  br label %bb4",
            "bb4:",
            "  ret void",
            "}",
            "declare void @__omprt_unroll_twice() unnamed_addr #1",
        ]
        .join("\n");
        let (out, _) = rewrite(&ir, &[], &[]).unwrap();
        assert!(!out.contains(UNROLL_TWICE_MARKER), "{out}");
        assert!(out.contains("  br i1 %c, label %bb2, label %\"bb3.i\", !llvm.loop !970002\n"), "{out}");
        assert!(out.contains("  br label %bb4\n"), "{out}");
        assert!(out.contains("!970000 = !{!\"llvm.loop.unroll.count\", i32 2}\n!970002 = distinct !{!970002, !970000}\n"), "{out}");
        // A marker with no loop around it is an error, not a silent drop.
        let straight = ["define internal void @g() {", "start:", "  call void @__omprt_unroll_twice()", "  br label %bb1", "bb1:", "  ret void", "}"].join("\n");
        assert!(rewrite(&straight, &[], &[]).is_err());
    }

    #[test]
    fn sizes_of_packed_statics() {
        assert_eq!(array_bytes("<{ [36 x i8], [4 x i8], [512 x i8] }>"), Some(552));
        assert_eq!(array_bytes("[3 x i64]"), Some(24));
        assert_eq!(array_bytes("%T"), None);
    }

    #[test]
    fn device_global_marker_is_accepted() {
        let ir = "@x = internal global i32 0, section \".omprt.device_global\", align 4\n";
        assert!(check(ir, &|_| false).is_empty());
    }
}
