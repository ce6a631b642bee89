//! A compressed record batch's records: Kafka compresses a batch's records, after its header,
//! as one block (attributes bits 0-2: 1 gzip, 2 snappy in snappy-java's stream framing, 3 the
//! LZ4 frame format, 4 zstd). The decoders are pure Rust, behind the `compressed-logs`
//! feature: the web module leaves them out, for size.

/// Why a batch's records were not decompressed.
pub(super) enum Why {
    /// A codec this build does not read: the segment is refused, with what to do.
    #[cfg_attr(feature = "compressed-logs", allow(dead_code))]
    Unread(String),
    /// The block does not decompress: the batch is damage.
    #[cfg_attr(not(feature = "compressed-logs"), allow(dead_code))]
    Damaged(String),
}

/// The name of compression codec `codec` (attributes bits 0-2).
fn name(codec: i16) -> &'static str {
    match codec {
        1 => "gzip",
        2 => "snappy",
        3 => "lz4",
        4 => "zstd",
        _ => "an unknown codec",
    }
}

#[cfg(not(feature = "compressed-logs"))]
pub(super) fn decompress(codec: i16, _block: &[u8]) -> Result<Vec<u8>, Why> {
    Err(Why::Unread(format!(
        "a compressed record batch ({}): this build reads none (the sgc command does); decompress the segment first, or dump it with kafka-dump-log.sh --offsets-decoder, whose text is read too",
        name(codec)
    )))
}

/// The most bytes a batch's records decompress to: a broker's batches are at most
/// `message.max.bytes` (1 MB by default) compressed; a block that grows past this is damage,
/// not a file to fill memory with.
#[cfg(feature = "compressed-logs")]
const MAX_RECORDS_BYTES: usize = 256 << 20;

/// The records of a batch compressed with `codec`, from the `block` after its header.
#[cfg(feature = "compressed-logs")]
pub(super) fn decompress(codec: i16, block: &[u8]) -> Result<Vec<u8>, Why> {
    use std::io::Read;

    let mut out = Vec::new();
    let limit = MAX_RECORDS_BYTES as u64 + 1;
    let mut all = |r: &mut dyn Read| {
        r.take(limit)
            .read_to_end(&mut out)
            .map_err(|e| e.to_string())
    };
    let read = match codec {
        1 => all(&mut flate2::read::MultiGzDecoder::new(block)),
        2 => snappy_java(block, &mut out),
        3 => all(&mut lz4_flex::frame::FrameDecoder::new(block)),
        4 => ruzstd::decoding::StreamingDecoder::new(block)
            .map_err(|e| e.to_string())
            .and_then(|mut d| all(&mut d)),
        _ => {
            return Err(Why::Damaged(format!(
                "a record batch with compression codec {codec}, which Kafka does not have"
            )))
        }
    };
    let read = read.and_then(|n| {
        if n > MAX_RECORDS_BYTES {
            Err(format!("its records pass {MAX_RECORDS_BYTES} bytes"))
        } else {
            Ok(())
        }
    });
    read.map(|_| out).map_err(|e| {
        Why::Damaged(format!(
            "the record batch's {} block does not decompress: {e}",
            name(codec)
        ))
    })
}

/// snappy-java's stream (`SnappyOutputStream`), as Kafka writes snappy batches: a 16-byte
/// header (magic `\x82SNAPPY\0`, version, compatible version), then blocks of a 4-byte
/// length and raw snappy. A block without that header is raw snappy.
#[cfg(feature = "compressed-logs")]
fn snappy_java(block: &[u8], out: &mut Vec<u8>) -> Result<usize, String> {
    const MAGIC: &[u8] = b"\x82SNAPPY\0";
    let mut decoder = snap::raw::Decoder::new();
    let mut raw = |chunk: &[u8], out: &mut Vec<u8>| -> Result<(), String> {
        let len = snap::raw::decompress_len(chunk).map_err(|e| e.to_string())?;
        if out.len() + len > MAX_RECORDS_BYTES {
            return Err(format!("its records pass {MAX_RECORDS_BYTES} bytes"));
        }
        let from = out.len();
        out.resize(from + len, 0);
        let n = decoder
            .decompress(chunk, out.get_mut(from..).unwrap_or_default())
            .map_err(|e| e.to_string())?;
        out.truncate(from + n);
        Ok(())
    };
    let Some(mut rest) = block.strip_prefix(MAGIC).and_then(|r| r.get(8..)) else {
        raw(block, out)?;
        return Ok(out.len());
    };
    while !rest.is_empty() {
        let (len, tail) = rest
            .split_first_chunk::<4>()
            .ok_or("a block length is cut short")?;
        let len =
            usize::try_from(i32::from_be_bytes(*len)).map_err(|_| "a negative block length")?;
        let chunk = tail.get(..len).ok_or("a block is cut short")?;
        raw(chunk, out)?;
        rest = tail.get(len..).unwrap_or_default();
    }
    Ok(out.len())
}
