//! Who may do what: Kafka's ACLs with its `StandardAuthorizer`'s decisions, kept durable in the
//! data folder and managed through `CreateAcls`, `DescribeAcls` and `DeleteAcls` as Kafka's
//! tools manage them (`kafka-acls.sh`, the Admin client). A connection is the principal its
//! SASL authentication gave it (`User:NAME`), else Kafka's unauthenticated `User:ANONYMOUS`.

pub mod apis;
pub mod authorize;
pub mod model;
pub mod store;

pub use authorize::{AuthorizerConfig, Requester};
pub use model::{Acl, AclFilter, Operation, PatternType, Permission, ResourceType};
pub use store::AclStore;

/// Kafka's principal of a connection that did not authenticate.
pub const ANONYMOUS: &str = "User:ANONYMOUS";
