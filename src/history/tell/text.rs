//! The history in words: the text of each bump reason, durations as people read them, and the
//! whole history as text (`sgc history`), group by group and epoch by epoch.

use serde_json::Value;

const REASON_TEXT: &[(&str, &str)] = &[
    ("MEMBER_JOINED", "a new member joined"),
    ("MEMBER_LEFT_OR_FENCED", "a member left or was fenced"),
    ("MEMBER_FENCED", "a member was fenced"),
    ("MEMBER_METADATA_CHANGED", "a member's metadata changed"),
    ("TOPOLOGY_INITIALIZED", "the topology was initialized"),
    ("TOPOLOGY_CHANGED", "the topology changed"),
    ("TOPIC_METADATA_CHANGED", "the group's topics changed"),
    (
        "ASSIGNMENT_CONFIG_CHANGED",
        "the assignment configuration changed",
    ),
    (
        "TOPOLOGY_READINESS_CHANGED",
        "the topology became ready or stopped being ready",
    ),
    (
        "UNKNOWN",
        "unknown (no record shows the cause; a manual target assignment is one)",
    ),
];

pub(super) fn reason_text(r: &str) -> &str {
    REASON_TEXT
        .iter()
        .find(|(k, _)| *k == r)
        .map_or(r, |(_, t)| t)
}

pub(super) fn fmt_ms(ms: i64) -> String {
    if ms < 1000 {
        format!("{ms} ms")
    } else if ms < 120_000 {
        format!("{:.1} s", ms as f64 / 1000.0)
    } else {
        format!("{:.1} min", ms as f64 / 60_000.0)
    }
}

/// The damaged places told after the first one; the JSON form lists them all.
const MORE_DAMAGE: usize = 10;

/// The history as text: per group, epoch by epoch, then where the log is damaged.
pub fn render_text(history: &Value) -> String {
    let mut s = String::new();
    let records = history["records"].as_u64().unwrap_or(0);
    let skipped = history["skipped"].as_u64().unwrap_or(0);
    s += &format!(
        "{records} streams group records ({} dialect){}\n",
        history["dialect"].as_str().unwrap_or("?"),
        if skipped > 0 {
            format!(", {skipped} records of other kinds skipped")
        } else {
            String::new()
        }
    );
    let damage = history["damage"].as_array().map_or(&[][..], Vec::as_slice);
    let place = |d: &Value| match (d["line"].as_u64(), d["position"].as_u64()) {
        (Some(l), _) => format!("line {l}"),
        (None, Some(p)) => format!("byte {p}"),
        _ => "an unknown place".to_string(),
    };
    if let Some(first) = damage.first() {
        s += &format!(
            "The log is damaged: told up to {}, where it is cut.\n",
            place(first)
        );
    }
    for w in history["warnings"].as_array().into_iter().flatten() {
        s += &format!(
            "note: {}: {}\n",
            place(w),
            w["message"].as_str().unwrap_or("")
        );
    }
    for g in history["groups"].as_array().into_iter().flatten() {
        let sum = &g["summary"];
        // A group gone at the end of the log has no epoch to tell.
        let now = match sum["groupEpoch"].as_i64() {
            Some(epoch) => format!(
                "now {} at epoch {epoch} with {} members",
                sum["state"].as_str().unwrap_or("?"),
                sum["members"]
            ),
            None if sum["deleted"] == true => "then deleted".to_string(),
            None if sum["state"] == "EMPTY" => {
                "offsets only (no streams group records: an admin's commits, or a group of another type)".to_string()
            }
            None => format!("now {}", sum["state"].as_str().unwrap_or("?")),
        };
        s += &format!(
            "\ngroup {}: {} epoch bumps, {now}",
            g["groupId"].as_str().unwrap_or("?"),
            sum["epochBumps"],
        );
        if let Some(ms) = sum["slowestReconcileMs"].as_i64() {
            s += &format!("; slowest reconciliation {}", fmt_ms(ms));
        }
        if let Some(n) = sum["pendingTransactionalOffsets"]
            .as_u64()
            .filter(|&n| n > 0)
        {
            s += &format!("; {n} transactional offsets still pending");
        }
        s += "\n";
        for e in g["events"].as_array().into_iter().flatten() {
            let code = e["code"].as_str().unwrap_or("");
            if code == "GROUP_EPOCH_BUMPED" {
                s += &format!("  epoch {}\n", e["to"]);
            }
            let at = match (e["offset"].as_i64(), e["timestampMs"].as_i64()) {
                (Some(o), Some(t)) => format!("@{o} t={t}"),
                (Some(o), None) => format!("@{o}"),
                (None, Some(t)) => format!("t={t}"),
                (None, None) => String::new(),
            };
            s += &format!("    {at:<18} {}\n", e["text"].as_str().unwrap_or(""));
        }
    }
    if let Some((first, more)) = damage.split_first() {
        s += &format!(
            "\ncut at {}: {}; nothing after it is told.\n",
            place(first),
            first["message"].as_str().unwrap_or("damaged")
        );
        for d in more.iter().take(MORE_DAMAGE) {
            s += &format!(
                "also damaged: {}: {}\n",
                place(d),
                d["message"].as_str().unwrap_or("damaged")
            );
        }
        if more.len() > MORE_DAMAGE {
            s += &format!(
                "and {} more damaged lines (the JSON form lists them all)\n",
                more.len() - MORE_DAMAGE
            );
        }
    }
    s
}
