//! A cursor over JSON text for the fast ways in ([`super::replay_text`], the heartbeat's
//! [`super::heartbeat_text`]): each reads the one shape of its input and answers `None` on
//! anything else, which the general path then reads and gives every error its path.

/// A cursor over the text; every step answers `None` on what it does not expect.
pub(super) struct Scan<'a> {
    src: &'a str,
    pub(super) text: &'a [u8],
    pub(super) at: usize,
}

impl<'a> Scan<'a> {
    pub(super) fn new(text: &'a str) -> Self {
        Scan {
            src: text,
            text: text.as_bytes(),
            at: 0,
        }
    }

    pub(super) fn skip_whitespace(&mut self) {
        while let Some(b' ' | b'\t' | b'\n' | b'\r') = self.text.get(self.at) {
            self.at += 1;
        }
    }

    /// Whether only whitespace is left.
    pub(super) fn at_end(&mut self) -> bool {
        self.skip_whitespace();
        self.at == self.text.len()
    }

    /// The next byte after whitespace, consumed.
    pub(super) fn next(&mut self) -> Option<u8> {
        self.skip_whitespace();
        let b = *self.text.get(self.at)?;
        self.at += 1;
        Some(b)
    }

    pub(super) fn expect(&mut self, b: u8) -> Option<()> {
        (self.next()? == b).then_some(())
    }

    /// `literal` after whitespace.
    pub(super) fn expect_text(&mut self, literal: &[u8]) -> Option<()> {
        self.skip_whitespace();
        let rest = self.text.get(self.at..)?;
        rest.starts_with(literal).then(|| self.at += literal.len())
    }

    /// `null`, consumed, or nothing consumed.
    pub(super) fn null(&mut self) -> bool {
        self.expect_text(b"null").is_some()
    }

    /// After an item of a list or object: `true` at a comma (another item follows), `false`
    /// at `close`.
    pub(super) fn more(&mut self, close: u8) -> Option<bool> {
        match self.next()? {
            b',' => Some(true),
            b if b == close => Some(false),
            _ => None,
        }
    }

    /// Whether a list or object that was just opened closes at once (`close` consumed).
    pub(super) fn empty(&mut self, close: u8) -> bool {
        self.skip_whitespace();
        let empty = self.text.get(self.at) == Some(&close);
        if empty {
            self.at += 1;
        }
        empty
    }

    /// The raw bytes of a string up to its closing quote, which is consumed (escapes are not
    /// read: a string with one is never one these scans accept).
    pub(super) fn raw_string(&mut self) -> Option<&'a [u8]> {
        self.expect(b'"')?;
        let rest = self.text.get(self.at..)?;
        let len = rest.iter().position(|&b| b == b'"')?;
        self.at += len + 1;
        rest.get(..len)
    }

    /// A string without escapes or control characters (which JSON refuses unescaped): the
    /// text between the quotes is then the string itself.
    pub(super) fn string(&mut self) -> Option<&'a str> {
        self.expect(b'"')?;
        let start = self.at;
        let rest = self.text.get(start..)?;
        let len = rest
            .iter()
            .position(|&b| b == b'"' || b == b'\\' || b < 0x20)?;
        if rest.get(len) != Some(&b'"') {
            return None;
        }
        self.at += len + 1;
        // Between two quotes (ASCII), so on character boundaries.
        self.src.get(start..start + len)
    }

    /// An object key and its colon.
    pub(super) fn key(&mut self) -> Option<&'a [u8]> {
        let key = self.raw_string()?;
        self.expect(b':')?;
        Some(key)
    }

    /// The digits of an integer of at most `max` digits written as JSON writes it (no leading
    /// zero, no fraction or exponent), consumed.
    fn digits(&mut self, max: usize) -> Option<&'a [u8]> {
        let rest = self.text.get(self.at..)?;
        let count = rest.iter().take_while(|b| b.is_ascii_digit()).count();
        let digits = rest.get(..count)?;
        if count == 0 || count > max || (count > 1 && digits.first() == Some(&b'0')) {
            return None;
        }
        if let Some(b'.' | b'e' | b'E') = rest.get(count) {
            return None;
        }
        self.at += count;
        Some(digits)
    }

    /// A non-negative integer of at most 18 digits (what an `i64` holds whatever the digits).
    pub(super) fn natural(&mut self) -> Option<i64> {
        self.skip_whitespace();
        let digits = self.digits(18)?;
        Some(
            digits
                .iter()
                .fold(0i64, |n, &d| n * 10 + i64::from(d - b'0')),
        )
    }

    /// An `i32` (`-0` is left to the general path).
    pub(super) fn int32(&mut self) -> Option<i32> {
        self.skip_whitespace();
        let negative = self.text.get(self.at) == Some(&b'-');
        if negative {
            self.at += 1;
        }
        let digits = self.digits(10)?;
        let n = digits
            .iter()
            .fold(0i64, |n, &d| n * 10 + i64::from(d - b'0'));
        match negative {
            true if n == 0 => None,
            true => i32::try_from(-n).ok(),
            false => i32::try_from(n).ok(),
        }
    }

    /// `true` or `false`.
    pub(super) fn boolean(&mut self) -> Option<bool> {
        if self.expect_text(b"true").is_some() {
            return Some(true);
        }
        self.expect_text(b"false").map(|()| false)
    }
}

/// `text` with one byte replaced (`edit` 0), inserted (1) or removed (2) at `at`: the mutants
/// the scans' property tests compare with serde's reading; `None` when the edit split a
/// character.
#[cfg(all(test, not(target_arch = "wasm32")))]
pub(super) fn mutant(
    text: &str,
    at: proptest::sample::Index,
    edit: u8,
    byte: u8,
) -> Option<String> {
    let mut bytes = text.as_bytes().to_vec();
    let i = at.index(bytes.len());
    match edit {
        0 => bytes[i] = byte,
        1 => bytes.insert(i, byte),
        _ => {
            bytes.remove(i);
        }
    }
    String::from_utf8(bytes).ok()
}
