//! `sgc-nisshi --listen HOST:PORT --data-dir DIR [--partitions N]`: Nisshi's broker, with its
//! embedded SQLite storage in DIR, and the streams group coordinator answering the streams
//! group APIs (KIP-1071, dialect kafka-4.2) in front of it. docs/nisshi.md tells what it serves.

mod frames;
mod front;
mod merge;
mod shards;

use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use nisshi_broker::broker::Broker;
use nisshi_broker::coordinator::group::administrator::{Controller, GroupCoordinatorConfig};
use nisshi_storage::{ArcDynStorage, StorageContainer};
use streams_group_coordinator::wire::messages::versions::ApiRange;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::mpsc;
use url::Url;

/// The cluster id Nisshi's storage is kept under: the same on every start.
const CLUSTER_ID: &str = "sgc-nisshi";

struct Options {
    listen: String,
    data_dir: PathBuf,
    partitions: i32,
}

const USAGE: &str = "usage: sgc-nisshi --listen HOST:PORT --data-dir DIR [--partitions N]";

fn options() -> Result<Options, String> {
    let mut listen = None;
    let mut data_dir = None;
    let mut partitions = 50;
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        let mut value = || args.next().ok_or(format!("{a} needs a value\n{USAGE}"));
        match a.as_str() {
            "--listen" => listen = Some(value()?),
            "--data-dir" => data_dir = Some(PathBuf::from(value()?)),
            "--partitions" => {
                partitions = value()?
                    .parse()
                    .ok()
                    .filter(|p| *p >= 1)
                    .ok_or("--partitions takes a number of at least 1")?
            }
            "-h" | "--help" => return Err(USAGE.into()),
            other => return Err(format!("unknown argument {other}\n{USAGE}")),
        }
    }
    Ok(Options {
        listen: listen.ok_or(USAGE)?,
        data_dir: data_dir.ok_or(USAGE)?,
        partitions,
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

/// A free loopback port for Nisshi's own listener.
fn free_port() -> Result<SocketAddr, String> {
    std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map_err(|e| format!("finding a port for Nisshi's listener: {e}"))
}

/// The APIs Nisshi's broker lists (`ApiVersions` v0).
async fn nisshi_apis(addr: SocketAddr) -> Result<Vec<ApiRange>, String> {
    let asked = async {
        let mut s = TcpStream::connect(addr).await?;
        // Size, API key 18, version 0, correlation id 1, client id "sgc-nisshi".
        let mut frame = vec![0, 18, 0, 0, 0, 0, 0, 1, 0, 10];
        frame.extend_from_slice(b"sgc-nisshi");
        let mut request = (frame.len() as i32).to_be_bytes().to_vec();
        request.extend_from_slice(&frame);
        s.write_all(&request).await?;
        let mut size = [0u8; 4];
        s.read_exact(&mut size).await?;
        let size = usize::try_from(i32::from_be_bytes(size))
            .unwrap_or(0)
            .min(1 << 20);
        let mut answer = vec![0u8; size];
        s.read_exact(&mut answer).await?;
        Ok::<_, std::io::Error>(answer)
    };
    let answer = asked
        .await
        .map_err(|e| format!("asking Nisshi's broker for its APIs: {e}"))?;
    frames::api_list(&answer, 0).ok_or_else(|| "Nisshi's ApiVersions answer does not read".into())
}

async fn run(o: Options) -> Result<(), String> {
    std::fs::create_dir_all(&o.data_dir)
        .and_then(|()| std::env::set_current_dir(&o.data_dir))
        .map_err(|e| format!("{}: {e}", o.data_dir.display()))?;
    let listener = TcpListener::bind(&o.listen)
        .await
        .map_err(|e| format!("{}: {e}", o.listen))?;
    let local = listener.local_addr().map_err(|e| e.to_string())?;
    // Clients are told (Metadata, FindCoordinator) to come here, not to Nisshi's own listener.
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
    let nisshi_addr = free_port()?;
    let nisshi_listener = Url::parse(&format!("tcp://{nisshi_addr}")).map_err(|e| e.to_string())?;

    // The listener is bound: clients that connect now wait for the first accept below. This is
    // the first line on stdout (Nisshi's broker prints its own lines after it).
    println!("listening {}:{}", host, local.port());
    let storage = storage(&advertised).await?;
    let groups = Controller::new(storage.clone(), GroupCoordinatorConfig::default());
    let mut broker = Broker::new(
        nisshi_broker::NODE_ID,
        CLUSTER_ID,
        nisshi_listener,
        advertised.clone(),
        storage.clone(),
        groups,
        uuid::Uuid::new_v4(),
    );
    tokio::spawn(async move {
        if let Err(e) = broker.serve(tokio::time::Instant::now()).await {
            eprintln!("sgc-nisshi: Nisshi's broker stopped: {e:?}");
            std::process::exit(1);
        }
    });
    let mut up = false;
    for _ in 0..200 {
        if TcpStream::connect(nisshi_addr).await.is_ok() {
            up = true;
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    if !up {
        return Err(format!("Nisshi's broker does not listen on {nisshi_addr}"));
    }

    let nisshi_apis = Arc::new(nisshi_apis(nisshi_addr).await?);
    let shards = shards::Shards::open(storage, o.partitions).await;
    let (jobs, queue) = mpsc::channel(1024);
    tokio::spawn(shards.run(queue));

    eprintln!(
        "sgc-nisshi: Nisshi's broker on {nisshi_addr}, storage {}/nisshi.db, {} coordinator partitions",
        o.data_dir.display(),
        o.partitions
    );
    loop {
        match listener.accept().await {
            Ok((stream, addr)) => {
                let connection = front::Connection::new(
                    stream,
                    addr,
                    nisshi_addr,
                    nisshi_apis.clone(),
                    jobs.clone(),
                );
                tokio::spawn(connection.serve());
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
