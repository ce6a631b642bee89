//! `sgc`: the coordinator as a JSON-lines filter, plus helpers for scripts and other languages.
//! It uses only the core's public API.
#![forbid(unsafe_code)]

use std::io::{self, BufRead, Read, Write};
use std::process::ExitCode;

use streams_group_coordinator::api::boundary_error_json;
use streams_group_coordinator::topology::{topology_id, Subtopology};
use streams_group_coordinator::{history, partition_for, version, Coordinator, Dialect};

mod frames;

const HELP: &str = "\
sgc: a deterministic Kafka Streams group coordinator (KIP-1071) as a JSON-lines filter

USAGE:
    sgc [--config FILE]             read inputs from stdin, one JSON object per line, and write
                                    one JSON output per input line to stdout
    sgc topology-id [FILE]          print the topology id of a topology (the `topology` list of
                                    a StreamsGroupInitialize request) read from FILE or stdin
    sgc partition-for GROUP [N]     print the __consumer_offsets partition of GROUP (N = 50)
    sgc history FILE [--json] [--dialect D]
                                    tell each group's history from its records alone: FILE (or
                                    - for stdin) is the text of kafka-dump-log.sh
                                    --offsets-decoder, a raw __consumer_offsets log segment,
                                    JSON records (key/value or keyBytes/valueBytes), or the
                                    outputs of sgc; D is kafka-4.2, kafka-4.3, kafka-4.4 or
                                    kip1071-draft (guessed from the records when left out);
                                    exit code
                                    1 for a file it cannot read, 3 for a damaged log
                                    told up to the damage
    sgc frames [--config FILE] [--dialect D] [--now-ms MS] [--client-host H] [--json] [FILE]
                                    serve Kafka's wire protocol: read request frames (Kafka's
                                    stream: an int32 size, then the frame) from FILE or stdin
                                    and write the response frames the same way to stdout, or
                                    with --json one JSON line per frame (the output's records,
                                    explain etc., and the response decoded); time is the wall
                                    clock unless --now-ms fixes it; exit code 3 where Kafka
                                    would close the connection (the reason on stderr)
    sgc frame-json [--dialect D] [FILE]
                                    print each request frame of a stream as JSON: its header
                                    and its body under Kafka's field names
    sgc encode-frames [--dialect D] [--api-version V] [FILE]
                                    encode JSON inputs (one per line) as the request frames a
                                    client sends, size-prefixed, to stdout
    sgc serve [--listen HOST:PORT] [--data-dir DIR] [--config FILE] [--fsync group|batch|never]
                                    serve Kafka's protocol over TCP (default 127.0.0.1:9092),
                                    one coordinator per __consumer_offsets partition, records
                                    kept in DIR (default ./sgc-data) in Kafka's log format and
                                    replayed on start; `sgc serve --help` for every flag
                                    (not in sgc.wasm)
    sgc --version | --help

INPUTS (see DESIGN.md): {\"nowMs\": 1000, \"type\": \"StreamsGroupHeartbeat\", \"request\": {...}}
    types: StreamsGroupHeartbeat, StreamsGroupInitialize, StreamsGroupDescribe, TopicMetadata,
           AdvanceTime, DeleteGroups, Replay, SetTargetAssignment, OffsetCommit, OffsetFetch,
           ListGroups, StreamsGroupTopologyDescriptionUpdate, OffsetDelete, DescribeGroups,
           ConsumerGroupDescribe, TxnOffsetCommit, TransactionCompleted
OUTPUT: {\"response\", \"records\", \"topicsToCreate\", \"explain\", \"nextDeadlineMs\"}, or
        {\"error\": {\"code\", \"message\", \"path\"}} for a line that cannot be understood; the
        stream goes on after a bad line.
CONFIG FILE: a JSON object of settings with Kafka's names, e.g.
    {\"dialect\": \"kip1071-draft\", \"group.streams.session.timeout.ms\": 45000,
     \"group.streams.num.standby.replicas\": 1, \"assignor\": \"sticky\", \"recordBytes\": true}
";

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.first().map(String::as_str) {
        Some("--help") | Some("-h") | Some("help") => {
            print!("{HELP}");
            ExitCode::SUCCESS
        }
        Some("--version") | Some("-V") => {
            println!("sgc {}", version());
            ExitCode::SUCCESS
        }
        Some("partition-for") => partition_cmd(&args[1..]),
        Some("topology-id") => topology_id_cmd(&args[1..]),
        Some("history") => history_cmd(&args[1..]),
        Some("frames") => frames::serve(&args[1..]),
        #[cfg(not(target_family = "wasm"))]
        Some("serve") => sgc_server::main(&args[1..]),
        Some("frame-json") => frames::to_json(&args[1..]),
        Some("encode-frames") => frames::encode(&args[1..]),
        Some("--config") => match args.get(1) {
            Some(path) if args.len() == 2 => run(Some(path)),
            _ => usage("--config takes one FILE"),
        },
        None => run(None),
        Some(other) => usage(&format!("unknown argument {other:?}")),
    }
}

fn usage(message: &str) -> ExitCode {
    eprintln!("sgc: {message}\n\n{HELP}");
    ExitCode::from(2)
}

fn partition_cmd(args: &[String]) -> ExitCode {
    let Some(group) = args.first() else {
        return usage("partition-for needs a GROUP");
    };
    let partitions = match args.get(1).map(|n| n.parse::<i32>()) {
        None => 50,
        Some(Ok(n)) if n >= 1 => n,
        _ => return usage("PARTITIONS must be a positive integer"),
    };
    emit(&format!("{}\n", partition_for(group, partitions)))
}

fn topology_id_cmd(args: &[String]) -> ExitCode {
    let text = match args.first() {
        Some(path) => std::fs::read_to_string(path),
        None => {
            let mut s = String::new();
            io::stdin().read_to_string(&mut s).map(|_| s)
        }
    };
    let text = match text {
        Ok(t) => t,
        Err(e) => {
            eprintln!("sgc: cannot read the topology: {e}");
            return ExitCode::from(1);
        }
    };
    match serde_json::from_str::<Vec<Subtopology>>(&text) {
        Ok(topology) => emit(&format!("{}\n", topology_id(&topology))),
        Err(e) => {
            eprintln!("sgc: not a topology (a JSON list of subtopologies): {e}");
            ExitCode::from(1)
        }
    }
}

fn history_cmd(args: &[String]) -> ExitCode {
    let mut file = None;
    let mut as_json = false;
    let mut dialect = None;
    let mut it = args.iter();
    while let Some(a) = it.next() {
        match a.as_str() {
            "--json" => as_json = true,
            "--dialect" => match it.next().map(|d| Dialect::from_name(d)) {
                Some(Some(d)) => dialect = Some(d),
                _ => {
                    return usage(
                        "--dialect takes kafka-4.2, kafka-4.3, kafka-4.4 or kip1071-draft",
                    )
                }
            },
            f if file.is_none() => file = Some(f.to_string()),
            other => return usage(&format!("history takes one FILE, not also {other:?}")),
        }
    }
    let Some(file) = file else {
        return usage("history needs a FILE (or - for stdin)");
    };
    let bytes = if file == "-" {
        let mut b = Vec::new();
        io::stdin().read_to_end(&mut b).map(|_| b)
    } else {
        std::fs::read(&file)
    };
    let bytes = match bytes {
        Ok(b) => b,
        Err(e) => {
            eprintln!("sgc: cannot read {file}: {e}");
            return ExitCode::from(1);
        }
    };
    let log = match history::parse_log(&bytes, dialect) {
        Ok(l) => l,
        Err(e) => {
            eprintln!("sgc: {file}: {e}");
            return ExitCode::from(1);
        }
    };
    for w in &log.warnings {
        eprintln!("sgc: {file}: warning: {w}");
    }
    let told = history::tell(&log);
    let code = if as_json {
        emit(&format!("{told}\n"))
    } else {
        emit(&history::render_text(&told))
    };
    match log.damage.first() {
        // Told up to the damage: the history is on stdout, where it stops on stderr.
        Some(d) if code == ExitCode::SUCCESS => {
            eprintln!("sgc: {file}: {d}; the history is told up to it");
            ExitCode::from(TOLD_UP_TO_DAMAGE)
        }
        _ => code,
    }
}

/// `sgc history`'s exit code for a log told up to a damaged line (1: a file it cannot read,
/// 2: a wrong command line).
const TOLD_UP_TO_DAMAGE: u8 = 3;

/// Writes a command's answer to stdout: exit code 1, quietly, when stdout is gone (`sgc
/// history FILE | head`), where `print!` would panic.
fn emit(text: &str) -> ExitCode {
    let mut out = io::stdout().lock();
    match out.write_all(text.as_bytes()).and_then(|_| out.flush()) {
        Ok(()) => ExitCode::SUCCESS,
        Err(_) => ExitCode::from(1),
    }
}

fn run(config_path: Option<&String>) -> ExitCode {
    let config = match config_path {
        None => serde_json::Value::Null,
        Some(path) => match std::fs::read_to_string(path)
            .map_err(|e| e.to_string())
            .and_then(|t| serde_json::from_str(&t).map_err(|e| e.to_string()))
        {
            Ok(v) => v,
            Err(e) => {
                eprintln!("sgc: cannot read the configuration {path}: {e}");
                return ExitCode::from(2);
            }
        },
    };
    let mut coordinator = match Coordinator::from_json_config(&config) {
        Ok(c) => c,
        Err(e) => {
            eprintln!("{}", boundary_error_json(&e));
            return ExitCode::from(2);
        }
    };
    let stdin = io::stdin();
    let stdout = io::stdout();
    let mut out = stdout.lock();
    for line in stdin.lock().lines() {
        let line = match line {
            Ok(l) => l,
            Err(e) => {
                eprintln!("sgc: cannot read stdin: {e}");
                return ExitCode::from(1);
            }
        };
        if line.trim().is_empty() {
            continue;
        }
        let answer = coordinator.handle_json(&line);
        if writeln!(out, "{answer}").and_then(|_| out.flush()).is_err() {
            return ExitCode::from(1);
        }
    }
    ExitCode::SUCCESS
}
