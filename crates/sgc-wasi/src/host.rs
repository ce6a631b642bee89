//! ABI version 4: the host kit (`wire::host`) for a broker written in another language,
//! which routes Kafka's request frames to the coordinators (handles) of its
//! `__consumer_offsets` partitions. Each call names a handle for its dialect only (the
//! coordinator does not change) and is answered as `sgc_call2`, in the handle's output:
//! status 0 the answer, 1 a frame or input it cannot take (`INVALID_FRAME`: Kafka closes the
//! connection), 2 a wrong call (an unknown handle, bytes outside every buffer from
//! `sgc_alloc`). Frames go in without their 4-byte size; response frames come out with it,
//! the bytes to write to the connection as they are.

use serde_json::{json, Value};
use streams_group_coordinator::wire;
use streams_group_coordinator::wire::host::{self, Route, Routed, SharedApis};
use streams_group_coordinator::BoundaryError;

use crate::abi::{bytes, error_bytes, short, utf8, Abi, Answer, STATUS_INPUT_ERROR, STATUS_OK};

/// Kafka's int32 size (big-endian) and then `frame`.
fn sized(frame: &[u8]) -> Vec<u8> {
    let size = i32::try_from(frame.len()).unwrap_or(i32::MAX);
    let mut out = Vec::with_capacity(4 + frame.len());
    out.extend_from_slice(&size.to_be_bytes());
    out.extend_from_slice(frame);
    out
}

/// A core answer as a status and an output: the response frame with its size, or the error.
fn frame_answer(answer: Result<Vec<u8>, (i32, BoundaryError)>) -> (i32, Vec<u8>) {
    match answer {
        Ok(frame) => (STATUS_OK, sized(&frame)),
        Err((status, e)) => (status, error_bytes(&e)),
    }
}

fn input_error(e: BoundaryError) -> (i32, BoundaryError) {
    (STATUS_INPUT_ERROR, e)
}

/// `sgc_route_request`'s output: the route as JSON after its int32 length, then each part's
/// frame after its int32 size (Kafka's stream of frames).
pub fn route_output(routed: Routed) -> Vec<u8> {
    let mut head = json!({"apiKey": routed.api_key, "apiVersion": routed.api_version});
    let mut frames = Vec::new();
    let (name, split) = match routed.route {
        Route::ApiVersions => ("apiVersions", None),
        Route::Host => ("host", None),
        Route::Group {
            group_id,
            partition,
        } => {
            head["groupId"] = json!(group_id);
            head["partition"] = json!(partition);
            ("group", None)
        }
        Route::Groups(split) => ("groups", Some(split)),
        Route::EveryPartition(split) => ("everyPartition", Some(split)),
    };
    if let Some(split) = split {
        let parts = split
            .parts
            .iter()
            .map(|p| json!({"partition": p.partition}));
        head["parts"] = Value::Array(parts.collect());
        for part in &split.parts {
            frames.extend_from_slice(&sized(&part.frame));
        }
    }
    head["route"] = json!(name);
    let head = head.to_string();
    let mut out = sized(head.as_bytes());
    out.extend_from_slice(&frames);
    out
}

impl Abi {
    /// `sgc_route_request`: where the request frame at `(ptr, len)` goes among `partitions`
    /// partitions ([`route_output`]: `{"route", "apiKey", "apiVersion"}`, with `groupId` and
    /// `partition` for a request for one group, `parts` for one split by partition).
    pub fn route_request(
        &mut self,
        handle: u32,
        (ptr, len): (usize, usize),
        partitions: i32,
    ) -> Answer {
        self.on_handle(handle, |allocations, coordinator| {
            let dialect = coordinator.config().dialect;
            let routed = bytes(allocations, ptr, len).and_then(|frame| {
                host::route_request(dialect, frame, partitions).map_err(input_error)
            });
            match routed {
                Ok(routed) => (STATUS_OK, route_output(routed)),
                Err((status, e)) => (status, error_bytes(&e)),
            }
        })
    }

    /// `sgc_merge_responses`: the response to the request frame at `frame`, split by
    /// `sgc_route_request` among `partitions`, from its parts' responses at `answers` (Kafka's
    /// stream: each response frame after its int32 size, in the order of the parts).
    pub fn merge_responses(
        &mut self,
        handle: u32,
        (ptr, len): (usize, usize),
        partitions: i32,
        (answers_ptr, answers_len): (usize, usize),
    ) -> Answer {
        self.on_handle(handle, |allocations, coordinator| {
            let dialect = coordinator.config().dialect;
            frame_answer(bytes(allocations, ptr, len).and_then(|frame| {
                let stream = bytes(allocations, answers_ptr, answers_len)?;
                let answers = wire::split_frames(stream).map_err(|e| {
                    input_error(BoundaryError::new(
                        e.code,
                        format!("answers.{}", e.path),
                        e.message,
                    ))
                })?;
                host::merge_responses(dialect, frame, partitions, &answers).map_err(input_error)
            }))
        })
    }

    /// `sgc_error_response`: the response answering the request frame at `(ptr, len)` with
    /// `error_code` for every group it names (every partition of a commit).
    pub fn error_response(
        &mut self,
        handle: u32,
        (ptr, len): (usize, usize),
        error_code: i32,
    ) -> Answer {
        self.on_handle(handle, |allocations, coordinator| {
            let dialect = coordinator.config().dialect;
            frame_answer(bytes(allocations, ptr, len).and_then(|frame| {
                let code = short(error_code, "errorCode")?;
                host::error_response(dialect, frame, code).map_err(input_error)
            }))
        })
    }

    /// `sgc_answer_api_versions`: the `ApiVersions` response to the frame at `(ptr, len)`,
    /// listing the dialect's APIs and the host's, UTF-8 JSON at `(apis_ptr, apis_len)`
    /// (`[{"apiKey", "minVersion", "maxVersion"}]`; length 0: none): an API both list at the
    /// versions both serve, left out when they share none.
    pub fn answer_api_versions(
        &mut self,
        handle: u32,
        (ptr, len): (usize, usize),
        (apis_ptr, apis_len): (usize, usize),
    ) -> Answer {
        self.on_handle(handle, |allocations, coordinator| {
            let dialect = coordinator.config().dialect;
            frame_answer(bytes(allocations, ptr, len).and_then(|frame| {
                let text = utf8(bytes(allocations, apis_ptr, apis_len)?, "apis")?;
                let apis = if text.is_empty() {
                    Vec::new()
                } else {
                    let value = streams_group_coordinator::api::json_tree(text, "apis")
                        .map_err(input_error)?;
                    host::apis_from_json(&value, "apis").map_err(input_error)?
                };
                wire::answer_api_versions_with(dialect, frame, &apis, SharedApis::Intersection)
                    .map_err(input_error)
            }))
        })
    }

    /// `sgc_is_mine`: whether the group named by the UTF-8 text at `(ptr, len)` is one of the
    /// host's: `{"partition", "mine"}`, its `__consumer_offsets` partition (of `partitions`)
    /// and whether it is in the JSON list of partitions at `(owned_ptr, owned_len)`.
    pub fn is_mine(
        &mut self,
        handle: u32,
        (ptr, len): (usize, usize),
        partitions: i32,
        (owned_ptr, owned_len): (usize, usize),
    ) -> Answer {
        self.on_handle(handle, |allocations, _| {
            let answer = bytes(allocations, ptr, len)
                .and_then(|b| utf8(b, "groupId"))
                .and_then(|group| {
                    if partitions < 1 {
                        return Err(input_error(BoundaryError::input(
                            "partitions",
                            "must be at least 1",
                        )));
                    }
                    let text = utf8(bytes(allocations, owned_ptr, owned_len)?, "owned")?;
                    let owned: Vec<i32> = serde_json::from_str(text).map_err(|e| {
                        input_error(BoundaryError::input(
                            "owned",
                            format!("a JSON list of partitions: {e}"),
                        ))
                    })?;
                    let partition = std::cell::Cell::new(0);
                    let mine = host::is_mine(group, partitions, |p| {
                        partition.set(p);
                        owned.contains(&p)
                    });
                    Ok(json!({"partition": partition.get(), "mine": mine}))
                });
            match answer {
                Ok(out) => (STATUS_OK, out.to_string().into_bytes()),
                Err((status, e)) => (status, error_bytes(&e)),
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::abi::STATUS_INTERNAL_ERROR;
    use streams_group_coordinator::api::Input;
    use streams_group_coordinator::{Coordinator, Dialect};

    const PARTITIONS: i32 = 50;

    /// Allocates and fills a buffer, as a host does.
    fn put(abi: &mut Abi, bytes: &[u8]) -> (usize, usize) {
        let ptr = abi.alloc(bytes.len());
        assert_ne!(ptr, 0);
        assert!(abi.write(ptr, bytes));
        (ptr, bytes.len())
    }

    fn created(abi: &mut Abi) -> u32 {
        let config = br#"{"dialect": "kafka-4.2"}"#;
        let (ptr, len) = put(abi, config);
        let h = abi.create(ptr, len);
        assert_ne!(h, 0);
        h
    }

    fn output(abi: &Abi, answer: Answer) -> Vec<u8> {
        abi.read(answer.ptr, answer.len)
            .expect("inside a buffer")
            .to_vec()
    }

    fn request(input: Value, v: i16) -> Vec<u8> {
        let mut input = input;
        input["nowMs"] = json!(0);
        let input = Input::from_value(&input).unwrap();
        wire::encode_request(Dialect::Kafka42, &input.kind, v, 7).unwrap()
    }

    /// `(head, frames)` of a route's output.
    fn route(out: &[u8]) -> (Value, Vec<Vec<u8>>) {
        let n = i32::from_be_bytes(out[..4].try_into().unwrap()) as usize;
        let head = serde_json::from_slice(&out[4..4 + n]).unwrap();
        let frames = wire::split_frames(&out[4 + n..]).unwrap();
        (head, frames.into_iter().map(<[u8]>::to_vec).collect())
    }

    #[test]
    fn a_describe_is_routed_split_answered_and_merged_in_kafkas_order() {
        let mut abi = Abi::new();
        let h = created(&mut abi);
        let describe = request(
            json!({"type": "StreamsGroupDescribe", "request": {"groupIds": ["wordcount", "", "g"]}}),
            0,
        );
        let at = put(&mut abi, &describe);
        let answer = abi.route_request(h, at, PARTITIONS);
        assert_eq!(answer.status, STATUS_OK);
        let (head, frames) = route(&output(&abi, answer));
        assert_eq!(
            head,
            json!({"route": "groups", "apiKey": 89, "apiVersion": 0, "parts": [
                {"partition": 0}, {"partition": 41}, {"partition": 3}]})
        );
        // Each part answered by its partition's coordinator, their answers as Kafka's stream.
        let mut stream = Vec::new();
        for frame in &frames {
            let mut c = Coordinator::from_json_config(&json!({"dialect": "kafka-4.2"})).unwrap();
            let answer = wire::handle_frame(&mut c, frame, 0, &wire::Peer::default()).unwrap();
            stream.extend_from_slice(&sized(&answer.frame));
        }
        let answers = put(&mut abi, &stream);
        let merged = abi.merge_responses(h, at, PARTITIONS, answers);
        assert_eq!(merged.status, STATUS_OK);
        let merged = output(&abi, merged);
        let (corr, json) = wire::response_json(Dialect::Kafka42, 89, 0, &merged[4..]).unwrap();
        assert_eq!(corr, 7);
        let ids: Vec<&str> = json["groups"]
            .as_array()
            .unwrap()
            .iter()
            .map(|g| g["groupId"].as_str().unwrap())
            .collect();
        assert_eq!(ids, ["", "wordcount", "g"]);
        // One answer too few, and a stream that runs past its end.
        let short = put(&mut abi, &stream[..stream.len() / 2]);
        let e = abi.merge_responses(h, at, PARTITIONS, short);
        assert_eq!(e.status, STATUS_INPUT_ERROR);
        assert_eq!(
            abi.merge_responses(h + 9, at, PARTITIONS, answers).status,
            STATUS_INTERNAL_ERROR
        );
    }

    #[test]
    fn one_group_error_responses_api_versions_and_ownership() {
        let mut abi = Abi::new();
        let h = created(&mut abi);
        let del = request(json!({"type": "DeleteGroups", "groupIds": ["g"]}), 2);
        let at = put(&mut abi, &del);
        let (head, frames) = route(&{
            let a = abi.route_request(h, at, PARTITIONS);
            output(&abi, a)
        });
        assert_eq!(head["route"], "groups");
        assert_eq!(frames, [del]);
        let heartbeat = [0, 88, 0, 0, 0, 0, 0, 7, 0, 1, b'c', 0, 2, b'g'];
        let hb = put(&mut abi, &heartbeat);
        let (head, frames) = route(&{
            let a = abi.route_request(h, hb, PARTITIONS);
            output(&abi, a)
        });
        assert_eq!(
            (head, frames.len()),
            (
                json!({"route": "group", "apiKey": 88, "apiVersion": 0, "groupId": "g", "partition": 3}),
                0
            )
        );
        assert_eq!(abi.route_request(h, hb, 0).status, STATUS_INPUT_ERROR);

        let answer = abi.error_response(h, at, 16);
        assert_eq!(answer.status, STATUS_OK);
        let out = output(&abi, answer);
        let (_, json) = wire::response_json(Dialect::Kafka42, 42, 2, &out[4..]).unwrap();
        assert_eq!(json["results"][0]["errorCode"], 16);
        assert_eq!(
            abi.error_response(h, at, 1 << 20).status,
            STATUS_INPUT_ERROR
        );

        let api_versions = [
            0, 18, 0, 3, 0, 0, 0, 7, 0, 1, b'c', 0, 3, b'j', b'a', 2, b'4', 0,
        ];
        let av = put(&mut abi, &api_versions);
        let apis = put(
            &mut abi,
            br#"[{"apiKey": 3, "minVersion": 0, "maxVersion": 12}, {"apiKey": 8, "minVersion": 0, "maxVersion": 8}]"#,
        );
        let out = {
            let a = abi.answer_api_versions(h, av, apis);
            output(&abi, a)
        };
        let (_, json) = wire::response_json(Dialect::Kafka42, 18, 3, &out[4..]).unwrap();
        let keys = json["apiKeys"].as_array().unwrap();
        assert!(keys.contains(&json!({"apiKey": 3, "minVersion": 0, "maxVersion": 12})));
        assert!(keys.contains(&json!({"apiKey": 8, "minVersion": 2, "maxVersion": 8})));
        let bad = put(&mut abi, br#"[{"apiKey": 3}]"#);
        assert_eq!(
            abi.answer_api_versions(h, av, bad).status,
            STATUS_INPUT_ERROR
        );

        let group = put(&mut abi, b"wordcount");
        let owned = put(&mut abi, b"[3, 41]");
        let out = {
            let a = abi.is_mine(h, group, PARTITIONS, owned);
            output(&abi, a)
        };
        assert_eq!(
            serde_json::from_slice::<Value>(&out).unwrap(),
            json!({"partition": 41, "mine": true})
        );
        let not_json = put(&mut abi, b"3");
        assert_eq!(
            abi.is_mine(h, group, PARTITIONS, not_json).status,
            STATUS_INPUT_ERROR
        );
        assert_eq!(
            abi.is_mine(h, (8, 16), PARTITIONS, owned).status,
            STATUS_INTERNAL_ERROR
        );
    }
}
