//! Runs every `tests/scenarios/*.json` through the native coordinator (DESIGN 6): each step's
//! output must contain what its `expect` names (objects recursively, arrays element by element
//! with equal length), and the full outputs must equal the committed `<name>.out.jsonl` beside
//! the scenario byte for byte (one line per step), so that any behaviour change is a diff to
//! review. `UPDATE_SCENARIOS=1 cargo test --test scenarios` (or `make update-scenarios`)
//! rewrites the committed outputs. The other bindings compare with the same files.

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

/// The committed full outputs of a scenario file.
fn committed_outputs(scenario: &Path) -> PathBuf {
    let name = scenario
        .file_stem()
        .map(|s| s.to_string_lossy().to_string())
        .unwrap_or_default();
    scenario.with_file_name(format!("{name}.out.jsonl"))
}

/// The first line where `committed` and `actual` differ, for the failure message.
fn first_difference(committed: &str, actual: &str) -> String {
    let (c, a): (Vec<&str>, Vec<&str>) = (committed.lines().collect(), actual.lines().collect());
    for i in 0..c.len().max(a.len()) {
        let (cl, al) = (c.get(i).copied(), a.get(i).copied());
        if cl != al {
            return format!(
                "step {i} differs\n  committed: {}\n  actual:    {}",
                cl.unwrap_or("<no line>"),
                al.unwrap_or("<no line>")
            );
        }
    }
    "the files differ only in their line endings".to_string()
}

#[test]
fn every_scenario_matches_its_expectations() {
    let files = scenario_files();
    assert!(!files.is_empty(), "no scenario files");
    let update = std::env::var_os("UPDATE_SCENARIOS").is_some_and(|v| v == "1");
    let mut failures = Vec::new();
    for f in &files {
        match run(f) {
            Ok(outputs) => {
                let text = outputs.join("\n") + "\n";
                let committed_path = committed_outputs(f);
                if update {
                    if let Err(e) = fs::write(&committed_path, &text) {
                        failures.push(format!("{}: {e}", committed_path.display()));
                    }
                } else {
                    match fs::read_to_string(&committed_path) {
                        Ok(committed) if committed == text => {}
                        Ok(committed) => failures.push(format!(
                            "{}: the outputs differ from {} (run `make update-scenarios` and review the diff if the change is intended): {}",
                            f.display(),
                            committed_path.display(),
                            first_difference(&committed, &text)
                        )),
                        Err(e) => failures.push(format!(
                            "{}: {e} (run `make update-scenarios` to write it)",
                            committed_path.display()
                        )),
                    }
                }
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
fn every_committed_output_belongs_to_a_scenario() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/scenarios");
    let scenarios: Vec<PathBuf> = scenario_files()
        .iter()
        .map(|f| committed_outputs(f))
        .collect();
    let stray: Vec<String> = fs::read_dir(&dir)
        .expect("tests/scenarios exists")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.to_string_lossy().ends_with(".out.jsonl") && !scenarios.contains(p))
        .map(|p| p.display().to_string())
        .collect();
    assert!(stray.is_empty(), "outputs without a scenario: {stray:?}");
}

#[test]
fn a_changed_output_is_detected() {
    let committed = "{\"a\":1}\n{\"b\":2}\n";
    assert!(first_difference(committed, "{\"a\":1}\n{\"b\":3}\n").starts_with("step 1 differs"));
    assert!(first_difference(committed, "{\"a\":1}\n").contains("<no line>"));
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
