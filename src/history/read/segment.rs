//! Raw `__consumer_offsets` log segments: Kafka's record batch format (magic 2), read in
//! place. Control batches (transaction markers) are skipped; a compressed batch is an error
//! that says how to read it (decompressed, or as the dump-log text).

use super::{pos_err, LogError, RawEntry, Source};

struct Reader<'a> {
    bytes: &'a [u8],
    pos: usize,
}

impl<'a> Reader<'a> {
    fn take(&mut self, n: usize) -> Result<&'a [u8], LogError> {
        let end = self
            .pos
            .checked_add(n)
            .filter(|&e| e <= self.bytes.len())
            .ok_or_else(|| pos_err(self.pos, "the segment ends in the middle of a record batch"))?;
        let s = self.bytes.get(self.pos..end).unwrap_or_default();
        self.pos = end;
        Ok(s)
    }

    fn int<const N: usize>(&mut self) -> Result<[u8; N], LogError> {
        let mut out = [0u8; N];
        out.copy_from_slice(self.take(N)?);
        Ok(out)
    }

    fn varlong(&mut self) -> Result<i64, LogError> {
        let start = self.pos;
        let mut raw: u64 = 0;
        for shift in (0..70).step_by(7) {
            let b = *self.take(1)?.first().unwrap_or(&0);
            if shift >= 64 {
                return Err(pos_err(start, "a varint is too long"));
            }
            raw |= u64::from(b & 0x7f) << shift;
            if b & 0x80 == 0 {
                return Ok(((raw >> 1) as i64) ^ -((raw & 1) as i64));
            }
        }
        Err(pos_err(start, "a varint is too long"))
    }

    /// A varint-length-prefixed byte string; `None` for length -1.
    fn bytes(&mut self) -> Result<Option<&'a [u8]>, LogError> {
        let at = self.pos;
        let len = self.varlong()?;
        if len < 0 {
            return Ok(None);
        }
        let len = usize::try_from(len).map_err(|_| pos_err(at, "a length is out of range"))?;
        self.take(len).map(Some)
    }
}

pub(super) fn parse_segment(bytes: &[u8]) -> Result<Vec<RawEntry<'_>>, LogError> {
    let mut entries = Vec::new();
    let mut r = Reader { bytes, pos: 0 };
    let mut batch_no = 0u64;
    while r.pos < bytes.len() {
        let batch_start = r.pos;
        if bytes.len() - r.pos < 12 {
            // A preallocated segment ends in zeros; a partial header otherwise.
            if bytes
                .get(r.pos..)
                .unwrap_or_default()
                .iter()
                .all(|&b| b == 0)
            {
                break;
            }
            return Err(pos_err(
                r.pos,
                "the segment ends in the middle of a record batch header",
            ));
        }
        let base_offset = i64::from_be_bytes(r.int::<8>()?);
        let length = i32::from_be_bytes(r.int::<4>()?);
        if length == 0 && base_offset == 0 {
            break; // preallocated zeros
        }
        let length = usize::try_from(length)
            .ok()
            .filter(|&l| l >= 49)
            .ok_or_else(|| {
                pos_err(
                    batch_start,
                    format!("record batch length {length} is not valid"),
                )
            })?;
        let body = r.take(length)?;
        let mut b = Reader {
            bytes: body,
            pos: 0,
        };
        let fix = |e: LogError| LogError {
            position: e.position.map(|p| batch_start + 12 + p),
            ..e
        };
        let _leader_epoch = b.int::<4>().map_err(fix)?;
        let magic = b.int::<1>().map_err(fix)?[0];
        if magic != 2 {
            return Err(pos_err(
                batch_start,
                format!(
                    "record batch magic {magic}: only the v2 format (Kafka 0.11 and later) is read"
                ),
            ));
        }
        let _crc = b.int::<4>().map_err(fix)?;
        let attributes = i16::from_be_bytes(b.int::<2>().map_err(fix)?);
        let _last_offset_delta = b.int::<4>().map_err(fix)?;
        let base_ts = i64::from_be_bytes(b.int::<8>().map_err(fix)?);
        let _max_ts = b.int::<8>().map_err(fix)?;
        let _producer = b.int::<8>().map_err(fix)?;
        let _producer_epoch = b.int::<2>().map_err(fix)?;
        let _base_seq = b.int::<4>().map_err(fix)?;
        let n = i32::from_be_bytes(b.int::<4>().map_err(fix)?);
        let this_batch = batch_no;
        batch_no += 1;
        if attributes & 0x20 != 0 {
            continue; // a control batch (transaction markers)
        }
        if attributes & 0x07 != 0 {
            return Err(pos_err(
                batch_start,
                "a compressed record batch: decompress the segment first (kafka-dump-log.sh --offsets-decoder prints it as text, which is read too)",
            ));
        }
        for _ in 0..n.max(0) {
            let at = batch_start + 12 + b.pos;
            let _len = b.varlong().map_err(fix)?;
            let _attr = b.int::<1>().map_err(fix)?;
            let ts_delta = b.varlong().map_err(fix)?;
            let offset_delta = b.varlong().map_err(fix)?;
            let key = b.bytes().map_err(fix)?;
            let value = b.bytes().map_err(fix)?;
            let headers = b.varlong().map_err(fix)?;
            for _ in 0..headers.max(0) {
                b.bytes().map_err(fix)?;
                b.bytes().map_err(fix)?;
            }
            let Some(key) = key else {
                return Err(pos_err(at, "a record without a key"));
            };
            entries.push(RawEntry {
                line: None,
                position: Some(at),
                offset: Some(base_offset.saturating_add(offset_delta)),
                timestamp_ms: Some(base_ts.saturating_add(ts_delta)),
                batch: Some(this_batch),
                source: Source::Bytes(key, value),
            });
        }
    }
    Ok(entries)
}
