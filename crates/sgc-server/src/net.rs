//! Connections: Kafka's size-prefixed frames over TCP. A connection's requests are answered in
//! order, one at a time (Kafka mutes a connection while its request is in flight); a client
//! may pipeline, and responses are flushed when no further request is already buffered.
//! A frame whose size is negative or over `socket.request.max.bytes`, a frame Kafka cannot
//! read, and a connection idle for `connections.max.idle.ms` (a half-sent frame included) are
//! closed. A frame's buffer grows with the bytes that arrive, never ahead of them.

use std::net::SocketAddr;
use std::sync::atomic::Ordering::Relaxed;
use std::sync::Arc;
use std::time::{Duration, Instant};

use streams_group_coordinator::wire::Peer;
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt, BufReader, BufWriter};
use tokio::net::TcpListener;
use tokio_rustls::TlsAcceptor;

use crate::broker::{Answer, Broker, Conn, Dispatch};
use crate::sasl::{Session, Step};
use crate::shard::{Job, Stats};

/// Limits of a connection.
#[derive(Clone, Copy)]
pub struct Limits {
    pub max_frame: usize,
    pub idle: Duration,
    pub max_connections: usize,
}

/// Accepts connections until the listener fails; on a TLS listener each one's handshake first
/// (within `connections.max.idle.ms`), its client certificate's principal kept.
pub async fn accept(
    listener: TcpListener,
    broker: Arc<Broker>,
    limits: Limits,
    tls: Option<TlsAcceptor>,
) {
    loop {
        let Ok((stream, addr)) = listener.accept().await else {
            continue;
        };
        let open = broker.metrics.connections.load(Relaxed) as usize;
        if open >= limits.max_connections {
            drop(stream);
            continue;
        }
        broker.metrics.connections.fetch_add(1, Relaxed);
        broker.metrics.connections_total.fetch_add(1, Relaxed);
        let broker = broker.clone();
        let tls = tls.clone();
        tokio::spawn(async move {
            let _ = stream.set_nodelay(true);
            let served = match tls {
                None => {
                    let (rd, wr) = stream.into_split();
                    connection(rd, wr, addr, &broker, limits, None).await
                }
                Some(acceptor) => {
                    match tokio::time::timeout(limits.idle, acceptor.accept(stream)).await {
                        Ok(Ok(tls)) => {
                            let principal = tls
                                .get_ref()
                                .1
                                .peer_certificates()
                                .and_then(|c| c.first())
                                .and_then(|c| crate::tls::principal(c));
                            let (rd, wr) = tokio::io::split(tls);
                            connection(rd, wr, addr, &broker, limits, principal).await
                        }
                        Ok(Err(e)) => Err(format!("a TLS handshake that failed: {e}")),
                        Err(_) => Err("a TLS handshake that did not finish".into()),
                    }
                }
            };
            if let Err(why) = served {
                broker.metrics.closed_bad_frames.fetch_add(1, Relaxed);
                eprintln!("sgc serve: closed the connection from {addr}: {why}");
            }
            broker.metrics.connections.fetch_sub(1, Relaxed);
        });
    }
}

/// The most requests of one connection in flight at once (a client that pipelines more waits
/// for answers before more of its frames are read).
const MAX_IN_FLIGHT: usize = 64;

/// A request read, on its way to an answer.
struct InFlight {
    key: i16,
    started: Instant,
    dispatch: Dispatch,
}

/// Serves one connection; an error is why it was closed (an orderly close is `Ok`). Frames
/// are read and routed in order while earlier ones are still answered; the answers are
/// written in the order of their requests.
async fn connection<R, W>(
    rd: R,
    wr: W,
    addr: SocketAddr,
    broker: &Arc<Broker>,
    limits: Limits,
    tls_principal: Option<String>,
) -> Result<(), String>
where
    R: AsyncRead + Unpin + Send,
    W: AsyncWrite + Unpin + Send + 'static,
{
    let peer = Peer {
        client_host: format!("/{}", addr.ip()),
    };
    let (tx, rx) = tokio::sync::mpsc::channel::<InFlight>(MAX_IN_FLIGHT);
    let mut writer = tokio::spawn(write_answers(broker.clone(), rx, wr));
    let reader = read_requests(broker, &peer, rd, tx, limits, tls_principal);
    tokio::pin!(reader);
    let joined = |w: Result<Result<(), String>, tokio::task::JoinError>| {
        w.map_err(|e| e.to_string()).and_then(|w| w)
    };
    tokio::select! {
        read = &mut reader => {
            let written = joined((&mut writer).await);
            written.and(read)
        }
        // The writer stopped first (an answer closed the connection): stop reading too.
        written = &mut writer => joined(written),
    }
}

async fn read_requests<R: AsyncRead + Unpin>(
    broker: &Broker,
    peer: &Peer,
    rd: R,
    tx: tokio::sync::mpsc::Sender<InFlight>,
    limits: Limits,
    tls_principal: Option<String>,
) -> Result<(), String> {
    let mut rd = BufReader::with_capacity(16 * 1024, rd);
    let mut session = broker.sasl.as_ref().map(|_| Session::default());
    let mut conn = Conn::new(
        peer.clone(),
        tls_principal.as_deref().unwrap_or(crate::acl::ANONYMOUS),
    );
    loop {
        let size = match tokio::time::timeout(limits.idle, rd.read_i32()).await {
            Err(_) => return Ok(()),     // idle: Kafka closes it quietly
            Ok(Err(_)) => return Ok(()), // the client closed
            Ok(Ok(size)) => size,
        };
        let size = usize::try_from(size)
            .ok()
            .filter(|&s| s <= limits.max_frame)
            .ok_or_else(|| {
                format!(
                    "a frame size of {size} bytes (socket.request.max.bytes is {})",
                    limits.max_frame
                )
            })?;
        let mut frame = Vec::with_capacity(size.min(64 * 1024));
        let mut body = (&mut rd).take(size as u64);
        match tokio::time::timeout(limits.idle, body.read_to_end(&mut frame)).await {
            Ok(Ok(n)) if n == size => {}
            Ok(Ok(_)) | Ok(Err(_)) => return Ok(()),
            Err(_) => return Err("a frame half sent and then idle".into()),
        }
        let key = frame
            .get(..2)
            .map_or(-1, |k| i16::from_be_bytes([k[0], k[1]]));
        let started = Instant::now();
        // A SASL listener's connection authenticates first (crate::sasl).
        if let (Some(config), Some(s)) = (broker.sasl.as_ref(), session.as_mut()) {
            if s.principal().is_none() {
                let dispatch = match s.step(config, &frame) {
                    Step::Pass => None,
                    Step::Answer(f) => Some(Dispatch::Answered(f)),
                    Step::AnswerAndClose(f, why) => {
                        let answered = InFlight {
                            key,
                            started,
                            dispatch: Dispatch::Answered(f),
                        };
                        let _ = tx.send(answered).await;
                        Some(Dispatch::Refused(why))
                    }
                    Step::Close(why) => Some(Dispatch::Refused(why)),
                };
                if let Some(dispatch) = dispatch {
                    let refused = matches!(dispatch, Dispatch::Refused(_));
                    let sent = tx.send(InFlight {
                        key,
                        started,
                        dispatch,
                    });
                    if sent.await.is_err() || refused {
                        return Ok(());
                    }
                    continue;
                }
            }
        }
        let principal = session
            .as_ref()
            .and_then(Session::principal)
            .or(tls_principal.as_deref())
            .unwrap_or(crate::acl::ANONYMOUS);
        if conn.who.principal != principal {
            conn = Conn::new(peer.clone(), principal);
        }
        let dispatch = match broker.dispatch(frame, &conn) {
            // Answered here, in order: the broker's own APIs and multi-group requests.
            Dispatch::Handle(frame, routed) => match broker.handle(frame, routed, &conn).await {
                Answer::Frame(f) => Dispatch::Answered(f),
                Answer::Close(why) => Dispatch::Refused(why),
            },
            queued => queued,
        };
        if let Dispatch::Refused(why) = &dispatch {
            // The writer closes the connection once the earlier answers are out.
            let why = why.clone();
            let _ = tx
                .send(InFlight {
                    key,
                    started,
                    dispatch,
                })
                .await;
            return Err(why);
        }
        if tx
            .send(InFlight {
                key,
                started,
                dispatch,
            })
            .await
            .is_err()
        {
            return Ok(()); // the writer stopped: the connection is closing
        }
    }
}

/// Writes the answers in the order of their requests; an answer that closes the connection
/// stops it.
async fn write_answers<W: AsyncWrite + Unpin>(
    broker: Arc<Broker>,
    mut rx: tokio::sync::mpsc::Receiver<InFlight>,
    wr: W,
) -> Result<(), String> {
    let mut wr = BufWriter::with_capacity(16 * 1024, wr);
    while let Some(r) = rx.recv().await {
        let answer = match r.dispatch {
            Dispatch::Answered(frame) => Answer::Frame(frame),
            Dispatch::Refused(why) => Answer::Close(why),
            Dispatch::Handle(..) => Answer::Close("a request the reader did not handle".into()),
            Dispatch::Queued(queued) => broker.answer(queued).await,
        };
        match answer {
            Answer::Frame(response) => {
                broker
                    .metrics
                    .request(r.key, r.started.elapsed().as_micros() as u64);
                let len = i32::try_from(response.len()).map_err(|_| "a response over 2 GB")?;
                wr.write_all(&len.to_be_bytes())
                    .await
                    .map_err(|e| e.to_string())?;
                wr.write_all(&response).await.map_err(|e| e.to_string())?;
                if rx.is_empty() {
                    wr.flush().await.map_err(|e| e.to_string())?;
                }
            }
            Answer::Close(why) => {
                let _ = wr.flush().await;
                rx.close();
                return Err(why);
            }
        }
    }
    let _ = wr.flush().await;
    Ok(())
}

/// Serves `GET /metrics` (any path) as Prometheus text, one request per connection.
pub async fn metrics(listener: TcpListener, broker: Arc<Broker>) {
    loop {
        let Ok((mut stream, _)) = listener.accept().await else {
            continue;
        };
        let broker = broker.clone();
        tokio::spawn(async move {
            let mut buf = vec![0u8; 4096];
            let mut seen = 0;
            while seen < buf.len() {
                match tokio::time::timeout(Duration::from_secs(5), stream.read(&mut buf[seen..]))
                    .await
                {
                    Ok(Ok(0)) | Ok(Err(_)) | Err(_) => return,
                    Ok(Ok(n)) => seen += n,
                }
                if buf[..seen].windows(4).any(|w| w == b"\r\n\r\n") {
                    break;
                }
            }
            let stats = gather(&broker).await;
            let body = broker.metrics.render(&stats);
            let head = format!(
                "HTTP/1.1 200 OK\r\nContent-Type: text/plain; version=0.0.4\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
                body.len()
            );
            let _ = stream.write_all(head.as_bytes()).await;
            let _ = stream.write_all(body.as_bytes()).await;
        });
    }
}

/// Every partition's figures.
pub async fn gather(broker: &Broker) -> Vec<Stats> {
    let mut out = Vec::with_capacity(broker.partitions);
    for w in &broker.workers {
        let (tx, rx) = tokio::sync::oneshot::channel();
        if w.send(Job::Stats(tx)).is_ok() {
            if let Ok(stats) = rx.await {
                out.extend(stats);
            }
        }
    }
    out.sort_by_key(|s| s.partition);
    out
}
