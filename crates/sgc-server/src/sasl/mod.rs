//! SASL on a `SASL_PLAINTEXT` listener, as Kafka's `SaslServerAuthenticator`: before a
//! connection authenticates it may send `ApiVersions`, then `SaslHandshake` v1 naming a
//! mechanism and `SaslAuthenticate` with the mechanism's tokens; anything else closes it. A
//! failed authentication is answered `SASL_AUTHENTICATION_FAILED` and the connection closed.
//! Mechanisms: `PLAIN` over the users of `--sasl-users FILE` (`{"alice": "password"}`), and
//! `SCRAM-SHA-256` / `SCRAM-SHA-512` over the credentials of `DIR/scram.json`
//! (`credentials`), which Kafka's admin alters and which the users of the file are added to,
//! salted as Kafka keeps them, when the server starts.

pub mod credentials;
pub mod scram;

use std::collections::BTreeMap;
use std::sync::{Arc, RwLock};

use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine;
use streams_group_coordinator::wire::codec::Reader;
use streams_group_coordinator::wire::messages::kafka::request_header::RequestHeader;
use streams_group_coordinator::wire::{self};

use crate::messages::{sasl_authenticate_request as saq, sasl_authenticate_response as sas};
use crate::messages::{sasl_handshake_request as shq, sasl_handshake_response as shs};
use credentials::ScramStore;
use scram::{Failure, Scram};

pub const UNSUPPORTED_SASL_MECHANISM: i16 = 33;
pub const ILLEGAL_SASL_STATE: i16 = 34;
pub const SASL_AUTHENTICATION_FAILED: i16 = 58;

/// The users a listener authenticates and the mechanisms it enables.
#[derive(Clone)]
pub struct SaslConfig {
    /// `sasl.enabled.mechanisms`, in the order the handshake lists them.
    pub mechanisms: Vec<String>,
    passwords: BTreeMap<String, String>,
    scram: Arc<RwLock<ScramStore>>,
}

impl SaslConfig {
    /// The users of a `{"name": "password"}` file, with every mechanism enabled unless
    /// `mechanisms` names some.
    pub fn from_users(
        users: BTreeMap<String, String>,
        mechanisms: Option<Vec<String>>,
        scram: Arc<RwLock<ScramStore>>,
    ) -> Result<Self, String> {
        let all = ["PLAIN", "SCRAM-SHA-256", "SCRAM-SHA-512"];
        let mechanisms = mechanisms.unwrap_or_else(|| all.iter().map(|m| m.to_string()).collect());
        if let Some(m) = mechanisms.iter().find(|m| !all.contains(&m.as_str())) {
            return Err(format!("sasl.enabled.mechanisms: {m} is not served here"));
        }
        scram
            .write()
            .map_err(|_| "the SCRAM credentials are unavailable")?
            .seed(&users)?;
        Ok(SaslConfig {
            mechanisms,
            passwords: users,
            scram,
        })
    }
}

/// Where a connection is in its authentication.
#[derive(Default)]
pub enum Session {
    /// Before `SaslHandshake`.
    #[default]
    Handshake,
    /// A mechanism chosen; for SCRAM, the exchange after the client's first message.
    Authenticating(String, Option<scram::Exchange>),
    /// Authenticated as this principal (`User:NAME`).
    Done(String),
}

/// What a frame of a connection that has not authenticated yet gets.
pub enum Step {
    /// Not the authenticator's: the broker answers it (`ApiVersions`).
    Pass,
    /// This response, and the connection goes on.
    Answer(Vec<u8>),
    /// This response, then the connection is closed, for this reason.
    AnswerAndClose(Vec<u8>, String),
    /// The connection is closed, for this reason.
    Close(String),
}

fn header(frame: &[u8], flexible_from: i16) -> Option<(RequestHeader, usize)> {
    let v = i16::from_be_bytes([*frame.get(2)?, *frame.get(3)?]);
    let mut r = Reader::new(frame);
    let h = RequestHeader::read(&mut r, if v >= flexible_from { 2 } else { 1 }).ok()?;
    Some((h, r.position()))
}

impl Session {
    /// The principal once authenticated.
    pub fn principal(&self) -> Option<&str> {
        match self {
            Session::Done(p) => Some(p),
            _ => None,
        }
    }

    /// A frame of a connection that has not authenticated yet.
    pub fn step(&mut self, config: &SaslConfig, frame: &[u8]) -> Step {
        let key = frame
            .get(..2)
            .map_or(-1, |k| i16::from_be_bytes([k[0], k[1]]));
        match (&*self, key) {
            (Session::Handshake, 18) => Step::Pass,
            (Session::Handshake, shq::API_KEY) => self.handshake(config, frame),
            (Session::Authenticating(..), saq::API_KEY) => self.authenticate(config, frame),
            (Session::Handshake, _) => Step::Close(format!(
                "Unexpected Kafka request of type {key} during SASL handshake."
            )),
            _ => Step::Close(format!(
                "Unexpected Kafka request of type {key} during SASL authentication."
            )),
        }
    }

    fn handshake(&mut self, config: &SaslConfig, frame: &[u8]) -> Step {
        let Some((h, at)) = header(frame, i16::MAX) else {
            return Step::Close("a SaslHandshake that cannot be read".into());
        };
        let v = h.request_api_version;
        if v != 1 {
            // Version 0 sends the tokens without Kafka's framing, which only GSSAPI clients
            // of before Kafka 1.0 do.
            return Step::Close(format!("SaslHandshake version {v} is not supported"));
        }
        let Ok(request) = shq::SaslHandshakeRequest::read(&mut Reader::new(&frame[at..]), v) else {
            return Step::Close("a SaslHandshake that cannot be read".into());
        };
        let enabled = config.mechanisms.contains(&request.mechanism);
        let response = shs::SaslHandshakeResponse {
            error_code: if enabled {
                0
            } else {
                UNSUPPORTED_SASL_MECHANISM
            },
            mechanisms: config.mechanisms.clone(),
        };
        let out = wire::respond(h.correlation_id, 0, |w| response.write(w, v));
        if !enabled {
            return Step::AnswerAndClose(
                out,
                format!("Unsupported SASL mechanism {}", request.mechanism),
            );
        }
        *self = Session::Authenticating(request.mechanism, None);
        Step::Answer(out)
    }

    fn authenticate(&mut self, config: &SaslConfig, frame: &[u8]) -> Step {
        let Some((h, at)) = header(frame, saq::FLEXIBLE_FROM) else {
            return Step::Close("a SaslAuthenticate that cannot be read".into());
        };
        let v = h.request_api_version;
        if !(saq::VERSIONS.0..=saq::VERSIONS.1).contains(&v) {
            return Step::Close(format!(
                "Version {v} is not supported for apiKey SASL_AUTHENTICATE"
            ));
        }
        let Ok(request) = saq::SaslAuthenticateRequest::read(&mut Reader::new(&frame[at..]), v)
        else {
            return Step::Close("a SaslAuthenticate that cannot be read".into());
        };
        let Session::Authenticating(mechanism, exchange) = std::mem::take(self) else {
            return Step::Close("SaslAuthenticate out of turn".into());
        };
        let respond = |code: i16, message: Option<String>, bytes: Vec<u8>| {
            let response = sas::SaslAuthenticateResponse {
                error_code: code,
                error_message: message,
                auth_bytes: bytes,
                session_lifetime_ms: 0,
            };
            let header_version = i16::from(v >= sas::FLEXIBLE_FROM);
            wire::respond(h.correlation_id, header_version, |w| response.write(w, v))
        };
        let failed = |why: Failure| {
            let message = match why {
                Failure::Told(m) => m,
                Failure::Generic => format!(
                    "Authentication failed during authentication due to invalid credentials with SASL mechanism {mechanism}"
                ),
            };
            let out = respond(
                SASL_AUTHENTICATION_FAILED,
                Some(message.clone()),
                Vec::new(),
            );
            Step::AnswerAndClose(out, message)
        };
        if mechanism == "PLAIN" {
            return match plain(config, &request.auth_bytes) {
                Ok(user) => {
                    *self = Session::Done(format!("User:{user}"));
                    Step::Answer(respond(0, None, Vec::new()))
                }
                Err(why) => failed(why),
            };
        }
        let Some(m) = Scram::from_name(&mechanism) else {
            return Step::Close(format!("Unsupported SASL mechanism {mechanism}"));
        };
        match exchange {
            None => {
                let store = config.scram.read();
                let lookup = |user: &str| store.as_ref().ok().and_then(|s| s.get(user, m));
                let nonce = URL_SAFE_NO_PAD.encode(crate::topics::random_bytes());
                match scram::first(m, &request.auth_bytes, lookup, &nonce) {
                    Ok((exchange, reply)) => {
                        *self = Session::Authenticating(mechanism, Some(exchange));
                        Step::Answer(respond(0, None, reply))
                    }
                    Err(why) => failed(why),
                }
            }
            Some(exchange) => match exchange.last(&request.auth_bytes) {
                Ok((user, reply)) => {
                    *self = Session::Done(format!("User:{user}"));
                    Step::Answer(respond(0, None, reply))
                }
                Err(why) => failed(why),
            },
        }
    }
}

/// Kafka's `PlainSaslServer`: `authzid NUL authcid NUL password`, with its messages.
fn plain(config: &SaslConfig, bytes: &[u8]) -> Result<String, Failure> {
    let text = std::str::from_utf8(bytes).map_err(|_| Failure::Generic)?;
    let tokens: Vec<&str> = text.split('\u{0}').collect();
    let told = |m: &str| Err(Failure::Told(m.to_string()));
    if tokens.len() != 3 {
        return Err(Failure::Told(format!(
            "Invalid SASL/PLAIN response: expected 3 tokens, got {}",
            tokens.len()
        )));
    }
    let (authzid, user, password) = (tokens[0], tokens[1], tokens[2]);
    if user.is_empty() {
        return told("Authentication failed: username not specified");
    }
    if password.is_empty() {
        return told("Authentication failed: password not specified");
    }
    // A constant-time comparison: the time of a refusal says nothing of the password.
    let matches = config.passwords.get(user).is_some_and(|p| {
        p.len() == password.len()
            && p.bytes()
                .zip(password.bytes())
                .fold(0u8, |acc, (a, b)| acc | (a ^ b))
                == 0
    });
    if !matches {
        return told("Authentication failed: Invalid username or password");
    }
    if !authzid.is_empty() && authzid != user {
        return told(
            "Authentication failed: Client requested an authorization id that is different from username",
        );
    }
    Ok(user.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn config(test: &str) -> SaslConfig {
        let dir = std::env::temp_dir().join(format!("sgc-sasl-{}-{test}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let store = Arc::new(RwLock::new(ScramStore::open(&dir).unwrap()));
        let users = BTreeMap::from([("alice".to_string(), "secret".to_string())]);
        SaslConfig::from_users(users, None, store).unwrap()
    }

    #[test]
    fn plain_checks_as_kafka() {
        let c = config("plain");
        assert_eq!(plain(&c, b"\0alice\0secret"), Ok("alice".into()));
        assert_eq!(
            plain(&c, b"\0alice\0wrong"),
            Err(Failure::Told(
                "Authentication failed: Invalid username or password".into()
            ))
        );
        assert!(
            matches!(plain(&c, b"alice\0secret"), Err(Failure::Told(m)) if m.contains("expected 3 tokens, got 2"))
        );
        assert!(
            matches!(plain(&c, b"bob\0alice\0secret"), Err(Failure::Told(m)) if m.contains("authorization id"))
        );
    }

    #[test]
    fn requests_out_of_turn_close_the_connection() {
        let c = config("turn");
        let mut s = Session::default();
        let metadata = [0u8, 3, 0, 12, 0, 0, 0, 1, 0, 0, 0];
        assert!(
            matches!(s.step(&c, &metadata), Step::Close(m) if m.contains("during SASL handshake"))
        );
        let api_versions = [0u8, 18, 0, 3, 0, 0, 0, 1, 0, 0, 0];
        assert!(matches!(s.step(&c, &api_versions), Step::Pass));
        assert!(s.principal().is_none());
    }
}
