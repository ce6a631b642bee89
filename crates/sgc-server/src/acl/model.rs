//! Kafka's ACL vocabulary with its byte codes (`ResourceType`, `PatternType`, `AclOperation`,
//! `AclPermissionType`), an ACL binding, and the filters `DescribeAcls` and `DeleteAcls` carry,
//! matched as Kafka's `AclBindingFilter` matches.

use serde::{Deserialize, Serialize};

/// The one resource name a CLUSTER ACL may have (Kafka's `Resource.CLUSTER_NAME`).
pub const CLUSTER_NAME: &str = "kafka-cluster";

/// The resource name of a LITERAL pattern that stands for every name.
pub const WILDCARD: &str = "*";

/// The principal of an ACL that stands for every user (`User:*`).
pub const WILDCARD_PRINCIPAL: &str = "User:*";

macro_rules! codes {
    ($(#[$doc:meta])* $name:ident { $($variant:ident = $code:literal,)* }) => {
        $(#[$doc])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
        #[serde(rename_all = "SCREAMING_SNAKE_CASE")]
        pub enum $name {
            $($variant,)*
        }

        impl $name {
            /// Kafka's `fromCode`: an unknown code is `Unknown`.
            pub fn from_code(code: i8) -> Self {
                match code {
                    $($code => $name::$variant,)*
                    _ => $name::Unknown,
                }
            }

            pub fn code(self) -> i8 {
                match self {
                    $($name::$variant => $code,)*
                }
            }

            /// Kafka's name of the value (`TOPIC`, `PREFIXED`, `DESCRIBE_CONFIGS`, ...).
            pub fn name(self) -> String {
                serde_json::to_value(self)
                    .ok()
                    .and_then(|v| v.as_str().map(str::to_string))
                    .unwrap_or_default()
            }
        }
    };
}

codes!(
    /// Kafka's `ResourceType`.
    ResourceType {
        Unknown = 0,
        Any = 1,
        Topic = 2,
        Group = 3,
        Cluster = 4,
        TransactionalId = 5,
        DelegationToken = 6,
        User = 7,
    }
);

codes!(
    /// Kafka's `PatternType`.
    PatternType {
        Unknown = 0,
        Any = 1,
        Match = 2,
        Literal = 3,
        Prefixed = 4,
    }
);

codes!(
    /// Kafka's `AclOperation`.
    Operation {
        Unknown = 0,
        Any = 1,
        All = 2,
        Read = 3,
        Write = 4,
        Create = 5,
        Delete = 6,
        Alter = 7,
        Describe = 8,
        ClusterAction = 9,
        DescribeConfigs = 10,
        AlterConfigs = 11,
        IdempotentWrite = 12,
        CreateTokens = 13,
        DescribeTokens = 14,
        TwoPhaseCommit = 15,
    }
);

codes!(
    /// Kafka's `AclPermissionType`.
    Permission {
        Unknown = 0,
        Any = 1,
        Deny = 2,
        Allow = 3,
    }
);

/// One ACL: a resource pattern and an access control entry, as Kafka's `AclBinding`.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Acl {
    pub resource_type: ResourceType,
    pub resource_name: String,
    pub pattern_type: PatternType,
    pub principal: String,
    pub host: String,
    pub operation: Operation,
    pub permission: Permission,
}

impl Acl {
    /// Kafka's checks of a new ACL (the broker's `AclApis.handleCreateAcls`, then the
    /// controller's `AclControlManager.validateNewAcl`), with their messages.
    pub fn validate(&self) -> Result<(), String> {
        if self.resource_type == ResourceType::Cluster && self.resource_name != CLUSTER_NAME {
            return Err(format!(
                "The only valid name for the CLUSTER resource is {CLUSTER_NAME}"
            ));
        }
        if self.resource_name.is_empty() {
            return Err("Invalid empty resource name".into());
        }
        if matches!(
            self.resource_type,
            ResourceType::Unknown | ResourceType::Any
        ) {
            return Err(format!(
                "Invalid resourceType {}",
                self.resource_type.name()
            ));
        }
        if !matches!(
            self.pattern_type,
            PatternType::Literal | PatternType::Prefixed
        ) {
            return Err(format!("Invalid patternType {}", self.pattern_type.name()));
        }
        if matches!(self.operation, Operation::Unknown | Operation::Any) {
            return Err(format!("Invalid operation {}", self.operation.name()));
        }
        if !matches!(self.permission, Permission::Deny | Permission::Allow) {
            return Err(format!("Invalid permissionType {}", self.permission.name()));
        }
        if !self.principal.contains(':') {
            return Err(format!(
                "Could not parse principal from `{}` (no colon is present separating the principal type from the principal name)",
                self.principal
            ));
        }
        Ok(())
    }
}

/// A filter of ACLs (`DescribeAcls`' request, one of `DeleteAcls`' filters): Kafka's
/// `AclBindingFilter`, a `None` name, principal or host matching any.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AclFilter {
    pub resource_type: ResourceType,
    pub resource_name: Option<String>,
    pub pattern_type: PatternType,
    pub principal: Option<String>,
    pub host: Option<String>,
    pub operation: Operation,
    pub permission: Permission,
}

impl AclFilter {
    /// Kafka's `isUnknown` of the pattern filter and of the entry filter: a filter with an
    /// unknown code matches nothing and is refused.
    pub fn unknown(&self) -> Option<&'static str> {
        if self.resource_type == ResourceType::Unknown || self.pattern_type == PatternType::Unknown
        {
            Some("Unknown patternFilter.")
        } else if self.operation == Operation::Unknown || self.permission == Permission::Unknown {
            Some("Unknown entryFilter.")
        } else {
            None
        }
    }

    /// Kafka's `AclBindingFilter.matches`: the pattern (`ResourcePatternFilter.matches`: MATCH
    /// finds the literal, wildcard and prefixed ACLs that apply to the name) and the entry.
    pub fn matches(&self, acl: &Acl) -> bool {
        self.matches_pattern(acl) && self.matches_entry(acl)
    }

    fn matches_pattern(&self, acl: &Acl) -> bool {
        if self.resource_type != ResourceType::Any && self.resource_type != acl.resource_type {
            return false;
        }
        if !matches!(self.pattern_type, PatternType::Any | PatternType::Match)
            && self.pattern_type != acl.pattern_type
        {
            return false;
        }
        let Some(name) = &self.resource_name else {
            return true;
        };
        if self.pattern_type == PatternType::Any || self.pattern_type == acl.pattern_type {
            return *name == acl.resource_name;
        }
        match acl.pattern_type {
            PatternType::Literal => *name == acl.resource_name || acl.resource_name == WILDCARD,
            PatternType::Prefixed => name.starts_with(&acl.resource_name),
            _ => false,
        }
    }

    fn matches_entry(&self, acl: &Acl) -> bool {
        self.principal.as_ref().is_none_or(|p| *p == acl.principal)
            && self.host.as_ref().is_none_or(|h| *h == acl.host)
            && (self.operation == Operation::Any || self.operation == acl.operation)
            && (self.permission == Permission::Any || self.permission == acl.permission)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn acl(rt: ResourceType, name: &str, pt: PatternType) -> Acl {
        Acl {
            resource_type: rt,
            resource_name: name.into(),
            pattern_type: pt,
            principal: "User:alice".into(),
            host: "*".into(),
            operation: Operation::Read,
            permission: Permission::Allow,
        }
    }

    fn filter(rt: ResourceType, name: Option<&str>, pt: PatternType) -> AclFilter {
        AclFilter {
            resource_type: rt,
            resource_name: name.map(str::to_string),
            pattern_type: pt,
            principal: None,
            host: None,
            operation: Operation::Any,
            permission: Permission::Any,
        }
    }

    #[test]
    fn codes_are_kafkas() {
        assert_eq!(ResourceType::Group.code(), 3);
        assert_eq!(ResourceType::from_code(5), ResourceType::TransactionalId);
        assert_eq!(ResourceType::from_code(42), ResourceType::Unknown);
        assert_eq!(PatternType::Prefixed.code(), 4);
        assert_eq!(Operation::DescribeConfigs.code(), 10);
        assert_eq!(Operation::IdempotentWrite.name(), "IDEMPOTENT_WRITE");
        assert_eq!(Permission::Allow.code(), 3);
    }

    #[test]
    fn match_finds_the_acls_that_apply_to_a_name() {
        let literal = acl(ResourceType::Topic, "orders", PatternType::Literal);
        let wildcard = acl(ResourceType::Topic, "*", PatternType::Literal);
        let prefixed = acl(ResourceType::Topic, "ord", PatternType::Prefixed);
        let other = acl(ResourceType::Topic, "payments", PatternType::Literal);
        let f = filter(ResourceType::Topic, Some("orders"), PatternType::Match);
        assert!(f.matches(&literal) && f.matches(&wildcard) && f.matches(&prefixed));
        assert!(!f.matches(&other));
        // ANY and an exact pattern type compare names exactly.
        let any = filter(ResourceType::Any, Some("orders"), PatternType::Any);
        assert!(any.matches(&literal) && !any.matches(&wildcard) && !any.matches(&prefixed));
        let exact = filter(ResourceType::Topic, Some("ord"), PatternType::Prefixed);
        assert!(exact.matches(&prefixed) && !exact.matches(&literal));
        // No name: every name.
        assert!(filter(ResourceType::Topic, None, PatternType::Literal).matches(&other));
        assert!(!filter(ResourceType::Group, None, PatternType::Any).matches(&other));
    }

    #[test]
    fn new_acls_are_checked_with_kafkas_messages() {
        let mut a = acl(ResourceType::Cluster, "x", PatternType::Literal);
        assert_eq!(
            a.validate().unwrap_err(),
            "The only valid name for the CLUSTER resource is kafka-cluster"
        );
        a.resource_name = CLUSTER_NAME.into();
        assert!(a.validate().is_ok());
        let mut b = acl(ResourceType::Topic, "t", PatternType::Match);
        assert_eq!(b.validate().unwrap_err(), "Invalid patternType MATCH");
        b.pattern_type = PatternType::Literal;
        b.principal = "alice".into();
        assert!(b
            .validate()
            .unwrap_err()
            .starts_with("Could not parse principal"));
        let c = acl(ResourceType::Topic, "", PatternType::Literal);
        assert_eq!(c.validate().unwrap_err(), "Invalid empty resource name");
    }
}
