//! `make demo`: runs a file of JSON-lines inputs through the coordinator and tells the story.
//!
//! Usage: `cargo run --example demo -- FILE [--json]` (`--json` prints the raw outputs too).

use std::process::ExitCode;

use serde_json::Value;
use streams_group_coordinator::Coordinator;

const RECORD_NAMES: &[(i64, &str)] = &[
    (15, "group metadata"),
    (16, "partition metadata"),
    (17, "member metadata"),
    (18, "target assignment metadata"),
    (19, "target assignment member"),
    (20, "current member assignment"),
    (21, "topology"),
];

fn tasks(list: &Value) -> String {
    let Some(items) = list.as_array() else {
        return "-".into();
    };
    let parts: Vec<String> = items
        .iter()
        .map(|t| {
            let ps: Vec<String> = t["partitions"]
                .as_array()
                .into_iter()
                .flatten()
                .map(|p| p.to_string())
                .collect();
            format!(
                "{}:[{}]",
                t["subtopologyId"].as_str().unwrap_or("?"),
                ps.join(",")
            )
        })
        .collect();
    if parts.is_empty() {
        "none".into()
    } else {
        parts.join(" ")
    }
}

fn describe_input(input: &Value) -> String {
    let ty = input["type"].as_str().unwrap_or("?");
    let r = &input["request"];
    match ty {
        "StreamsGroupHeartbeat" => {
            let who = match r["memberId"].as_str() {
                Some("") => "a new member".to_string(),
                Some(m) => m.to_string(),
                None => "?".into(),
            };
            let what = match r["memberEpoch"].as_i64() {
                Some(0) => "joins".to_string(),
                Some(-1) => "leaves the group".to_string(),
                Some(-2) => "leaves temporarily (static)".to_string(),
                Some(e) => {
                    if r["activeTasks"].is_array() {
                        format!(
                            "heartbeats at epoch {e}, owning {}",
                            tasks(&r["activeTasks"])
                        )
                    } else {
                        format!("heartbeats at epoch {e}")
                    }
                }
                None => "?".into(),
            };
            format!("{who} {what}")
        }
        "StreamsGroupInitialize" => format!(
            "a member sends the topology {} ({} subtopologies)",
            r["topologyId"].as_str().unwrap_or("?"),
            r["topology"].as_array().map_or(0, Vec::len)
        ),
        "TopicMetadata" => {
            let topics: Vec<String> = input["topics"]
                .as_array()
                .into_iter()
                .flatten()
                .map(|t| {
                    format!(
                        "{} ({} partitions)",
                        t["name"].as_str().unwrap_or("?"),
                        t["partitions"]
                    )
                })
                .collect();
            format!("the host reports topics: {}", topics.join(", "))
        }
        "StreamsGroupDescribe" => "describe the group".into(),
        "AdvanceTime" => "time passes".into(),
        other => other.to_string(),
    }
}

fn explain_line(e: &Value) -> String {
    let s = |k: &str| e[k].as_str().unwrap_or("?").to_string();
    match e["code"].as_str().unwrap_or("") {
        "GROUP_EPOCH_BUMPED" => format!(
            "group epoch {} -> {} because {}",
            e["from"], e["to"], e["reasons"]
        ),
        "TARGET_ASSIGNMENT_COMPUTED" => {
            let moved = e["tasksMoved"].as_u64().unwrap_or(0);
            let reassigned = e["tasksReassigned"].as_u64().unwrap_or(0);
            let plural = |n: u64| if n == 1 { "task" } else { "tasks" };
            let mut line = format!(
                "new target assignment for epoch {} ({moved} {} moved",
                e["assignmentEpoch"],
                plural(moved)
            );
            if reassigned > 0 {
                line += &format!(
                    ", {reassigned} {} of departed members reassigned",
                    plural(reassigned)
                );
            }
            line + ")"
        }
        "MEMBER_FENCED" => format!("member {} removed ({})", s("memberId"), s("cause")),
        "MEMBER_STATE_CHANGED" => format!("member {}: {} -> {}", s("memberId"), s("from"), s("to")),
        "GROUP_STATE_CHANGED" => format!("group state {} -> {}", s("from"), s("to")),
        "TOPOLOGY_INITIALIZATION_REQUESTED" => {
            format!("member {} is asked to send the topology", s("memberId"))
        }
        other => format!("{other} {e}"),
    }
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let Some(path) = args.first() else {
        eprintln!("usage: demo FILE [--json]");
        return ExitCode::from(2);
    };
    let raw = args.iter().any(|a| a == "--json");
    let text = match std::fs::read_to_string(path) {
        Ok(t) => t,
        Err(e) => {
            eprintln!("demo: cannot read {path}: {e}");
            return ExitCode::from(1);
        }
    };
    let mut coordinator = match Coordinator::new(Default::default()) {
        Ok(c) => c,
        Err(e) => {
            eprintln!("demo: {e}");
            return ExitCode::from(1);
        }
    };
    println!("streams-group-coordinator demo: {path}\n");
    for line in text
        .lines()
        .filter(|l| !l.trim().is_empty() && !l.starts_with("//"))
    {
        let input: Value = serde_json::from_str(line).unwrap_or(Value::Null);
        let output_text = coordinator.handle_json(line);
        let out: Value = serde_json::from_str(&output_text).unwrap_or(Value::Null);
        println!("t={:>6} ms  {}", input["nowMs"], describe_input(&input));
        if let Some(err) = out.get("error") {
            println!("            rejected at the boundary: {}", err["message"]);
            continue;
        }
        let resp = &out["response"];
        if resp.is_object() {
            if let Some(code) = resp["errorCode"].as_i64().filter(|c| *c != 0) {
                println!(
                    "            error {code}: {}",
                    resp["errorMessage"].as_str().unwrap_or("")
                );
            } else if resp.get("memberEpoch").is_some() {
                let mut line = format!(
                    "            -> {} at epoch {}",
                    resp["memberId"].as_str().unwrap_or("?"),
                    resp["memberEpoch"]
                );
                if resp["activeTasks"].is_array() {
                    line.push_str(&format!(", active tasks {}", tasks(&resp["activeTasks"])));
                }
                if resp["shouldInitializeTopology"] == true {
                    line.push_str(", asked to initialize the topology");
                }
                println!("{line}");
                for st in resp["status"].as_array().into_iter().flatten() {
                    println!(
                        "            status {}: {}",
                        st["statusCode"],
                        st["statusDetail"].as_str().unwrap_or("")
                    );
                }
            } else if let Some(groups) = resp["groups"].as_array() {
                for g in groups {
                    println!(
                        "            group {} is {} at epoch {} (assignment epoch {})",
                        g["groupId"].as_str().unwrap_or("?"),
                        g["groupState"].as_str().unwrap_or("?"),
                        g["groupEpoch"],
                        g["assignmentEpoch"]
                    );
                    for m in g["members"].as_array().into_iter().flatten() {
                        println!(
                            "              {} (process {}) epoch {}: active {}",
                            m["memberId"].as_str().unwrap_or("?"),
                            m["processId"].as_str().unwrap_or("?"),
                            m["memberEpoch"],
                            tasks(&m["assignment"]["activeTasks"])
                        );
                    }
                }
            } else {
                println!("            -> ok");
            }
        }
        let records: Vec<String> = out["records"]
            .as_array()
            .into_iter()
            .flatten()
            .map(|r| {
                let t = r["key"]["type"].as_i64().unwrap_or(0);
                let name = RECORD_NAMES
                    .iter()
                    .find(|(id, _)| *id == t)
                    .map_or("record", |(_, n)| n);
                if r["value"].is_null() {
                    format!("{name} (tombstone)")
                } else {
                    name.to_string()
                }
            })
            .collect();
        if !records.is_empty() {
            println!("            records: {}", records.join(", "));
        }
        for t in out["topicsToCreate"].as_array().into_iter().flatten() {
            println!(
                "            please create topic {} with {} partitions",
                t["name"].as_str().unwrap_or("?"),
                t["numPartitions"]
            );
        }
        for e in out["explain"].as_array().into_iter().flatten() {
            println!("            why: {}", explain_line(e));
        }
        if raw {
            println!("            {output_text}");
        }
        println!();
    }
    ExitCode::SUCCESS
}
