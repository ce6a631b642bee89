//! A host's APIs given as JSON (`[{apiKey, minVersion, maxVersion}]`, as the faces'
//! `servedApis` lists them), for the faces whose hosts are written in other languages.

use serde_json::Value;

use super::super::messages::versions::ApiRange;
use crate::BoundaryError;

/// The ranges of a JSON list of APIs at `path` (their names are not on the wire: left empty).
pub fn apis_from_json(value: &Value, path: &str) -> Result<Vec<ApiRange>, BoundaryError> {
    let Some(list) = value.as_array() else {
        return Err(BoundaryError::input(
            path,
            "a list of {apiKey, minVersion, maxVersion}",
        ));
    };
    list.iter()
        .enumerate()
        .map(|(i, api)| {
            let field = |name: &str| {
                api.get(name)
                    .and_then(Value::as_i64)
                    .and_then(|n| i16::try_from(n).ok())
                    .ok_or_else(|| {
                        BoundaryError::input(
                            format!("{path}[{i}].{name}"),
                            "must be a 16-bit integer",
                        )
                    })
            };
            Ok(ApiRange {
                key: field("apiKey")?,
                name: "",
                min: field("minVersion")?,
                max: field("maxVersion")?,
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    #[test]
    fn apis_read_from_json_and_refused_with_a_path() {
        let apis = apis_from_json(
            &json!([{"apiKey": 3, "minVersion": 0, "maxVersion": 12}]),
            "apis",
        );
        assert_eq!(
            apis.unwrap(),
            [ApiRange {
                key: 3,
                name: "",
                min: 0,
                max: 12
            }]
        );
        let e = apis_from_json(&json!([{"apiKey": 3, "minVersion": 0}]), "apis").unwrap_err();
        assert_eq!(e.path, "apis[0].maxVersion");
        let e = apis_from_json(
            &json!([{"apiKey": 70000, "minVersion": 0, "maxVersion": 1}]),
            "a",
        );
        assert_eq!(e.unwrap_err().path, "a[0].apiKey");
        assert_eq!(apis_from_json(&json!({}), "apis").unwrap_err().path, "apis");
    }
}
