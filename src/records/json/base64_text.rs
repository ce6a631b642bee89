//! Base64 read straight from a JSON text (a log's records in the bytes form).

/// Reads the body of a JSON string of base64 (feature `replay-text`): the characters of
/// `text` up to its first `"`, decoded onto the end of `out`; answers how many characters came
/// before the quote, or `None` when they are not exactly a text `STANDARD` accepts (padded,
/// canonical: no bits left over in the last character) or no quote follows (`out` may then
/// hold part of the bytes). Base64 needs no escapes, so the quote ends the string; a `\` is
/// no base64 character. One pass decodes and finds the end (a search for the quote first, then
/// the decoding, cost 2.6% more of a replay): a log replay reads two such strings a record.
#[cfg(feature = "replay-text")]
pub(crate) fn append_base64_string(text: &[u8], out: &mut Vec<u8>) -> Option<usize> {
    /// Marks a byte that is not in the alphabet; valid values are below 64.
    const NONE: u8 = 0xff;
    /// Each byte's value in the standard alphabet.
    const VALUES: [u8; 256] = {
        let alphabet = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
        let mut t = [NONE; 256];
        let mut i = 0;
        while i < alphabet.len() {
            t[alphabet[i] as usize] = i as u8;
            i += 1;
        }
        t
    };
    let value = |c: u8| u32::from(VALUES[usize::from(c)]);
    let mut read = 0;
    // Whole quads of the alphabet, until one is not: the closing quote or a padded last quad.
    let (a, b, c, d) = loop {
        let Some(&[a, b, c, d]) = text.get(read..read + 4) else {
            // Too few characters left for a quad: only the quote may come next.
            return (text.get(read) == Some(&b'"')).then_some(read);
        };
        let (va, vb, vc, vd) = (value(a), value(b), value(c), value(d));
        if (va | vb | vc | vd) >= 64 {
            break (a, b, c, d);
        }
        let n = (va << 18) | (vb << 12) | (vc << 6) | vd;
        out.extend_from_slice(&[(n >> 16) as u8, (n >> 8) as u8, n as u8]);
        read += 4;
    };
    if a == b'"' {
        return Some(read);
    }
    // A padded last quad, then the quote; the bits padding leaves unfilled must be zero.
    let (va, vb) = (value(a), value(b));
    let (len, vc, leftover) = match (c, d) {
        (b'=', b'=') => (1, 0, vb & 0xf),
        (c, b'=') => (2, value(c), value(c) & 0x3),
        _ => return None,
    };
    if (va | vb | vc) >= 64 || leftover != 0 || text.get(read + 4) != Some(&b'"') {
        return None;
    }
    let n = (va << 18) | (vb << 12) | (vc << 6);
    out.extend_from_slice(&[(n >> 16) as u8, (n >> 8) as u8][..len]);
    Some(read + 4)
}
