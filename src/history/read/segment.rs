//! Raw `__consumer_offsets` log segments: Kafka's record batch format (magic 2), read in
//! place. A transactional batch's records keep its producer; a control batch's transaction
//! markers are entries of their own, its other control records skipped; a compressed batch is
//! decompressed (`compressed.rs`).
//!
//! A segment is read as Kafka recovers one: whole batches whose CRC-32C holds, up to the first
//! batch that is cut short (a copy of the active segment ends in one) or fails its check; from
//! there on the segment is damage, reported with its byte position. Only a file whose first
//! batch header is not a v2 header at all is refused whole: it is not a segment this reads.

use std::borrow::Cow;

use super::{compressed, pos_err, LogError, RawEntry, Source};
use crate::records::batch::crc32c;
use crate::records::Producer;

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
            .ok_or_else(|| pos_err(self.pos, "a record runs past the end of its batch"))?;
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

/// The bytes of a batch before its body: the base offset and the length.
const LOG_OVERHEAD: usize = 12;
/// The smallest body a v2 batch has: its header without records.
const MIN_BODY: usize = 49;
/// Where the CRC-covered bytes (the attributes on) start in a batch's body.
const CRC_FROM: usize = 9;
/// Attributes bit 4: a transactional batch (its producer's, pending until its end marker).
const TRANSACTIONAL: i16 = 0x10;
/// Attributes bit 5: a control batch (transaction markers, no key/value records).
const CONTROL: i16 = 0x20;

/// A read segment: the records of its whole, valid batches, and the damage after them.
pub(super) struct Segment<'a> {
    pub(super) entries: Vec<RawEntry<'a>>,
    pub(super) damage: Vec<LogError>,
}

/// Why a batch was not read.
enum Bad {
    /// The batch cannot be read: from it on the segment is damage.
    Damaged(LogError),
    /// The batch is whole but not one this reads (a compressed batch, an older format), or,
    /// for the first batch, not a batch at all: the segment is refused.
    Refused(LogError),
}

pub(super) fn parse_segment(bytes: &[u8]) -> Result<Segment<'_>, LogError> {
    let mut entries = Vec::new();
    let mut pos = 0;
    let mut batch_no = 0u64;
    while pos < bytes.len() {
        let before = entries.len();
        match read_batch(bytes, pos, batch_no, &mut entries) {
            Ok(Some(end)) => {
                pos = end;
                batch_no += 1;
            }
            Ok(None) => break,
            Err(Bad::Refused(e)) => return Err(e),
            Err(Bad::Damaged(e)) => {
                // The batch's records are not read, nor anything after it.
                entries.truncate(before);
                let rest = bytes.len() - pos;
                let e = LogError {
                    message: format!(
                        "{}: the segment's last {rest} bytes are not read (Kafka's recovery would truncate them)",
                        e.message
                    ),
                    ..e
                };
                return Ok(Segment {
                    entries,
                    damage: vec![e],
                });
            }
        }
    }
    Ok(Segment {
        entries,
        damage: Vec::new(),
    })
}

/// Reads the batch at `start` (the segment's `batch_no`th) into `entries`: the position after
/// it, or `None` at the zeros a preallocated segment ends in.
fn read_batch<'a>(
    bytes: &'a [u8],
    start: usize,
    batch_no: u64,
    entries: &mut Vec<RawEntry<'a>>,
) -> Result<Option<usize>, Bad> {
    let rest = bytes.get(start..).unwrap_or_default();
    let cut = |what: &str| {
        Bad::Damaged(pos_err(
            start,
            format!("the segment ends in the middle of {what} (a copy of the active segment, or a file cut short)"),
        ))
    };
    if rest.len() < LOG_OVERHEAD {
        if rest.iter().all(|&b| b == 0) {
            return Ok(None);
        }
        return Err(cut("a record batch header"));
    }
    let mut r = Reader { bytes, pos: start };
    let base_offset = i64::from_be_bytes(r.int::<8>().map_err(Bad::Damaged)?);
    let length = i32::from_be_bytes(r.int::<4>().map_err(Bad::Damaged)?);
    if length == 0 && base_offset == 0 {
        return Ok(None); // preallocated zeros
    }
    // Not a batch header: the first batch's refuses the file, a later one's is damage.
    let not_a_batch = |message: String| {
        let e = pos_err(start, message);
        if batch_no == 0 {
            Bad::Refused(e)
        } else {
            Bad::Damaged(e)
        }
    };
    let Some(length) = usize::try_from(length).ok().filter(|&l| l >= MIN_BODY) else {
        return Err(not_a_batch(format!(
            "record batch length {length} is not valid"
        )));
    };
    if let Some(&magic) = rest.get(LOG_OVERHEAD + 4) {
        if magic != 2 {
            let message = format!(
                "record batch magic {magic}: only the v2 format (Kafka 0.11 and later) is read"
            );
            return Err(if magic < 2 {
                Bad::Refused(pos_err(start, message))
            } else {
                not_a_batch(message)
            });
        }
    }
    let Some(body) = rest.get(LOG_OVERHEAD..LOG_OVERHEAD + length) else {
        return Err(cut("a record batch"));
    };
    let body_at = start + LOG_OVERHEAD;
    let stored = u32::from_be_bytes([body[5], body[6], body[7], body[8]]);
    let computed = crc32c(body.get(CRC_FROM..).unwrap_or_default());
    if stored != computed {
        return Err(Bad::Damaged(pos_err(
            start,
            format!("the record batch at offset {base_offset} fails its CRC-32C check (stored {stored}, computed {computed})"),
        )));
    }
    let mut b = Reader {
        bytes: body,
        pos: CRC_FROM,
    };
    let fix = |e: LogError| {
        Bad::Damaged(LogError {
            position: e.position.map(|p| body_at + p),
            ..e
        })
    };
    let attributes = i16::from_be_bytes(b.int::<2>().map_err(fix)?);
    let _last_offset_delta = b.int::<4>().map_err(fix)?;
    let base_ts = i64::from_be_bytes(b.int::<8>().map_err(fix)?);
    let max_ts = i64::from_be_bytes(b.int::<8>().map_err(fix)?);
    let producer_id = i64::from_be_bytes(b.int::<8>().map_err(fix)?);
    let producer_epoch = i16::from_be_bytes(b.int::<2>().map_err(fix)?);
    let _base_seq = b.int::<4>().map_err(fix)?;
    let n = i32::from_be_bytes(b.int::<4>().map_err(fix)?);
    let end = body_at + length;
    // A transactional batch's records are its producer's, pending until its end marker.
    let producer = (attributes & TRANSACTIONAL != 0 && producer_id >= 0 && producer_epoch >= 0)
        .then_some(Producer {
            id: producer_id,
            epoch: producer_epoch,
        });
    // LogAppendTime: the broker's time of the append, the batch's max timestamp, is every
    // record's.
    let append_time = (attributes & 0x08 != 0).then_some(max_ts);
    let mut push = |at: usize, ts_delta: i64, offset_delta: i64, source| {
        entries.push(RawEntry {
            line: None,
            position: Some(at),
            offset: Some(base_offset.saturating_add(offset_delta)),
            timestamp_ms: Some(append_time.unwrap_or(base_ts.saturating_add(ts_delta))),
            batch: Some(batch_no),
            producer,
            source,
        })
    };
    let codec = attributes & 0x07;
    if attributes & CONTROL != 0 {
        // A control batch: each end marker (key: version, then type 0 ABORT or 1 COMMIT) of
        // the batch's producer is an entry; other control records are no group's.
        if codec != 0 || producer_id < 0 {
            return Ok(Some(end));
        }
        read_records(&mut b, n, &mut |r| {
            if let [_, _, 0, kind @ (0 | 1), ..] = r.key {
                push(
                    body_at + r.at,
                    r.ts_delta,
                    r.offset_delta,
                    Source::Marker(producer_id, *kind == 1),
                )
            }
        })
        .map_err(fix)?;
        return Ok(Some(end));
    }
    if codec == 0 {
        read_records(&mut b, n, &mut |r| {
            push(
                body_at + r.at,
                r.ts_delta,
                r.offset_delta,
                Source::Bytes(Cow::Borrowed(r.key), r.value.map(Cow::Borrowed)),
            )
        })
        .map_err(fix)?;
        return Ok(Some(end));
    }
    // A compressed batch's records are one compressed block after its header: read from
    // their decompressed bytes, each record placed at its batch.
    let records =
        compressed::decompress(codec, body.get(b.pos..).unwrap_or_default()).map_err(|why| {
            match why {
                compressed::Why::Unread(message) => Bad::Refused(pos_err(start, message)),
                compressed::Why::Damaged(message) => Bad::Damaged(pos_err(start, message)),
            }
        })?;
    let mut d = Reader {
        bytes: &records,
        pos: 0,
    };
    read_records(&mut d, n, &mut |r| {
        push(
            start,
            r.ts_delta,
            r.offset_delta,
            Source::Bytes(
                Cow::Owned(r.key.to_vec()),
                r.value.map(|v| Cow::Owned(v.to_vec())),
            ),
        )
    })
    .map_err(|e| {
        Bad::Damaged(pos_err(
            start,
            format!("in the decompressed records: {}", e.message),
        ))
    })?;
    Ok(Some(end))
}

/// A record of a batch: where it starts in its bytes, its deltas, key and value.
struct Rec<'b> {
    at: usize,
    ts_delta: i64,
    offset_delta: i64,
    key: &'b [u8],
    value: Option<&'b [u8]>,
}

/// Reads `n` records from `r`, each handed to `each`.
fn read_records<'b>(
    r: &mut Reader<'b>,
    n: i32,
    each: &mut dyn FnMut(Rec<'b>),
) -> Result<(), LogError> {
    for _ in 0..n.max(0) {
        let at = r.pos;
        let _len = r.varlong()?;
        let _attr = r.int::<1>()?;
        let ts_delta = r.varlong()?;
        let offset_delta = r.varlong()?;
        let key = r.bytes()?;
        let value = r.bytes()?;
        let headers = r.varlong()?;
        for _ in 0..headers.max(0) {
            r.bytes()?;
            r.bytes()?;
        }
        let Some(key) = key else {
            return Err(pos_err(at, "a record without a key"));
        };
        each(Rec {
            at,
            ts_delta,
            offset_delta,
            key,
            value,
        });
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    use crate::history::read::parse_log;
    use crate::records::{Dialect, RecordValue};

    /// A zigzag varint, as a record's lengths and deltas are written.
    fn varint(out: &mut Vec<u8>, v: i64) {
        let mut z = ((v << 1) ^ (v >> 63)) as u64;
        while z >= 0x80 {
            out.push((z as u8) | 0x80);
            z >>= 7;
        }
        out.push(z as u8);
    }

    /// A v2 record batch as a broker writes it: `attributes` as given, the CRC-32C over the
    /// bytes from the attributes on, records one millisecond apart from `base_ts`.
    fn batch(offset: i64, attributes: i16, base_ts: i64, records: &[(&[u8], &[u8])]) -> Vec<u8> {
        let mut body = Vec::new();
        body.extend(3i32.to_be_bytes()); // partition leader epoch
        body.push(2); // magic
        body.extend(0u32.to_be_bytes()); // crc, set below
        body.extend(attributes.to_be_bytes());
        body.extend((records.len() as i32 - 1).to_be_bytes()); // last offset delta
        body.extend(base_ts.to_be_bytes());
        body.extend((base_ts + records.len() as i64 + 100).to_be_bytes()); // max timestamp
        body.extend((-1i64).to_be_bytes()); // producer id
        body.extend((-1i16).to_be_bytes()); // producer epoch
        body.extend((-1i32).to_be_bytes()); // base sequence
        body.extend((records.len() as i32).to_be_bytes());
        let header = body.len();
        for (i, (key, value)) in records.iter().enumerate() {
            let mut rec = vec![0u8]; // attributes
            varint(&mut rec, i as i64); // timestamp delta
            varint(&mut rec, i as i64); // offset delta
            varint(&mut rec, key.len() as i64);
            rec.extend(*key);
            varint(&mut rec, value.len() as i64);
            rec.extend(*value);
            varint(&mut rec, 0); // headers
            varint(&mut body, rec.len() as i64);
            body.extend(rec);
        }
        #[cfg(feature = "compressed-logs")]
        if attributes & 0x07 != 0 {
            let packed = compress(attributes & 0x07, &body[header..]);
            body.truncate(header);
            body.extend(packed);
        }
        let _ = header;
        let crc = crc32c(&body[CRC_FROM..]);
        body[5..9].copy_from_slice(&crc.to_be_bytes());
        let mut out = offset.to_be_bytes().to_vec();
        out.extend((body.len() as i32).to_be_bytes());
        out.extend(body);
        out
    }

    /// `records` compressed with `codec` as a Kafka producer or broker writes them.
    #[cfg(feature = "compressed-logs")]
    fn compress(codec: i16, records: &[u8]) -> Vec<u8> {
        use std::io::Write;
        match codec {
            1 => {
                let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
                gz.write_all(records).unwrap();
                gz.finish().unwrap()
            }
            2 => {
                // snappy-java's stream: magic, version 1, compatible version 1, then blocks.
                let mut out = b"\x82SNAPPY\0".to_vec();
                out.extend(1i32.to_be_bytes());
                out.extend(1i32.to_be_bytes());
                let (a, b) = records.split_at(records.len() / 2);
                for half in [a, b] {
                    let block = snap::raw::Encoder::new().compress_vec(half).unwrap();
                    out.extend((block.len() as i32).to_be_bytes());
                    out.extend(block);
                }
                out
            }
            3 => {
                let mut lz4 = lz4_flex::frame::FrameEncoder::new(Vec::new());
                lz4.write_all(records).unwrap();
                lz4.finish().unwrap()
            }
            4 => ruzstd::encoding::compress_to_vec(
                records,
                ruzstd::encoding::CompressionLevel::Fastest,
            ),
            _ => unreachable!(),
        }
    }

    /// Group g's metadata (type 17) at `epoch`, as Kafka 4.4 writes it: tags 2 and 3
    /// (`StoredDescriptionTopologyEpoch`, `FailedDescriptionTopologyEpoch`), which 4.2 has not.
    fn group_metadata_44(epoch: i32) -> (Vec<u8>, Vec<u8>) {
        let key = [&17i16.to_be_bytes()[..], &1i16.to_be_bytes(), b"g"].concat();
        let mut value = vec![0, 0];
        value.extend(epoch.to_be_bytes());
        value.extend(7i64.to_be_bytes()); // metadata hash
        value.extend([2, 2, 4, 0, 0, 0, 5, 3, 4, 0xff, 0xff, 0xff, 0xff]);
        (key, value)
    }

    /// Group g's target metadata (type 20) at `epoch`, as Kafka 4.3 writes it: tag 0
    /// (`AssignmentTimestamp`), which 4.2 has not.
    fn target_metadata_43(epoch: i32) -> (Vec<u8>, Vec<u8>) {
        let key = [&20i16.to_be_bytes()[..], &1i16.to_be_bytes(), b"g"].concat();
        let mut value = vec![0, 0];
        value.extend(epoch.to_be_bytes());
        value.extend([1, 0, 8]);
        value.extend(1_234i64.to_be_bytes());
        (key, value)
    }

    /// Two writes of group g: its metadata at epoch 1, then the target at epoch 1 and the
    /// metadata at epoch 2. `attributes` are the second batch's.
    fn two_batches(attributes: i16) -> (Vec<u8>, usize) {
        let (k1, v1) = group_metadata_44(1);
        let (k2, v2) = target_metadata_43(1);
        let (k3, v3) = group_metadata_44(2);
        let mut seg = batch(0, 0, 1_000, &[(&k1, &v1)]);
        let second = seg.len();
        seg.extend(batch(1, attributes, 2_000, &[(&k2, &v2), (&k3, &v3)]));
        (seg, second)
    }

    /// `b` (one batch) of `producer` at epoch 0: its header's producer set, its CRC again.
    fn of_producer(mut b: Vec<u8>, producer: i64) -> Vec<u8> {
        b[43..51].copy_from_slice(&producer.to_be_bytes());
        b[51..53].copy_from_slice(&0i16.to_be_bytes());
        let crc = crc32c(&b[LOG_OVERHEAD + CRC_FROM..]);
        b[LOG_OVERHEAD + 5..LOG_OVERHEAD + 9].copy_from_slice(&crc.to_be_bytes());
        b
    }

    /// Group g's offset commit record of `in`'s `partition` at `offset`.
    fn offset_commit(partition: i32, offset: i64) -> (Vec<u8>, Vec<u8>) {
        use crate::records::{encode_key, encode_value, OffsetCommitValue, RecordKey};
        let key = RecordKey::OffsetCommit {
            group_id: "g".into(),
            topic: "in".into(),
            partition,
        };
        let value = RecordValue::OffsetCommit(OffsetCommitValue {
            offset,
            commit_timestamp: 1_200,
            ..OffsetCommitValue::default()
        });
        (
            encode_key(Dialect::Kafka42, &key),
            encode_value(Dialect::Kafka42, &value),
        )
    }

    #[test]
    fn history_a_segment_keeps_transactional_producers_and_end_markers() {
        let (k1, v1) = group_metadata_44(1);
        let (a, va) = offset_commit(0, 11);
        let (b, vb) = offset_commit(1, 21);
        // Control records: key version 0 and type (1 COMMIT, 0 ABORT), value version 0 and
        // the coordinator epoch.
        let commit: (&[u8], &[u8]) = (&[0, 0, 0, 1], &[0, 0, 0, 0, 0, 0]);
        let abort: (&[u8], &[u8]) = (&[0, 0, 0, 0], &[0, 0, 0, 0, 0, 0]);
        let mut seg = batch(0, 0, 1_000, &[(&k1, &v1)]);
        seg.extend(of_producer(
            batch(1, 0x10, 1_200, &[(&a, &va), (&b, &vb)]),
            7,
        ));
        seg.extend(of_producer(batch(3, 0x30, 1_300, &[commit]), 7));
        seg.extend(of_producer(batch(4, 0x10, 1_400, &[(&a, &va)]), 8));
        seg.extend(of_producer(batch(5, 0x30, 1_500, &[abort]), 8));
        let log = parse_log(&seg, None).unwrap();
        assert_eq!((log.records.len(), log.damage.len()), (4, 0));
        let producers: Vec<_> = log
            .records
            .iter()
            .map(|r| r.record.producer.map(|p| (p.id, p.epoch)))
            .collect();
        assert_eq!(producers, [None, Some((7, 0)), Some((7, 0)), Some((8, 0))]);
        let markers: Vec<_> = log
            .markers
            .iter()
            .map(|m| (m.before, m.offset, m.timestamp_ms, m.producer_id, m.commit))
            .collect();
        assert_eq!(
            markers,
            [
                (3, Some(3), Some(1_300), 7, true),
                (4, Some(5), Some(1_500), 8, false)
            ]
        );
        // A control batch of no producer, or of another control type, tells nothing.
        let mut other = batch(0, 0, 1_000, &[(&k1, &v1)]);
        other.extend(batch(1, 0x30, 1_100, &[commit]));
        other.extend(of_producer(
            batch(2, 0x30, 1_200, &[(&[0, 0, 0, 2], &[0, 0])]),
            7,
        ));
        let log = parse_log(&other, None).unwrap();
        assert_eq!(
            (log.records.len(), log.markers.len(), log.damage.len()),
            (1, 0, 0)
        );
    }

    #[test]
    fn history_crc32c_is_castagnoli() {
        assert_eq!(crc32c(b"123456789"), 0xE306_9283);
        assert_eq!(crc32c(b""), 0);
    }

    #[test]
    fn history_a_segment_of_newer_releases_reads_their_tags_as_skipped() {
        let (seg, _) = two_batches(0);
        // The group metadata's tags 2 and 3 are 4.4's: the log is found to be 4.4's.
        assert_eq!(parse_log(&seg, None).unwrap().dialect, Dialect::Kafka44);
        // Read as 4.2, the tags are skipped, as 4.2's readers skip them.
        let log = parse_log(&seg, Some(Dialect::Kafka42)).unwrap();
        assert_eq!(log.dialect, Dialect::Kafka42);
        assert_eq!((log.records.len(), log.damage.len()), (3, 0));
        let RecordValue::GroupMetadata(g) = log.records[2].record.value.as_ref().unwrap() else {
            panic!("{:?}", log.records[2]);
        };
        assert_eq!((g.epoch, g.metadata_hash), (2, 7));
        let times: Vec<_> = log.records.iter().map(|r| r.timestamp_ms).collect();
        assert_eq!(times, [Some(1_000), Some(2_000), Some(2_001)]);
        // A preallocated segment's zeros after the last batch are no damage.
        let mut padded = seg.clone();
        padded.resize(seg.len() + 64, 0);
        assert_eq!(parse_log(&padded, Some(Dialect::Kafka42)).unwrap(), log);
    }

    #[test]
    fn history_a_batch_failing_its_crc_is_damage_and_the_batches_before_it_are_read() {
        let (seg, second) = two_batches(0);
        // A flipped byte in the second batch's second record: none of that batch is read.
        for at in [second + 21, seg.len() - 3] {
            let mut bad = seg.clone();
            bad[at] ^= 0x10;
            let log = parse_log(&bad, None).unwrap();
            assert_eq!(log.records.len(), 1, "{at}");
            assert_eq!(log.damage.len(), 1);
            assert_eq!(log.damage[0].position, Some(second));
            let m = &log.damage[0].message;
            assert!(
                m.contains("the record batch at offset 1 fails its CRC-32C check")
                    && m.contains(&format!("last {} bytes are not read", seg.len() - second)),
                "{m}"
            );
        }
        // The same in the first batch: nothing is read, the damage is told.
        let mut bad = seg.clone();
        bad[30] ^= 1;
        let log = parse_log(&bad, None).unwrap();
        assert_eq!((log.records.len(), log.damage[0].position), (0, Some(0)));
    }

    #[test]
    fn history_a_segment_cut_in_a_batch_is_read_up_to_that_batch() {
        let (seg, second) = two_batches(0);
        for cut in [second + 10, second + 16, second + 40, seg.len() - 1] {
            let log = parse_log(&seg[..cut], None).unwrap();
            assert_eq!(log.records.len(), 1, "{cut}");
            assert_eq!(log.damage[0].position, Some(second), "{cut}");
            assert!(
                log.damage[0]
                    .message
                    .contains("ends in the middle of a record batch"),
                "{:?}",
                log.damage
            );
        }
        // A first batch cut short: no record, and the damage.
        let log = parse_log(&seg[..20], None).unwrap();
        assert_eq!((log.records.len(), log.damage.len()), (0, 1));
        // A file whose first batch header is no v2 header is no segment.
        let mut old = seg.clone();
        old[16] = 1;
        let e = parse_log(&old, None).unwrap_err();
        assert!(e.message.contains("magic 1"), "{e}");
    }

    #[test]
    fn history_a_log_append_time_batch_gives_every_record_its_max_timestamp() {
        let (seg, _) = two_batches(0x08);
        let log = parse_log(&seg, None).unwrap();
        let times: Vec<_> = log.records.iter().map(|r| r.timestamp_ms).collect();
        // The second batch's max timestamp: 2000 + 2 records + 100.
        assert_eq!(times, [Some(1_000), Some(2_102), Some(2_102)]);
    }

    #[cfg(feature = "compressed-logs")]
    #[test]
    fn history_a_compressed_batch_is_read_in_each_of_kafkas_codecs() {
        let (plain, _) = two_batches(0);
        let whole = parse_log(&plain, None).unwrap();
        for codec in 1..=4 {
            let (seg, second) = two_batches(codec);
            let log = parse_log(&seg, None).unwrap();
            assert_eq!(log.damage, [], "codec {codec}");
            // The same records at the same offsets and times; each at its batch's start.
            let strip = |l: &crate::history::ParsedLog| -> Vec<_> {
                l.records
                    .iter()
                    .map(|r| (r.offset, r.timestamp_ms, r.record.clone()))
                    .collect()
            };
            assert_eq!(strip(&log), strip(&whole), "codec {codec}");
            // A damaged block is damage, found by the CRC; with its CRC made right (a block
            // cut short), by the decoder or in the records it gives.
            let mut bad = seg.clone();
            let last = bad.len() - 2;
            bad[last] ^= 0x55;
            let log = parse_log(&bad, None).unwrap();
            assert_eq!(
                (log.records.len(), log.damage[0].position),
                (1, Some(second))
            );
            let mut body = seg[second + LOG_OVERHEAD..seg.len() - 8].to_vec();
            let crc = crc32c(&body[CRC_FROM..]);
            body[5..9].copy_from_slice(&crc.to_be_bytes());
            let mut bad = seg[..second + 8].to_vec();
            bad.extend((body.len() as i32).to_be_bytes());
            bad.extend(body);
            let log = parse_log(&bad, None).unwrap();
            assert_eq!(log.records.len(), 1, "codec {codec}");
            assert_eq!(log.damage[0].position, Some(second), "codec {codec}");
        }
    }
}
