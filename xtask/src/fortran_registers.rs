//! What each of flang-rt's entry points costs a kernel in registers.
//!
//! nvlink gives a kernel the registers of the largest function it may
//! call, so an entry point costs the kernels that call it the registers of
//! the largest function in its call graph. `cargo xtask fortran-registers`
//! links the archive's members as a flang program's device link does (the
//! LTO member, the module constants, the Fortran runtime member), keeps
//! flang-rt's entry points as the only roots, compiles the result with
//! `ptxas -c` for sm_90 and prints each entry point with that largest
//! function, the most registers first. A measurement: a device link
//! optimises the runtime with the user's code, so a program's figures
//! differ by a few registers (`omprt info --functions` gives them).

use crate::{Result, device_build, runtime_dir, tools};
use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;
use std::process::Command;

/// The registers `__kmpc_parallel_60` takes, which every flang kernel with
/// a parallel region pays already (lowering test
/// `flang_corpus_links_passes_ptxas_and_declares_each_entry_point_with_omprts_type`).
pub const REGION_CALL_REGISTERS: u32 = 62;

/// One entry point: the registers of the largest function it may call (itself
/// included), and that function.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Row {
    pub entry: String,
    pub registers: u32,
    pub largest: String,
}

/// The rows for the built runtime (`cargo xtask build-device`), the most
/// registers first, in `work`.
pub fn table(work: &Path) -> Result<Vec<Row>> {
    std::fs::create_dir_all(work).map_err(|e| format!("cannot create {}: {e}", work.display()))?;
    let lib = runtime_dir();
    let members = ["libompdevice-lto.bc", "libompdevice-fortran.bc", device_build::FORTRAN_RUNTIME_MEMBER].map(|m| lib.join(m));
    if let Some(missing) = members.iter().find(|m| !m.is_file()) {
        return Err(format!("{} is missing: run 'cargo xtask build-device'", missing.display()));
    }
    let linked = work.join("runtime.bc");
    tools::run(Command::new(tools::llvm_tool("llvm-link")?).args(&members).arg("-o").arg(&linked))?;
    let entries = entry_points(&tools::disassemble(&lib.join(device_build::FORTRAN_RUNTIME_MEMBER))?);
    let api = work.join("entry-points.txt");
    std::fs::write(&api, entries.iter().map(|e| format!("{e}\n")).collect::<String>()).map_err(|e| format!("{}: {e}", api.display()))?;
    let rooted = work.join("rooted.bc");
    tools::run(
        Command::new(tools::llvm_tool("opt")?)
            .arg("-passes=internalize,globaldce,default<O2>")
            .arg(format!("-internalize-public-api-file={}", api.display()))
            .arg(&linked)
            .arg("-o")
            .arg(&rooted),
    )?;
    let ptx = work.join("runtime.ptx");
    tools::run(Command::new(tools::llvm_tool("llc")?).args(["-O3", "-mcpu=sm_90", "-mattr=+ptx80"]).arg(&rooted).arg("-o").arg(&ptx))?;
    let cubin = work.join("runtime.cubin");
    tools::run(Command::new(tools::ptxas()?).args(["-arch=sm_90", "-c"]).arg(&ptx).arg("-o").arg(&cubin))?;
    let text = std::fs::read_to_string(&ptx).map_err(|e| format!("{}: {e}", ptx.display()))?;
    let data = std::fs::read(&cubin).map_err(|e| format!("{}: {e}", cubin.display()))?;
    let image = omprt_host::image::cubin::parse(&data).map_err(|e| format!("{}: {e}", cubin.display()))?;
    let registers: BTreeMap<&str, u32> = image.functions.iter().map(|f| (f.name, f.registers.unwrap_or(0))).collect();
    Ok(rows(&entries, &call_graph(&text), &registers))
}

/// The `_FortranA*` functions a module's text defines.
fn entry_points(ir: &str) -> BTreeSet<String> {
    ir.lines()
        .filter(|l| l.starts_with("define "))
        .filter_map(|l| l.split('@').nth(1)?.split('(').next())
        .filter(|n| n.starts_with(device_build::FORTRAN_RUNTIME_PREFIX))
        .map(String::from)
        .collect()
}

/// The functions each function of a PTX module calls by name.
pub fn call_graph(ptx: &str) -> BTreeMap<String, BTreeSet<String>> {
    let mut graph: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    // The last function header, and the function whose body this is: a
    // header followed by `{` at the start of a line is a definition.
    let mut header: Option<String> = None;
    let mut current: Option<String> = None;
    for line in ptx.lines() {
        if let Some(name) = function_header(line) {
            header = Some(name);
        } else if line.starts_with('{') {
            current = header.take();
            if let Some(name) = &current {
                graph.entry(name.clone()).or_default();
            }
        } else if line.starts_with('}') {
            current = None;
        } else if let Some(caller) = &current
            && let Some(callee) = callee(line)
        {
            graph.entry(caller.clone()).or_default().insert(callee);
        }
    }
    graph
}

/// The function a `.func` or `.entry` header line names.
fn function_header(line: &str) -> Option<String> {
    let mut rest = line;
    for prefix in [".visible ", ".weak ", ".extern "] {
        rest = rest.strip_prefix(prefix).unwrap_or(rest);
    }
    let rest = rest.strip_prefix(".func").or_else(|| rest.strip_prefix(".entry"))?.trim_start();
    // A return value's parameter comes first.
    let rest = if rest.starts_with('(') { rest.split_once(')')?.1.trim_start() } else { rest };
    let name = identifier(rest);
    (!name.is_empty()).then_some(name)
}

/// The callee of a `call` instruction: `call.uni (retval0), name, (...);`
/// or `call.uni name, (...);`.
fn callee(line: &str) -> Option<String> {
    let call = line.trim_start();
    if !call.starts_with("call") {
        return None;
    }
    let rest = call.split_once(char::is_whitespace)?.1.trim_start();
    let rest = if rest.starts_with('(') { rest.split_once("),")?.1.trim_start() } else { rest };
    let name = identifier(rest);
    (!name.is_empty()).then_some(name)
}

fn identifier(text: &str) -> String {
    text.chars().take_while(|c| c.is_ascii_alphanumeric() || *c == '_' || *c == '$').collect()
}

/// Each entry point's largest reachable function.
fn rows(entries: &BTreeSet<String>, graph: &BTreeMap<String, BTreeSet<String>>, registers: &BTreeMap<&str, u32>) -> Vec<Row> {
    let mut rows: Vec<Row> = entries
        .iter()
        .map(|entry| {
            let mut seen = BTreeSet::new();
            let mut stack = vec![entry.as_str()];
            while let Some(f) = stack.pop() {
                if seen.insert(f) {
                    stack.extend(graph.get(f).into_iter().flatten().map(String::as_str));
                }
            }
            let largest = seen.iter().max_by_key(|f| (registers.get(**f).copied().unwrap_or(0), std::cmp::Reverse(**f))).unwrap();
            Row { entry: entry.clone(), registers: registers.get(*largest).copied().unwrap_or(0), largest: largest.to_string() }
        })
        .collect();
    rows.sort_by(|a, b| b.registers.cmp(&a.registers).then_with(|| a.entry.cmp(&b.entry)));
    rows
}

/// The table as `cargo xtask fortran-registers` prints it, with a summary
/// line.
pub fn render(rows: &[Row]) -> String {
    let mut out = String::from("regs  entry point  (largest function it may call, where another)\n");
    for r in rows {
        let largest = if r.largest == r.entry { String::new() } else { format!("  ({})", short_name(&r.largest)) };
        out += &format!("{:>4}  {}{largest}\n", r.registers, r.entry);
    }
    let over = rows.iter().filter(|r| r.registers > REGION_CALL_REGISTERS).count();
    out += &format!(
        "fortran-registers: {over} of {} entry points may call a function of more than {REGION_CALL_REGISTERS} registers (__kmpc_parallel_60's)\n",
        rows.len()
    );
    out
}

/// A runtime function's symbol without the crate's mangled path before
/// its module names (`7fortran6assign6assign` for `fortran::assign::assign`).
fn short_name(symbol: &str) -> &str {
    const CRATE: &str = "16omprt_device_rtl";
    symbol.find(CRATE).map_or(symbol, |at| &symbol[at + CRATE.len()..])
}

#[cfg(test)]
mod tests {
    use super::*;

    const PTX: &str = "\
.func  (.param .b32 func_retval0) g
(
\t.param .b64 g_param_0
)
;
.visible .func  (.param .b32 func_retval0) _FortranAOne(
\t.param .b64 _FortranAOne_param_0
)
{
\tcall.uni (retval0), g, (param0);
\tcall.uni h, ();
}
.func h()
.noreturn
{
\tret;
}
.func  (.param .b32 func_retval0) g(
\t.param .b64 g_param_0
)
{
\tcall.uni h, ();
}
.visible .func _FortranATwo()
{
\tret;
}
";

    #[test]
    fn the_call_graph_comes_from_definitions_not_declarations() {
        let graph = call_graph(PTX);
        assert_eq!(graph["_FortranAOne"], BTreeSet::from(["g".to_string(), "h".to_string()]));
        assert_eq!(graph["g"], BTreeSet::from(["h".to_string()]));
        assert!(graph["h"].is_empty() && graph["_FortranATwo"].is_empty());
    }

    #[test]
    fn an_entry_point_costs_its_largest_reachable_function() {
        let graph = call_graph(PTX);
        let registers = BTreeMap::from([("_FortranAOne", 24), ("g", 40), ("h", 90), ("_FortranATwo", 30)]);
        let entries = BTreeSet::from(["_FortranAOne".to_string(), "_FortranATwo".to_string()]);
        let rows = rows(&entries, &graph, &registers);
        assert_eq!(rows[0], Row { entry: "_FortranAOne".into(), registers: 90, largest: "h".into() });
        assert_eq!(rows[1], Row { entry: "_FortranATwo".into(), registers: 30, largest: "_FortranATwo".into() });
        assert!(render(&rows).ends_with("1 of 2 entry points may call a function of more than 62 registers (__kmpc_parallel_60's)\n"));
    }
}
