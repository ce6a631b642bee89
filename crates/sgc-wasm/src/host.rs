//! The host kit (`wire::host`) for a broker written in JS: a request frame routed by its
//! group's `__consumer_offsets` partition, a multi-group request's parts and their answers
//! merged in Kafka's order, the error response of a partition that cannot answer, and
//! `ApiVersions` with the host's own APIs. Frames are `Uint8Array`s without the 4-byte size;
//! what cannot be read throws an `Error` with `code` (`INVALID_FRAME`: Kafka closes the
//! connection) and `path`, as `decodeResponse` does.

use js_sys::{Array, Function, Object, Reflect, Set, Uint8Array};
use wasm_bindgen::prelude::*;

use streams_group_coordinator as sgc;
use streams_group_coordinator::wire::host::{self, Route, SharedApis};
use streams_group_coordinator::{BoundaryCode, BoundaryError};

use super::{from_js, int_in, js_error};

/// `__consumer_offsets` partitions when a call names none, as `partitionFor`.
const DEFAULT_PARTITIONS: i32 = 50;

fn dialect(name: &str) -> Result<sgc::Dialect, JsValue> {
    sgc::Dialect::from_name(name).ok_or_else(|| {
        js_error(&BoundaryError::input(
            "dialect",
            format!("unknown dialect {name:?}: kafka-4.2, kafka-4.3, kafka-4.4 or kip1071-draft"),
        ))
    })
}

fn partitions(value: Option<i32>) -> Result<i32, JsValue> {
    let n = value.unwrap_or(DEFAULT_PARTITIONS);
    if n < 1 {
        return Err(js_error(&BoundaryError::input(
            "partitions",
            "must be at least 1",
        )));
    }
    Ok(n)
}

fn bytes(value: &JsValue, path: &str) -> Result<Vec<u8>, JsValue> {
    value
        .dyn_ref::<Uint8Array>()
        .map(Uint8Array::to_vec)
        .ok_or_else(|| {
            js_error(&BoundaryError::new(
                BoundaryCode::InvalidFrame,
                path,
                "a frame is a Uint8Array",
            ))
        })
}

fn set(object: &Object, key: &str, value: &JsValue) {
    let _ = Reflect::set(object, &key.into(), value);
}

/// Where a request frame goes: `{route, apiKey, apiVersion}`, `route` one of `'apiVersions'`
/// (answer it with `answerApiVersions`), `'group'` (with `groupId` and `partition`: the frame
/// to that partition's coordinator), `'groups'` or `'everyPartition'` (with `parts`, `[{partition,
/// frame}]`: each frame to its partition's coordinator, the answers in the same order to
/// `mergeResponses`), `'host'` (an API of the host's own). Default 50 partitions.
#[wasm_bindgen(js_name = routeRequest)]
pub fn route_request(
    dialect_name: &str,
    frame: JsValue,
    partitions_count: Option<i32>,
) -> Result<JsValue, JsValue> {
    let d = dialect(dialect_name)?;
    let n = partitions(partitions_count)?;
    let frame = bytes(&frame, "frame")?;
    let routed = host::route_request(d, &frame, n).map_err(|e| js_error(&e))?;
    let out = Object::new();
    let parts = |split: host::Split| -> JsValue {
        let list = Array::new();
        for part in split.parts {
            let entry = Object::new();
            set(&entry, "partition", &part.partition.into());
            set(&entry, "frame", &Uint8Array::from(&part.frame[..]).into());
            list.push(&entry);
        }
        list.into()
    };
    let name = match routed.route {
        Route::ApiVersions => "apiVersions",
        Route::Host => "host",
        Route::Group {
            group_id,
            partition,
        } => {
            set(&out, "groupId", &group_id.into());
            set(&out, "partition", &partition.into());
            "group"
        }
        Route::Groups(split) => {
            set(&out, "parts", &parts(split));
            "groups"
        }
        Route::EveryPartition(split) => {
            set(&out, "parts", &parts(split));
            "everyPartition"
        }
    };
    set(&out, "route", &name.into());
    set(&out, "apiKey", &routed.api_key.into());
    set(&out, "apiVersion", &routed.api_version.into());
    Ok(out.into())
}

/// The response frame to a request `routeRequest` split: `responses` (response frames, one per
/// part, in the order of the parts) merged in Kafka's order. Throws for a frame that is not
/// split, a count of responses that is not one per part, or a response that does not read.
#[wasm_bindgen(js_name = mergeResponses)]
pub fn merge_responses(
    dialect_name: &str,
    frame: JsValue,
    partitions_count: Option<i32>,
    responses: JsValue,
) -> Result<Uint8Array, JsValue> {
    let d = dialect(dialect_name)?;
    let n = partitions(partitions_count)?;
    let frame = bytes(&frame, "frame")?;
    let Some(list) = responses.dyn_ref::<Array>() else {
        return Err(js_error(&BoundaryError::input(
            "responses",
            "a list of Uint8Arrays",
        )));
    };
    let answers = (0..list.length())
        .map(|i| bytes(&list.get(i), &format!("responses[{i}]")))
        .collect::<Result<Vec<_>, _>>()?;
    host::merge_responses(d, &frame, n, &answers)
        .map(|merged| Uint8Array::from(&merged[..]))
        .map_err(|e| js_error(&e))
}

/// The response frame answering the request `frame` with `errorCode` for every group it names
/// (every partition of a commit), as Kafka answers for a partition whose coordinator is not
/// available (15) or not here (16). Throws (`INVALID_FRAME`) where Kafka closes the connection.
#[wasm_bindgen(js_name = errorResponse)]
pub fn error_response(
    dialect_name: &str,
    frame: JsValue,
    error_code: JsValue,
) -> Result<Uint8Array, JsValue> {
    let d = dialect(dialect_name)?;
    let frame = bytes(&frame, "frame")?;
    let code = int_in(&error_code, "errorCode", i16::MIN.into(), i16::MAX.into())
        .map_err(|e| js_error(&e))?;
    host::error_response(d, &frame, code as i16)
        .map(|answer| Uint8Array::from(&answer[..]))
        .map_err(|e| js_error(&e))
}

/// Whether a group is one of the host's: its `__consumer_offsets` partition (of `partitions`)
/// is in `owned`, a list or `Set` of partitions or a function of a partition.
#[wasm_bindgen(js_name = isMine)]
pub fn is_mine(
    group_id: &str,
    partitions_count: Option<i32>,
    owned: JsValue,
) -> Result<bool, JsValue> {
    let n = partitions(partitions_count)?;
    let thrown = std::cell::RefCell::new(None);
    let mine = if let Some(f) = owned.dyn_ref::<Function>() {
        host::is_mine(group_id, n, |p| match f.call1(&JsValue::NULL, &p.into()) {
            Ok(v) => v.is_truthy(),
            Err(e) => {
                *thrown.borrow_mut() = Some(e);
                false
            }
        })
    } else if let Some(s) = owned.dyn_ref::<Set>() {
        host::is_mine(group_id, n, |p| s.has(&p.into()))
    } else if let Some(a) = owned.dyn_ref::<Array>() {
        host::is_mine(group_id, n, |p| a.includes(&p.into(), 0))
    } else {
        return Err(js_error(&BoundaryError::input(
            "owned",
            "a list or Set of partitions, or a function of a partition",
        )));
    };
    match thrown.into_inner() {
        Some(e) => Err(e),
        None => Ok(mine),
    }
}

/// The `ApiVersions` response frame to `frame`, listing the dialect's APIs and the host's
/// (`hostApis`, `[{apiKey, minVersion, maxVersion}]`): an API both list at the versions both
/// serve (the host's codec reads the request first), left out when they have none in common.
#[wasm_bindgen(js_name = answerApiVersions)]
pub fn answer_api_versions(
    dialect_name: &str,
    frame: JsValue,
    host_apis: JsValue,
) -> Result<Uint8Array, JsValue> {
    let d = dialect(dialect_name)?;
    let frame = bytes(&frame, "frame")?;
    let apis = if host_apis.is_undefined() || host_apis.is_null() {
        Vec::new()
    } else {
        let value = from_js(&host_apis, "hostApis").map_err(|e| js_error(&e))?;
        host::apis_from_json(&value, "hostApis").map_err(|e| js_error(&e))?
    };
    sgc::wire::answer_api_versions_with(d, &frame, &apis, SharedApis::Intersection)
        .map(|answer| Uint8Array::from(&answer[..]))
        .map_err(|e| js_error(&e))
}
