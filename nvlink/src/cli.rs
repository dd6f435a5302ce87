//! nvlink's command line as `clang-nvlink-wrapper` writes it: `-o OUT`,
//! `-arch sm_NN`, `-L DIR`, `-g`, `-v`, then the relocatable cubins.

/// One link.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Link {
    pub output: String,
    pub arch: String,
    pub inputs: Vec<String>,
    /// `-g`: keep debug information.
    pub debug: bool,
    /// `-v`: say what is done.
    pub verbose: bool,
}

/// What the command line asks for.
#[derive(Debug, PartialEq, Eq)]
pub enum Request {
    Link(Link),
    Version,
    Help,
}

/// Options of nvlink that take a value, in both spellings.
const WITH_VALUE: [(&str, &str); 4] = [("-o", "--output-file"), ("-arch", "--arch"), ("-L", "--library-path"), ("-l", "--library")];

/// Parses nvlink's arguments (not the program name). `-l` is refused: the
/// wrapper resolves libraries itself and passes their members as inputs.
pub fn parse(args: &[String]) -> Result<Request, String> {
    let mut link = Link::default();
    let mut rest = args.iter();
    while let Some(arg) = rest.next() {
        let (flag, inline) = match arg.split_once('=') {
            Some((f, v)) if f.starts_with('-') => (f, Some(v.to_string())),
            _ => (arg.as_str(), None),
        };
        // `-L/dir`, `-lname`: the value glued to the short flag.
        let glued = ["-L", "-l"].into_iter().find(|short| flag.len() > 2 && flag.starts_with(short) && !flag.starts_with("--"));
        let (flag, inline) = match glued {
            Some(short) if inline.is_none() => (short, Some(flag[2..].to_string())),
            _ => (flag, inline),
        };
        if let Some(&(short, long)) = WITH_VALUE.iter().find(|(s, l)| flag == *s || flag == *l) {
            let value = match inline {
                Some(v) => v,
                None => rest.next().cloned().ok_or_else(|| format!("{flag} needs a value"))?,
            };
            match short {
                "-o" => link.output = value,
                "-arch" => link.arch = value,
                "-L" => {} // inputs come as files; the folders only served -l
                _ => return Err(format!("{long} {value}: libraries are not linked here (clang-nvlink-wrapper passes their members as files)")),
            }
            continue;
        }
        match flag {
            "--version" | "-V" => return Ok(Request::Version),
            "--help" | "-h" => return Ok(Request::Help),
            "-g" | "--debug" => link.debug = true,
            "-v" | "--verbose" => link.verbose = true,
            // nvlink's host-side options, meaningless for a device image.
            "-m64" | "--cpu-arch" => {}
            f if f.starts_with('-') => return Err(format!("unknown option '{arg}'")),
            _ => link.inputs.push(arg.clone()),
        }
    }
    if link.arch.is_empty() {
        return Err("no -arch sm_NN given".into());
    }
    if link.inputs.is_empty() {
        return Err("no input files".into());
    }
    if link.output.is_empty() {
        link.output = "a.out".into();
    }
    Ok(Request::Link(link))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(s: &str) -> Vec<String> {
        s.split_whitespace().map(str::to_string).collect()
    }

    #[test]
    fn the_wrappers_command_line_is_one_link() {
        let got = parse(&args("-o /tmp/a.img -v -arch sm_70 -L /rt -L /usr/lib/llvm-22/lib /tmp/a.cubin /tmp/b.cubin")).unwrap();
        let want =
            Link { output: "/tmp/a.img".into(), arch: "sm_70".into(), inputs: vec!["/tmp/a.cubin".into(), "/tmp/b.cubin".into()], debug: false, verbose: true };
        assert_eq!(got, Request::Link(want));
    }

    #[test]
    fn values_may_be_glued_or_after_an_equals_sign() {
        let Request::Link(l) = parse(&args("--arch=sm_120 -L/rt -g --output-file=x.cubin in.cubin")).unwrap() else { panic!() };
        assert_eq!((l.arch.as_str(), l.output.as_str(), l.debug), ("sm_120", "x.cubin", true));
        assert_eq!(l.inputs, ["in.cubin"]);
    }

    #[test]
    fn bad_command_lines_are_errors_that_say_what_is_wrong() {
        assert!(parse(&args("-o x in.cubin")).unwrap_err().contains("-arch"));
        assert!(parse(&args("-arch sm_70 -o x")).unwrap_err().contains("no input"));
        assert!(parse(&args("-arch")).unwrap_err().contains("needs a value"));
        assert!(parse(&args("-arch sm_70 -lcudadevrt in.cubin")).unwrap_err().contains("libraries are not linked"));
        assert!(parse(&args("-arch sm_70 --frobnicate in.cubin")).unwrap_err().contains("unknown option '--frobnicate'"));
        assert_eq!(parse(&args("--version")).unwrap(), Request::Version);
        assert_eq!(parse(&args("-arch sm_70 --help")).unwrap(), Request::Help);
    }
}
