//! Kafka's message schema files, read into a model of fields, types and version ranges.

use serde_json::Value;

/// An inclusive version range; `None` in a field means "no versions".
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Versions {
    pub lo: i16,
    pub hi: i16,
}

impl Versions {
    /// Kafka's forms: `"3"`, `"3-5"`, `"3+"`, `"none"`; `top` closes an open range.
    pub fn parse(text: &str, top: i16) -> Result<Option<Versions>, String> {
        let t = text.trim();
        if t == "none" || t.is_empty() {
            return Ok(None);
        }
        let num = |s: &str| {
            s.trim()
                .parse::<i16>()
                .map_err(|e| format!("bad version {s:?}: {e}"))
        };
        let v = if let Some(lo) = t.strip_suffix('+') {
            Versions {
                lo: num(lo)?,
                hi: top,
            }
        } else if let Some((lo, hi)) = t.split_once('-') {
            Versions {
                lo: num(lo)?,
                hi: num(hi)?,
            }
        } else {
            let n = num(t)?;
            Versions { lo: n, hi: n }
        };
        Ok(Some(v))
    }

    pub fn contains(&self, v: i16) -> bool {
        self.lo <= v && v <= self.hi
    }
}

/// A field's type.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Ty {
    Int8,
    Int16,
    Int32,
    Int64,
    Uint16,
    Bool,
    Float64,
    Uuid,
    Str,
    Bytes,
    Array(Box<Ty>),
    Struct(String),
}

impl Ty {
    fn parse(text: &str) -> Ty {
        if let Some(inner) = text.strip_prefix("[]") {
            return Ty::Array(Box::new(Ty::parse(inner)));
        }
        match text {
            "int8" => Ty::Int8,
            "int16" => Ty::Int16,
            "int32" => Ty::Int32,
            "int64" => Ty::Int64,
            "uint16" => Ty::Uint16,
            "bool" => Ty::Bool,
            "float64" => Ty::Float64,
            "uuid" => Ty::Uuid,
            "string" => Ty::Str,
            "bytes" | "records" => Ty::Bytes,
            other => Ty::Struct(other.to_string()),
        }
    }
}

/// One field of a struct.
#[derive(Clone, Debug)]
pub struct Field {
    pub name: String,
    pub ty: Ty,
    pub versions: Option<Versions>,
    pub nullable: Option<Versions>,
    pub tagged: Option<Versions>,
    pub tag: Option<u32>,
    pub default: Option<String>,
    /// `"flexibleVersions": "none"` on the field (the request header's `ClientId`): written
    /// in the classic form even in flexible versions.
    pub never_flexible: bool,
    /// The schema's `about`.
    pub about: String,
}

/// A struct: the message itself, an inline struct or a common struct.
#[derive(Clone, Debug)]
pub struct Struct {
    pub name: String,
    pub fields: Vec<Field>,
}

/// A message schema file.
#[derive(Clone, Debug)]
pub struct Message {
    pub file: String,
    pub name: String,
    pub kind: String,
    pub api_key: Option<i16>,
    pub valid: Versions,
    pub flexible: Option<Versions>,
    /// The message first, then every nested struct once, in the order they are met.
    pub structs: Vec<Struct>,
}

/// Removes `//` comments outside strings (the schema files carry license headers).
fn strip_comments(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for line in text.lines() {
        let mut in_string = false;
        let mut escaped = false;
        let mut cut = line.len();
        let bytes = line.as_bytes();
        for (i, &b) in bytes.iter().enumerate() {
            if in_string {
                if escaped {
                    escaped = false;
                } else if b == b'\\' {
                    escaped = true;
                } else if b == b'"' {
                    in_string = false;
                }
            } else if b == b'"' {
                in_string = true;
            } else if b == b'/' && bytes.get(i + 1) == Some(&b'/') {
                cut = i;
                break;
            }
        }
        out.push_str(&line[..cut]);
        out.push('\n');
    }
    out
}

fn text_of<'a>(v: &'a Value, key: &str) -> Option<&'a str> {
    v.get(key).and_then(Value::as_str)
}

impl Message {
    pub fn parse(file: &str, text: &str) -> Result<Message, String> {
        let v: Value =
            serde_json::from_str(&strip_comments(text)).map_err(|e| format!("{file}: {e}"))?;
        let name = text_of(&v, "name").ok_or(format!("{file}: no name"))?;
        let kind = text_of(&v, "type").unwrap_or("").to_string();
        let valid = Versions::parse(text_of(&v, "validVersions").unwrap_or("0"), i16::MAX)?
            .ok_or(format!("{file}: no valid versions"))?;
        // Open ranges stay open in the code ("3+": `v >= 3`); the valid versions bound them.
        let top = i16::MAX;
        let flexible = Versions::parse(text_of(&v, "flexibleVersions").unwrap_or("none"), top)?;
        let api_key = v.get("apiKey").and_then(Value::as_i64).map(|k| k as i16);
        let mut m = Message {
            file: file.to_string(),
            name: name.to_string(),
            kind,
            api_key,
            valid,
            flexible,
            structs: Vec::new(),
        };
        let common: Vec<&Value> = v
            .get("commonStructs")
            .and_then(Value::as_array)
            .map(|a| a.iter().collect())
            .unwrap_or_default();
        let fields = v
            .get("fields")
            .and_then(Value::as_array)
            .cloned()
            .unwrap_or_default();
        m.structs.push(Struct {
            name: name.to_string(),
            fields: Vec::new(),
        });
        let parsed = m.read_fields(&fields, top, &common)?;
        m.structs[0].fields = parsed;
        Ok(m)
    }

    fn read_fields(
        &mut self,
        fields: &[Value],
        top: i16,
        common: &[&Value],
    ) -> Result<Vec<Field>, String> {
        let mut out = Vec::new();
        for f in fields {
            let name = text_of(f, "name")
                .ok_or(format!("{}: a field without a name", self.file))?
                .to_string();
            let ty = Ty::parse(text_of(f, "type").unwrap_or(""));
            let versions = Versions::parse(text_of(f, "versions").unwrap_or("none"), top)?;
            let nullable = Versions::parse(text_of(f, "nullableVersions").unwrap_or("none"), top)?;
            let tagged = Versions::parse(text_of(f, "taggedVersions").unwrap_or("none"), top)?;
            let tag = f.get("tag").and_then(Value::as_u64).map(|t| t as u32);
            let default = match f.get("default") {
                Some(Value::String(s)) => Some(s.clone()),
                Some(Value::Bool(b)) => Some(b.to_string()),
                Some(Value::Number(n)) => Some(n.to_string()),
                _ => None,
            };
            let never_flexible = text_of(f, "flexibleVersions") == Some("none");
            let about = text_of(f, "about").unwrap_or("").trim().to_string();
            let struct_name = match &ty {
                Ty::Struct(s) => Some(s.clone()),
                Ty::Array(inner) => match inner.as_ref() {
                    Ty::Struct(s) => Some(s.clone()),
                    _ => None,
                },
                _ => None,
            };
            if let Some(s) = struct_name {
                if !self.structs.iter().any(|x| x.name == s) {
                    let nested = match f.get("fields").and_then(Value::as_array) {
                        Some(n) => n.clone(),
                        None => common
                            .iter()
                            .find(|c| text_of(c, "name") == Some(s.as_str()))
                            .and_then(|c| c.get("fields").and_then(Value::as_array))
                            .cloned()
                            .ok_or(format!("{}: no struct {s}", self.file))?,
                    };
                    let at = self.structs.len();
                    self.structs.push(Struct {
                        name: s.clone(),
                        fields: Vec::new(),
                    });
                    let parsed = self.read_fields(&nested, top, common)?;
                    self.structs[at].fields = parsed;
                }
            }
            out.push(Field {
                name,
                ty,
                versions,
                nullable,
                tagged,
                tag,
                default,
                never_flexible,
                about,
            });
        }
        Ok(out)
    }

    pub fn strukt(&self, name: &str) -> Option<&Struct> {
        self.structs.iter().find(|s| s.name == name)
    }

    pub fn flexible_at(&self, v: i16) -> bool {
        self.flexible.is_some_and(|f| f.contains(v))
    }

    /// What the bytes of version `v` are made of, for comparing two schemas of one message:
    /// each present field's type, nullability, tag and default, structs expanded (names may
    /// change between releases: 4.4 calls version 0's `AcceptableRecoveryLag` `...Legacy`).
    pub fn layout(&self, v: i16) -> String {
        let mut out = format!("flexible={} ", self.flexible_at(v));
        self.layout_of(&self.structs[0], v, &mut out);
        out
    }

    fn layout_of(&self, s: &Struct, v: i16, out: &mut String) {
        out.push('{');
        for f in &s.fields {
            if !f.versions.is_some_and(|r| r.contains(v)) {
                continue;
            }
            let tagged = f.tagged.is_some_and(|r| r.contains(v));
            let nullable = f.nullable.is_some_and(|r| r.contains(v));
            out.push_str(&format!(
                "{:?}:{}:{}:{:?}",
                strip_struct(&f.ty),
                nullable,
                if tagged {
                    f.tag.map_or(-1, i64::from)
                } else {
                    -1
                },
                f.default
            ));
            let inner = match &f.ty {
                Ty::Struct(n) => Some(n),
                Ty::Array(t) => match t.as_ref() {
                    Ty::Struct(n) => Some(n),
                    _ => None,
                },
                _ => None,
            };
            if let Some(st) = inner.and_then(|n| self.strukt(n)) {
                self.layout_of(st, v, out);
            }
            out.push(',');
        }
        out.push('}');
    }
}

/// A type with struct names left out (two releases may name one struct differently).
fn strip_struct(t: &Ty) -> Ty {
    match t {
        Ty::Struct(_) => Ty::Struct(String::new()),
        Ty::Array(i) => Ty::Array(Box::new(strip_struct(i))),
        other => other.clone(),
    }
}
