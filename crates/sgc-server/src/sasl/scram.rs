//! SCRAM-SHA-256 and SCRAM-SHA-512 (RFC 5802, RFC 7677) as Kafka's `ScramSaslServer` runs
//! them: credentials kept salted (`salt`, `iterations`, `StoredKey`, `ServerKey`, never the
//! password), the client-first message, the server-first with a random nonce, the client's
//! proof checked, the server's signature sent.

use base64::engine::general_purpose::STANDARD;
use base64::Engine;
use hmac::{Hmac, Mac};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256, Sha512};

/// The SCRAM mechanisms, with Kafka's codes (`ScramMechanism`: 1, 2).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
pub enum Scram {
    #[serde(rename = "SCRAM-SHA-256")]
    Sha256,
    #[serde(rename = "SCRAM-SHA-512")]
    Sha512,
}

/// Kafka's default and least iterations of a SCRAM credential.
pub const MIN_ITERATIONS: u32 = 4096;

/// A user's salted credential for one mechanism, as Kafka keeps it (`ScramCredential`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Credential {
    pub salt: Vec<u8>,
    pub iterations: u32,
    pub stored_key: Vec<u8>,
    pub server_key: Vec<u8>,
}

macro_rules! by_hash {
    ($m:expr, $h:ident => $body:expr) => {
        match $m {
            Scram::Sha256 => {
                type $h = Sha256;
                $body
            }
            Scram::Sha512 => {
                type $h = Sha512;
                $body
            }
        }
    };
}

impl Scram {
    pub fn name(self) -> &'static str {
        match self {
            Scram::Sha256 => "SCRAM-SHA-256",
            Scram::Sha512 => "SCRAM-SHA-512",
        }
    }

    pub fn from_name(name: &str) -> Option<Scram> {
        match name {
            "SCRAM-SHA-256" => Some(Scram::Sha256),
            "SCRAM-SHA-512" => Some(Scram::Sha512),
            _ => None,
        }
    }

    fn hmac(self, key: &[u8], data: &[u8]) -> Vec<u8> {
        by_hash!(self, H => {
            let mut mac = <Hmac<H> as Mac>::new_from_slice(key).expect("HMAC takes keys of any size");
            mac.update(data);
            mac.finalize().into_bytes().to_vec()
        })
    }

    fn hash(self, data: &[u8]) -> Vec<u8> {
        by_hash!(self, H => H::digest(data).to_vec())
    }

    /// `Hi(password, salt, iterations)`: PBKDF2 with the mechanism's HMAC.
    fn salted_password(self, password: &str, salt: &[u8], iterations: u32) -> Vec<u8> {
        by_hash!(self, H => {
            let mut out = vec![0u8; <H as Digest>::output_size()];
            pbkdf2::pbkdf2::<Hmac<H>>(password.as_bytes(), salt, iterations, &mut out)
                .expect("HMAC takes keys of any size");
            out
        })
    }

    /// The credential of a salted password (what Kafka's admin sends in
    /// `AlterUserScramCredentials`).
    pub fn credential_from_salted(self, salted: &[u8], salt: &[u8], iterations: u32) -> Credential {
        let client_key = self.hmac(salted, b"Client Key");
        Credential {
            salt: salt.to_vec(),
            iterations,
            stored_key: self.hash(&client_key),
            server_key: self.hmac(salted, b"Server Key"),
        }
    }

    /// The credential of a password.
    pub fn credential(self, password: &str, salt: &[u8], iterations: u32) -> Credential {
        let salted = self.salted_password(password, salt, iterations);
        self.credential_from_salted(&salted, salt, iterations)
    }
}

/// Why an exchange failed: a message Kafka sends as it is (`SaslAuthenticationException`), or
/// one it replaces with its generic "invalid credentials" message (`SaslException`).
#[derive(Debug, PartialEq, Eq)]
pub enum Failure {
    Told(String),
    Generic,
}

/// The exchange after the client-first message: what the server sent and expects back.
pub struct Exchange {
    mechanism: Scram,
    user: String,
    credential: Credential,
    nonce: String,
    client_first_bare: String,
    server_first: String,
}

/// SCRAM's `saslname` decoded: `=2C` is `,` and `=3D` is `=`.
fn sasl_name(text: &str) -> Option<String> {
    let mut out = String::new();
    let mut rest = text;
    while let Some(i) = rest.find('=') {
        out.push_str(&rest[..i]);
        match rest.get(i..i + 3) {
            Some("=2C") => out.push(','),
            Some("=3D") => out.push('='),
            _ => return None,
        }
        rest = &rest[i + 3..];
    }
    out.push_str(rest);
    Some(out)
}

/// Reads the client-first message and answers the server-first: `lookup` gives the user's
/// credential, `server_nonce` the random part of the nonce.
pub fn first(
    mechanism: Scram,
    message: &[u8],
    lookup: impl Fn(&str) -> Option<Credential>,
    server_nonce: &str,
) -> Result<(Exchange, Vec<u8>), Failure> {
    let text = std::str::from_utf8(message).map_err(|_| Failure::Generic)?;
    // gs2 header: "n," (no channel binding), an optional "a=authzid", ","
    let rest = text.strip_prefix("n,").ok_or(Failure::Generic)?;
    let (authzid, bare) = rest.split_once(',').ok_or(Failure::Generic)?;
    let mut user = None;
    let mut client_nonce = None;
    for part in bare.split(',') {
        if let Some(n) = part.strip_prefix("n=") {
            user = sasl_name(n);
        } else if let Some(r) = part.strip_prefix("r=") {
            client_nonce = Some(r.to_string());
        }
    }
    let (Some(user), Some(client_nonce)) = (user, client_nonce) else {
        return Err(Failure::Generic);
    };
    if let Some(a) = authzid.strip_prefix("a=") {
        if !a.is_empty() && sasl_name(a).as_deref() != Some(user.as_str()) {
            return Err(Failure::Told(
                "Authentication failed: Client requested an authorization id that is different from username".into(),
            ));
        }
    }
    let credential = lookup(&user).ok_or(Failure::Generic)?;
    let nonce = format!("{client_nonce}{server_nonce}");
    let server_first = format!(
        "r={nonce},s={},i={}",
        STANDARD.encode(&credential.salt),
        credential.iterations
    );
    let reply = server_first.clone().into_bytes();
    Ok((
        Exchange {
            mechanism,
            user,
            credential,
            nonce,
            client_first_bare: bare.to_string(),
            server_first,
        },
        reply,
    ))
}

impl Exchange {
    /// Reads the client-final message: the user and the server-final message when the proof
    /// holds.
    pub fn last(self, message: &[u8]) -> Result<(String, Vec<u8>), Failure> {
        let text = std::str::from_utf8(message).map_err(|_| Failure::Generic)?;
        let (without_proof, proof) = text.rsplit_once(",p=").ok_or(Failure::Generic)?;
        let nonce = without_proof
            .split(',')
            .find_map(|p| p.strip_prefix("r="))
            .ok_or(Failure::Generic)?;
        if nonce != self.nonce {
            return Err(Failure::Generic);
        }
        let proof = STANDARD.decode(proof).map_err(|_| Failure::Generic)?;
        let auth_message = format!(
            "{},{},{}",
            self.client_first_bare, self.server_first, without_proof
        );
        let m = self.mechanism;
        let signature = m.hmac(&self.credential.stored_key, auth_message.as_bytes());
        if proof.len() != signature.len() {
            return Err(Failure::Generic);
        }
        let client_key: Vec<u8> = proof.iter().zip(&signature).map(|(a, b)| a ^ b).collect();
        if m.hash(&client_key) != self.credential.stored_key {
            return Err(Failure::Generic);
        }
        let server_signature = m.hmac(&self.credential.server_key, auth_message.as_bytes());
        let reply = format!("v={}", STANDARD.encode(server_signature)).into_bytes();
        Ok((self.user, reply))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// RFC 7677's example exchange (SCRAM-SHA-256, user `user`, password `pencil`).
    #[test]
    fn the_rfc_7677_exchange() {
        let salt = STANDARD.decode("W22ZaJ0SNY7soEsUEjb6gQ==").unwrap();
        let credential = Scram::Sha256.credential("pencil", &salt, 4096);
        let lookup = |u: &str| (u == "user").then(|| credential.clone());
        let (exchange, reply) = first(
            Scram::Sha256,
            b"n,,n=user,r=rOprNGfwEbeRWgbNEkqO",
            lookup,
            "%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0",
        )
        .unwrap();
        assert_eq!(
            String::from_utf8(reply).unwrap(),
            "r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,s=W22ZaJ0SNY7soEsUEjb6gQ==,i=4096"
        );
        let (user, last) = exchange
            .last(b"c=biws,r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,p=dHzbZapWIk4jUhN+Ute9ytag9zjfMHgsqmmiz7AndVQ=")
            .unwrap();
        assert_eq!(user, "user");
        assert_eq!(
            String::from_utf8(last).unwrap(),
            "v=6rriTRBi23WpRR/wtup+mMhUZUn/dB5nLTJRsjl95G4="
        );
    }

    #[test]
    fn a_wrong_proof_or_unknown_user_fails_generically() {
        let credential = Scram::Sha512.credential("secret", b"salt", 4096);
        let lookup = |u: &str| (u == "alice").then(|| credential.clone());
        assert!(matches!(
            first(Scram::Sha512, b"n,,n=bob,r=abc", lookup, "xyz"),
            Err(Failure::Generic)
        ));
        let (exchange, _) = first(Scram::Sha512, b"n,,n=alice,r=abc", lookup, "xyz").unwrap();
        let bad = format!("c=biws,r=abcxyz,p={}", STANDARD.encode([0u8; 64]));
        assert_eq!(exchange.last(bad.as_bytes()).unwrap_err(), Failure::Generic);
        assert!(matches!(
            first(Scram::Sha512, b"n,a=bob,n=alice,r=abc", lookup, "xyz"),
            Err(Failure::Told(_))
        ));
    }
}
