//! `sgc serve`: the coordinator behind Kafka's protocol over TCP. What a broker does around the
//! coordinator, done once: frames read from sockets, one coordinator per `__consumer_offsets`
//! partition owning its groups (`partitionFor`) and driven on a thread of its own, each
//! partition's records appended to a log in Kafka's format before the answers leave, and the
//! coordinators rebuilt from their logs on start. The core stays sans-IO; this crate is the one
//! place with sockets, files, clocks and an async runtime.

pub mod acl;
pub mod broker;
pub mod log;
pub mod messages;
pub mod metrics;
pub mod net;
pub mod options;
pub mod sasl;
pub mod shard;
pub mod tls;
pub mod topics;

use std::net::SocketAddr;
use std::process::ExitCode;
use std::sync::{Arc, Mutex};

use serde_json::Value;
use streams_group_coordinator::Coordinator;
use tokio::net::TcpListener;

pub use options::{Fsync, Options};

/// The dialect a server speaks when its settings name none: the release whose answers are
/// the most measured.
const DEFAULT_DIALECT: &str = "kafka-4.2";

/// A server started: where it listens.
pub struct Started {
    pub addr: SocketAddr,
    pub metrics_addr: Option<SocketAddr>,
}

/// A cluster id kept in `DIR/meta.properties` as Kafka keeps it, made on the first start: a
/// random UUID, as Kafka's `Uuid.randomUuid`, written to a temporary file, synced, renamed and
/// the folder synced, so that a crash leaves no file or a whole one.
fn cluster_id(dir: &std::path::Path) -> Result<String, String> {
    let path = dir.join("meta.properties");
    if let Ok(text) = std::fs::read_to_string(&path) {
        if let Some(id) = text.lines().find_map(|l| l.strip_prefix("cluster.id=")) {
            return Ok(id.trim().to_string());
        }
    }
    let id = topics::id_text(topics::random_id());
    topics::write_durably(&path, format!("version=1\ncluster.id={id}\n").as_bytes())?;
    Ok(id)
}

/// Opens every partition and starts listening; `ready` is told where. Runs until the process
/// ends.
pub async fn serve(options: Options, ready: impl FnOnce(&Started)) -> Result<(), String> {
    let mut config = options.config.clone();
    if config.is_null() {
        config = Value::Object(Default::default());
    }
    if let Value::Object(map) = &mut config {
        map.entry("dialect")
            .or_insert_with(|| Value::String(DEFAULT_DIALECT.into()));
    }
    let probe = Coordinator::from_json_config(&config).map_err(|e| format!("--config: {e}"))?;
    let dialect = probe.config().dialect;
    let partitions = probe.config().offsets_topic_num_partitions;
    let dir = options.data_dir.clone();
    std::fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let cluster_id = cluster_id(&dir)?;
    let (mut topics, mut changed) = topics::Topics::load(dir.join("topics.json"), partitions)?;
    // Saved only when something changed (a flag adds a topic or gives one another id or
    // partition count): a restart on a full disk still starts.
    for declared in &options.topics {
        if let Some(what) = topics.declare(declared)? {
            eprintln!("sgc serve: {what}");
            changed = true;
        }
    }
    if changed {
        topics.save()?;
    }

    // Each coordinator thread loads its partitions (their logs replayed), then serves them.
    let threads = options
        .coordinator_threads
        .max(1)
        .min(partitions.max(1) as usize);
    let mut workers = Vec::with_capacity(threads);
    let mut loading = Vec::new();
    let acls = match &options.authorizer {
        None => None,
        Some(config) => Some(Arc::new(std::sync::RwLock::new(acl::AclStore::open(
            &dir,
            config.clone(),
        )?))),
    };
    for t in 0..threads {
        let acls = acls.clone();
        let (tx, rx) = std::sync::mpsc::channel();
        workers.push(tx);
        let (dir, config, fsync, seg) = (
            dir.clone(),
            config.clone(),
            options.fsync,
            options.segment_bytes,
        );
        let (loaded_tx, loaded_rx) = std::sync::mpsc::channel();
        std::thread::Builder::new()
            .name(format!("coordinator-{t}"))
            .spawn(move || {
                let mut shards = Vec::new();
                for p in (t..partitions as usize).step_by(threads) {
                    match shard::Shard::open(p as i32, &dir, &config, fsync, seg) {
                        Ok(s) => shards.push(s),
                        Err(e) => {
                            let _ = loaded_tx.send(Err(e));
                            return;
                        }
                    }
                }
                let _ = loaded_tx.send(Ok(()));
                shard::Worker::new(shards, partitions as usize, fsync, acls).run(rx);
            })
            .map_err(|e| e.to_string())?;
        loading.push(loaded_rx);
    }
    for l in loading {
        l.recv().map_err(|e| e.to_string())??;
    }

    let listener = TcpListener::bind(options.listen)
        .await
        .map_err(|e| format!("--listen {}: {e}", options.listen))?;
    let addr = listener.local_addr().map_err(|e| e.to_string())?;
    let (host, port) = options
        .advertise
        .clone()
        .unwrap_or_else(|| (addr.ip().to_string(), addr.port()));
    let known: Vec<topics::Topic> = topics.all().cloned().collect();
    use options::Protocol;
    let scram = Arc::new(std::sync::RwLock::new(sasl::credentials::ScramStore::open(
        &dir,
    )?));
    let tls = match (options.security_protocol, &options.tls) {
        (Protocol::Plaintext | Protocol::SaslPlaintext, _) => None,
        (_, None) => {
            return Err("an SSL or SASL_SSL listener needs --ssl-keystore-location FILE".into())
        }
        (_, Some(t)) => Some(tls::acceptor(t)?),
    };
    let sasl = match (options.security_protocol, &options.sasl_users) {
        (Protocol::Plaintext | Protocol::Ssl, _) => None,
        (_, None) => {
            return Err("a SASL_PLAINTEXT or SASL_SSL listener needs --sasl-users FILE".into())
        }
        (_, Some(path)) => {
            let text =
                std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
            let users = serde_json::from_str(&text).map_err(|e| {
                format!(
                    "{}: not a {{\"user\": \"password\"}} object: {e}",
                    path.display()
                )
            })?;
            Some(sasl::SaslConfig::from_users(
                users,
                options.sasl_mechanisms.clone(),
                scram.clone(),
            )?)
        }
    };
    let broker = Arc::new(broker::Broker {
        dialect,
        node_id: options.node_id,
        host,
        port: i32::from(port),
        cluster_id,
        workers,
        partitions: partitions as usize,
        topics: Mutex::new(topics),
        data_dir: dir,
        metrics: Arc::new(metrics::Metrics::default()),
        acls,
        sasl,
        scram,
    });
    broker.tell_topics(known);
    let metrics_addr = match options.metrics_listen {
        Some(at) => {
            let l = TcpListener::bind(at)
                .await
                .map_err(|e| format!("--metrics-listen {at}: {e}"))?;
            let a = l.local_addr().map_err(|e| e.to_string())?;
            tokio::spawn(net::metrics(l, broker.clone()));
            Some(a)
        }
        None => None,
    };
    ready(&Started { addr, metrics_addr });
    let limits = net::Limits {
        max_frame: options.socket_request_max_bytes,
        idle: std::time::Duration::from_millis(options.connections_max_idle_ms),
        max_connections: options.max_connections,
    };
    net::accept(listener, broker, limits, tls).await;
    Ok(())
}

/// `sgc serve ARGS`.
pub fn main(args: &[String]) -> ExitCode {
    if args.iter().any(|a| a == "--help" || a == "-h") {
        println!("{}", options::USAGE);
        return ExitCode::SUCCESS;
    }
    let options = match Options::parse(args) {
        Ok(o) => o,
        Err(e) => {
            eprintln!("sgc serve: {e}\n{}", options::USAGE);
            return ExitCode::from(2);
        }
    };
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
    {
        Ok(r) => r,
        Err(e) => {
            eprintln!("sgc serve: {e}");
            return ExitCode::from(1);
        }
    };
    let fsync = options.fsync;
    let data = options.data_dir.clone();
    let result = runtime.block_on(serve(options, |s| {
        // The first line on stdout says where, for scripts and tests that listen on port 0.
        println!("listening {}", s.addr);
        if let Some(m) = s.metrics_addr {
            println!("metrics {m}");
        }
        eprintln!(
            "sgc serve: listening on {} (data in {}, fsync {fsync:?})",
            s.addr,
            data.display()
        );
    }));
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("sgc serve: {e}");
            ExitCode::from(1)
        }
    }
}
