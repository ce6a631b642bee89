//! `sgc-nisshi --listen HOST:PORT --data-dir DIR [--partitions N]`: Nisshi's broker (its
//! connection stack, with its embedded SQLite storage in DIR) with the streams group
//! coordinator inside it, answering the streams group APIs (KIP-1071, dialect kafka-4.2) and the
//! group APIs both serve by group. docs/nisshi.md tells what it serves.

mod frames;
mod layer;
mod merge;
mod shards;

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use std::time::SystemTime;

use nisshi_broker::coordinator::group::administrator::{Controller, GroupCoordinatorConfig};
use nisshi_broker::service;
use nisshi_service::{
    BytesFrameLayer, FrameRouteService, TcpBytesLayer, TcpContext, TcpContextLayer,
};
use nisshi_storage::{ArcDynStorage, BrokerRegistrationRequest, Storage, StorageContainer};
use rama::extensions::Extensions;
use rama::{Layer as _, Service as _};
use tokio::net::TcpListener;
use tokio::sync::mpsc;
use url::Url;

/// The cluster id Nisshi's storage is kept under: the same on every start.
const CLUSTER_ID: &str = "sgc-nisshi";

struct Options {
    listen: String,
    data_dir: PathBuf,
    partitions: Option<i32>,
    /// The coordinators' settings (`--config FILE`, JSON: Kafka's names, as `sgc serve` takes).
    config: serde_json::Value,
}

const USAGE: &str =
    "usage: sgc-nisshi --listen HOST:PORT --data-dir DIR [--config FILE] [--partitions N]";

fn options() -> Result<Options, String> {
    let mut listen = None;
    let mut data_dir = None;
    let mut partitions = None;
    let mut config = serde_json::Value::Null;
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        let mut value = || args.next().ok_or(format!("{a} needs a value\n{USAGE}"));
        match a.as_str() {
            "--listen" => listen = Some(value()?),
            "--data-dir" => data_dir = Some(PathBuf::from(value()?)),
            "--partitions" => {
                partitions = Some(
                    value()?
                        .parse()
                        .ok()
                        .filter(|p| *p >= 1)
                        .ok_or("--partitions takes a number of at least 1")?,
                )
            }
            "--config" => {
                let path = value()?;
                let text = std::fs::read_to_string(&path).map_err(|e| format!("{path}: {e}"))?;
                config = serde_json::from_str(&text).map_err(|e| format!("{path}: {e}"))?
            }
            "-h" | "--help" => return Err(USAGE.into()),
            other => return Err(format!("unknown argument {other}\n{USAGE}")),
        }
    }
    Ok(Options {
        listen: listen.ok_or(USAGE)?,
        data_dir: data_dir.ok_or(USAGE)?,
        partitions,
        config,
    })
}

/// Nisshi's SQLite storage: `DIR/nisshi.db` (the engine names its file relative to the working
/// directory, which is DIR).
async fn storage(advertised: &Url) -> Result<ArcDynStorage, String> {
    let url = Url::parse("sqlite://nisshi.db").map_err(|e| e.to_string())?;
    let mut builder = StorageContainer::builder();
    builder.with_factory(Arc::new(nisshi_storage_sql::LiteEngineFactory));
    builder
        .cluster_id(CLUSTER_ID)
        .node_id(nisshi_broker::NODE_ID)
        .advertised_listener(advertised.clone())
        .storage(url)
        .silent(true)
        .build()
        .await
        .map_err(|e| format!("opening Nisshi's storage: {e:?}"))
}

/// Nisshi's request routes (its storage's, its classic group coordinator's, its SASL APIs'),
/// under its codec, our layer, its frame reader and its connection context: Nisshi's
/// connection stack (`nisshi_broker::service::services`) with the coordinators' layer between
/// its frame reader and its codec. Built for each connection, as Nisshi's broker builds it.
fn connection_service(
    storage: &ArcDynStorage,
    groups: &Controller<ArcDynStorage>,
    jobs: &mpsc::Sender<shards::Job>,
) -> Result<impl rama::Service<rama::tcp::TcpStream> + use<>, String> {
    let route = service::storage::services(
        FrameRouteService::<nisshi_broker::Error>::builder(),
        storage.clone(),
    )
    .and_then(|b| service::coordinator::services(b, groups.clone()))
    .and_then(service::auth::services)
    .and_then(|b| b.build().map_err(Into::into))
    .map_err(|e| format!("Nisshi's routes: {e:?}"))?;
    Ok((
        TcpContextLayer::new(TcpContext::default().cluster_id(Some(CLUSTER_ID.into()))),
        TcpBytesLayer,
        layer::SgcLayer { jobs: jobs.clone() },
        BytesFrameLayer::default(),
    )
        .into_layer(route))
}

/// Nisshi's broker's periodic upkeep of its storage: `maintain` every 10 minutes,
/// `maintain_transactions` every 10 seconds (its defaults).
fn maintenance(storage: ArcDynStorage) {
    let s = storage.clone();
    tokio::spawn(async move {
        let mut every = tokio::time::interval(Duration::from_secs(600));
        loop {
            every.tick().await;
            let _ = s.maintain(SystemTime::now()).await;
        }
    });
    tokio::spawn(async move {
        let mut every = tokio::time::interval(Duration::from_secs(10));
        loop {
            every.tick().await;
            let _ = storage.maintain_transactions(SystemTime::now()).await;
        }
    });
}

async fn run(o: Options) -> Result<(), String> {
    let mut config = o.config.clone();
    if let (Some(p), serde_json::Value::Object(map)) = (o.partitions, &mut config) {
        map.insert("offsets.topic.num.partitions".into(), p.into());
    } else if let Some(p) = o.partitions {
        config = serde_json::json!({ "offsets.topic.num.partitions": p });
    }
    let (config, partitions) = shards::config(config)?;
    std::fs::create_dir_all(&o.data_dir)
        .and_then(|()| std::env::set_current_dir(&o.data_dir))
        .map_err(|e| format!("{}: {e}", o.data_dir.display()))?;
    let listener = TcpListener::bind(&o.listen)
        .await
        .map_err(|e| format!("{}: {e}", o.listen))?;
    let local = listener.local_addr().map_err(|e| e.to_string())?;
    // The advertised listener: Nisshi's Metadata and FindCoordinator tell clients to come here.
    let host = o
        .listen
        .rsplit_once(':')
        .map_or("127.0.0.1", |(h, _)| h)
        .trim_matches(|c| c == '[' || c == ']');
    let host = if host.is_empty() || host == "0.0.0.0" || host == "::" {
        "127.0.0.1"
    } else {
        host
    };
    let advertised = Url::parse(&format!("tcp://{host}:{}", local.port()))
        .map_err(|e| format!("the advertised listener: {e}"))?;

    let storage = storage(&advertised).await?;
    storage
        .register_broker(BrokerRegistrationRequest {
            broker_id: nisshi_broker::NODE_ID,
            cluster_id: CLUSTER_ID.into(),
            incarnation_id: uuid::Uuid::new_v4(),
            rack: None,
        })
        .await
        .map_err(|e| format!("registering the broker in Nisshi's storage: {e:?}"))?;
    let groups = Controller::new(storage.clone(), GroupCoordinatorConfig::default());
    maintenance(storage.clone());

    let shards = shards::Shards::open(storage.clone(), config, partitions).await?;
    let (jobs, queue) = mpsc::channel(1024);
    tokio::spawn(shards.run(queue));

    eprintln!(
        "sgc-nisshi: Nisshi's storage {}/nisshi.db, {} coordinator partitions",
        o.data_dir.display(),
        partitions
    );
    // Every partition is loaded: the first line on stdout says where clients connect.
    println!("listening {}:{}", host, local.port());
    loop {
        match listener.accept().await {
            Ok((stream, addr)) => {
                let _ = stream.set_nodelay(true);
                let service = match connection_service(&storage, &groups, &jobs) {
                    Ok(s) => s,
                    Err(e) => {
                        eprintln!("sgc-nisshi: a connection not served: {e}");
                        continue;
                    }
                };
                let extensions = Extensions::default();
                extensions.insert(layer::ClientHost(format!("/{}", addr.ip())));
                tokio::spawn(async move {
                    // A connection ends with an error when the peer goes or a frame does
                    // not read: either way it is closed.
                    let _ = service
                        .serve(rama::tcp::TcpStream::from_tokio_tcp_stream(
                            stream, extensions,
                        ))
                        .await;
                });
            }
            Err(e) => {
                eprintln!("sgc-nisshi: accept: {e}");
                tokio::time::sleep(Duration::from_millis(50)).await;
            }
        }
    }
}

fn main() {
    let o = match options() {
        Ok(o) => o,
        Err(e) => {
            eprintln!("{e}");
            std::process::exit(2);
        }
    };
    let o = Options {
        data_dir: std::path::absolute(&o.data_dir).unwrap_or(o.data_dir),
        ..o
    };
    let runtime = match tokio::runtime::Runtime::new() {
        Ok(r) => r,
        Err(e) => {
            eprintln!("sgc-nisshi: {e}");
            std::process::exit(1);
        }
    };
    if let Err(e) = runtime.block_on(run(o)) {
        eprintln!("sgc-nisshi: {e}");
        std::process::exit(1);
    }
}
