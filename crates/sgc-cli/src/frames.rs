//! Kafka's wire frames on the command line: serve a stream of request frames, print frames as
//! JSON for people, and encode JSON inputs as the frames a client sends.

use std::io::{self, BufRead, Read, Write};
use std::process::ExitCode;

use serde_json::{json, Value};
use streams_group_coordinator::api::boundary_error_json;
use streams_group_coordinator::wire::{self, Peer};
use streams_group_coordinator::{Coordinator, Dialect, Input, InputKind};

use crate::{emit, usage};

/// Options shared by the frame commands.
struct Options {
    config: Value,
    dialect: Option<Dialect>,
    now_ms: Option<i64>,
    client_host: String,
    json: bool,
    api_version: Option<i16>,
    file: Option<String>,
}

fn options(args: &[String]) -> Result<Options, String> {
    let mut o = Options {
        config: Value::Null,
        dialect: None,
        now_ms: None,
        client_host: String::new(),
        json: false,
        api_version: None,
        file: None,
    };
    let mut it = args.iter();
    while let Some(a) = it.next() {
        let mut value = |name: &str| it.next().cloned().ok_or(format!("{name} takes a value"));
        match a.as_str() {
            "--json" => o.json = true,
            "--config" => {
                let path = value("--config")?;
                let text = std::fs::read_to_string(&path)
                    .map_err(|e| format!("cannot read the configuration {path}: {e}"))?;
                o.config = serde_json::from_str(&text)
                    .map_err(|e| format!("cannot read the configuration {path}: {e}"))?;
            }
            "--dialect" => {
                let d = value("--dialect")?;
                o.dialect = Some(Dialect::from_name(&d).ok_or(format!("unknown dialect {d:?}"))?);
            }
            "--now-ms" => {
                let n = value("--now-ms")?;
                o.now_ms = Some(
                    n.parse()
                        .map_err(|_| format!("--now-ms {n:?}: not a number"))?,
                );
            }
            "--client-host" => o.client_host = value("--client-host")?,
            "--api-version" => {
                let n = value("--api-version")?;
                o.api_version = Some(
                    n.parse()
                        .map_err(|_| format!("--api-version {n:?}: not a version"))?,
                );
            }
            f if o.file.is_none() && !f.starts_with("--") => o.file = Some(f.to_string()),
            other => return Err(format!("unexpected argument {other:?}")),
        }
    }
    if let Some(d) = o.dialect {
        if let Value::Object(m) = &mut o.config {
            m.insert("dialect".into(), json!(d.name()));
        } else {
            o.config = json!({ "dialect": d.name() });
        }
    }
    Ok(o)
}

fn read_input(file: &Option<String>) -> io::Result<Vec<u8>> {
    let mut b = Vec::new();
    match file.as_deref() {
        None | Some("-") => io::stdin().read_to_end(&mut b).map(|_| b),
        Some(path) => std::fs::read(path),
    }
}

fn wall_clock_ms() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX))
}

fn coordinator(o: &Options) -> Result<Coordinator, ExitCode> {
    Coordinator::from_json_config(&o.config).map_err(|e| {
        eprintln!("{}", boundary_error_json(&e));
        ExitCode::from(2)
    })
}

/// `sgc frames`: each request frame of a size-prefixed stream through the coordinator; the
/// response frames size-prefixed on stdout, or with `--json` one line per frame.
pub fn serve(args: &[String]) -> ExitCode {
    let o = match options(args) {
        Ok(o) => o,
        Err(e) => return usage(&e),
    };
    let mut c = match coordinator(&o) {
        Ok(c) => c,
        Err(code) => return code,
    };
    let dialect = c.config().dialect;
    let stream = match read_input(&o.file) {
        Ok(b) => b,
        Err(e) => {
            eprintln!("sgc: cannot read the frames: {e}");
            return ExitCode::from(1);
        }
    };
    let frames = match wire::split_frames(&stream) {
        Ok(f) => f,
        Err(e) => {
            eprintln!("sgc: {}", boundary_error_json(&e));
            return ExitCode::from(1);
        }
    };
    let peer = Peer {
        client_host: o.client_host.clone(),
    };
    let mut out = io::stdout().lock();
    let mut closed = false;
    for frame in frames {
        let now = o.now_ms.unwrap_or_else(wall_clock_ms);
        let written = match wire::handle_frame(&mut c, frame, now, &peer) {
            Ok(answer) if o.json => {
                let key = i16::from_be_bytes([frame[0], frame[1]]);
                let version = i16::from_be_bytes([frame[2], frame[3]]);
                let mut line = answer.output.to_json(dialect, c.config().record_bytes);
                let response = wire::response_json(dialect, key, version, &answer.frame)
                    .map(|(id, r)| json!({"correlationId": id, "apiKey": key, "apiVersion": version, "body": r}))
                    .unwrap_or_else(|e| boundary_error_json(&e));
                line["response"] = response;
                writeln!(out, "{line}")
            }
            Ok(answer) => {
                let size = i32::try_from(answer.frame.len()).unwrap_or(i32::MAX);
                out.write_all(&size.to_be_bytes())
                    .and_then(|_| out.write_all(&answer.frame))
            }
            Err(e) => {
                // Kafka closes the connection: the frames after it are not read.
                eprintln!("sgc: {}", boundary_error_json(&e));
                closed = true;
                Ok(())
            }
        };
        if written.and_then(|_| out.flush()).is_err() {
            return ExitCode::from(1);
        }
        if closed {
            return ExitCode::from(3);
        }
    }
    ExitCode::SUCCESS
}

/// `sgc frame-json`: each request frame of a size-prefixed stream as a JSON line.
pub fn to_json(args: &[String]) -> ExitCode {
    let o = match options(args) {
        Ok(o) => o,
        Err(e) => return usage(&e),
    };
    let dialect = o.dialect.unwrap_or_default();
    let stream = match read_input(&o.file) {
        Ok(b) => b,
        Err(e) => {
            eprintln!("sgc: cannot read the frames: {e}");
            return ExitCode::from(1);
        }
    };
    let frames = match wire::split_frames(&stream) {
        Ok(f) => f,
        Err(e) => {
            eprintln!("sgc: {}", boundary_error_json(&e));
            return ExitCode::from(1);
        }
    };
    let mut text = String::new();
    for frame in frames {
        let line = match wire::request_json(dialect, frame) {
            Ok((h, body)) => json!({
                "apiKey": h.api_key,
                "apiVersion": h.api_version,
                "correlationId": h.correlation_id,
                "clientId": h.client_id,
                "body": body,
            }),
            Err(e) => boundary_error_json(&e),
        };
        text.push_str(&format!("{line}\n"));
    }
    emit(&text)
}

/// `sgc encode-frames`: JSON inputs (one per line) as the request frames a client sends,
/// size-prefixed; inputs that are no request of the dialect are told on stderr and skipped.
pub fn encode(args: &[String]) -> ExitCode {
    let o = match options(args) {
        Ok(o) => o,
        Err(e) => return usage(&e),
    };
    let dialect = o.dialect.unwrap_or_default();
    let mut out = io::stdout().lock();
    let text = match read_input(&o.file) {
        Ok(b) => b,
        Err(e) => {
            eprintln!("sgc: cannot read the inputs: {e}");
            return ExitCode::from(1);
        }
    };
    for (i, line) in text.lines().enumerate() {
        let Ok(line) = line else {
            eprintln!("sgc: line {}: not UTF-8", i + 1);
            return ExitCode::from(1);
        };
        if line.trim().is_empty() {
            continue;
        }
        let input = match Input::parse(&line) {
            Ok(input) => input,
            Err(e) => {
                eprintln!("sgc: line {}: {}", i + 1, boundary_error_json(&e));
                continue;
            }
        };
        // Without --api-version: version 0, or the version an input that carries one came at
        // (the offsets inputs, DescribeGroups).
        let version = o.api_version.unwrap_or(match &input.kind {
            InputKind::OffsetCommit { api_version, .. }
            | InputKind::OffsetFetch { api_version, .. }
            | InputKind::TxnOffsetCommit { api_version, .. }
            | InputKind::DescribeGroups { api_version, .. } => *api_version,
            _ => 0,
        });
        let Some(frame) = wire::encode_request(dialect, &input.kind, version, i as i32) else {
            eprintln!(
                "sgc: line {}: not a request of {} at version {version}",
                i + 1,
                dialect.name()
            );
            continue;
        };
        let size = i32::try_from(frame.len()).unwrap_or(i32::MAX);
        if out
            .write_all(&size.to_be_bytes())
            .and_then(|_| out.write_all(&frame))
            .is_err()
        {
            return ExitCode::from(1);
        }
    }
    if out.flush().is_err() {
        return ExitCode::from(1);
    }
    ExitCode::SUCCESS
}
