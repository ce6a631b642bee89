//! Table-driven tests of validation (V1-V10), configuration (steps 1-7), required topics and
//! topology ids.

use std::collections::{BTreeMap, BTreeSet};
#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

use super::*;

// ---------------------------------------------------------------------------------------------
// Builders
// ---------------------------------------------------------------------------------------------

pub(super) fn st(id: &str) -> Subtopology {
    Subtopology {
        subtopology_id: id.to_owned(),
        ..Default::default()
    }
}

pub(super) fn info(name: &str, partitions: i32) -> TopicInfo {
    TopicInfo {
        name: name.to_owned(),
        partitions,
        ..Default::default()
    }
}

fn strings(names: &[&str]) -> Vec<String> {
    names.iter().map(|s| (*s).to_owned()).collect()
}

trait Build {
    fn src(self, names: &[&str]) -> Self;
    fn regex(self, patterns: &[&str]) -> Self;
    fn changelog(self, names: &[&str]) -> Self;
    fn changelog_info(self, info: TopicInfo) -> Self;
    fn sink(self, names: &[&str]) -> Self;
    fn repartition(self, topics: &[(&str, i32)]) -> Self;
    fn repartition_info(self, info: TopicInfo) -> Self;
    fn group(self, sources: &[i16], regexes: &[i16], repartition: &[i16]) -> Self;
}

impl Build for Subtopology {
    fn src(mut self, names: &[&str]) -> Self {
        self.source_topics.extend(strings(names));
        self
    }
    fn regex(mut self, patterns: &[&str]) -> Self {
        self.source_topic_regex.extend(strings(patterns));
        self
    }
    fn changelog(mut self, names: &[&str]) -> Self {
        self.state_changelog_topics
            .extend(names.iter().map(|n| info(n, 0)));
        self
    }
    fn changelog_info(mut self, info: TopicInfo) -> Self {
        self.state_changelog_topics.push(info);
        self
    }
    fn sink(mut self, names: &[&str]) -> Self {
        self.repartition_sink_topics.extend(strings(names));
        self
    }
    fn repartition(mut self, topics: &[(&str, i32)]) -> Self {
        self.repartition_source_topics
            .extend(topics.iter().map(|(n, p)| info(n, *p)));
        self
    }
    fn repartition_info(mut self, info: TopicInfo) -> Self {
        self.repartition_source_topics.push(info);
        self
    }
    fn group(mut self, sources: &[i16], regexes: &[i16], repartition: &[i16]) -> Self {
        self.copartition_groups.push(CopartitionGroup {
            source_topics: sources.to_vec(),
            source_topic_regex: regexes.to_vec(),
            repartition_source_topics: repartition.to_vec(),
        });
        self
    }
}

fn view(topics: &[(&str, i32)]) -> BTreeMap<String, i32> {
    topics.iter().map(|(t, n)| ((*t).to_owned(), *n)).collect()
}

fn create(name: &str, partitions: i32) -> TopicToCreate {
    TopicToCreate {
        name: name.to_owned(),
        num_partitions: partitions,
        replication_factor: -1,
        configs: vec![],
    }
}

fn missing_internal(topics: &[(&str, i32)]) -> Configuration {
    Configuration::MissingInternalTopics(topics.iter().map(|(n, p)| create(n, *p)).collect())
}

fn ready(id: &str, tasks: i32, stateful: bool, inputs: &[(&str, i32)]) -> ConfiguredSubtopology {
    ConfiguredSubtopology {
        subtopology_id: id.to_owned(),
        num_tasks: tasks,
        stateful,
        input_topics: inputs.iter().map(|(t, n)| ((*t).to_owned(), *n)).collect(),
    }
}

// ---------------------------------------------------------------------------------------------
// Validation V1-V10
// ---------------------------------------------------------------------------------------------

#[test]
fn validation_table() {
    let long = "a".repeat(249);
    let too_long = "a".repeat(250);
    let cases: Vec<(&str, Vec<Subtopology>, Result<(), &str>)> = vec![
        ("empty topology passes", vec![], Ok(())),
        (
            "minimal",
            vec![st("0").src(&["in"]).changelog(&["app-s-changelog"])],
            Ok(()),
        ),
        (
            "V1 empty id",
            vec![st("0").src(&["a"]), st("").src(&["b"])],
            Err("Subtopology id can't be empty."),
        ),
        (
            "V1 blank id (Java trim)",
            vec![st(" \t\u{1}").src(&["a"])],
            Err("Subtopology id can't be empty."),
        ),
        (
            "V1 before V2",
            vec![st("0"), st("0"), st(" ")],
            Err("Subtopology id can't be empty."),
        ),
        (
            "V2 duplicate id",
            vec![st("0").src(&["a"]), st("1").src(&["b"]), st("0").src(&["c"])],
            Err("Duplicate subtopology id 0."),
        ),
        (
            "V2 reports the first repeated id in request order",
            vec![st("1"), st("0"), st("0"), st("1")],
            Err("Duplicate subtopology id 0."),
        ),
        (
            "V3 no sources",
            vec![st("0").src(&["a"]), st("1").sink(&["r"]).changelog(&["c"])],
            Err("No source topics found for subtopology 1"),
        ),
        ("V3 regex counts as a source", vec![st("0").regex(&["a.*"])], Ok(())),
        (
            "V3 repartition source counts as a source",
            vec![st("0").src(&["a"]).sink(&["r"]), st("1").repartition(&[("r", 0)])],
            Ok(()),
        ),
        (
            "V4 changelog with partitions",
            vec![st("0").src(&["a"]).changelog_info(info("c", 3))],
            Err("Changelog topic c must have an undefined partition count, but it is set to 3."),
        ),
        (
            "V4 negative changelog partitions",
            vec![st("0").src(&["a"]).changelog_info(info("c", -1))],
            Err("Changelog topic c must have an undefined partition count, but it is set to -1."),
        ),
        (
            "V4 before V5",
            vec![
                st("0").src(&["a"]).repartition(&[("r", -2)]),
                st("1").src(&["b"]).changelog_info(info("c", 1)),
            ],
            Err("Changelog topic c must have an undefined partition count, but it is set to 1."),
        ),
        (
            "V5 negative repartition partitions",
            vec![st("0").repartition(&[("r", 0), ("s", -1)])],
            Err(
                "Repartition topic s must have a partition count greater than or equal to 0, but \
                 it is set to -1.",
            ),
        ),
        (
            "V6 replication factor of a changelog",
            vec![st("0").src(&["a"]).changelog_info(TopicInfo {
                replication_factor: -2,
                ..info("c", 0)
            })],
            Err("Topic c must have a replication factor greater than or equal to -1, but it is set to -2."),
        ),
        (
            "V6 replication factor of a repartition topic",
            vec![st("0").repartition_info(TopicInfo {
                replication_factor: i16::MIN,
                ..info("r", 0)
            })],
            Err("Topic r must have a replication factor greater than or equal to -1, but it is set to -32768."),
        ),
        (
            "V6 -1 and 0 are fine",
            vec![st("0")
                .repartition_info(TopicInfo { replication_factor: -1, ..info("r", 0) })
                .changelog_info(TopicInfo { replication_factor: 0, ..info("c", 0) })],
            Ok(()),
        ),
        (
            "V7 invalid names, distinct and sorted",
            vec![
                st("0").src(&["ok", "bad topic", "a/b"]).sink(&["."]),
                st("1")
                    .repartition(&[("..", 0)])
                    .changelog(&["bad topic", "ü"]),
            ],
            Err("Topic names ., .., a/b, bad topic, ü are not valid topic names."),
        ),
        (
            "V7 length limit",
            vec![st("0").src(&[&long, &too_long])],
            Err(&*Box::leak(
                format!("Topic names {too_long} are not valid topic names.").into_boxed_str(),
            )),
        ),
        (
            "V7 empty name",
            vec![st("0").src(&[""])],
            Err("Topic names  are not valid topic names."),
        ),
        (
            "V7 legal characters",
            vec![st("0").src(&["Az09._-", "...", "a..b"])],
            Ok(()),
        ),
        (
            "V7 ignores regexes",
            vec![st("0").regex(&["a b|[c]"])],
            Ok(()),
        ),
        (
            "V8 Kafka internal topics",
            vec![
                st("0").src(&["__transaction_state", "a"]),
                st("1").changelog(&["__consumer_offsets"]).src(&["b"]),
                st("2").sink(&["__share_group_state"]).src(&["c"]),
            ],
            Err(
                "Use of Kafka internal topics __consumer_offsets, __share_group_state, \
                 __transaction_state in a Kafka Streams topology is prohibited.",
            ),
        ),
        (
            "V7 before V8",
            vec![st("0").src(&["__consumer_offsets", "a b"])],
            Err("Topic names a b are not valid topic names."),
        ),
        (
            "V9 source index",
            vec![st("0").src(&["a", "b"]).group(&[0, 1], &[], &[]).group(&[2], &[], &[])],
            Err("Copartition group 1 of subtopology 0 refers to a missing sourceTopics index 2."),
        ),
        (
            "V9 negative index",
            vec![st("x").src(&["a"]).group(&[-1], &[], &[])],
            Err("Copartition group 0 of subtopology x refers to a missing sourceTopics index -1."),
        ),
        (
            "V9 regex index",
            vec![st("0").src(&["a"]).regex(&["b.*"]).group(&[0], &[1], &[])],
            Err("Copartition group 0 of subtopology 0 refers to a missing sourceTopicRegex index 1."),
        ),
        (
            "V9 repartition index",
            vec![st("0").repartition(&[("r", 0)]).group(&[], &[], &[0, 1])],
            Err(
                "Copartition group 0 of subtopology 0 refers to a missing repartitionSourceTopics \
                 index 1.",
            ),
        ),
        (
            "V9 lists in order sourceTopics, sourceTopicRegex, repartitionSourceTopics",
            vec![st("0").src(&["a"]).group(&[5], &[5], &[5])],
            Err("Copartition group 0 of subtopology 0 refers to a missing sourceTopics index 5."),
        ),
        (
            "V10 invalid regex",
            vec![st("0").regex(&["ok.*", "a(b"])],
            Err("Source topic regex a(b of subtopology 0 is not a valid regular expression."),
        ),
        (
            "V10 look-around is not supported",
            vec![st("0").regex(&["(?!x)a"])],
            Err("Source topic regex (?!x)a of subtopology 0 is not a valid regular expression."),
        ),
        (
            "V10 back-references are not supported",
            vec![st("0").regex(&[r"(a)\1"])],
            Err(r"Source topic regex (a)\1 of subtopology 0 is not a valid regular expression."),
        ),
        (
            "V10 a pattern escaping the anchors",
            vec![st("0").regex(&["a)|(b"])],
            Err("Source topic regex a)|(b of subtopology 0 is not a valid regular expression."),
        ),
        (
            "V10 a pattern swallowing the anchors",
            vec![st("0").regex(&["(?x)a # comment"])],
            Err("Source topic regex (?x)a # comment of subtopology 0 is not a valid regular expression."),
        ),
        (
            "V10 huge pattern",
            vec![st("0").regex(&["(((a{100}){100}){100})"])],
            Err(
                "Source topic regex (((a{100}){100}){100}) of subtopology 0 is not a valid \
                 regular expression.",
            ),
        ),
        (
            "V10 Unicode classes are not supported by regex-lite",
            vec![st("0").regex(&[r"\p{L}+"])],
            Err(r"Source topic regex \p{L}+ of subtopology 0 is not a valid regular expression."),
        ),
        (
            // Java reads `a*+` as possessive; regex-lite as `(a*)+`. Same set of full matches
            // here; they differ only when something after it could match the same characters.
            "V10 stacked quantifiers compile",
            vec![st("0").regex(&["a*+"])],
            Ok(()),
        ),
        (
            "V10 typical Streams patterns",
            vec![st("0").regex(&["topic-[0-9]+", "(orders|payments)\\..*", "(?i)events"])],
            Ok(()),
        ),
    ];
    for (name, topology, expected) in cases {
        assert_eq!(
            validate(&topology),
            expected.map_err(str::to_owned),
            "case {name}"
        );
    }
}

#[test]
fn rules_run_alone_and_in_order() {
    let topology = vec![st("0").src(&["a b", "__consumer_offsets"])];
    assert_eq!(
        check(&topology, ValidationRule::KafkaInternalTopics),
        Err(
            "Use of Kafka internal topics __consumer_offsets in a Kafka Streams topology is \
             prohibited."
                .to_owned()
        )
    );
    assert_eq!(check(&topology, ValidationRule::InvalidRegex), Ok(()));
    assert_eq!(ValidationRule::ALL.len(), 10);
    assert!(ValidationRule::ALL.windows(2).all(|w| w[0] < w[1]));
    assert!(is_valid_topic_name("a"));
    assert!(!is_valid_topic_name(".."));
    assert!(is_kafka_internal_topic("__consumer_offsets"));
}

// ---------------------------------------------------------------------------------------------
// Configuration, steps 1-7
// ---------------------------------------------------------------------------------------------

#[test]
fn configuration_table() {
    use Configuration::*;
    type Case = (
        &'static str,
        Vec<Subtopology>,
        BTreeMap<String, i32>,
        Configuration,
    );
    let cases: Vec<Case> = vec![
        // Step 7 / task counts.
        ("no subtopologies", vec![], view(&[]), Ready(vec![])),
        (
            "stateless, tasks = max source partitions",
            vec![st("0").src(&["a", "b"])],
            view(&[("a", 4), ("b", 6), ("c", 9)]),
            Ready(vec![ready("0", 6, false, &[("a", 4), ("b", 6)])]),
        ),
        (
            "ready sorted by id (bytes), inputs deduplicated",
            vec![
                st("2").src(&["b", "b"]),
                st("10").src(&["a"]).regex(&["a|b"]),
            ],
            view(&[("a", 1), ("b", 2)]),
            Ready(vec![
                ready("10", 2, false, &[("a", 1), ("b", 2)]),
                ready("2", 2, false, &[("b", 2)]),
            ]),
        ),
        // Step 1.
        (
            "missing literal sources, sorted and deduplicated",
            vec![st("0").src(&["z", "a"]), st("1").src(&["a", "present"])],
            view(&[("present", 1)]),
            MissingSourceTopics(strings(&["a", "z"])),
        ),
        (
            "unmatched regex listed as its pattern",
            vec![
                st("0").src(&["b"]).regex(&["in-.*", "x"]),
                st("1").regex(&["in-.*"]),
            ],
            view(&[("x", 1), ("xin-1", 1)]),
            MissingSourceTopics(strings(&["b", "in-.*"])),
        ),
        (
            "regexes match whole names",
            vec![st("0").regex(&["in", "out-[0-9]"])],
            view(&[("input", 1), ("in2", 1), ("out-12", 1)]),
            MissingSourceTopics(strings(&["in", "out-[0-9]"])),
        ),
        (
            "regex matches several topics",
            vec![st("0").regex(&["in-[0-9]+"])],
            view(&[("in-1", 2), ("in-22", 7), ("in-x", 9)]),
            Ready(vec![ready("0", 7, false, &[("in-1", 2), ("in-22", 7)])]),
        ),
        (
            "a regex does not pick up the topology's own internal topics",
            vec![
                st("0")
                    .regex(&["app-.*"])
                    .sink(&["app-r"])
                    .changelog(&["app-c"]),
                st("1").repartition(&[("app-r", 0)]),
            ],
            view(&[("app-r", 3), ("app-c", 3)]),
            MissingSourceTopics(strings(&["app-.*"])),
        ),
        (
            "a repartition source listed among sourceTopics is not an external source",
            vec![
                st("0").src(&["in"]).sink(&["r"]),
                st("1").src(&["r"]).repartition(&[("r", 0)]),
            ],
            view(&[("in", 5)]),
            missing_internal(&[("r", 5)]),
        ),
        // Step 2.
        (
            "a non-fixed repartition topic nobody writes",
            vec![st("0").src(&["a"]), st("1").repartition(&[("r", 0)])],
            view(&[("a", 1)]),
            Invalid(
                "Failed to compute number of partitions for all repartition topics, because a \
                 repartition source topic is never used as a sink topic."
                    .to_owned(),
            ),
        ),
        (
            "a fixed repartition topic needs no writer",
            vec![st("1").repartition(&[("r", 4)])],
            view(&[]),
            missing_internal(&[("r", 4)]),
        ),
        (
            "a cycle without a fixed count",
            vec![
                st("0").repartition(&[("r1", 0)]).sink(&["r2"]),
                st("1").repartition(&[("r2", 0)]).sink(&["r1"]),
            ],
            view(&[]),
            Invalid(
                "Failed to compute number of partitions for all repartition topics. There may be \
                 loops in the topology that cannot be resolved."
                    .to_owned(),
            ),
        ),
        (
            "a cycle with one fixed count",
            vec![
                st("0").repartition(&[("r1", 0)]).sink(&["r2"]),
                st("1").repartition(&[("r2", 6)]).sink(&["r1"]),
            ],
            view(&[]),
            missing_internal(&[("r1", 6), ("r2", 6)]),
        ),
        (
            "a cycle fed from outside",
            vec![
                st("0").src(&["in"]).repartition(&[("r1", 0)]).sink(&["r2"]),
                st("1").repartition(&[("r2", 0)]).sink(&["r1"]),
            ],
            view(&[("in", 3)]),
            missing_internal(&[("r1", 3), ("r2", 3)]),
        ),
        (
            "inference along a chain against name order (several passes)",
            vec![
                st("0").src(&["in"]).sink(&["z"]),
                st("1").repartition(&[("z", 0)]).sink(&["y"]),
                st("2").repartition(&[("y", 0)]).sink(&["x"]),
                st("3").repartition(&[("x", 0)]).changelog(&["c"]),
            ],
            view(&[("in", 7)]),
            missing_internal(&[("c", 7), ("x", 7), ("y", 7), ("z", 7)]),
        ),
        (
            "a writer's count is the maximum of its inputs; fixed counts are kept",
            vec![
                st("0").src(&["a"]).repartition(&[("f", 9)]).sink(&["r"]),
                st("1").src(&["b"]).sink(&["r", "f"]),
                st("2").repartition(&[("r", 0)]),
            ],
            view(&[("a", 2), ("b", 5)]),
            missing_internal(&[("f", 9), ("r", 9)]),
        ),
        (
            "a count decided in a pass counts for the rest of the pass only (Kafka's order)",
            // x is decided first (name order) from w's external source alone; y is unknown then.
            vec![
                st("w").src(&["e"]).repartition(&[("y", 0)]).sink(&["x"]),
                st("u").src(&["f"]).sink(&["y"]),
                st("r").repartition(&[("x", 0)]),
            ],
            view(&[("e", 2), ("f", 8)]),
            missing_internal(&[("x", 2), ("y", 8)]),
        ),
        (
            "first listing decides whether a repartition topic is fixed",
            vec![
                st("0").src(&["a"]).sink(&["r"]),
                st("1").repartition(&[("r", 0)]),
                st("2").repartition(&[("r", 5)]),
            ],
            view(&[("a", 2)]),
            missing_internal(&[("r", 2)]),
        ),
        // Step 3.
        (
            "copartitioned external sources disagree",
            vec![st("0").src(&["b", "a", "c"]).group(&[0, 1], &[], &[])],
            view(&[("a", 4), ("b", 5), ("c", 1)]),
            SourceTopicsIncorrectlyPartitioned(
                "Following topics do not have the same number of partitions: [{a=4, b=5}]"
                    .to_owned(),
            ),
        ),
        (
            "copartitioned external sources via a regex",
            vec![st("0").src(&["a"]).regex(&["b-.*"]).group(&[0], &[0], &[])],
            view(&[("a", 4), ("b-1", 4), ("b-2", 3)]),
            SourceTopicsIncorrectlyPartitioned(
                "Following topics do not have the same number of partitions: [{a=4, b-1=4, b-2=3}]"
                    .to_owned(),
            ),
        ),
        (
            "copartitioned external sources agree",
            vec![st("0").src(&["a", "b"]).group(&[0, 1], &[], &[])],
            view(&[("a", 4), ("b", 4)]),
            Ready(vec![ready("0", 4, false, &[("a", 4), ("b", 4)])]),
        ),
        (
            "a fixed repartition member disagrees with the sources",
            vec![st("0")
                .src(&["a"])
                .repartition(&[("r", 3)])
                .group(&[0], &[], &[0])],
            view(&[("a", 4)]),
            InternalTopicsIncorrectlyPartitioned(
                "Number of partitions [3] of repartition topic [r] doesn't match number of \
                 partitions [4] of the source topic."
                    .to_owned(),
            ),
        ),
        (
            "a non-fixed repartition member takes the sources' count over the inferred one",
            vec![
                st("0").src(&["big"]).sink(&["r"]),
                st("1")
                    .src(&["a"])
                    .repartition(&[("r", 0)])
                    .group(&[0], &[], &[0])
                    .changelog(&["c"]),
            ],
            view(&[("a", 4), ("big", 10)]),
            missing_internal(&[("c", 4), ("r", 4)]),
        ),
        (
            "repartition-only group: fixed members disagree",
            vec![
                st("0").src(&["a"]).sink(&["r1", "r2", "r3"]),
                st("1")
                    .repartition(&[("r3", 0), ("r2", 3), ("r1", 2)])
                    .group(&[], &[], &[0, 1, 2]),
            ],
            view(&[("a", 8)]),
            InternalTopicsIncorrectlyPartitioned(
                "Following topics do not have the same number of partitions: [{r1=2, r2=3}]"
                    .to_owned(),
            ),
        ),
        (
            "repartition-only group: fixed members agree, the others follow",
            vec![
                st("0").src(&["a"]).sink(&["r1", "r2", "r3"]),
                st("1")
                    .repartition(&[("r3", 0), ("r2", 3), ("r1", 3)])
                    .group(&[], &[], &[0, 1, 2]),
            ],
            view(&[("a", 8)]),
            missing_internal(&[("r1", 3), ("r2", 3), ("r3", 3)]),
        ),
        (
            "repartition-only group: none fixed, all get the maximum",
            vec![
                st("0").src(&["a"]).sink(&["r1"]),
                st("1").src(&["b"]).sink(&["r2"]),
                st("2")
                    .repartition(&[("r1", 0), ("r2", 0)])
                    .group(&[], &[], &[1, 0]),
            ],
            view(&[("a", 2), ("b", 5)]),
            missing_internal(&[("r1", 5), ("r2", 5)]),
        ),
        (
            "repartition-only group: all undefined",
            vec![
                st("0").src(&["a"]).sink(&["r1", "r2"]),
                st("1")
                    .repartition(&[("r2", 0), ("r1", 0)])
                    .group(&[], &[], &[0, 1]),
            ],
            view(&[("a", 0)]),
            Invalid(
                "All topics in the copartition group had undefined partition number: [r1, r2]"
                    .to_owned(),
            ),
        ),
        (
            "a repartition topic listed in sourceTopics is a repartition member",
            vec![
                st("0").src(&["a"]).sink(&["r"]),
                st("1")
                    .src(&["r", "b"])
                    .repartition(&[("r", 0)])
                    .group(&[0, 1], &[], &[]),
            ],
            view(&[("a", 9), ("b", 2)]),
            missing_internal(&[("r", 2)]),
        ),
        // Step 4.
        (
            "changelogs get the task count; the source table changelog is no internal topic",
            vec![
                st("0")
                    .src(&["a", "table"])
                    .changelog(&["table", "app-store-changelog"]),
                st("1").src(&["b"]).changelog(&["app-other-changelog"]),
            ],
            view(&[("a", 2), ("table", 3), ("b", 1)]),
            missing_internal(&[("app-other-changelog", 1), ("app-store-changelog", 3)]),
        ),
        (
            "a source table alone is ready and stateful",
            vec![st("0").src(&["table"]).changelog(&["table"])],
            view(&[("table", 3)]),
            Ready(vec![ready("0", 3, true, &[("table", 3)])]),
        ),
        (
            "tasks include repartition sources",
            vec![
                st("0").src(&["a"]).sink(&["r"]),
                st("1")
                    .src(&["b"])
                    .repartition(&[("r", 0)])
                    .changelog(&["c"]),
            ],
            view(&[("a", 6), ("b", 2), ("r", 6), ("c", 6)]),
            Ready(vec![
                ready("0", 6, false, &[("a", 6)]),
                ready("1", 6, true, &[("b", 2), ("r", 6)]),
            ]),
        ),
        (
            "a subtopology without inputs (V3, for the 4.2 dialect)",
            vec![st("0").src(&["a"]), st("1").changelog(&["c"])],
            view(&[("a", 1)]),
            Invalid("No source topics found for subtopology 1".to_owned()),
        ),
        // Step 5.
        (
            "existing internal topics with other counts, sorted by name",
            vec![
                st("0")
                    .src(&["a"])
                    .sink(&["r"])
                    .changelog(&["z-changelog", "b-changelog"]),
                st("1").repartition(&[("r", 0)]),
            ],
            view(&[("a", 4), ("r", 4), ("z-changelog", 2), ("b-changelog", 8)]),
            InternalTopicsMismatch(vec![
                ("b-changelog".to_owned(), 4, 8),
                ("z-changelog".to_owned(), 4, 2),
            ]),
        ),
        (
            "mismatch before missing",
            vec![st("0").src(&["a"]).changelog(&["c1", "c2"])],
            view(&[("a", 4), ("c1", 3)]),
            InternalTopicsMismatch(vec![("c1".to_owned(), 4, 3)]),
        ),
        // Step 6.
        (
            "missing internal topics only, existing ones left out",
            vec![st("0").src(&["a"]).changelog(&["c1", "c2"])],
            view(&[("a", 4), ("c1", 4)]),
            missing_internal(&[("c2", 4)]),
        ),
    ];
    for (name, topology, view, expected) in cases {
        assert_eq!(configure(&topology, &view), expected, "case {name}");
    }
}

#[test]
fn topics_to_create_take_their_first_listing() {
    let config = |k: &str, v: &str| TopicConfig {
        key: k.to_owned(),
        value: v.to_owned(),
    };
    let topology = vec![
        st("0").src(&["a"]).sink(&["r"]).changelog_info(TopicInfo {
            name: "c".to_owned(),
            partitions: 0,
            replication_factor: 3,
            topic_configs: vec![config("z.key", "1"), config("cleanup.policy", "compact")],
        }),
        st("1")
            .repartition_info(TopicInfo {
                name: "r".to_owned(),
                partitions: 0,
                replication_factor: 0,
                topic_configs: vec![config("retention.ms", "-1")],
            })
            .changelog_info(TopicInfo {
                replication_factor: 1,
                ..info("c", 0)
            }),
        st("2").repartition_info(TopicInfo {
            replication_factor: 2,
            ..info("r", 0)
        }),
    ];
    let entry = |n: &str, v: &str| TopicConfigEntry {
        name: n.to_owned(),
        value: v.to_owned(),
    };
    assert_eq!(
        configure(&topology, &view(&[("a", 3)])),
        Configuration::MissingInternalTopics(vec![
            TopicToCreate {
                name: "c".to_owned(),
                num_partitions: 3,
                replication_factor: 3,
                configs: vec![entry("z.key", "1"), entry("cleanup.policy", "compact")],
            },
            TopicToCreate {
                name: "r".to_owned(),
                num_partitions: 3,
                replication_factor: -1,
                configs: vec![entry("retention.ms", "-1")],
            },
        ])
    );
    // The JSON shape of DESIGN.md's `topicsToCreate`.
    let json = serde_json::to_string(&create("t", 2)).unwrap();
    assert_eq!(
        json,
        r#"{"name":"t","numPartitions":2,"replicationFactor":-1,"configs":[]}"#
    );
}

#[test]
fn compiled_patterns_are_reusable() {
    let topology = vec![st("0").regex(&["in-.*"]).changelog(&["c"])];
    let patterns = SourcePatterns::compile(&topology);
    let mut v = view(&[]);
    assert_eq!(
        configure_with(&topology, &patterns, &v),
        Configuration::MissingSourceTopics(strings(&["in-.*"]))
    );
    v.insert("in-1".to_owned(), 2);
    assert_eq!(
        configure_with(&topology, &patterns, &v),
        missing_internal(&[("c", 2)])
    );
    v.insert("c".to_owned(), 2);
    assert_eq!(
        configure_with(&topology, &patterns, &v),
        configure(&topology, &v)
    );
    // Patterns of another topology never panic, they match nothing.
    assert_eq!(
        configure_with(&topology, &SourcePatterns::default(), &v),
        Configuration::MissingSourceTopics(strings(&["in-.*"]))
    );
}

#[test]
fn regexes_run_in_linear_time() {
    // Catastrophic for a backtracking engine: 2^n paths on a name that almost matches.
    let name = format!("{}!", "a".repeat(248));
    let topology = vec![st("0").regex(&["(a+)+b", "(a|aa)+", "(a*)*(b|c)"])];
    assert_eq!(validate(&topology), Ok(()));
    // No timing here (that belongs to benchmarks): a backtracking engine would not finish
    // these 2^248-path matches at all, so completing is the assertion.
    let v = view(&[(&name, 1)]);
    for _ in 0..20 {
        assert_eq!(
            configure(&topology, &v),
            Configuration::MissingSourceTopics(strings(&["(a*)*(b|c)", "(a+)+b", "(a|aa)+"]))
        );
        assert!(!concerns_topic(&topology, &name));
    }
}

#[test]
fn compiled_patterns_can_be_shared_between_threads() {
    fn assert_send_sync<T: Send + Sync + Clone>() {}
    assert_send_sync::<SourcePatterns>();
}

#[test]
fn unvalidated_topologies_never_panic() {
    let topology = vec![
        st("0")
            .src(&["a"])
            .regex(&["(", "a)|(b"])
            .group(&[7, -3], &[9], &[4]),
        st("0")
            .repartition(&[("r", -5)])
            .changelog_info(info("c", 9)),
    ];
    let v = view(&[("a", 1), ("b", 1)]);
    let _ = configure(&topology, &v);
    let _ = required_topics(&topology, v.keys().map(String::as_str));
    let _ = concerns_topic(&topology, "a");
    assert_eq!(topology_id(&topology).len(), 64);
}

// ---------------------------------------------------------------------------------------------
// Required topics
// ---------------------------------------------------------------------------------------------

#[test]
fn required_and_concerning_topics() {
    let topology = vec![
        st("0")
            .src(&["in", "table"])
            .regex(&["events-.*"])
            .sink(&["r", "sink-only"])
            .changelog(&["table", "c"]),
        st("1").repartition(&[("r", 0)]),
    ];
    let existing = [
        "events-1",
        "events-2",
        "other",
        "in",
        "sink-only",
        "xevents-1",
    ];
    let required = required_topics(&topology, existing.iter().copied());
    let expected: BTreeSet<String> = ["c", "events-1", "events-2", "in", "r", "table"]
        .iter()
        .map(|s| (*s).to_owned())
        .collect();
    assert_eq!(required, expected);
    for (topic, concerns) in [
        ("in", true),
        ("table", true),
        ("c", true),
        ("r", true),
        ("events-77", true),
        ("events-", true),
        ("xevents-1", false),
        ("sink-only", false),
        ("other", false),
    ] {
        assert_eq!(concerns_topic(&topology, topic), concerns, "{topic}");
        let patterns = SourcePatterns::compile(&topology);
        assert_eq!(
            concerns_topic_with(&topology, &patterns, topic),
            concerns,
            "{topic}"
        );
    }
}

// ---------------------------------------------------------------------------------------------
// Topology ids
// ---------------------------------------------------------------------------------------------

fn sample() -> Vec<Subtopology> {
    let config = |k: &str, v: &str| TopicConfig {
        key: k.to_owned(),
        value: v.to_owned(),
    };
    vec![
        st("0")
            .src(&["orders", "customers"])
            .regex(&["events-.*", "audit"])
            .sink(&["app-repartition-b", "app-repartition-a"])
            .changelog_info(TopicInfo {
                name: "app-store-changelog".to_owned(),
                partitions: 0,
                replication_factor: 3,
                topic_configs: vec![
                    config("min.insync.replicas", "2"),
                    config("cleanup.policy", "compact"),
                ],
            })
            .group(&[1, 0], &[0], &[]),
        st("1")
            .repartition(&[("app-repartition-a", 0), ("app-repartition-b", 4)])
            .group(&[], &[], &[1, 0]),
    ]
}

/// Reverses every list whose order carries no meaning, remapping copartition indices.
fn reversed(topology: &[Subtopology]) -> Vec<Subtopology> {
    let flip = |i: i16, len: usize| (len as i16) - 1 - i;
    topology
        .iter()
        .rev()
        .map(|s| {
            let mut r = s.clone();
            r.source_topics.reverse();
            r.source_topic_regex.reverse();
            r.repartition_sink_topics.reverse();
            r.repartition_source_topics.reverse();
            r.state_changelog_topics.reverse();
            for t in r
                .state_changelog_topics
                .iter_mut()
                .chain(r.repartition_source_topics.iter_mut())
            {
                t.topic_configs.reverse();
            }
            r.copartition_groups.reverse();
            for g in &mut r.copartition_groups {
                g.source_topics = g
                    .source_topics
                    .iter()
                    .rev()
                    .map(|&i| flip(i, s.source_topics.len()))
                    .collect();
                g.source_topic_regex = g
                    .source_topic_regex
                    .iter()
                    .rev()
                    .map(|&i| flip(i, s.source_topic_regex.len()))
                    .collect();
                g.repartition_source_topics = g
                    .repartition_source_topics
                    .iter()
                    .rev()
                    .map(|&i| flip(i, s.repartition_source_topics.len()))
                    .collect();
            }
            r
        })
        .collect()
}

#[test]
fn ids_ignore_orders_without_meaning() {
    let t = sample();
    let id = topology_id(&t);
    assert_eq!(id.len(), 64);
    assert!(id
        .bytes()
        .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b)));
    assert_eq!(topology_id(&reversed(&t)), id);
    assert_eq!(canonical_form(&reversed(&t)), canonical_form(&t));

    // Replication factor 0 and -1 both mean the broker default.
    let mut u = t.clone();
    u[1].repartition_source_topics[0].replication_factor = -1;
    assert_eq!(topology_id(&u), id);

    // Duplicate entries in name lists and duplicate copartition groups change nothing.
    let mut u = t.clone();
    u[0].source_topics.push("orders".to_owned());
    u[0].copartition_groups.push(CopartitionGroup {
        source_topics: vec![0, 1, 1],
        source_topic_regex: vec![0],
        repartition_source_topics: vec![],
    });
    assert_eq!(topology_id(&u), id);
}

#[test]
fn ids_see_every_semantic_change() {
    let t = sample();
    let id = topology_id(&t);
    type Mutation = Box<dyn Fn(&mut Vec<Subtopology>)>;
    let mutations: Vec<(&str, Mutation)> = vec![
        (
            "subtopology id",
            Box::new(|t| t[1].subtopology_id = "2".to_owned()),
        ),
        (
            "source topic",
            Box::new(|t| t[0].source_topics[0] = "orderz".to_owned()),
        ),
        (
            "regex",
            Box::new(|t| t[0].source_topic_regex[1] = "audit.*".to_owned()),
        ),
        (
            "sink",
            Box::new(|t| t[0].repartition_sink_topics.pop().map(drop).unwrap_or(())),
        ),
        (
            "changelog name",
            Box::new(|t| t[0].state_changelog_topics[0].name = "x".to_owned()),
        ),
        (
            "changelog rf",
            Box::new(|t| t[0].state_changelog_topics[0].replication_factor = 2),
        ),
        (
            "config value",
            Box::new(|t| t[0].state_changelog_topics[0].topic_configs[0].value = "1".to_owned()),
        ),
        (
            "config key",
            Box::new(|t| t[0].state_changelog_topics[0].topic_configs[0].key = "x".to_owned()),
        ),
        (
            "config removed",
            Box::new(|t| drop(t[0].state_changelog_topics[0].topic_configs.pop())),
        ),
        (
            "repartition partitions",
            Box::new(|t| t[1].repartition_source_topics[0].partitions = 2),
        ),
        (
            "repartition name",
            Box::new(|t| t[1].repartition_source_topics[1].name = "q".to_owned()),
        ),
        (
            "group member",
            Box::new(|t| t[0].copartition_groups[0].source_topics = vec![0]),
        ),
        (
            "group regex",
            Box::new(|t| t[0].copartition_groups[0].source_topic_regex = vec![1]),
        ),
        (
            "group removed",
            Box::new(|t| drop(t[1].copartition_groups.pop())),
        ),
        (
            "group split",
            Box::new(|t| {
                t[1].copartition_groups = vec![
                    CopartitionGroup {
                        repartition_source_topics: vec![0],
                        ..Default::default()
                    },
                    CopartitionGroup {
                        repartition_source_topics: vec![1],
                        ..Default::default()
                    },
                ]
            }),
        ),
        (
            "list moved between fields",
            Box::new(|t| {
                let s = t[0].source_topics.pop().unwrap_or_default();
                t[0].repartition_sink_topics.push(s);
            }),
        ),
        (
            "subtopology added",
            Box::new(|t| t.push(st("2").src(&["x"]))),
        ),
        (
            "topic moved between subtopologies",
            Box::new(|t| {
                let s = t[0].source_topics.pop().unwrap_or_default();
                t[1].source_topics.push(s);
            }),
        ),
    ];
    let mut seen = BTreeSet::from([id.clone()]);
    for (name, mutate) in mutations {
        let mut u = t.clone();
        mutate(&mut u);
        let other = topology_id(&u);
        assert_ne!(other, id, "{name}");
        assert!(seen.insert(other), "{name} collides with another mutation");
    }
}

#[test]
fn copartition_topics_and_patterns_are_kept_apart() {
    // The same string as a topic name and as a pattern: two different groups.
    let a = vec![st("0").src(&["a.b"]).regex(&["a.b"]).group(&[0], &[], &[])];
    let b = vec![st("0").src(&["a.b"]).regex(&["a.b"]).group(&[], &[0], &[])];
    assert_ne!(topology_id(&a), topology_id(&b));
    // A repartition topic copartitioned by its sourceTopics or repartitionSourceTopics index:
    // the same group of names.
    let c = vec![st("0")
        .src(&["r"])
        .repartition(&[("r", 0)])
        .group(&[0], &[], &[])];
    let d = vec![st("0")
        .src(&["r"])
        .repartition(&[("r", 0)])
        .group(&[], &[], &[0])];
    assert_eq!(topology_id(&c), topology_id(&d));
}

/// The test vectors of `docs/topology-id.md`; a change here is a change of the recipe.
#[test]
fn documented_vectors() {
    assert_eq!(
        hex(&canonical_form(&[])),
        "0000000f7367632d746f706f6c6f67792d763100000000"
    );
    assert_eq!(
        topology_id(&[]),
        "15f9c8b56a71d55e5666142f5c6d7b9f3d561d3cdfc941f35f5fd408ae2c4832"
    );
    let simple = vec![st("0").src(&["input"]).changelog(&["app-store-changelog"])];
    assert_eq!(
        topology_id(&simple),
        "45727567ced3db45bb3678833066551d1f5cee87b4eb18bc5b40f877524865ad"
    );
    assert_eq!(
        topology_id(&sample()),
        "77599f38cb29c2c101aedff8950e64030569fc36ec26b55156f57d43b81caf2f"
    );
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}
