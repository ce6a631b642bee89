//! Property tests: topology ids ignore meaningless orders and see every rename; repartition
//! inference terminates and does not depend on the order of the topology's lists.

use std::collections::BTreeMap;

use proptest::prelude::*;

use super::*;

/// A deterministic permutation source driven by a proptest seed (xorshift64*).
struct Shuffler(u64);

impl Shuffler {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    /// Shuffles `v` in place (Fisher-Yates) and returns `new_position[old_position]`.
    fn shuffle<T>(&mut self, v: &mut Vec<T>) -> Vec<usize> {
        let mut order: Vec<usize> = (0..v.len()).collect();
        for i in (1..order.len()).rev() {
            let j = (self.next() % (i as u64 + 1)) as usize;
            order.swap(i, j);
        }
        let mut slots: Vec<Option<T>> = v.drain(..).map(Some).collect();
        let mut new_position = vec![0; order.len()];
        for (new, &old) in order.iter().enumerate() {
            new_position[old] = new;
            v.extend(slots[old].take());
        }
        new_position
    }
}

fn remap(indices: &mut Vec<i16>, new_position: &[usize], shuffler: &mut Shuffler) {
    for i in indices.iter_mut() {
        if let Some(&p) = usize::try_from(*i).ok().and_then(|i| new_position.get(i)) {
            *i = p as i16;
        }
    }
    shuffler.shuffle(indices);
}

/// The same topology with every list whose order carries no meaning shuffled.
fn shuffled(topology: &[Subtopology], seed: u64) -> Vec<Subtopology> {
    let mut shuffler = Shuffler(seed | 1);
    let mut t = topology.to_vec();
    shuffler.shuffle(&mut t);
    for s in &mut t {
        let sources = shuffler.shuffle(&mut s.source_topics);
        let regexes = shuffler.shuffle(&mut s.source_topic_regex);
        let repartition = shuffler.shuffle(&mut s.repartition_source_topics);
        shuffler.shuffle(&mut s.repartition_sink_topics);
        shuffler.shuffle(&mut s.state_changelog_topics);
        for info in s
            .state_changelog_topics
            .iter_mut()
            .chain(s.repartition_source_topics.iter_mut())
        {
            shuffler.shuffle(&mut info.topic_configs);
        }
        shuffler.shuffle(&mut s.copartition_groups);
        for g in &mut s.copartition_groups {
            remap(&mut g.source_topics, &sources, &mut shuffler);
            remap(&mut g.source_topic_regex, &regexes, &mut shuffler);
            remap(
                &mut g.repartition_source_topics,
                &repartition,
                &mut shuffler,
            );
        }
    }
    t
}

const NAMES: [&str; 8] = ["a", "b", "ab", "t-1", "Ä", "ä", "日本", "🎉"];

fn name() -> impl Strategy<Value = String> {
    prop::sample::select(&NAMES[..]).prop_map(str::to_owned)
}

fn topic_info() -> impl Strategy<Value = TopicInfo> {
    (
        name(),
        -1..4i32,
        -1..3i16,
        prop::collection::vec((name(), name()), 0..3),
    )
        .prop_map(
            |(name, partitions, replication_factor, configs)| TopicInfo {
                name,
                partitions,
                replication_factor,
                topic_configs: configs
                    .into_iter()
                    .map(|(key, value)| TopicConfig { key, value })
                    .collect(),
            },
        )
}

fn copartition_group() -> impl Strategy<Value = CopartitionGroup> {
    let indices = || prop::collection::vec(-1..4i16, 0..4);
    (indices(), indices(), indices()).prop_map(|(s, r, p)| CopartitionGroup {
        source_topics: s,
        source_topic_regex: r,
        repartition_source_topics: p,
    })
}

/// Any topology, valid or not, over a small alphabet so that names collide often.
fn any_topology() -> impl Strategy<Value = Vec<Subtopology>> {
    let names = || prop::collection::vec(name(), 0..4);
    let subtopology = (
        0..4u8,
        names(),
        names(),
        prop::collection::vec(topic_info(), 0..3),
        names(),
        prop::collection::vec(topic_info(), 0..3),
        prop::collection::vec(copartition_group(), 0..3),
    )
        .prop_map(
            |(id, sources, regexes, changelogs, sinks, repartition, groups)| Subtopology {
                subtopology_id: id.to_string(),
                source_topics: sources,
                source_topic_regex: regexes,
                state_changelog_topics: changelogs,
                repartition_sink_topics: sinks,
                repartition_source_topics: repartition,
                copartition_groups: groups,
            },
        );
    prop::collection::vec(subtopology, 0..5)
}

/// Every place a topic name occurs: (subtopology, list, position).
fn topic_slots(topology: &[Subtopology]) -> Vec<(usize, u8, usize)> {
    let mut slots = Vec::new();
    for (i, s) in topology.iter().enumerate() {
        slots.extend((0..s.source_topics.len()).map(|j| (i, 0, j)));
        slots.extend((0..s.repartition_sink_topics.len()).map(|j| (i, 1, j)));
        slots.extend((0..s.repartition_source_topics.len()).map(|j| (i, 2, j)));
        slots.extend((0..s.state_changelog_topics.len()).map(|j| (i, 3, j)));
    }
    slots
}

fn topic_name_mut(topology: &mut [Subtopology], (i, list, j): (usize, u8, usize)) -> &mut String {
    let s = &mut topology[i];
    match list {
        0 => &mut s.source_topics[j],
        1 => &mut s.repartition_sink_topics[j],
        2 => &mut s.repartition_source_topics[j].name,
        _ => &mut s.state_changelog_topics[j].name,
    }
}

const FRESH: &str = "renamed-topic";

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn shuffling_order_free_lists_keeps_the_id(topology in any_topology(), seed in any::<u64>()) {
        prop_assert_eq!(topology_id(&shuffled(&topology, seed)), topology_id(&topology));
    }

    #[test]
    fn renaming_one_occurrence_changes_the_id(topology in any_topology(), pick in any::<usize>()) {
        let slots = topic_slots(&topology);
        prop_assume!(!slots.is_empty());
        let mut renamed = topology.clone();
        *topic_name_mut(&mut renamed, slots[pick % slots.len()]) = FRESH.to_owned();
        prop_assert_ne!(topology_id(&renamed), topology_id(&topology));
    }

    #[test]
    fn renaming_a_topic_everywhere_changes_the_id(topology in any_topology(), pick in any::<usize>()) {
        let slots = topic_slots(&topology);
        prop_assume!(!slots.is_empty());
        let mut renamed = topology.clone();
        let old = topic_name_mut(&mut renamed, slots[pick % slots.len()]).clone();
        for slot in slots {
            let name = topic_name_mut(&mut renamed, slot);
            if *name == old {
                *name = FRESH.to_owned();
            }
        }
        prop_assert_ne!(topology_id(&renamed), topology_id(&topology));
    }

    #[test]
    fn analysis_never_panics(topology in any_topology(), counts in prop::collection::vec(-1..5i32, NAMES.len())) {
        let view: BTreeMap<String, i32> = NAMES
            .iter()
            .zip(&counts)
            .filter(|(_, &n)| n >= 0)
            .map(|(t, &n)| ((*t).to_owned(), n))
            .collect();
        let _ = validate(&topology);
        let _ = configure(&topology, &view);
        let _ = required_topics(&topology, view.keys().map(String::as_str));
        let _ = concerns_topic(&topology, "a");
    }
}

// ---------------------------------------------------------------------------------------------
// Inference
// ---------------------------------------------------------------------------------------------

const EXTERNAL: [&str; 5] = ["e0", "e1", "e2", "e3", "e4"];
const REPARTITION: [&str; 6] = ["r0", "r1", "r2", "r3", "r4", "r5"];

/// Valid topologies with repartition topics wired at random (cycles included), each
/// repartition topic listed with the same count everywhere, changelogs unique per subtopology,
/// and no copartition groups (whose processing order is, by the specification, topology order).
fn wired_topology() -> impl Strategy<Value = (Vec<Subtopology>, BTreeMap<String, i32>)> {
    let fixed = prop::collection::vec(prop_oneof![3 => Just(0), 1 => 1..7i32], REPARTITION.len());
    let view = prop::collection::vec(
        prop_oneof![1 => Just(None), 12 => (1..9i32).prop_map(Some)],
        EXTERNAL.len(),
    );
    let subset = |n: usize| prop::collection::vec(any::<bool>(), n);
    let existing = prop::collection::vec(
        prop_oneof![2 => Just(None), 1 => (1..7i32).prop_map(Some)],
        REPARTITION.len() + 2 * 6,
    );
    let subtopology = (
        subset(EXTERNAL.len()),
        subset(REPARTITION.len()),
        subset(REPARTITION.len()),
        any::<bool>(),
        0..3usize,
    );
    (
        fixed,
        view,
        existing,
        prop::collection::vec(subtopology, 1..7),
    )
        .prop_map(|(fixed, view, existing, subs)| {
            let pick = |mask: &[bool], names: &[&str]| -> Vec<String> {
                names
                    .iter()
                    .zip(mask)
                    .filter(|(_, &m)| m)
                    .map(|(n, _)| (*n).to_owned())
                    .collect()
            };
            let topology: Vec<Subtopology> = subs
                .into_iter()
                .enumerate()
                .map(|(i, (sources, reads, writes, regex, changelogs))| {
                    let mut s = Subtopology {
                        subtopology_id: i.to_string(),
                        source_topics: pick(&sources, &EXTERNAL),
                        repartition_sink_topics: pick(&writes, &REPARTITION),
                        repartition_source_topics: REPARTITION
                            .iter()
                            .zip(&reads)
                            .zip(&fixed)
                            .filter(|((_, &r), _)| r)
                            .map(|((n, _), &p)| TopicInfo {
                                name: (*n).to_owned(),
                                partitions: p,
                                ..Default::default()
                            })
                            .collect(),
                        state_changelog_topics: (0..changelogs)
                            .map(|k| TopicInfo {
                                name: format!("s{i}-store{k}-changelog"),
                                ..Default::default()
                            })
                            .collect(),
                        ..Default::default()
                    };
                    if regex {
                        s.source_topic_regex.push("e[0-2]".to_owned());
                    }
                    if s.source_topics.is_empty()
                        && s.source_topic_regex.is_empty()
                        && s.repartition_source_topics.is_empty()
                    {
                        s.source_topics.push("e4".to_owned());
                    }
                    s
                })
                .collect();
            // External topics, and some internal topics that already exist.
            let changelogs = topology.iter().enumerate().flat_map(|(i, s)| {
                s.state_changelog_topics
                    .iter()
                    .enumerate()
                    .map(move |(k, t)| (t.name.clone(), REPARTITION.len() + 2 * i + k))
            });
            let view = EXTERNAL
                .iter()
                .map(|t| (*t).to_owned())
                .zip(view)
                .chain(
                    REPARTITION
                        .iter()
                        .map(|t| (*t).to_owned())
                        .zip(existing.iter().copied()),
                )
                .chain(changelogs.map(|(t, k)| (t, existing.get(k).copied().flatten())))
                .filter_map(|(t, n)| n.map(|n| (t, n)))
                .collect();
            (topology, view)
        })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn inference_terminates_and_ignores_list_order((topology, view) in wired_topology(), seed in any::<u64>()) {
        prop_assert_eq!(validate(&topology), Ok(()));
        let result = configure(&topology, &view);
        prop_assert_eq!(configure(&shuffled(&topology, seed), &view), result.clone());

        // Fixing what the configuration reports (creating the missing internal topics, or
        // re-creating mismatching ones) makes the topology ready: the decided counts never
        // depend on the internal topics' own metadata.
        if let Configuration::MissingInternalTopics(_) | Configuration::InternalTopicsMismatch(_) = &result {
            let mut fixed_view = view.clone();
            let mut outcome = result.clone();
            for _ in 0..2 {
                match &outcome {
                    Configuration::MissingInternalTopics(topics) => fixed_view
                        .extend(topics.iter().map(|t| (t.name.clone(), t.num_partitions))),
                    Configuration::InternalTopicsMismatch(mismatches) => fixed_view
                        .extend(mismatches.iter().map(|(t, expected, _)| (t.clone(), *expected))),
                    _ => break,
                }
                outcome = configure(&topology, &fixed_view);
            }
            prop_assert!(matches!(outcome, Configuration::Ready(_)), "{:?}", outcome);
        }

        // Decided counts: fixed ones kept, inferred ones come from some external topic.
        if let Configuration::MissingInternalTopics(topics) = &result {
            let max_external = EXTERNAL.iter().filter_map(|t| view.get(*t)).copied().max().unwrap_or(0);
            for t in topics {
                let fixed = topology
                    .iter()
                    .flat_map(|s| &s.repartition_source_topics)
                    .find(|r| r.name == t.name)
                    .map_or(0, |r| r.partitions);
                if fixed > 0 {
                    prop_assert_eq!(t.num_partitions, fixed);
                } else {
                    prop_assert!(t.num_partitions >= 1 && t.num_partitions <= max_external.max(6));
                }
            }
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2048))]

    /// The literal-prefix shortcut never hides a match of the full regex.
    #[test]
    fn literal_prefix_keeps_every_match(
        pattern in "[ab_0-]{0,3}[ab.*+?|(){}\\[\\]12,_-]{0,6}",
        names in prop::collection::vec("[ab_0.-]{0,6}", 1..8),
    ) {
        let Some(regex) = patterns::compile_full_match(&pattern) else {
            return Ok(());
        };
        let topology = vec![Subtopology {
            subtopology_id: "0".to_owned(),
            source_topic_regex: vec![pattern.clone()],
            ..Default::default()
        }];
        let compiled = SourcePatterns::compile(&topology);
        let view: BTreeMap<String, i32> = names.iter().map(|n| (n.clone(), 1)).collect();
        let expected: Vec<&str> = view.keys().map(String::as_str).filter(|n| regex.is_match(n)).collect();
        let prefix = patterns::literal_prefix(&pattern);
        prop_assert!(expected.iter().all(|n| n.starts_with(prefix)), "prefix {:?}", prefix);
        prop_assert_eq!(compiled.matches(0, 0, &view).collect::<Vec<_>>(), expected.clone());
        for n in view.keys() {
            prop_assert_eq!(compiled.is_match(0, 0, n), regex.is_match(n));
            prop_assert_eq!(compiled.any_match(n), regex.is_match(n));
        }
    }
}

#[test]
fn literal_prefixes() {
    for (pattern, prefix) in [
        ("events-.*", "events-"),
        ("topic-[0-9]+", "topic-"),
        ("abc", "abc"),
        ("abc?", "ab"),
        ("abc*", "ab"),
        ("abc+", "ab"),
        ("abc{2}", "ab"),
        ("a|b", ""),
        ("ab(c|d)", ""),
        ("(?i)abc", ""),
        ("abc(?i)def", "abc"),
        ("a.b", "a"),
        (r"a\.b", "a"),
        ("", ""),
        ("ä", ""),
    ] {
        assert_eq!(patterns::literal_prefix(pattern), prefix, "{pattern}");
    }
}
