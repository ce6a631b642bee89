//! The coordinator's module layout (README "Layout"): operations never import each other, views
//! and the dialect seam import no operation, and the modules of `src/coordinator/` form no
//! import circle. Read from the sources, so that a new `use` that breaks the layout fails here.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// One file per input type.
const OPERATIONS: &[&str] = &[
    "heartbeat",
    "leave",
    "initialize",
    "topic_metadata",
    "delete",
    "manual_targets",
    "replay",
];
/// Shared by the operations and the timers.
const SERVICES: &[&str] = &["fence", "assignment", "timers_fire"];
/// The seam and the read-only views.
const LEAVES: &[&str] = &["dialect", "views"];

/// The coordinator modules that `text` (a file of module `module`) refers to.
fn references(module: &str, nested: bool, text: &str) -> BTreeSet<String> {
    let known: BTreeSet<&str> = OPERATIONS
        .iter()
        .chain(SERVICES)
        .chain(LEAVES)
        .copied()
        .collect();
    let mut out = BTreeSet::new();
    // `super::` of a nested file (dialect/draft.rs) is its parent module, not the coordinator.
    let prefixes: &[&str] = if nested {
        &["crate::coordinator::", "super::super::"]
    } else {
        &["crate::coordinator::", "super::"]
    };
    for prefix in prefixes {
        let mut rest = text;
        while let Some(at) = rest.find(prefix) {
            rest = &rest[at + prefix.len()..];
            let names: Vec<String> = if let Some(inner) = rest.strip_prefix('{') {
                // A brace list: the first segment of each entry (one level of nesting is enough
                // for this code base).
                let end = inner.find('}').unwrap_or(inner.len());
                inner[..end]
                    .split(',')
                    .map(|e| e.trim().split("::").next().unwrap_or("").to_string())
                    .collect()
            } else {
                let end = rest
                    .find(|c: char| !(c.is_alphanumeric() || c == '_'))
                    .unwrap_or(rest.len());
                vec![rest[..end].to_string()]
            };
            for n in names {
                if known.contains(n.as_str()) && n != module {
                    out.insert(n);
                }
            }
        }
    }
    out
}

/// Module name -> the coordinator modules its files refer to.
fn graph() -> BTreeMap<String, BTreeSet<String>> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/coordinator");
    let mut graph: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for entry in std::fs::read_dir(&root).expect("src/coordinator") {
        let path = entry.expect("entry").path();
        let name = path.file_stem().unwrap().to_string_lossy().to_string();
        if name == "mod" {
            continue;
        }
        let files: Vec<(std::path::PathBuf, bool)> = if path.is_dir() {
            std::fs::read_dir(&path)
                .expect("dir")
                .map(|e| e.expect("entry").path())
                .map(|p| {
                    let nested = p.file_stem().is_some_and(|s| s != "mod");
                    (p, nested)
                })
                .collect()
        } else {
            vec![(path.clone(), false)]
        };
        let refs = graph.entry(name.clone()).or_default();
        for (file, nested) in files {
            let text = std::fs::read_to_string(&file).expect("source");
            refs.extend(references(&name, nested, &text));
        }
    }
    graph
}

fn cycle(graph: &BTreeMap<String, BTreeSet<String>>) -> Option<Vec<String>> {
    fn visit(
        n: &str,
        graph: &BTreeMap<String, BTreeSet<String>>,
        path: &mut Vec<String>,
        done: &mut BTreeSet<String>,
    ) -> Option<Vec<String>> {
        if let Some(at) = path.iter().position(|p| p == n) {
            let mut c = path[at..].to_vec();
            c.push(n.to_string());
            return Some(c);
        }
        if done.contains(n) {
            return None;
        }
        path.push(n.to_string());
        for m in graph.get(n).into_iter().flatten() {
            if let Some(c) = visit(m, graph, path, done) {
                return Some(c);
            }
        }
        path.pop();
        done.insert(n.to_string());
        None
    }
    let mut done = BTreeSet::new();
    graph
        .keys()
        .find_map(|n| visit(n, graph, &mut Vec::new(), &mut done))
}

#[test]
fn every_coordinator_module_has_a_place() {
    let graph = graph();
    for name in graph.keys() {
        assert!(
            OPERATIONS.contains(&name.as_str())
                || SERVICES.contains(&name.as_str())
                || LEAVES.contains(&name.as_str()),
            "src/coordinator/{name} is neither an operation, a service, the dialect seam nor a view"
        );
    }
    for name in OPERATIONS.iter().chain(SERVICES).chain(LEAVES) {
        assert!(graph.contains_key(*name), "src/coordinator/{name} is gone");
    }
}

#[test]
fn operations_never_import_each_other() {
    for (name, refs) in graph() {
        if OPERATIONS.contains(&name.as_str()) {
            let ops: Vec<&String> = refs
                .iter()
                .filter(|r| OPERATIONS.contains(&r.as_str()))
                .collect();
            assert!(
                ops.is_empty(),
                "operation {name} imports operations {ops:?}"
            );
        }
    }
}

#[test]
fn views_and_the_dialect_seam_import_no_operation_or_service() {
    let graph = graph();
    for leaf in LEAVES {
        let refs = &graph[*leaf];
        let bad: Vec<&String> = refs
            .iter()
            .filter(|r| !LEAVES.contains(&r.as_str()))
            .collect();
        assert!(bad.is_empty(), "{leaf} imports {bad:?}");
    }
    assert!(
        !graph["views"].contains("dialect"),
        "views import the dialect seam"
    );
}

#[test]
fn the_coordinator_modules_form_no_import_circle() {
    let graph = graph();
    assert_eq!(cycle(&graph), None, "import graph: {graph:#?}");
}

#[test]
fn the_circle_check_finds_a_circle() {
    let mut graph: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    graph.entry("a".into()).or_default().insert("b".into());
    graph.entry("b".into()).or_default().insert("a".into());
    assert_eq!(
        cycle(&graph),
        Some(vec!["a".into(), "b".into(), "a".into()])
    );
    let text =
        "use super::{assignment::x, fence, Batch};\nuse crate::coordinator::views::describe;";
    assert_eq!(
        references("heartbeat", false, text),
        ["assignment", "fence", "views"]
            .into_iter()
            .map(String::from)
            .collect()
    );
}
