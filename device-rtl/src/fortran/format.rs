//! Format control of formatted output (`PRINT '(A,I5)'`, `WRITE(*, fmt)`,
//! `WRITE(string, fmt)`): the format text read as the items arrive, the
//! control edit descriptors carried out on the way to each item's data edit
//! descriptor (F2023 13.4).
//!
//! The reading keeps a stack of open groups (where each starts and how many
//! repetitions it has left) and the group format control reverts to when
//! the items outlast the format: the last group of the outer level, with
//! its repeat count, or the whole format; reversion starts a new record.
//! Nothing is parsed ahead: a format of any length costs a few words.
//!
//! Its `#[inline(never)]` functions keep the output code's registers low
//! (see "Registers" in [`super`]).

use super::memory::Addr;

/// The data edit descriptors output carries out.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    I,
    B,
    O,
    Z,
    F,
    E,
    EN,
    ES,
    D,
    G,
    L,
    A,
}

impl Kind {
    /// The descriptor's letters, for messages.
    pub fn name(self) -> &'static [u8] {
        match self {
            Kind::I => b"I",
            Kind::B => b"B",
            Kind::O => b"O",
            Kind::Z => b"Z",
            Kind::F => b"F",
            Kind::E => b"E",
            Kind::EN => b"EN",
            Kind::ES => b"ES",
            Kind::D => b"D",
            Kind::G => b"G",
            Kind::L => b"L",
            Kind::A => b"A",
        }
    }
}

/// A data edit descriptor: `Kind w.d Ee`, each number where written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DataEdit {
    pub kind: Kind,
    pub width: Option<u32>,
    pub digits: Option<u32>,
    pub exponent: Option<u32>,
}

/// The rounding modes (`RN`, `RU`, `RD`, `RZ`, `RC`; `RP` rounds as `RN`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Round {
    Nearest,
    Up,
    Down,
    Zero,
    Compatible,
}

/// The changeable modes the control edit descriptors set.
#[derive(Clone, Copy, Debug)]
pub struct Modes {
    /// `kP`.
    pub scale: i32,
    /// `SP`: a plus sign on positive numbers.
    pub plus: bool,
    pub round: Round,
}

/// What format control does next, between two data items.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Step {
    /// Edit the next item with this descriptor.
    Data(DataEdit),
    /// Write these characters of the format (a character string edit
    /// descriptor's text, `''` or `""` already halved, is read with
    /// [`Format::literal`]).
    Literal { at: usize, len: usize, quote: u8 },
    /// `nX`, `TRn`: move right.
    Right(u32),
    /// `TLn`: move left.
    Left(u32),
    /// `Tn`: to character position `n`.
    Column(u32),
    /// `/`: a new record.
    NextRecord,
    /// `:` with no item left, or the end of the format: the statement's
    /// output is complete.
    Stop,
    /// The format is malformed or asks for what the device cannot do.
    Bad(&'static [u8]),
}

/// Groups open at once (nesting depth), the outermost parentheses included.
const DEPTH: usize = 12;

/// Format control over the format text `text` of `len` bytes.
#[derive(Clone, Copy)]
pub struct Format {
    text: Addr,
    len: usize,
    /// The next character to read.
    at: usize,
    /// Open groups: where each one's items start, repetitions left after
    /// this one (`u32::MAX`: `*`).
    start: [usize; DEPTH],
    left: [u32; DEPTH],
    /// Data edit descriptors read when each open group last began.
    data_at: [u32; DEPTH],
    depth: usize,
    /// The group reversion goes back to: its start and repeat count.
    revert_at: usize,
    revert_count: u32,
    /// A data edit descriptor with a repeat count still to apply.
    repeat: Option<(DataEdit, u32)>,
    /// Records still to start for `r/`.
    slashes: u32,
    /// Data edit descriptors read, and their count at the last reversion:
    /// a pass through a `*` group or a reverted format without one would
    /// never end.
    data_count: u32,
    data_at_reversion: u32,
    pub modes: Modes,
}

impl Format {
    pub fn new(text: Addr, len: usize) -> Format {
        Format {
            text,
            len,
            at: 0,
            start: [0; DEPTH],
            left: [0; DEPTH],
            data_at: [0; DEPTH],
            depth: 0,
            revert_at: 0,
            revert_count: 0,
            repeat: None,
            slashes: 0,
            data_count: 0,
            data_at_reversion: 0,
            modes: Modes { scale: 0, plus: false, round: Round::Nearest },
        }
    }

    fn peek(&self) -> u8 {
        if self.at < self.len { self.text.plus(self.at).load::<u8>().to_ascii_uppercase() } else { 0 }
    }

    /// The next character that is not a blank.
    fn skip_blanks(&mut self) -> u8 {
        while self.at < self.len && matches!(self.peek(), b' ' | b'\t') {
            self.at += 1;
        }
        self.peek()
    }

    /// An unsigned number at the reading position, if one is there.
    fn number(&mut self) -> Option<u32> {
        let mut n: Option<u32> = None;
        while self.skip_blanks().is_ascii_digit() {
            let d = (self.peek() - b'0') as u32;
            n = Some(n.unwrap_or(0).saturating_mul(10).saturating_add(d));
            self.at += 1;
        }
        n
    }

    /// `.d` after a width, if there.
    fn dot_number(&mut self) -> Option<u32> {
        if self.skip_blanks() == b'.' {
            self.at += 1;
            return Some(self.number().unwrap_or(0));
        }
        None
    }

    /// The format's byte at `at` (of a [`Step::Literal`]).
    pub fn literal_byte(&self, at: usize) -> u8 {
        self.text.plus(at).load()
    }

    /// The next step, with `more_items` telling whether an item waits (a
    /// data edit descriptor without one, or `:`, stops the statement).
    pub fn next(&mut self, more_items: bool) -> Step {
        if self.slashes > 0 {
            self.slashes -= 1;
            return Step::NextRecord;
        }
        if let Some((edit, n)) = self.repeat {
            if !more_items {
                return Step::Stop;
            }
            self.repeat = if n > 1 { Some((edit, n - 1)) } else { None };
            return Step::Data(edit);
        }
        loop {
            let c = self.skip_blanks();
            if self.depth == 0 {
                // The format's opening parenthesis.
                if c != b'(' {
                    return Step::Bad(b"Format does not begin with '('");
                }
                self.at += 1;
                self.start[0] = self.at;
                self.left[0] = 0;
                self.depth = 1;
                self.revert_at = self.at;
                self.revert_count = 0;
                continue;
            }
            match c {
                b',' => self.at += 1,
                0 => return Step::Bad(b"Format lacks its closing ')'"),
                b')' => {
                    self.at += 1;
                    if self.depth > 1 {
                        let top = self.depth - 1;
                        if self.left[top] > 0 {
                            if self.left[top] == u32::MAX {
                                if self.data_at[top] == self.data_count {
                                    return Step::Bad(b"Format has no data edit descriptor for the items");
                                }
                            } else {
                                self.left[top] -= 1;
                            }
                            self.data_at[top] = self.data_count;
                            self.at = self.start[top];
                        } else {
                            self.depth -= 1;
                        }
                        continue;
                    }
                    // The end of the format.
                    if !more_items {
                        self.at -= 1;
                        return Step::Stop;
                    }
                    if self.data_count == self.data_at_reversion {
                        return Step::Bad(b"Format has no data edit descriptor for the items");
                    }
                    self.data_at_reversion = self.data_count;
                    self.at = self.revert_at;
                    if self.revert_at != self.start[0] {
                        self.start[1] = self.revert_at;
                        self.left[1] = self.revert_count;
                        self.depth = 2;
                    }
                    return Step::NextRecord;
                }
                b'\'' | b'"' => {
                    self.at += 1;
                    let begin = self.at;
                    while self.at < self.len {
                        if self.text.plus(self.at).load::<u8>() == c {
                            if self.at + 1 < self.len && self.text.plus(self.at + 1).load::<u8>() == c {
                                self.at += 2;
                                continue;
                            }
                            break;
                        }
                        self.at += 1;
                    }
                    if self.at >= self.len {
                        return Step::Bad(b"Unterminated character string in format");
                    }
                    self.at += 1;
                    return Step::Literal { at: begin, len: self.at - 1 - begin, quote: c };
                }
                b'/' => {
                    self.at += 1;
                    return Step::NextRecord;
                }
                b':' => {
                    self.at += 1;
                    if !more_items {
                        return Step::Stop;
                    }
                }
                b'(' => {
                    if let Some(step) = self.open_group(1) {
                        return step;
                    }
                }
                b'*' => {
                    self.at += 1;
                    if self.skip_blanks() != b'(' {
                        return Step::Bad(b"'*' repeat count not before a group");
                    }
                    if let Some(step) = self.open_group(u32::MAX) {
                        return step;
                    }
                }
                b'+' | b'-' => {
                    self.at += 1;
                    let k = self.number().unwrap_or(0) as i32;
                    if self.skip_blanks() != b'P' {
                        return Step::Bad(b"Signed number in format not followed by 'P'");
                    }
                    self.at += 1;
                    self.modes.scale = if c == b'-' { -k } else { k };
                }
                b'0'..=b'9' => {
                    let n = self.number().unwrap_or(0);
                    match self.skip_blanks() {
                        b'P' => {
                            self.at += 1;
                            self.modes.scale = n as i32;
                        }
                        b'X' => {
                            self.at += 1;
                            return Step::Right(n);
                        }
                        b'/' => {
                            // r/: r records, the first now.
                            self.at += 1;
                            self.slashes = n.saturating_sub(1);
                            return Step::NextRecord;
                        }
                        b'(' => {
                            if n == 0 {
                                return Step::Bad(b"Zero repeat count in format");
                            }
                            if let Some(step) = self.open_group(n) {
                                return step;
                            }
                        }
                        b'H' => {
                            self.at += 1;
                            let begin = self.at;
                            self.at = (self.at + n as usize).min(self.len);
                            return Step::Literal { at: begin, len: self.at - begin, quote: 0 };
                        }
                        _ => {
                            if n == 0 {
                                return Step::Bad(b"Zero repeat count in format");
                            }
                            return self.data_edit(n, more_items);
                        }
                    }
                }
                _ => {
                    if let Some(step) = self.control_or_data(more_items) {
                        return step;
                    }
                }
            }
        }
    }

    /// Opens a group repeated `count` times (`u32::MAX`: `*`).
    #[inline(never)]
    fn open_group(&mut self, count: u32) -> Option<Step> {
        if self.depth == DEPTH {
            return Some(Step::Bad(b"Format groups nested too deeply"));
        }
        self.at += 1;
        // Repetitions left after the first (`*` never runs out).
        let left = if count == u32::MAX { u32::MAX } else { count - 1 };
        if self.depth == 1 {
            self.revert_at = self.at;
            self.revert_count = left;
        }
        self.start[self.depth] = self.at;
        self.left[self.depth] = left;
        self.data_at[self.depth] = self.data_count;
        self.depth += 1;
        None
    }

    /// A control edit descriptor of letters (`T`, `TL`, `TR`, `X`, `S`,
    /// `SP`, `SS`, `BN`, `BZ`, `R?`, `DC`, `DP`) or a data edit descriptor
    /// without a repeat count.
    #[inline(never)]
    fn control_or_data(&mut self, more_items: bool) -> Option<Step> {
        let c = self.peek();
        let next = if self.at + 1 < self.len { self.text.plus(self.at + 1).load::<u8>().to_ascii_uppercase() } else { 0 };
        match (c, next) {
            (b'T', b'L' | b'R') => {
                self.at += 2;
                let n = self.number().unwrap_or(1);
                Some(if next == b'L' { Step::Left(n) } else { Step::Right(n) })
            }
            (b'T', _) => {
                self.at += 1;
                Some(Step::Column(self.number().unwrap_or(1)))
            }
            (b'X', _) => {
                self.at += 1;
                Some(Step::Right(1))
            }
            (b'S', b'P' | b'S') => {
                self.at += 2;
                self.modes.plus = next == b'P';
                None
            }
            (b'S', _) => {
                self.at += 1;
                self.modes.plus = false;
                None
            }
            (b'B', b'N' | b'Z') => {
                // Blank interpretation: for input.
                self.at += 2;
                None
            }
            (b'R', b'N' | b'U' | b'D' | b'Z' | b'C' | b'P') => {
                self.at += 2;
                self.modes.round = match next {
                    b'U' => Round::Up,
                    b'D' => Round::Down,
                    b'Z' => Round::Zero,
                    b'C' => Round::Compatible,
                    _ => Round::Nearest,
                };
                None
            }
            (b'D', b'C') => Some(Step::Bad(b"DC (decimal comma) in a format on the device")),
            (b'D', b'P') => {
                self.at += 2;
                None
            }
            (b'D', b'T') => Some(Step::Bad(b"DT (derived-type I/O) in a format on the device")),
            (b'E', b'X') => Some(Step::Bad(b"EX (hexadecimal) editing on the device")),
            _ => Some(self.data_edit(1, more_items)),
        }
    }

    /// A data edit descriptor repeated `count` times, at the reading
    /// position.
    #[inline(never)]
    fn data_edit(&mut self, count: u32, more_items: bool) -> Step {
        let c = self.peek();
        let next = if self.at + 1 < self.len { self.text.plus(self.at + 1).load::<u8>().to_ascii_uppercase() } else { 0 };
        let kind = match (c, next) {
            (b'E', b'N') => Kind::EN,
            (b'E', b'S') => Kind::ES,
            (b'I', _) => Kind::I,
            (b'B', _) => Kind::B,
            (b'O', _) => Kind::O,
            (b'Z', _) => Kind::Z,
            (b'F', _) => Kind::F,
            (b'E', _) => Kind::E,
            (b'D', _) => Kind::D,
            (b'G', _) => Kind::G,
            (b'L', _) => Kind::L,
            (b'A', _) => Kind::A,
            _ => return Step::Bad(b"Unknown edit descriptor in format"),
        };
        self.at += if matches!(kind, Kind::EN | Kind::ES) { 2 } else { 1 };
        let width = self.number();
        let digits = if width.is_some() { self.dot_number() } else { None };
        let exponent = if digits.is_some() && self.skip_blanks() == b'E' {
            self.at += 1;
            Some(self.number().unwrap_or(0))
        } else {
            None
        };
        let edit = DataEdit { kind, width, digits, exponent };
        self.data_count = self.data_count.wrapping_add(1);
        if !more_items {
            // Not taken: the statement stops here, before it.
            self.repeat = Some((edit, count));
            return Step::Stop;
        }
        if count > 1 {
            self.repeat = Some((edit, count - 1));
        }
        Step::Data(edit)
    }
}
