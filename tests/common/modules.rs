//! The core's module graph, read from the text of `src/` (for `tests/layout.rs`): every file's
//! module, every path it names (`use` trees with their brace lists and renames, `crate::`,
//! `super::` and `self::` paths in code, and bare paths through the file's imports, which
//! catches `use super::*`), each resolved through re-exports (`pub use`, globs) to the module
//! that defines what it names. Comments and the insides of string and char literals are not
//! read, so a JSON text in a test or a path in a doc comment is no import.
//!
//! An edge joins two siblings: the children of the directory (or module) that holds both. A
//! child naming its parent (`super::Batch`) and a parent naming its children are the ordinary
//! shape of a module and no edge; a re-export in the parent is followed to the child it
//! comes from, so that no circle hides behind one.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// A module's path from the crate root (`[]` is `lib.rs`).
pub type ModPath = Vec<String>;

/// A file of `src/`.
pub struct SourceFile {
    /// `src/...`, with `/` separators.
    pub path: String,
    /// Its module.
    pub module: ModPath,
    /// The text without comments and without the insides of literals.
    pub code: String,
    /// A test module (declared `#[cfg(test)] mod x;`): all its code is test code.
    pub test: bool,
}

/// One path a file names, resolved.
#[derive(Clone, Debug)]
pub struct Reference {
    /// The module of the naming file.
    pub from: ModPath,
    /// The module that holds what it names.
    pub to: ModPath,
    /// The path as written (`crate::records::build::GroupMetadataFields`).
    pub written: String,
    /// The naming file.
    pub file: String,
    /// In test code (a `#[cfg(test)]` module, inline or a file).
    pub test: bool,
}

/// An edge between two siblings and the references that make it.
#[derive(Clone, Debug, Default)]
pub struct Edge {
    pub references: Vec<Reference>,
}

impl Edge {
    /// Only test code makes this edge.
    pub fn test_only(&self) -> bool {
        self.references.iter().all(|r| r.test)
    }

    /// The first reference, as `file: path`.
    pub fn example(&self) -> String {
        self.references
            .first()
            .map(|r| format!("{}: {}", r.file, r.written))
            .unwrap_or_default()
    }
}

/// Sibling -> sibling -> edge, for the children of one module.
pub type Graph = BTreeMap<String, BTreeMap<String, Edge>>;

/// The sources of a crate and what they declare.
pub struct Crate {
    pub files: Vec<SourceFile>,
    modules: BTreeSet<ModPath>,
    /// Per module: the names its top-level `use` declarations bring in, and what they name.
    imports: BTreeMap<ModPath, BTreeMap<String, ModPath>>,
    /// Per module: its glob imports (`use x::*`).
    globs: BTreeMap<ModPath, Vec<ModPath>>,
    /// Per module: the items its files define (fn, struct, enum, trait, type, const, ...).
    defined: BTreeMap<ModPath, BTreeSet<String>>,
}

/// A path as a `use` tree or code writes it: its segments, its rename, whether it is a glob.
#[derive(Clone, Debug, PartialEq)]
struct Leaf {
    segments: Vec<String>,
    alias: Option<String>,
    glob: bool,
}

/// A path found in a file's code, with the inline modules around it.
#[derive(Debug)]
struct Found {
    leaf: Leaf,
    /// Names of the inline modules (`mod tests { ... }`) around it.
    inline: Vec<String>,
    /// Inside a `#[cfg(test)]` inline module.
    test: bool,
    /// Part of a `use` declaration at the top of the file (not in a function or inline mod).
    top_use: bool,
}

impl Crate {
    /// Every `.rs` file under `root` (the crate's `src/`).
    pub fn read(root: &Path) -> Crate {
        let mut files = Vec::new();
        let mut stack = vec![root.to_path_buf()];
        while let Some(dir) = stack.pop() {
            for entry in std::fs::read_dir(&dir).expect("a source directory") {
                let path = entry.expect("an entry").path();
                if path.is_dir() {
                    stack.push(path);
                } else if path.extension().is_some_and(|e| e == "rs") {
                    let rel = path
                        .strip_prefix(root.parent().expect("src has a parent"))
                        .expect("under the crate")
                        .to_string_lossy()
                        .replace('\\', "/");
                    let text = std::fs::read_to_string(&path).expect("a source file");
                    files.push((rel, text));
                }
            }
        }
        files.sort();
        Crate::from_sources(
            &files
                .iter()
                .map(|(p, t)| (p.as_str(), t.as_str()))
                .collect::<Vec<_>>(),
        )
    }

    /// A crate of the given `(path, text)` files (paths `src/...`).
    pub fn from_sources(sources: &[(&str, &str)]) -> Crate {
        let mut files: Vec<SourceFile> = sources
            .iter()
            .map(|(path, text)| SourceFile {
                path: path.to_string(),
                module: module_of(path),
                code: sanitize(text),
                test: false,
            })
            .collect();
        let modules: BTreeSet<ModPath> = files.iter().map(|f| f.module.clone()).collect();
        // A file declared `#[cfg(test)] mod x;` in its parent, and the files under it.
        let mut test_modules: BTreeSet<ModPath> = BTreeSet::new();
        for f in &files {
            for (name, test) in declared_modules(&f.code) {
                if test {
                    let mut m = f.module.clone();
                    m.push(name);
                    test_modules.insert(m);
                }
            }
        }
        for f in &mut files {
            f.test = test_modules.iter().any(|t| f.module.starts_with(t));
        }
        let mut krate = Crate {
            files,
            modules,
            imports: BTreeMap::new(),
            globs: BTreeMap::new(),
            defined: BTreeMap::new(),
        };
        for i in 0..krate.files.len() {
            let module = krate.files[i].module.clone();
            let defined = definitions(&krate.files[i].code);
            krate
                .defined
                .entry(module.clone())
                .or_default()
                .extend(defined);
            for found in scan(&krate.files[i].code) {
                if !found.top_use {
                    continue;
                }
                let Some(target) = krate.absolute(&found.leaf.segments, &module, &found, true)
                else {
                    continue;
                };
                if found.leaf.glob {
                    krate.globs.entry(module.clone()).or_default().push(target);
                } else if let Some(name) =
                    found.leaf.alias.clone().or_else(|| target.last().cloned())
                {
                    if name != "_" {
                        krate
                            .imports
                            .entry(module.clone())
                            .or_default()
                            .insert(name, target);
                    }
                }
            }
        }
        krate
    }

    /// An absolute path for `segments` as written in a file of `module` (inside the inline
    /// modules of `found`); `None` for a path outside the crate.
    fn absolute(
        &self,
        segments: &[String],
        module: &ModPath,
        found: &Found,
        in_use: bool,
    ) -> Option<ModPath> {
        let mut base = module.clone();
        base.extend(found.inline.iter().cloned());
        let mut segs: Vec<String> = segments.to_vec();
        // `a::b::{self}` names `a::b`.
        if segs.last().is_some_and(|s| s == "self") && segs.len() > 1 {
            segs.pop();
        }
        let first = segs.first()?.clone();
        let mut out = match first.as_str() {
            "crate" | "$crate" => segs[1..].to_vec(),
            "super" => {
                let mut b = base.clone();
                let mut rest = &segs[..];
                while rest.first().is_some_and(|s| s == "super") {
                    b.pop()?;
                    rest = &rest[1..];
                }
                b.extend(rest.iter().cloned());
                b
            }
            "self" => {
                let mut b = base.clone();
                b.extend(segs[1..].iter().cloned());
                b
            }
            _ => {
                // A child module of the file's module (`use targets::TargetBook`), or, in code,
                // a name the file (or its glob imports) brought in.
                let mut child = module.clone();
                child.push(first.clone());
                if found.inline.is_empty() && self.modules.contains(&child) {
                    let mut b = module.clone();
                    b.extend(segs.iter().cloned());
                    b
                } else if in_use {
                    return None;
                } else if let Some(target) = self.import_of(module, &first) {
                    let mut b = target;
                    b.extend(segs[1..].iter().cloned());
                    b
                } else {
                    return None;
                }
            }
        };
        if out.first().is_some_and(|s| s == "crate") {
            out.remove(0);
        }
        Some(out)
    }

    /// What `name` names in `module`: an import, or a name a glob import brings in.
    fn import_of(&self, module: &ModPath, name: &str) -> Option<ModPath> {
        self.import_at(module, name, 0)
    }

    fn import_at(&self, module: &ModPath, name: &str, depth: usize) -> Option<ModPath> {
        if let Some(t) = self.imports.get(module).and_then(|i| i.get(name)) {
            return Some(t.clone());
        }
        if depth > 8 {
            return None;
        }
        for g in self.globs.get(module).into_iter().flatten() {
            let gm = self.module_of_path(g, depth + 1);
            let mut child = gm.clone();
            child.push(name.to_string());
            if self.modules.contains(&child)
                || self.defined.get(&gm).is_some_and(|d| d.contains(name))
            {
                return Some(child);
            }
            if let Some(t) = self.import_at(&gm, name, depth + 1) {
                return Some(t);
            }
        }
        None
    }

    /// The module that holds what `path` names, following imports and re-exports.
    pub fn module_of_path(&self, path: &[String], depth: usize) -> ModPath {
        let mut k = path.len();
        while k > 0 && !self.modules.contains(&path[..k]) {
            k -= 1;
        }
        let m: ModPath = path[..k].to_vec();
        if k == path.len() || depth > 8 {
            return m;
        }
        let name = &path[k];
        if self.defined.get(&m).is_some_and(|d| d.contains(name)) {
            return m;
        }
        if let Some(mut target) = self.import_of(&m, name) {
            target.extend(path[k + 1..].iter().cloned());
            return self.module_of_path(&target, depth + 1);
        }
        m
    }

    /// Every path the files name, resolved to modules of the crate.
    pub fn references(&self) -> Vec<Reference> {
        let mut out = Vec::new();
        for f in &self.files {
            for found in scan(&f.code) {
                let Some(abs) = self.absolute(&found.leaf.segments, &f.module, &found, false)
                else {
                    continue;
                };
                let to = self.module_of_path(&abs, 0);
                out.push(Reference {
                    from: f.module.clone(),
                    to,
                    written: found.leaf.segments.join("::"),
                    file: f.path.clone(),
                    test: f.test || found.test,
                });
            }
        }
        out
    }

    /// Per module with children: the graph of its children's references to each other.
    pub fn sibling_graphs(&self) -> BTreeMap<ModPath, Graph> {
        let mut graphs: BTreeMap<ModPath, Graph> = BTreeMap::new();
        for m in &self.modules {
            if let Some((_, parent)) = m.split_last() {
                graphs
                    .entry(parent.to_vec())
                    .or_default()
                    .entry(m.last().cloned().unwrap_or_default())
                    .or_default();
            }
        }
        for r in self.references() {
            let k = r.from.iter().zip(&r.to).take_while(|(a, b)| a == b).count();
            if k < r.from.len() && k < r.to.len() {
                graphs
                    .entry(r.from[..k].to_vec())
                    .or_default()
                    .entry(r.from[k].clone())
                    .or_default()
                    .entry(r.to[k].clone())
                    .or_default()
                    .references
                    .push(r.clone());
            }
        }
        graphs
    }
}

/// `src/a/b.rs` and `src/a/b/mod.rs` are `[a, b]`; `src/lib.rs` is `[]`.
pub fn module_of(path: &str) -> ModPath {
    let rel = path.strip_prefix("src/").unwrap_or(path);
    let rel = rel.strip_suffix(".rs").unwrap_or(rel);
    let mut parts: Vec<String> = rel.split('/').map(String::from).collect();
    if parts.last().is_some_and(|p| p == "mod") || parts == ["lib"] || parts == ["main"] {
        parts.pop();
    }
    parts
}

/// The text without comments, and with the insides of string and char literals blanked (their
/// quotes and line breaks kept).
pub fn sanitize(text: &str) -> String {
    let c: Vec<char> = text.chars().collect();
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    let ident = |ch: char| ch.is_alphanumeric() || ch == '_';
    let blank = |out: &mut String, ch: char| out.push(if ch == '\n' { '\n' } else { ' ' });
    while i < c.len() {
        let prev_ident = i > 0 && ident(c[i - 1]);
        if c[i] == '/' && c.get(i + 1) == Some(&'/') {
            while i < c.len() && c[i] != '\n' {
                i += 1;
            }
            continue;
        }
        if c[i] == '/' && c.get(i + 1) == Some(&'*') {
            let mut depth = 0;
            while i < c.len() {
                if c[i] == '/' && c.get(i + 1) == Some(&'*') {
                    depth += 1;
                    i += 2;
                } else if c[i] == '*' && c.get(i + 1) == Some(&'/') {
                    depth -= 1;
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    blank(&mut out, c[i]);
                    i += 1;
                }
            }
            continue;
        }
        // Raw strings: r"..", r#".."#, br#".."#.
        if !prev_ident && (c[i] == 'r' || (c[i] == 'b' && c.get(i + 1) == Some(&'r'))) {
            let mut j = if c[i] == 'b' { i + 2 } else { i + 1 };
            let mut hashes = 0;
            while c.get(j) == Some(&'#') {
                hashes += 1;
                j += 1;
            }
            if c.get(j) == Some(&'"') {
                out.push('"');
                j += 1;
                loop {
                    if j >= c.len() {
                        break;
                    }
                    if c[j] == '"' && (0..hashes).all(|h| c.get(j + 1 + h) == Some(&'#')) {
                        j += 1 + hashes;
                        break;
                    }
                    blank(&mut out, c[j]);
                    j += 1;
                }
                out.push('"');
                i = j;
                continue;
            }
        }
        if c[i] == '"' {
            out.push('"');
            i += 1;
            while i < c.len() && c[i] != '"' {
                if c[i] == '\\' {
                    blank(&mut out, c[i]);
                    i += 1;
                }
                if i < c.len() {
                    blank(&mut out, c[i]);
                    i += 1;
                }
            }
            out.push('"');
            i += 1;
            continue;
        }
        if c[i] == '\'' {
            // A char literal ('x', '\n', '\u{..}'), not a lifetime ('a).
            let end = if c.get(i + 1) == Some(&'\\') {
                (i + 2..c.len()).find(|&j| c[j] == '\'')
            } else if c.get(i + 2) == Some(&'\'') {
                Some(i + 2)
            } else {
                None
            };
            if let Some(end) = end {
                out.push_str("' '");
                i = end + 1;
                continue;
            }
        }
        out.push(c[i]);
        i += 1;
    }
    out
}

/// The modules a file declares: `(name, under #[cfg(test)])` for each `mod name;` or
/// `mod name {`.
fn declared_modules(code: &str) -> Vec<(String, bool)> {
    let mut out = Vec::new();
    let mut rest = code;
    let mut offset = 0;
    while let Some(at) = find_word(rest, "mod") {
        let after = &rest[at + 3..];
        let name: String = after
            .trim_start()
            .chars()
            .take_while(|c| c.is_alphanumeric() || *c == '_')
            .collect();
        if !name.is_empty() {
            let abs = offset + at;
            out.push((name, under_cfg_test(code, abs)));
        }
        offset += at + 3;
        rest = &rest[at + 3..];
    }
    out
}

/// Whether the item starting at `at` has a `#[cfg(test)]` (or `cfg(all(test, ..))`) attribute.
fn under_cfg_test(code: &str, at: usize) -> bool {
    let before = &code[..at];
    let start = before.rfind([';', '}', '{']).map_or(0, |p| p + 1);
    let attrs = &before[start..];
    attrs.contains("cfg(test)") || attrs.contains("cfg(all(test")
}

/// The next occurrence of `word` as a whole word.
fn find_word(text: &str, word: &str) -> Option<usize> {
    let bytes = text.as_bytes();
    let mut from = 0;
    while let Some(i) = text[from..].find(word) {
        let at = from + i;
        let before = at == 0 || !is_ident_byte(bytes[at - 1]);
        let after = bytes
            .get(at + word.len())
            .is_none_or(|b| !is_ident_byte(*b));
        if before && after {
            return Some(at);
        }
        from = at + word.len();
    }
    None
}

fn is_ident_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_' || b >= 0x80
}

/// Every path `code` names, as written (`std::fs::File`, `crate::records::Dialect`): `use`
/// leaves (a brace list gives one per entry) and paths in code.
pub fn paths(code: &str) -> Vec<String> {
    scan(code)
        .into_iter()
        .map(|f| f.leaf.segments.join("::"))
        .collect()
}

/// The names a crate root (`lib.rs`) makes public: its `pub mod`s and what its `pub use`s
/// bind (a rename's new name), not what `pub(crate)` shares.
pub fn public_names(code: &str) -> BTreeSet<String> {
    let c: Vec<char> = code.chars().collect();
    let mut out = BTreeSet::new();
    let mut from = 0;
    while let Some(at) = find_word(&code[from..], "pub") {
        let byte = from + at + 3;
        from = byte;
        let after = code[byte..].trim_start();
        let mut i = code[..code.len() - after.len()].chars().count();
        if let Some(rest) = after.strip_prefix("mod") {
            let name: String = rest
                .trim_start()
                .chars()
                .take_while(|x| x.is_alphanumeric() || *x == '_')
                .collect();
            out.insert(name);
        } else if after.starts_with("use") && !after[3..].starts_with(|x: char| x.is_alphanumeric())
        {
            i += 3;
            let mut leaves = Vec::new();
            tree(&c, &mut i, Vec::new(), &mut leaves);
            for leaf in leaves.into_iter().filter(|l| !l.glob) {
                if let Some(name) = leaf.alias.or_else(|| leaf.segments.last().cloned()) {
                    out.insert(name);
                }
            }
        }
    }
    out
}

/// Whether `code` holds `word` as a whole word (`async`, `await`).
pub fn has_word(code: &str, word: &str) -> bool {
    find_word(code, word).is_some()
}

/// The names of the items a file defines at any depth (enough to tell an item from a module).
fn definitions(code: &str) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    for kw in [
        "fn", "struct", "enum", "trait", "type", "const", "static", "union", "mod",
    ] {
        let mut rest = code;
        while let Some(at) = find_word(rest, kw) {
            let after = &rest[at + kw.len()..];
            let name: String = after
                .trim_start()
                .chars()
                .take_while(|c| c.is_alphanumeric() || *c == '_')
                .collect();
            if !name.is_empty() {
                out.insert(name);
            }
            rest = after;
        }
    }
    let mut rest = code;
    while let Some(at) = rest.find("macro_rules!") {
        let after = &rest[at + "macro_rules!".len()..];
        let name: String = after
            .trim_start()
            .chars()
            .take_while(|c| c.is_alphanumeric() || *c == '_')
            .collect();
        out.insert(name);
        rest = after;
    }
    out
}

/// Every path in `code`: `use` trees, and paths starting `crate::`, `super::`, `self::` or a
/// bare name followed by `::`.
fn scan(code: &str) -> Vec<Found> {
    let c: Vec<char> = code.chars().collect();
    let mut out = Vec::new();
    // Open inline modules: (name, brace depth inside it, under cfg(test)).
    let mut inline: Vec<(String, usize, bool)> = Vec::new();
    let mut depth = 0usize;
    // The byte offset of each char, for the cfg(test) look-back.
    let offsets: Vec<usize> = code.char_indices().map(|(b, _)| b).collect();
    let mut pending_mod: Option<(String, bool)> = None;
    let ident = |ch: char| ch.is_alphanumeric() || ch == '_';
    let mut i = 0;
    while i < c.len() {
        let ch = c[i];
        if ch == '{' {
            depth += 1;
            if let Some((name, test)) = pending_mod.take() {
                inline.push((name, depth, test));
            }
            i += 1;
            continue;
        }
        if ch == '}' {
            if inline.last().is_some_and(|(_, d, _)| *d == depth) {
                inline.pop();
            }
            depth = depth.saturating_sub(1);
            i += 1;
            continue;
        }
        if ch == ';' {
            pending_mod = None;
        }
        let starts_word =
            (ident(ch) || ch == '$') && (i == 0 || !(ident(c[i - 1]) || c[i - 1] == ':'));
        if !starts_word {
            i += 1;
            continue;
        }
        let word: String = std::iter::once(ch)
            .chain(c[i + 1..].iter().copied().take_while(|x| ident(*x)))
            .collect();
        let test = || inline.iter().any(|(_, _, t)| *t);
        let names = || inline.iter().map(|(n, _, _)| n.clone()).collect::<Vec<_>>();
        if word == "mod" {
            let name: String = c[i + 3..]
                .iter()
                .copied()
                .skip_while(|x| x.is_whitespace())
                .take_while(|x| ident(*x))
                .collect();
            pending_mod = Some((name, under_cfg_test(code, offsets[i])));
            i += 3;
            continue;
        }
        if word == "use" {
            let mut j = i + 3;
            let mut leaves = Vec::new();
            tree(&c, &mut j, Vec::new(), &mut leaves);
            let top = inline.is_empty() && depth == 0;
            for leaf in leaves {
                out.push(Found {
                    leaf,
                    inline: names(),
                    test: test(),
                    top_use: top,
                });
            }
            i = j.max(i + 3);
            continue;
        }
        let len = word.chars().count();
        let followed = c.get(i + len) == Some(&':') && c.get(i + len + 1) == Some(&':');
        if !followed {
            i += len;
            continue;
        }
        let mut j = i;
        let mut leaves = Vec::new();
        tree(&c, &mut j, Vec::new(), &mut leaves);
        for leaf in leaves {
            out.push(Found {
                leaf,
                inline: names(),
                test: test(),
                top_use: false,
            });
        }
        i = j.max(i + len);
    }
    out
}

/// Reads a `use` tree (or a code path) at `c[*i..]` into `out`, each leaf prefixed by `prefix`.
fn tree(c: &[char], i: &mut usize, prefix: Vec<String>, out: &mut Vec<Leaf>) {
    let ident = |ch: char| ch.is_alphanumeric() || ch == '_' || ch == '$';
    while *i < c.len() && c[*i].is_whitespace() {
        *i += 1;
    }
    if c.get(*i) == Some(&':') && c.get(*i + 1) == Some(&':') {
        // `use ::std::...`: an external crate.
        *i += 2;
        let mut ignored = Vec::new();
        tree(c, i, vec!["::".into()], &mut ignored);
        return;
    }
    match c.get(*i) {
        Some('{') => {
            *i += 1;
            loop {
                while *i < c.len() && (c[*i].is_whitespace() || c[*i] == ',') {
                    *i += 1;
                }
                match c.get(*i) {
                    None => return,
                    Some('}') => {
                        *i += 1;
                        return;
                    }
                    _ => {
                        let before = *i;
                        tree(c, i, prefix.clone(), out);
                        if *i == before {
                            *i += 1;
                        }
                    }
                }
            }
        }
        Some('*') => {
            *i += 1;
            out.push(Leaf {
                segments: prefix,
                alias: None,
                glob: true,
            });
        }
        _ => {
            let word: String = c[*i..].iter().copied().take_while(|x| ident(*x)).collect();
            if word.is_empty() {
                if !prefix.is_empty() {
                    out.push(Leaf {
                        segments: prefix,
                        alias: None,
                        glob: false,
                    });
                }
                return;
            }
            *i += word.chars().count();
            let mut segments = prefix;
            segments.push(word);
            if c.get(*i) == Some(&':') && c.get(*i + 1) == Some(&':') {
                *i += 2;
                tree(c, i, segments, out);
                return;
            }
            // A rename: `x as y`.
            let mut j = *i;
            while j < c.len() && c[j].is_whitespace() {
                j += 1;
            }
            let mut alias = None;
            if c.get(j..j + 2) == Some(&['a', 's'][..])
                && c.get(j + 2).is_some_and(|x| x.is_whitespace())
            {
                let mut k = j + 2;
                while k < c.len() && c[k].is_whitespace() {
                    k += 1;
                }
                let name: String = c[k..].iter().copied().take_while(|x| ident(*x)).collect();
                if !name.is_empty() {
                    *i = k + name.chars().count();
                    alias = Some(name);
                }
            }
            out.push(Leaf {
                segments,
                alias,
                glob: false,
            });
        }
    }
}

/// A circle in `graph` (its first module repeated at the end), if any. Test code counts.
pub fn circle(graph: &Graph) -> Option<Vec<String>> {
    fn visit(
        n: &str,
        graph: &Graph,
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
        for m in graph.get(n).into_iter().flat_map(|e| e.keys()) {
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

/// A circle in words: `a -> b (src/a.rs: crate::b::X) -> a (src/b.rs: super::a::Y)`.
pub fn describe(graph: &Graph, circle: &[String]) -> String {
    let mut s = circle.first().cloned().unwrap_or_default();
    for w in circle.windows(2) {
        let example = graph
            .get(&w[0])
            .and_then(|e| e.get(&w[1]))
            .map(|e| {
                let test = if e.test_only() { ", test code" } else { "" };
                format!("{}{test}", e.example())
            })
            .unwrap_or_default();
        s += &format!(" -> {} ({example})", w[1]);
    }
    s
}
