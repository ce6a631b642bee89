//! A steady heartbeat frame allocates nothing once the host keeps a `FrameScratch` and a
//! response buffer: a counting allocator counts the allocations of a second round of every
//! member's steady heartbeat, in each dialect, with a client id in each frame's header and a
//! client address. One test in this binary, so that no other test allocates while it counts.

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering};

use serde_json::{json, Value};
use streams_group_coordinator::api::{ClientInfo, HeartbeatRequest, TaskIdsJson};
use streams_group_coordinator::group::GroupState;
use streams_group_coordinator::wire::{
    encode_request, handle_frame_with, response_json, FrameScratch, Peer,
};
use streams_group_coordinator::{Config, Coordinator, Dialect, InputKind};

struct Counting;

static ALLOCATIONS: AtomicUsize = AtomicUsize::new(0);

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        ALLOCATIONS.fetch_add(1, Ordering::SeqCst);
        // SAFETY: forwarded to the system allocator with the caller's layout.
        unsafe { System.alloc(layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        ALLOCATIONS.fetch_add(1, Ordering::SeqCst);
        // SAFETY: `ptr` came from this allocator with `layout`.
        unsafe { System.realloc(ptr, layout, new_size) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: `ptr` came from `alloc` above with this layout.
        unsafe { System.dealloc(ptr, layout) }
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

const MEMBERS: usize = 30;

/// A member as its client knows itself.
struct Member {
    id: String,
    client_id: String,
    epoch: i32,
    endpoint_epoch: i32,
    owned: [Value; 3],
}

/// A group of [`MEMBERS`] driven to `STABLE` through the JSON face, every heartbeat with its
/// client id and address, each member sending what it owns.
fn stable_group(dialect: Dialect) -> (Coordinator, Vec<Member>, i64) {
    let config = Config {
        dialect,
        ..Config::default()
    };
    let mut c = Coordinator::new(config).expect("a valid config");
    let draft = dialect == Dialect::Kip1071Draft;
    let topics =
        json!({"nowMs": 0, "type": "TopicMetadata", "topics": [{"name": "a", "partitions": 60}]});
    c.handle_json(&topics.to_string());
    let subtopologies = json!([{"subtopologyId": "0", "sourceTopics": ["a"]}]);
    if draft {
        let init = json!({"nowMs": 0, "type": "StreamsGroupInitialize", "request": {"groupId": "g", "topologyId": "t", "topology": subtopologies}});
        c.handle_json(&init.to_string());
    }
    let mut members: Vec<Member> = (0..MEMBERS)
        .map(|i| Member {
            id: format!("member-{i:02}"),
            client_id: format!("app-{i}-StreamThread-1-consumer"),
            epoch: 0,
            endpoint_epoch: -1,
            owned: [json!([]), json!([]), json!([])],
        })
        .collect();
    let mut now = 1;
    for round in 0..40 {
        let mut records = 0;
        for (i, m) in members.iter_mut().enumerate() {
            let mut request = json!({"groupId": "g", "memberId": m.id, "memberEpoch": m.epoch,
                "activeTasks": m.owned[0], "standbyTasks": m.owned[1], "warmupTasks": m.owned[2]});
            if round == 0 {
                request["processId"] = json!(format!("p{}", i % 10));
                request["rebalanceTimeoutMs"] = json!(60_000);
                if draft {
                    request["topologyId"] = json!("t");
                } else {
                    request["topology"] = json!({"epoch": 0, "subtopologies": subtopologies});
                }
            }
            if !draft {
                request["endpointInformationEpoch"] = json!(m.endpoint_epoch);
            }
            let input = json!({"nowMs": now, "type": "StreamsGroupHeartbeat",
                "client": {"clientId": m.client_id, "clientHost": HOST}, "request": request});
            let out: Value =
                serde_json::from_str(&c.handle_json(&input.to_string())).expect("an output");
            let response = &out["response"];
            assert_eq!(response["errorCode"], 0, "{}: {out}", dialect.name());
            records += out["records"].as_array().map_or(0, Vec::len);
            m.epoch = response["memberEpoch"].as_i64().unwrap_or(0) as i32;
            m.endpoint_epoch = response["endpointInformationEpoch"].as_i64().unwrap_or(-1) as i32;
            for (k, list) in ["activeTasks", "standbyTasks", "warmupTasks"]
                .iter()
                .enumerate()
            {
                if !response[*list].is_null() {
                    m.owned[k] = response[*list].clone();
                }
            }
        }
        let stable = c.group("g").map(|g| c.group_state(g)) == Some(GroupState::Stable);
        if round > 0 && records == 0 && stable {
            return (c, members, now);
        }
        now += 1_000;
    }
    panic!("{}: the group did not reach STABLE", dialect.name());
}

const HOST: &str = "/10.0.0.1";

#[test]
fn a_steady_heartbeat_frame_allocates_nothing_with_a_kept_scratch() {
    for dialect in [
        Dialect::Kip1071Draft,
        Dialect::Kafka42,
        Dialect::Kafka43,
        Dialect::Kafka44,
    ] {
        let (c, members, now) = stable_group(dialect);
        // Each member's steady heartbeat, its client id in the header as a client sends it:
        // without task lists (unchanged), and with the tasks it owns.
        for lists in [false, true] {
            let mut c = c.clone();
            steady_round_allocates_nothing(&mut c, dialect, &members, now, lists);
        }
    }
}

fn steady_round_allocates_nothing(
    c: &mut Coordinator,
    dialect: Dialect,
    members: &[Member],
    now: i64,
    lists: bool,
) {
    let task_list = |v: &Value| -> Option<Vec<TaskIdsJson>> {
        lists.then(|| serde_json::from_value(v.clone()).expect("task lists"))
    };
    let frames: Vec<Vec<u8>> = members
        .iter()
        .enumerate()
        .map(|(i, m)| {
            let kind = InputKind::StreamsGroupHeartbeat {
                client: ClientInfo {
                    client_id: m.client_id.clone(),
                    client_host: String::new(),
                },
                request: Box::new(HeartbeatRequest {
                    group_id: "g".into(),
                    member_id: m.id.clone(),
                    member_epoch: m.epoch,
                    rebalance_timeout_ms: -1,
                    endpoint_information_epoch: (dialect != Dialect::Kip1071Draft)
                        .then_some(m.endpoint_epoch),
                    active_tasks: task_list(&m.owned[0]),
                    standby_tasks: task_list(&m.owned[1]),
                    warmup_tasks: task_list(&m.owned[2]),
                    ..Default::default()
                }),
            };
            encode_request(dialect, &kind, 0, i as i32).expect("a heartbeat frame")
        })
        .collect();
    let key = i16::from_be_bytes([frames[0][0], frames[0][1]]);
    let peer = Peer {
        client_host: HOST.into(),
    };
    let mut scratch = FrameScratch::default();
    let mut out = Vec::new();
    let mut round = |c: &mut Coordinator, check: bool| -> usize {
        let before = ALLOCATIONS.load(Ordering::SeqCst);
        let mut records = 0;
        for frame in &frames {
            let output = handle_frame_with(c, &mut scratch, frame, now, &peer, &mut out)
                .expect("a steady heartbeat is answered");
            records += output.records.len();
            if check {
                // (Reading the answer back allocates: not in the counted round.)
                let (_, read) = response_json(dialect, key, 0, &out).expect("a response");
                assert_eq!(read["errorCode"], 0, "{}: {read}", dialect.name());
                assert!(read["activeTasks"].is_null(), "{}: {read}", dialect.name());
            }
        }
        assert_eq!(
            records,
            0,
            "{}: a steady heartbeat writes no record",
            dialect.name()
        );
        ALLOCATIONS.load(Ordering::SeqCst) - before
    };
    // The first round grows the kept buffers and checks the answers; the second must not
    // allocate.
    round(c, true);
    let allocations = round(c, false);
    assert_eq!(
        allocations,
        0,
        "{} (task lists: {lists}): {MEMBERS} steady heartbeat frames allocated {allocations} times",
        dialect.name()
    );
}
