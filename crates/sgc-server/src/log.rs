//! One `__consumer_offsets` partition's log on disk, laid out as Kafka lays it out
//! (`DIR/__consumer_offsets-N/<base offset, 20 digits>.log`, record batches v2 with CRC-32C),
//! so that `kafka-dump-log.sh` and `sgc history` read it. Appends are staged and written by
//! [`PartitionLog::commit`]: a response leaves only after its batch is in the file (and synced,
//! as `--fsync` says). Opening recovers the log as Kafka's log recovery does: whole batches up
//! to the first bad one; a torn tail (a write cut short by a crash) is truncated, damage with
//! whole batches after it stops the partition.

use std::fs::{File, OpenOptions};
use std::io::{Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

use streams_group_coordinator::records::{batch, Producer};

pub use batch::RawRecord;

/// Records per replay call on start: each call sorts the members it touched, so smaller
/// chunks cost less per record (a 256 MB log: 168 MB/s in chunks of 4,096, 249 in chunks of
/// 1,024, 256 in chunks of 256; `make serve-load`).
const REPLAY_CHUNK: usize = 256;

/// A record owned: its key's and value's bytes.
pub type OwnedRecord = (Vec<u8>, Option<Vec<u8>>);

/// A partition's log, open for appends.
pub struct PartitionLog {
    dir: PathBuf,
    file: File,
    path: PathBuf,
    /// The bytes of the active segment known to be in the file.
    committed_len: u64,
    /// The next offset after the committed batches, and after the staged ones.
    committed_next: i64,
    next_offset: i64,
    staged: Vec<u8>,
    segment_bytes: u64,
    /// Bytes in all segments, for the metrics.
    pub total_bytes: u64,
}

/// What recovery found: a truncated tail, if any (file, position, bytes cut).
#[derive(Debug, Default)]
pub struct Recovered {
    /// Records replayed.
    pub records: u64,
    /// `(file, position, bytes)` of a torn tail that was truncated.
    pub truncated: Option<(PathBuf, usize, usize)>,
}

fn segment_name(base: i64) -> String {
    format!("{base:020}.log")
}

/// The folder of partition `p`.
pub fn partition_dir(data_dir: &Path, p: i32) -> PathBuf {
    data_dir.join(format!("__consumer_offsets-{p}"))
}

fn segments(dir: &Path) -> std::io::Result<Vec<(i64, PathBuf)>> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir)? {
        let path = entry?.path();
        let base = path
            .file_name()
            .and_then(|n| n.to_str())
            .and_then(|n| n.strip_suffix(".log"))
            .and_then(|n| n.parse::<i64>().ok());
        if let Some(base) = base {
            out.push((base, path));
        }
    }
    out.sort();
    Ok(out)
}

fn sync_dir(dir: &Path) -> std::io::Result<()> {
    File::open(dir)?.sync_all()
}

impl PartitionLog {
    /// Opens (or creates) the log in `dir` and hands every record of its whole batches, in
    /// order, to `replay` (in chunks, one segment's at a time in memory).
    /// `replay` takes the records in log order, a transactional batch's alone with its
    /// producer (`None`: plain batches, several at a time).
    pub fn open(
        dir: &Path,
        segment_bytes: u64,
        mut replay: impl FnMut(Option<Producer>, &[RawRecord<'_>]) -> Result<(), String>,
    ) -> Result<(PartitionLog, Recovered), String> {
        let fail = |what: &Path, e: std::io::Error| format!("{}: {e}", what.display());
        std::fs::create_dir_all(dir).map_err(|e| fail(dir, e))?;
        let mut found = segments(dir).map_err(|e| fail(dir, e))?;
        if found.is_empty() {
            let path = dir.join(segment_name(0));
            File::create(&path).map_err(|e| fail(&path, e))?;
            sync_dir(dir).map_err(|e| fail(dir, e))?;
            found.push((0, path));
        }
        let mut recovered = Recovered::default();
        let mut next_offset = 0i64;
        let mut total = 0u64;
        let last = found.len() - 1;
        for (i, (base, path)) in found.iter().enumerate() {
            let mut bytes = Vec::new();
            File::open(path)
                .and_then(|mut f| f.read_to_end(&mut bytes))
                .map_err(|e| fail(path, e))?;
            let (batches, damage) = batch::scan(&bytes);
            // Replayed in chunks while this segment's bytes are in memory.
            let mut chunk: Vec<RawRecord<'_>> = Vec::with_capacity(2 * REPLAY_CHUNK);
            let mut keep = bytes.len();
            if let Some(d) = damage {
                if !(d.at_tail && i == last) {
                    return Err(format!(
                        "{}: byte {}: {}; this is not a write cut short, and nothing acknowledged is cut: the partition is not loaded (move the file away to start it empty)",
                        path.display(),
                        d.position,
                        d.reason
                    ));
                }
                keep = d.position;
            }
            // Offsets follow on across segments as within one: a segment's name is its
            // first batch's base offset, the offset after the segment before it.
            let first = batches.first().map_or(*base, |b| b.base_offset);
            if (i > 0 && *base != next_offset) || first != *base {
                return Err(format!(
                    "{}: the segment's first offset is {first} where {} was expected: offsets do not follow on, so the log is damaged: the partition is not loaded (move the file away to start it empty)",
                    path.display(),
                    if i > 0 { next_offset } else { *base }
                ));
            }
            next_offset = *base;
            for b in &batches {
                let whole = &bytes[b.start..b.end];
                let records = batch::records(whole).ok_or_else(|| {
                    format!(
                        "{}: byte {}: the batch at offset {} holds records this server does not read (compressed, or a transaction marker)",
                        path.display(),
                        b.start,
                        b.base_offset
                    )
                })?;
                recovered.records += records.len() as u64;
                next_offset = b.last_offset + 1;
                if let Some(producer) = batch::producer(whole) {
                    replay(None, &chunk)?;
                    chunk.clear();
                    replay(Some(producer), &records)?;
                    continue;
                }
                chunk.extend(records);
                if chunk.len() >= REPLAY_CHUNK {
                    replay(None, &chunk)?;
                    chunk.clear();
                }
            }
            replay(None, &chunk)?;
            if keep < bytes.len() {
                let f = OpenOptions::new()
                    .write(true)
                    .open(path)
                    .map_err(|e| fail(path, e))?;
                f.set_len(keep as u64).map_err(|e| fail(path, e))?;
                f.sync_all().map_err(|e| fail(path, e))?;
                recovered.truncated = Some((path.clone(), keep, bytes.len() - keep));
            }
            total += keep as u64;
        }
        let (_, path) = found.pop().unwrap_or((0, dir.join(segment_name(0))));
        let mut file = OpenOptions::new()
            .append(true)
            .open(&path)
            .map_err(|e| fail(&path, e))?;
        let committed_len = file.seek(SeekFrom::End(0)).map_err(|e| fail(&path, e))?;
        Ok((
            PartitionLog {
                dir: dir.to_path_buf(),
                file,
                path,
                committed_len,
                committed_next: next_offset,
                next_offset,
                staged: Vec::with_capacity(4096),
                segment_bytes,
                total_bytes: total,
            },
            recovered,
        ))
    }

    /// Stages one batch of `records` stamped `timestamp_ms`, transactional for `producer`;
    /// nothing for no records.
    pub fn stage(
        &mut self,
        timestamp_ms: i64,
        producer: Option<Producer>,
        records: &[OwnedRecord],
    ) {
        if records.is_empty() {
            return;
        }
        let iter = records.iter().map(|(k, v)| (k.as_slice(), v.as_deref()));
        let at = self.next_offset;
        match producer {
            None => batch::write_batch(&mut self.staged, at, timestamp_ms, iter),
            Some(p) => {
                batch::write_transactional_batch(&mut self.staged, at, timestamp_ms, p, iter)
            }
        }
        self.next_offset += records.len() as i64;
    }

    /// Whether batches are staged and not yet written.
    pub fn has_staged(&self) -> bool {
        !self.staged.is_empty()
    }

    /// Writes the staged batches (and syncs them when `sync`). On an error nothing staged
    /// counts: the file is cut back to what was committed before, and the caller must undo
    /// what the staged records stood for.
    pub fn commit(&mut self, sync: bool) -> std::io::Result<()> {
        if self.staged.is_empty() {
            return Ok(());
        }
        let result = self.file.write_all(&self.staged).and_then(|()| {
            if sync {
                self.file.sync_data()
            } else {
                Ok(())
            }
        });
        match result {
            Ok(()) => {
                self.committed_len += self.staged.len() as u64;
                self.total_bytes += self.staged.len() as u64;
                self.committed_next = self.next_offset;
                self.staged.clear();
                if self.committed_len >= self.segment_bytes {
                    self.roll()?;
                }
                Ok(())
            }
            Err(e) => {
                let _ = self.file.set_len(self.committed_len);
                self.staged.clear();
                self.next_offset = self.committed_next;
                Err(e)
            }
        }
    }

    /// Starts a new segment at the next offset.
    fn roll(&mut self) -> std::io::Result<()> {
        self.file.sync_all()?;
        let path = self.dir.join(segment_name(self.next_offset));
        let file = OpenOptions::new().create(true).append(true).open(&path)?;
        sync_dir(&self.dir)?;
        self.file = file;
        self.path = path;
        self.committed_len = 0;
        Ok(())
    }

    /// The active segment's path.
    pub fn active_path(&self) -> &Path {
        &self.path
    }

    /// The next offset to be written.
    pub fn next_offset(&self) -> i64 {
        self.next_offset
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn temp(name: &str) -> PathBuf {
        let d = std::env::temp_dir().join(format!("sgc-log-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        d
    }

    fn owned(k: &str, v: Option<&str>) -> OwnedRecord {
        (k.as_bytes().to_vec(), v.map(|v| v.as_bytes().to_vec()))
    }

    fn read_all(dir: &Path) -> Result<(Vec<OwnedRecord>, Recovered), String> {
        let mut seen = Vec::new();
        let (_, rec) = PartitionLog::open(dir, 1 << 20, |_, rs| {
            seen.extend(rs.iter().map(|(k, v)| (k.to_vec(), v.map(<[u8]>::to_vec))));
            Ok(())
        })?;
        Ok((seen, rec))
    }

    /// Every record with the producer of its batch.
    fn read_with_producers(dir: &Path) -> Result<Vec<(Option<Producer>, OwnedRecord)>, String> {
        let mut seen = Vec::new();
        PartitionLog::open(dir, 1 << 20, |p, rs| {
            seen.extend(
                rs.iter()
                    .map(|(k, v)| (p, (k.to_vec(), v.map(<[u8]>::to_vec)))),
            );
            Ok(())
        })?;
        Ok(seen)
    }

    #[test]
    fn appended_batches_replay_in_order_across_segments() {
        let dir = temp("roll");
        let (mut log, _) = PartitionLog::open(&dir, 100, |_, _| Ok(())).unwrap();
        for i in 0..5 {
            let k = format!("k{i}");
            log.stage(i, None, &[owned(&k, Some("v")), owned("t", None)]);
            log.commit(true).unwrap();
        }
        assert_eq!(log.next_offset(), 10);
        assert!(segments(&dir).unwrap().len() > 1, "rolled past 100 bytes");
        let (seen, rec) = read_all(&dir).unwrap();
        assert_eq!(seen.len(), 10);
        assert_eq!(seen[2], owned("k1", Some("v")));
        assert_eq!(seen[3], owned("t", None));
        assert!(rec.truncated.is_none());
        let (log, _) = PartitionLog::open(&dir, 100, |_, _| Ok(())).unwrap();
        assert_eq!(log.next_offset(), 10);
    }

    #[test]
    fn a_transactional_batch_replays_alone_with_its_producer() {
        let dir = temp("txn");
        let (mut log, _) = PartitionLog::open(&dir, 1 << 20, |_, _| Ok(())).unwrap();
        let producer = Producer { id: 7, epoch: 2 };
        log.stage(1, None, &[owned("a", Some("1"))]);
        log.stage(
            2,
            Some(producer),
            &[owned("b", Some("2")), owned("c", Some("3"))],
        );
        log.stage(3, None, &[owned("d", None)]);
        log.commit(true).unwrap();
        let seen = read_with_producers(&dir).unwrap();
        let producers: Vec<_> = seen.iter().map(|(p, (k, _))| (*p, k.clone())).collect();
        assert_eq!(
            producers,
            [
                (None, b"a".to_vec()),
                (Some(producer), b"b".to_vec()),
                (Some(producer), b"c".to_vec()),
                (None, b"d".to_vec())
            ]
        );
    }

    #[test]
    fn a_torn_tail_is_truncated_and_a_damaged_middle_stops_the_partition() {
        let dir = temp("torn");
        let (mut log, _) = PartitionLog::open(&dir, 1 << 20, |_, _| Ok(())).unwrap();
        for i in 0..3 {
            log.stage(i, None, &[owned("key", Some("value"))]);
            log.commit(false).unwrap();
        }
        let path = log.active_path().to_path_buf();
        drop(log);
        let bytes = std::fs::read(&path).unwrap();
        let one = bytes.len() / 3;
        std::fs::write(&path, &bytes[..bytes.len() - 5]).unwrap();
        let (seen, rec) = read_all(&dir).unwrap();
        assert_eq!(seen.len(), 2);
        assert_eq!(rec.truncated.as_ref().map(|t| t.1), Some(2 * one));
        assert_eq!(std::fs::metadata(&path).unwrap().len() as usize, 2 * one);
        let mut bad = bytes.clone();
        bad[one + 30] ^= 0x10;
        std::fs::write(&path, &bad).unwrap();
        let err = read_all(&dir).unwrap_err();
        assert!(err.contains(&format!("byte {one}")), "{err}");
        assert!(err.contains("00000000000000000000.log"), "{err}");
        assert_eq!(
            std::fs::read(&path).unwrap(),
            bad,
            "nothing cut from a damaged log"
        );
    }

    /// Nine acknowledged batches, the second's length damaged in any bit of its first byte:
    /// the partition is not loaded and the file keeps every byte (a torn write alone is cut).
    #[test]
    fn a_damaged_length_stops_the_partition_and_cuts_nothing() {
        let dir = temp("length");
        let (mut log, _) = PartitionLog::open(&dir, 1 << 20, |_, _| Ok(())).unwrap();
        let mut starts = Vec::new();
        for i in 0..9 {
            starts.push(std::fs::metadata(log.active_path()).unwrap().len() as usize);
            log.stage(i, None, &[owned(&format!("offset-{i}"), Some("100"))]);
            log.commit(true).unwrap();
        }
        let path = log.active_path().to_path_buf();
        drop(log);
        let good = std::fs::read(&path).unwrap();
        for bit in 0..8 {
            let mut bad = good.clone();
            bad[starts[1] + 8] ^= 1 << bit;
            std::fs::write(&path, &bad).unwrap();
            let err = read_all(&dir).unwrap_err();
            assert!(err.contains(&format!("byte {}", starts[1])), "{err}");
            assert_eq!(std::fs::read(&path).unwrap(), bad, "bit {bit}: nothing cut");
        }
        std::fs::write(&path, &good).unwrap();
        assert_eq!(read_all(&dir).unwrap().0.len(), 9);
    }

    #[test]
    fn a_segment_whose_offsets_do_not_follow_on_stops_the_partition() {
        let dir = temp("follow");
        let (mut log, _) = PartitionLog::open(&dir, 100, |_, _| Ok(())).unwrap();
        for i in 0..4 {
            log.stage(i, None, &[owned("key", Some("value"))]);
            log.commit(true).unwrap();
        }
        drop(log);
        let found = segments(&dir).unwrap();
        assert!(found.len() > 2, "{found:?}");
        // The second segment renamed as if an offset were missing before it.
        let (base, path) = &found[1];
        std::fs::rename(path, dir.join(segment_name(base + 1))).unwrap();
        let err = read_all(&dir).unwrap_err();
        assert!(err.contains("offsets do not follow on"), "{err}");
    }
}
