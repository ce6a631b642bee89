//! An output's JSON text written field by field, the contract's keys as constant text: serde's
//! serialiser passes every key through its escaping scan, a byte a step, and on a steady
//! heartbeat those scans cost more than the rest of the output's writing. Values still go
//! through serde_json, so that every number and string is written as the serialiser writes it;
//! the text is byte for byte [`super::OutputJson`]'s (a test compares both).

use serde::Serialize;

use super::heartbeat::{HeartbeatResponse, HeartbeatResponse42};
use super::response::Response;
use super::{Output, OutputJson, RecordsJson};

/// The text being written.
struct Text(Vec<u8>);

impl Text {
    /// Constant text: keys with their quotes, colons and commas.
    fn raw(&mut self, text: &str) {
        self.0.extend_from_slice(text.as_bytes());
    }

    /// A value, as serde_json writes it.
    fn value<T: Serialize + ?Sized>(&mut self, value: &T) -> serde_json::Result<()> {
        serde_json::to_writer(&mut self.0, value)
    }
}

/// The JSON text of `json` (its output's fields in the contract's order), or `None` if a value
/// cannot be written (serde_json's error, which the caller reports as the serialiser would).
pub(super) fn output_text(json: &OutputJson<'_>, capacity: usize) -> Option<String> {
    let mut t = Text(Vec::with_capacity(capacity));
    write_output(&mut t, json).ok()?;
    String::from_utf8(t.0).ok()
}

fn write_output(t: &mut Text, json: &OutputJson<'_>) -> serde_json::Result<()> {
    let out: &Output = json.out;
    t.raw("{\"response\":");
    match &out.response {
        Some(Response::Heartbeat(r)) => write_heartbeat(t, r)?,
        Some(Response::Heartbeat42(r)) => write_heartbeat42(t, r)?,
        other => t.value(other)?,
    }
    t.raw(",");
    write_fields(t, json)
}

/// Appends the output's fields but its response, as the object
/// `{"records", "topicsToCreate", "explain", "nextDeadlineMs"}`: what a wire face gives beside
/// the response frame. `false` if a value cannot be written (the buffer is then left as it was).
pub(super) fn append_fields_text(json: &OutputJson<'_>, buffer: &mut Vec<u8>) -> bool {
    let start = buffer.len();
    let mut t = Text(std::mem::take(buffer));
    t.raw("{");
    let written = write_fields(&mut t, json).is_ok();
    *buffer = t.0;
    if !written {
        buffer.truncate(start);
    }
    written
}

/// The fields after the response, and the closing brace.
fn write_fields(t: &mut Text, json: &OutputJson<'_>) -> serde_json::Result<()> {
    let out: &Output = json.out;
    t.raw("\"records\":");
    t.value(&RecordsJson(json))?;
    t.raw(",\"topicsToCreate\":");
    t.value(&out.topics_to_create)?;
    t.raw(",\"explain\":");
    t.value(&out.explain)?;
    t.raw(",\"nextDeadlineMs\":");
    t.value(&out.next_deadline_ms)?;
    t.raw("}");
    Ok(())
}

/// Opens an object and writes `value`'s fields, each `"key": field` in the order given (the
/// schema's), leaving it open.
macro_rules! fields {
    ($t:expr, $value:expr, $first:literal => $field:ident $(, $key:literal => $rest:ident)* $(,)?) => {{
        $t.raw(concat!("{\"", $first, "\":"));
        $t.value(&$value.$field)?;
        $(
            $t.raw(concat!(",\"", $key, "\":"));
            $t.value(&$value.$rest)?;
        )*
    }};
}

/// Writes `value`'s fields as an object ([`fields!`], closed).
macro_rules! object {
    ($t:expr, $($rest:tt)*) => {{
        fields!($t, $($rest)*);
        $t.raw("}");
    }};
}

/// A draft heartbeat response, fields in schema order.
fn write_heartbeat(t: &mut Text, r: &HeartbeatResponse) -> serde_json::Result<()> {
    object!(t, r,
        "throttleTimeMs" => throttle_time_ms,
        "errorCode" => error_code,
        "errorMessage" => error_message,
        "memberId" => member_id,
        "memberEpoch" => member_epoch,
        "heartbeatIntervalMs" => heartbeat_interval_ms,
        "acceptableRecoveryLag" => acceptable_recovery_lag,
        "taskOffsetIntervalMs" => task_offset_interval_ms,
        "shouldInitializeTopology" => should_initialize_topology,
        "groupTopologyId" => group_topology_id,
        "status" => status,
        "activeTasks" => active_tasks,
        "standbyTasks" => standby_tasks,
        "warmupTasks" => warmup_tasks,
        "partitionsByUserEndpoint" => partitions_by_user_endpoint,
    );
    Ok(())
}

/// A 4.2 heartbeat response, fields in schema order (version 1's `topologyDescriptionRequired`
/// only when set, as serde skips it).
fn write_heartbeat42(t: &mut Text, r: &HeartbeatResponse42) -> serde_json::Result<()> {
    fields!(t, r,
        "throttleTimeMs" => throttle_time_ms,
        "errorCode" => error_code,
        "errorMessage" => error_message,
        "memberId" => member_id,
        "memberEpoch" => member_epoch,
        "heartbeatIntervalMs" => heartbeat_interval_ms,
        "acceptableRecoveryLag" => acceptable_recovery_lag,
        "taskOffsetIntervalMs" => task_offset_interval_ms,
        "status" => status,
        "activeTasks" => active_tasks,
        "standbyTasks" => standby_tasks,
        "warmupTasks" => warmup_tasks,
    );
    if let Some(required) = r.topology_description_required {
        t.raw(",\"topologyDescriptionRequired\":");
        t.value(&required)?;
    }
    t.raw(",\"endpointInformationEpoch\":");
    t.value(&r.endpoint_information_epoch)?;
    t.raw(",\"partitionsByUserEndpoint\":");
    t.value(&r.partitions_by_user_endpoint)?;
    t.raw("}");
    Ok(())
}

// The writer's test on real outputs sits beside the coordinator that makes them
// (`coordinator::outputs_and_config`, under wasm too); these are properties, and proptest is a
// dev-dependency of native targets only.
#[cfg(all(test, not(target_arch = "wasm32")))]
mod tests {
    use super::*;
    use crate::api::common::{EndpointJson, TaskIdsJson};
    use crate::api::heartbeat::{EndpointToPartitionsJson, StatusJson, TopicPartitionJson};
    use crate::records::Dialect;

    /// Both ways of writing `out`, which must be the same text.
    fn both(out: &Output, dialect: Dialect, record_bytes: bool) -> (String, String) {
        let json = out.json(dialect, record_bytes);
        let serde = serde_json::to_string(&json).expect("serialises");
        (output_text(&json, 0).expect("writes"), serde)
    }

    mod model {
        use super::*;
        use proptest::prelude::*;

        fn text() -> impl Strategy<Value = String> {
            "[a-z\"\\\\/\u{0}-\u{1f}\u{7f}\u{e9}\u{20ac}\u{1f600}]{0,6}"
        }

        fn tasks() -> impl Strategy<Value = Option<Vec<TaskIdsJson>>> {
            proptest::option::of(proptest::collection::vec(
                (text(), proptest::collection::vec(any::<i32>(), 0..3)).prop_map(
                    |(subtopology_id, partitions)| TaskIdsJson {
                        subtopology_id,
                        partitions,
                    },
                ),
                0..3,
            ))
        }

        fn status() -> impl Strategy<Value = Option<Vec<StatusJson>>> {
            proptest::option::of(proptest::collection::vec(
                (any::<i8>(), text()).prop_map(|(status_code, status_detail)| StatusJson {
                    status_code,
                    status_detail,
                }),
                0..2,
            ))
        }

        fn endpoints() -> impl Strategy<Value = Option<Vec<EndpointToPartitionsJson>>> {
            proptest::option::of(proptest::collection::vec(
                (text(), any::<u16>(), text()).prop_map(|(host, port, topic)| {
                    EndpointToPartitionsJson {
                        user_endpoint: EndpointJson { host, port },
                        partitions: vec![TopicPartitionJson {
                            topic,
                            partitions: vec![0, -1],
                        }],
                    }
                }),
                0..2,
            ))
        }

        fn output(response: Response, next: Option<i64>) -> Output {
            Output {
                response: Some(response),
                records: Vec::new(),
                topics_to_create: Vec::new(),
                explain: Vec::new(),
                next_deadline_ms: next,
            }
        }

        proptest! {
            #[test]
            fn heartbeats_are_written_as_serde_writes_them(
                ints in proptest::array::uniform6(any::<i32>()),
                code in any::<i16>(),
                strings in proptest::array::uniform3(proptest::option::of(text())),
                flag in any::<bool>(),
                lists in (tasks(), tasks(), tasks()),
                status in status(),
                endpoints in endpoints(),
                next in proptest::option::of(any::<i64>()),
            ) {
                let [a, b, c, d, e, f] = ints;
                let [message, member, topology] = strings;
                let draft = HeartbeatResponse {
                    throttle_time_ms: a,
                    error_code: code,
                    error_message: message.clone(),
                    member_id: member.clone(),
                    member_epoch: b,
                    heartbeat_interval_ms: c,
                    acceptable_recovery_lag: d,
                    task_offset_interval_ms: e,
                    should_initialize_topology: flag,
                    group_topology_id: topology,
                    status: status.clone(),
                    active_tasks: lists.0.clone(),
                    standby_tasks: lists.1.clone(),
                    warmup_tasks: lists.2.clone(),
                    partitions_by_user_endpoint: endpoints,
                };
                let (ours, serde) = both(&output(Response::Heartbeat(Box::new(draft)), next), Dialect::Kip1071Draft, false);
                prop_assert_eq!(ours, serde);
                let v42 = HeartbeatResponse42 {
                    throttle_time_ms: a,
                    error_code: code,
                    error_message: message,
                    member_id: member.unwrap_or_default(),
                    member_epoch: b,
                    heartbeat_interval_ms: c,
                    acceptable_recovery_lag: i64::from(d) * i64::from(c),
                    task_offset_interval_ms: e,
                    status,
                    active_tasks: lists.0,
                    standby_tasks: lists.1,
                    warmup_tasks: lists.2,
                    topology_description_required: (a % 3 != 0).then_some(flag),
                    endpoint_information_epoch: f,
                    partitions_by_user_endpoint: None,
                };
                let (ours, serde) = both(&output(Response::Heartbeat42(Box::new(v42)), next), Dialect::Kafka42, false);
                prop_assert_eq!(ours, serde);
            }
        }
    }
}
