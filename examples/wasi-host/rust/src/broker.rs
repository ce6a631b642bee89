//! What a broker does for one `__consumer_offsets` partition: route requests to the
//! coordinator in the plugin, append its records to the partition's log, and after a crash
//! rebuild the coordinator by replaying that log into a fresh instance (like host.py).

use std::collections::BTreeMap;
use std::fs::{File, OpenOptions};
use std::io::{BufRead, BufReader, Write};
use std::path::PathBuf;

use serde_json::{json, Map, Value};

use crate::plugin::{Abi, Compiled, Plugin, Result, STATUS_INTERNAL_ERROR, STATUS_OK};

pub struct BrokerPartition {
    compiled: Compiled,
    config: Option<String>,
    log: Option<PathBuf>,
    abi: Abi,
    /// The last topic image the host reported, re-sent after a rebuild.
    topics: BTreeMap<String, Value>,
    plugin: Option<(Plugin, u32)>,
}

impl BrokerPartition {
    pub fn start(
        compiled: &Compiled,
        config: Option<String>,
        log: Option<PathBuf>,
        abi: Abi,
    ) -> Result<BrokerPartition> {
        let mut p = BrokerPartition {
            compiled: compiled.clone(),
            config,
            log,
            abi,
            topics: BTreeMap::new(),
            plugin: None,
        };
        p.restart()?;
        Ok(p)
    }

    /// Loses everything in memory, as a crashed broker does.
    pub fn kill(&mut self) {
        self.plugin = None;
    }

    /// A fresh instance, rebuilt from the log and the last topic image.
    pub fn restart(&mut self) -> Result<()> {
        let mut plugin = Plugin::new(&self.compiled)?;
        plugin.abi = self.abi;
        let handle = plugin.create(self.config.as_deref())?;
        let mut records = Vec::new();
        let mut now = 0i64;
        if let Some(path) = self.log.as_ref().filter(|p| p.exists()) {
            let file = File::open(path).map_err(|e| format!("{}: {e}", path.display()))?;
            for line in BufReader::new(file).lines() {
                let line = line.map_err(|e| format!("{}: {e}", path.display()))?;
                if line.trim().is_empty() {
                    continue;
                }
                let mut record: Map<String, Value> = serde_json::from_str(&line)
                    .map_err(|e| format!("{}: a bad log line: {e}", path.display()))?;
                if let Some(at) = record.remove("_nowMs").and_then(|v| v.as_i64()) {
                    now = now.max(at);
                }
                records.push(Value::Object(record));
            }
        }
        if !records.is_empty() {
            let replay = json!({"nowMs": now, "type": "Replay", "records": records});
            let (status, out) = plugin.handle(handle, replay.to_string().as_bytes())?;
            if status != STATUS_OK {
                return Err(format!("replay failed: {}", String::from_utf8_lossy(out)));
            }
        }
        if !self.topics.is_empty() {
            let topics: Vec<&Value> = self.topics.values().collect();
            let image = json!({"nowMs": 0, "type": "TopicMetadata", "topics": topics});
            let (status, out) = plugin.handle(handle, image.to_string().as_bytes())?;
            if status != STATUS_OK {
                return Err(format!(
                    "topic image refused: {}",
                    String::from_utf8_lossy(out)
                ));
            }
        }
        self.plugin = Some((plugin, handle));
        Ok(())
    }

    /// Handles one input line; returns the output text.
    pub fn handle_input(&mut self, line: &str) -> Result<String> {
        let (plugin, handle) = self.plugin.as_mut().ok_or("the partition is not running")?;
        let (status, out) = plugin.handle(*handle, line.as_bytes())?;
        let out = String::from_utf8(out.to_vec()).map_err(|e| format!("output not UTF-8: {e}"))?;
        if status == STATUS_INTERNAL_ERROR {
            return Err(out);
        }
        if status != STATUS_OK {
            return Ok(out);
        }
        let input: Value = serde_json::from_str(line).unwrap_or(Value::Null);
        if input["type"] == "TopicMetadata" {
            for t in input["topics"].as_array().into_iter().flatten() {
                if let Some(name) = t["name"].as_str() {
                    self.topics.insert(name.to_string(), t.clone());
                }
            }
            for name in input["deletedTopics"].as_array().into_iter().flatten() {
                if let Some(name) = name.as_str() {
                    self.topics.remove(name);
                }
            }
        }
        if let Some(path) = &self.log {
            let output: Value =
                serde_json::from_str(&out).map_err(|e| format!("output not JSON: {e}"))?;
            let records = output["records"].as_array().filter(|r| !r.is_empty());
            if let Some(records) = records {
                let mut file = OpenOptions::new()
                    .create(true)
                    .append(true)
                    .open(path)
                    .map_err(|e| format!("{}: {e}", path.display()))?;
                let now = input["nowMs"].as_i64().unwrap_or(0);
                let mut text = String::new();
                for r in records {
                    let mut r = r.as_object().cloned().unwrap_or_default();
                    r.insert("_nowMs".into(), json!(now));
                    text.push_str(&Value::Object(r).to_string());
                    text.push('\n');
                }
                file.write_all(text.as_bytes())
                    .map_err(|e| format!("{}: {e}", path.display()))?;
            }
        }
        Ok(out)
    }
}
