//! The coordinators inside Nisshi's connection stack: a layer between Nisshi's frame reader
//! (`TcpBytesLayer`, which reads each size-prefixed request off the connection) and its codec
//! (`BytesFrameLayer`), so it sees every request frame as bytes before Nisshi decodes it.
//!
//! - StreamsGroupHeartbeat (88) and StreamsGroupDescribe (89), which Nisshi's codec does not
//!   read, go to the coordinators.
//! - The group APIs both serve go by group (`merge.rs`): the coordinators answer for the
//!   streams groups, Nisshi for its classic groups.
//! - `ApiVersions` lists the APIs of both, a shared API at the versions both read
//!   (`answer_api_versions_with`, `SharedApis::Intersection`).
//! - Everything else is Nisshi's, as it came.
//!
//! A frame the coordinators cannot read is an error: Nisshi's stack closes the connection, as
//! Kafka does.

use std::io;

use bytes::{BufMut, Bytes, BytesMut};
use nisshi_sans_io::BytesInput;
use rama::extensions::Extension;
use rama::{Layer, Service};
use streams_group_coordinator::wire::{self, Peer, SharedApis};
use tokio::sync::{mpsc, oneshot};

use crate::shards::{DIALECT, Job, Shared};
use crate::{frames, merge};

/// API keys of the streams group APIs.
pub const STREAMS_APIS: [i16; 2] = [88, 89];

/// API keys of the group APIs that go by group: OffsetCommit, OffsetFetch, DescribeGroups,
/// ListGroups, DeleteGroups, OffsetDelete, ConsumerGroupDescribe. TxnOffsetCommit stays
/// Nisshi's: its transaction coordinator completes the offsets it holds.
pub const SHARED_APIS: [i16; 7] = [8, 9, 15, 16, 42, 47, 69];

/// The client's address as Kafka prints it (`/10.0.0.1`), put on the connection's extensions
/// when it is accepted.
#[derive(Clone, Debug, Extension)]
pub struct ClientHost(pub String);

/// Puts [`SgcService`] over Nisshi's codec.
#[derive(Clone)]
pub struct SgcLayer {
    pub jobs: mpsc::Sender<Job>,
}

impl<S> Layer<S> for SgcLayer {
    type Service = SgcService<S>;

    fn layer(&self, inner: S) -> Self::Service {
        SgcService {
            inner,
            jobs: self.jobs.clone(),
        }
    }
}

pub struct SgcService<S> {
    inner: S,
    jobs: mpsc::Sender<Job>,
}

fn closed(why: &str) -> nisshi_broker::Error {
    io::Error::new(io::ErrorKind::InvalidData, why.to_owned()).into()
}

/// A response frame with its 4-byte size, as Nisshi's frame writer takes it.
fn sized(frame: &[u8]) -> Result<Bytes, nisshi_broker::Error> {
    let size = i32::try_from(frame.len()).map_err(|_| closed("a response too large"))?;
    let mut out = BytesMut::with_capacity(4 + frame.len());
    out.put_i32(size);
    out.put_slice(frame);
    Ok(out.freeze())
}

impl<S> SgcService<S>
where
    S: Service<BytesInput, Output = Bytes, Error = nisshi_broker::Error>,
{
    async fn ask(&self, job: impl FnOnce(oneshot::Sender<Shared>) -> Job) -> Option<Shared> {
        let (reply, answer) = oneshot::channel();
        self.jobs.send(job(reply)).await.ok()?;
        answer.await.ok()
    }

    async fn streams(&self, frame: Bytes, peer: Peer) -> Result<Bytes, nisshi_broker::Error> {
        let (reply, answer) = oneshot::channel();
        let job = Job::Frame {
            frame: frame.to_vec(),
            peer,
            reply,
        };
        self.jobs
            .send(job)
            .await
            .map_err(|_| closed("the coordinators stopped"))?;
        match answer.await {
            Ok(Some(frame)) => sized(&frame),
            _ => Err(closed("a streams group request that does not read")),
        }
    }

    /// Nisshi's `ApiVersions` answer read for its APIs, and answered with the coordinators'.
    async fn api_versions(
        &self,
        req: BytesInput,
        frame: Bytes,
    ) -> Result<Bytes, nisshi_broker::Error> {
        let version = frames::api_version(&frame).unwrap_or(0);
        let theirs = self.inner.serve(req).await?;
        let Some(apis) = theirs.get(4..).and_then(|a| frames::api_list(a, version)) else {
            // An error (UNSUPPORTED_VERSION) is Nisshi's answer as it is.
            return Ok(theirs);
        };
        match wire::answer_api_versions_with(DIALECT, &frame, &apis, SharedApis::Intersection) {
            Ok(answer) => sized(&answer),
            Err(_) => Ok(theirs),
        }
    }

    async fn shared(
        &self,
        req: BytesInput,
        frame: Bytes,
        peer: Peer,
    ) -> Result<Bytes, nisshi_broker::Error> {
        let job = |reply| Job::Shared {
            frame: frame.to_vec(),
            peer,
            reply,
        };
        match self.ask(job).await {
            None | Some(Shared::Ours(None)) => Err(closed("a group request that does not read")),
            Some(Shared::Ours(Some(ours))) => sized(&ours),
            Some(Shared::Nisshi) => self.inner.serve(req).await,
            Some(Shared::Both { ours, streams }) => {
                let theirs = self.inner.serve(req).await?;
                let (Some(key), Some(version)) =
                    (frames::api_key(&frame), frames::api_version(&frame))
                else {
                    return Ok(theirs);
                };
                // An answer of Nisshi's that does not read is given as it came.
                match theirs
                    .get(4..)
                    .and_then(|t| merge::merge(key, version, t, &ours, &streams))
                {
                    Some(merged) => sized(&merged),
                    None => Ok(theirs),
                }
            }
        }
    }
}

impl<S> Service<BytesInput> for SgcService<S>
where
    S: Service<BytesInput, Output = Bytes, Error = nisshi_broker::Error>,
{
    type Output = Bytes;
    type Error = nisshi_broker::Error;

    async fn serve(&self, req: BytesInput) -> Result<Bytes, nisshi_broker::Error> {
        let frame = if req.bytes.len() >= 4 {
            req.bytes.slice(4..)
        } else {
            Bytes::new()
        };
        let peer = Peer {
            client_host: req
                .extensions
                .get_ref::<ClientHost>()
                .map(|h| h.0.clone())
                .unwrap_or_default(),
        };
        match frames::api_key(&frame) {
            Some(key) if STREAMS_APIS.contains(&key) => self.streams(frame, peer).await,
            Some(18) => self.api_versions(req, frame).await,
            Some(key) if SHARED_APIS.contains(&key) => self.shared(req, frame, peer).await,
            Some(19 | 20 | 37) => {
                let answer = self.inner.serve(req).await;
                // CreateTopics, DeleteTopics, CreatePartitions: the coordinators read the
                // topics again.
                let _ = self.jobs.send(Job::TopicsChanged).await;
                answer
            }
            _ => self.inner.serve(req).await,
        }
    }
}
