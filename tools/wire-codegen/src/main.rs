//! `cargo run -p wire-codegen`: rewrites `src/wire/messages/` and the server's
//! `crates/sgc-server/src/messages/` from `schemas/`.

use std::path::Path;

fn main() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let schemas = root.join("schemas");
    write(&root, "src/wire/messages", wire_codegen::generate(&schemas));
    write(
        &root,
        "crates/sgc-server/src/messages",
        wire_codegen::broker::generate(&schemas),
    );
}

fn write(root: &Path, folder: &str, generated: Result<Vec<(String, String)>, String>) {
    let out = root.join(folder);
    match generated {
        Ok(files) => {
            let _ = std::fs::remove_dir_all(&out);
            for (path, text) in files {
                let p = out.join(&path);
                if let Some(dir) = p.parent() {
                    std::fs::create_dir_all(dir).expect("a writable folder");
                }
                std::fs::write(&p, text).expect("a writable folder");
                println!("wrote {folder}/{path}");
            }
        }
        Err(e) => {
            eprintln!("wire-codegen: {e}");
            std::process::exit(1);
        }
    }
}
