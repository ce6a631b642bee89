//! The committed `src/wire/messages/` is what the generator writes from `schemas/` today.

use std::collections::BTreeMap;
use std::path::Path;

fn committed(dir: &Path, prefix: &str, out: &mut BTreeMap<String, String>) {
    for entry in std::fs::read_dir(dir).expect("src/wire/messages") {
        let entry = entry.expect("an entry");
        let name = format!("{prefix}{}", entry.file_name().to_string_lossy());
        if entry.path().is_dir() {
            committed(&entry.path(), &format!("{name}/"), out);
        } else {
            out.insert(name, std::fs::read_to_string(entry.path()).expect("text"));
        }
    }
}

#[test]
fn generated_messages_are_current() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let generated: BTreeMap<String, String> = wire_codegen::generate(&root.join("schemas"))
        .expect("the schemas generate")
        .into_iter()
        .collect();
    let mut on_disk = BTreeMap::new();
    committed(&root.join("src/wire/messages"), "", &mut on_disk);
    let names = |m: &BTreeMap<String, String>| m.keys().cloned().collect::<Vec<_>>();
    assert_eq!(
        names(&on_disk),
        names(&generated),
        "run `cargo run -p wire-codegen`"
    );
    for (path, text) in &generated {
        assert!(
            on_disk[path] == *text,
            "src/wire/messages/{path} is not what the schemas generate: run `cargo run -p wire-codegen`"
        );
    }
}

#[test]
fn a_release_whose_bytes_differ_fails_generation() {
    let dir = std::env::temp_dir().join(format!("wire-codegen-{}", std::process::id()));
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../schemas");
    for folder in ["kafka-4.2", "kafka-4.3", "kafka-4.4", "kip1071-draft"] {
        let to = dir.join(folder);
        std::fs::create_dir_all(&to).expect("a temp dir");
        for entry in std::fs::read_dir(root.join(folder)).expect("schemas") {
            let entry = entry.expect("an entry");
            let mut text = std::fs::read_to_string(entry.path()).expect("text");
            if folder == "kafka-4.2" && entry.file_name() == "StreamsGroupHeartbeatRequest.json" {
                text = text.replace(
                    r#""name": "MemberEpoch", "type": "int32""#,
                    r#""name": "MemberEpoch", "type": "int64""#,
                );
            }
            std::fs::write(to.join(entry.file_name()), text).expect("a temp file");
        }
    }
    let result = wire_codegen::generate(&dir);
    let _ = std::fs::remove_dir_all(&dir);
    let e = result.expect_err("4.2's heartbeat differs from 4.4's version 0");
    assert!(
        e.contains("kafka-4.2/StreamsGroupHeartbeatRequest.json version 0"),
        "{e}"
    );
}

#[test]
fn generated_broker_messages_are_current() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let generated: BTreeMap<String, String> = wire_codegen::broker::generate(&root.join("schemas"))
        .expect("the schemas generate")
        .into_iter()
        .collect();
    let mut on_disk = BTreeMap::new();
    committed(
        &root.join("crates/sgc-server/src/messages"),
        "",
        &mut on_disk,
    );
    assert_eq!(
        on_disk, generated,
        "crates/sgc-server/src/messages is not what the schemas generate: run `cargo run -p wire-codegen`"
    );
}
