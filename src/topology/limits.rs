//! Bounded cost: what one topology may ask of the coordinator. A client declares repartition
//! topics and source-topic regexes and the host reports partition counts, and either could
//! otherwise drive time and memory up to 2^31 tasks; the limits refuse such work before any
//! per-task step runs.

use super::model::Subtopology;
use super::patterns;
use super::{Configuration, ConfiguredSubtopology};

/// The coordinator's limits on one topology. The settings name them, so their defaults and
/// their values from a `Config` are the settings' (`config.rs`): the topology knows no
/// settings.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limits {
    /// `group.streams.max.tasks.per.subtopology`.
    pub max_tasks_per_subtopology: i32,
    /// `group.streams.max.tasks`.
    pub max_tasks: i32,
    /// `group.streams.topology.max.regex.patterns`.
    pub max_regex_patterns: i32,
    /// `group.streams.topology.max.regex.compiled.bytes`.
    pub max_regex_compiled_bytes: i32,
    /// `group.streams.topology.max.regex.match.cost`.
    pub max_regex_match_cost: i64,
}

impl Limits {
    /// What a client declares in its topology: the number of source-topic regexes, each one's
    /// compiled size, and the partition counts of repartition topics. Run after the structural
    /// validation (V1-V10); the error is the message of an invalid-topology answer.
    pub fn check(&self, subtopologies: &[Subtopology]) -> Result<(), String> {
        let patterns: usize = subtopologies
            .iter()
            .map(|s| s.source_topic_regex.len())
            .sum();
        if patterns > self.max_regex_patterns.max(0) as usize {
            return Err(format!(
                "The topology has {patterns} source topic regular expressions, more than the {} \
                 that group.streams.topology.max.regex.patterns allows.",
                self.max_regex_patterns
            ));
        }
        let size = self.max_regex_compiled_bytes.max(0) as usize;
        for s in subtopologies {
            if let Some(r) = s
                .source_topic_regex
                .iter()
                .find(|r| patterns::compile_full_match_within(r, size).is_none())
            {
                return Err(format!(
                    "Source topic regex {r} of subtopology {} takes more than the {size} bytes \
                     that group.streams.topology.max.regex.compiled.bytes allows when compiled.",
                    s.subtopology_id
                ));
            }
        }
        if let Some(t) = subtopologies
            .iter()
            .flat_map(|s| &s.repartition_source_topics)
            .find(|t| t.partitions > self.max_tasks_per_subtopology)
        {
            return Err(format!(
                "Repartition topic {} has {} partitions, more than the {} tasks per subtopology \
                 that group.streams.max.tasks.per.subtopology allows.",
                t.name, t.partitions, self.max_tasks_per_subtopology
            ));
        }
        Ok(())
    }

    /// The cost of matching every source-topic regex against the topic names `topics` (those a
    /// pattern's literal prefix lets through): compiled bytes times name bytes, which bounds a
    /// linear-time match. A new topology over `group.streams.topology.max.regex.match.cost` is
    /// refused before any match runs; once stored, each topic is matched once (remembered).
    pub fn check_regex_cost<'a>(
        &self,
        subtopologies: &[Subtopology],
        topics: impl Iterator<Item = &'a str> + Clone,
    ) -> Result<(), String> {
        let mut cost: i64 = 0;
        for r in subtopologies.iter().flat_map(|s| &s.source_topic_regex) {
            let size = patterns::compiled_size(r).unwrap_or(0) as i64;
            let prefix = patterns::literal_prefix(r);
            let names: i64 = topics
                .clone()
                .filter(|t| t.starts_with(prefix))
                .map(|t| t.len() as i64)
                .sum();
            cost = cost.saturating_add(size.saturating_mul(names));
        }
        if cost > self.max_regex_match_cost {
            return Err(format!(
                "Matching the source topic regexes against the existing topics would cost {cost} \
                 (compiled bytes times topic name bytes), more than the {} that \
                 group.streams.topology.max.regex.match.cost allows.",
                self.max_regex_match_cost
            ));
        }
        Ok(())
    }

    /// A ready configuration whose task counts exceed the limits is not ready: its topics are
    /// partitioned beyond what this coordinator assigns (reported like incorrectly partitioned
    /// source topics, with the limit named). Runs before the assignor sees a single task.
    pub fn bound(&self, configuration: Configuration) -> Configuration {
        let Configuration::Ready(subs) = &configuration else {
            return configuration;
        };
        if let Some(s) = subs
            .iter()
            .find(|s| s.num_tasks > self.max_tasks_per_subtopology)
        {
            return Configuration::SourceTopicsIncorrectlyPartitioned(format!(
                "Subtopology {} has {} tasks, more than the {} that \
                 group.streams.max.tasks.per.subtopology allows.",
                s.subtopology_id, s.num_tasks, self.max_tasks_per_subtopology
            ));
        }
        let total = total_tasks(subs);
        if total > i64::from(self.max_tasks) {
            return Configuration::SourceTopicsIncorrectlyPartitioned(format!(
                "The topology has {total} tasks, more than the {} that group.streams.max.tasks \
                 allows.",
                self.max_tasks
            ));
        }
        configuration
    }
}

/// The number of tasks of a configured topology.
pub fn total_tasks(subs: &[ConfiguredSubtopology]) -> i64 {
    subs.iter().map(|s| i64::from(s.num_tasks.max(0))).sum()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::topology::TopicInfo;
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    fn sub(id: &str, regexes: &[&str], repartition: &[i32]) -> Subtopology {
        Subtopology {
            subtopology_id: id.into(),
            source_topics: vec!["in".into()],
            source_topic_regex: regexes.iter().map(|r| r.to_string()).collect(),
            repartition_source_topics: repartition
                .iter()
                .enumerate()
                .map(|(i, p)| TopicInfo {
                    name: format!("r{i}"),
                    partitions: *p,
                    ..Default::default()
                })
                .collect(),
            ..Default::default()
        }
    }

    fn limits() -> Limits {
        Limits {
            max_tasks_per_subtopology: 100,
            max_tasks: 150,
            max_regex_patterns: 2,
            max_regex_compiled_bytes: 4096,
            max_regex_match_cost: 1_000_000,
        }
    }

    #[test]
    fn declared_sizes_over_the_limits_are_refused() {
        let l = limits();
        assert_eq!(l.check(&[sub("0", &["a.*", "b.*"], &[100])]), Ok(()));
        let e = l.check(&[sub("0", &["a.*"], &[]), sub("1", &["b", "c"], &[])]);
        assert!(e
            .unwrap_err()
            .contains("3 source topic regular expressions"));
        let e = l.check(&[sub("0", &[], &[101])]).unwrap_err();
        assert!(e.contains("r0 has 101 partitions"), "{e}");
        // A pattern whose compiled program is large (a bounded repetition of a class).
        let big = "[a-z]{1000}";
        let e = l.check(&[sub("0", &[big], &[])]).unwrap_err();
        assert!(
            e.contains("group.streams.topology.max.regex.compiled.bytes"),
            "{e}"
        );
    }

    #[test]
    fn regexes_that_would_cost_too_much_to_match_are_refused() {
        let l = limits();
        let names: Vec<String> = (0..100)
            .map(|i| format!("{}{i}", "x".repeat(200)))
            .collect();
        let cheap = [sub("0", &["orders-.*"], &[])];
        assert_eq!(
            l.check_regex_cost(&cheap, names.iter().map(String::as_str)),
            Ok(())
        );
        let costly = [sub("0", &["(?:a|b|c|x)*y?"], &[])];
        let e = l
            .check_regex_cost(&costly, names.iter().map(String::as_str))
            .unwrap_err();
        assert!(
            e.contains("group.streams.topology.max.regex.match.cost"),
            "{e}"
        );
        assert_eq!(l.check_regex_cost(&costly, std::iter::empty()), Ok(()));
    }

    #[test]
    fn a_configuration_over_the_task_limits_is_not_ready() {
        let l = limits();
        let ready = |counts: &[i32]| {
            Configuration::Ready(
                counts
                    .iter()
                    .enumerate()
                    .map(|(i, n)| ConfiguredSubtopology {
                        subtopology_id: i.to_string(),
                        num_tasks: *n,
                        stateful: false,
                        input_topics: vec![],
                    })
                    .collect(),
            )
        };
        assert_eq!(l.bound(ready(&[100, 50])), ready(&[100, 50]));
        let Configuration::SourceTopicsIncorrectlyPartitioned(m) = l.bound(ready(&[101])) else {
            panic!("not bounded");
        };
        assert!(m.contains("Subtopology 0 has 101 tasks"), "{m}");
        let Configuration::SourceTopicsIncorrectlyPartitioned(m) = l.bound(ready(&[100, 51]))
        else {
            panic!("not bounded");
        };
        assert!(m.contains("151 tasks"), "{m}");
    }
}
