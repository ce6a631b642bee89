//! The wasm-bindgen surface for Node and the browser (DESIGN 5): the npm package's module.
//!
//! `handle` takes a JS object or a JSON string and answers in kind: a string gets exactly the
//! JSON text the CLI prints; an object gets an object, whose integers beyond 2^53 are `BigInt`s.
//! Inputs that cannot be understood answer `{error: {code, message, path}}` like the CLI;
//! the other methods, which have no output shape, throw an `Error` carrying `code` and `path`.
//! `handleRequest` is the wire face: Kafka's request frames in, the response frame out with the
//! same other fields as `handle`, and `{error}` (never a throw) for bytes it cannot take.
//!
//! It uses only the core's public API. The binding exists only on `wasm32-unknown-unknown`;
//! elsewhere this crate is empty.
#![cfg(all(target_arch = "wasm32", target_os = "unknown"))]

use js_sys::{Array, BigInt, Object, Reflect};
use serde_json::Value;
use wasm_bindgen::prelude::*;

use streams_group_coordinator as sgc;
use streams_group_coordinator::api::{self, boundary_error_json, Input};
use streams_group_coordinator::topology::Subtopology;
use streams_group_coordinator::wire;
#[cfg(feature = "broker")]
use streams_group_coordinator::wire::authz::{AclOperation, Authorizer, Decisions, ResourceType};
#[cfg(feature = "broker")]
use streams_group_coordinator::wire::Peer;
use streams_group_coordinator::{BoundaryCode, BoundaryError};

#[cfg(feature = "broker")]
mod host;

const MAX_SAFE_INTEGER: i64 = 9_007_199_254_740_991;

/// A thrown `Error` with the boundary error's `code` and `path`.
fn js_error(e: &BoundaryError) -> JsValue {
    let err = js_sys::Error::new(&e.message);
    let code = serde_json::to_value(e.code)
        .ok()
        .and_then(|v| v.as_str().map(String::from))
        .unwrap_or_default();
    let _ = Reflect::set(&err, &"code".into(), &code.into());
    let _ = Reflect::set(&err, &"path".into(), &e.path.clone().into());
    err.into()
}

/// A JS value (object or JSON text) as JSON.
fn from_js(value: &JsValue, path: &str) -> Result<Value, BoundaryError> {
    if let Some(text) = value.as_string() {
        return api::json_tree(&text, path);
    }
    // Checked as it is built: a JS list of a billion holes, or a list named a million times, is
    // refused at the limits instead of exhausting the module's memory.
    api::tree_from(serde_wasm_bindgen::Deserializer::from(value.clone()), path)
}

/// Whether `value` holds an integer that a JS number cannot hold exactly.
fn has_big_integer(value: &Value) -> bool {
    match value {
        Value::Number(n) => n.as_i64().map_or(n.as_u64().is_some(), |i| {
            !(-MAX_SAFE_INTEGER..=MAX_SAFE_INTEGER).contains(&i)
        }),
        Value::Array(items) => items.iter().any(has_big_integer),
        Value::Object(map) => map.values().any(has_big_integer),
        _ => false,
    }
}

/// Whether `text` has a run of 16 or more digits: the only way it can hold an integer beyond
/// 2^53 (a run inside a string only sends the output the slower exact way). Any such run covers
/// one of every 16th byte, so only those are looked at, and the run around a digit measured: a
/// few dozen looks for a heartbeat's output instead of a test of every byte.
fn has_long_digit_run(text: &str) -> bool {
    let bytes = text.as_bytes();
    let digit = |at: usize| bytes.get(at).is_some_and(u8::is_ascii_digit);
    let mut at = 15;
    while at < bytes.len() {
        if digit(at) {
            let (mut start, mut end) = (at, at + 1);
            while start > 0 && digit(start - 1) {
                start -= 1;
            }
            while digit(end) {
                end += 1;
            }
            if end - start >= 16 {
                return true;
            }
        }
        at += 16;
    }
    false
}

/// JSON as a plain JS value; `JSON.parse` of the text is the fast path, used unless an integer
/// beyond 2^53 needs a `BigInt`.
fn to_js(value: &Value) -> JsValue {
    if !has_big_integer(value) {
        if let Ok(v) = js_sys::JSON::parse(&value.to_string()) {
            return v;
        }
    }
    to_js_walk(value)
}

/// [`to_js`] of JSON text the core wrote. Outputs and snapshots are serialised to text only, as
/// for `handle(string)`, so their serialisation code is in the module once (not once more into
/// a `Value`); the text parses back to the very `Value` that `serde_json::to_value` builds.
fn text_to_js(text: &str) -> JsValue {
    let value: Value = serde_json::from_str(text).unwrap_or(Value::Null);
    if !has_big_integer(&value) {
        if let Ok(v) = js_sys::JSON::parse(text) {
            return v;
        }
    }
    to_js_walk(&value)
}

/// JSON as a plain JS value, built node by node: `BigInt` beyond 2^53.
fn to_js_walk(value: &Value) -> JsValue {
    match value {
        Value::Null => JsValue::NULL,
        Value::Bool(b) => JsValue::from_bool(*b),
        Value::Number(n) => {
            if let Some(i) = n.as_i64() {
                if (-MAX_SAFE_INTEGER..=MAX_SAFE_INTEGER).contains(&i) {
                    JsValue::from_f64(i as f64)
                } else {
                    BigInt::from(i).into()
                }
            } else if let Some(u) = n.as_u64() {
                BigInt::from(u).into()
            } else {
                JsValue::from_f64(n.as_f64().unwrap_or(f64::NAN))
            }
        }
        Value::String(s) => JsValue::from_str(s),
        Value::Array(items) => {
            let array = Array::new();
            for item in items {
                array.push(&to_js_walk(item));
            }
            array.into()
        }
        Value::Object(map) => {
            let object = Object::new();
            for (k, v) in map {
                let _ = Reflect::set(&object, &JsValue::from_str(k), &to_js_walk(v));
            }
            object.into()
        }
    }
}

/// The coordinator, as a JS class.
#[wasm_bindgen(js_name = Coordinator)]
pub struct JsCoordinator {
    inner: sgc::Coordinator,
    /// What `handleRequest` keeps from one frame to the next.
    #[cfg(feature = "broker")]
    frames: Frames,
}

/// `handleRequest`'s buffers, reused: the decoded request, the frame copied out of JS, the
/// response frame, the output's text and the client's address.
#[cfg(feature = "broker")]
#[derive(Default)]
struct Frames {
    scratch: wire::FrameScratch,
    request: Vec<u8>,
    response: Vec<u8>,
    text: Vec<u8>,
    peer: Peer,
}

#[wasm_bindgen(js_class = Coordinator)]
impl JsCoordinator {
    /// `new Coordinator(config?)`: settings with Kafka's names, as an object or JSON text.
    #[wasm_bindgen(constructor)]
    pub fn new(config: JsValue) -> Result<JsCoordinator, JsValue> {
        let config = if config.is_undefined() || config.is_null() {
            Value::Null
        } else {
            from_js(&config, "").map_err(|e| {
                js_error(&BoundaryError::new(
                    BoundaryCode::InvalidConfig,
                    e.path,
                    e.message,
                ))
            })?
        };
        sgc::Coordinator::from_json_config(&config)
            .map(|inner| JsCoordinator {
                inner,
                #[cfg(feature = "broker")]
                frames: Frames::default(),
            })
            .map_err(|e| js_error(&e))
    }

    /// Handles one input; answers a string for a string and an object for an object.
    pub fn handle(&mut self, input: JsValue) -> JsValue {
        if let Some(text) = input.as_string() {
            return JsValue::from_str(&self.inner.handle_json(&text));
        }
        let config = self.inner.config().clone();
        match from_js(&input, "")
            .and_then(|v| Input::from_value(&v))
            .and_then(|i| self.inner.handle(i))
        {
            Ok(o) => text_to_js(&o.to_json_string(config.dialect, config.record_bytes)),
            Err(e) => to_js(&boundary_error_json(&e)),
        }
    }

    /// `handle` of JSON text, as the wrapper (js/api.mjs) sends strings: taken and answered as
    /// Rust strings, which wasm-bindgen copies once each way (a `JsValue` string costs one more
    /// call and copy to read).
    #[wasm_bindgen(js_name = handleText)]
    pub fn handle_text(&mut self, text: &str) -> String {
        self.inner.handle_json(text)
    }

    /// `handle` of the JSON text the wrapper (js/api.mjs) wrote into the module's input buffer
    /// ([`input_buffer`]): its first `len` bytes. The output stays in the module until the next
    /// call ([`last_output`], [`last_output_object`]); the answer is where it lies, packed in
    /// one number as `address + length * 2^32` (exact below 2^53), or -1 for an output of 2^21
    /// bytes or more, which the wrapper then reads with [`last_output`]. This way a string
    /// crosses with one export call and no copy in JS (the glue of `handleText` writes the input
    /// a UTF-16 unit at a time and makes three calls).
    #[cfg(feature = "speed")]
    #[wasm_bindgen(js_name = handleBuffered)]
    pub fn handle_buffered(&mut self, len: usize) -> f64 {
        let output = buffered::with_input(len, |text| self.inner.handle_json(text));
        buffered::keep_output(output)
    }

    /// `handle` of an object input that the wrapper (js/api.mjs) checked to be plain JSON and
    /// sent as its JSON text: answers the output text for the wrapper's `JSON.parse`, or the
    /// output as an object when it may hold an integer beyond 2^53 (which needs a `BigInt`).
    #[wasm_bindgen(js_name = handleJsonObject)]
    pub fn handle_json_object(&mut self, text: &str) -> JsValue {
        let output = self.inner.handle_json(text);
        if !has_long_digit_run(&output) {
            return JsValue::from_str(&output);
        }
        text_to_js(&output)
    }

    /// Applies records (dump-log JSON form, or `keyBytes`/`valueBytes`) at `nowMs`, as a
    /// `Replay` input: due timers fire first, and the output (their records) is returned as an
    /// object; throws when a record cannot be applied, and then nothing changed.
    pub fn replay(&mut self, records: JsValue, now_ms: Option<f64>) -> Result<JsValue, JsValue> {
        let records = from_js(&records, "records").map_err(|e| js_error(&e))?;
        let now = now_ms.unwrap_or(self.inner.now_ms() as f64);
        if !(now.is_finite() && now >= 0.0 && now.fract() == 0.0 && now <= MAX_SAFE_INTEGER as f64)
        {
            return Err(js_error(&BoundaryError::input(
                "nowMs",
                "must be a non-negative integer",
            )));
        }
        let input = serde_json::json!({"nowMs": now as i64, "type": "Replay", "records": records});
        let input = Input::from_value(&input).map_err(|e| js_error(&e))?;
        let config = self.inner.config().clone();
        self.inner
            .handle(input)
            .map(|o| text_to_js(&o.to_json_string(config.dialect, config.record_bytes)))
            .map_err(|e| js_error(&e))
    }

    /// Handles one Kafka request frame (header and body, without the 4-byte size) at `nowMs`
    /// from `clientHost` (Kafka's form, `/10.0.0.1`; default none): `{response, records,
    /// topicsToCreate, explain, nextDeadlineMs}`, `response` the response frame (a
    /// `Uint8Array`, without the size) and the other fields as `handle(object)` gives them; or
    /// `{error}` for what it cannot take (`INVALID_FRAME`: a frame Kafka closes the connection
    /// on), and then nothing changed. It never throws.
    ///
    /// `options.authorize` puts the frame behind Kafka's authorization
    /// (`wire::handle_frame_authorized`, docs/authorization.md): the request's principal is
    /// allowed what a callback `(operation, resourceType, name) => boolean` answers `true` to
    /// (Kafka's names, `'READ'`, `'GROUP'`; anything else, a throw included, denies), or what
    /// an allow-list grants (the `Decisions` JSON form, an object or JSON text; one that does
    /// not read answers `{error}`, `INVALID_INPUT` at `options.authorize`).
    #[cfg(feature = "broker")]
    #[wasm_bindgen(js_name = handleRequest)]
    pub fn handle_request(
        &mut self,
        frame: JsValue,
        now_ms: JsValue,
        client_host: JsValue,
        options: JsValue,
    ) -> JsValue {
        match self.frame_output(&frame, &now_ms, &client_host, &options) {
            Ok(v) => v,
            Err(e) => to_js(&boundary_error_json(&e)),
        }
    }

    #[cfg(feature = "broker")]
    fn frame_output(
        &mut self,
        frame: &JsValue,
        now_ms: &JsValue,
        client_host: &JsValue,
        options: &JsValue,
    ) -> Result<JsValue, BoundaryError> {
        let frame = frame.dyn_ref::<js_sys::Uint8Array>().ok_or_else(|| {
            BoundaryError::new(BoundaryCode::InvalidFrame, "", "a frame is a Uint8Array")
        })?;
        let now_ms = int64(now_ms, "nowMs")?;
        let authorizer = js_authorizer(options)?;
        let frames = &mut self.frames;
        frames.peer.client_host.clear();
        if !(client_host.is_undefined() || client_host.is_null()) {
            let host = client_host
                .as_string()
                .ok_or_else(|| BoundaryError::input("clientHost", "must be a string"))?;
            frames.peer.client_host = host;
        }
        // The frame is copied out of JS memory into the kept buffer.
        frames.request.resize(frame.length() as usize, 0);
        frame.copy_to(&mut frames.request);
        let output = match &authorizer {
            None => wire::handle_frame_with(
                &mut self.inner,
                &mut frames.scratch,
                &frames.request,
                now_ms,
                &frames.peer,
                &mut frames.response,
            ),
            Some(authorizer) => wire::handle_frame_authorized(
                &mut self.inner,
                &mut frames.scratch,
                &frames.request,
                now_ms,
                &frames.peer,
                &mut frames.response,
                wire::Broker {
                    topics: None,
                    authorizer: authorizer.as_ref(),
                },
            ),
        }?;
        let config = self.inner.config();
        // `response` keeps its place, first, as in `handle`'s output; the other fields are
        // written as text, as `handle`'s are.
        let text = &mut frames.text;
        text.clear();
        text.extend_from_slice(b"{\"response\":null");
        let at = text.len();
        if !output.append_fields_json(config.dialect, config.record_bytes, text) {
            return Err(BoundaryError::input(
                "",
                "the output could not be written as JSON",
            ));
        }
        // The fields' own object opens with `{`: it becomes the comma after `response`.
        if let Some(open) = text.get_mut(at) {
            *open = b',';
        }
        let object = text_to_js(std::str::from_utf8(text).unwrap_or("null"));
        let response = js_sys::Uint8Array::from(&frames.response[..]);
        let _ = Reflect::set(&object, &"response".into(), &response);
        Ok(object)
    }

    /// The request frame (without the 4-byte size) a client sends for an input of this
    /// coordinator's dialect (an object or JSON text; `nowMs` may be left out) at `apiVersion`
    /// with `correlationId`; `null` for an input that is no request the dialect serves at that
    /// version. Throws for an input it cannot understand.
    #[wasm_bindgen(js_name = encodeRequest)]
    pub fn encode_request(
        &self,
        input: JsValue,
        api_version: JsValue,
        correlation_id: JsValue,
    ) -> Result<Option<js_sys::Uint8Array>, JsValue> {
        let mut value = from_js(&input, "").map_err(|e| js_error(&e))?;
        if let Value::Object(map) = &mut value {
            map.entry("nowMs").or_insert(Value::from(0));
        }
        let input = Input::from_value(&value).map_err(|e| js_error(&e))?;
        let version = int_in(&api_version, "apiVersion", i16::MIN.into(), i16::MAX.into())
            .map_err(|e| js_error(&e))?;
        let correlation = int_in(
            &correlation_id,
            "correlationId",
            i32::MIN.into(),
            i32::MAX.into(),
        )
        .map_err(|e| js_error(&e))?;
        let dialect = self.inner.config().dialect;
        Ok(
            wire::encode_request(dialect, &input.kind, version as i16, correlation as i32)
                .map(|frame| js_sys::Uint8Array::from(&frame[..])),
        )
    }

    /// A response frame (without the 4-byte size) of API `apiKey` at `apiVersion`, read as
    /// `{correlationId, response}`, the response in Kafka's JSON form of the message (the
    /// schema's field names, first letter lower case). Throws (`INVALID_FRAME`) for bytes that
    /// do not read.
    #[cfg(feature = "wire-json")]
    #[wasm_bindgen(js_name = decodeResponse)]
    pub fn decode_response(
        &self,
        api_key: JsValue,
        api_version: JsValue,
        frame: JsValue,
    ) -> Result<JsValue, JsValue> {
        let read = || {
            let key = int_in(&api_key, "apiKey", i16::MIN.into(), i16::MAX.into())?;
            let version = int_in(&api_version, "apiVersion", i16::MIN.into(), i16::MAX.into())?;
            let frame = frame.dyn_ref::<js_sys::Uint8Array>().ok_or_else(|| {
                BoundaryError::new(BoundaryCode::InvalidFrame, "", "a frame is a Uint8Array")
            })?;
            let dialect = self.inner.config().dialect;
            wire::response_json(dialect, key as i16, version as i16, &frame.to_vec())
        };
        let (correlation_id, response) = read().map_err(|e| js_error(&e))?;
        Ok(to_js(
            &serde_json::json!({"correlationId": correlation_id, "response": response}),
        ))
    }

    /// The APIs this coordinator's dialect serves on the wire, as its `ApiVersions` answers
    /// them: `[{apiKey, name, minVersion, maxVersion}]`.
    #[wasm_bindgen(js_name = servedApis)]
    pub fn served_apis(&self) -> JsValue {
        let apis: Vec<Value> = wire::served(self.inner.config().dialect)
            .iter()
            .map(|a| {
                serde_json::json!({
                    "apiKey": a.key,
                    "name": a.name,
                    "minVersion": a.min,
                    "maxVersion": a.max,
                })
            })
            .collect();
        to_js(&Value::Array(apis))
    }

    /// Every group as describe shows it, plus pending timers and the topic image.
    pub fn snapshot(&self) -> JsValue {
        text_to_js(&serde_json::to_string(&self.inner.snapshot()).unwrap_or_default())
    }

    /// The topology id of a topology (a list of subtopologies, as an object or JSON text).
    #[wasm_bindgen(js_name = topologyId)]
    pub fn topology_id(topology: JsValue) -> Result<String, JsValue> {
        topology_id(topology)
    }

    /// The `__consumer_offsets` partition of a group (default 50 partitions).
    #[wasm_bindgen(js_name = partitionFor)]
    pub fn partition_for(group_id: &str, partitions: Option<i32>) -> Result<i32, JsValue> {
        partition_for(group_id, partitions)
    }

    pub fn version() -> String {
        sgc::version().to_string()
    }
}

/// An integer argument between `min` and `max`: a JS number (an integer) or a `BigInt`.
fn int_in(value: &JsValue, path: &str, min: i64, max: i64) -> Result<i64, BoundaryError> {
    let n = if let Some(f) = value.as_f64() {
        (f.is_finite() && f.fract() == 0.0 && f.abs() <= MAX_SAFE_INTEGER as f64)
            .then_some(f as i64)
    } else if value.is_bigint() {
        i64::try_from(value.clone()).ok()
    } else {
        None
    };
    n.filter(|n| (min..=max).contains(n)).ok_or_else(|| {
        BoundaryError::input(path, format!("must be an integer from {min} to {max}"))
    })
}

/// The authorizer of `handleRequest`'s `options.authorize` (`None`: no options, or no
/// `authorize`): a JS callback asked with Kafka's names, or an allow-list (`Decisions`).
#[cfg(feature = "broker")]
fn js_authorizer(options: &JsValue) -> Result<Option<Box<dyn Authorizer>>, BoundaryError> {
    const PATH: &str = "options.authorize";
    if options.is_undefined() || options.is_null() {
        return Ok(None);
    }
    if !options.is_object() {
        return Err(BoundaryError::input("options", "must be an object"));
    }
    let authorize = Reflect::get(options, &"authorize".into())
        .map_err(|_| BoundaryError::input(PATH, "could not be read"))?;
    if authorize.is_undefined() || authorize.is_null() {
        return Ok(None);
    }
    if let Some(callback) = authorize.dyn_ref::<js_sys::Function>() {
        let callback = callback.clone();
        // Only `true` allows: any other answer, or a throw, denies (Kafka's authorizers fail
        // closed).
        let ask = move |op: AclOperation, resource: ResourceType, name: &str| {
            callback
                .call3(
                    &JsValue::NULL,
                    &op.name().into(),
                    &resource.name().into(),
                    &name.into(),
                )
                .is_ok_and(|answer| answer.as_bool() == Some(true))
        };
        return Ok(Some(Box::new(ask)));
    }
    let text = match authorize.as_string() {
        Some(text) => text,
        None if authorize.is_object() => from_js(&authorize, PATH)?.to_string(),
        None => {
            return Err(BoundaryError::input(
                PATH,
                "must be a function (operation, resourceType, name) => boolean or the decisions (an object or JSON text)",
            ))
        }
    };
    let decisions = Decisions::from_json(&text).map_err(|e| BoundaryError::input(PATH, e))?;
    Ok(Some(Box::new(decisions)))
}

/// A non-negative 64-bit integer argument (a number or a `BigInt`), such as `nowMs`.
#[cfg(feature = "broker")]
fn int64(value: &JsValue, path: &str) -> Result<i64, BoundaryError> {
    int_in(value, path, 0, i64::MAX)
        .map_err(|_| BoundaryError::input(path, "must be a non-negative integer"))
}

/// The reusable input buffer and the last output of [`JsCoordinator::handle_buffered`]: one
/// for the module, so that no coordinator's `free()` can leave the wrapper a dangling buffer.
#[cfg(feature = "speed")]
mod buffered {
    use std::cell::RefCell;

    use streams_group_coordinator::api::boundary_error_json;
    use streams_group_coordinator::BoundaryError;

    /// Outputs from 2^21 bytes on do not fit the packed answer (address + length * 2^32 must
    /// stay below 2^53).
    const MAX_PACKED_LEN: usize = (1 << 21) - 1;

    thread_local! {
        static INPUT: RefCell<Vec<u8>> = const { RefCell::new(Vec::new()) };
        static OUTPUT: RefCell<String> = const { RefCell::new(String::new()) };
    }

    /// The input buffer, made `len` bytes long; its address, or 0 when memory is exhausted.
    pub fn resize(len: usize) -> usize {
        INPUT.with(|cell| match cell.try_borrow_mut() {
            Ok(mut buf) => {
                let extra = len.saturating_sub(buf.len());
                if extra > 0 && buf.try_reserve_exact(extra).is_err() {
                    return 0;
                }
                buf.resize(len, 0);
                buf.shrink_to_fit();
                buf.as_ptr() as usize
            }
            Err(_) => 0,
        })
    }

    /// `f` of the first `len` bytes of the input buffer as text, or the boundary error's JSON
    /// when they are not (the wrapper only ever sends what it encoded there).
    pub fn with_input(len: usize, f: impl FnOnce(&str) -> String) -> String {
        let error =
            |message: &str| boundary_error_json(&BoundaryError::input("", message)).to_string();
        INPUT.with(|cell| match cell.try_borrow() {
            Ok(buf) => match buf.get(..len).map(std::str::from_utf8) {
                Some(Ok(text)) => f(text),
                Some(Err(e)) => error(&format!("the input is not UTF-8: {e}")),
                None => error("the input is longer than the input buffer"),
            },
            Err(_) => error("the input buffer is busy"),
        })
    }

    /// Keeps `output` as the last output; answers where it lies, packed, or -1 (see
    /// `handle_buffered`).
    pub fn keep_output(output: String) -> f64 {
        let (ptr, len) = (output.as_ptr() as usize, output.len());
        OUTPUT.with(|cell| match cell.try_borrow_mut() {
            Ok(mut slot) => {
                *slot = output;
                if len <= MAX_PACKED_LEN {
                    ptr as f64 + len as f64 * 4_294_967_296.0
                } else {
                    -1.0
                }
            }
            Err(_) => -1.0,
        })
    }

    /// `f` of the last output.
    pub fn with_output<T>(f: impl FnOnce(&str) -> T) -> T {
        OUTPUT.with(|cell| match cell.try_borrow() {
            Ok(out) => f(&out),
            Err(_) => f(""),
        })
    }
}

/// The input buffer of `handleBuffered`, made `len` bytes long: its address in the module's
/// memory ([`wasm_memory`]), or 0 when memory is exhausted. The address holds until the next
/// call of this function.
#[cfg(feature = "speed")]
#[wasm_bindgen(js_name = inputBuffer)]
pub fn input_buffer(len: usize) -> usize {
    buffered::resize(len)
}

/// The module's `WebAssembly.Memory`, where the wrapper writes inputs and reads outputs.
#[cfg(feature = "speed")]
#[wasm_bindgen(js_name = wasmMemory)]
pub fn wasm_memory() -> JsValue {
    wasm_bindgen::memory()
}

/// The last output of `handleBuffered`, as text.
#[cfg(feature = "speed")]
#[wasm_bindgen(js_name = lastOutput)]
pub fn last_output() -> String {
    buffered::with_output(|text| text.to_owned())
}

/// The last output of `handleBuffered` as an object, exactly (`BigInt`s beyond 2^53): what
/// `handle(object)` answers when the output text has a run of 16 digits.
#[cfg(feature = "speed")]
#[wasm_bindgen(js_name = lastOutputObject)]
pub fn last_output_object() -> JsValue {
    buffered::with_output(text_to_js)
}

/// The topology id of a topology (a list of subtopologies, as an object or JSON text).
#[wasm_bindgen(js_name = topologyId)]
pub fn topology_id(topology: JsValue) -> Result<String, JsValue> {
    let value = from_js(&topology, "").map_err(|e| js_error(&e))?;
    let subtopologies: Vec<Subtopology> = sgc::api::decode_value(&value)
        .map_err(|(path, e)| js_error(&BoundaryError::input(path, e.to_string())))?;
    Ok(sgc::topology::topology_id(&subtopologies))
}

/// The `__consumer_offsets` partition of a group (default 50 partitions).
#[wasm_bindgen(js_name = partitionFor)]
pub fn partition_for(group_id: &str, partitions: Option<i32>) -> Result<i32, JsValue> {
    let n = partitions.unwrap_or(50);
    if n < 1 {
        return Err(js_error(&BoundaryError::input(
            "partitions",
            "must be at least 1",
        )));
    }
    Ok(sgc::partition_for(group_id, n))
}

/// The package version.
#[wasm_bindgen]
pub fn version() -> String {
    sgc::version().to_string()
}

/// KIP-345's naming rule for Kafka Streams static members:
/// `streamInstanceId + "-" + threadId + "-consumer"`, or `undefined` (no static membership)
/// when `streamInstanceId` is unset.
#[wasm_bindgen(js_name = kip345InstanceId)]
pub fn kip345_instance_id(stream_instance_id: Option<String>, thread_id: &str) -> Option<String> {
    sgc::group::naming::kip345_instance_id(stream_instance_id.as_deref(), thread_id)
}

/// Kafka Streams' shipped rule: `groupInstanceId + "-" + threadIndex` (1-based), or
/// `undefined` without a `group.instance.id`.
#[wasm_bindgen(js_name = streamsThreadInstanceId)]
pub fn streams_thread_instance_id(
    group_instance_id: Option<String>,
    thread_index: u32,
) -> Option<String> {
    sgc::group::naming::streams_thread_instance_id(group_instance_id.as_deref(), thread_index)
}

/// The bytes of a log given as text or as a `Uint8Array` (a dropped file).
fn log_bytes(log: &JsValue) -> Result<Vec<u8>, JsValue> {
    if let Some(text) = log.as_string() {
        return Ok(text.into_bytes());
    }
    if let Some(bytes) = log.dyn_ref::<js_sys::Uint8Array>() {
        return Ok(bytes.to_vec());
    }
    Err(js_error(&BoundaryError::input(
        "",
        "a log is text or a Uint8Array",
    )))
}

fn log_dialect(dialect: Option<String>) -> Result<Option<sgc::Dialect>, JsValue> {
    match dialect.as_deref() {
        None | Some("") => Ok(None),
        Some(name) => sgc::Dialect::from_name(name).map(Some).ok_or_else(|| {
            js_error(&BoundaryError::input(
                "dialect",
                format!(
                    "unknown dialect {name:?}: kafka-4.2, kafka-4.3, kafka-4.4 or kip1071-draft"
                ),
            ))
        }),
    }
}

fn read(log: &JsValue, dialect: Option<String>) -> Result<sgc::history::ParsedLog, JsValue> {
    let bytes = log_bytes(log)?;
    let dialect = log_dialect(dialect)?;
    sgc::history::parse_log(&bytes, dialect)
        .map_err(|e| js_error(&BoundaryError::input("", e.to_string())))
}

/// Reads a log (`kafka-dump-log.sh --offsets-decoder` text, a raw segment, JSON records or
/// coordinator outputs): `{dialect, form, skipped, records, damage}`, each record in the
/// dump-log JSON form with its `offset` and `timestampMs` (null where the log does not show
/// them) and, in a transactional batch, its `producerId`; `markers` the transactions' end
/// markers (`{before, offset, timestampMs, producerId, result}`, `before` counting the records
/// ahead of it); `damage` lists a dump's damaged lines or a segment's bad batch (`{line, position,
/// message}`), the records stopping before the first; `warnings` the newer releases' value
/// fields left out (in the same form).
#[wasm_bindgen(js_name = readLog)]
pub fn read_log(log: JsValue, dialect: Option<String>) -> Result<JsValue, JsValue> {
    let parsed = read(&log, dialect)?;
    let records: Vec<Value> = parsed
        .records
        .iter()
        .map(|r| {
            let mut entry = serde_json::json!({
                "offset": r.offset,
                "timestampMs": r.timestamp_ms,
                "record": sgc::records::record_to_json(parsed.dialect, &r.record, false),
            });
            if let Some(p) = &r.record.producer {
                entry["producerId"] = serde_json::json!(p.id);
            }
            entry
        })
        .collect();
    let markers: Vec<Value> = parsed
        .markers
        .iter()
        .map(|m| {
            serde_json::json!({
                "before": m.before,
                "offset": m.offset,
                "timestampMs": m.timestamp_ms,
                "producerId": m.producer_id,
                "result": if m.commit { "COMMIT" } else { "ABORT" },
            })
        })
        .collect();
    let damage: Vec<Value> = parsed
        .damage
        .iter()
        .map(|d| serde_json::json!({"line": d.line, "position": d.position, "message": d.message}))
        .collect();
    let warnings: Vec<Value> = parsed
        .warnings
        .iter()
        .map(|d| serde_json::json!({"line": d.line, "position": d.position, "message": d.message}))
        .collect();
    Ok(to_js(&serde_json::json!({
        "dialect": parsed.dialect.name(),
        "form": parsed.form,
        "skipped": parsed.skipped,
        "records": records,
        "markers": markers,
        "damage": damage,
        "warnings": warnings,
    })))
}

/// The history of every group in a log, told from its records alone (`sgc history --json`).
#[wasm_bindgen(js_name = history)]
pub fn history(log: JsValue, dialect: Option<String>) -> Result<JsValue, JsValue> {
    let parsed = read(&log, dialect)?;
    Ok(to_js(&sgc::history::tell(&parsed)))
}
