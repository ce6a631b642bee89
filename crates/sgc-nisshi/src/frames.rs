//! The few fields of Kafka frames read here: a request's API key and version, and the API list
//! of Nisshi's `ApiVersions` response. Every read is checked.

use streams_group_coordinator::wire::messages::versions::ApiRange;

/// A request's API key.
pub fn api_key(frame: &[u8]) -> Option<i16> {
    Some(i16::from_be_bytes([*frame.first()?, *frame.get(1)?]))
}

/// A request's API version.
pub fn api_version(frame: &[u8]) -> Option<i16> {
    Some(i16::from_be_bytes([*frame.get(2)?, *frame.get(3)?]))
}

struct Cursor<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl Cursor<'_> {
    fn take(&mut self, n: usize) -> Option<&[u8]> {
        let end = self.at.checked_add(n)?;
        let s = self.bytes.get(self.at..end)?;
        self.at = end;
        Some(s)
    }
    fn i16(&mut self) -> Option<i16> {
        let b = self.take(2)?;
        Some(i16::from_be_bytes([b[0], b[1]]))
    }
    fn i32(&mut self) -> Option<i32> {
        let b = self.take(4)?;
        Some(i32::from_be_bytes([b[0], b[1], b[2], b[3]]))
    }
    fn uvarint(&mut self) -> Option<u64> {
        let mut value = 0u64;
        for shift in (0..64).step_by(7) {
            let b = *self.take(1)?.first()?;
            value |= u64::from(b & 0x7f) << shift;
            if b & 0x80 == 0 {
                return Some(value);
            }
        }
        None
    }
    fn skip_tagged_fields(&mut self) -> Option<()> {
        let count = self.uvarint()?;
        for _ in 0..count {
            self.uvarint()?;
            let size = self.uvarint()?;
            self.take(usize::try_from(size).ok()?)?;
        }
        Some(())
    }
}

/// The APIs an `ApiVersions` response of `version` lists; `None` when it does not read or
/// answers an error.
pub fn api_list(response: &[u8], version: i16) -> Option<Vec<ApiRange>> {
    // The response header is version 0 (a correlation id) for every ApiVersions version.
    let mut c = Cursor {
        bytes: response,
        at: 4,
    };
    if c.i16()? != 0 {
        return None;
    }
    let flexible = version >= 3;
    let count = if flexible {
        usize::try_from(c.uvarint()?.checked_sub(1)?).ok()?
    } else {
        usize::try_from(c.i32()?).ok()?
    };
    let mut apis = Vec::with_capacity(count.min(1024));
    for _ in 0..count {
        let (key, min, max) = (c.i16()?, c.i16()?, c.i16()?);
        if flexible {
            c.skip_tagged_fields()?;
        }
        apis.push(ApiRange {
            key,
            name: "Nisshi",
            min,
            max,
        });
    }
    Some(apis)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_apis_of_an_answer_are_read() {
        // correlation 7, no error, two APIs (flexible: each with no tags), throttle 0, no tags.
        let r = [
            0, 0, 0, 7, 0, 0, 3, 0, 18, 0, 0, 0, 4, 0, 0, 1, 0, 0, 0, 12, 0, 0, 0, 0, 0, 0,
        ];
        let apis = api_list(&r, 3).unwrap();
        let keys: Vec<_> = apis.iter().map(|a| (a.key, a.min, a.max)).collect();
        assert_eq!(keys, [(18, 0, 4), (1, 0, 12)]);
        let r = [0, 0, 0, 7, 0, 0, 0, 0, 0, 1, 0, 18, 0, 0, 0, 2];
        assert_eq!(api_list(&r, 0).unwrap().len(), 1);
    }

    #[test]
    fn an_error_answer_or_a_short_one_is_not_read() {
        assert!(api_list(&[0, 0, 0, 7, 0, 35, 0, 0, 0, 0], 0).is_none());
        assert!(api_list(&[0, 0, 0, 7, 0, 0, 5], 3).is_none());
    }
}
