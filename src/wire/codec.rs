//! Kafka's primitive types on the wire, for the generated messages: a bounds-checked reader
//! whose every length and count is checked against the bytes left before anything is
//! allocated, and the writers.

/// Elements allocated up front for an array of structs or strings: the rest grow as they are
/// read, so a hostile count costs no more than the bytes that back it.
pub const MAX_PRESIZED: usize = 64;

/// Bytes that cannot be read as the message: where, and why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WireError {
    /// The schema's name of the field being read.
    pub field: &'static str,
    /// What is wrong.
    pub message: String,
}

impl std::fmt::Display for WireError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "cannot read {}: {}", self.field, self.message)
    }
}

fn error(field: &'static str, message: impl Into<String>) -> WireError {
    WireError {
        field,
        message: message.into(),
    }
}

/// Reads a message from a byte slice.
pub struct Reader<'a> {
    buf: &'a [u8],
    pos: usize,
}

macro_rules! fixed {
    ($name:ident, $t:ty, $n:expr) => {
        /// A big-endian fixed-width value.
        #[inline]
        pub fn $name(&mut self, field: &'static str) -> Result<$t, WireError> {
            let b = self.take($n, field)?;
            let mut a = [0u8; $n];
            a.copy_from_slice(b);
            Ok(<$t>::from_be_bytes(a))
        }
    };
}

impl<'a> Reader<'a> {
    /// A reader at the start of `buf`.
    pub fn new(buf: &'a [u8]) -> Self {
        Reader { buf, pos: 0 }
    }

    /// Bytes not read yet.
    pub fn remaining(&self) -> usize {
        self.buf.len() - self.pos
    }

    /// Bytes read so far.
    pub fn position(&self) -> usize {
        self.pos
    }

    /// The next `n` bytes.
    #[inline]
    pub fn take(&mut self, n: usize, field: &'static str) -> Result<&'a [u8], WireError> {
        match self.buf.get(self.pos..self.pos.saturating_add(n)) {
            Some(b) => {
                self.pos += n;
                Ok(b)
            }
            None => Err(self.short(n, field)),
        }
    }

    #[cold]
    fn short(&self, n: usize, field: &'static str) -> WireError {
        error(field, format!("needs {n} bytes, {} left", self.remaining()))
    }

    /// Skips `n` bytes (an unknown tagged field).
    pub fn skip(&mut self, n: usize, field: &'static str) -> Result<(), WireError> {
        self.take(n, field).map(|_| ())
    }

    /// A reader over the next `n` bytes (a tagged field's value).
    pub fn sub(&mut self, n: usize, field: &'static str) -> Result<Reader<'a>, WireError> {
        self.take(n, field).map(Reader::new)
    }

    fixed!(i8, i8, 1);
    fixed!(i16, i16, 2);
    fixed!(u16, u16, 2);
    fixed!(i32, i32, 4);
    fixed!(i64, i64, 8);
    fixed!(f64, f64, 8);

    /// A boolean: any non-zero byte is true, as Kafka reads it.
    #[inline]
    pub fn bool(&mut self, field: &'static str) -> Result<bool, WireError> {
        Ok(self.i8(field)? != 0)
    }

    /// A UUID's 16 bytes.
    #[inline]
    pub fn uuid(&mut self, field: &'static str) -> Result<[u8; 16], WireError> {
        let mut a = [0u8; 16];
        a.copy_from_slice(self.take(16, field)?);
        Ok(a)
    }

    /// An unsigned varint of at most 5 bytes (32 bits).
    #[inline]
    pub fn uvarint(&mut self, field: &'static str) -> Result<u32, WireError> {
        // Most varints (lengths, counts, tagged field counts) are one byte.
        if let Some(&b) = self.buf.get(self.pos) {
            if b < 0x80 {
                self.pos += 1;
                return Ok(u32::from(b));
            }
        }
        self.uvarint_long(field)
    }

    fn uvarint_long(&mut self, field: &'static str) -> Result<u32, WireError> {
        let mut value: u32 = 0;
        for i in 0..5 {
            let b = self.take(1, field)?[0];
            if i == 4 && b > 0x0f {
                return Err(error(field, "varint longer than 32 bits"));
            }
            value |= u32::from(b & 0x7f) << (7 * i);
            if b & 0x80 == 0 {
                return Ok(value);
            }
        }
        Err(error(field, "varint longer than 32 bits"))
    }

    /// A length: an int16 (strings), int32 (bytes, arrays), or in flexible versions an
    /// unsigned varint of length + 1; `None` for null.
    #[inline]
    fn length(
        &mut self,
        flexible: bool,
        wide: bool,
        field: &'static str,
    ) -> Result<Option<usize>, WireError> {
        let n: i64 = if flexible {
            i64::from(self.uvarint(field)?) - 1
        } else if wide {
            i64::from(self.i32(field)?)
        } else {
            i64::from(self.i16(field)?)
        };
        match n {
            -1 => Ok(None),
            n if n < 0 => Err(error(field, format!("negative length {n}"))),
            n => Ok(Some(n as usize)),
        }
    }

    #[inline]
    fn text(&mut self, len: usize, field: &'static str) -> Result<String, WireError> {
        if len > i16::MAX as usize {
            return Err(error(
                field,
                format!("string of {len} bytes, longer than 32767"),
            ));
        }
        let b = self.take(len, field)?;
        std::str::from_utf8(b)
            .map(str::to_string)
            .map_err(|_| error(field, "invalid UTF-8"))
    }

    /// A string that may be null.
    #[inline]
    pub fn nullable_string(
        &mut self,
        flexible: bool,
        field: &'static str,
    ) -> Result<Option<String>, WireError> {
        match self.length(flexible, false, field)? {
            None => Ok(None),
            Some(n) => self.text(n, field).map(Some),
        }
    }

    /// A string where the version does not allow null.
    #[inline]
    pub fn string(&mut self, flexible: bool, field: &'static str) -> Result<String, WireError> {
        self.nullable_string(flexible, field)?
            .ok_or_else(|| error(field, "null where the version does not allow it"))
    }

    /// [`Reader::string`] into `s` (cleared first, its buffer kept): a message read again
    /// into the same struct allocates nothing for a string that fits.
    #[inline]
    pub fn string_into(
        &mut self,
        flexible: bool,
        field: &'static str,
        s: &mut String,
    ) -> Result<(), WireError> {
        match self.length(flexible, false, field)? {
            None => Err(error(field, "null where the version does not allow it")),
            Some(n) => self.text_into(n, field, s),
        }
    }

    /// [`Reader::nullable_string`] into `s`, a kept string's buffer reused.
    #[inline]
    pub fn nullable_string_into(
        &mut self,
        flexible: bool,
        field: &'static str,
        s: &mut Option<String>,
    ) -> Result<(), WireError> {
        match self.length(flexible, false, field)? {
            None => {
                *s = None;
                Ok(())
            }
            Some(n) => self.text_into(n, field, s.get_or_insert_with(String::new)),
        }
    }

    #[inline]
    fn text_into(
        &mut self,
        len: usize,
        field: &'static str,
        s: &mut String,
    ) -> Result<(), WireError> {
        if len > i16::MAX as usize {
            return Err(error(
                field,
                format!("string of {len} bytes, longer than 32767"),
            ));
        }
        let b = self.take(len, field)?;
        let text = std::str::from_utf8(b).map_err(|_| error(field, "invalid UTF-8"))?;
        s.clear();
        s.push_str(text);
        Ok(())
    }

    /// Bytes that may be null.
    pub fn nullable_bytes(
        &mut self,
        flexible: bool,
        field: &'static str,
    ) -> Result<Option<Vec<u8>>, WireError> {
        match self.length(flexible, true, field)? {
            None => Ok(None),
            Some(n) => self.take(n, field).map(|b| Some(b.to_vec())),
        }
    }

    /// Bytes where the version does not allow null.
    pub fn bytes(&mut self, flexible: bool, field: &'static str) -> Result<Vec<u8>, WireError> {
        self.nullable_bytes(flexible, field)?
            .ok_or_else(|| error(field, "null where the version does not allow it"))
    }

    /// An array's element count, checked against the bytes left (each element takes at least
    /// `min` bytes); `None` for null.
    #[inline]
    pub fn nullable_array_len(
        &mut self,
        flexible: bool,
        min: usize,
        field: &'static str,
    ) -> Result<Option<usize>, WireError> {
        let n = self.length(flexible, true, field)?;
        if let Some(n) = n {
            if n.saturating_mul(min.max(1)) > self.remaining() {
                return Err(error(
                    field,
                    format!("{n} elements in {} bytes", self.remaining()),
                ));
            }
        }
        Ok(n)
    }

    /// An array's element count where the version does not allow null.
    #[inline]
    pub fn array_len(
        &mut self,
        flexible: bool,
        min: usize,
        field: &'static str,
    ) -> Result<usize, WireError> {
        self.nullable_array_len(flexible, min, field)?
            .ok_or_else(|| error(field, "null where the version does not allow it"))
    }
}

/// An int8.
pub fn put_i8(w: &mut Vec<u8>, v: i8) {
    w.extend_from_slice(&v.to_be_bytes());
}
/// An int16.
pub fn put_i16(w: &mut Vec<u8>, v: i16) {
    w.extend_from_slice(&v.to_be_bytes());
}
/// A uint16.
pub fn put_u16(w: &mut Vec<u8>, v: u16) {
    w.extend_from_slice(&v.to_be_bytes());
}
/// An int32.
pub fn put_i32(w: &mut Vec<u8>, v: i32) {
    w.extend_from_slice(&v.to_be_bytes());
}
/// An int64.
pub fn put_i64(w: &mut Vec<u8>, v: i64) {
    w.extend_from_slice(&v.to_be_bytes());
}
/// A float64.
pub fn put_f64(w: &mut Vec<u8>, v: f64) {
    w.extend_from_slice(&v.to_be_bytes());
}
/// A boolean as one byte.
pub fn put_bool(w: &mut Vec<u8>, v: bool) {
    w.push(u8::from(v));
}
/// A UUID.
pub fn put_uuid(w: &mut Vec<u8>, v: [u8; 16]) {
    w.extend_from_slice(&v);
}
/// An unsigned varint.
pub fn put_uvarint(w: &mut Vec<u8>, mut v: u32) {
    while v >= 0x80 {
        w.push((v as u8 & 0x7f) | 0x80);
        v >>= 7;
    }
    w.push(v as u8);
}

fn put_length(w: &mut Vec<u8>, n: Option<usize>, flexible: bool, wide: bool) {
    match (flexible, n) {
        (true, None) => put_uvarint(w, 0),
        (true, Some(n)) => put_uvarint(w, u32::try_from(n + 1).unwrap_or(u32::MAX)),
        (false, None) if wide => put_i32(w, -1),
        (false, None) => put_i16(w, -1),
        (false, Some(n)) if wide => put_i32(w, i32::try_from(n).unwrap_or(i32::MAX)),
        (false, Some(n)) => put_i16(w, i16::try_from(n).unwrap_or(i16::MAX)),
    }
}

/// A string.
pub fn put_string(w: &mut Vec<u8>, s: &str, flexible: bool) {
    put_length(w, Some(s.len()), flexible, false);
    w.extend_from_slice(s.as_bytes());
}
/// A null string.
pub fn put_null(w: &mut Vec<u8>, flexible: bool) {
    put_length(w, None, flexible, false);
}
/// Bytes.
pub fn put_bytes(w: &mut Vec<u8>, b: &[u8], flexible: bool) {
    put_length(w, Some(b.len()), flexible, true);
    w.extend_from_slice(b);
}
/// An array's element count.
pub fn put_array_len(w: &mut Vec<u8>, n: usize, flexible: bool) {
    put_length(w, Some(n), flexible, true);
}
/// A null array.
pub fn put_null_array(w: &mut Vec<u8>, flexible: bool) {
    put_length(w, None, flexible, true);
}

#[cfg(test)]
mod tests {
    use super::*;
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    #[test]
    fn varints_round_trip_and_refuse_more_than_32_bits() {
        for v in [0u32, 1, 127, 128, 300, 16_383, 16_384, u32::MAX] {
            let mut w = Vec::new();
            put_uvarint(&mut w, v);
            assert_eq!(Reader::new(&w).uvarint("x"), Ok(v));
        }
        assert!(Reader::new(&[0xff, 0xff, 0xff, 0xff, 0x1f])
            .uvarint("x")
            .is_err());
        assert!(Reader::new(&[0x80]).uvarint("x").is_err());
    }

    #[test]
    fn lengths_are_checked_before_anything_is_taken() {
        // A count of 2^31 - 1 int32s in 4 bytes.
        let mut r = Reader::new(&[0x7f, 0xff, 0xff, 0xff, 0, 0, 0, 0]);
        let e = r.array_len(false, 4, "Partitions").unwrap_err();
        assert_eq!(e.field, "Partitions");
        // A compact string longer than the frame; invalid UTF-8; null where not allowed.
        assert!(Reader::new(&[10, b'a']).string(true, "s").is_err());
        assert!(Reader::new(&[2, 0xff]).string(true, "s").is_err());
        assert!(Reader::new(&[0]).string(true, "s").is_err());
        assert_eq!(Reader::new(&[0]).nullable_string(true, "s"), Ok(None));
        assert_eq!(
            Reader::new(&[0xff, 0xff]).nullable_string(false, "s"),
            Ok(None)
        );
        assert!(Reader::new(&[0xff, 0xfe])
            .nullable_string(false, "s")
            .is_err());
    }

    #[test]
    fn strings_round_trip_in_both_forms() {
        for flexible in [false, true] {
            let mut w = Vec::new();
            put_string(&mut w, "héllo", flexible);
            put_null(&mut w, flexible);
            put_null_array(&mut w, flexible);
            let mut r = Reader::new(&w);
            assert_eq!(r.string(flexible, "a").as_deref(), Ok("héllo"));
            assert_eq!(r.nullable_string(flexible, "b"), Ok(None));
            assert_eq!(r.nullable_array_len(flexible, 1, "c"), Ok(None));
            assert_eq!(r.remaining(), 0);
        }
    }
}
