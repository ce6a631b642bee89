//! ACLs as Kafka's tools manage them: `CreateAcls`, `DescribeAcls` and `DeleteAcls` against a
//! server without an authorizer (`SECURITY_DISABLED`), with `--authorizer standard` and no
//! right to alter the cluster (`CLUSTER_AUTHORIZATION_FAILED`), and as a super user, the ACLs
//! kept across a restart.

use sgc_server::messages::{create_acls_request as caq, create_acls_response as cas};
use sgc_server::messages::{delete_acls_request as daq, delete_acls_response as das};
use sgc_server::messages::{describe_acls_request as dsq, describe_acls_response as dss};
use streams_group_coordinator::wire::codec::Reader;

use super::client::Client;
use super::{start, temp};

const V: i16 = 3;

fn creation(name: &str, pattern: i8, principal: &str, operation: i8) -> caq::AclCreation {
    caq::AclCreation {
        resource_type: 3, // GROUP
        resource_name: name.into(),
        resource_pattern_type: pattern,
        principal: principal.into(),
        host: "*".into(),
        operation,
        permission_type: 3, // ALLOW
    }
}

fn create(c: &mut Client, creations: Vec<caq::AclCreation>) -> Vec<(i16, Option<String>)> {
    let request = caq::CreateAclsRequest { creations };
    let body = c.own(caq::API_KEY, V, caq::FLEXIBLE_FROM, |w| request.write(w, V));
    cas::CreateAclsResponse::read(&mut Reader::new(&body), V)
        .unwrap()
        .results
        .into_iter()
        .map(|r| (r.error_code, r.error_message))
        .collect()
}

/// Every ACL (filter ANY / MATCH-less), as (resource name, pattern type, principal, operation).
fn describe(c: &mut Client) -> (i16, Vec<(String, i8, String, i8)>) {
    let request = dsq::DescribeAclsRequest {
        resource_type_filter: 1,
        resource_name_filter: None,
        pattern_type_filter: 1,
        principal_filter: None,
        host_filter: None,
        operation: 1,
        permission_type: 1,
    };
    let body = c.own(dsq::API_KEY, V, dsq::FLEXIBLE_FROM, |w| request.write(w, V));
    let r = dss::DescribeAclsResponse::read(&mut Reader::new(&body), V).unwrap();
    let mut acls = Vec::new();
    for res in r.resources {
        for a in res.acls {
            acls.push((
                res.resource_name.clone(),
                res.pattern_type,
                a.principal,
                a.operation,
            ));
        }
    }
    (r.error_code, acls)
}

fn delete_named(c: &mut Client, name: &str) -> Vec<(i16, usize)> {
    let request = daq::DeleteAclsRequest {
        filters: vec![daq::DeleteAclsFilter {
            resource_type_filter: 1,
            resource_name_filter: Some(name.into()),
            pattern_type_filter: 2, // MATCH: the literal, prefixed and wildcard ACLs of the name
            principal_filter: None,
            host_filter: None,
            operation: 1,
            permission_type: 1,
        }],
    };
    let body = c.own(daq::API_KEY, V, daq::FLEXIBLE_FROM, |w| request.write(w, V));
    das::DeleteAclsResponse::read(&mut Reader::new(&body), V)
        .unwrap()
        .filter_results
        .into_iter()
        .map(|r| (r.error_code, r.matching_acls.len()))
        .collect()
}

#[test]
fn without_an_authorizer_acls_are_refused_as_security_disabled() {
    let dir = temp("acls-disabled");
    let server = start(&dir, &[]);
    let mut c = Client::connect(server.port);
    let versions = c.api_versions();
    for key in [29, 30, 31] {
        assert_eq!(versions.get(&key), Some(&(1, 3)), "API {key}");
    }
    assert_eq!(
        create(&mut c, vec![creation("g", 3, "User:a", 3)]),
        [(54, Some("No Authorizer is configured.".into()))]
    );
    assert_eq!(describe(&mut c).0, 54);
    assert_eq!(delete_named(&mut c, "g"), [(54, 0)]);
}

#[test]
fn acls_are_managed_by_the_cluster_s_alterers_and_kept_across_a_restart() {
    let dir = temp("acls-managed");
    // No right to alter the cluster: every creation is refused.
    let server = start(&dir, &["--authorizer", "standard"]);
    let mut c = Client::connect(server.port);
    assert_eq!(
        create(&mut c, vec![creation("g", 3, "User:a", 3)]),
        [(31, Some("Cluster authorization failed.".into()))]
    );
    assert_eq!(describe(&mut c).0, 31);
    drop(c);
    server.kill9();

    // The unauthenticated principal as a super user.
    let args = [
        "--authorizer",
        "standard",
        "--super-users",
        "User:ANONYMOUS",
    ];
    let server = start(&dir, &args);
    let mut c = Client::connect(server.port);
    let results = create(
        &mut c,
        vec![
            creation("app-", 4, "User:a", 3),
            creation("orders", 3, "User:b", 8),
            creation("orders", 3, "User:b", 8),
            creation("", 3, "User:b", 8),
            creation("x", 2, "User:b", 8),
        ],
    );
    assert_eq!(
        results,
        [
            (0, Some(String::new())),
            (0, Some(String::new())),
            (0, Some(String::new())),
            (42, Some("Invalid empty resource name".into())),
            (42, Some("Invalid patternType MATCH".into())),
        ]
    );
    let expected = vec![
        ("app-".to_string(), 4, "User:a".to_string(), 3),
        ("orders".to_string(), 3, "User:b".to_string(), 8),
    ];
    assert_eq!(describe(&mut c), (0, expected.clone()));
    drop(c);
    server.kill9();

    let server = start(&dir, &args);
    let mut c = Client::connect(server.port);
    assert_eq!(
        describe(&mut c),
        (0, expected),
        "the ACLs survive a restart"
    );
    // MATCH on `app-1` finds the prefixed ACL `app-`.
    assert_eq!(delete_named(&mut c, "app-1"), [(0, 1)]);
    assert_eq!(describe(&mut c).1.len(), 1);
}
