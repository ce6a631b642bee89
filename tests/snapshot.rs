//! `Coordinator::snapshot`: what views draw, including why a group has or lacks tasks.

use serde_json::json;
use streams_group_coordinator::Coordinator;

mod common;
use common::send;

#[test]
fn snapshot_explains_readiness_and_pending_timers() {
    let mut c = Coordinator::new(Default::default()).unwrap();
    send(
        &mut c,
        json!({"nowMs": 0, "type": "TopicMetadata", "topics": [{"name": "in", "partitions": 3}]}),
    );
    let topology = json!([{"subtopologyId": "0", "sourceTopics": ["in"],
        "stateChangelogTopics": [{"name": "app-store-changelog"}]}]);
    let out = send(
        &mut c,
        json!({"nowMs": 10, "type": "StreamsGroupInitialize",
        "request": {"groupId": "g", "topologyId": "t", "topology": topology}}),
    );
    assert_eq!(out["response"]["errorCode"], 0);
    let snap = serde_json::to_value(c.snapshot()).unwrap();
    let g = &snap["groups"][0];
    assert_eq!(g["state"], "EMPTY");
    assert_eq!(g["configuration"]["status"], "MISSING_INTERNAL_TOPICS");
    assert_eq!(g["configuration"]["detail"], json!(["app-store-changelog"]));
    assert_eq!(g["configuration"]["subtopologies"], json!([]));
    // The memberless group's retention countdown is pending.
    assert_eq!(snap["timers"][0]["kind"], "retention");
    assert_eq!(snap["timers"][0]["deadlineMs"], 10 + 10_080 * 60_000i64);

    send(
        &mut c,
        json!({"nowMs": 20, "type": "TopicMetadata", "topics": [{"name": "app-store-changelog", "partitions": 3}]}),
    );
    send(
        &mut c,
        json!({"nowMs": 30, "type": "StreamsGroupHeartbeat", "request": {"groupId": "g", "memberId": "m",
        "memberEpoch": 0, "topologyId": "t", "processId": "p", "rebalanceTimeoutMs": 1000,
        "activeTasks": [], "standbyTasks": [], "warmupTasks": []}}),
    );
    let snap = serde_json::to_value(c.snapshot()).unwrap();
    let g = &snap["groups"][0];
    assert_eq!(g["configuration"]["status"], "READY");
    assert_eq!(
        g["configuration"]["subtopologies"],
        json!([{"subtopologyId": "0", "numTasks": 3, "stateful": true}])
    );
    assert_eq!(g["members"][0]["memberState"], "STABLE");
    assert_eq!(
        g["members"][0]["assignment"]["activeTasks"],
        json!([{"subtopologyId": "0", "partitions": [0, 1, 2]}])
    );
}
