//! The core's layout (README "Layout"), read from the sources so that a new `use` or a new file
//! that breaks it fails here:
//!
//! - no import circle, between the top-level modules of `src/` or between the siblings inside
//!   any module (`tests/common/modules.rs` reads the graph: `use` trees and brace lists,
//!   `crate::`, `super::` and `self::` paths, bare paths through imports and `use super::*`,
//!   re-exports followed to where an item is defined);
//! - the top-level modules stand in layers and import only their own layer or lower ones; a
//!   new module takes a place in [`LAYERS`];
//! - the coordinator: operations never import each other, views and the dialect seam import no
//!   operation or service; the seam has one implementation per wire dialect, and a later Kafka
//!   release is a value it consults (`dialect/release.rs`), not a new copy of the rules;
//! - history: reading a log's forms and telling its story never import each other;
//! - places for what comes next, checked now and holding the future code when it arrives:
//!   `src/wire/` (a codec generated from `schemas/`, every file of `src/wire/messages/` headed
//!   "generated, do not edit", and a dispatch that maps frames to the coordinator's inputs)
//!   imports only public types of the layers below it and nothing imports it; `src/offsets/`
//!   (offset commits and fetches, their records, replay and expiry) is state and imports no
//!   coordinator; `crates/sgc-server` is a crate over the core's public API;
//! - sans-IO: nothing under `src/` names a file system, network, process, thread, clock or
//!   async runtime, and no crate that ships in a wasm module depends on an async runtime;
//! - the core never imports from `crates/`;
//! - no file of `src/` is longer than [`MAX_LINES`] lines, test files aside.
//!
//! Test code counts: a circle through a unit test is a circle. A unit test that needs a module
//! above its own sits beside that module (the coordinator's `outputs_and_config` tests check
//! `api`'s text writer and `config`'s ranges on a running coordinator, so that neither `api`
//! nor `config` imports it).
//!
//! A check of a place that does not exist yet passes with nothing to check; each check runs
//! once more on a small made-up input that breaks it, to prove that it can fail.

#[path = "common/modules.rs"]
mod modules;

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use modules::{circle, describe, has_word, paths, public_names, sanitize, Crate, Graph, ModPath};

/// The coordinator's operations: one file per input type.
const OPERATIONS: &[&str] = &[
    "heartbeat",
    "leave",
    "initialize",
    "topic_metadata",
    "delete",
    "manual_targets",
    "replay",
    "offset_commit",
    "offset_fetch",
    "offset_delete",
    "txn_offset_commit",
    "transaction_completed",
    "topology_description",
    "group_config",
];
/// Shared by the operations and the timers.
const SERVICES: &[&str] = &["fence", "assignment", "timers_fire", "snapshots"];
/// The seam and the read-only views.
const LEAVES: &[&str] = &["dialect", "views"];

/// The top-level modules of `src/`, lowest layer first. A module imports only modules of its
/// own layer or of lower ones (and the circle check keeps a layer's modules from importing
/// each other both ways). `(planned)`: a place that exists only here so far.
const LAYERS: &[(&str, &[&str])] = &[
    (
        "foundations",
        &["error", "id_map", "java", "ordered", "partition"],
    ),
    ("models", &["topology", "tasks", "timers"]),
    ("records", &["records"]),
    (
        "settings, the JSON boundary's types, the assignor, the topic image",
        &["config", "api", "assignor", "topics"],
    ),
    // offsets: committed offsets, applied from their records, and who may commit and fetch them;
    // descriptions: Kafka 4.4's topology description store and its solicitation back-off;
    // group_config: group-level configs, the overrides of the settings per group.
    (
        "state",
        &["group", "offsets", "descriptions", "group_config"],
    ),
    ("protocol steps", &["reconcile"]),
    ("the coordinator", &["coordinator"]),
    // wire: the Kafka codec and the dispatch of request frames.
    ("edges", &["history", "wire"]),
];

/// The top-level modules `src/wire/` may import, and only through the crate's public surface
/// (`crate::Coordinator`, `crate::api::...`, `crate::Dialect`: what `lib.rs` makes public): the
/// JSON boundary's types, the coordinator and its topic image, the records, the settings, the
/// errors, the topology model. Never a coordinator operation, a group's internals or the assignor.
const WIRE_MAY_IMPORT: &[&str] = &[
    "api",
    "coordinator",
    "topics",
    "records",
    "config",
    "error",
    // The topology model the heartbeat and initialize requests carry.
    "topology",
    // A group's `__consumer_offsets` partition and Kafka's batches of a multi-group request,
    // by which the host kit (`wire/host/`) routes a frame and merges the answers.
    "partition",
];

/// The first line of every file under `src/wire/messages/` says this (any case).
const GENERATED_HEADER: &[&str] = &["generated", "do not edit"];

/// What no file of `src/` names: the file system, the network, processes, threads, the
/// environment, a clock, an async runtime. Time is an input; the host does the IO.
const NOT_SANS_IO: &[&str] = &[
    "std::fs",
    "std::net",
    "std::process",
    "std::thread",
    "std::env",
    "std::time::SystemTime",
    "std::time::Instant",
    "tokio",
    "async_std",
    "smol",
    "mio",
];

/// Files of `src/` allowed a name of [`NOT_SANS_IO`], each with its reason. None: `history`
/// reads the bytes its caller read (`sgc history FILE` reads the file in `crates/sgc-cli`).
const SANS_IO_EXCEPTIONS: &[(&str, &str)] = &[];

/// Async runtimes, by crate name: only a server crate of its own may depend on one.
const ASYNC_RUNTIMES: &[&str] = &[
    "tokio",
    "async-std",
    "smol",
    "mio",
    "async-executor",
    "futures-executor",
    "actix-rt",
];

/// The crates that ship in a wasm module or beside the core: none of them depends on an async
/// runtime (`crates/sgc-server` is the one place for one).
const NO_RUNTIME_MANIFESTS: &[&str] = &[
    "Cargo.toml",
    "crates/sgc-cli/Cargo.toml",
    "crates/sgc-wasm/Cargo.toml",
    "crates/sgc-wasi/Cargo.toml",
];

/// The planned crates of `crates/`, as Rust names them; the others are read from `crates/`.
const PLANNED_HOST_CRATES: &[&str] = &[];

/// The crates of `crates/` (and the planned ones), as Rust names them: the core never names
/// them.
fn host_crates() -> Vec<String> {
    let mut out: Vec<String> = PLANNED_HOST_CRATES.iter().map(|s| s.to_string()).collect();
    for entry in std::fs::read_dir(root().join("crates")).expect("crates/") {
        let manifest = entry.expect("an entry").path().join("Cargo.toml");
        let Ok(text) = std::fs::read_to_string(&manifest) else {
            continue;
        };
        if let Some(name) = text.lines().find_map(|l| l.trim().strip_prefix("name = ")) {
            out.push(name.trim_matches('"').replace('-', "_"));
        }
    }
    out
}

/// The longest a file of `src/` may be (test files aside): what a reader holds in one sitting.
const MAX_LINES: usize = 1000;

/// Longer files, each with its reason; a file that shrinks under the limit may leave the list.
const LONG_FILES: &[(&str, &str)] = &[];

/// The files the dialect seam may hold: its interface, one implementation per wire dialect,
/// and the Kafka release a dialect's rules consult (planned).
const DIALECT_FILES: &[&str] = &["mod.rs", "draft.rs", "kafka42.rs", "release.rs"];

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The core's sources, read once for all the checks.
fn core() -> &'static Crate {
    static CORE: OnceLock<Crate> = OnceLock::new();
    CORE.get_or_init(|| Crate::read(&root().join("src")))
}

fn path(m: &[&str]) -> ModPath {
    m.iter().map(|s| s.to_string()).collect()
}

// ---------------------------------------------------------------------------------------------
// Circles and layers.

/// Every import circle: `src/<module>: a -> b (file: path) -> a (...)`.
fn circles(krate: &Crate) -> Vec<String> {
    let mut out = Vec::new();
    for (module, graph) in krate.sibling_graphs() {
        if let Some(c) = circle(&graph) {
            let at = if module.is_empty() {
                "src (top level)".to_string()
            } else {
                format!("src/{}", module.join("/"))
            };
            out.push(format!("{at}: {}", describe(&graph, &c)));
        }
    }
    out
}

/// The imports that go up a layer, and the top-level modules without a layer.
fn layer_breaks(krate: &Crate) -> Vec<String> {
    let layer_of: BTreeMap<&str, usize> = LAYERS
        .iter()
        .enumerate()
        .flat_map(|(i, (_, ms))| ms.iter().map(move |m| (*m, i)))
        .collect();
    let mut out = Vec::new();
    let graphs = krate.sibling_graphs();
    let top = graphs.get(&Vec::new()).cloned().unwrap_or_default();
    for (from, edges) in &top {
        let Some(&lf) = layer_of.get(from.as_str()) else {
            out.push(format!(
                "src/{from} has no layer: give it a place in tests/layout.rs LAYERS and a row in the README's Layout"
            ));
            continue;
        };
        for (to, edge) in edges {
            if let Some(&lt) = layer_of.get(to.as_str()) {
                if lt > lf {
                    out.push(format!(
                        "{from} ({}) imports {to} ({}), a higher layer ({})",
                        LAYERS[lf].0,
                        LAYERS[lt].0,
                        edge.example()
                    ));
                }
            }
        }
    }
    out
}

#[test]
fn no_import_circle_at_the_top_or_inside_any_module() {
    let found = circles(core());
    assert!(found.is_empty(), "import circles:\n{}", found.join("\n"));
}

#[test]
fn the_top_level_modules_import_only_their_layer_or_lower_ones() {
    let found = layer_breaks(core());
    assert!(found.is_empty(), "{}", found.join("\n"));
}

#[test]
fn the_circle_check_finds_a_circle() {
    // At the top, through a brace list and a code path.
    let top = Crate::from_sources(&[
        ("src/lib.rs", "mod a; mod b;"),
        ("src/a.rs", "use crate::{b::X, ordered};"),
        ("src/b.rs", "pub struct X; fn f() { crate::a::g(); }"),
    ]);
    let found = circles(&top);
    assert_eq!(found.len(), 1, "{found:?}");
    assert!(
        found[0].starts_with("src (top level): a -> b (src/a.rs: crate::b::X) -> a"),
        "{found:?}"
    );
    // Inside a module: through a re-export in the parent, `super::` and `use super::*`.
    let inside = Crate::from_sources(&[
        ("src/lib.rs", "mod d;"),
        ("src/d/mod.rs", "mod x; mod y; pub(crate) use y::Y;"),
        ("src/d/x.rs", "use super::Y;"),
        ("src/d/y.rs", "pub struct Y; fn f() { super::x::h() }"),
    ]);
    assert_eq!(
        circles(&inside),
        ["src/d: x -> y (src/d/x.rs: super::Y) -> x (src/d/y.rs: super::x::h)"]
    );
    let glob = Crate::from_sources(&[
        ("src/lib.rs", "mod d;"),
        ("src/d/mod.rs", "mod x; mod y;"),
        ("src/d/x.rs", "use super::*; fn f() { y::g() }"),
        ("src/d/y.rs", "fn g() {} fn h() { super::super::d::x::f() }"),
    ]);
    assert_eq!(circles(&glob).len(), 1, "{:?}", circles(&glob));
    // A nested file's `super::super::` is its grandparent; test code counts.
    let nested = Crate::from_sources(&[
        ("src/lib.rs", "mod c;"),
        ("src/c/mod.rs", "mod op; mod seam;"),
        ("src/c/seam/mod.rs", "mod draft;"),
        ("src/c/seam/draft.rs", "use super::super::op::run;"),
        (
            "src/c/op.rs",
            "fn run() {}\n#[cfg(test)]\nmod tests { use crate::c::seam::X; }",
        ),
    ]);
    let found = circles(&nested);
    assert_eq!(found.len(), 1, "{found:?}");
    assert!(found[0].starts_with("src/c: op -> seam"), "{found:?}");
    assert!(
        found[0].contains("src/c/op.rs: crate::c::seam::X, test code"),
        "{found:?}"
    );
    // Paths in comments and strings are no imports; a parent and its children are no circle.
    let quiet = Crate::from_sources(&[
        ("src/lib.rs", "mod a; mod b; mod c;"),
        (
            "src/a.rs",
            "// crate::b::X\nconst S: &str = \"crate::b::X\";",
        ),
        ("src/b.rs", "use crate::a::S; /* crate::a */"),
        ("src/c/mod.rs", "mod k; use k::K; pub struct P;"),
        ("src/c/k.rs", "use super::P; pub struct K;"),
    ]);
    assert_eq!(circles(&quiet), Vec::<String>::new());
    // The coordinator's sibling graph, as the old per-directory check read it.
    let coordinator = Crate::from_sources(&[
        ("src/lib.rs", "mod coordinator;"),
        (
            "src/coordinator/mod.rs",
            "mod heartbeat; mod assignment; mod fence; mod views; pub struct Batch;",
        ),
        (
            "src/coordinator/heartbeat.rs",
            "use super::{assignment::x, fence, Batch};\nuse crate::coordinator::views::describe;",
        ),
        ("src/coordinator/assignment.rs", "pub fn x() {}"),
        ("src/coordinator/fence.rs", ""),
        ("src/coordinator/views/mod.rs", "pub mod describe;"),
        ("src/coordinator/views/describe.rs", ""),
    ]);
    let graph = &coordinator.sibling_graphs()[&path(&["coordinator"])];
    assert_eq!(
        graph["heartbeat"].keys().collect::<Vec<_>>(),
        ["assignment", "fence", "views"]
    );
}

#[test]
fn the_layer_check_finds_an_import_that_goes_up() {
    let up = Crate::from_sources(&[
        ("src/lib.rs", "mod records; mod group; mod newcomer;"),
        ("src/records.rs", "use crate::group::Member;"),
        ("src/group.rs", "pub struct Member;"),
        ("src/newcomer.rs", "use crate::records::X;"),
    ]);
    let found = layer_breaks(&up);
    assert_eq!(found.len(), 2, "{found:?}");
    assert!(
        found
            .iter()
            .any(|f| f.starts_with("src/newcomer has no layer")),
        "{found:?}"
    );
    assert!(
        found
            .iter()
            .any(|f| f.starts_with("records (records) imports group (state)")),
        "{found:?}"
    );
}

// ---------------------------------------------------------------------------------------------
// The coordinator.

fn coordinator_graph(krate: &Crate) -> Graph {
    krate
        .sibling_graphs()
        .remove(&path(&["coordinator"]))
        .unwrap_or_default()
}

#[test]
fn every_coordinator_module_has_a_place() {
    let graph = coordinator_graph(core());
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
    for (name, refs) in coordinator_graph(core()) {
        if OPERATIONS.contains(&name.as_str()) {
            let ops: Vec<String> = refs
                .iter()
                .filter(|(r, _)| OPERATIONS.contains(&r.as_str()))
                .map(|(r, e)| format!("{r} ({})", e.example()))
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
    let graph = coordinator_graph(core());
    for leaf in LEAVES {
        let bad: Vec<String> = graph[*leaf]
            .iter()
            .filter(|(r, _)| !LEAVES.contains(&r.as_str()))
            .map(|(r, e)| format!("{r} ({})", e.example()))
            .collect();
        assert!(bad.is_empty(), "{leaf} imports {bad:?}");
    }
    assert!(
        !graph["views"].contains_key("dialect"),
        "views import the dialect seam"
    );
}

/// What breaks "one implementation per wire dialect; a release is a value": files of the seam
/// beyond [`DIALECT_FILES`], and `DialectRules` implementations beyond one per dialect file.
fn dialect_breaks(files: &[(String, String)]) -> Vec<String> {
    let mut out = Vec::new();
    let mut implementations = BTreeSet::new();
    for (path, text) in files {
        let Some(name) = path.strip_prefix("src/coordinator/dialect/") else {
            continue;
        };
        if !DIALECT_FILES.contains(&name) {
            out.push(format!(
                "{path}: the seam holds one implementation per wire dialect (draft.rs, kafka42.rs); a later Kafka release is a value those rules consult (dialect/release.rs), not a new copy of them"
            ));
        }
        let code = sanitize(text);
        let n = code.matches("impl DialectRules for").count();
        if n > 0 {
            implementations.insert(name.to_string());
        }
        if n > 1 || (n == 1 && !["draft.rs", "kafka42.rs"].contains(&name)) {
            out.push(format!(
                "{path}: implements DialectRules; only draft.rs and kafka42.rs do (one per wire dialect)"
            ));
        }
    }
    for (path, text) in files {
        if !path.starts_with("src/coordinator/dialect/")
            && sanitize(text).contains("impl DialectRules for")
        {
            out.push(format!("{path}: implements DialectRules outside the seam"));
        }
    }
    out
}

/// The core's files and their text, read once.
fn core_files() -> &'static [(String, String)] {
    static FILES: OnceLock<Vec<(String, String)>> = OnceLock::new();
    FILES.get_or_init(|| {
        let mut out = Vec::new();
        let mut stack = vec![root().join("src")];
        while let Some(dir) = stack.pop() {
            for entry in std::fs::read_dir(&dir).expect("a source directory") {
                let p = entry.expect("an entry").path();
                if p.is_dir() {
                    stack.push(p);
                } else if p.extension().is_some_and(|e| e == "rs") {
                    let rel = p
                        .strip_prefix(root())
                        .expect("under the crate")
                        .to_string_lossy()
                        .replace('\\', "/");
                    out.push((rel, std::fs::read_to_string(&p).expect("a source file")));
                }
            }
        }
        out.sort();
        out
    })
}

fn made_up(files: &[(&str, &str)]) -> Vec<(String, String)> {
    files
        .iter()
        .map(|(p, t)| (p.to_string(), t.to_string()))
        .collect()
}

#[test]
fn the_dialect_seam_has_one_implementation_per_wire_dialect_and_releases_are_values() {
    let found = dialect_breaks(core_files());
    assert!(found.is_empty(), "{}", found.join("\n"));
}

#[test]
fn the_dialect_check_finds_a_copy_of_the_rules_per_release() {
    let found = dialect_breaks(&made_up(&[
        (
            "src/coordinator/dialect/kafka42.rs",
            "impl DialectRules for Kafka42 {}",
        ),
        (
            "src/coordinator/dialect/kafka43.rs",
            "impl DialectRules for Kafka43 {}",
        ),
        (
            "src/coordinator/dialect/release.rs",
            "// impl DialectRules for X\npub struct Release;",
        ),
    ]));
    assert_eq!(found.len(), 2, "{found:?}");
    assert!(found.iter().all(|f| f.contains("kafka43.rs")), "{found:?}");
}

// ---------------------------------------------------------------------------------------------
// History.

fn history_breaks(krate: &Crate) -> Vec<String> {
    let graph = krate
        .sibling_graphs()
        .remove(&path(&["history"]))
        .unwrap_or_default();
    let mut out = Vec::new();
    for (a, b) in [("read", "tell"), ("tell", "read")] {
        if let Some(e) = graph.get(a).and_then(|e| e.get(b)) {
            out.push(format!("history/{a} imports history/{b} ({})", e.example()));
        }
    }
    out
}

#[test]
fn history_reading_and_telling_never_import_each_other() {
    let found = history_breaks(core());
    assert!(found.is_empty(), "{}", found.join("\n"));
    let krate = Crate::from_sources(&[
        ("src/lib.rs", "mod history;"),
        (
            "src/history/mod.rs",
            "mod read; mod tell; pub use tell::tell;",
        ),
        (
            "src/history/read/mod.rs",
            "#[cfg(test)] mod tests { use crate::history::tell; }",
        ),
        ("src/history/tell/mod.rs", "pub fn tell() {}"),
    ]);
    assert_eq!(history_breaks(&krate).len(), 1);
}

// ---------------------------------------------------------------------------------------------
// src/wire/,, and src/offsets/.

/// What breaks the wire's place: a module outside it (but the crate root) that imports it; an
/// import by the wire of a module beyond [`WIRE_MAY_IMPORT`], or through a path the crate does
/// not make public; a generated message file that imports anything outside the wire.
fn wire_breaks(krate: &Crate) -> Vec<String> {
    let wire = path(&["wire"]);
    let messages = path(&["wire", "messages"]);
    let public = krate
        .files
        .iter()
        .find(|f| f.path == "src/lib.rs")
        .map(|f| public_names(&f.code))
        .unwrap_or_default();
    let mut out = Vec::new();
    for r in krate.references() {
        let from_wire = r.from.starts_with(&wire);
        let to_wire = r.to.starts_with(&wire);
        if to_wire && !from_wire && !r.from.is_empty() {
            out.push(format!(
                "{}: {} imports the wire ({}); the codec sits at the edge and only the crate root names it",
                r.file,
                r.from.join("::"),
                r.written
            ));
        }
        if !from_wire || to_wire || r.to.is_empty() {
            continue;
        }
        let segments: Vec<&str> = r.written.split("::").collect();
        let through_public = match segments.first() {
            Some(&"crate") => segments.get(1).is_some_and(|n| public.contains(*n)),
            Some(&"super" | &"self") => false,
            // A bare path goes through an import, checked as written in its `use`.
            _ => true,
        };
        if r.from.starts_with(&messages) {
            out.push(format!(
                "{}: a generated message imports {} ({}); messages name only the wire's own codec",
                r.file,
                r.to.join("::"),
                r.written
            ));
        } else if !WIRE_MAY_IMPORT.contains(&r.to[0].as_str()) {
            out.push(format!(
                "{}: the wire imports {} ({}); it may import only {WIRE_MAY_IMPORT:?}",
                r.file,
                r.to.join("::"),
                r.written
            ));
        } else if !through_public {
            out.push(format!(
                "{}: the wire names {} through a path the crate keeps private ({}); it uses the public surface",
                r.file,
                r.to.join("::"),
                r.written
            ));
        }
    }
    out
}

/// Files under `src/wire/messages/` whose first line is not the generated header.
/// Whether a file's first line says it is generated and not to be edited.
fn generated(text: &str) -> bool {
    let first = text.lines().next().unwrap_or("").to_lowercase();
    GENERATED_HEADER.iter().all(|h| first.contains(h))
}

fn unheaded_messages(files: &[(String, String)]) -> Vec<String> {
    files
        .iter()
        .filter(|(p, _)| p.starts_with("src/wire/messages/"))
        .filter(|(_, text)| !generated(text))
        .map(|(p, _)| format!("{p}: the first line must say it is generated and not to be edited"))
        .collect()
}

/// Imports of the coordinator from `src/offsets/`: the offsets are state the coordinator's
/// operations use, as the groups are, and never call back into it.
fn offsets_breaks(krate: &Crate) -> Vec<String> {
    krate
        .references()
        .into_iter()
        .filter(|r| r.from.starts_with(&path(&["offsets"])))
        .filter(|r| r.to.starts_with(&path(&["coordinator"])))
        .map(|r| format!("{}: offsets import the coordinator ({})", r.file, r.written))
        .collect()
}

#[test]
fn the_wire_imports_public_types_below_it_and_nothing_imports_the_wire() {
    let lib = sanitize(&std::fs::read_to_string(root().join("src/lib.rs")).expect("lib.rs"));
    let public = public_names(&lib);
    for name in ["api", "records", "Coordinator", "Dialect", "IdMapIter"] {
        assert!(
            public.contains(name),
            "{name} is not read as public: {public:?}"
        );
    }
    for name in ["coordinator", "topics", "IdMap::Iter", "Iter"] {
        assert!(
            !public.contains(name),
            "{name} is read as public: {public:?}"
        );
    }
    let found = wire_breaks(core());
    assert!(found.is_empty(), "{}", found.join("\n"));
}

#[test]
fn generated_wire_messages_carry_the_generated_header() {
    let found = unheaded_messages(core_files());
    assert!(found.is_empty(), "{}", found.join("\n"));
}

#[test]
fn offsets_never_import_the_coordinator() {
    let found = offsets_breaks(core());
    assert!(found.is_empty(), "{}", found.join("\n"));
}

#[test]
fn the_wire_and_offsets_checks_find_what_breaks_them() {
    let krate = Crate::from_sources(&[
        (
            "src/lib.rs",
            "pub mod api; mod coordinator; pub mod group; mod offsets; mod wire;\npub use coordinator::{Coordinator as C, Snapshot};",
        ),
        ("src/api/mod.rs", "pub mod heartbeat;"),
        ("src/api/heartbeat.rs", "pub struct HeartbeatRequest;"),
        (
            "src/coordinator/mod.rs",
            "mod heartbeat; pub struct Coordinator; pub struct Snapshot;",
        ),
        ("src/coordinator/heartbeat.rs", "use crate::wire::Frame;"),
        ("src/group/mod.rs", "pub struct Group;"),
        (
            "src/wire/mod.rs",
            "pub mod messages; pub struct Frame;\nuse crate::api::heartbeat::HeartbeatRequest;\nuse crate::{C, Snapshot};\nuse crate::coordinator::heartbeat::handle;\nuse crate::group::Group;\nfn f() { let _ = C::new(); }",
        ),
        (
            "src/wire/messages/mod.rs",
            "use crate::api::heartbeat::HeartbeatRequest;",
        ),
        ("src/offsets/mod.rs", "use crate::coordinator::Coordinator;"),
    ]);
    let found = wire_breaks(&krate);
    assert_eq!(found.len(), 4, "{found:#?}");
    assert!(found[0].contains("coordinator::heartbeat imports the wire"));
    assert!(found.iter().any(|f| f
        .contains("the wire names coordinator::heartbeat through a path the crate keeps private")));
    assert!(found.iter().any(|f| f.contains("the wire imports group")));
    assert!(found
        .iter()
        .any(|f| f.contains("a generated message imports api::heartbeat")));
    assert_eq!(offsets_breaks(&krate).len(), 1);
    let headers = unheaded_messages(&made_up(&[
        (
            "src/wire/messages/heartbeat.rs",
            "// Generated by tools/wire-codegen from schemas/StreamsGroupHeartbeatRequest.json; do not edit.",
        ),
        ("src/wire/messages/mod.rs", "//! The messages.\n// generated, do not edit"),
    ]));
    assert_eq!(headers.len(), 1, "{headers:?}");
    assert!(headers[0].starts_with("src/wire/messages/mod.rs"));
}

// ---------------------------------------------------------------------------------------------
// Sans-IO, hosts and servers.

/// Names of [`NOT_SANS_IO`] (and `async` / `.await`) in files of `src/`, but the exceptions.
fn io_breaks(files: &[(String, String)]) -> Vec<String> {
    let mut out = Vec::new();
    for (p, text) in files {
        if !p.starts_with("src/") || SANS_IO_EXCEPTIONS.iter().any(|(f, _)| f == p) {
            continue;
        }
        let code = sanitize(text);
        for named in paths(&code) {
            if let Some(bad) = NOT_SANS_IO
                .iter()
                .find(|b| named == **b || named.starts_with(&format!("{b}::")))
            {
                out.push(format!("{p}: names {named} ({bad}): the core does no IO"));
            }
        }
        for word in ["async", "await"] {
            if has_word(&code, word) {
                out.push(format!("{p}: `{word}`: the core runs no futures"));
            }
        }
    }
    out
}

/// Names of the host crates in `src/`, and `#[path]` / `include!` that reach outside `src/`.
fn host_breaks(files: &[(String, String)]) -> Vec<String> {
    let hosts = host_crates();
    let mut out = Vec::new();
    for (p, text) in files {
        if !p.starts_with("src/") {
            continue;
        }
        for named in paths(&sanitize(text)) {
            let first = named.split("::").next().unwrap_or("");
            if hosts.iter().any(|h| h == first) {
                out.push(format!(
                    "{p}: names {named}: the core never imports its hosts"
                ));
            }
        }
        for line in text.lines() {
            let l = line.trim_start();
            let reaches = l.contains("../") || l.contains("crates/");
            if (l.starts_with("#[path")
                || l.contains("include!(")
                || l.contains("include_str!(")
                || l.contains("include_bytes!("))
                && reaches
            {
                out.push(format!("{p}: `{}` reads outside src/", l.trim()));
            }
        }
    }
    out
}

/// The dependency names of a Cargo.toml (every `[...dependencies]` table).
fn dependencies(manifest: &str) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let mut table: Option<String> = None;
    for line in manifest.lines() {
        let l = line.trim();
        if l.starts_with('[') {
            let header = l.trim_matches(|c| c == '[' || c == ']');
            table = None;
            if let Some(at) = header.find("dependencies") {
                let rest = &header[at + "dependencies".len()..];
                if let Some(name) = rest.strip_prefix('.') {
                    out.push((name.trim_matches('"').to_string(), String::new()));
                } else {
                    table = Some(header.to_string());
                }
            }
            continue;
        }
        if table.is_some() {
            if let Some((name, value)) = l.split_once('=') {
                if !l.starts_with('#') {
                    out.push((
                        name.trim().trim_matches('"').to_string(),
                        value.trim().to_string(),
                    ));
                }
            }
        }
    }
    out
}

/// Async runtimes among a manifest's dependencies, and (for the core) path dependencies into
/// `crates/`.
fn manifest_breaks(name: &str, manifest: &str) -> Vec<String> {
    let mut out = Vec::new();
    for (dep, value) in dependencies(manifest) {
        if ASYNC_RUNTIMES.contains(&dep.as_str()) {
            out.push(format!(
                "{name} depends on {dep}: no async runtime beside the core or in a wasm module (crates/sgc-server is the place for one)"
            ));
        }
        if name == "Cargo.toml" && value.contains("crates/") {
            out.push(format!("{name}: the core depends on {dep} in crates/"));
        }
    }
    out
}

#[test]
fn the_core_is_sans_io() {
    let found = io_breaks(core_files());
    assert!(found.is_empty(), "{}", found.join("\n"));
    for (file, _) in SANS_IO_EXCEPTIONS {
        assert!(
            root().join(file).exists(),
            "{file} is an exception and gone"
        );
    }
}

#[test]
fn the_core_never_imports_from_crates() {
    let hosts = host_crates();
    assert!(
        ["sgc_cli", "sgc_wasm", "sgc_wasi"]
            .iter()
            .all(|h| hosts.iter().any(|x| x == h)),
        "the crates read: {hosts:?}"
    );
    let found = host_breaks(core_files());
    assert!(found.is_empty(), "{}", found.join("\n"));
    let manifest = std::fs::read_to_string(root().join("Cargo.toml")).expect("Cargo.toml");
    let found = manifest_breaks("Cargo.toml", &manifest);
    assert!(found.is_empty(), "{}", found.join("\n"));
}

#[test]
fn no_async_runtime_in_the_core_or_in_a_wasm_module() {
    let mut found = Vec::new();
    for name in NO_RUNTIME_MANIFESTS {
        let manifest = std::fs::read_to_string(root().join(name)).expect("a manifest");
        assert!(
            !dependencies(&manifest).is_empty(),
            "{name}: no dependency read"
        );
        found.extend(manifest_breaks(name, &manifest));
    }
    assert!(found.is_empty(), "{}", found.join("\n"));
}

/// `crates/sgc-server`: a workspace member over the core by path, the core's
/// default features, nothing of the core's sources compiled in.
fn server_breaks(
    workspace: &str,
    manifest: Option<&str>,
    files: &[(String, String)],
) -> Vec<String> {
    let Some(manifest) = manifest else {
        return Vec::new();
    };
    let mut out = Vec::new();
    if !workspace.contains("\"crates/sgc-server\"") {
        out.push("crates/sgc-server is not a workspace member".to_string());
    }
    let core = dependencies(manifest)
        .into_iter()
        .find(|(d, _)| d == "streams-group-coordinator");
    match core {
        Some((_, v)) if v.contains("path = \"../..\"") => {}
        _ => out.push(
            "crates/sgc-server depends on the core by path (`streams-group-coordinator = { path = \"../..\" }`)"
                .to_string(),
        ),
    }
    for (p, text) in files {
        for line in text.lines() {
            let l = line.trim_start();
            if (l.starts_with("#[path") || l.contains("include!(")) && l.contains("src/") {
                out.push(format!(
                    "{p}: `{}` compiles the core's sources in",
                    l.trim()
                ));
            }
        }
    }
    out
}

#[test]
fn the_server_is_a_crate_over_the_core_public_api() {
    let workspace = std::fs::read_to_string(root().join("Cargo.toml")).expect("Cargo.toml");
    let dir = root().join("crates/sgc-server");
    let manifest = std::fs::read_to_string(dir.join("Cargo.toml")).ok();
    let mut files = Vec::new();
    if dir.join("src").is_dir() {
        let mut stack = vec![dir.join("src")];
        while let Some(d) = stack.pop() {
            for e in std::fs::read_dir(&d).expect("a directory") {
                let p = e.expect("an entry").path();
                if p.is_dir() {
                    stack.push(p);
                } else if p.extension().is_some_and(|x| x == "rs") {
                    let text = std::fs::read_to_string(&p).expect("a source");
                    files.push((p.to_string_lossy().to_string(), text));
                }
            }
        }
    }
    let found = server_breaks(&workspace, manifest.as_deref(), &files);
    assert!(found.is_empty(), "{}", found.join("\n"));
}

#[test]
fn the_io_host_and_server_checks_find_what_breaks_them() {
    let found = io_breaks(&made_up(&[
        (
            "src/history/read/mod.rs",
            "use std::{fs::File, collections::BTreeMap};\nfn f() { let _ = std::time::Instant::now(); }\nasync fn g() {}\n// std::net::TcpStream\nconst S: &str = \"tokio::spawn\";",
        ),
        ("crates/sgc-cli/src/main.rs", "use std::fs;"),
    ]));
    assert_eq!(found.len(), 3, "{found:#?}");
    let found = host_breaks(&made_up(&[(
        "src/api/mod.rs",
        "use sgc_cli::run;\n#[path = \"../crates/sgc-cli/src/x.rs\"]\nmod x;",
    )]));
    assert_eq!(found.len(), 2, "{found:#?}");
    let found = manifest_breaks(
        "Cargo.toml",
        "[package]\nname = \"x\"\n\n[dependencies]\nserde = \"1\"\nsgc-cli = { path = \"crates/sgc-cli\" }\n\n[target.'cfg(unix)'.dependencies]\ntokio = { version = \"1\" }\n\n[dependencies.mio]\nversion = \"1\"\n",
    );
    assert_eq!(found.len(), 3, "{found:#?}");
    let found = server_breaks(
        "[workspace]\nmembers = [\"crates/sgc-cli\"]",
        Some("[dependencies]\nstreams-group-coordinator = \"0.1\"\ntokio = \"1\""),
        &made_up(&[(
            "crates/sgc-server/src/main.rs",
            "#[path = \"../../../src/coordinator/mod.rs\"]\nmod coordinator;",
        )]),
    );
    assert_eq!(found.len(), 3, "{found:#?}");
    assert_eq!(server_breaks("", None, &[]), Vec::<String>::new());
}

// ---------------------------------------------------------------------------------------------
// Sizes.

/// Files of `src/` longer than [`MAX_LINES`], but test files, [`LONG_FILES`] and generated
/// messages.
fn long_files(krate: &Crate, files: &[(String, String)]) -> Vec<String> {
    let tests: BTreeSet<&str> = krate
        .files
        .iter()
        .filter(|f| f.test)
        .map(|f| f.path.as_str())
        .collect();
    files
        .iter()
        .filter(|(p, _)| !tests.contains(p.as_str()))
        .filter(|(p, _)| !LONG_FILES.iter().any(|(f, _)| f == p))
        // Generated messages are read against their schema, not in a sitting.
        .filter(|(p, text)| !(p.starts_with("src/wire/messages/") && generated(text)))
        .filter(|(_, text)| text.lines().count() > MAX_LINES)
        .map(|(p, text)| format!("{p}: {} lines, more than {MAX_LINES}", text.lines().count()))
        .collect()
}

#[test]
fn no_source_file_is_longer_than_a_sitting() {
    let found = long_files(core(), core_files());
    assert!(found.is_empty(), "{}", found.join("\n"));
    let long = "fn f() {}\n".repeat(MAX_LINES + 1);
    let made = Crate::from_sources(&[
        ("src/lib.rs", "mod big; #[cfg(test)] mod tests;"),
        ("src/big.rs", &long),
        ("src/tests.rs", &long),
    ]);
    let found = long_files(
        &made,
        &made_up(&[("src/big.rs", &long), ("src/tests.rs", &long)]),
    );
    assert_eq!(
        found,
        [format!(
            "src/big.rs: {} lines, more than {MAX_LINES}",
            MAX_LINES + 1
        )]
    );
}

/// The longest a JS module may be (tests and generated code aside).
const MAX_JS_LINES: usize = 700;

/// The JS modules under `dirs` (recursively, `.mjs`, `.js` and `.cjs`) longer than
/// [`MAX_JS_LINES`]: `(path, lines)` for each.
fn long_js_modules(base: &Path, dirs: &[&str]) -> Vec<String> {
    fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
        let Ok(entries) = std::fs::read_dir(dir) else {
            return;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            let name = path.file_name().map(|n| n.to_string_lossy().to_string());
            if path.is_dir() {
                if name.as_deref() != Some("node_modules") {
                    walk(&path, out);
                }
            } else if name.is_some_and(|n| {
                [".mjs", ".js", ".cjs"].iter().any(|e| n.ends_with(e)) && !n.contains(".test.")
            }) {
                out.push(path);
            }
        }
    }
    let mut files = Vec::new();
    for dir in dirs {
        walk(&base.join(dir), &mut files);
    }
    files.sort();
    files
        .iter()
        .filter_map(|f| {
            let lines = std::fs::read_to_string(f).ok()?.lines().count();
            (lines > MAX_JS_LINES).then(|| {
                let rel = f.strip_prefix(base).unwrap_or(f);
                format!("{}: {lines} lines, more than {MAX_JS_LINES}", rel.display())
            })
        })
        .collect()
}

#[test]
fn no_js_module_is_longer_than_a_sitting() {
    let found = long_js_modules(&root(), &["js", "examples/playground", "pkg-template"]);
    assert!(found.is_empty(), "{}", found.join("\n"));
    let dir = std::env::temp_dir().join(format!("sgc-layout-js-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("m")).expect("a temporary directory");
    let long = "x;\n".repeat(MAX_JS_LINES + 1);
    std::fs::write(dir.join("m/big.mjs"), &long).expect("write");
    std::fs::write(dir.join("m/big.test.mjs"), &long).expect("write");
    std::fs::write(dir.join("m/small.mjs"), "x;\n").expect("write");
    let found = long_js_modules(&dir, &["m"]);
    let _ = std::fs::remove_dir_all(&dir);
    assert_eq!(
        found,
        [format!(
            "m/big.mjs: {} lines, more than {MAX_JS_LINES}",
            MAX_JS_LINES + 1
        )]
    );
}

/// The README's Layout names each place these checks hold, the planned ones as such.
#[test]
fn every_place_is_named_in_the_readme_layout() {
    let readme = std::fs::read_to_string(root().join("README.md")).expect("README.md");
    let layout = readme
        .split("## Layout")
        .nth(1)
        .and_then(|s| s.split("\n## ").next())
        .expect("a Layout section");
    for place in [
        "`src/history/`",
        "`src/coordinator/`",
        "`dialect/release.rs`",
        "`src/wire/`",
        "`tools/wire-codegen`",
        "`src/offsets/`",
        "`crates/sgc-server`",
        "`tests/layout.rs`",
    ] {
        assert!(layout.contains(place), "README's Layout has no {place}");
    }
}
