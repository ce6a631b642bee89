//! Kafka's `StandardAuthorizer` decisions: super users may do anything; otherwise the ACLs of
//! the resource (literal on its name, prefixed on a prefix of it, then literal `*`) decide, a
//! matching DENY before any ALLOW; an ALLOW of READ, WRITE, DELETE or ALTER also allows
//! DESCRIBE, and ALTER_CONFIGS allows DESCRIBE_CONFIGS; a resource no ACL names at all is
//! decided by `allow.everyone.if.no.acl.found`; one with ACLs, none of them matching, is denied.

use std::collections::BTreeSet;

use super::model::{Acl, Operation, PatternType, Permission, ResourceType};
use super::model::{WILDCARD, WILDCARD_PRINCIPAL};

/// Who asks: a principal as Kafka prints it (`User:alice`) and the client's address (`10.0.0.1`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Requester {
    pub principal: String,
    pub host: String,
}

/// The settings of Kafka's `StandardAuthorizer`.
#[derive(Clone, Debug, Default)]
pub struct AuthorizerConfig {
    /// `super.users`: principals allowed everything.
    pub super_users: BTreeSet<String>,
    /// `allow.everyone.if.no.acl.found`.
    pub allow_everyone_if_no_acl_found: bool,
}

/// What one ACL says of a request, as Kafka's `findResult`: nothing (it does not match), or
/// allowed or denied.
fn verdict(acl: &Acl, who: &Requester, op: Operation) -> Option<bool> {
    if acl.principal != who.principal && acl.principal != WILDCARD_PRINCIPAL {
        return None;
    }
    if acl.host != WILDCARD && acl.host != who.host {
        return None;
    }
    if acl.operation != Operation::All {
        let applies = if acl.permission == Permission::Allow {
            match op {
                Operation::Describe => matches!(
                    acl.operation,
                    Operation::Describe
                        | Operation::Read
                        | Operation::Write
                        | Operation::Delete
                        | Operation::Alter
                ),
                Operation::DescribeConfigs => matches!(
                    acl.operation,
                    Operation::DescribeConfigs | Operation::AlterConfigs
                ),
                _ => acl.operation == op,
            }
        } else {
            acl.operation == op
        };
        if !applies {
            return None;
        }
    }
    Some(acl.permission == Permission::Allow)
}

/// Whether the ACL's pattern names the resource: the same literal name, a prefix of it, or the
/// literal wildcard.
fn names(acl: &Acl, resource_type: ResourceType, name: &str) -> bool {
    acl.resource_type == resource_type
        && match acl.pattern_type {
            PatternType::Literal => acl.resource_name == name || acl.resource_name == WILDCARD,
            PatternType::Prefixed => name.starts_with(&acl.resource_name),
            _ => false,
        }
}

/// Kafka's decision for `who` doing `op` on the resource `(resource_type, name)`.
pub fn authorize<'a>(
    acls: impl IntoIterator<Item = &'a Acl>,
    config: &AuthorizerConfig,
    who: &Requester,
    op: Operation,
    resource_type: ResourceType,
    name: &str,
) -> bool {
    if config.super_users.contains(&who.principal) {
        return true;
    }
    let mut named = false;
    let mut allowed = false;
    for acl in acls {
        if !names(acl, resource_type, name) {
            continue;
        }
        named = true;
        match verdict(acl, who, op) {
            Some(false) => return false,
            Some(true) => allowed = true,
            None => {}
        }
    }
    if allowed {
        true
    } else {
        !named && config.allow_everyone_if_no_acl_found
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn acl(
        rt: ResourceType,
        name: &str,
        pt: PatternType,
        principal: &str,
        op: Operation,
        perm: Permission,
    ) -> Acl {
        Acl {
            resource_type: rt,
            resource_name: name.into(),
            pattern_type: pt,
            principal: principal.into(),
            host: "*".into(),
            operation: op,
            permission: perm,
        }
    }

    fn alice() -> Requester {
        Requester {
            principal: "User:alice".into(),
            host: "10.0.0.1".into(),
        }
    }

    #[test]
    fn deny_wins_and_implied_describe_is_only_allowed() {
        let config = AuthorizerConfig::default();
        let acls = vec![
            acl(
                ResourceType::Group,
                "app",
                PatternType::Prefixed,
                "User:alice",
                Operation::Read,
                Permission::Allow,
            ),
            acl(
                ResourceType::Group,
                "app-secret",
                PatternType::Literal,
                "User:*",
                Operation::Read,
                Permission::Deny,
            ),
        ];
        let who = alice();
        assert!(authorize(
            &acls,
            &config,
            &who,
            Operation::Read,
            ResourceType::Group,
            "app-1"
        ));
        assert!(authorize(
            &acls,
            &config,
            &who,
            Operation::Describe,
            ResourceType::Group,
            "app-1"
        ));
        assert!(!authorize(
            &acls,
            &config,
            &who,
            Operation::Read,
            ResourceType::Group,
            "app-secret"
        ));
        // A DENY of READ does not deny DESCRIBE, which the prefixed READ allows.
        assert!(authorize(
            &acls,
            &config,
            &who,
            Operation::Describe,
            ResourceType::Group,
            "app-secret"
        ));
        assert!(!authorize(
            &acls,
            &config,
            &who,
            Operation::Delete,
            ResourceType::Group,
            "app-1"
        ));
    }

    #[test]
    fn resources_without_acls_follow_the_setting() {
        let acls = vec![acl(
            ResourceType::Topic,
            "t",
            PatternType::Literal,
            "User:bob",
            Operation::Read,
            Permission::Allow,
        )];
        let mut config = AuthorizerConfig::default();
        let who = alice();
        assert!(!authorize(
            &acls,
            &config,
            &who,
            Operation::Read,
            ResourceType::Topic,
            "u"
        ));
        config.allow_everyone_if_no_acl_found = true;
        assert!(authorize(
            &acls,
            &config,
            &who,
            Operation::Read,
            ResourceType::Topic,
            "u"
        ));
        // An ACL names `t`, for someone else: denied whatever the setting.
        assert!(!authorize(
            &acls,
            &config,
            &who,
            Operation::Read,
            ResourceType::Topic,
            "t"
        ));
        config.super_users.insert("User:alice".into());
        assert!(authorize(
            &acls,
            &config,
            &who,
            Operation::Read,
            ResourceType::Topic,
            "t"
        ));
    }

    #[test]
    fn hosts_wildcards_and_all() {
        let mut a = acl(
            ResourceType::Topic,
            "*",
            PatternType::Literal,
            "User:alice",
            Operation::All,
            Permission::Allow,
        );
        a.host = "10.0.0.2".into();
        let acls = vec![a];
        let config = AuthorizerConfig::default();
        let mut who = alice();
        assert!(!authorize(
            &acls,
            &config,
            &who,
            Operation::Write,
            ResourceType::Topic,
            "any"
        ));
        who.host = "10.0.0.2".into();
        assert!(authorize(
            &acls,
            &config,
            &who,
            Operation::Write,
            ResourceType::Topic,
            "any"
        ));
        assert!(authorize(
            &acls,
            &config,
            &who,
            Operation::AlterConfigs,
            ResourceType::Topic,
            "x"
        ));
    }
}
