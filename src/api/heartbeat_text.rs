//! The fast way in for the most frequent input, a steady heartbeat (feature `heartbeat-text`):
//! its text read by one scan straight into the typed request, without serde's derived decoders
//! (a visitor per field, each key matched by comparing strings).
//!
//! The scan knows the shape a heartbeat that carries no topology has: an object of `nowMs` (a
//! non-negative integer), `type` (`"StreamsGroupHeartbeat"`), `request` and, optionally,
//! `client` (`clientId`, `clientHost`), each key once, in any order, with any JSON whitespace.
//! The request: `groupId`, `memberId` and `memberEpoch` (required, as the typed request has
//! them), `instanceId`, `rackId`, `topologyId` and `processId` (strings or null),
//! `rebalanceTimeoutMs`, `endpointInformationEpoch` (integers, the latter or null),
//! `shutdownApplication` and the three owned task lists (null, or lists of `subtopologyId` and
//! `partitions`). Strings have no escapes. Anything else, such as a topology, an endpoint,
//! tags, task offsets, an escape or a fraction, is `None`: serde's reading
//! ([`super::heartbeat_from_text`]) takes it, and the general path after it gives every error
//! its path. The caller has checked the text against the string limit, which also bounds
//! every list.

use super::scan::Scan;
use super::{ClientInfo, HeartbeatRequest, Input, InputKind, TaskIdsJson};

/// The heartbeat input of `text`, or `None` when it is not of the one shape this reads.
pub(super) fn heartbeat_from_scan(text: &str) -> Option<Input> {
    let mut scan = Scan::new(text);
    let (mut now_ms, mut kind, mut client, mut request) = (None, false, None, None);
    scan.expect(b'{')?;
    loop {
        match scan.key()? {
            b"nowMs" if now_ms.is_none() => now_ms = Some(scan.natural()?),
            b"type" if !kind => {
                scan.expect_text(b"\"StreamsGroupHeartbeat\"")?;
                kind = true;
            }
            b"request" if request.is_none() => request = Some(scan.request()?),
            b"client" if client.is_none() => client = Some(scan.client()?),
            _ => return None,
        }
        if !scan.more(b'}')? {
            break;
        }
    }
    if !(kind && scan.at_end()) {
        return None;
    }
    Some(Input {
        now_ms: now_ms?,
        kind: InputKind::StreamsGroupHeartbeat {
            client: client.unwrap_or_default(),
            request: request?,
        },
    })
}

impl Scan<'_> {
    /// The request object, built in place.
    fn request(&mut self) -> Option<Box<HeartbeatRequest>> {
        let mut r = Box::new(HeartbeatRequest {
            rebalance_timeout_ms: -1,
            ..HeartbeatRequest::default()
        });
        // Which keys were read, so that a second one is refused (the required three are the
        // lowest bits).
        let mut seen = 0u32;
        self.expect(b'{')?;
        loop {
            let bit = match self.key()? {
                b"groupId" => {
                    r.group_id = self.string()?.to_string();
                    1
                }
                b"memberId" => {
                    r.member_id = self.string()?.to_string();
                    1 << 1
                }
                b"memberEpoch" => {
                    r.member_epoch = self.int32()?;
                    1 << 2
                }
                b"instanceId" => {
                    r.instance_id = self.optional_string()?;
                    1 << 3
                }
                b"rackId" => {
                    r.rack_id = self.optional_string()?;
                    1 << 4
                }
                b"topologyId" => {
                    r.topology_id = self.optional_string()?;
                    1 << 5
                }
                b"processId" => {
                    r.process_id = self.optional_string()?;
                    1 << 6
                }
                b"rebalanceTimeoutMs" => {
                    r.rebalance_timeout_ms = self.int32()?;
                    1 << 7
                }
                b"endpointInformationEpoch" => {
                    r.endpoint_information_epoch = self.nullable(Self::int32)?;
                    1 << 8
                }
                b"shutdownApplication" => {
                    r.shutdown_application = self.boolean()?;
                    1 << 9
                }
                b"activeTasks" => {
                    r.active_tasks = self.task_lists()?;
                    1 << 10
                }
                b"standbyTasks" => {
                    r.standby_tasks = self.task_lists()?;
                    1 << 11
                }
                b"warmupTasks" => {
                    r.warmup_tasks = self.task_lists()?;
                    1 << 12
                }
                _ => return None,
            };
            if seen & bit != 0 {
                return None;
            }
            seen |= bit;
            if !self.more(b'}')? {
                break;
            }
        }
        (seen & 0b111 == 0b111).then_some(r)
    }

    /// A string or null (`Some(None)`).
    fn optional_string(&mut self) -> Option<Option<String>> {
        self.nullable(|scan| scan.string().map(str::to_string))
    }

    /// An owned task list: null (`Some(None)`) or a list of `subtopologyId` and `partitions`.
    fn task_lists(&mut self) -> Option<Option<Vec<TaskIdsJson>>> {
        self.nullable(|scan| scan.list(Self::task_ids))
    }

    /// `null` (`Some(None)`), or what `read` reads.
    fn nullable<T>(&mut self, read: impl FnOnce(&mut Self) -> Option<T>) -> Option<Option<T>> {
        match self.null() {
            true => Some(None),
            false => read(self).map(Some),
        }
    }

    /// A list of what `item` reads.
    fn list<T>(&mut self, mut item: impl FnMut(&mut Self) -> Option<T>) -> Option<Vec<T>> {
        self.expect(b'[')?;
        let mut list = Vec::new();
        if self.empty(b']') {
            return Some(list);
        }
        loop {
            list.push(item(self)?);
            if !self.more(b']')? {
                return Some(list);
            }
        }
    }

    /// One subtopology's partitions.
    fn task_ids(&mut self) -> Option<TaskIdsJson> {
        let (mut subtopology, mut partitions) = (None, None);
        self.expect(b'{')?;
        loop {
            match self.key()? {
                b"subtopologyId" if subtopology.is_none() => {
                    subtopology = Some(self.string()?.to_string());
                }
                b"partitions" if partitions.is_none() => partitions = Some(self.list(Self::int32)?),
                _ => return None,
            }
            if !self.more(b'}')? {
                break;
            }
        }
        Some(TaskIdsJson {
            subtopology_id: subtopology?,
            partitions: partitions?,
        })
    }

    /// `client`: `clientId` and `clientHost`, each optional.
    fn client(&mut self) -> Option<ClientInfo> {
        let (mut id, mut host) = (None, None);
        self.expect(b'{')?;
        if self.empty(b'}') {
            return Some(ClientInfo::default());
        }
        loop {
            match self.key()? {
                b"clientId" if id.is_none() => id = Some(self.string()?.to_string()),
                b"clientHost" if host.is_none() => host = Some(self.string()?.to_string()),
                _ => return None,
            }
            if !self.more(b'}')? {
                break;
            }
        }
        Some(ClientInfo {
            client_id: id.unwrap_or_default(),
            client_host: host.unwrap_or_default(),
        })
    }
}

#[cfg(all(test, not(target_arch = "wasm32")))]
mod tests {
    use proptest::prelude::*;

    use super::super::heartbeat_from_serde;
    use super::*;

    const STEADY: &str = r#"{"nowMs":16001,"type":"StreamsGroupHeartbeat","request":{"groupId":"bench","memberId":"m00000","memberEpoch":1001,"activeTasks":[{"subtopologyId":"0","partitions":[0]},{"subtopologyId":"1","partitions":[0,7]}],"standbyTasks":[],"warmupTasks":null}}"#;

    #[test]
    fn reads_what_serde_reads() {
        let both = [
            STEADY,
            r#" { "request" : { "memberEpoch" : -1 , "memberId" : "m" , "groupId" : "" } , "type" : "StreamsGroupHeartbeat" , "nowMs" : 0 } "#,
            r#"{"nowMs":5,"type":"StreamsGroupHeartbeat","client":{"clientId":"app","clientHost":"/10.0.0.1"},"request":{"groupId":"g","memberId":"é-1","memberEpoch":0,"instanceId":"i","rackId":null,"topologyId":"t","processId":"p","rebalanceTimeoutMs":30000,"endpointInformationEpoch":3,"shutdownApplication":true,"activeTasks":null,"standbyTasks":[{"subtopologyId":"a","partitions":[]}],"warmupTasks":[]}}"#,
            r#"{"nowMs":5,"type":"StreamsGroupHeartbeat","client":{},"request":{"groupId":"g","memberId":"m","memberEpoch":2147483647,"endpointInformationEpoch":null,"shutdownApplication":false,"rebalanceTimeoutMs":-2147483648}}"#,
            r#"{"nowMs":999999999999999999,"type":"StreamsGroupHeartbeat","request":{"groupId":"g","memberId":"m","memberEpoch":1},"client":{"clientHost":"h"}}"#,
        ];
        for text in both {
            let scanned = heartbeat_from_scan(text);
            assert!(scanned.is_some(), "{text}");
            assert_eq!(scanned, heartbeat_from_serde(text), "{text}");
        }
        let Some(Input {
            now_ms: 16001,
            kind: InputKind::StreamsGroupHeartbeat { request, .. },
        }) = heartbeat_from_scan(STEADY)
        else {
            panic!("the steady heartbeat reads");
        };
        assert_eq!(request.rebalance_timeout_ms, -1, "absent: serde's default");
        assert_eq!(request.active_tasks.as_ref().map(Vec::len), Some(2));
        assert_eq!(request.standby_tasks, Some(Vec::new()));
        assert_eq!(request.warmup_tasks, None);
    }

    #[test]
    fn leaves_what_it_does_not_know_to_serde() {
        let serde_only = [
            r#"{"nowMs":1,"type":"StreamsGroupHeartbeat","request":{"groupId":"g\u0041","memberId":"m","memberEpoch":1}}"#,
            r#"{"nowMs":1,"type":"StreamsGroupHeartbeat","request":{"groupId":"g","memberId":"m","memberEpoch":1,"topology":{"epoch":0}}}"#,
            r#"{"nowMs":1,"type":"StreamsGroupHeartbeat","request":{"groupId":"g","memberId":"m","memberEpoch":1,"taskOffsets":[]}}"#,
            r#"{"nowMs":1,"type":"StreamsGroupHeartbeat","client":null,"request":{"groupId":"g","memberId":"m","memberEpoch":1}}"#,
            r#"{"nowMs":1,"type":"StreamsGroupHeartbeat","request":{"groupId":"g","memberId":"m","memberEpoch":1,"userEndpoint":{"host":"h","port":1}}}"#,
        ];
        for text in serde_only {
            assert_eq!(heartbeat_from_scan(text), None, "{text}");
            assert!(heartbeat_from_serde(text).is_some(), "{text}");
        }
        let neither = [
            "",
            "{}",
            r#"{"nowMs":1,"type":"StreamsGroupHeartbeat","request":{"groupId":"g","memberId":"m"}}"#,
            r#"{"nowMs":1,"type":"StreamsGroupHeartbeat","request":{"groupId":"g","groupId":"g","memberId":"m","memberEpoch":1}}"#,
            r#"{"nowMs":1,"type":"StreamsGroupHeartbeat","request":{"groupId":"g","memberId":"m","memberEpoch":2147483648}}"#,
            r#"{"nowMs":1,"type":"StreamsGroupHeartbeat","request":{"groupId":"g","memberId":"m","memberEpoch":1.0}}"#,
            r#"{"nowMs":1,"type":"StreamsGroupHeartbeat","request":{"groupId":"g","memberId":"m","memberEpoch":01}}"#,
            // serde_json reads `-0` as a float.
            r#"{"nowMs":1,"type":"StreamsGroupHeartbeat","request":{"groupId":"g","memberId":"m","memberEpoch":-0}}"#,
            r#"{"nowMs":-1,"type":"StreamsGroupHeartbeat","request":{"groupId":"g","memberId":"m","memberEpoch":1}}"#,
            r#"{"nowMs":1,"type":"StreamsGroupDescribe","request":{"groupId":"g","memberId":"m","memberEpoch":1}}"#,
            r#"{"nowMs":1,"type":"StreamsGroupHeartbeat","request":{"groupId":"g","memberId":"m","memberEpoch":1}} x"#,
            r#"{"nowMs":1,"type":"StreamsGroupHeartbeat","request":{"groupId":"g","memberId":"m","memberEpoch":1,"activeTasks":[{"partitions":[1]}]}}"#,
            r#"{"nowMs":1,"type":"StreamsGroupHeartbeat","request":{"groupId":"g","memberId":"m","memberEpoch":1,"extra":1}}"#,
            "{\"nowMs\":1,\"type\":\"StreamsGroupHeartbeat\",\"request\":{\"groupId\":\"a\tb\",\"memberId\":\"m\",\"memberEpoch\":1}}",
        ];
        for text in neither {
            assert_eq!(heartbeat_from_scan(text), None, "{text}");
            assert_eq!(heartbeat_from_serde(text), None, "{text}");
        }
    }

    /// A heartbeat text from the parts proptest picks: each field present or not (a `None`
    /// leaves it out, `Some(None)` writes null), in the order of `order`.
    fn heartbeat_text(
        fields: &[(&str, Option<String>)],
        order: &[usize],
        space: &str,
        now_ms: i64,
    ) -> String {
        let mut request: Vec<String> = Vec::new();
        for &i in order {
            if let Some((key, Some(value))) = fields.get(i) {
                request.push(format!("\"{key}\"{space}:{space}{value}"));
            }
        }
        format!(
            "{{{space}\"nowMs\":{now_ms},\"request\":{space}{{{}}},{space}\"type\":\"StreamsGroupHeartbeat\"{space}}}",
            request.join(&format!("{space},"))
        )
    }

    fn task_lists() -> impl Strategy<Value = Option<String>> {
        proptest::option::of(proptest::option::of(proptest::collection::vec(
            ("[a-z0-9]{1,3}", proptest::collection::vec(-3i32..300, 0..4)),
            0..3,
        )))
        .prop_map(|lists| {
            lists.map(|lists| match lists {
                None => "null".to_string(),
                Some(lists) => {
                    let items: Vec<String> = lists
                        .iter()
                        .map(|(s, p)| format!("{{\"subtopologyId\":\"{s}\",\"partitions\":{p:?}}}"))
                        .collect();
                    format!("[{}]", items.join(","))
                }
            })
        })
    }

    fn optional_string() -> impl Strategy<Value = Option<String>> {
        proptest::option::of(proptest::option::of("[a-zA-Z0-9é -]{0,6}"))
            .prop_map(|s| s.map(|s| s.map_or("null".to_string(), |s| format!("\"{s}\""))))
    }

    fn optional_int() -> impl Strategy<Value = Option<String>> {
        proptest::option::of(prop_oneof![Just(i32::MIN), Just(i32::MAX), -5i32..5000])
            .prop_map(|n| n.map(|n| n.to_string()))
    }

    proptest! {
        /// Any text of the shape reads as serde reads it; that text with one byte replaced,
        /// inserted or removed (JSON's own characters the likeliest picks) is read as serde
        /// reads it or left to serde.
        #[test]
        fn a_text_and_its_mutants_read_as_serde_reads_them(
            group in "[a-z]{0,5}",
            member in "[a-z0-9-]{0,8}",
            epoch in -2i32..3000,
            strings in proptest::collection::vec(optional_string(), 4),
            ints in proptest::collection::vec(optional_int(), 2),
            shutdown in proptest::option::of(any::<bool>()),
            lists in proptest::collection::vec(task_lists(), 3),
            order in Just((0..13).collect::<Vec<usize>>()).prop_shuffle(),
            space in prop::sample::select(vec!["", " ", "\n\t"]),
            now_ms in 0i64..1 << 40,
            at in any::<prop::sample::Index>(),
            edit in 0..3u8,
            byte in prop::sample::select(b"{}[],:\"\\ =Aa0-.en/+1tfl".to_vec()),
        ) {
            let [instance, rack, topology, process] = [0, 1, 2, 3].map(|i| strings[i].clone());
            let [timeout, endpoint_epoch] = [0, 1].map(|i| ints[i].clone());
            let [active, standby, warmup] = [0, 1, 2].map(|i| lists[i].clone());
            let fields = [
                ("groupId", Some(format!("\"{group}\""))),
                ("memberId", Some(format!("\"{member}\""))),
                ("memberEpoch", Some(epoch.to_string())),
                ("instanceId", instance),
                ("rackId", rack),
                ("topologyId", topology),
                ("processId", process),
                ("rebalanceTimeoutMs", timeout),
                ("endpointInformationEpoch", endpoint_epoch),
                ("shutdownApplication", shutdown.map(|b| b.to_string())),
                ("activeTasks", active),
                ("standbyTasks", standby),
                ("warmupTasks", warmup),
            ];
            let text = heartbeat_text(&fields, &order, space, now_ms);
            let scanned = heartbeat_from_scan(&text);
            prop_assert!(scanned.is_some(), "{}", text);
            prop_assert_eq!(&scanned, &heartbeat_from_serde(&text), "{}", text);

            // A mutation inside a multi-byte character is no text: nothing to read.
            if let Some(mutant) = super::super::scan::mutant(&text, at, edit, byte) {
                let scanned = heartbeat_from_scan(&mutant);
                prop_assert!(scanned.is_none() || scanned == heartbeat_from_serde(&mutant), "{}", mutant);
            }
        }
    }
}
