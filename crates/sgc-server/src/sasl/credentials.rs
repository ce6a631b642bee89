//! The SCRAM credentials a server keeps, in `DIR/scram.json` (written whole, synced, renamed
//! before an answer leaves): salted as Kafka keeps them, never a password; described and
//! altered as Kafka's `ScramImage.describe` and `ScramControlManager.alterCredentials` do.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use super::scram::{Credential, Scram, MIN_ITERATIONS};
use crate::messages::alter_user_scram_credentials_request::AlterUserScramCredentialsRequest;
use crate::messages::alter_user_scram_credentials_response::AlterUserScramCredentialsResult;
use crate::messages::describe_user_scram_credentials_response::{
    CredentialInfo, DescribeUserScramCredentialsResult,
};
use crate::topics::write_durably;
use streams_group_coordinator::wire::in_java_hash_set_order;

/// The most iterations Kafka's controller accepts (`ScramControlManager`).
pub const MAX_ITERATIONS: i32 = 16_384;

pub const UNSUPPORTED_SASL_MECHANISM: i16 = 33;
pub const RESOURCE_NOT_FOUND: i16 = 91;
pub const DUPLICATE_RESOURCE: i16 = 92;
pub const UNACCEPTABLE_CREDENTIAL: i16 = 93;
pub const UNKNOWN_SERVER_ERROR: i16 = -1;

/// Kafka's mechanism code (`ScramMechanism.type()`).
pub fn mechanism(code: i8) -> Option<Scram> {
    match code {
        1 => Some(Scram::Sha256),
        2 => Some(Scram::Sha512),
        _ => None,
    }
}

fn code(m: Scram) -> i8 {
    match m {
        Scram::Sha256 => 1,
        Scram::Sha512 => 2,
    }
}

/// The credentials by user and mechanism.
pub struct ScramStore {
    file: PathBuf,
    by_user: BTreeMap<String, BTreeMap<Scram, Credential>>,
}

impl ScramStore {
    /// The credentials kept in `dir`, none if it has no `scram.json` yet.
    pub fn open(dir: &Path) -> Result<Self, String> {
        let file = dir.join("scram.json");
        let by_user = match std::fs::read(&file) {
            Ok(bytes) => serde_json::from_slice(&bytes)
                .map_err(|e| format!("{}: not SCRAM credentials: {e}", file.display()))?,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => BTreeMap::new(),
            Err(e) => return Err(format!("{}: {e}", file.display())),
        };
        Ok(ScramStore { file, by_user })
    }

    fn save(&self) -> Result<(), String> {
        let text = serde_json::to_vec_pretty(&self.by_user).map_err(|e| e.to_string())?;
        write_durably(&self.file, &text)
    }

    pub fn get(&self, user: &str, m: Scram) -> Option<Credential> {
        self.by_user.get(user).and_then(|c| c.get(&m)).cloned()
    }

    /// Adds the credentials of users given with passwords (`--sasl-users`) that the store has
    /// none of for a mechanism: a random salt, 4,096 iterations. Credentials altered since
    /// are kept.
    pub fn seed(&mut self, users: &BTreeMap<String, String>) -> Result<(), String> {
        let mut added = false;
        for (user, password) in users {
            for m in [Scram::Sha256, Scram::Sha512] {
                let entry = self.by_user.entry(user.clone()).or_default();
                if let std::collections::btree_map::Entry::Vacant(v) = entry.entry(m) {
                    let salt = crate::topics::random_bytes();
                    v.insert(m.credential(password, &salt, MIN_ITERATIONS));
                    added = true;
                }
            }
        }
        if added {
            self.save()?;
        }
        Ok(())
    }

    /// `DescribeUserScramCredentials`: every user (none listed) or the listed ones, in the
    /// order of a Java `HashMap` of names; a name listed twice `DUPLICATE_RESOURCE`, a user
    /// without credentials `RESOURCE_NOT_FOUND`.
    pub fn describe(&self, users: Option<Vec<String>>) -> Vec<DescribeUserScramCredentialsResult> {
        let mut twice: Vec<String> = Vec::new();
        let listed: Vec<String> = match users.filter(|u| !u.is_empty()) {
            None => self.by_user.keys().cloned().collect(),
            Some(list) => {
                let mut once: Vec<String> = Vec::new();
                for u in list {
                    if once.contains(&u) {
                        if !twice.contains(&u) {
                            twice.push(u);
                        }
                    } else {
                        once.push(u);
                    }
                }
                once
            }
        };
        in_java_hash_set_order(listed)
            .into_iter()
            .map(|user| {
                if twice.contains(&user) {
                    return DescribeUserScramCredentialsResult {
                        error_code: DUPLICATE_RESOURCE,
                        error_message: Some(format!(
                            "Cannot describe SCRAM credentials for the same user twice in a single request: {user}"
                        )),
                        credential_infos: Vec::new(),
                        user,
                    };
                }
                let infos: Vec<CredentialInfo> = self
                    .by_user
                    .get(&user)
                    .into_iter()
                    .flatten()
                    .map(|(m, c)| CredentialInfo {
                        mechanism: code(*m),
                        iterations: c.iterations as i32,
                    })
                    .collect();
                if infos.is_empty() {
                    DescribeUserScramCredentialsResult {
                        error_code: RESOURCE_NOT_FOUND,
                        error_message: Some(format!(
                            "Attempt to describe a user credential that does not exist: {user}"
                        )),
                        credential_infos: Vec::new(),
                        user,
                    }
                } else {
                    // Kafka's result leaves the message at the schema's default, empty.
                    DescribeUserScramCredentialsResult {
                        user,
                        error_code: 0,
                        error_message: Some(String::new()),
                        credential_infos: infos,
                    }
                }
            })
            .collect()
    }

    /// `AlterUserScramCredentials`: deletions, then upsertions, then the refused users, each
    /// group in the order of a Java `HashMap` of names, as Kafka's controller answers; the
    /// accepted changes written before the answer (none if the file cannot be written).
    pub fn alter(
        &mut self,
        request: &AlterUserScramCredentialsRequest,
    ) -> Vec<AlterUserScramCredentialsResult> {
        let mut errors: BTreeMap<String, (i16, String)> = BTreeMap::new();
        let mut deletions: BTreeMap<String, Scram> = BTreeMap::new();
        let mut upserts: BTreeMap<String, (Scram, Credential)> = BTreeMap::new();
        let twice = || {
            (
                DUPLICATE_RESOURCE,
                "A user credential cannot be altered twice in the same request".to_string(),
            )
        };
        let check = |name: &str, m: i8| -> Result<Scram, (i16, String)> {
            if name.is_empty() {
                return Err((UNACCEPTABLE_CREDENTIAL, "Username must not be empty".into()));
            }
            mechanism(m).ok_or((UNSUPPORTED_SASL_MECHANISM, "Unknown SCRAM mechanism".into()))
        };
        for d in &request.deletions {
            if errors.contains_key(&d.name) {
                continue;
            }
            if deletions.remove(&d.name).is_some() {
                errors.insert(d.name.clone(), twice());
                continue;
            }
            match check(&d.name, d.mechanism) {
                Err(e) => {
                    errors.insert(d.name.clone(), e);
                }
                Ok(m) if self.get(&d.name, m).is_none() => {
                    let e = "Attempt to delete a user credential that does not exist";
                    errors.insert(d.name.clone(), (RESOURCE_NOT_FOUND, e.into()));
                }
                Ok(m) => {
                    deletions.insert(d.name.clone(), m);
                }
            }
        }
        for u in &request.upsertions {
            if errors.contains_key(&u.name) {
                continue;
            }
            if deletions.remove(&u.name).is_some() || upserts.remove(&u.name).is_some() {
                errors.insert(u.name.clone(), twice());
                continue;
            }
            let checked = check(&u.name, u.mechanism).and_then(|m| {
                if u.iterations < MIN_ITERATIONS as i32 {
                    Err((UNACCEPTABLE_CREDENTIAL, "Too few iterations".into()))
                } else if u.iterations > MAX_ITERATIONS {
                    Err((UNACCEPTABLE_CREDENTIAL, "Too many iterations".into()))
                } else {
                    Ok(m)
                }
            });
            match checked {
                Err(e) => {
                    errors.insert(u.name.clone(), e);
                }
                Ok(m) => {
                    let c =
                        m.credential_from_salted(&u.salted_password, &u.salt, u.iterations as u32);
                    upserts.insert(u.name.clone(), (m, c));
                }
            }
        }
        let before = self.by_user.clone();
        for (user, m) in &deletions {
            if let Some(c) = self.by_user.get_mut(user) {
                c.remove(m);
                if c.is_empty() {
                    self.by_user.remove(user);
                }
            }
        }
        for (user, (m, c)) in &upserts {
            self.by_user
                .entry(user.clone())
                .or_default()
                .insert(*m, c.clone());
        }
        let ok = |user: String| AlterUserScramCredentialsResult {
            user,
            error_code: 0,
            error_message: None,
        };
        if !deletions.is_empty() || !upserts.is_empty() {
            if let Err(why) = self.save() {
                self.by_user = before;
                let users = deletions.into_keys().chain(upserts.into_keys());
                return users
                    .map(|user| AlterUserScramCredentialsResult {
                        user,
                        error_code: UNKNOWN_SERVER_ERROR,
                        error_message: Some(why.clone()),
                    })
                    .collect();
            }
        }
        let mut out: Vec<AlterUserScramCredentialsResult> = Vec::new();
        out.extend(
            in_java_hash_set_order(deletions.into_keys().collect())
                .into_iter()
                .map(ok),
        );
        out.extend(
            in_java_hash_set_order(upserts.into_keys().collect())
                .into_iter()
                .map(ok),
        );
        for user in in_java_hash_set_order(errors.keys().cloned().collect()) {
            let (code, message) = errors[&user].clone();
            out.push(AlterUserScramCredentialsResult {
                user,
                error_code: code,
                error_message: Some(message),
            });
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::messages::alter_user_scram_credentials_request::{
        ScramCredentialDeletion, ScramCredentialUpsertion,
    };

    #[test]
    fn credentials_are_altered_and_described_as_kafka_and_survive_a_restart() {
        let dir = std::env::temp_dir().join(format!("sgc-scram-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let mut store = ScramStore::open(&dir).unwrap();
        store
            .seed(&BTreeMap::from([("alice".to_string(), "pw".to_string())]))
            .unwrap();
        let upsert = |name: &str, m: i8, iterations: i32| ScramCredentialUpsertion {
            name: name.into(),
            mechanism: m,
            iterations,
            salt: b"salt".to_vec(),
            salted_password: vec![7; 32],
        };
        let request = AlterUserScramCredentialsRequest {
            deletions: vec![
                ScramCredentialDeletion {
                    name: "alice".into(),
                    mechanism: 2,
                },
                ScramCredentialDeletion {
                    name: "nobody".into(),
                    mechanism: 1,
                },
            ],
            upsertions: vec![
                upsert("bob", 1, 8192),
                upsert("carol", 1, 100),
                upsert("dan", 3, 4096),
            ],
        };
        let results: Vec<(String, i16)> = store
            .alter(&request)
            .into_iter()
            .map(|r| (r.user, r.error_code))
            .collect();
        assert!(results.contains(&("alice".into(), 0)));
        assert!(results.contains(&("bob".into(), 0)));
        assert!(results.contains(&("nobody".into(), RESOURCE_NOT_FOUND)));
        assert!(results.contains(&("carol".into(), UNACCEPTABLE_CREDENTIAL)));
        assert!(results.contains(&("dan".into(), UNSUPPORTED_SASL_MECHANISM)));
        let reopened = ScramStore::open(&dir).unwrap();
        assert!(reopened.get("alice", Scram::Sha512).is_none());
        assert!(reopened.get("alice", Scram::Sha256).is_some());
        assert_eq!(reopened.get("bob", Scram::Sha256).unwrap().iterations, 8192);
        let described = reopened.describe(Some(vec!["bob".into(), "zed".into(), "bob".into()]));
        let codes: Vec<(String, i16)> = described
            .into_iter()
            .map(|r| (r.user, r.error_code))
            .collect();
        assert!(codes.contains(&("bob".into(), DUPLICATE_RESOURCE)));
        assert!(codes.contains(&("zed".into(), RESOURCE_NOT_FOUND)));
        let _ = std::fs::remove_dir_all(&dir);
    }
}
