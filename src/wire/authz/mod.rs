//! Authorization as Kafka's broker applies it around the group coordinator (`KafkaApis` of
//! Kafka 4.2, 4.3 and 4.4): the host supplies an [`Authorizer`] for the request's principal,
//! and [`super::handle_frame_authorized`] answers a client that is not allowed exactly as
//! Kafka answers it (docs/authorization.md has the table, API by API).
//!
//! - [`acl`]: Kafka's operations and resource types, with their codes;
//! - [`authorizer`]: the host's authorizer, and the `authorizedOperations` bit set;
//! - [`decisions`]: a ready authorizer, an allow-list for one principal, from JSON;
//! - `groups`: the group and topic checks of the group and offset APIs;
//! - `heartbeat`: the streams heartbeat's checks.

pub mod acl;
pub mod authorizer;
pub mod decisions;
mod groups;
mod heartbeat;

pub use acl::{AclOperation, ResourceType, CLUSTER_NAME};
pub use authorizer::{authorized_operations, Authorizer};
pub use decisions::{Decisions, Grant, PatternType};

pub(super) use groups::{after, before, topic_operation, Gate};
pub(super) use heartbeat::{after as heartbeat_after, deny as heartbeat_deny};

#[cfg(test)]
mod tests;
