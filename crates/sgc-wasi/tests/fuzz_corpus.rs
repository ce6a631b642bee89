//! The `wasi_abi` fuzz target's seed corpus (`fuzz/seeds/wasi_abi/`) and every past crash
//! (`fuzz/regressions/wasi_abi/`), replayed on stable Rust through the body the cargo-fuzz target
//! runs (`fuzz/src/wasi_abi.rs`). The core's `tests/fuzz_corpus.rs` does the same for the
//! other targets.
//!
//! `SGC_WRITE_FUZZ_SEEDS=1 cargo test -p sgc-wasi --test fuzz_corpus` (`make fuzz-seeds`)
//! rewrites the seeds.

#[path = "../../../fuzz/src/wasi_abi.rs"]
mod body;

use std::fs;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::{Path, PathBuf};

const TARGET: &str = "wasi_abi";

fn fuzz_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fuzz")
}

fn files(dir: &Path) -> Vec<PathBuf> {
    let Ok(entries) = fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut out: Vec<PathBuf> = entries
        .map(|e| e.expect("directory entry").path())
        .filter(|p| p.is_file())
        .collect();
    out.sort();
    out
}

#[test]
fn seeds_and_past_crashes_replay_cleanly() {
    let mut failures = Vec::new();
    let mut seeds = 0;
    for kind in ["seeds", "regressions"] {
        for path in files(&fuzz_dir().join(kind).join(TARGET)) {
            seeds += usize::from(kind == "seeds");
            let data = fs::read(&path).expect("readable corpus file");
            if let Err(panic) = catch_unwind(AssertUnwindSafe(|| body::wasi_abi(&data))) {
                let message = panic
                    .downcast_ref::<String>()
                    .cloned()
                    .or_else(|| panic.downcast_ref::<&str>().map(|s| s.to_string()))
                    .unwrap_or_default();
                failures.push(format!("{}: {message}", path.display()));
            }
        }
    }
    assert!(seeds > 0, "no seeds for fuzz target {TARGET}");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// The seeds: create two handles, then calls, frees of every kind and reallocs, each sequence
/// starting its ops at another export (three bytes per op).
fn generate_seeds() -> Vec<(String, Vec<u8>)> {
    (0..16u8)
        .map(|k| {
            let mut ops = vec![3, 0, 0, 3, 1, 0];
            for i in 0..24u8 {
                ops.extend([
                    (k + i) % 9,
                    i.wrapping_mul(7).wrapping_add(k),
                    i.wrapping_mul(13) ^ k,
                ]);
            }
            (format!("sequence-{k:02}"), ops)
        })
        .collect()
}

/// The committed seeds are the generated ones; `SGC_WRITE_FUZZ_SEEDS=1` rewrites them.
#[test]
fn seed_corpus_is_the_generated_one() {
    let seeds = generate_seeds();
    let dir = fuzz_dir().join("seeds").join(TARGET);
    if std::env::var_os("SGC_WRITE_FUZZ_SEEDS").is_some() {
        if dir.exists() {
            fs::remove_dir_all(&dir).unwrap();
        }
        fs::create_dir_all(&dir).unwrap();
        for (name, data) in &seeds {
            fs::write(dir.join(name), data).unwrap();
        }
    }
    for (name, data) in &seeds {
        let committed = fs::read(dir.join(name)).unwrap_or_default();
        assert_eq!(
            &committed, data,
            "fuzz/seeds/{TARGET}/{name} is stale: make fuzz-seeds"
        );
    }
}
