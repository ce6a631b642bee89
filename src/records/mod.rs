//! Coordinator records: typed values, Kafka's binary encoding and the dump-log JSON form.

pub mod batch;
pub mod build;
pub mod codec;
#[cfg(feature = "replay-text")]
pub(crate) mod in_place;
pub mod json;
pub mod model;
mod wire;

#[cfg(test)]
mod tests;

pub use codec::{decode_key, decode_value, encode_key, encode_value, encoded_size, DecodeError};
pub(crate) use json::{record_from_bytes_at, record_from_json_at};
pub use json::{record_from_json, record_to_json};
pub use model::*;
