//! Which `sm_` archs a CUDA tool takes: the values its `--help` allows for
//! `--arch`/`--gpu-name` (ptxas and nvlink print the same list form).

/// The `sm_` values in the first "Allowed values for this option:" list of
/// `help` after `option` (e.g. `--arch`), in the order printed.
pub fn allowed_sm_values(help: &str, option: &str) -> Vec<String> {
    let Some(at) = help.find(&format!("\n{option} ")).or_else(|| help.strip_prefix(option).map(|_| 0)) else {
        return Vec::new();
    };
    let rest = &help[at..];
    let Some(list) = rest.find("Allowed values for this option:").map(|i| &rest[i..]) else { return Vec::new() };
    // The list ends at its full stop: `'sm_90a'.`
    let list = list.find("'.").map_or(list, |end| &list[..end + 1]);
    list.split('\'').skip(1).step_by(2).filter(|v| v.starts_with("sm_")).map(str::to_string).collect()
}

/// The numeric part of an arch name (`sm_90a` -> 90), for sorting.
pub fn number(arch: &str) -> u32 {
    arch.trim_start_matches("sm_").trim_end_matches(|c: char| c.is_ascii_alphabetic()).parse().unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;

    const NVLINK_HELP: &str = "Options\n=======\n\n--arch <gpu architecture name>                      (-arch)\n        Specify the 'sm_' name of the target architecture.\n        Allowed values for this option:  'compute_100','compute_75','lto_75',\n        'sm_100','sm_100a','sm_75','sm_80',\n        'sm_90','sm_90a'.\n\n--cpu-arch <cpu architecture name>                  (-cpu-arch)\n        Allowed values for this option:  'AARCH64','X86_64'.\n";

    #[test]
    fn the_sm_values_of_the_named_option_are_read() {
        assert_eq!(allowed_sm_values(NVLINK_HELP, "--arch"), ["sm_100", "sm_100a", "sm_75", "sm_80", "sm_90", "sm_90a"]);
        assert!(allowed_sm_values(NVLINK_HELP, "--gpu-name").is_empty());
        assert!(allowed_sm_values("no list here", "--arch").is_empty());
    }

    #[test]
    fn arch_numbers_drop_the_suffix() {
        assert_eq!((number("sm_70"), number("sm_90a"), number("sm_100f"), number("x")), (70, 90, 100, 0));
    }
}
