//! `CreateAcls`, `DescribeAcls` and `DeleteAcls` answered as Kafka's `AclApis` answers them: a
//! broker without an authorizer answers `SECURITY_DISABLED`; with one, the requester needs
//! ALTER (create, delete) or DESCRIBE (describe) on the cluster.

use std::sync::RwLock;

use super::authorize::Requester;
use super::model::{
    Acl, AclFilter, Operation, PatternType, Permission, ResourceType, CLUSTER_NAME,
};
use super::store::AclStore;
use crate::messages::create_acls_request::CreateAclsRequest;
use crate::messages::create_acls_response::{AclCreationResult, CreateAclsResponse};
use crate::messages::delete_acls_request::DeleteAclsRequest;
use crate::messages::delete_acls_response::{
    DeleteAclsFilterResult, DeleteAclsMatchingAcl, DeleteAclsResponse,
};
use crate::messages::describe_acls_request::DescribeAclsRequest;
use crate::messages::describe_acls_response::{
    AclDescription, DescribeAclsResource, DescribeAclsResponse,
};

pub const UNKNOWN_SERVER_ERROR: i16 = -1;
pub const CLUSTER_AUTHORIZATION_FAILED: i16 = 31;
pub const INVALID_REQUEST: i16 = 42;
pub const SECURITY_DISABLED: i16 = 54;

/// Kafka's default message of `CLUSTER_AUTHORIZATION_FAILED` (its own names the request as
/// the broker prints it, which no other broker can reproduce).
const CLUSTER_DENIED: &str = "Cluster authorization failed.";

/// Whether `who` may do `op` on the cluster; `Err` with the error for every entry.
fn cluster(store: &AclStore, who: &Requester, op: Operation) -> Result<(), (i16, String)> {
    if store.authorize(who, op, ResourceType::Cluster, CLUSTER_NAME) {
        Ok(())
    } else {
        Err((CLUSTER_AUTHORIZATION_FAILED, CLUSTER_DENIED.into()))
    }
}

fn filter(
    resource_type: i8,
    resource_name: &Option<String>,
    pattern_type: i8,
    principal: &Option<String>,
    host: &Option<String>,
    operation: i8,
    permission: i8,
) -> AclFilter {
    AclFilter {
        resource_type: ResourceType::from_code(resource_type),
        resource_name: resource_name.clone(),
        pattern_type: PatternType::from_code(pattern_type),
        principal: principal.clone(),
        host: host.clone(),
        operation: Operation::from_code(operation),
        permission: Permission::from_code(permission),
    }
}

/// `CreateAcls`: one result per creation, in the request's order.
pub fn create(
    store: Option<&RwLock<AclStore>>,
    who: &Requester,
    request: &CreateAclsRequest,
) -> CreateAclsResponse {
    let all = |code: i16, message: &str| {
        request
            .creations
            .iter()
            .map(|_| AclCreationResult {
                error_code: code,
                error_message: Some(message.to_string()),
            })
            .collect()
    };
    let results = match store.map(RwLock::write) {
        None => all(SECURITY_DISABLED, "No Authorizer is configured."),
        Some(Err(_)) => all(UNKNOWN_SERVER_ERROR, "The ACLs are unavailable."),
        Some(Ok(mut store)) => match cluster(&store, who, Operation::Alter) {
            Err((code, message)) => all(code, &message),
            Ok(()) => {
                let acls = request
                    .creations
                    .iter()
                    .map(|c| Acl {
                        resource_type: ResourceType::from_code(c.resource_type),
                        resource_name: c.resource_name.clone(),
                        pattern_type: PatternType::from_code(c.resource_pattern_type),
                        principal: c.principal.clone(),
                        host: c.host.clone(),
                        operation: Operation::from_code(c.operation),
                        permission: Permission::from_code(c.permission_type),
                    })
                    .collect();
                match store.create(acls) {
                    Err(why) => all(UNKNOWN_SERVER_ERROR, &why),
                    Ok(results) => results
                        .into_iter()
                        .map(|r| match r {
                            // Kafka's `new AclCreationResult()`: the schema's empty message.
                            Ok(()) => AclCreationResult::default(),
                            Err(why) => AclCreationResult {
                                error_code: INVALID_REQUEST,
                                error_message: Some(why),
                            },
                        })
                        .collect(),
                }
            }
        },
    };
    CreateAclsResponse {
        results,
        ..Default::default()
    }
}

/// `DescribeAcls`: the matching ACLs grouped by resource pattern, in the order each pattern
/// was first created.
pub fn describe(
    store: Option<&RwLock<AclStore>>,
    who: &Requester,
    request: &DescribeAclsRequest,
) -> DescribeAclsResponse {
    let error = |code: i16, message: &str| DescribeAclsResponse {
        error_code: code,
        error_message: Some(message.to_string()),
        ..Default::default()
    };
    let store = match store.map(RwLock::read) {
        None => {
            return error(
                SECURITY_DISABLED,
                "No Authorizer is configured on the broker",
            )
        }
        Some(Err(_)) => return error(UNKNOWN_SERVER_ERROR, "The ACLs are unavailable."),
        Some(Ok(store)) => store,
    };
    if let Err((code, message)) = cluster(&store, who, Operation::Describe) {
        return error(code, &message);
    }
    let f = filter(
        request.resource_type_filter,
        &request.resource_name_filter,
        request.pattern_type_filter,
        &request.principal_filter,
        &request.host_filter,
        request.operation,
        request.permission_type,
    );
    let acls = match store.describe(&f) {
        Err(why) => return error(INVALID_REQUEST, &why),
        Ok(acls) => acls,
    };
    let mut resources: Vec<DescribeAclsResource> = Vec::new();
    for a in acls {
        let description = AclDescription {
            principal: a.principal,
            host: a.host,
            operation: a.operation.code(),
            permission_type: a.permission.code(),
        };
        let same = |r: &&mut DescribeAclsResource| {
            r.resource_type == a.resource_type.code()
                && r.resource_name == a.resource_name
                && r.pattern_type == a.pattern_type.code()
        };
        match resources.iter_mut().find(same) {
            Some(r) => r.acls.push(description),
            None => resources.push(DescribeAclsResource {
                resource_type: a.resource_type.code(),
                resource_name: a.resource_name,
                pattern_type: a.pattern_type.code(),
                acls: vec![description],
            }),
        }
    }
    DescribeAclsResponse {
        resources,
        ..Default::default()
    }
}

/// `DeleteAcls`: one result per filter, each with the ACLs it removed.
pub fn delete(
    store: Option<&RwLock<AclStore>>,
    who: &Requester,
    request: &DeleteAclsRequest,
) -> DeleteAclsResponse {
    let all = |code: i16, message: &str| {
        request
            .filters
            .iter()
            .map(|_| DeleteAclsFilterResult {
                error_code: code,
                error_message: Some(message.to_string()),
                ..Default::default()
            })
            .collect()
    };
    let filter_results = match store.map(RwLock::write) {
        None => all(SECURITY_DISABLED, "No Authorizer is configured."),
        Some(Err(_)) => all(UNKNOWN_SERVER_ERROR, "The ACLs are unavailable."),
        Some(Ok(mut store)) => match cluster(&store, who, Operation::Alter) {
            Err((code, message)) => all(code, &message),
            Ok(()) => {
                let filters: Vec<AclFilter> = request
                    .filters
                    .iter()
                    .map(|f| {
                        filter(
                            f.resource_type_filter,
                            &f.resource_name_filter,
                            f.pattern_type_filter,
                            &f.principal_filter,
                            &f.host_filter,
                            f.operation,
                            f.permission_type,
                        )
                    })
                    .collect();
                match store.delete(&filters) {
                    Err(why) if why.starts_with("Cannot remove") => all(INVALID_REQUEST, &why),
                    Err(why) => all(UNKNOWN_SERVER_ERROR, &why),
                    Ok(results) => results.into_iter().map(filter_result).collect(),
                }
            }
        },
    };
    DeleteAclsResponse {
        filter_results,
        ..Default::default()
    }
}

/// Kafka's `DeleteAclsResponse.filterResult`: a filter's and each removed ACL's message is
/// `ApiError.NONE`'s, null, where the schema's default is an empty string.
fn filter_result(deleted: super::store::Deleted) -> DeleteAclsFilterResult {
    match deleted {
        Err(why) => DeleteAclsFilterResult {
            error_code: INVALID_REQUEST,
            error_message: Some(why),
            ..Default::default()
        },
        Ok(acls) => DeleteAclsFilterResult {
            error_message: None,
            matching_acls: acls
                .into_iter()
                .map(|a| DeleteAclsMatchingAcl {
                    resource_type: a.resource_type.code(),
                    resource_name: a.resource_name,
                    pattern_type: a.pattern_type.code(),
                    principal: a.principal,
                    host: a.host,
                    operation: a.operation.code(),
                    permission_type: a.permission.code(),
                    error_message: None,
                    ..Default::default()
                })
                .collect(),
            ..Default::default()
        },
    }
}
