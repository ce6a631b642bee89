//! Assignment records read in place, for a log read back (`Replay`): a target or current
//! assignment record's key and task lists borrowed from its decoded bytes, so that replay builds
//! the member's task maps straight from them, with no record of owned strings and lists in
//! between (two thirds of a group's records are these).
//!
//! The reader takes exactly what [`codec`](super::codec) takes, with the same checks in the same
//! order; a record it does not read (another type, a tombstone, bytes either reader refuses)
//! goes the general way, which gives the error and its path.

use super::codec::{min_size, record_type};
use super::wire::{Reader, WireError, WireResult};
use super::{Dialect, Record, RecordType};

/// A record as read from a log's bytes: in place, or decoded the general way.
#[derive(Clone, Debug)]
pub(crate) enum ReadRecord<'a> {
    Decoded(Record),
    InPlace(AssignmentRecord<'a>),
}

/// A target or current assignment record, borrowed from its bytes: every `TaskIds` of its
/// lists read once, in one list, which each of its task lists is a range of.
#[derive(Clone, Debug)]
pub(crate) struct AssignmentRecord<'a> {
    pub(crate) group_id: &'a str,
    pub(crate) member_id: &'a str,
    pub(crate) value: AssignmentValue,
    tasks: Vec<TaskIdsRef<'a>>,
}

/// A task list of an [`AssignmentRecord`]: its range of the record's `TaskIds`.
pub(crate) type TaskList = (usize, usize);

/// The value of an [`AssignmentRecord`].
#[derive(Clone, Debug)]
pub(crate) enum AssignmentValue {
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

impl<'a> AssignmentRecord<'a> {
    /// The `TaskIds` of one of its lists, in order.
    pub(crate) fn list(&self, (start, end): TaskList) -> &[TaskIdsRef<'a>] {
        self.tasks.get(start..end).unwrap_or_default()
    }
}

/// The record, when it is a target or current assignment record (not a tombstone) that the
/// general decoder would take; `None` sends it the general way.
pub(crate) fn read<'a>(
    dialect: Dialect,
    key: &'a [u8],
    value: Option<&'a [u8]>,
) -> Option<AssignmentRecord<'a>> {
    let mut k = Reader::new(key);
    let t = record_type(dialect, k.i16().ok()?)?;
    if !matches!(
        t,
        RecordType::TargetAssignmentMember | RecordType::CurrentMemberAssignment
    ) {
        return None;
    }
    let group_id = k.key_str().ok()?;
    let member_id = k.key_str().ok()?;
    k.finish().ok()?;
    let mut tasks = Vec::new();
    let value = read_value(dialect, t, &mut Reader::new(value?), &mut tasks).ok()?;
    Some(AssignmentRecord {
        group_id,
        member_id,
        value,
        tasks,
    })
}

fn read_value<'a>(
    dialect: Dialect,
    t: RecordType,
    r: &mut Reader<'a>,
    tasks: &mut Vec<TaskIdsRef<'a>>,
) -> WireResult<AssignmentValue> {
    if r.i16()? != 0 {
        return Err(WireError::new("unsupported value version"));
    }
    let value = if t == RecordType::TargetAssignmentMember {
        let mut lists = [(0, 0); 3];
        for list in &mut lists {
            *list = read_list(r, false, tasks)?;
        }
        AssignmentValue::Target(lists)
    } else {
        let v42 = dialect == Dialect::Kafka42;
        let member_epoch = r.i32()?;
        let previous_member_epoch = r.i32()?;
        let state = r.i8()?;
        let mut lists = [(0, 0); 6];
        for list in &mut lists {
            *list = read_list(r, v42, tasks)?;
        }
        AssignmentValue::Current {
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

/// A non-nullable `TaskIds` array, its elements appended to `tasks`.
fn read_list<'a>(
    r: &mut Reader<'a>,
    with_epochs: bool,
    tasks: &mut Vec<TaskIdsRef<'a>>,
) -> WireResult<TaskList> {
    let len = r
        .compact_len()?
        .ok_or_else(|| WireError::new("null in a non-nullable array"))?;
    if len > r.remaining() / min_size::TASK_IDS {
        return Err(WireError::new("array cannot fit in the remaining bytes"));
    }
    let start = tasks.len();
    for _ in 0..len {
        tasks.push(read_task_ids(r, with_epochs)?);
    }
    Ok((start, tasks.len()))
}

fn read_task_ids<'a>(r: &mut Reader<'a>, with_epochs: bool) -> WireResult<TaskIdsRef<'a>> {
    let subtopology_id = r.compact_str()?;
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
            let value = RecordValue::CurrentMemberAssignment(v);
            let (kb, vb) = (encode_key(dialect, &key), encode_value(dialect, &value));
            let read = read(dialect, &kb, Some(&vb)).expect("read in place");
            assert_eq!((read.group_id, read.member_id), ("g", "m"));
            let Ok(RecordValue::CurrentMemberAssignment(g)) =
                decode_value(dialect, RecordType::CurrentMemberAssignment, &vb)
            else {
                panic!("general decode");
            };
            let AssignmentValue::Current {
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
            for (list, general_list) in lists.iter().zip(expected) {
                assert_eq!(both(read.list(*list)), general(general_list));
            }
            // A tombstone, a truncated value and bytes after the end go the general way.
            assert!(read_none(dialect, &kb, None));
            assert!(read_none(dialect, &kb, Some(&vb[..vb.len() - 1])));
            let mut longer = vb.clone();
            longer.push(0);
            assert!(read_none(dialect, &kb, Some(&longer)));
        }
    }

    fn read_none(dialect: Dialect, key: &[u8], value: Option<&[u8]>) -> bool {
        read(dialect, key, value).is_none()
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
        let record = read(dialect, &kb, Some(&vb)).expect("read in place");
        let AssignmentValue::Target([active, standby, warmup]) = record.value else {
            panic!("a target");
        };
        let ab = both(record.list(active));
        assert_eq!(ab, [("a".to_string(), vec![0, 1], vec![])]);
        assert!(record.list(standby).is_empty());
        let wb = both(record.list(warmup));
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
