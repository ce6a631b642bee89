//! Kafka's record batch (magic 2), as a `__consumer_offsets` partition holds the coordinator's
//! records: one batch per output, so that an output is written whole or not at all. Written by
//! hosts that keep a log (`sgc serve`), read back by their recovery; `history` reads the same
//! format with its own reader (compressed batches included).

/// The bytes of a batch before its body: the base offset and the length.
pub const LOG_OVERHEAD: usize = 12;
/// The smallest body a v2 batch has: its header without records.
const MIN_BODY: usize = 49;
/// Where the CRC-covered bytes (the attributes on) start in a batch's body.
const CRC_FROM: usize = 9;

/// CRC-32C (Castagnoli, reflected polynomial 0x82F63B78): the checksum of a v2 record batch.
pub fn crc32c(bytes: &[u8]) -> u32 {
    crc32c::crc32c(bytes)
}

fn varint(out: &mut Vec<u8>, v: i64) {
    let mut z = ((v << 1) ^ (v >> 63)) as u64;
    while z >= 0x80 {
        out.push((z as u8) | 0x80);
        z >>= 7;
    }
    out.push(z as u8);
}

/// The batch attribute of a transactional batch, and of a control batch (a transaction marker).
const TRANSACTIONAL: i16 = 0x10;
const CONTROL: i16 = 0x20;
/// Where the producer id and epoch sit in a batch's body.
const PRODUCER_AT: usize = 31;

/// Appends to `out` one uncompressed batch of `records` (key, value; `None`: a tombstone) at
/// `base_offset`, every record stamped `timestamp_ms` (CreateTime), no producer: what Kafka's
/// coordinator runtime appends for a non-transactional write.
pub fn write_batch<'a>(
    out: &mut Vec<u8>,
    base_offset: i64,
    timestamp_ms: i64,
    records: impl ExactSizeIterator<Item = (&'a [u8], Option<&'a [u8]>)>,
) {
    write_batch_of(out, base_offset, timestamp_ms, None, records)
}

/// [`write_batch`] for a transactional write: the batch is transactional and carries the
/// producer's id and epoch (what Kafka's coordinator runtime appends for `TxnOffsetCommit`).
pub fn write_transactional_batch<'a>(
    out: &mut Vec<u8>,
    base_offset: i64,
    timestamp_ms: i64,
    producer: super::Producer,
    records: impl ExactSizeIterator<Item = (&'a [u8], Option<&'a [u8]>)>,
) {
    write_batch_of(out, base_offset, timestamp_ms, Some(producer), records)
}

fn write_batch_of<'a>(
    out: &mut Vec<u8>,
    base_offset: i64,
    timestamp_ms: i64,
    producer: Option<super::Producer>,
    records: impl ExactSizeIterator<Item = (&'a [u8], Option<&'a [u8]>)>,
) {
    let start = out.len();
    let count = records.len();
    out.extend(base_offset.to_be_bytes());
    out.extend(0i32.to_be_bytes()); // the length, set below
    out.extend((-1i32).to_be_bytes()); // partition leader epoch: set by the leader
    out.push(2); // magic
    out.extend(0u32.to_be_bytes()); // the CRC, set below
                                    // attributes: no compression, CreateTime; transactional with a producer
    let attributes = if producer.is_some() { TRANSACTIONAL } else { 0 };
    out.extend(attributes.to_be_bytes());
    out.extend((count.saturating_sub(1) as i32).to_be_bytes()); // last offset delta
    out.extend(timestamp_ms.to_be_bytes()); // base timestamp
    out.extend(timestamp_ms.to_be_bytes()); // max timestamp
    out.extend(producer.map_or(-1i64, |p| p.id).to_be_bytes()); // producer id
    out.extend(producer.map_or(-1i16, |p| p.epoch).to_be_bytes()); // producer epoch
    out.extend((-1i32).to_be_bytes()); // base sequence
    out.extend((count as i32).to_be_bytes());
    let mut rec = Vec::with_capacity(256);
    for (i, (key, value)) in records.enumerate() {
        rec.clear();
        rec.push(0); // attributes
        varint(&mut rec, 0); // timestamp delta
        varint(&mut rec, i as i64); // offset delta
        varint(&mut rec, key.len() as i64);
        rec.extend_from_slice(key);
        match value {
            Some(v) => {
                varint(&mut rec, v.len() as i64);
                rec.extend_from_slice(v);
            }
            None => varint(&mut rec, -1),
        }
        varint(&mut rec, 0); // headers
        varint(out, rec.len() as i64);
        out.extend_from_slice(&rec);
    }
    let length = (out.len() - start - LOG_OVERHEAD) as i32;
    out[start + 8..start + 12].copy_from_slice(&length.to_be_bytes());
    let body = start + LOG_OVERHEAD;
    let crc = crc32c(&out[body + CRC_FROM..]);
    out[body + 5..body + 9].copy_from_slice(&crc.to_be_bytes());
}

/// A record as a batch holds it: its key's bytes and its value's (`None`: a tombstone).
pub type RawRecord<'a> = (&'a [u8], Option<&'a [u8]>);

/// A whole batch whose CRC holds, found by [`scan`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BatchInfo {
    /// Where the batch starts in the scanned bytes, and where it ends.
    pub start: usize,
    /// The position after the batch.
    pub end: usize,
    /// Its first and last offsets.
    pub base_offset: i64,
    /// The offset of its last record.
    pub last_offset: i64,
}

/// Why scanning stopped before the end.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BatchDamage {
    /// Where the unreadable batch starts.
    pub position: usize,
    /// Whether it is a write cut short by a crash (the last write, never acknowledged: it may
    /// be truncated, as Kafka's recovery does) rather than damage to bytes once written whole,
    /// which must stop the partition: nothing acknowledged may be cut.
    pub at_tail: bool,
    /// What is wrong with it.
    pub reason: String,
}

/// Where a whole batch starting at `at` ends, if one does: a valid length that fits, magic 2
/// and a CRC-32C that holds.
fn whole_batch_at(bytes: &[u8], at: usize) -> Option<usize> {
    let rest = bytes.get(at..)?;
    let length = i32::from_be_bytes(rest.get(8..12)?.try_into().ok()?);
    let length = usize::try_from(length).ok().filter(|&l| l >= MIN_BODY)?;
    let body = rest.get(LOG_OVERHEAD..LOG_OVERHEAD.checked_add(length)?)?;
    let stored = u32::from_be_bytes(body[5..9].try_into().ok()?);
    (body[4] == 2 && stored == crc32c(&body[CRC_FROM..])).then_some(at + LOG_OVERHEAD + length)
}

/// Whether a whole batch starts anywhere after `pos`: then what stopped the scan at `pos` is
/// damage in the middle of the log, not a torn last write.
fn whole_batch_after(bytes: &[u8], pos: usize) -> bool {
    (pos + 1..bytes.len().saturating_sub(LOG_OVERHEAD + MIN_BODY - 1))
        // Magic 2 first: the CRC is computed only where a batch could start.
        .filter(|&q| bytes[q + 16] == 2)
        .any(|q| whole_batch_at(bytes, q).is_some())
}

/// Whether `rest` is one whole batch but for its length field: the CRC does not cover the
/// length, so a damaged length of the last batch is told from a torn write by the body.
fn whole_but_its_length(rest: &[u8]) -> bool {
    rest.len() >= LOG_OVERHEAD + MIN_BODY && {
        let body = &rest[LOG_OVERHEAD..];
        let stored = u32::from_be_bytes(body[5..9].try_into().unwrap_or_default());
        body[4] == 2 && stored == crc32c(&body[CRC_FROM..])
    }
}

/// Pages a crash never wrote read back as zeros: a last batch whose length fits but whose
/// bytes end in this many zeros is a torn write; one ending otherwise was written whole and
/// damaged since (a real batch ends in its last record's value and a zero header count).
const UNWRITTEN_ZEROS: usize = 16;

/// The whole batches of a segment, in order, up to the first that is cut short or fails its
/// check (its damage). Offsets must follow on (each batch's base offset the one after the
/// last batch's last offset): the CRC does not cover the base offset.
///
/// Only a genuinely torn last write is `at_tail`: a batch longer than what is left with no
/// whole batch after it and no whole body of its own, a header cut short, a zero-filled
/// remainder, or a last batch that fails its check and ends in unwritten (zero) bytes.
/// Anything else (a damaged length with whole batches after it or a whole body, a bit flipped
/// in a batch written whole, offsets that do not follow on) stops the partition.
pub fn scan(bytes: &[u8]) -> (Vec<BatchInfo>, Option<BatchDamage>) {
    let mut out: Vec<BatchInfo> = Vec::new();
    let mut pos = 0usize;
    while pos < bytes.len() {
        let rest = &bytes[pos..];
        let damage = |reason: String, at_tail: bool| BatchDamage {
            position: pos,
            at_tail,
            reason,
        };
        if rest.len() < LOG_OVERHEAD {
            return (out, Some(damage("a batch header cut short".into(), true)));
        }
        let base_offset = i64::from_be_bytes(rest[0..8].try_into().unwrap_or_default());
        let length = i32::from_be_bytes(rest[8..12].try_into().unwrap_or_default());
        let Some(length) = usize::try_from(length).ok().filter(|&l| l >= MIN_BODY) else {
            // A length of zeros at the end is a write that never reached the disk.
            let at_tail = rest.iter().all(|&b| b == 0);
            return (
                out,
                Some(damage(
                    format!("batch length {length} is not valid"),
                    at_tail,
                )),
            );
        };
        let Some(body) = rest.get(LOG_OVERHEAD..LOG_OVERHEAD + length) else {
            let left = rest.len() - LOG_OVERHEAD;
            let reason = if whole_batch_after(bytes, pos) {
                format!("its length says {length} bytes where {left} are left, but whole batches follow it: the length is damaged")
            } else if whole_but_its_length(rest) {
                format!("its length says {length} bytes where the {left} left are a whole batch: the length is damaged")
            } else {
                return (
                    out,
                    Some(damage(
                        format!("a batch of {length} bytes where {left} are left"),
                        true,
                    )),
                );
            };
            return (out, Some(damage(reason, false)));
        };
        let end = pos + LOG_OVERHEAD + length;
        let torn = end == bytes.len()
            && body.len() >= UNWRITTEN_ZEROS
            && body[body.len() - UNWRITTEN_ZEROS..].iter().all(|&b| b == 0);
        if body[4] != 2 {
            return (out, Some(damage(format!("batch magic {}", body[4]), torn)));
        }
        let stored = u32::from_be_bytes(body[5..9].try_into().unwrap_or_default());
        let computed = crc32c(&body[CRC_FROM..]);
        if stored != computed {
            return (
                out,
                Some(damage(
                    format!("the batch at offset {base_offset} fails its CRC-32C check (stored {stored}, computed {computed})"),
                    torn,
                )),
            );
        }
        if let Some(previous) = out.last() {
            let expected = previous.last_offset.saturating_add(1);
            if base_offset != expected {
                return (
                    out,
                    Some(damage(
                        format!("the batch's base offset {base_offset} does not follow on from the offset {} before it (expected {expected})", expected - 1),
                        false,
                    )),
                );
            }
        }
        let delta = i32::from_be_bytes(body[11..15].try_into().unwrap_or_default());
        out.push(BatchInfo {
            start: pos,
            end,
            base_offset,
            last_offset: base_offset.saturating_add(i64::from(delta)),
        });
        pos = end;
    }
    (out, None)
}

struct Reader<'a> {
    bytes: &'a [u8],
    pos: usize,
}

impl<'a> Reader<'a> {
    fn take(&mut self, n: usize) -> Option<&'a [u8]> {
        let s = self.bytes.get(self.pos..self.pos.checked_add(n)?)?;
        self.pos += n;
        Some(s)
    }

    fn varlong(&mut self) -> Option<i64> {
        let mut raw: u64 = 0;
        for shift in (0..64).step_by(7) {
            let b = *self.take(1)?.first()?;
            raw |= u64::from(b & 0x7f) << shift;
            if b & 0x80 == 0 {
                return Some(((raw >> 1) as i64) ^ -((raw & 1) as i64));
            }
        }
        None
    }

    fn bytes(&mut self) -> Option<Option<&'a [u8]>> {
        let len = self.varlong()?;
        if len < 0 {
            return Some(None);
        }
        self.take(usize::try_from(len).ok()?).map(Some)
    }
}

/// The producer of a whole transactional batch as [`scan`] found it (`batch` from its start to
/// its end); `None` for a batch that is not transactional.
pub fn producer(batch: &[u8]) -> Option<super::Producer> {
    let body = batch.get(LOG_OVERHEAD..)?;
    let attributes = i16::from_be_bytes(body.get(CRC_FROM..CRC_FROM + 2)?.try_into().ok()?);
    if attributes & TRANSACTIONAL == 0 {
        return None;
    }
    let id = i64::from_be_bytes(body.get(PRODUCER_AT..PRODUCER_AT + 8)?.try_into().ok()?);
    let epoch = i16::from_be_bytes(
        body.get(PRODUCER_AT + 8..PRODUCER_AT + 10)?
            .try_into()
            .ok()?,
    );
    Some(super::Producer { id, epoch })
}

/// The records (key, value; `None`: a tombstone) of one whole uncompressed batch as [`scan`]
/// found it (`batch` from its start to its end), transactional or not ([`producer`]); `None`
/// when they cannot be read (a compressed or control batch, or records that do not fit the
/// batch).
pub fn records(batch: &[u8]) -> Option<Vec<RawRecord<'_>>> {
    let body = batch.get(LOG_OVERHEAD..)?;
    let attributes = i16::from_be_bytes(body.get(CRC_FROM..CRC_FROM + 2)?.try_into().ok()?);
    if attributes & 0x07 != 0 || attributes & CONTROL != 0 {
        return None;
    }
    let count = i32::from_be_bytes(body.get(MIN_BODY - 4..MIN_BODY)?.try_into().ok()?);
    let count = usize::try_from(count).ok()?;
    let mut r = Reader {
        bytes: body,
        pos: MIN_BODY,
    };
    // Each record takes at least 7 bytes: a hostile count cannot presize beyond the batch.
    let mut out = Vec::with_capacity(count.min(body.len() / 7));
    for _ in 0..count {
        let len = usize::try_from(r.varlong()?).ok()?;
        let end = r.pos.checked_add(len)?;
        let mut rec = Reader {
            bytes: body.get(..end)?,
            pos: r.pos,
        };
        rec.take(1)?; // attributes
        rec.varlong()?; // timestamp delta
        rec.varlong()?; // offset delta
        let key = rec.bytes()??;
        let value = rec.bytes()?;
        out.push((key, value));
        r.pos = end;
    }
    (r.pos == body.len()).then_some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn batches_written_scan_and_read_back() {
        let mut log = Vec::new();
        write_batch(
            &mut log,
            0,
            1000,
            [(&b"k1"[..], Some(&b"v1"[..]))].into_iter(),
        );
        let two: [RawRecord; 2] = [(b"k2", None), (b"k3", Some(b""))];
        write_batch(&mut log, 1, 2000, two.into_iter());
        let (batches, damage) = scan(&log);
        assert_eq!(damage, None);
        assert_eq!(batches.len(), 2);
        assert_eq!((batches[1].base_offset, batches[1].last_offset), (1, 2));
        let second = records(&log[batches[1].start..batches[1].end]).unwrap();
        assert_eq!(
            second,
            vec![(&b"k2"[..], None), (&b"k3"[..], Some(&b""[..]))]
        );
    }

    #[test]
    fn a_transactional_batch_keeps_its_producer() {
        let mut log = Vec::new();
        write_batch(&mut log, 0, 5, [(&b"k"[..], Some(&b"v"[..]))].into_iter());
        let producer = crate::records::Producer { id: 7, epoch: 3 };
        let written: [RawRecord; 1] = [(b"k2", Some(b"v2"))];
        write_transactional_batch(&mut log, 1, 6, producer, written.into_iter());
        let (batches, damage) = scan(&log);
        assert_eq!((batches.len(), damage), (2, None));
        let plain = &log[batches[0].start..batches[0].end];
        let txn = &log[batches[1].start..batches[1].end];
        assert_eq!(super::producer(plain), None);
        assert_eq!(super::producer(txn), Some(producer));
        assert_eq!(records(txn), Some(vec![(&b"k2"[..], Some(&b"v2"[..]))]));
    }

    #[test]
    fn a_torn_tail_and_a_damaged_middle_are_told_apart() {
        let mut log = Vec::new();
        for i in 0..3 {
            write_batch(&mut log, i, 5, [(&b"k"[..], Some(&b"v"[..]))].into_iter());
        }
        let one = log.len() / 3;
        let (b, d) = scan(&log[..log.len() - 3]);
        assert_eq!(b.len(), 2);
        assert!(d.as_ref().unwrap().at_tail, "{d:?}");
        let mut bad = log.clone();
        bad[one + 40] ^= 1;
        let (b, d) = scan(&bad);
        assert_eq!(b.len(), 1);
        let d = d.unwrap();
        assert_eq!((d.position, d.at_tail), (one, false));
        assert!(d.reason.contains("CRC-32C"), "{}", d.reason);
        let mut zeros = log.clone();
        zeros.extend([0u8; 40]);
        assert!(scan(&zeros).1.unwrap().at_tail);
    }

    fn three_batches() -> Vec<u8> {
        let mut log = Vec::new();
        for i in 0..3 {
            write_batch(&mut log, i, 5, [(&b"k"[..], Some(&b"v"[..]))].into_iter());
        }
        log
    }

    #[test]
    fn a_damaged_length_is_never_taken_for_a_torn_write() {
        let log = three_batches();
        let one = log.len() / 3;
        // Every bit of every byte of the second and the last batch's length field.
        for batch in [one, 2 * one] {
            for byte in 8..12 {
                for bit in 0..8 {
                    let mut bad = log.clone();
                    bad[batch + byte] ^= 1 << bit;
                    let (b, d) = scan(&bad);
                    let d = d.unwrap();
                    assert_eq!(b.len(), batch / one, "byte {byte} bit {bit}");
                    assert_eq!((d.position, d.at_tail), (batch, false), "{}", d.reason);
                }
            }
        }
        // A torn last write with its length whole is still cut.
        for cut in [1, 10, one - LOG_OVERHEAD - 1] {
            let (b, d) = scan(&log[..log.len() - cut]);
            assert_eq!(
                (b.len(), d.map(|d| d.at_tail)),
                (2, Some(true)),
                "cut {cut}"
            );
        }
    }

    #[test]
    fn offsets_must_follow_on() {
        let mut bad = three_batches();
        let one = bad.len() / 3;
        bad[2 * one + 7] = 9; // the third batch's base offset, 2, becomes 9: the CRC holds
        let (b, d) = scan(&bad);
        let d = d.unwrap();
        assert_eq!((b.len(), d.position, d.at_tail), (2, 2 * one, false));
        assert!(d.reason.contains("does not follow on"), "{}", d.reason);
    }

    #[test]
    fn a_last_batch_failing_its_check_is_cut_only_when_its_end_was_never_written() {
        let log = three_batches();
        let mut flipped = log.clone();
        let at = log.len() - 20;
        flipped[at] ^= 4;
        let d = scan(&flipped).1.unwrap();
        assert!(
            !d.at_tail,
            "a bit flipped in a batch written whole: {}",
            d.reason
        );
        let mut unwritten = log.clone();
        let n = unwritten.len();
        unwritten[n - UNWRITTEN_ZEROS..].fill(0);
        let (b, d) = scan(&unwritten);
        assert_eq!((b.len(), d.map(|d| d.at_tail)), (2, Some(true)));
    }

    #[test]
    fn hostile_record_counts_and_lengths_are_refused() {
        let mut log = Vec::new();
        write_batch(&mut log, 0, 5, [(&b"k"[..], Some(&b"v"[..]))].into_iter());
        let mut many = log.clone();
        many[LOG_OVERHEAD + MIN_BODY - 4..LOG_OVERHEAD + MIN_BODY]
            .copy_from_slice(&i32::MAX.to_be_bytes());
        assert_eq!(records(&many), None);
        assert_eq!(crc32c(b"123456789"), 0xE306_9283);
    }
}
