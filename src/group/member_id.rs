//! Deterministic member ids for joins with an empty member id (PROTOCOL 3.2).

use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine;
use sha2::{Digest, Sha256};

use super::Group;

/// The inputs of the recipe.
pub(crate) struct MemberIdSeed<'a> {
    /// The group's id.
    pub group_id: &'a str,
    /// The group's epoch before this operation (0 for a new group).
    pub group_epoch: i32,
    /// The input's raw `nowMs`.
    pub now_ms: i64,
    /// The request header's client id.
    pub client_id: &'a str,
    /// The client's host.
    pub client_host: &'a str,
    /// The static member's instance id.
    pub instance_id: Option<&'a str>,
}

/// The id for `attempt`: base64url (no padding) of the first 16 bytes of SHA-256(M).
pub(crate) fn candidate(seed: &MemberIdSeed<'_>, attempt: i32) -> ([u8; 16], String) {
    let mut h = Sha256::new();
    let s = |h: &mut Sha256, x: &str| {
        h.update((x.len() as i32).to_be_bytes());
        h.update(x.as_bytes());
    };
    s(&mut h, "sgc-member-id-v1");
    s(&mut h, seed.group_id);
    h.update(seed.group_epoch.to_be_bytes());
    h.update(seed.now_ms.to_be_bytes());
    s(&mut h, seed.client_id);
    s(&mut h, seed.client_host);
    match seed.instance_id {
        Some(i) => s(&mut h, i),
        None => h.update((-1i32).to_be_bytes()),
    }
    h.update(attempt.to_be_bytes());
    let digest = h.finalize();
    let mut bytes = [0u8; 16];
    bytes.copy_from_slice(&digest[..16]);
    let text = URL_SAFE_NO_PAD.encode(bytes);
    (bytes, text)
}

/// A fresh member id that is not reserved and collides with no member of `group`.
pub(crate) fn generate(seed: &MemberIdSeed<'_>, group: Option<&Group>) -> String {
    let mut attempt = 0i32;
    loop {
        let (bytes, text) = candidate(seed, attempt);
        let reserved = bytes == [0u8; 16] || bytes == one();
        let taken = group.is_some_and(|g| g.members.contains_key(&text));
        if !reserved && !text.starts_with('-') && !taken {
            return text;
        }
        attempt = attempt.wrapping_add(1);
    }
}

fn one() -> [u8; 16] {
    let mut b = [0u8; 16];
    b[15] = 1;
    b
}

#[cfg(test)]
mod tests {
    use super::*;
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    fn seed(epoch: i32, instance: Option<&'static str>) -> MemberIdSeed<'static> {
        MemberIdSeed {
            group_id: "g",
            group_epoch: epoch,
            now_ms: 1000,
            client_id: "app-1",
            client_host: "/127.0.0.1",
            instance_id: instance,
        }
    }

    #[test]
    fn protocol_test_vectors() {
        assert_eq!(candidate(&seed(0, None), 0).1, "h1FvL2YoMP32IqCiiHVn2g");
        assert_eq!(candidate(&seed(0, None), 1).1, "XlV9zAM3eLegaLldhh40hA");
        assert_eq!(
            candidate(&seed(1, Some("i-1")), 0).1,
            "VFirxW9dsKeQT98-kG_EdA"
        );
    }

    #[test]
    fn collisions_take_the_next_attempt() {
        let mut g = Group::new("g", crate::records::Dialect::Kip1071Draft);
        g.members.insert(
            "h1FvL2YoMP32IqCiiHVn2g".into(),
            crate::group::Member::new("h1FvL2YoMP32IqCiiHVn2g"),
        );
        assert_eq!(generate(&seed(0, None), Some(&g)), "XlV9zAM3eLegaLldhh40hA");
        assert_eq!(generate(&seed(0, None), None), "h1FvL2YoMP32IqCiiHVn2g");
    }
}
