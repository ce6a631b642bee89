//! TLS listeners (`SSL`, `SASL_SSL`) with rustls: the server's certificate chain and key from a
//! PEM key store (Kafka's `ssl.keystore.type=PEM`), client certificates checked against a PEM
//! trust store when `ssl.client.auth` asks for them, and Kafka's principal of a certificate:
//! `User:` and its subject as Java's `X500Principal.getName()` writes it (RFC 2253: the most
//! specific name first, `CN=alice,OU=eng,O=corp`), as Kafka's `DefaultKafkaPrincipalBuilder`.

use std::path::Path;
use std::sync::Arc;

use tokio_rustls::rustls::pki_types::{CertificateDer, PrivateKeyDer};
use tokio_rustls::rustls::server::WebPkiClientVerifier;
use tokio_rustls::rustls::{RootCertStore, ServerConfig};
use tokio_rustls::TlsAcceptor;
use x509_parser::der_parser::asn1_rs::ToDer;

/// Kafka's `ssl.client.auth`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ClientAuth {
    None,
    Requested,
    Required,
}

/// A TLS listener's settings.
#[derive(Clone, Debug)]
pub struct TlsOptions {
    /// `ssl.keystore.location`: the certificate chain and the private key, PEM.
    pub keystore: std::path::PathBuf,
    /// `ssl.truststore.location`: the certificates of the authorities clients' certificates
    /// are checked against, PEM.
    pub truststore: Option<std::path::PathBuf>,
    pub client_auth: ClientAuth,
}

fn pem_items(path: &Path) -> Result<Vec<rustls_pemfile::Item>, String> {
    let bytes = std::fs::read(path).map_err(|e| format!("{}: {e}", path.display()))?;
    rustls_pemfile::read_all(&mut bytes.as_slice())
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| format!("{}: {e}", path.display()))
}

/// The acceptor of a TLS listener.
pub fn acceptor(o: &TlsOptions) -> Result<TlsAcceptor, String> {
    let mut chain: Vec<CertificateDer<'static>> = Vec::new();
    let mut key: Option<PrivateKeyDer<'static>> = None;
    for item in pem_items(&o.keystore)? {
        match item {
            rustls_pemfile::Item::X509Certificate(c) => chain.push(c),
            rustls_pemfile::Item::Pkcs8Key(k) => key = Some(k.into()),
            rustls_pemfile::Item::Pkcs1Key(k) => key = Some(k.into()),
            rustls_pemfile::Item::Sec1Key(k) => key = Some(k.into()),
            _ => {}
        }
    }
    let where_ = o.keystore.display();
    let key = key.ok_or(format!("{where_}: no private key"))?;
    if chain.is_empty() {
        return Err(format!("{where_}: no certificate"));
    }
    // ring rather than aws-lc-rs, rustls' default, whose build needs cmake and a C toolchain;
    // rustls marks ring's provider deprecated for its lack of post-quantum key exchange, which
    // Kafka's clients do not offer either.
    #[allow(deprecated)]
    let provider = Arc::new(tokio_rustls::rustls::crypto::ring::default_provider());
    let builder = ServerConfig::builder_with_provider(provider.clone())
        .with_safe_default_protocol_versions()
        .map_err(|e| e.to_string())?;
    let builder = match (o.client_auth, &o.truststore) {
        (ClientAuth::None, _) => builder.with_no_client_auth(),
        (_, None) => return Err("ssl.client.auth needs --ssl-truststore-location".into()),
        (auth, Some(path)) => {
            let mut roots = RootCertStore::empty();
            for item in pem_items(path)? {
                if let rustls_pemfile::Item::X509Certificate(c) = item {
                    roots
                        .add(c)
                        .map_err(|e| format!("{}: {e}", path.display()))?;
                }
            }
            let verifier = WebPkiClientVerifier::builder_with_provider(Arc::new(roots), provider);
            let verifier = if auth == ClientAuth::Requested {
                verifier.allow_unauthenticated()
            } else {
                verifier
            };
            builder.with_client_cert_verifier(verifier.build().map_err(|e| e.to_string())?)
        }
    };
    let config = builder
        .with_single_cert(chain, key)
        .map_err(|e| format!("{where_}: {e}"))?;
    Ok(TlsAcceptor::from(Arc::new(config)))
}

/// The keywords Java's `X500Principal` writes in RFC 2253 form; other attributes are written
/// as their dotted OID.
fn keyword(oid: &str) -> Option<&'static str> {
    Some(match oid {
        "2.5.4.3" => "CN",
        "2.5.4.6" => "C",
        "2.5.4.7" => "L",
        "2.5.4.8" => "ST",
        "2.5.4.10" => "O",
        "2.5.4.11" => "OU",
        "2.5.4.9" => "STREET",
        "0.9.2342.19200300.100.1.25" => "DC",
        "0.9.2342.19200300.100.1.1" => "UID",
        _ => return None,
    })
}

/// RFC 2253's escaping of an attribute value.
fn escape(value: &str) -> String {
    let mut out = String::new();
    let last = value.chars().count().saturating_sub(1);
    for (i, c) in value.chars().enumerate() {
        let special = matches!(c, ',' | '+' | '"' | '\\' | '<' | '>' | ';')
            || (i == 0 && (c == '#' || c == ' '))
            || (i == last && c == ' ');
        if special {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

/// Kafka's principal of a client certificate (DER): `User:` and its subject in RFC 2253 form.
pub fn principal(cert: &[u8]) -> Option<String> {
    let (_, cert) = x509_parser::parse_x509_certificate(cert).ok()?;
    let rdns: Vec<String> = cert
        .subject()
        .iter_rdn()
        .map(|rdn| {
            rdn.iter()
                .map(|a| {
                    let oid = a.attr_type().to_id_string();
                    let value = a.as_str().map(escape).unwrap_or_else(|_| {
                        let hex: String = a
                            .attr_value()
                            .to_der_vec()
                            .unwrap_or_default()
                            .iter()
                            .map(|b| format!("{b:02x}"))
                            .collect();
                        format!("#{hex}")
                    });
                    match keyword(&oid) {
                        Some(k) => format!("{k}={value}"),
                        None => format!("{oid}={value}"),
                    }
                })
                .collect::<Vec<_>>()
                .join("+")
        })
        .collect();
    let name: Vec<String> = rdns.into_iter().rev().collect();
    Some(format!("User:{}", name.join(",")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_are_escaped_as_rfc_2253_asks() {
        assert_eq!(escape("a,b"), "a\\,b");
        assert_eq!(escape(" lead"), "\\ lead");
        assert_eq!(escape("trail "), "trail\\ ");
        assert_eq!(escape("#x"), "\\#x");
        assert_eq!(escape("plain"), "plain");
    }
}
