//! Rust for one message: its structs with the schema's defaults, `read` and `write` per version.

use std::fmt::Write;

use crate::schema::{Field, Message, Struct, Ty, Versions};

/// `RequestApiKey` → `request_api_key`.
pub fn snake(name: &str) -> String {
    let chars: Vec<char> = name.chars().collect();
    let mut out = String::new();
    for (i, &c) in chars.iter().enumerate() {
        if c.is_ascii_uppercase() {
            let prev_lower =
                i > 0 && (chars[i - 1].is_ascii_lowercase() || chars[i - 1].is_ascii_digit());
            let next_lower = chars.get(i + 1).is_some_and(|n| n.is_ascii_lowercase());
            let prev_upper = i > 0 && chars[i - 1].is_ascii_uppercase();
            if i > 0 && (prev_lower || (prev_upper && next_lower)) {
                out.push('_');
            }
            out.push(c.to_ascii_lowercase());
        } else {
            out.push(c);
        }
    }
    out
}

/// Kafka's JSON name of a field: `MemberEpoch` → `memberEpoch`.
fn json_name(name: &str) -> String {
    let mut c = name.chars();
    match c.next() {
        Some(f) => f.to_ascii_lowercase().to_string() + c.as_str(),
        None => String::new(),
    }
}

fn ident(name: &str) -> String {
    let s = snake(name);
    match s.as_str() {
        "type" | "match" | "ref" | "self" | "struct" | "enum" | "fn" | "mod" | "move" | "use"
        | "where" | "loop" | "async" | "await" | "dyn" | "impl" | "in" | "let" | "static" => {
            format!("r#{s}")
        }
        _ => s,
    }
}

fn range(v: &Option<Versions>) -> String {
    match v {
        None => "false".into(),
        Some(r) if r.lo == r.hi => format!("v == {}", r.lo),
        Some(r) if r.hi == i16::MAX => format!("v >= {}", r.lo),
        Some(r) => format!("({} ..= {}).contains(&v)", r.lo, r.hi),
    }
}

fn is_nullable(f: &Field) -> bool {
    f.nullable.is_some()
}

fn prim(t: &Ty) -> Option<(&'static str, &'static str)> {
    Some(match t {
        Ty::Int8 => ("i8", "i8"),
        Ty::Int16 => ("i16", "i16"),
        Ty::Int32 => ("i32", "i32"),
        Ty::Int64 => ("i64", "i64"),
        Ty::Uint16 => ("u16", "u16"),
        Ty::Bool => ("bool", "bool"),
        Ty::Float64 => ("f64", "f64"),
        Ty::Uuid => ("[u8; 16]", "uuid"),
        _ => return None,
    })
}

/// The Rust type of a value of `t` (not counting a field's nullability).
fn base_type(t: &Ty) -> String {
    if let Some((r, _)) = prim(t) {
        return r.into();
    }
    match t {
        Ty::Str => "String".into(),
        Ty::Bytes => "Vec<u8>".into(),
        Ty::Array(i) => format!("Vec<{}>", base_type(i)),
        Ty::Struct(s) => s.clone(),
        _ => unreachable!(),
    }
}

fn field_type(f: &Field) -> String {
    let b = base_type(&f.ty);
    if is_nullable(f) && prim(&f.ty).is_none() {
        format!("Option<{b}>")
    } else {
        b
    }
}

fn default_expr(f: &Field) -> String {
    let d = f.default.as_deref();
    let nullable = is_nullable(f) && prim(&f.ty).is_none();
    if nullable && d == Some("null") {
        return "None".into();
    }
    let value = match &f.ty {
        Ty::Bool => d.unwrap_or("false").to_string(),
        Ty::Uuid => "[0; 16]".into(),
        Ty::Float64 => format!("{}_f64", d.unwrap_or("0")),
        t if prim(t).is_some() => {
            let text = d.unwrap_or("0");
            match text.strip_prefix("0x") {
                Some(hex) => format!("0x{hex}"),
                None => text.to_string(),
            }
        }
        Ty::Str => match d {
            Some(s) if !s.is_empty() => format!("{s:?}.to_string()"),
            _ => "String::new()".into(),
        },
        Ty::Bytes | Ty::Array(_) => "Vec::new()".into(),
        Ty::Struct(s) => format!("{s}::default()"),
        _ => unreachable!(),
    };
    if nullable {
        format!("Some({value})")
    } else {
        value
    }
}

/// An expression reading one non-null value of `t` from `r`.
fn read_value(t: &Ty, name: &str, flex: &str) -> String {
    if let Some((_, m)) = prim(t) {
        return format!("r.{m}({name:?})?");
    }
    match t {
        Ty::Str => format!("r.string({flex}, {name:?})?"),
        Ty::Bytes => format!("r.bytes({flex}, {name:?})?"),
        Ty::Struct(s) => format!("{s}::read(r, v)?"),
        Ty::Array(i) => {
            let (min, cap) = match prim(i) {
                Some(_) => (prim_size(i), "n"),
                None => (1, "n.min(MAX_PRESIZED)"),
            };
            format!(
                "{{ let n = r.array_len({flex}, {min}, {name:?})?; let mut a = Vec::with_capacity({cap}); for _ in 0..n {{ a.push({}); }} a }}",
                read_value(i, name, flex)
            )
        }
        _ => unreachable!(),
    }
}

fn prim_size(t: &Ty) -> usize {
    match t {
        Ty::Int8 | Ty::Bool => 1,
        Ty::Int16 | Ty::Uint16 => 2,
        Ty::Int32 => 4,
        Ty::Int64 | Ty::Float64 => 8,
        Ty::Uuid => 16,
        _ => 1,
    }
}

/// Whether `read_into` keeps field `f`: a string or an array (of values, strings or structs)
/// the newest version has, read into the buffers it held.
fn kept(m: &Message, f: &Field) -> bool {
    let reusable = match &f.ty {
        Ty::Str => true,
        Ty::Array(i) => prim(i).is_some() || matches!(**i, Ty::Str | Ty::Struct(_)),
        _ => false,
    };
    reusable && f.tag.is_none() && f.versions.as_ref().is_some_and(|r| r.hi >= m.valid.hi)
}

/// Statements reading `n` elements of `inner` into the vector `a`, its elements' buffers
/// reused.
fn read_elements(inner: &Ty, name: &str, flex: &str) -> String {
    match inner {
        t if prim(t).is_some() => format!(
            "a.clear(); a.reserve(n); for _ in 0..n {{ a.push({}); }}",
            read_value(t, name, flex)
        ),
        Ty::Str => format!(
            "a.truncate(n); for i in 0..n {{ match a.get_mut(i) {{ Some(x) => r.string_into({flex}, {name:?}, x)?, None => a.push(r.string({flex}, {name:?})?) }} }}"
        ),
        Ty::Struct(s) => format!(
            "a.truncate(n); for i in 0..n {{ match a.get_mut(i) {{ Some(x) => x.read_into(r, v)?, None => a.push({s}::read(r, v)?) }} }}"
        ),
        _ => unreachable!(),
    }
}

/// Statements reading a kept field into its own buffers.
fn read_kept(f: &Field, flex: &str) -> String {
    let id = ident(&f.name);
    let name = &f.name;
    let nullable_now = range(&f.nullable);
    match &f.ty {
        Ty::Str if !is_nullable(f) => format!("r.string_into({flex}, {name:?}, &mut this.{id})?;"),
        Ty::Str => format!(
            "if {nullable_now} {{ r.nullable_string_into({flex}, {name:?}, &mut this.{id})?; }} else {{ r.string_into({flex}, {name:?}, this.{id}.get_or_insert_with(String::new))?; }}"
        ),
        Ty::Array(i) => {
            let min = match prim(i) {
                Some(_) => prim_size(i),
                None => 1,
            };
            let elements = read_elements(i, name, flex);
            let len = format!("r.array_len({flex}, {min}, {name:?})?");
            if !is_nullable(f) {
                return format!("let n = {len}; let a = &mut this.{id}; {elements}");
            }
            format!(
                "if {nullable_now} {{ match r.nullable_array_len({flex}, {min}, {name:?})? {{ None => this.{id} = None, Some(n) => {{ let a = this.{id}.get_or_insert_with(Vec::new); {elements} }} }} }} else {{ let n = {len}; let a = this.{id}.get_or_insert_with(Vec::new); {elements} }}"
            )
        }
        _ => unreachable!(),
    }
}

/// Statements reading field `f` into `this.<field>`.
fn read_field(f: &Field, flex: &str) -> String {
    let id = ident(&f.name);
    let name = &f.name;
    let nullable_now = range(&f.nullable);
    if prim(&f.ty).is_some() || !is_nullable(f) {
        return format!("this.{id} = {};", read_value(&f.ty, name, flex));
    }
    // A nullable field: null where the version allows it.
    let some = read_value(&f.ty, name, flex);
    let maybe = match &f.ty {
        Ty::Str => format!("r.nullable_string({flex}, {name:?})?"),
        Ty::Bytes => format!("r.nullable_bytes({flex}, {name:?})?"),
        Ty::Struct(_) => format!("if r.i8({name:?})? < 0 {{ None }} else {{ Some({some}) }}"),
        Ty::Array(i) => {
            let (min, cap) = match prim(i) {
                Some(_) => (prim_size(i), "n"),
                None => (1, "n.min(MAX_PRESIZED)"),
            };
            format!(
                "match r.nullable_array_len({flex}, {min}, {name:?})? {{ None => None, Some(n) => {{ let mut a = Vec::with_capacity({cap}); for _ in 0..n {{ a.push({}); }} Some(a) }} }}",
                read_value(i, name, flex)
            )
        }
        _ => unreachable!(),
    };
    format!("this.{id} = if {nullable_now} {{ {maybe} }} else {{ Some({some}) }};")
}

/// Statements writing one non-null value `e` (an expression of type `&T`) of `t`.
fn write_value(t: &Ty, e: &str, flex: &str) -> String {
    if let Some((_, m)) = prim(t) {
        return match e.strip_prefix('&') {
            Some(place) => format!("put_{m}(w, {place});"),
            None => format!("put_{m}(w, *{e});"),
        };
    }
    match t {
        Ty::Str => format!("put_string(w, {e}, {flex});"),
        Ty::Bytes => format!("put_bytes(w, {e}, {flex});"),
        Ty::Struct(_) => format!("({e}).write(w, v);"),
        Ty::Array(i) => format!(
            "put_array_len(w, ({e}).len(), {flex}); for x in ({e}).iter() {{ {} }}",
            write_value(i, "x", flex)
        ),
        _ => unreachable!(),
    }
}

fn write_field(f: &Field, flex: &str) -> String {
    let id = ident(&f.name);
    if prim(&f.ty).is_some() || !is_nullable(f) {
        return write_value(&f.ty, &format!("&self.{id}"), flex);
    }
    let nullable_now = range(&f.nullable);
    let null = match &f.ty {
        Ty::Str | Ty::Bytes => format!("put_null(w, {flex});"),
        Ty::Array(_) => format!("put_null_array(w, {flex});"),
        Ty::Struct(_) => "put_i8(w, -1);".into(),
        _ => unreachable!(),
    };
    let marker = if matches!(f.ty, Ty::Struct(_)) {
        format!("if {nullable_now} {{ put_i8(w, 1); }} ")
    } else {
        String::new()
    };
    let some = write_value(&f.ty, "x", flex);
    let absent = match &f.ty {
        Ty::Struct(s) => format!("{s}::default().write(w, v);"),
        Ty::Array(_) => format!("put_array_len(w, 0, {flex});"),
        Ty::Str => format!("put_string(w, \"\", {flex});"),
        Ty::Bytes => format!("put_bytes(w, &[], {flex});"),
        _ => unreachable!(),
    };
    format!(
        "match &self.{id} {{ Some(x) => {{ {marker}{some} }} None => {{ if {nullable_now} {{ {null} }} else {{ {absent} }} }} }}"
    )
}

fn struct_code(m: &Message, s: &Struct, out: &mut String) {
    // Serde names are Kafka's JSON names (the field name, first letter lowercased); absent
    // keys take the schema's defaults.
    let _ = writeln!(
        out,
        "#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]"
    );
    let _ = writeln!(out, "#[serde(default)]");
    let _ = writeln!(out, "/// `{}` of the schema.", s.name);
    let _ = writeln!(out, "pub struct {} {{", s.name);
    for f in &s.fields {
        let about = if f.about.is_empty() {
            format!("`{}`.", f.name)
        } else {
            f.about.replace('\n', " ")
        };
        let _ = writeln!(out, "    /// {about}");
        let _ = writeln!(out, "    #[serde(rename = {:?})]", json_name(&f.name));
        let _ = writeln!(out, "    pub {}: {},", ident(&f.name), field_type(f));
    }
    let _ = writeln!(out, "}}\n");
    let _ = writeln!(out, "impl Default for {} {{", s.name);
    let _ = writeln!(out, "    fn default() -> Self {{");
    let _ = writeln!(out, "        {} {{", s.name);
    for f in &s.fields {
        let _ = writeln!(out, "            {}: {},", ident(&f.name), default_expr(f));
    }
    let _ = writeln!(out, "        }}\n    }}\n}}\n");

    let flexible = range(&m.flexible);
    let uses_v = !s.fields.is_empty() || m.flexible.is_some();
    let v = if uses_v { "v" } else { "_v" };
    let _ = writeln!(out, "impl {} {{", s.name);
    // Every struct is read into a kept one (`read_into`), its strings' and arrays' buffers
    // reused: what a host reads a steady heartbeat into allocates nothing.
    let keep: Vec<&Field> = s.fields.iter().filter(|f| kept(m, f)).collect();
    let _ = writeln!(
        out,
        "    /// Reads version `v`; unknown tagged fields are skipped.\n    pub fn read(r: &mut Reader<'_>, v: i16) -> Result<Self, WireError> {{\n        let mut this = Self::default();\n        this.read_into(r, v)?;\n        Ok(this)\n    }}\n"
    );
    let _ = writeln!(
        out,
        "    /// [`Self::read`] into `self`: the strings and arrays the version has keep their buffers\n    /// (no allocation for one that fits), the other fields start from their defaults. After an\n    /// error `self` holds part of the message.\n    #[allow(unused_mut, clippy::field_reassign_with_default)]\n    pub fn read_into(&mut self, r: &mut Reader<'_>, {v}: i16) -> Result<(), WireError> {{"
    );
    let _ = writeln!(out, "        let flexible = {flexible};");
    let _ = writeln!(out, "        let this = self;");
    let ids: Vec<String> = keep
        .iter()
        .map(|f| format!("this.{}", ident(&f.name)))
        .collect();
    let takes: Vec<String> = ids
        .iter()
        .map(|i| format!("std::mem::take(&mut {i})"))
        .collect();
    let comma = if takes.is_empty() { "" } else { "," };
    let _ = writeln!(out, "        let kept = ({}{comma});", takes.join(", "));
    let _ = writeln!(out, "        *this = Self::default();");
    for (i, (f, id)) in keep.iter().zip(&ids).enumerate() {
        // A field the version lacks stays at its default.
        let _ = writeln!(
            out,
            "        if {} {{ {id} = kept.{i}; }}",
            range(&f.versions)
        );
    }
    let flex_of = |f: &Field| {
        if f.never_flexible {
            "false"
        } else {
            "flexible"
        }
    };
    for f in s.fields.iter().filter(|f| f.tag.is_none()) {
        let read = if keep.iter().any(|k| std::ptr::eq(*k, f)) {
            read_kept(f, flex_of(f))
        } else {
            read_field(f, flex_of(f))
        };
        let _ = writeln!(out, "        if {} {{ {read} }}", range(&f.versions));
    }
    let tagged: Vec<&Field> = s.fields.iter().filter(|f| f.tag.is_some()).collect();
    let _ = writeln!(out, "        if flexible {{");
    let _ = writeln!(out, "            let n = r.uvarint(\"tagged fields\")?;");
    let _ = writeln!(out, "            for _ in 0..n {{");
    let _ = writeln!(out, "                let tag = r.uvarint(\"tag\")?;");
    let _ = writeln!(
        out,
        "                let size = r.uvarint(\"tag size\")? as usize;"
    );
    if tagged.is_empty() {
        let _ = writeln!(out, "                let _ = tag;");
        let _ = writeln!(out, "                r.skip(size, \"tagged field\")?;");
    } else {
        let _ = writeln!(
            out,
            "                let mut sub = r.sub(size, \"tagged field\")?;"
        );
        let _ = writeln!(out, "                let r = &mut sub;");
        let _ = writeln!(out, "                match tag {{");
        for f in &tagged {
            let _ = writeln!(
                out,
                "                    {} if {} => {{ {} }}",
                f.tag.unwrap_or(0),
                range(&f.tagged),
                read_field(f, "true")
            );
        }
        let _ = writeln!(out, "                    _ => {{}}");
        let _ = writeln!(out, "                }}");
    }
    let _ = writeln!(out, "            }}\n        }}");
    let _ = writeln!(out, "        Ok(())\n    }}\n");

    let _ = writeln!(
        out,
        "    /// Writes version `v`: fields the version lacks are left out.\n    pub fn write(&self, w: &mut Vec<u8>, {v}: i16) {{"
    );
    let _ = writeln!(out, "        let flexible = {flexible};");
    for f in s.fields.iter().filter(|f| f.tag.is_none()) {
        let _ = writeln!(
            out,
            "        if {} {{ {} }}",
            range(&f.versions),
            write_field(f, flex_of(f))
        );
    }
    if tagged.is_empty() {
        let _ = writeln!(out, "        if flexible {{ put_uvarint(w, 0); }}");
    } else {
        let mut sorted = tagged.clone();
        sorted.sort_by_key(|f| f.tag);
        let _ = writeln!(out, "        if flexible {{");
        let _ = writeln!(out, "            let mut count = 0u32;");
        let present = |f: &Field| {
            format!(
                "{} && self.{} != {}",
                range(&f.tagged),
                ident(&f.name),
                default_expr(f)
            )
        };
        for f in &sorted {
            let _ = writeln!(out, "            if {} {{ count += 1; }}", present(f));
        }
        let _ = writeln!(out, "            put_uvarint(w, count);");
        for f in &sorted {
            let _ = writeln!(
                out,
                "            if {} {{ put_uvarint(w, {}); let mut b = Vec::new(); {{ let w = &mut b; {} }} put_uvarint(w, b.len() as u32); w.extend_from_slice(&b); }}",
                present(f),
                f.tag.unwrap_or(0),
                write_field(f, "true")
            );
        }
        let _ = writeln!(out, "        }}");
    }
    let _ = writeln!(out, "    }}\n}}\n");
}

/// The whole generated file of one message.
pub fn message_file(m: &Message, source: &str) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "// Generated by tools/wire-codegen from {source}; do not edit.\n//! `{}` ({}), Kafka's schema as Rust.\n",
        m.name, m.kind
    );
    let _ = writeln!(
        out,
        "#![allow(clippy::all, unused_variables, unused_parens)]\n"
    );
    let _ = writeln!(out, "use serde::{{Deserialize, Serialize}};\n");
    let _ = writeln!(out, "use crate::wire::codec::*;\n");
    if let Some(k) = m.api_key {
        let _ = writeln!(out, "/// The API key.\npub const API_KEY: i16 = {k};");
    }
    let _ = writeln!(
        out,
        "/// The versions this schema defines.\npub const VERSIONS: (i16, i16) = ({}, {});",
        m.valid.lo, m.valid.hi
    );
    let _ = writeln!(
        out,
        "/// The first flexible version (`i16::MAX`: none).\npub const FLEXIBLE_FROM: i16 = {};\n",
        m.flexible.map_or(i16::MAX, |f| f.lo)
    );
    for s in &m.structs {
        struct_code(m, s, &mut out);
    }
    out
}
