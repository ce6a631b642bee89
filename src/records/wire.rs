//! Kafka's primitive encodings (PROTOCOL 5.6): big-endian integers, unsigned varints,
//! int16-length key strings, compact strings and arrays, and tagged-field sections.
//!
//! Reading never panics and never allocates more than the remaining input can justify: every
//! length is checked against the bytes that are left before anything is allocated.

use bytes::{Buf, BufMut};

use super::model::Uuid;

/// Kafka refuses strings longer than this (`0x7fff` bytes) in keys and values alike.
pub(crate) const MAX_STRING_BYTES: usize = 0x7fff;

fn utf8(raw: &[u8]) -> WireResult<&str> {
    std::str::from_utf8(raw).map_err(|e| WireError::new(format!("invalid UTF-8: {e}")))
}

/// The last `N` strings read from one input, which a string with the same bytes is taken
/// from without checking its UTF-8 again: a log read back repeats its group id in every
/// record, a member's id over its records in a row, and a few subtopology ids throughout.
#[cfg(feature = "replay-text")]
#[derive(Clone, Copy, Debug)]
pub(crate) struct Recent<'a, const N: usize> {
    strs: [&'a str; N],
    /// The slot the next new string takes.
    next: usize,
}

#[cfg(feature = "replay-text")]
impl<'a, const N: usize> Recent<'a, N> {
    pub(crate) const fn new() -> Self {
        Recent {
            strs: [""; N],
            next: 0,
        }
    }

    /// `raw` as a string: a recent one with the same bytes, else checked and kept.
    fn get(&mut self, raw: &'a [u8]) -> WireResult<&'a str> {
        if let Some(&known) = self.strs.iter().find(|s| s.as_bytes() == raw) {
            return Ok(known);
        }
        let s = utf8(raw)?;
        if let Some(slot) = self.strs.get_mut(self.next) {
            *slot = s;
            self.next = (self.next + 1) % N;
        }
        Ok(s)
    }
}

/// One step of a path to the field where decoding stopped.
#[derive(Clone, Debug)]
enum Seg {
    Field(&'static str),
    Index(usize),
}

/// A decoding failure; the path is collected innermost-first while the error bubbles up, so
/// the success path never builds strings. Boxed: a reader's every `Result` is then a value or
/// one pointer, returned in registers rather than through memory.
#[derive(Clone, Debug)]
pub(crate) struct WireError(Box<Failure>);

#[derive(Clone, Debug)]
struct Failure {
    path: Vec<Seg>,
    message: String,
}

impl WireError {
    pub(crate) fn new(message: impl Into<String>) -> Self {
        WireError(Box::new(Failure {
            path: Vec::new(),
            message: message.into(),
        }))
    }

    /// `root.a[0].b` for a root name such as `CurrentMemberAssignmentValue`.
    pub(crate) fn render(&self, root: &str) -> (String, String) {
        let mut field = String::from(root);
        for seg in self.0.path.iter().rev() {
            match seg {
                Seg::Field(name) => {
                    field.push('.');
                    field.push_str(name);
                }
                Seg::Index(i) => {
                    field.push('[');
                    field.push_str(&i.to_string());
                    field.push(']');
                }
            }
        }
        (field, self.0.message.clone())
    }
}

pub(crate) type WireResult<T> = Result<T, WireError>;

/// Adds path steps to an error on its way up.
pub(crate) trait Context<T> {
    fn at(self, field: &'static str) -> WireResult<T>;
    fn index(self, i: usize) -> WireResult<T>;
}

impl<T> Context<T> for WireResult<T> {
    fn at(self, field: &'static str) -> WireResult<T> {
        self.map_err(|mut e| {
            e.0.path.push(Seg::Field(field));
            e
        })
    }

    fn index(self, i: usize) -> WireResult<T> {
        self.map_err(|mut e| {
            e.0.path.push(Seg::Index(i));
            e
        })
    }
}

fn short(e: bytes::TryGetError) -> WireError {
    WireError::new(format!(
        "needs {} bytes, only {} remain",
        e.requested, e.available
    ))
}

/// A cursor over the input.
pub(crate) struct Reader<'a> {
    buf: &'a [u8],
}

impl<'a> Reader<'a> {
    pub(crate) fn new(buf: &'a [u8]) -> Self {
        Reader { buf }
    }

    pub(crate) fn remaining(&self) -> usize {
        self.buf.len()
    }

    pub(crate) fn i8(&mut self) -> WireResult<i8> {
        self.buf.try_get_i8().map_err(short)
    }

    pub(crate) fn i16(&mut self) -> WireResult<i16> {
        self.buf.try_get_i16().map_err(short)
    }

    pub(crate) fn u16(&mut self) -> WireResult<u16> {
        self.buf.try_get_u16().map_err(short)
    }

    pub(crate) fn i32(&mut self) -> WireResult<i32> {
        self.buf.try_get_i32().map_err(short)
    }

    pub(crate) fn i64(&mut self) -> WireResult<i64> {
        self.buf.try_get_i64().map_err(short)
    }

    pub(crate) fn uuid(&mut self) -> WireResult<Uuid> {
        let mut id = [0u8; 16];
        self.buf.try_copy_to_slice(&mut id).map_err(short)?;
        Ok(Uuid(id))
    }

    /// Kafka's unsigned varint: at most 5 bytes, value within 32 bits.
    #[inline]
    pub(crate) fn uvarint(&mut self) -> WireResult<u32> {
        // Nearly every varint of a record (lengths, counts, tag counts) fits in one byte.
        if let Some((&b, rest)) = self.buf.split_first() {
            if b & 0x80 == 0 {
                self.buf = rest;
                return Ok(u32::from(b));
            }
        }
        self.long_uvarint()
    }

    /// [`Reader::uvarint`] of more than one byte, or none.
    #[cold]
    fn long_uvarint(&mut self) -> WireResult<u32> {
        let mut value: u64 = 0;
        for i in 0..5 {
            let b = self
                .buf
                .try_get_u8()
                .map_err(|_| WireError::new("truncated unsigned varint"))?;
            value |= u64::from(b & 0x7f) << (7 * i);
            if b & 0x80 == 0 {
                return u32::try_from(value)
                    .map_err(|_| WireError::new("unsigned varint exceeds 32 bits"));
            }
        }
        Err(WireError::new("unsigned varint longer than 5 bytes"))
    }

    /// The next `n` bytes, if there are that many.
    pub(crate) fn take(&mut self, n: usize) -> WireResult<&'a [u8]> {
        if n > self.buf.len() {
            return Err(WireError::new(format!(
                "needs {n} bytes, only {} remain",
                self.buf.len()
            )));
        }
        let (head, tail) = self.buf.split_at(n);
        self.buf = tail;
        Ok(head)
    }

    /// The next `len` bytes, the bytes of a string.
    fn str_bytes(&mut self, len: usize) -> WireResult<&'a [u8]> {
        if len > MAX_STRING_BYTES {
            return Err(WireError::new(format!(
                "string length {len} exceeds {MAX_STRING_BYTES}"
            )));
        }
        self.take(len)
    }

    /// The next `len` bytes as a string, borrowed.
    fn str_of(&mut self, len: usize) -> WireResult<&'a str> {
        utf8(self.str_bytes(len)?)
    }

    /// [`Reader::key_str`], taken from `recent` when one of its strings has these bytes.
    #[cfg(feature = "replay-text")]
    pub(crate) fn key_str_in<const N: usize>(
        &mut self,
        recent: &mut Recent<'a, N>,
    ) -> WireResult<&'a str> {
        let len = self.key_str_len()?;
        recent.get(self.str_bytes(len)?)
    }

    /// [`Reader::compact_str`], taken from `recent` when one of its strings has these bytes.
    #[cfg(feature = "replay-text")]
    pub(crate) fn compact_str_in<const N: usize>(
        &mut self,
        recent: &mut Recent<'a, N>,
    ) -> WireResult<&'a str> {
        let len = self.compact_str_len()?;
        recent.get(self.str_bytes(len)?)
    }

    /// A non-flexible (key) string: int16 length, never null here.
    pub(crate) fn key_string(&mut self) -> WireResult<String> {
        self.key_str().map(str::to_owned)
    }

    /// [`Reader::key_string`], borrowed.
    pub(crate) fn key_str(&mut self) -> WireResult<&'a str> {
        let len = self.key_str_len()?;
        self.str_of(len)
    }

    /// The int16 length of a key string, never null.
    fn key_str_len(&mut self) -> WireResult<usize> {
        let len = self.i16()?;
        usize::try_from(len)
            .map_err(|_| WireError::new(format!("null or negative string length {len}")))
    }

    /// A non-nullable compact string, borrowed.
    pub(crate) fn compact_str(&mut self) -> WireResult<&'a str> {
        let len = self.compact_str_len()?;
        self.str_of(len)
    }

    /// The length of a non-nullable compact string.
    fn compact_str_len(&mut self) -> WireResult<usize> {
        self.compact_len()?
            .ok_or_else(|| WireError::new("null in a non-nullable string"))
    }

    /// A nullable compact string, borrowed.
    pub(crate) fn compact_nullable_str(&mut self) -> WireResult<Option<&'a str>> {
        match self.compact_len()? {
            None => Ok(None),
            Some(len) => self.str_of(len).map(Some),
        }
    }

    /// The length of a compact string or array; `None` for null.
    pub(crate) fn compact_len(&mut self) -> WireResult<Option<usize>> {
        let n = self.uvarint()?;
        Ok(n.checked_sub(1).map(|n| n as usize))
    }

    pub(crate) fn compact_nullable_string(&mut self) -> WireResult<Option<String>> {
        Ok(self.compact_nullable_str()?.map(str::to_owned))
    }

    pub(crate) fn compact_string(&mut self) -> WireResult<String> {
        self.compact_str().map(str::to_owned)
    }

    /// A compact array whose elements take at least `min_elem` bytes each; `None` for null.
    pub(crate) fn compact_nullable_array<T>(
        &mut self,
        min_elem: usize,
        mut elem: impl FnMut(&mut Self) -> WireResult<T>,
    ) -> WireResult<Option<Vec<T>>> {
        let Some(len) = self.compact_len()? else {
            return Ok(None);
        };
        let justified = self.buf.len() / min_elem.max(1);
        if len > justified {
            return Err(WireError::new(format!(
                "array of {len} elements cannot fit in the {} remaining bytes",
                self.buf.len()
            )));
        }
        let mut out = Vec::with_capacity(len);
        for i in 0..len {
            out.push(elem(self).index(i)?);
        }
        Ok(Some(out))
    }

    pub(crate) fn compact_array<T>(
        &mut self,
        min_elem: usize,
        elem: impl FnMut(&mut Self) -> WireResult<T>,
    ) -> WireResult<Vec<T>> {
        self.compact_nullable_array(min_elem, elem)?
            .ok_or_else(|| WireError::new("null in a non-nullable array"))
    }

    /// A tagged-field section. `known(tag, payload)` reads a tag it knows (and returns `true`)
    /// or returns `false` to have it skipped; a known tag must use its whole payload.
    pub(crate) fn tagged_fields(
        &mut self,
        mut known: impl FnMut(u32, &mut Reader<'a>) -> WireResult<bool>,
    ) -> WireResult<()> {
        let count = self.uvarint().at("taggedFields")?;
        for _ in 0..count {
            let tag = self.uvarint().at("taggedFields")?;
            let size = self.uvarint().at("taggedFields")?;
            let payload = self.take(size as usize).at("taggedFields")?;
            let mut sub = Reader::new(payload);
            if known(tag, &mut sub)? && sub.remaining() != 0 {
                return Err(WireError::new(format!(
                    "tagged field {tag} leaves {} of its {size} bytes unread",
                    sub.remaining()
                )))
                .at("taggedFields");
            }
        }
        Ok(())
    }

    /// Refuses bytes after the end of a key or value.
    pub(crate) fn finish(&self) -> WireResult<()> {
        if self.buf.is_empty() {
            Ok(())
        } else {
            Err(WireError::new(format!(
                "{} unexpected bytes after the end",
                self.buf.len()
            )))
        }
    }
}

/// Where encoded bytes go: a buffer, or a counter that only measures.
pub(crate) trait Sink {
    fn put(&mut self, bytes: &[u8]);
}

impl Sink for Vec<u8> {
    fn put(&mut self, bytes: &[u8]) {
        self.put_slice(bytes);
    }
}

/// Measures an encoding without writing it (sizes of tagged payloads, `encoded_size`).
#[derive(Default)]
pub(crate) struct Counter(pub usize);

impl Sink for Counter {
    fn put(&mut self, bytes: &[u8]) {
        self.0 += bytes.len();
    }
}

pub(crate) fn put_i8<S: Sink + ?Sized>(out: &mut S, v: i8) {
    out.put(&v.to_be_bytes());
}

pub(crate) fn put_i16<S: Sink + ?Sized>(out: &mut S, v: i16) {
    out.put(&v.to_be_bytes());
}

pub(crate) fn put_u16<S: Sink + ?Sized>(out: &mut S, v: u16) {
    out.put(&v.to_be_bytes());
}

pub(crate) fn put_i32<S: Sink + ?Sized>(out: &mut S, v: i32) {
    out.put(&v.to_be_bytes());
}

pub(crate) fn put_i64<S: Sink + ?Sized>(out: &mut S, v: i64) {
    out.put(&v.to_be_bytes());
}

pub(crate) fn put_uuid<S: Sink + ?Sized>(out: &mut S, v: &Uuid) {
    out.put(&v.0);
}

pub(crate) fn put_uvarint<S: Sink + ?Sized>(out: &mut S, mut v: u64) {
    let mut buf = [0u8; 10];
    let mut n = 0;
    while v >= 0x80 {
        buf[n] = (v as u8 & 0x7f) | 0x80;
        v >>= 7;
        n += 1;
    }
    buf[n] = v as u8;
    out.put(&buf[..=n]);
}

/// A key string. Kafka cannot represent one longer than 32767 bytes; such a string is written
/// as null, which every reader refuses, rather than as a different valid key (see
/// `check_encodable`).
pub(crate) fn put_key_string<S: Sink + ?Sized>(out: &mut S, s: &str) {
    match i16::try_from(s.len()) {
        Ok(len) => {
            put_i16(out, len);
            out.put(s.as_bytes());
        }
        Err(_) => put_i16(out, -1),
    }
}

/// A compact string (a longer string than Kafka allows is written whole; readers refuse it).
pub(crate) fn put_compact_string<S: Sink + ?Sized>(out: &mut S, s: &str) {
    put_uvarint(out, s.len() as u64 + 1);
    out.put(s.as_bytes());
}

pub(crate) fn put_compact_nullable_string<S: Sink + ?Sized>(out: &mut S, s: Option<&str>) {
    match s {
        None => put_uvarint(out, 0),
        Some(s) => put_compact_string(out, s),
    }
}

pub(crate) fn put_compact_array<S: Sink + ?Sized, T>(
    out: &mut S,
    items: &[T],
    mut elem: impl FnMut(&mut S, &T),
) {
    put_uvarint(out, items.len() as u64 + 1);
    for item in items {
        elem(out, item);
    }
}

/// The payload of a tagged field, written twice: once to measure it, once for real.
pub(crate) trait Payload {
    fn write<S: Sink + ?Sized>(&self, out: &mut S);
}

impl Payload for i32 {
    fn write<S: Sink + ?Sized>(&self, out: &mut S) {
        put_i32(out, *self);
    }
}

impl Payload for i64 {
    fn write<S: Sink + ?Sized>(&self, out: &mut S) {
        put_i64(out, *self);
    }
}

impl Payload for Uuid {
    fn write<S: Sink + ?Sized>(&self, out: &mut S) {
        put_uuid(out, self);
    }
}

/// One tagged field: tag, payload size, payload.
pub(crate) fn put_tagged<S: Sink + ?Sized, P: Payload + ?Sized>(
    out: &mut S,
    tag: u32,
    payload: &P,
) {
    let mut size = Counter(0);
    payload.write(&mut size);
    put_uvarint(out, u64::from(tag));
    put_uvarint(out, size.0 as u64);
    payload.write(out);
}

/// An empty tagged-field section.
pub(crate) fn put_no_tagged_fields<S: Sink + ?Sized>(out: &mut S) {
    put_uvarint(out, 0);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn varints_read_back_what_was_written_on_either_side_of_each_byte_boundary() {
        for v in [
            0u32,
            1,
            0x7f,
            0x80,
            0x3fff,
            0x4000,
            0x1f_ffff,
            0x20_0000,
            u32::MAX,
        ] {
            let mut out = Vec::new();
            put_uvarint(&mut out, u64::from(v));
            out.push(0xaa);
            let mut r = Reader::new(&out);
            assert_eq!(r.uvarint().ok(), Some(v), "{v:#x}");
            assert_eq!(r.remaining(), 1, "{v:#x}: only its own bytes taken");
        }
    }

    #[cfg(feature = "replay-text")]
    #[test]
    fn recent_strings_are_the_bytes_read_and_still_refuse_bad_utf8() {
        let input: Vec<u8> = [&b"\x02a\x02b\x02a\x03\xc3\xa9\x02c\x02a"[..], b"\x02\xff"].concat();
        let mut r = Reader::new(&input);
        let mut recent = Recent::<2>::new();
        let read: Vec<&str> = (0..6)
            .map(|_| r.compact_str_in(&mut recent).unwrap_or("error"))
            .collect();
        // "a" was pushed out by "é" and "c", then read again from its bytes.
        assert_eq!(read, ["a", "b", "a", "é", "c", "a"]);
        assert!(r.compact_str_in(&mut recent).is_err(), "0xff is no UTF-8");
        let mut none = Reader::new(b"\x00");
        assert!(none.compact_str_in(&mut recent).is_err(), "null");
        let mut key = Reader::new(b"\x00\x01a\x00\x01a");
        let mut one = Recent::<1>::new();
        assert_eq!(key.key_str_in(&mut one).ok(), Some("a"));
        assert_eq!(key.key_str_in(&mut one).ok(), Some("a"));
    }
}
