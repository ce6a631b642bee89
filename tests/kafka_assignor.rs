//! `KafkaStickyAssignor` against Kafka's own `StickyTaskAssignor`: each file of
//! `tests/kafka_assignor/` holds random groups and the targets Kafka's assignor of that release
//! computed for them (its classes compiled from the release's sources and run on each group).
//!
//! A case: `mode hash` (the members were put into a `java.util.HashMap` in the listed order, as
//! Kafka's coordinator builds the assignor's input: `KafkaStickyAssignor::assign`) or
//! `mode order` (the assignor iterated them in the listed order:
//! `assign_in_iteration_order`); `standby r`; `sub id tasks stateful(0/1)` lines; `member id
//! process active standby offsets` lines (tasks `sub:partition,..`, offsets
//! `sub:partition:offset,..`, `-` for none); then `expect id active standby` for every member
//! by id, or `error message`.

use std::borrow::Cow;
use std::collections::BTreeMap;

use streams_group_coordinator::assignor::{
    GroupSpec, KafkaRelease, KafkaStickyAssignor, MemberSpec, SubtopologySpec,
};
use streams_group_coordinator::tasks::{Assignment, TaskMap};

fn tasks(s: &str) -> TaskMap {
    if s == "-" {
        return TaskMap::default();
    }
    s.split(',')
        .map(|t| {
            let (sub, p) = t.rsplit_once(':').expect("sub:partition");
            (sub.to_string(), [p.parse::<i32>().expect("partition")])
        })
        .collect()
}

fn offsets(s: &str) -> Vec<(String, i32, i64)> {
    if s == "-" {
        return Vec::new();
    }
    s.split(',')
        .map(|t| {
            let mut it = t.rsplitn(3, ':');
            let o = it.next().unwrap().parse().unwrap();
            let p = it.next().unwrap().parse().unwrap();
            (it.next().unwrap().to_string(), p, o)
        })
        .collect()
}

fn show(target: &BTreeMap<String, Assignment>) -> String {
    let list = |m: &TaskMap| {
        let s: Vec<String> = m.tasks().map(|(s, p)| format!("{s}:{p}")).collect();
        if s.is_empty() {
            "-".to_string()
        } else {
            s.join(",")
        }
    };
    target
        .iter()
        .map(|(id, a)| format!("expect {id} {} {}\n", list(&a.active), list(&a.standby)))
        .collect()
}

fn check(release: KafkaRelease, text: &str) {
    let kafka = KafkaStickyAssignor::new(release);
    let mut cases = 0;
    for case in text.split("end\n").filter(|c| !c.trim().is_empty()) {
        let mut hash = true;
        let mut standby = 0;
        let mut subs = Vec::new();
        let mut members = Vec::new();
        let mut expected = String::new();
        let mut name = "";
        for line in case.lines() {
            let words: Vec<&str> = line.split(' ').collect();
            match words[0] {
                "case" => name = line,
                "mode" => hash = words[1] == "hash",
                "standby" => standby = words[1].parse().unwrap(),
                "sub" => subs.push(SubtopologySpec {
                    subtopology_id: words[1].to_string(),
                    num_tasks: words[2].parse().unwrap(),
                    stateful: words[3] == "1",
                }),
                "member" => members.push(MemberSpec {
                    member_id: words[1].to_string().into(),
                    process_id: words[2].to_string().into(),
                    previous: Cow::Owned(Assignment {
                        active: tasks(words[3]),
                        standby: tasks(words[4]),
                        warmup: TaskMap::default(),
                    }),
                    task_offsets: offsets(words[5]),
                    ..Default::default()
                }),
                _ => {
                    expected.push_str(line);
                    expected.push('\n');
                }
            }
        }
        let spec = GroupSpec::new(&members, &subs, standby);
        let result = if hash {
            kafka.assign(&spec)
        } else {
            kafka.assign_in_iteration_order(&spec)
        };
        let got = match result {
            Ok(target) => show(&target),
            Err(e) => format!("error {e}\n"),
        };
        assert_eq!(got, expected, "{release:?} {name}:\n{case}");
        cases += 1;
    }
    assert!(cases > 0);
}

#[test]
fn kafka_4_2_0_places_as_kafka() {
    check(KafkaRelease::V4_2, include_str!("kafka_assignor/4.2.0.txt"));
}

#[test]
fn kafka_4_3_0_places_as_kafka() {
    check(KafkaRelease::V4_3, include_str!("kafka_assignor/4.3.0.txt"));
}

#[test]
fn kafka_4_4_places_as_kafka() {
    check(KafkaRelease::V4_4, include_str!("kafka_assignor/4.4.txt"));
}
