//! What a host supplies: the answer to "may this client do this operation on this resource?".

use super::acl::{AclOperation, ResourceType};

/// The host's authorizer for one request's principal (the client the connection authenticated):
/// asked an operation on a resource type and name, it answers allowed (`true`) or denied. A
/// host implements it over its own ACLs, or uses [`super::Decisions`].
///
/// It is asked with concrete operations only (never `ALL`), and implied operations are the
/// authorizer's business, as in Kafka: an authorizer that allows `READ` on a group should allow
/// `DESCRIBE` on it too (Kafka's `StandardAuthorizer` does; [`super::Decisions`] does).
pub trait Authorizer {
    /// Whether `op` on the resource of type `resource` named `name` is allowed.
    fn authorize(&self, op: AclOperation, resource: ResourceType, name: &str) -> bool;
}

impl<F: Fn(AclOperation, ResourceType, &str) -> bool> Authorizer for F {
    fn authorize(&self, op: AclOperation, resource: ResourceType, name: &str) -> bool {
        self(op, resource, name)
    }
}

/// Kafka's `authorizedOperations` of a resource (`AuthHelper.authorizedOperations`): the bit
/// set of the supported operations of its type that `authorizer` allows, bit `code` set for
/// each.
pub fn authorized_operations(
    authorizer: &dyn Authorizer,
    resource: ResourceType,
    name: &str,
) -> i32 {
    resource
        .supported_operations()
        .iter()
        .filter(|op| authorizer.authorize(**op, resource, name))
        .fold(0i32, |bits, op| bits | (1i32 << op.code()))
}
