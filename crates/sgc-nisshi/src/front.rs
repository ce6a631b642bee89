//! The listener clients connect to. Each request frame is read off the connection; the streams
//! group APIs (StreamsGroupHeartbeat 88, StreamsGroupDescribe 89) go to the coordinators, every
//! other frame to Nisshi's broker as it came, over a loopback connection of this connection's
//! own, and its answer back. The group APIs both serve go by group (`merge.rs`): the
//! coordinators answer for the streams groups, Nisshi for its classic groups. A connection's
//! requests are answered one at a time, in order. `ApiVersions` lists the APIs of both, a
//! shared API at the versions both read (`answer_api_versions_with`,
//! `SharedApis::Intersection`).

use std::net::SocketAddr;
use std::sync::Arc;

use streams_group_coordinator::wire::messages::versions::ApiRange;
use streams_group_coordinator::wire::{self, Peer, SharedApis};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;
use tokio::sync::{mpsc, oneshot};

use crate::shards::{DIALECT, Job, Shared};
use crate::{frames, merge};

/// The largest request frame read; a larger size closes the connection (Kafka's
/// `socket.request.max.bytes`, 100 MiB).
const MAX_FRAME: usize = 100 * 1024 * 1024;

/// API keys of the streams group APIs.
pub const STREAMS_APIS: [i16; 2] = [88, 89];

/// API keys of the group APIs that go by group: OffsetCommit, OffsetFetch, DescribeGroups,
/// ListGroups, DeleteGroups, OffsetDelete, and ConsumerGroupDescribe (the coordinators' only).
/// TxnOffsetCommit stays Nisshi's: its transaction coordinator completes the offsets it holds.
pub const SHARED_APIS: [i16; 7] = [8, 9, 15, 16, 42, 47, 69];

/// Reads one size-prefixed frame; `None` at the end of the stream.
async fn read_frame(stream: &mut TcpStream) -> std::io::Result<Option<Vec<u8>>> {
    let mut size = [0u8; 4];
    match stream.read_exact(&mut size).await {
        Ok(_) => {}
        Err(e) if e.kind() == std::io::ErrorKind::UnexpectedEof => return Ok(None),
        Err(e) => return Err(e),
    }
    let size = i32::from_be_bytes(size);
    let Ok(size) = usize::try_from(size) else {
        return Ok(None);
    };
    if size > MAX_FRAME {
        return Ok(None);
    }
    let mut frame = vec![0u8; size];
    stream.read_exact(&mut frame).await?;
    Ok(Some(frame))
}

async fn write_frame(stream: &mut TcpStream, frame: &[u8]) -> std::io::Result<()> {
    let size = i32::try_from(frame.len()).map_err(std::io::Error::other)?;
    let mut out = Vec::with_capacity(4 + frame.len());
    out.extend_from_slice(&size.to_be_bytes());
    out.extend_from_slice(frame);
    stream.write_all(&out).await
}

/// One client connection.
pub struct Connection {
    client: TcpStream,
    peer: Peer,
    nisshi_addr: SocketAddr,
    nisshi: Option<TcpStream>,
    /// The APIs Nisshi lists in its `ApiVersions` answer.
    nisshi_apis: Arc<Vec<ApiRange>>,
    jobs: mpsc::Sender<Job>,
}

impl Connection {
    pub fn new(
        client: TcpStream,
        addr: SocketAddr,
        nisshi_addr: SocketAddr,
        nisshi_apis: Arc<Vec<ApiRange>>,
        jobs: mpsc::Sender<Job>,
    ) -> Connection {
        Connection {
            client,
            peer: Peer {
                client_host: format!("/{}", addr.ip()),
            },
            nisshi_addr,
            nisshi: None,
            nisshi_apis,
            jobs,
        }
    }

    /// Serves the connection until either side closes it.
    pub async fn serve(mut self) {
        let _ = self.client.set_nodelay(true);
        while let Ok(Some(frame)) = read_frame(&mut self.client).await {
            let answer = match frames::api_key(&frame) {
                None => None,
                Some(key) if STREAMS_APIS.contains(&key) => self.coordinators(frame).await,
                Some(18) => wire::answer_api_versions_with(
                    DIALECT,
                    &frame,
                    &self.nisshi_apis,
                    SharedApis::Intersection,
                )
                .ok(),
                Some(key) if SHARED_APIS.contains(&key) => match self.shared(&frame).await {
                    Answer::Frame(f) => Some(f),
                    Answer::Nothing => continue,
                    Answer::Close => None,
                },
                Some(key) => {
                    let answer = self.nisshi(&frame).await;
                    if matches!(key, 19 | 20 | 37) {
                        // CreateTopics, DeleteTopics, CreatePartitions: the coordinators read
                        // the topics again.
                        let _ = self.jobs.send(Job::TopicsChanged).await;
                    }
                    match answer {
                        Answer::Frame(f) => Some(f),
                        Answer::Nothing => continue,
                        Answer::Close => None,
                    }
                }
            };
            let Some(answer) = answer else { break };
            if write_frame(&mut self.client, &answer).await.is_err() {
                break;
            }
        }
        let _ = self.client.shutdown().await;
    }

    async fn coordinators(&mut self, frame: Vec<u8>) -> Option<Vec<u8>> {
        let (reply, answer) = oneshot::channel();
        let job = Job::Frame {
            frame,
            peer: self.peer.clone(),
            reply,
        };
        self.jobs.send(job).await.ok()?;
        answer.await.ok().flatten()
    }

    /// A shared group API's request: the coordinators, Nisshi or both answer, by group.
    async fn shared(&mut self, frame: &[u8]) -> Answer {
        let (reply, answer) = oneshot::channel();
        let job = Job::Shared {
            frame: frame.to_vec(),
            peer: self.peer.clone(),
            reply,
        };
        if self.jobs.send(job).await.is_err() {
            return Answer::Close;
        }
        match answer.await {
            Err(_) | Ok(Shared::Ours(None)) => Answer::Close,
            Ok(Shared::Ours(Some(ours))) => Answer::Frame(ours),
            Ok(Shared::Nisshi) => self.nisshi(frame).await,
            Ok(Shared::Both { ours, streams }) => {
                let Answer::Frame(theirs) = self.nisshi(frame).await else {
                    return Answer::Close;
                };
                let (Some(key), Some(version)) =
                    (frames::api_key(frame), frames::api_version(frame))
                else {
                    return Answer::Close;
                };
                // An answer of Nisshi's that does not read is given as it came.
                Answer::Frame(
                    merge::merge(key, version, &theirs, &ours, &streams).unwrap_or(theirs),
                )
            }
        }
    }

    /// Nisshi's answer to a frame.
    async fn nisshi(&mut self, frame: &[u8]) -> Answer {
        if self.nisshi.is_none() {
            match TcpStream::connect(self.nisshi_addr).await {
                Ok(s) => {
                    let _ = s.set_nodelay(true);
                    self.nisshi = Some(s);
                }
                Err(e) => {
                    eprintln!("sgc-nisshi: connecting to Nisshi's broker: {e}");
                    return Answer::Close;
                }
            }
        }
        let Some(upstream) = self.nisshi.as_mut() else {
            return Answer::Close;
        };
        if write_frame(upstream, frame).await.is_err() {
            return Answer::Close;
        }
        if frames::produce_without_answer(frame) {
            return Answer::Nothing;
        }
        match read_frame(upstream).await {
            Ok(Some(answer)) => Answer::Frame(answer),
            _ => Answer::Close,
        }
    }
}

enum Answer {
    Frame(Vec<u8>),
    /// A produce with `acks=0`: Kafka sends no response.
    Nothing,
    /// Nisshi closed its connection (a frame it does not read): this one is closed too.
    Close,
}
