//! A failed input changes nothing (DESIGN 2), timers included: an input answered with a boundary
//! error leaves every group, timer and the clock as they were, and the timers due by its time
//! fire with the next input instead, so the host's log always replays to the live state.

use serde_json::{json, Value};
use streams_group_coordinator::Coordinator;

mod common;
use common::{observed, send};

fn describe(c: &mut Coordinator, now: i64) -> Value {
    let out = send(
        c,
        json!({"nowMs": now, "type": "StreamsGroupDescribe", "request": {"groupIds": ["g"]}}),
    );
    out["response"].clone()
}

#[test]
fn a_failed_replay_fires_no_timer_and_loses_no_record() {
    let mut c = Coordinator::from_json_config(&json!({"dialect": "kafka-4.2"})).unwrap();
    let mut log: Vec<Value> = Vec::new();
    let keep = |out: &Value, log: &mut Vec<Value>| {
        log.extend(out["records"].as_array().into_iter().flatten().cloned());
    };
    let out = send(
        &mut c,
        json!({"nowMs": 0, "type": "TopicMetadata", "topics": [{"name": "in", "partitions": 2}]}),
    );
    keep(&out, &mut log);
    let out = send(
        &mut c,
        json!({"nowMs": 1000, "type": "StreamsGroupHeartbeat", "request": {
            "groupId": "g", "memberId": "m1", "memberEpoch": 0, "endpointInformationEpoch": -1,
            "processId": "p1", "rebalanceTimeoutMs": 300000,
            "topology": {"epoch": 0, "subtopologies": [{"subtopologyId": "0", "sourceTopics": ["in"]}]},
            "activeTasks": [], "standbyTasks": [], "warmupTasks": []}}),
    );
    keep(&out, &mut log);
    assert_eq!(out["nextDeadlineMs"], 4000, "{out}");
    // A second member configures the stored group (the creating join's configuration is not
    // kept, as in Kafka), so that the delay computes when it fires.
    let out = send(
        &mut c,
        json!({"nowMs": 2000, "type": "StreamsGroupHeartbeat", "request": {
            "groupId": "g", "memberId": "m2", "memberEpoch": 0, "endpointInformationEpoch": -1,
            "processId": "p2", "rebalanceTimeoutMs": 300000,
            "topology": {"epoch": 0, "subtopologies": [{"subtopologyId": "0", "sourceTopics": ["in"]}]},
            "activeTasks": [], "standbyTasks": [], "warmupTasks": []}}),
    );
    keep(&out, &mut log);
    let before = observed(&c);

    // The initial rebalance delay is due at 4000; the Replay at 5000 cannot be applied.
    let out = send(
        &mut c,
        json!({"nowMs": 5000, "type": "Replay",
               "records": [{"key": {"type": 20, "data": {"groupId": "g"}}, "value": null}]}),
    );
    assert_eq!(out["error"]["code"], "INVALID_RECORD", "{out}");
    assert_eq!(out["error"]["path"], "records[0]", "{out}");
    assert_eq!(
        observed(&c),
        before,
        "a failed Replay changed the coordinator"
    );
    let described = describe(&mut c, 1000);
    assert_eq!(described["groups"][0]["assignmentEpoch"], 0, "{described}");

    // The delay fires with the next input, and its records reach the output.
    let out = send(&mut c, json!({"nowMs": 5000, "type": "AdvanceTime"}));
    assert!(
        !out["records"].as_array().unwrap().is_empty(),
        "the delayed assignment wrote nothing: {out}"
    );
    keep(&out, &mut log);
    let mut rebuilt = Coordinator::from_json_config(&json!({"dialect": "kafka-4.2"})).unwrap();
    let out = send(
        &mut rebuilt,
        json!({"nowMs": 5000, "type": "Replay", "records": log}),
    );
    assert!(out.get("error").is_none(), "{out}");
    assert_eq!(rebuilt.groups(), c.groups());
}

#[test]
fn a_replay_that_fails_midway_applies_none_of_its_records() {
    let mut c = Coordinator::from_json_config(&json!({})).unwrap();
    let before = observed(&c);
    // A group and a member at epoch 1, then the member's metadata tombstone before its current
    // assignment tombstone: the third record fails, and the first two must not stay applied.
    let out = send(
        &mut c,
        json!({"nowMs": 10, "type": "Replay", "records": [
            {"key": {"type": 15, "data": {"groupId": "g"}}, "value": {"version": 0, "data": {"epoch": 3}}},
            {"key": {"type": 20, "data": {"groupId": "g", "memberId": "m"}},
             "value": {"version": 0, "data": {"memberEpoch": 1, "previousMemberEpoch": 0, "state": 0,
                "activeTasks": [], "standbyTasks": [], "warmupTasks": [],
                "activeTasksPendingRevocation": [], "standbyTasksPendingRevocation": [],
                "warmupTasksPendingRevocation": []}}},
            {"key": {"type": 17, "data": {"groupId": "g", "memberId": "m"}}, "value": null}]}),
    );
    assert!(out.get("error").is_some(), "{out}");
    assert_eq!(out["error"]["path"], "records[2]", "{out}");
    assert_eq!(observed(&c), before);
}
