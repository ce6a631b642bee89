//! A compiled host for `sgc-reactor.wasm` on the `wasmtime` crate, the way a broker written in
//! Rust embeds the plugin (docs/wasi-abi.md).
//!
//! ```text
//! sgc-wasi-host run INPUTS [--config CFG] [--log LOG] [--restart-after N] [--abi 1|2]
//! sgc-wasi-host test                      the checks `make test-wasi` runs
//! sgc-wasi-host bench [--members N] [--rounds R]
//! sgc-wasi-host faces DIR                 the Rust face of `make bench-faces`
//! ```
//!
//! `--module PATH` (any mode) names the reactor; the default is `pkg/wasi/sgc-reactor.wasm`
//! of the repository.

mod bench;
mod broker;
mod checks;
mod plugin;

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use broker::BrokerPartition;
use plugin::{Abi, Compiled};

/// The repository root (this project lives in examples/wasi-host/rust).
pub fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../..")
}

struct Args {
    positional: Vec<String>,
    options: Vec<(String, String)>,
}

impl Args {
    fn parse(raw: &[String]) -> Result<Args, String> {
        let mut positional = Vec::new();
        let mut options = Vec::new();
        let mut it = raw.iter();
        while let Some(a) = it.next() {
            if let Some(name) = a.strip_prefix("--") {
                let value = it.next().ok_or(format!("--{name} needs a value"))?;
                options.push((name.to_string(), value.clone()));
            } else {
                positional.push(a.clone());
            }
        }
        Ok(Args {
            positional,
            options,
        })
    }

    fn get(&self, name: &str) -> Option<&str> {
        self.options
            .iter()
            .rev()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }

    fn number(&self, name: &str, default: usize) -> Result<usize, String> {
        self.get(name)
            .map(|v| {
                v.parse()
                    .map_err(|_| format!("--{name}: not a number: {v}"))
            })
            .unwrap_or(Ok(default))
    }
}

const USAGE: &str =
    "usage: sgc-wasi-host run INPUTS [--config CFG] [--log LOG] [--restart-after N] [--abi 1|2]
       sgc-wasi-host test
       sgc-wasi-host bench [--members N] [--rounds R]
       sgc-wasi-host faces DIR
       (every mode: [--module sgc-reactor.wasm])";

fn main() -> ExitCode {
    let raw: Vec<String> = std::env::args().skip(1).collect();
    match run(&raw) {
        Ok(code) => code,
        Err(e) => {
            eprintln!("sgc-wasi-host: {e}");
            ExitCode::from(2)
        }
    }
}

fn run(raw: &[String]) -> Result<ExitCode, String> {
    let args = Args::parse(raw)?;
    let module = args
        .get("module")
        .map(PathBuf::from)
        .unwrap_or_else(|| repo_root().join("pkg/wasi/sgc-reactor.wasm"));
    let mode = args.positional.first().map(String::as_str);
    match mode {
        Some("run") => {
            let inputs = args.positional.get(1).ok_or(USAGE)?;
            let compiled = Compiled::from_file(&module)?;
            let config = match args.get("config") {
                Some(path) => {
                    Some(std::fs::read_to_string(path).map_err(|e| format!("{path}: {e}"))?)
                }
                None => None,
            };
            let log = args.get("log").map(PathBuf::from);
            if let Some(log) = log.as_ref().filter(|l| l.exists()) {
                std::fs::remove_file(log).map_err(|e| format!("{}: {e}", log.display()))?;
            }
            let abi = match args.get("abi") {
                None | Some("2") => Abi::V2,
                Some("1") => Abi::V1,
                Some(other) => return Err(format!("--abi: 1 or 2, not {other}")),
            };
            let restart_after = args
                .get("restart-after")
                .map(str::parse::<usize>)
                .transpose()
                .map_err(|e| format!("--restart-after: {e}"))?;
            let text = std::fs::read_to_string(inputs).map_err(|e| format!("{inputs}: {e}"))?;
            let mut partition = BrokerPartition::start(&compiled, config, log, abi)?;
            let mut stdout = std::io::stdout().lock();
            for (i, line) in text
                .lines()
                .map(str::trim)
                .filter(|l| !l.is_empty())
                .enumerate()
            {
                if restart_after == Some(i) {
                    partition.kill();
                    partition.restart()?;
                }
                let out = partition.handle_input(line)?;
                use std::io::Write;
                writeln!(stdout, "{out}").map_err(|e| e.to_string())?;
            }
            Ok(ExitCode::SUCCESS)
        }
        Some("test") => {
            let compiled = Compiled::from_file(&module)?;
            Ok(if checks::run_all(&compiled) {
                ExitCode::SUCCESS
            } else {
                ExitCode::FAILURE
            })
        }
        Some("bench") => {
            let compiled = Compiled::from_file(&module)?;
            bench::run(
                &compiled,
                args.number("members", 1000)?,
                args.number("rounds", 5)?,
            )?;
            Ok(ExitCode::SUCCESS)
        }
        Some("faces") => {
            let dir = args.positional.get(1).ok_or(USAGE)?;
            let compiled = Compiled::from_file(&module)?;
            bench::faces(&compiled, Path::new(dir))?;
            Ok(ExitCode::SUCCESS)
        }
        _ => Err(USAGE.into()),
    }
}
