//! A ready authorizer: the operations one principal is allowed, as a list of grants, readable
//! from JSON by a host in any language.
//!
//! ```json
//! {"superUser": false,
//!  "allow": [{"operation": "READ", "resourceType": "GROUP", "name": "app"},
//!            {"operation": "DESCRIBE", "resourceType": "TOPIC", "name": "app-", "patternType": "PREFIXED"},
//!            {"operation": "ALL", "resourceType": "TOPIC", "name": "*"}]}
//! ```
//!
//! A grant names one resource (`LITERAL`, the default), every resource of its type (`*`), or
//! the resources whose names start with `name` (`PREFIXED`). Kafka's implied operations hold:
//! `READ`, `WRITE`, `DELETE` and `ALTER` imply `DESCRIBE`, `ALTER_CONFIGS` implies
//! `DESCRIBE_CONFIGS`, `ALL` implies every operation. Anything not granted is denied; a super
//! user is allowed everything.

use serde::{Deserialize, Serialize};

use super::acl::{AclOperation, ResourceType};
use super::authorizer::Authorizer;

/// How a grant's name matches a resource's (Kafka's `PatternType`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum PatternType {
    /// The name itself (`*`: every resource of the type).
    #[default]
    Literal,
    /// Every name that starts with the grant's name.
    Prefixed,
}

/// One allowed operation on resources.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Grant {
    /// The operation allowed (`ALL`: every one).
    pub operation: AclOperation,
    /// The type of the resources.
    pub resource_type: ResourceType,
    /// The resource name, `*` or the prefix.
    pub name: String,
    /// How `name` matches.
    #[serde(default)]
    pub pattern_type: PatternType,
}

impl Grant {
    /// Whether this grant allows `op` on `resource` `name`.
    pub fn allows(&self, op: AclOperation, resource: ResourceType, name: &str) -> bool {
        self.resource_type == resource
            && self.operation.implies(op)
            && match self.pattern_type {
                PatternType::Literal => self.name == "*" || self.name == name,
                PatternType::Prefixed => name.starts_with(&self.name),
            }
    }
}

/// The decisions for one principal: the grants, or everything for a super user.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Decisions {
    /// Allowed everything (Kafka's `super.users`).
    #[serde(default)]
    pub super_user: bool,
    /// What is allowed.
    #[serde(default)]
    pub allow: Vec<Grant>,
}

impl Decisions {
    /// Allowed everything.
    pub fn super_user() -> Decisions {
        Decisions {
            super_user: true,
            allow: Vec::new(),
        }
    }

    /// Denied everything.
    pub fn none() -> Decisions {
        Decisions::default()
    }

    /// Adds a literal grant (`*`: every resource of the type).
    pub fn allow(mut self, op: AclOperation, resource: ResourceType, name: &str) -> Decisions {
        self.allow.push(Grant {
            operation: op,
            resource_type: resource,
            name: name.to_string(),
            pattern_type: PatternType::Literal,
        });
        self
    }

    /// Adds a prefixed grant.
    pub fn allow_prefix(
        mut self,
        op: AclOperation,
        resource: ResourceType,
        prefix: &str,
    ) -> Decisions {
        self.allow.push(Grant {
            operation: op,
            resource_type: resource,
            name: prefix.to_string(),
            pattern_type: PatternType::Prefixed,
        });
        self
    }

    /// The decisions of their JSON text (the module's form); the error says what is wrong.
    /// The decisions and each grant are JSON objects (serde would also read a struct from a
    /// list of its fields in order: `[true]` would be a super user).
    pub fn from_json(text: &str) -> Result<Decisions, String> {
        let fail = |e: &dyn std::fmt::Display| format!("authorization decisions: {e}");
        let value: serde_json::Value = serde_json::from_str(text).map_err(|e| fail(&e))?;
        let Some(object) = value.as_object() else {
            return Err(fail(&"must be a JSON object"));
        };
        if let Some(grants) = object.get("allow").and_then(|a| a.as_array()) {
            if let Some(i) = grants.iter().position(|g| !g.is_object()) {
                return Err(fail(&format_args!("allow[{i}] must be a JSON object")));
            }
        }
        serde_json::from_value(value).map_err(|e| fail(&e))
    }
}

impl Authorizer for Decisions {
    fn authorize(&self, op: AclOperation, resource: ResourceType, name: &str) -> bool {
        self.super_user || self.allow.iter().any(|g| g.allows(op, resource, name))
    }
}
