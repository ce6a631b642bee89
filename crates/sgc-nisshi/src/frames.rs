//! The few fields of Kafka frames the front reads itself: a request's API key and version, a
//! produce's `acks`, and the API list of an `ApiVersions` response (to add the streams group
//! APIs to Nisshi's). Every read is checked: a frame that does not read is left as it is.

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
    /// A nullable string of the classic encoding (`i16` length).
    fn skip_string(&mut self) -> Option<()> {
        let n = self.i16()?;
        if n > 0 {
            self.take(n as usize)?;
        }
        Some(())
    }
    /// A compact nullable string (length + 1 as an unsigned varint).
    fn skip_compact_string(&mut self) -> Option<()> {
        let n = self.uvarint()?;
        if n > 1 {
            self.take(usize::try_from(n - 1).ok()?)?;
        }
        Some(())
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

fn put_uvarint(out: &mut Vec<u8>, mut v: u64) {
    while v >= 0x80 {
        out.push((v as u8 & 0x7f) | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

/// Whether a frame is a `Produce` with `acks=0`, which Kafka does not answer.
pub fn produce_without_answer(frame: &[u8]) -> bool {
    produce_acks(frame) == Some(0)
}

fn produce_acks(frame: &[u8]) -> Option<i16> {
    if api_key(frame)? != 0 {
        return None;
    }
    let version = api_version(frame)?;
    let mut c = Cursor {
        bytes: frame,
        at: 8,
    };
    // The client id is a classic nullable string in every request header version.
    c.skip_string()?;
    let flexible = version >= 9;
    if flexible {
        c.skip_tagged_fields()?;
    }
    if version >= 3 {
        if flexible {
            c.skip_compact_string()?;
        } else {
            c.skip_string()?;
        }
    }
    c.i16()
}

/// An `ApiVersions` response of `version` with `extra` added to its API list (those it lists
/// already are left as they are); `None` when it does not read or answers an error.
pub fn add_api_versions(response: &[u8], version: i16, extra: &[ApiRange]) -> Option<Vec<u8>> {
    // The response header is version 0 (a correlation id) for every ApiVersions version.
    let mut c = Cursor {
        bytes: response,
        at: 4,
    };
    if c.i16()? != 0 {
        return None;
    }
    let count_at = c.at;
    let flexible = version >= 3;
    let count = if flexible {
        usize::try_from(c.uvarint()?.checked_sub(1)?).ok()?
    } else {
        usize::try_from(c.i32()?).ok()?
    };
    let entries_at = c.at;
    let mut keys = Vec::with_capacity(count);
    for _ in 0..count {
        keys.push(c.i16()?);
        c.take(4)?;
        if flexible {
            c.skip_tagged_fields()?;
        }
    }
    let end = c.at;
    let added: Vec<&ApiRange> = extra.iter().filter(|a| !keys.contains(&a.key)).collect();
    let mut out = Vec::with_capacity(response.len() + added.len() * 7);
    out.extend_from_slice(&response[..count_at]);
    let total = count + added.len();
    if flexible {
        put_uvarint(&mut out, total as u64 + 1);
    } else {
        out.extend_from_slice(&i32::try_from(total).ok()?.to_be_bytes());
    }
    out.extend_from_slice(&response[entries_at..end]);
    for a in added {
        out.extend_from_slice(&a.key.to_be_bytes());
        out.extend_from_slice(&a.min.to_be_bytes());
        out.extend_from_slice(&a.max.to_be_bytes());
        if flexible {
            out.push(0);
        }
    }
    if flexible {
        // Throttle time, then the response's tagged fields: those at their defaults are left
        // out, as Kafka's broker leaves them out (librdkafka 2.0 does not read Nisshi's
        // `FinalizedFeaturesEpoch` of -1).
        let throttle = c.take(4)?;
        out.extend_from_slice(throttle);
        let count = c.uvarint()?;
        let mut kept = Vec::new();
        let mut n = 0u64;
        for _ in 0..count {
            let tag_at = c.at;
            let tag = c.uvarint()?;
            let size = usize::try_from(c.uvarint()?).ok()?;
            let data = c.take(size)?;
            if !is_default_tag(tag, data) {
                kept.extend_from_slice(&response[tag_at..c.at]);
                n += 1;
            }
        }
        put_uvarint(&mut out, n);
        out.extend_from_slice(&kept);
        out.extend_from_slice(&response[c.at..]);
    } else {
        out.extend_from_slice(&response[end..]);
    }
    Some(out)
}

/// Whether an `ApiVersions` response's tagged field holds its default: no supported or
/// finalized features (an empty compact array), a finalized features epoch of -1, not ready for
/// a ZooKeeper migration.
fn is_default_tag(tag: u64, data: &[u8]) -> bool {
    match tag {
        0 | 2 => data == [1],
        1 => data == [0xff; 8],
        3 => data == [0],
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn range(key: i16) -> ApiRange {
        ApiRange {
            key,
            name: "x",
            min: 0,
            max: 1,
        }
    }

    #[test]
    fn apis_are_added_to_a_flexible_answer() {
        // correlation 7, no error, one API (18, 0..4, no tags), throttle 0, no tags.
        let mut r = vec![0, 0, 0, 7, 0, 0, 2, 0, 18, 0, 0, 0, 4, 0];
        // Throttle 0; tags: FinalizedFeaturesEpoch -1 (left out), ZkMigrationReady true (kept).
        r.extend_from_slice(&[0, 0, 0, 0, 2, 1, 8, 255, 255, 255, 255, 255, 255, 255, 255]);
        r.extend_from_slice(&[3, 1, 1]);
        let out = add_api_versions(&r, 3, &[range(88), range(18)]).unwrap();
        let mut want = vec![
            0, 0, 0, 7, 0, 0, 3, 0, 18, 0, 0, 0, 4, 0, 0, 88, 0, 0, 0, 1, 0,
        ];
        want.extend_from_slice(&[0, 0, 0, 0, 1, 3, 1, 1]);
        assert_eq!(out, want);
    }

    #[test]
    fn apis_are_added_to_a_classic_answer() {
        let r = vec![0, 0, 0, 7, 0, 0, 0, 0, 0, 1, 0, 18, 0, 0, 0, 2];
        let out = add_api_versions(&r, 0, &[range(89)]).unwrap();
        let want = vec![
            0, 0, 0, 7, 0, 0, 0, 0, 0, 2, 0, 18, 0, 0, 0, 2, 0, 89, 0, 0, 0, 1,
        ];
        assert_eq!(out, want);
    }

    #[test]
    fn an_error_answer_or_a_short_one_is_left_alone() {
        assert!(add_api_versions(&[0, 0, 0, 7, 0, 35, 0, 0, 0, 0], 0, &[range(88)]).is_none());
        assert!(add_api_versions(&[0, 0, 0, 7, 0, 0, 5], 3, &[range(88)]).is_none());
    }

    #[test]
    fn acks_are_read_from_produce_frames() {
        // v3: header (key 0, version 3, correlation 1, client "c"), transactional id null,
        // acks 0.
        let f = [
            0, 0, 0, 3, 0, 0, 0, 1, 0, 1, b'c', 0xff, 0xff, 0, 0, 0, 0, 0, 0,
        ];
        assert!(produce_without_answer(&f));
        // v9: flexible, compact null transactional id, acks -1.
        let f = [0, 0, 0, 9, 0, 0, 0, 1, 0, 1, b'c', 0, 0, 0xff, 0xff];
        assert!(!produce_without_answer(&f));
        assert_eq!(produce_acks(&f), Some(-1));
        assert!(!produce_without_answer(&[0, 0]));
    }
}
