//! Member records read in place, for a log read back (`Replay`): a member metadata, target or
//! current assignment record's key, strings and task lists borrowed from its decoded bytes, so
//! that replay builds the member's state straight from them, with no record of owned strings
//! and lists in between (almost every record of a group is one of these).
//!
//! The reader takes exactly what [`codec`](super::codec) takes, with the same checks in the same
//! order; a record it does not read (another type, a tombstone, bytes either reader refuses)
//! goes the general way, which gives the error and its path.

use super::codec::{min_size, record_type};
use super::json::record_from_bytes_at;
use super::wire::{Reader, Recent, WireError, WireResult};
use super::{Dialect, Endpoint, KeyValue, MemberMetadataValue, Record, RecordType};
use crate::error::BoundaryError;

/// A record as read from a log's bytes: in place, or decoded the general way.
#[derive(Clone, Debug)]
pub(crate) enum ReadRecord<'a> {
    Decoded(Record),
    InPlace(MemberRecord<'a>),
}

/// A member metadata, target or current assignment record, borrowed from its bytes: every
/// `TaskIds` of its lists read once into the log's one list of them ([`ReadLog::tasks`]),
/// which each of its task lists is a range of.
#[derive(Clone, Debug)]
pub(crate) struct MemberRecord<'a> {
    pub(crate) group_id: &'a str,
    pub(crate) member_id: &'a str,
    pub(crate) value: MemberValue<'a>,
}

/// The records of a log read back ([`read_log`]), with the `TaskIds` of all its member
/// records in one list: one allocation for a list of records rather than one a record.
#[derive(Clone, Debug)]
pub(crate) struct ReadLog<'a> {
    /// Each record with its index in the input.
    pub(crate) records: Vec<(usize, ReadRecord<'a>)>,
    /// What the task lists of the records read in place are ranges of.
    pub(crate) tasks: Vec<TaskIdsRef<'a>>,
}

/// The strings the records of one log repeat, each read once and then only compared: the
/// group id, the id of the member whose records come in a row, and the subtopology ids.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Seen<'a> {
    group_id: Recent<'a, 1>,
    member_id: Recent<'a, 1>,
    subtopology_ids: Recent<'a, 4>,
}

impl Seen<'_> {
    pub(crate) const fn new() -> Self {
        Seen {
            group_id: Recent::new(),
            member_id: Recent::new(),
            subtopology_ids: Recent::new(),
        }
    }
}

/// A task list of a [`MemberRecord`]: its range of the log's `TaskIds` ([`ReadLog::tasks`]).
pub(crate) type TaskList = (usize, usize);

/// The value of a [`MemberRecord`].
#[derive(Clone, Debug)]
pub(crate) enum MemberValue<'a> {
    /// `StreamsGroupMemberMetadataValue`.
    Metadata(MemberMetadataRef<'a>),
    /// `StreamsGroupTargetAssignmentMemberValue`: active, standby, warm-up.
    Target([TaskList; 3]),
    /// `StreamsGroupCurrentMemberAssignmentValue`.
    Current {
        member_epoch: i32,
        previous_member_epoch: i32,
        state: i8,
        /// Active, standby, warm-up; then the same pending revocation.
        lists: [TaskList; 6],
    },
}

/// `StreamsGroupMemberMetadataValue`, its strings borrowed.
#[derive(Clone, Debug)]
pub(crate) struct MemberMetadataRef<'a> {
    instance_id: Option<&'a str>,
    rack_id: Option<&'a str>,
    client_id: &'a str,
    client_host: &'a str,
    rebalance_timeout_ms: i32,
    topology_id: &'a str,
    topology_epoch: i32,
    process_id: &'a str,
    user_endpoint: Option<(&'a str, u16)>,
    client_tags: Vec<(&'a str, &'a str)>,
}

impl MemberMetadataRef<'_> {
    /// The value the member keeps.
    pub(crate) fn to_value(&self) -> MemberMetadataValue {
        MemberMetadataValue {
            instance_id: self.instance_id.map(str::to_owned),
            rack_id: self.rack_id.map(str::to_owned),
            client_id: self.client_id.to_owned(),
            client_host: self.client_host.to_owned(),
            rebalance_timeout_ms: self.rebalance_timeout_ms,
            topology_id: self.topology_id.to_owned(),
            topology_epoch: self.topology_epoch,
            process_id: self.process_id.to_owned(),
            user_endpoint: self.user_endpoint.map(|(host, port)| Endpoint {
                host: host.to_owned(),
                port,
            }),
            client_tags: self
                .client_tags
                .iter()
                .map(|&(key, value)| KeyValue {
                    key: key.to_owned(),
                    value: value.to_owned(),
                })
                .collect(),
        }
    }
}

/// One `TaskIds`: its partitions and assignment epochs as the big-endian bytes they are.
#[derive(Clone, Copy, Debug)]
pub(crate) struct TaskIdsRef<'a> {
    pub(crate) subtopology_id: &'a str,
    partitions: &'a [u8],
    /// Empty when the list has no epochs, the tag is absent or null: all read the same way
    /// (PROTOCOL 4.8: the member epoch for each task).
    epochs: &'a [u8],
}

fn ints(bytes: &[u8]) -> impl ExactSizeIterator<Item = i32> + Clone + '_ {
    bytes
        .chunks_exact(4)
        .map(|c| <[u8; 4]>::try_from(c).map_or(0, i32::from_be_bytes))
}

impl<'a> TaskIdsRef<'a> {
    pub(crate) fn partitions(&self) -> impl ExactSizeIterator<Item = i32> + Clone + 'a {
        ints(self.partitions)
    }

    pub(crate) fn epochs(&self) -> impl ExactSizeIterator<Item = i32> + Clone + 'a {
        ints(self.epochs)
    }
}

/// The `TaskIds` of task list `list` of a record read in place, in order, from the log's
/// `tasks`.
pub(crate) fn list<'s, 'a>(
    tasks: &'s [TaskIdsRef<'a>],
    (start, end): TaskList,
) -> &'s [TaskIdsRef<'a>] {
    tasks.get(start..end).unwrap_or_default()
}

/// The records of a log read back, each its key's and value's bytes (`None`: a tombstone),
/// with their indexes: member records read in place, the others decoded; records of other
/// kinds are left out, as replay skips them. The first record the general path refuses is the
/// error it would give, at `records[i]`.
pub(crate) fn read_log<'a>(
    dialect: Dialect,
    records: &[(&'a [u8], Option<&'a [u8]>)],
) -> Result<ReadLog<'a>, BoundaryError> {
    let mut log = ReadLog {
        records: Vec::with_capacity(records.len()),
        // A member record of a group of two subtopologies lists about two.
        tasks: Vec::with_capacity(2 * records.len()),
    };
    let mut seen = Seen::new();
    for (i, &(key, value)) in records.iter().enumerate() {
        if let Some(record) = read(dialect, key, value, &mut log.tasks, &mut seen) {
            log.records.push((i, ReadRecord::InPlace(record)));
        } else if let Some(record) = record_from_bytes_at(dialect, key, value, "records", i)? {
            log.records.push((i, ReadRecord::Decoded(record)));
        }
    }
    Ok(log)
}

/// The record, when it is a member metadata, target or current assignment record (not a
/// tombstone) that the general decoder would take, its `TaskIds` appended to `tasks` and its
/// strings compared with those `seen` before; `None` sends it the general way, and leaves
/// `tasks` as it was.
pub(crate) fn read<'a>(
    dialect: Dialect,
    key: &'a [u8],
    value: Option<&'a [u8]>,
    tasks: &mut Vec<TaskIdsRef<'a>>,
    seen: &mut Seen<'a>,
) -> Option<MemberRecord<'a>> {
    let mut k = Reader::new(key);
    let t = record_type(dialect, k.i16().ok()?)?;
    if !matches!(
        t,
        RecordType::MemberMetadata
            | RecordType::TargetAssignmentMember
            | RecordType::CurrentMemberAssignment
    ) {
        return None;
    }
    let group_id = k.key_str_in(&mut seen.group_id).ok()?;
    let member_id = k.key_str_in(&mut seen.member_id).ok()?;
    k.finish().ok()?;
    let before = tasks.len();
    match read_value(dialect, t, &mut Reader::new(value?), tasks, seen) {
        Ok(value) => Some(MemberRecord {
            group_id,
            member_id,
            value,
        }),
        Err(_) => {
            tasks.truncate(before);
            None
        }
    }
}

fn read_value<'a>(
    dialect: Dialect,
    t: RecordType,
    r: &mut Reader<'a>,
    tasks: &mut Vec<TaskIdsRef<'a>>,
    seen: &mut Seen<'a>,
) -> WireResult<MemberValue<'a>> {
    if r.i16()? != 0 {
        return Err(WireError::new("unsupported value version"));
    }
    let value = if t == RecordType::MemberMetadata {
        MemberValue::Metadata(read_metadata(dialect, r)?)
    } else if t == RecordType::TargetAssignmentMember {
        let mut lists = [(0, 0); 3];
        for list in &mut lists {
            *list = read_list(r, false, tasks, seen)?;
        }
        MemberValue::Target(lists)
    } else {
        let v42 = dialect.is_kafka();
        let member_epoch = r.i32()?;
        let previous_member_epoch = r.i32()?;
        let state = r.i8()?;
        let mut lists = [(0, 0); 6];
        for list in &mut lists {
            *list = read_list(r, v42, tasks, seen)?;
        }
        MemberValue::Current {
            member_epoch,
            previous_member_epoch,
            state,
            lists,
        }
    };
    r.tagged_fields(|_, _| Ok(false))?;
    r.finish()?;
    Ok(value)
}

/// A member metadata value after its version (without its tagged fields).
fn read_metadata<'a>(dialect: Dialect, r: &mut Reader<'a>) -> WireResult<MemberMetadataRef<'a>> {
    let instance_id = r.compact_nullable_str()?;
    let rack_id = r.compact_nullable_str()?;
    let client_id = r.compact_str()?;
    let client_host = r.compact_str()?;
    let rebalance_timeout_ms = r.i32()?;
    let (topology_id, topology_epoch) = if dialect.is_kafka() {
        ("", r.i32()?)
    } else {
        (r.compact_str()?, 0)
    };
    let process_id = r.compact_str()?;
    let user_endpoint = match r.i8()? {
        -1 => None,
        1 => {
            let host = r.compact_str()?;
            let port = r.u16()?;
            r.tagged_fields(|_, _| Ok(false))?;
            Some((host, port))
        }
        _ => return Err(WireError::new("bad presence byte")),
    };
    let len = r
        .compact_len()?
        .ok_or_else(|| WireError::new("null in a non-nullable array"))?;
    if len > r.remaining() / min_size::KEY_VALUE {
        return Err(WireError::new("array cannot fit in the remaining bytes"));
    }
    let mut client_tags = Vec::with_capacity(len);
    for _ in 0..len {
        let key = r.compact_str()?;
        let value = r.compact_str()?;
        r.tagged_fields(|_, _| Ok(false))?;
        client_tags.push((key, value));
    }
    Ok(MemberMetadataRef {
        instance_id,
        rack_id,
        client_id,
        client_host,
        rebalance_timeout_ms,
        topology_id,
        topology_epoch,
        process_id,
        user_endpoint,
        client_tags,
    })
}

/// A non-nullable `TaskIds` array, its elements appended to `tasks`.
fn read_list<'a>(
    r: &mut Reader<'a>,
    with_epochs: bool,
    tasks: &mut Vec<TaskIdsRef<'a>>,
    seen: &mut Seen<'a>,
) -> WireResult<TaskList> {
    let len = r
        .compact_len()?
        .ok_or_else(|| WireError::new("null in a non-nullable array"))?;
    if len > r.remaining() / min_size::TASK_IDS {
        return Err(WireError::new("array cannot fit in the remaining bytes"));
    }
    let start = tasks.len();
    for _ in 0..len {
        tasks.push(read_task_ids(r, with_epochs, seen)?);
    }
    Ok((start, tasks.len()))
}

fn read_task_ids<'a>(
    r: &mut Reader<'a>,
    with_epochs: bool,
    seen: &mut Seen<'a>,
) -> WireResult<TaskIdsRef<'a>> {
    let subtopology_id = r.compact_str_in(&mut seen.subtopology_ids)?;
    let partitions = read_ints(r)?.ok_or_else(|| WireError::new("null partitions"))?;
    let mut epochs: &'a [u8] = &[];
    r.tagged_fields(|tag, p| {
        if with_epochs && tag == 0 {
            // The last occurrence counts, as with the general decoder.
            epochs = read_ints(p)?.unwrap_or_default();
            Ok(true)
        } else {
            Ok(false)
        }
    })?;
    Ok(TaskIdsRef {
        subtopology_id,
        partitions,
        epochs,
    })
}

/// A compact nullable array of int32, as its bytes.
fn read_ints<'a>(r: &mut Reader<'a>) -> WireResult<Option<&'a [u8]>> {
    let Some(n) = r.compact_len()? else {
        return Ok(None);
    };
    if n > r.remaining() / 4 {
        return Err(WireError::new("array cannot fit in the remaining bytes"));
    }
    r.take(n * 4).map(Some)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::records::{
        decode_value, encode_key, encode_value, CurrentMemberAssignmentValue, RecordKey,
        RecordValue, TargetAssignmentMemberValue, TaskIds,
    };

    fn ids(sub: &str, parts: &[i32], epochs: Option<Vec<i32>>) -> TaskIds {
        TaskIds {
            subtopology_id: sub.into(),
            partitions: parts.to_vec(),
            assignment_epochs: epochs,
        }
    }

    /// A list as read in place.
    fn both(list: &[TaskIdsRef<'_>]) -> Vec<(String, Vec<i32>, Vec<i32>)> {
        list.iter()
            .map(|t| {
                (
                    t.subtopology_id.to_string(),
                    t.partitions().collect(),
                    t.epochs().collect(),
                )
            })
            .collect()
    }

    fn general(list: &[TaskIds]) -> Vec<(String, Vec<i32>, Vec<i32>)> {
        list.iter()
            .map(|t| {
                (
                    t.subtopology_id.clone(),
                    t.partitions.clone(),
                    t.assignment_epochs.clone().unwrap_or_default(),
                )
            })
            .collect()
    }

    #[test]
    fn reads_what_the_codec_reads() {
        for dialect in [Dialect::Kip1071Draft, Dialect::Kafka42] {
            let key = RecordKey::CurrentMemberAssignment {
                group_id: "g".into(),
                member_id: "m".into(),
            };
            let v = CurrentMemberAssignmentValue {
                member_epoch: 5,
                previous_member_epoch: 4,
                state: 1,
                active_tasks: vec![ids("0", &[1, 3], Some(vec![4, 5])), ids("1", &[], None)],
                standby_tasks: vec![ids("2", &[7], Some(vec![]))],
                active_tasks_pending_revocation: vec![ids("0", &[2], None)],
                ..Default::default()
            };
            let value = RecordValue::CurrentMemberAssignment(Box::new(v));
            let (kb, vb) = (encode_key(dialect, &key), encode_value(dialect, &value));
            let mut tasks = vec![task_ids_before()];
            let read =
                read(dialect, &kb, Some(&vb), &mut tasks, &mut Seen::new()).expect("read in place");
            assert_eq!((read.group_id, read.member_id), ("g", "m"));
            let Ok(RecordValue::CurrentMemberAssignment(g)) =
                decode_value(dialect, RecordType::CurrentMemberAssignment, &vb)
            else {
                panic!("general decode");
            };
            let MemberValue::Current {
                member_epoch,
                previous_member_epoch,
                state,
                lists,
            } = read.value.clone()
            else {
                panic!("a current assignment");
            };
            assert_eq!((member_epoch, previous_member_epoch, state), (5, 4, 1));
            let expected = super::super::codec::current_task_lists(&g);
            for (&one, general_list) in lists.iter().zip(expected) {
                assert_eq!(both(list(&tasks, one)), general(general_list));
            }
            // A tombstone, a truncated value and bytes after the end go the general way.
            assert!(read_none(dialect, &kb, None));
            assert!(read_none(dialect, &kb, Some(&vb[..vb.len() - 1])));
            let mut longer = vb.clone();
            longer.push(0);
            assert!(read_none(dialect, &kb, Some(&longer)));
        }
    }

    #[test]
    fn a_log_of_many_members_and_subtopologies_reads_each_record_its_own_strings() {
        let dialect = Dialect::Kafka42;
        let subs = ["0", "1", "2", "3", "4", "é"];
        let mut owned = Vec::new();
        for (m, group) in [("m1", "g"), ("m2", "g"), ("m1", "h"), ("m3", "h")] {
            let key = RecordKey::TargetAssignmentMember {
                group_id: group.into(),
                member_id: m.into(),
            };
            let value = RecordValue::TargetAssignmentMember(TargetAssignmentMemberValue {
                active_tasks: subs.iter().map(|s| ids(s, &[1], None)).collect(),
                standby_tasks: subs.iter().rev().map(|s| ids(s, &[2], None)).collect(),
                warmup_tasks: vec![],
            });
            owned.push((encode_key(dialect, &key), encode_value(dialect, &value)));
        }
        let records: Vec<(&[u8], Option<&[u8]>)> = owned
            .iter()
            .map(|(k, v)| (k.as_slice(), Some(v.as_slice())))
            .collect();
        let Ok(log) = read_log(dialect, &records) else {
            panic!("the log reads");
        };
        let read: Vec<(&str, &str, Vec<&str>)> = log
            .records
            .iter()
            .map(|(_, r)| {
                let ReadRecord::InPlace(r) = r else {
                    panic!("read in place");
                };
                let MemberValue::Target([active, standby, _]) = r.value else {
                    panic!("a target");
                };
                let subtopologies = list(&log.tasks, active)
                    .iter()
                    .chain(list(&log.tasks, standby))
                    .map(|t| t.subtopology_id)
                    .collect();
                (r.group_id, r.member_id, subtopologies)
            })
            .collect();
        let both_ways: Vec<&str> = subs.iter().chain(subs.iter().rev()).copied().collect();
        assert_eq!(
            read,
            [
                ("g", "m1", both_ways.clone()),
                ("g", "m2", both_ways.clone()),
                ("h", "m1", both_ways.clone()),
                ("h", "m3", both_ways),
            ]
        );
    }

    /// A `TaskIds` another record left in the log's list.
    fn task_ids_before() -> TaskIdsRef<'static> {
        TaskIdsRef {
            subtopology_id: "before",
            partitions: &[],
            epochs: &[],
        }
    }

    /// Whether the record goes the general way, leaving the log's `TaskIds` as they were.
    fn read_none(dialect: Dialect, key: &[u8], value: Option<&[u8]>) -> bool {
        let mut tasks = vec![task_ids_before()];
        let none = read(dialect, key, value, &mut tasks, &mut Seen::new()).is_none();
        none && tasks.len() == 1
    }

    #[test]
    fn reads_targets_and_leaves_other_records() {
        let dialect = Dialect::Kafka42;
        let key = RecordKey::TargetAssignmentMember {
            group_id: "g".into(),
            member_id: "m".into(),
        };
        let value = RecordValue::TargetAssignmentMember(TargetAssignmentMemberValue {
            active_tasks: vec![ids("a", &[0, 1], None)],
            standby_tasks: vec![],
            warmup_tasks: vec![ids("b", &[2], None)],
        });
        let (kb, vb) = (encode_key(dialect, &key), encode_value(dialect, &value));
        let mut tasks = Vec::new();
        let record =
            read(dialect, &kb, Some(&vb), &mut tasks, &mut Seen::new()).expect("read in place");
        let MemberValue::Target([active, standby, warmup]) = record.value else {
            panic!("a target");
        };
        let ab = both(list(&tasks, active));
        assert_eq!(ab, [("a".to_string(), vec![0, 1], vec![])]);
        assert!(list(&tasks, standby).is_empty());
        let wb = both(list(&tasks, warmup));
        assert_eq!(wb, [("b".to_string(), vec![2], vec![])]);
        let other = encode_key(
            dialect,
            &RecordKey::MemberMetadata {
                group_id: "g".into(),
                member_id: "m".into(),
            },
        );
        assert!(read_none(dialect, &other, Some(&vb)));
    }
}
