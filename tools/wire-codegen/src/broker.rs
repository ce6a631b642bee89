//! The broker's own messages for `crates/sgc-server`: what a client needs to find and use a
//! coordinator (`Metadata`, `FindCoordinator`, `CreateTopics`) and manage who may use it
//! (`CreateAcls`, `DescribeAcls`, `DeleteAcls`), and authenticate clients (`SaslHandshake`,
//! `SaslAuthenticate`) with the SCRAM credentials Kafka's admin manages
//! (`DescribeUserScramCredentials`, `AlterUserScramCredentials`). They are not the coordinator's,
//! so they are generated into the server crate, over the core's public codec, and stay out of
//! the core and its wasm modules. Their bytes are the same in every release's files.

use std::path::Path;

use crate::{read, rustfmt, HEADER};

/// The messages, from Kafka 4.4's files.
const MESSAGES: &[&str] = &[
    "MetadataRequest",
    "MetadataResponse",
    "FindCoordinatorRequest",
    "FindCoordinatorResponse",
    "CreateTopicsRequest",
    "CreateTopicsResponse",
    "CreateAclsRequest",
    "CreateAclsResponse",
    "DescribeAclsRequest",
    "DescribeAclsResponse",
    "DeleteAclsRequest",
    "DeleteAclsResponse",
    "SaslHandshakeRequest",
    "SaslHandshakeResponse",
    "SaslAuthenticateRequest",
    "SaslAuthenticateResponse",
    "DescribeUserScramCredentialsRequest",
    "DescribeUserScramCredentialsResponse",
    "AlterUserScramCredentialsRequest",
    "AlterUserScramCredentialsResponse",
];

const SOURCE: &str = "kafka-4.4";

/// Every file of `crates/sgc-server/src/messages/` (paths relative to it), formatted.
pub fn generate(schemas: &Path) -> Result<Vec<(String, String)>, String> {
    let mut files = Vec::new();
    let mut module = format!(
        "{HEADER}\n//! The broker's messages the server answers itself, generated from Kafka's schema files (`tools/wire-codegen`).\n\n"
    );
    for name in MESSAGES {
        let m = read(schemas, SOURCE, name)?.ok_or(format!("{SOURCE}/{name}.json is missing"))?;
        for folder in ["kafka-4.2", "kafka-4.3"] {
            let other =
                read(schemas, folder, name)?.ok_or(format!("{folder}/{name}.json is missing"))?;
            for v in m.valid.lo.min(other.valid.lo)..=m.valid.hi.max(other.valid.hi) {
                if other.valid.contains(v) != m.valid.contains(v) || other.layout(v) != m.layout(v)
                {
                    return Err(format!(
                        "{} version {v} differs from {}",
                        other.file, m.file
                    ));
                }
            }
        }
        let snake = crate::rust::snake(name);
        module.push_str(&format!("pub mod {snake};\n"));
        let text = crate::rust::message_file(&m, &format!("schemas/{SOURCE}/{name}.json")).replace(
            "use crate::wire::codec::*;",
            "use streams_group_coordinator::wire::codec::*;",
        );
        files.push((format!("{snake}.rs"), rustfmt(&text)?));
    }
    files.push(("mod.rs".into(), rustfmt(&module)?));
    files.sort();
    Ok(files)
}
