//! Kafka's ACL vocabulary: the operations (`AclOperation`) and resource types (`ResourceType`)
//! an authorizer is asked about, with Kafka's byte codes and names.

use serde::{Deserialize, Serialize};

/// An operation on a resource, as Kafka's `org.apache.kafka.common.acl.AclOperation` codes it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum AclOperation {
    /// Any operation: in an allow-list entry, every operation.
    All,
    /// Kafka's `READ`.
    Read,
    /// Kafka's `WRITE`.
    Write,
    /// Kafka's `CREATE`.
    Create,
    /// Kafka's `DELETE`.
    Delete,
    /// Kafka's `ALTER`.
    Alter,
    /// Kafka's `DESCRIBE`.
    Describe,
    /// Kafka's `CLUSTER_ACTION`.
    ClusterAction,
    /// Kafka's `DESCRIBE_CONFIGS`.
    DescribeConfigs,
    /// Kafka's `ALTER_CONFIGS`.
    AlterConfigs,
    /// Kafka's `IDEMPOTENT_WRITE`.
    IdempotentWrite,
    /// Kafka's `CREATE_TOKENS`.
    CreateTokens,
    /// Kafka's `DESCRIBE_TOKENS`.
    DescribeTokens,
    /// Kafka's `TWO_PHASE_COMMIT`.
    TwoPhaseCommit,
}

impl AclOperation {
    /// Every concrete operation (not `All`), by code.
    pub const CONCRETE: [AclOperation; 13] = [
        AclOperation::Read,
        AclOperation::Write,
        AclOperation::Create,
        AclOperation::Delete,
        AclOperation::Alter,
        AclOperation::Describe,
        AclOperation::ClusterAction,
        AclOperation::DescribeConfigs,
        AclOperation::AlterConfigs,
        AclOperation::IdempotentWrite,
        AclOperation::CreateTokens,
        AclOperation::DescribeTokens,
        AclOperation::TwoPhaseCommit,
    ];

    /// Kafka's byte code (`ALL` 2, `READ` 3 ... `TWO_PHASE_COMMIT` 15).
    pub fn code(self) -> i8 {
        match self {
            AclOperation::All => 2,
            AclOperation::Read => 3,
            AclOperation::Write => 4,
            AclOperation::Create => 5,
            AclOperation::Delete => 6,
            AclOperation::Alter => 7,
            AclOperation::Describe => 8,
            AclOperation::ClusterAction => 9,
            AclOperation::DescribeConfigs => 10,
            AclOperation::AlterConfigs => 11,
            AclOperation::IdempotentWrite => 12,
            AclOperation::CreateTokens => 13,
            AclOperation::DescribeTokens => 14,
            AclOperation::TwoPhaseCommit => 15,
        }
    }

    /// The operation of a Kafka byte code (`None`: `UNKNOWN`, `ANY` or no operation).
    pub fn from_code(code: i8) -> Option<AclOperation> {
        match code {
            2 => Some(AclOperation::All),
            _ => AclOperation::CONCRETE
                .into_iter()
                .find(|o| o.code() == code),
        }
    }

    /// Kafka's name (`READ`, `DESCRIBE_CONFIGS`).
    pub fn name(self) -> &'static str {
        match self {
            AclOperation::All => "ALL",
            AclOperation::Read => "READ",
            AclOperation::Write => "WRITE",
            AclOperation::Create => "CREATE",
            AclOperation::Delete => "DELETE",
            AclOperation::Alter => "ALTER",
            AclOperation::Describe => "DESCRIBE",
            AclOperation::ClusterAction => "CLUSTER_ACTION",
            AclOperation::DescribeConfigs => "DESCRIBE_CONFIGS",
            AclOperation::AlterConfigs => "ALTER_CONFIGS",
            AclOperation::IdempotentWrite => "IDEMPOTENT_WRITE",
            AclOperation::CreateTokens => "CREATE_TOKENS",
            AclOperation::DescribeTokens => "DESCRIBE_TOKENS",
            AclOperation::TwoPhaseCommit => "TWO_PHASE_COMMIT",
        }
    }

    /// The operations an allow of `self` also allows (Kafka's `StandardAuthorizer`): `ALL`
    /// every one; `READ`, `WRITE`, `DELETE` and `ALTER` imply `DESCRIBE`; `ALTER_CONFIGS`
    /// implies `DESCRIBE_CONFIGS`.
    pub fn implies(self, op: AclOperation) -> bool {
        use AclOperation::*;
        self == op
            || self == All
            || (op == Describe && matches!(self, Read | Write | Delete | Alter))
            || (op == DescribeConfigs && self == AlterConfigs)
    }
}

/// A kind of resource, as Kafka's `org.apache.kafka.common.resource.ResourceType` codes it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum ResourceType {
    /// Kafka's `TOPIC`.
    Topic,
    /// Kafka's `GROUP`.
    Group,
    /// Kafka's `CLUSTER`.
    Cluster,
    /// Kafka's `TRANSACTIONAL_ID`.
    TransactionalId,
    /// Kafka's `DELEGATION_TOKEN`.
    DelegationToken,
    /// Kafka's `USER`.
    User,
}

impl ResourceType {
    /// Kafka's byte code (`TOPIC` 2 ... `USER` 7).
    pub fn code(self) -> i8 {
        match self {
            ResourceType::Topic => 2,
            ResourceType::Group => 3,
            ResourceType::Cluster => 4,
            ResourceType::TransactionalId => 5,
            ResourceType::DelegationToken => 6,
            ResourceType::User => 7,
        }
    }

    /// The resource type of a Kafka byte code (`None`: `UNKNOWN`, `ANY` or none).
    pub fn from_code(code: i8) -> Option<ResourceType> {
        [
            ResourceType::Topic,
            ResourceType::Group,
            ResourceType::Cluster,
            ResourceType::TransactionalId,
            ResourceType::DelegationToken,
            ResourceType::User,
        ]
        .into_iter()
        .find(|r| r.code() == code)
    }

    /// Kafka's name (`TOPIC`, `TRANSACTIONAL_ID`).
    pub fn name(self) -> &'static str {
        match self {
            ResourceType::Topic => "TOPIC",
            ResourceType::Group => "GROUP",
            ResourceType::Cluster => "CLUSTER",
            ResourceType::TransactionalId => "TRANSACTIONAL_ID",
            ResourceType::DelegationToken => "DELEGATION_TOKEN",
            ResourceType::User => "USER",
        }
    }

    /// The operations Kafka describes for a resource of this type (`AclEntry.supportedOperations`):
    /// what an `authorizedOperations` bit set is made of.
    pub fn supported_operations(self) -> &'static [AclOperation] {
        use AclOperation::*;
        match self {
            ResourceType::Topic => &[
                Read,
                Write,
                Create,
                Describe,
                Delete,
                Alter,
                DescribeConfigs,
                AlterConfigs,
            ],
            ResourceType::Group => &[Read, Describe, Delete, DescribeConfigs, AlterConfigs],
            ResourceType::Cluster => &[
                Create,
                ClusterAction,
                DescribeConfigs,
                AlterConfigs,
                IdempotentWrite,
                Alter,
                Describe,
            ],
            ResourceType::TransactionalId => &[Describe, Write, TwoPhaseCommit],
            ResourceType::DelegationToken => &[Describe],
            ResourceType::User => &[CreateTokens, DescribeTokens],
        }
    }
}

/// The name of the one cluster resource (Kafka's `CLUSTER_NAME`).
pub const CLUSTER_NAME: &str = "kafka-cluster";
