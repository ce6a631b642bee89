//! The ACLs a server keeps, in `DIR/acls.json` (written whole, synced, then renamed): created,
//! listed and deleted as Kafka's controller does it (`AclControlManager`), and asked by the
//! authorizer.

use std::path::{Path, PathBuf};

use super::authorize::{authorize, AuthorizerConfig, Requester};
use super::model::{Acl, AclFilter, Operation, ResourceType};
use crate::topics::write_durably;

/// Kafka's `QuorumController.MAX_RECORDS_PER_USER_OP`: the ACLs one `DeleteAcls` may remove.
pub const MAX_RECORDS_PER_USER_OP: usize = 10_000;

/// The ACLs in the order they were created, each once.
pub struct AclStore {
    file: PathBuf,
    acls: Vec<Acl>,
    pub config: AuthorizerConfig,
}

/// What became of one filter of a `DeleteAcls`: the ACLs it removed, or an error message.
pub type Deleted = Result<Vec<Acl>, String>;

impl AclStore {
    /// The ACLs kept in `dir`, none if it has no `acls.json` yet.
    pub fn open(dir: &Path, config: AuthorizerConfig) -> Result<Self, String> {
        let file = dir.join("acls.json");
        let acls = match std::fs::read(&file) {
            Ok(bytes) => serde_json::from_slice(&bytes)
                .map_err(|e| format!("{}: not a list of ACLs: {e}", file.display()))?,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Vec::new(),
            Err(e) => return Err(format!("{}: {e}", file.display())),
        };
        Ok(AclStore { file, acls, config })
    }

    fn save(&self) -> Result<(), String> {
        let text = serde_json::to_vec_pretty(&self.acls).map_err(|e| e.to_string())?;
        write_durably(&self.file, &text)
    }

    /// Creates ACLs: each valid one is answered `Ok` (one that exists already or came earlier
    /// in the request is not created twice), each invalid one with Kafka's message. Written
    /// before the answer: `Err` if the file could not be written (nothing created then).
    pub fn create(&mut self, acls: Vec<Acl>) -> Result<Vec<Result<(), String>>, String> {
        let before = self.acls.len();
        let mut results = Vec::with_capacity(acls.len());
        for acl in acls {
            match acl.validate() {
                Err(why) => results.push(Err(why)),
                Ok(()) => {
                    if !self.acls.contains(&acl) {
                        self.acls.push(acl);
                    }
                    results.push(Ok(()));
                }
            }
        }
        if self.acls.len() != before {
            if let Err(e) = self.save() {
                self.acls.truncate(before);
                return Err(e);
            }
        }
        Ok(results)
    }

    /// The ACLs `filter` matches, in creation order; `Err` with Kafka's message for a filter
    /// with an unknown code.
    pub fn describe(&self, filter: &AclFilter) -> Result<Vec<Acl>, String> {
        if let Some(why) = filter.unknown() {
            return Err(why.into());
        }
        Ok(self
            .acls
            .iter()
            .filter(|a| filter.matches(a))
            .cloned()
            .collect())
    }

    /// Deletes what each filter matches (every filter against the ACLs as they were before the
    /// request, as Kafka's controller does); `Err` for the whole request past
    /// [`MAX_RECORDS_PER_USER_OP`] ACLs or when the file cannot be written (nothing deleted).
    pub fn delete(&mut self, filters: &[AclFilter]) -> Result<Vec<Deleted>, String> {
        let mut results = Vec::with_capacity(filters.len());
        let mut removed = 0usize;
        for f in filters {
            match self.describe(f) {
                Err(why) => results.push(Err(why)),
                Ok(found) => {
                    removed += found.len();
                    if removed > MAX_RECORDS_PER_USER_OP {
                        return Err(format!(
                            "Cannot remove more than {MAX_RECORDS_PER_USER_OP} acls in a single delete operation."
                        ));
                    }
                    results.push(Ok(found));
                }
            }
        }
        let gone: Vec<&Acl> = results.iter().flatten().flatten().collect();
        if !gone.is_empty() {
            let kept: Vec<Acl> = self
                .acls
                .iter()
                .filter(|a| !gone.contains(a))
                .cloned()
                .collect();
            let old = std::mem::replace(&mut self.acls, kept);
            if let Err(e) = self.save() {
                self.acls = old;
                return Err(e);
            }
        }
        Ok(results)
    }

    /// Kafka's `StandardAuthorizer` decision for `who` doing `op` on the resource.
    pub fn authorize(
        &self,
        who: &Requester,
        op: Operation,
        resource_type: ResourceType,
        name: &str,
    ) -> bool {
        authorize(&self.acls, &self.config, who, op, resource_type, name)
    }
}

#[cfg(test)]
mod tests {
    use super::super::model::{PatternType, Permission};
    use super::*;

    fn acl(name: &str, principal: &str) -> Acl {
        Acl {
            resource_type: ResourceType::Group,
            resource_name: name.into(),
            pattern_type: PatternType::Literal,
            principal: principal.into(),
            host: "*".into(),
            operation: Operation::Read,
            permission: Permission::Allow,
        }
    }

    fn any_of(name: Option<&str>) -> AclFilter {
        AclFilter {
            resource_type: ResourceType::Any,
            resource_name: name.map(str::to_string),
            pattern_type: PatternType::Any,
            principal: None,
            host: None,
            operation: Operation::Any,
            permission: Permission::Any,
        }
    }

    #[test]
    fn acls_survive_a_restart_and_deletes_see_the_state_before_the_request() {
        let dir = std::env::temp_dir().join(format!("sgc-acls-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let mut store = AclStore::open(&dir, AuthorizerConfig::default()).unwrap();
        let results = store
            .create(vec![
                acl("g1", "User:a"),
                acl("g1", "User:a"),
                acl("g2", "b"),
            ])
            .unwrap();
        assert_eq!(results[0], Ok(()));
        assert_eq!(
            results[1],
            Ok(()),
            "a duplicate is answered, not created twice"
        );
        assert!(results[2].as_ref().unwrap_err().contains("principal"));
        store.create(vec![acl("g2", "User:b")]).unwrap();
        let again = AclStore::open(&dir, AuthorizerConfig::default()).unwrap();
        assert_eq!(again.describe(&any_of(None)).unwrap().len(), 2);
        let who = Requester {
            principal: "User:a".into(),
            host: "127.0.0.1".into(),
        };
        assert!(again.authorize(&who, Operation::Read, ResourceType::Group, "g1"));
        assert!(!again.authorize(&who, Operation::Read, ResourceType::Group, "g2"));

        let mut store = again;
        let deleted = store
            .delete(&[any_of(Some("g1")), any_of(Some("g1")), any_of(None)])
            .unwrap();
        assert_eq!(deleted[0].as_ref().unwrap().len(), 1);
        assert_eq!(deleted[1].as_ref().unwrap().len(), 1);
        assert_eq!(deleted[2].as_ref().unwrap().len(), 2);
        let mut unknown = any_of(None);
        unknown.operation = Operation::Unknown;
        assert_eq!(
            store.describe(&unknown).unwrap_err(),
            "Unknown entryFilter."
        );
        let reopened = AclStore::open(&dir, AuthorizerConfig::default()).unwrap();
        assert!(reopened.describe(&any_of(None)).unwrap().is_empty());
        let _ = std::fs::remove_dir_all(&dir);
    }
}
