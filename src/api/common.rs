//! Structs shared by several requests and responses.

// The fields are the schemas' common structs in the contract's camelCase (DESIGN 3).
#![allow(missing_docs)]

use serde::{Deserialize, Serialize};

use crate::records::{Endpoint, KeyValue, TaskIds};

#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct TaskIdsJson {
    pub subtopology_id: String,
    pub partitions: Vec<i32>,
}

impl From<&TaskIds> for TaskIdsJson {
    fn from(t: &TaskIds) -> Self {
        TaskIdsJson {
            subtopology_id: t.subtopology_id.clone(),
            partitions: t.partitions.clone(),
        }
    }
}

impl From<&TaskIdsJson> for TaskIds {
    fn from(t: &TaskIdsJson) -> Self {
        TaskIds {
            subtopology_id: t.subtopology_id.clone(),
            partitions: t.partitions.clone(),
            // The schema's default (PROTOCOL 5.6); `None` would be written as null.
            assignment_epochs: Some(Vec::new()),
        }
    }
}

pub fn task_ids_json(list: &[TaskIds]) -> Vec<TaskIdsJson> {
    list.iter().map(TaskIdsJson::from).collect()
}

pub fn task_ids(list: &[TaskIdsJson]) -> Vec<TaskIds> {
    list.iter().map(TaskIds::from).collect()
}

#[derive(Clone, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct EndpointJson {
    pub host: String,
    pub port: u16,
}

impl From<&EndpointJson> for Endpoint {
    fn from(e: &EndpointJson) -> Self {
        Endpoint {
            host: e.host.clone(),
            port: e.port,
        }
    }
}

impl From<&Endpoint> for EndpointJson {
    fn from(e: &Endpoint) -> Self {
        EndpointJson {
            host: e.host.clone(),
            port: e.port,
        }
    }
}

#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct KeyValueJson {
    pub key: String,
    pub value: String,
}

impl From<&KeyValue> for KeyValueJson {
    fn from(kv: &KeyValue) -> Self {
        KeyValueJson {
            key: kv.key.clone(),
            value: kv.value.clone(),
        }
    }
}

#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct TaskOffsetJson {
    pub subtopology_id: String,
    pub partition: i32,
    pub offset: i64,
}

/// `{activeTasks, standbyTasks, warmupTasks}` as in describe responses and manual targets.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct AssignmentJson {
    #[serde(default)]
    pub active_tasks: Vec<TaskIdsJson>,
    #[serde(default)]
    pub standby_tasks: Vec<TaskIdsJson>,
    #[serde(default)]
    pub warmup_tasks: Vec<TaskIdsJson>,
}

impl From<&crate::tasks::Assignment> for AssignmentJson {
    fn from(a: &crate::tasks::Assignment) -> Self {
        let (active, standby, warmup) = a.to_task_ids();
        AssignmentJson {
            active_tasks: task_ids_json(&active),
            standby_tasks: task_ids_json(&standby),
            warmup_tasks: task_ids_json(&warmup),
        }
    }
}
