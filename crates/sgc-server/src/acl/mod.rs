//! Who may do what: Kafka's ACLs with its `StandardAuthorizer`'s decisions, kept durable in the
//! data folder and managed through `CreateAcls`, `DescribeAcls` and `DeleteAcls` as Kafka's
//! tools manage them (`kafka-acls.sh`, the Admin client). Until a listener authenticates its
//! clients, every connection is Kafka's unauthenticated principal, `User:ANONYMOUS`.

pub mod apis;
pub mod authorize;
pub mod model;
pub mod store;

pub use authorize::{AuthorizerConfig, Requester};
pub use model::{Acl, AclFilter, Operation, PatternType, Permission, ResourceType};
pub use store::AclStore;

/// Kafka's principal of a connection that did not authenticate.
pub const ANONYMOUS: &str = "User:ANONYMOUS";

/// The requester of a connection from `client_host` (`/10.0.0.1`, as Kafka prints it) that
/// did not authenticate.
pub fn anonymous(client_host: &str) -> Requester {
    Requester {
        principal: ANONYMOUS.to_string(),
        host: client_host.trim_start_matches('/').to_string(),
    }
}
