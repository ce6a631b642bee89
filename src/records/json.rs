//! The dump-log JSON form of records (PROTOCOL 5.7). STUB: being written.

use super::model::*;
use crate::error::BoundaryError;
use serde_json::Value;

/// `{"key": {"type", "data"}, "value": {"version", "data"} | null}`, plus `keyBytes` /
/// `valueBytes` (base64) when `with_bytes`.
pub fn record_to_json(dialect: Dialect, record: &Record, with_bytes: bool) -> Value {
    let _ = (dialect, record, with_bytes);
    unimplemented!()
}

/// Parses either form (JSON, or `keyBytes`/`valueBytes` alone; both must agree when both are
/// given). `Ok(None)` for records of other kinds, which replay skips. Error paths are relative
/// to `path` (e.g. `records[3]`).
pub fn record_from_json(
    dialect: Dialect,
    value: &Value,
    path: &str,
) -> Result<Option<Record>, BoundaryError> {
    let _ = (dialect, value, path);
    unimplemented!()
}
