//! `cargo run -p wire-codegen`: rewrites `src/wire/messages/` from `schemas/`.

use std::path::Path;

fn main() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let out = root.join("src/wire/messages");
    match wire_codegen::generate(&root.join("schemas")) {
        Ok(files) => {
            let _ = std::fs::remove_dir_all(&out);
            for (path, text) in files {
                let p = out.join(&path);
                if let Some(dir) = p.parent() {
                    std::fs::create_dir_all(dir).expect("a writable src/wire/messages");
                }
                std::fs::write(&p, text).expect("a writable src/wire/messages");
                println!("wrote src/wire/messages/{path}");
            }
        }
        Err(e) => {
            eprintln!("wire-codegen: {e}");
            std::process::exit(1);
        }
    }
}
