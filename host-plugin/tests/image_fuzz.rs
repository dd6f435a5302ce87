//! Malformed input is an error value, never a panic: real executables and
//! cubins (built with clang 22 at test time), mutated and truncated, and
//! random bytes, all go through the whole reader (`image::read`, every
//! cubin, the `omprt info` report). Mutations favour the bytes that steer
//! parsing (ELF headers, section and symbol tables, `.nv.info`, the offload
//! binary header, the kernel environment) over code bytes.

mod common;

use object::elf::{FileHeader64, SHT_SYMTAB};
use object::read::elf::{FileHeader, SectionHeader};
use object::LittleEndian;
use omprt_host::{image, report};
use proptest::prelude::*;
use std::ops::Range;
use std::sync::OnceLock;

struct Sample {
    bytes: Vec<u8>,
    /// Byte ranges whose values steer parsing.
    hot: Vec<Range<usize>>,
}

/// The ranges of an ELF file that parsing depends on.
fn hot_ranges(data: &[u8]) -> Vec<Range<usize>> {
    let mut hot = Vec::new();
    hot.push(0..64); // the ELF header
    let Ok(header) = FileHeader64::<LittleEndian>::parse(data) else { return hot };
    let e = LittleEndian;
    let shoff = header.e_shoff.get(e) as usize;
    hot.push(shoff..shoff + 64 * usize::from(header.e_shnum.get(e)));
    let Ok(sections) = header.sections(e, data) else { return hot };
    for section in sections.iter() {
        let name = sections.section_name(e, section).unwrap_or_default();
        let interesting = section.sh_type(e) == SHT_SYMTAB
            || section.sh_type(e) == image::SHT_LLVM_OFFLOADING
            || name.starts_with(b".nv.info")
            || name == b".nv.global.init"
            || name == b".shstrtab";
        if interesting {
            let (start, len) = (section.sh_offset(e) as usize, section.sh_size(e) as usize);
            // The first KiB of a big section holds its headers.
            hot.push(start..start + len.min(1024));
        }
    }
    hot.retain(|r| r.start < r.end && r.end <= data.len());
    hot
}

fn samples() -> &'static [Sample] {
    static SAMPLES: OnceLock<Vec<Sample>> = OnceLock::new();
    SAMPLES.get_or_init(|| {
        let mut out = Vec::new();
        for (program, opt) in [("saxpy.c", "-O2"), ("teams.c", "-O0")] {
            let exe = common::build(program, opt);
            let cubin = {
                let input = image::read(&exe).unwrap();
                input.images[0].bytes.to_vec()
            };
            out.push(Sample { hot: hot_ranges(&exe), bytes: exe });
            out.push(Sample { hot: hot_ranges(&cubin), bytes: cubin });
        }
        out
    })
}

/// Everything `omprt info` does with a file.
fn read_everything(data: &[u8]) {
    if let Ok(input) = image::read(data) {
        for img in &input.images {
            if let Some(Ok(cubin)) = img.cubin() {
                for k in &cubin.kernels {
                    let _ = (k.mode(), image::mode_name(k.mode()));
                }
            }
        }
        let _ = report::info("fuzz", &input);
    }
}

#[derive(Clone, Debug)]
enum Edit {
    /// Overwrite one byte.
    Byte { at: usize, hot: bool, value: u8 },
    /// Overwrite 8 bytes with a value likely to reach an edge (0, all ones,
    /// the length, a small count).
    Word { at: usize, hot: bool, value: u64 },
    /// Cut the file at `at`.
    Truncate { at: usize },
}

fn edit() -> impl Strategy<Value = Edit> {
    let words = prop_oneof![Just(0u64), Just(u64::MAX), Just(u64::MAX / 2), Just(0x8000_0000), 1u64..64, any::<u64>()];
    prop_oneof![
        4 => (any::<usize>(), any::<bool>(), any::<u8>()).prop_map(|(at, hot, value)| Edit::Byte { at, hot, value }),
        4 => (any::<usize>(), any::<bool>(), words).prop_map(|(at, hot, value)| Edit::Word { at, hot, value }),
        1 => any::<usize>().prop_map(|at| Edit::Truncate { at }),
    ]
}

/// Maps a random index to a position: anywhere, or inside a hot range.
fn position(sample: &Sample, len: usize, at: usize, hot: bool) -> usize {
    if hot && !sample.hot.is_empty() {
        let range = &sample.hot[at % sample.hot.len()];
        range.start + (at / sample.hot.len()) % range.len()
    } else {
        at % len.max(1)
    }
}

fn apply(sample: &Sample, edits: &[Edit]) -> Vec<u8> {
    let mut data = sample.bytes.clone();
    for e in edits {
        match *e {
            Edit::Byte { at, hot, value } => {
                let p = position(sample, data.len(), at, hot);
                if let Some(b) = data.get_mut(p) {
                    *b = value;
                }
            }
            Edit::Word { at, hot, value } => {
                let p = position(sample, data.len(), at, hot);
                let value = if value == 1 { data.len() as u64 } else { value };
                for (i, b) in value.to_le_bytes().into_iter().enumerate() {
                    if let Some(slot) = data.get_mut(p + i) {
                        *slot = b;
                    }
                }
            }
            Edit::Truncate { at } => data.truncate(at % (data.len() + 1)),
        }
    }
    data
}

fn config(cases: u32) -> ProptestConfig {
    ProptestConfig { cases, failure_persistence: None, ..ProptestConfig::default() }
}

#[test]
fn unmodified_samples_read_cleanly() {
    for s in samples() {
        let input = image::read(&s.bytes).unwrap();
        for img in &input.images {
            assert!(img.cubin().unwrap().is_ok());
        }
        assert!(s.hot.len() >= 4, "{:?}", s.hot);
    }
}

/// The mutations are not all rejected at the ELF header: a deterministic
/// run reaches successes and errors from several layers of the reader.
#[test]
fn mutations_reach_every_layer_of_the_reader() {
    use proptest::strategy::ValueTree;
    use proptest::test_runner::TestRunner;
    let mut runner = TestRunner::deterministic();
    let strategy = (0usize..4, prop::collection::vec(edit(), 1..6));
    let mut outcomes = std::collections::BTreeSet::new();
    for _ in 0..2000 {
        let (which, edits) = strategy.new_tree(&mut runner).unwrap().current();
        let data = apply(&samples()[which], &edits);
        let outcome = match image::read(&data).map(|input| input.images.first().and_then(|i| i.cubin())) {
            Ok(Some(Ok(c))) if !c.kernels.is_empty() => "read with kernels".to_owned(),
            Ok(Some(Ok(_)) | None) => "read".to_owned(),
            Err(e) | Ok(Some(Err(e))) => format!("{e:?}").split([' ', '(', '{']).next().unwrap_or_default().to_owned(),
        };
        outcomes.insert(outcome);
    }
    assert!(outcomes.contains("read with kernels"), "{outcomes:?}");
    assert!(outcomes.len() >= 6, "too few distinct outcomes: {outcomes:?}");
}

proptest! {
    #![proptest_config(config(6000))]

    #[test]
    fn mutated_images_never_panic(which in 0usize..4, edits in prop::collection::vec(edit(), 1..6)) {
        let sample = &samples()[which];
        read_everything(&apply(sample, &edits));
    }
}

proptest! {
    #![proptest_config(config(2000))]

    #[test]
    fn random_bytes_never_panic(prefix in prop_oneof![Just(&b""[..]), Just(&b"\x7fELF\x02\x01\x01"[..]), Just(&[0x10u8, 0xff, 0x10, 0xad][..])],
                                body in prop::collection::vec(any::<u8>(), 0..512)) {
        let mut data = prefix.to_vec();
        data.extend(body);
        read_everything(&data);
        prop_assert!(image::read(&data).is_err() || data.starts_with(&[0x10, 0xff, 0x10, 0xad]) || data.starts_with(b"\x7fELF"));
    }
}
