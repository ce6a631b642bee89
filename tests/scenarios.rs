//! Runs every `tests/scenarios/*.json` through the native coordinator (DESIGN 6): each step's
//! output must contain what its `expect` names (objects recursively, arrays element by element
//! with equal length). Full outputs are written to `target/scenario-outputs/` so that other
//! bindings can be compared with them byte for byte.

use std::fs;
use std::path::{Path, PathBuf};

use serde_json::Value;
use streams_group_coordinator::Coordinator;

/// Why `actual` does not contain `expected`, with the JSON path of the first difference.
fn mismatch(expected: &Value, actual: &Value, path: &str) -> Option<String> {
    match (expected, actual) {
        (Value::Object(e), Value::Object(a)) => {
            for (k, ev) in e {
                let p = format!("{path}.{k}");
                match a.get(k) {
                    None => return Some(format!("{p}: missing (expected {ev})")),
                    Some(av) => {
                        if let Some(m) = mismatch(ev, av, &p) {
                            return Some(m);
                        }
                    }
                }
            }
            None
        }
        (Value::Array(e), Value::Array(a)) => {
            if e.len() != a.len() {
                return Some(format!(
                    "{path}: expected {} elements, got {}: {actual}",
                    e.len(),
                    a.len()
                ));
            }
            e.iter()
                .zip(a)
                .enumerate()
                .find_map(|(i, (ev, av))| mismatch(ev, av, &format!("{path}[{i}]")))
        }
        (e, a) if e == a => None,
        (e, a) => Some(format!("{path}: expected {e}, got {a}")),
    }
}

fn scenario_files() -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/scenarios");
    let mut files: Vec<PathBuf> = fs::read_dir(&dir)
        .expect("tests/scenarios exists")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .collect();
    files.sort();
    files
}

fn run(path: &Path) -> Result<Vec<String>, String> {
    let text = fs::read_to_string(path).map_err(|e| e.to_string())?;
    let scenario: Value = serde_json::from_str(&text).map_err(|e| e.to_string())?;
    let config = scenario.get("config").cloned().unwrap_or(Value::Null);
    let mut coordinator = Coordinator::from_json_config(&config).map_err(|e| e.to_string())?;
    let steps = scenario["steps"].as_array().ok_or("no steps")?;
    let mut outputs = Vec::new();
    for (i, step) in steps.iter().enumerate() {
        let input = step["input"].to_string();
        let output = coordinator.handle_json(&input);
        let actual: Value = serde_json::from_str(&output).map_err(|e| e.to_string())?;
        if let Some(expect) = step.get("expect") {
            if let Some(m) = mismatch(expect, &actual, "") {
                return Err(format!("step {i}: {m}\n  output: {output}"));
            }
        }
        outputs.push(output);
    }
    Ok(outputs)
}

#[test]
fn every_scenario_matches_its_expectations() {
    let files = scenario_files();
    assert!(!files.is_empty(), "no scenario files");
    let out_dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("target/scenario-outputs");
    let _ = fs::create_dir_all(&out_dir);
    let mut failures = Vec::new();
    for f in &files {
        match run(f) {
            Ok(outputs) => {
                let name = f
                    .file_stem()
                    .map(|s| s.to_string_lossy().to_string())
                    .unwrap_or_default();
                let _ = fs::write(
                    out_dir.join(format!("{name}.jsonl")),
                    outputs.join("\n") + "\n",
                );
                // Determinism: a second run gives the same bytes.
                let again = run(f).unwrap_or_default();
                if again != outputs {
                    failures.push(format!(
                        "{}: a second run gave different outputs",
                        f.display()
                    ));
                }
            }
            Err(e) => failures.push(format!("{}: {e}", f.display())),
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} scenarios failed:\n{}",
        failures.len(),
        files.len(),
        failures.join("\n")
    );
}

#[test]
fn the_matcher_detects_differences() {
    let actual = serde_json::json!({"a": [1, {"b": 2, "c": 3}], "d": null});
    assert!(mismatch(&serde_json::json!({"a": [1, {"b": 2}]}), &actual, "").is_none());
    assert!(mismatch(&serde_json::json!({"a": [1]}), &actual, "").is_some());
    assert!(mismatch(&serde_json::json!({"a": [1, {"b": 3}]}), &actual, "").is_some());
    assert!(mismatch(&serde_json::json!({"e": null}), &actual, "").is_some());
    assert!(mismatch(&serde_json::json!({"d": null}), &actual, "").is_none());
}
