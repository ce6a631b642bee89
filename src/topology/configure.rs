//! Configuration of a topology against topic metadata (PROTOCOL 2.11 steps 1-7): task counts,
//! repartition partition counts, copartitioning, internal topics to create or that disagree.

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};

use super::model::{Subtopology, TopicInfo};
use super::patterns::SourcePatterns;
use super::validate::index;
use super::{Configuration, ConfiguredSubtopology, TopicConfigEntry, TopicToCreate};
use crate::ordered::{self, Ordered};

const NEVER_A_SINK: &str = "Failed to compute number of partitions for all repartition topics, \
     because a repartition source topic is never used as a sink topic.";
const UNRESOLVABLE_LOOPS: &str = "Failed to compute number of partitions for all repartition \
     topics. There may be loops in the topology that cannot be resolved.";

/// Configuration against `view`, with regexes compiled beforehand (see [`SourcePatterns`]).
pub fn configure_with(
    subtopologies: &[Subtopology],
    patterns: &SourcePatterns,
    view: &BTreeMap<String, i32>,
) -> Configuration {
    match Analysis::new(subtopologies, patterns, view).run() {
        Ok(ready) => Configuration::Ready(ready),
        Err(not_ready) => not_ready,
    }
}

/// The inputs of one subtopology, classified (PROTOCOL 2.11 "Classification").
struct Inputs<'a> {
    /// Literal external sources: `sourceTopics` that are not repartition topics.
    literal: Vec<&'a str>,
    /// Per `sourceTopicRegex` entry, the existing external topics it matches (sorted).
    matches: Vec<Vec<&'a str>>,
    /// Repartition sources (from `repartitionSourceTopics` and `sourceTopics`), as positions in
    /// `Analysis::repartition`.
    repartition: Vec<usize>,
    /// Maximum partition count of the external sources, if it has any.
    external_max: Option<i32>,
}

struct Analysis<'a> {
    subtopologies: &'a [Subtopology],
    view: &'a BTreeMap<String, i32>,
    /// Repartition topics sorted by name, each with its first listing in topology order.
    repartition: Vec<(&'a str, &'a TopicInfo)>,
    /// Position of each repartition topic in `repartition`.
    positions: HashMap<&'a str, usize>,
    inputs: Vec<Inputs<'a>>,
}

type Step<T> = Result<T, Configuration>;

impl<'a> Analysis<'a> {
    fn new(
        subtopologies: &'a [Subtopology],
        patterns: &SourcePatterns,
        view: &'a BTreeMap<String, i32>,
    ) -> Analysis<'a> {
        let mut first_listing: BTreeMap<&str, &TopicInfo> = BTreeMap::new();
        for t in subtopologies
            .iter()
            .flat_map(|s| &s.repartition_source_topics)
        {
            first_listing.entry(t.name.as_str()).or_insert(t);
        }
        let repartition: Vec<(&str, &TopicInfo)> = first_listing.into_iter().collect();
        // Hash maps for lookups only; nothing is ever iterated in hash order.
        let positions: HashMap<&str, usize> = repartition
            .iter()
            .enumerate()
            .map(|(x, (name, _))| (*name, x))
            .collect();
        let position = |name: &str| positions.get(name).copied();

        // Changelogs that are internal topics: all but those a subtopology also reads as a
        // literal external source ("source table" optimisation, step 4).
        let internal_changelogs: HashSet<&str> = subtopologies
            .iter()
            .flat_map(|s| {
                s.state_changelog_topics.iter().filter(move |t| {
                    position(&t.name).is_some() || !s.source_topics.contains(&t.name)
                })
            })
            .map(|t| t.name.as_str())
            .collect();
        let is_external_candidate =
            |topic: &str| position(topic).is_none() && !internal_changelogs.contains(topic);

        let inputs = subtopologies
            .iter()
            .enumerate()
            .map(|(i, s)| {
                let (repartition_sources, literal): (Vec<&str>, Vec<&str>) = s
                    .source_topics
                    .iter()
                    .map(String::as_str)
                    .partition(|t| position(t).is_some());
                let matches: Vec<Vec<&str>> = (0..s.source_topic_regex.len())
                    .map(|j| {
                        patterns
                            .matches(i, j, view)
                            .filter(|t| is_external_candidate(t))
                            .collect()
                    })
                    .collect();
                let external_max = literal
                    .iter()
                    .copied()
                    .chain(matches.iter().flatten().copied())
                    .filter_map(|t| view.get(t).copied())
                    .max();
                let repartition = s
                    .repartition_source_topics
                    .iter()
                    .map(|t| t.name.as_str())
                    .chain(repartition_sources)
                    .filter_map(position)
                    .collect();
                Inputs {
                    literal,
                    matches,
                    repartition,
                    external_max,
                }
            })
            .collect();
        Analysis {
            subtopologies,
            view,
            repartition,
            positions,
            inputs,
        }
    }

    fn run(&self) -> Step<Vec<ConfiguredSubtopology>> {
        self.check_missing_sources()?;
        let fixed: Vec<bool> = self
            .repartition
            .iter()
            .map(|(_, t)| t.partitions > 0)
            .collect();
        let mut counts = self.infer_repartition_counts(&fixed)?;
        self.enforce_copartitioning(&fixed, &mut counts)?;
        let tasks = self.task_counts(&counts)?;
        let internal = self.internal_topics(&counts, &tasks);
        self.check_existing_internal_topics(&internal)?;
        self.check_missing_internal_topics(&internal)?;
        Ok(self.ready(&counts, &tasks))
    }

    /// Step 1.
    fn check_missing_sources(&self) -> Step<()> {
        let mut missing = BTreeSet::new();
        for (s, inputs) in self.subtopologies.iter().zip(&self.inputs) {
            for t in &inputs.literal {
                if !self.view.contains_key(*t) {
                    missing.insert(*t);
                }
            }
            for (pattern, matches) in s.source_topic_regex.iter().zip(&inputs.matches) {
                if matches.is_empty() {
                    missing.insert(pattern.as_str());
                }
            }
        }
        match missing.is_empty() {
            true => Ok(()),
            false => Err(Configuration::MissingSourceTopics(
                missing.into_iter().map(str::to_owned).collect(),
            )),
        }
    }

    /// Step 2: fixed counts are kept; the others are inferred from the inputs of the
    /// subtopologies writing them, one pass over the unknown topics in name order after the
    /// other (a count decided in a pass is known to the rest of that pass), until all are known.
    fn infer_repartition_counts(&self, fixed: &[bool]) -> Step<Vec<i32>> {
        let mut writers: Vec<Vec<usize>> = vec![Vec::new(); self.repartition.len()];
        for (i, s) in self.subtopologies.iter().enumerate() {
            for sink in &s.repartition_sink_topics {
                if let Some(x) = self.position(sink) {
                    writers.get_mut(x).into_iter().for_each(|w| w.push(i));
                }
            }
        }
        if writers
            .iter()
            .zip(fixed)
            .any(|(w, &fixed)| !fixed && w.is_empty())
        {
            return Err(Configuration::Invalid(NEVER_A_SINK.to_owned()));
        }
        let mut counts: Vec<Option<i32>> = self
            .repartition
            .iter()
            .zip(fixed)
            .map(|((_, t), &fixed)| fixed.then_some(t.partitions))
            .collect();
        let mut unknown: Vec<usize> = (0..counts.len())
            .filter(|&x| counts.get(x).is_some_and(Option::is_none))
            .collect();
        while !unknown.is_empty() {
            let before = unknown.len();
            unknown.retain(|&x| {
                let collected = writers
                    .get(x)
                    .into_iter()
                    .flatten()
                    .filter_map(|&w| self.inputs.get(w))
                    .flat_map(|w| {
                        let known = w
                            .repartition
                            .iter()
                            .filter_map(|&r| counts.get(r).copied().flatten());
                        w.external_max.into_iter().chain(known)
                    })
                    .max();
                match (collected, counts.get_mut(x)) {
                    (Some(n), Some(slot)) => {
                        *slot = Some(n);
                        false
                    }
                    _ => true,
                }
            });
            if unknown.len() == before {
                return Err(Configuration::Invalid(UNRESOLVABLE_LOOPS.to_owned()));
            }
        }
        Ok(counts.into_iter().map(|c| c.unwrap_or(0)).collect())
    }

    /// Step 3.
    fn enforce_copartitioning(&self, fixed: &[bool], counts: &mut [i32]) -> Step<()> {
        for ((s, inputs), group) in self
            .subtopologies
            .iter()
            .zip(&self.inputs)
            .flat_map(|(s, inputs)| s.copartition_groups.iter().map(move |g| ((s, inputs), g)))
        {
            let mut members: BTreeSet<&str> = BTreeSet::new();
            for &i in &group.source_topics {
                members.extend(
                    index(i, s.source_topics.len())
                        .and_then(|i| s.source_topics.get(i))
                        .map(String::as_str),
                );
            }
            for &i in &group.source_topic_regex {
                members.extend(
                    index(i, inputs.matches.len())
                        .and_then(|i| inputs.matches.get(i))
                        .into_iter()
                        .flatten()
                        .copied(),
                );
            }
            for &i in &group.repartition_source_topics {
                members.extend(
                    index(i, s.repartition_source_topics.len())
                        .and_then(|i| s.repartition_source_topics.get(i))
                        .map(|t| t.name.as_str()),
                );
            }
            let (repartition, external): (Vec<&str>, Vec<&str>) = members
                .into_iter()
                .partition(|t| self.position(t).is_some());
            let repartition: Vec<(&str, usize)> = repartition
                .into_iter()
                .filter_map(|t| self.position(t).map(|x| (t, x)))
                .collect();
            let count = |x: usize| counts.get(x).copied().unwrap_or(0);
            let is_fixed = |x: usize| fixed.get(x).copied().unwrap_or(false);
            let external: Vec<(&str, i32)> = external
                .into_iter()
                .filter_map(|t| self.view.get(t).map(|&n| (t, n)))
                .collect();

            let common = if external.is_empty() {
                let fixed_members: Vec<(&str, i32)> = repartition
                    .iter()
                    .filter(|(_, x)| is_fixed(*x))
                    .map(|&(t, x)| (t, count(x)))
                    .collect();
                if let Some(&(_, n)) = fixed_members.first() {
                    if fixed_members.iter().any(|&(_, m)| m != n) {
                        return Err(Configuration::InternalTopicsIncorrectlyPartitioned(
                            different_counts(&fixed_members),
                        ));
                    }
                    n
                } else {
                    let Some(max) = repartition.iter().map(|&(_, x)| count(x)).max() else {
                        continue;
                    };
                    if max <= 0 {
                        let names: Vec<&str> = repartition.iter().map(|&(t, _)| t).collect();
                        return Err(Configuration::Invalid(format!(
                            "All topics in the copartition group had undefined partition \
                             number: [{}]",
                            names.join(", ")
                        )));
                    }
                    max
                }
            } else {
                let n = external.first().map_or(0, |&(_, n)| n);
                if external.iter().any(|&(_, m)| m != n) {
                    return Err(Configuration::SourceTopicsIncorrectlyPartitioned(
                        different_counts(&external),
                    ));
                }
                if let Some(&(t, x)) = repartition
                    .iter()
                    .find(|&&(_, x)| is_fixed(x) && count(x) != n)
                {
                    return Err(Configuration::InternalTopicsIncorrectlyPartitioned(
                        format!(
                            "Number of partitions [{}] of repartition topic [{t}] doesn't match \
                         number of partitions [{n}] of the source topic.",
                            count(x)
                        ),
                    ));
                }
                n
            };
            for &(_, x) in &repartition {
                if !is_fixed(x) {
                    if let Some(slot) = counts.get_mut(x) {
                        *slot = common;
                    }
                }
            }
        }
        Ok(())
    }

    /// Step 4, first half: the number of tasks of each subtopology (in topology order).
    fn task_counts(&self, counts: &[i32]) -> Step<Vec<i32>> {
        self.subtopologies
            .iter()
            .zip(&self.inputs)
            .map(|(s, inputs)| {
                let repartition_max = inputs
                    .repartition
                    .iter()
                    .filter_map(|&x| counts.get(x).copied())
                    .max();
                // Only a subtopology without any source list gets here without inputs (V3);
                // the 4.2 dialect validates V3 here (PROTOCOL 4.3).
                inputs.external_max.max(repartition_max).ok_or_else(|| {
                    Configuration::Invalid(format!(
                        "No source topics found for subtopology {}",
                        s.subtopology_id
                    ))
                })
            })
            .collect()
    }

    /// Step 4, second half, and the internal topics of step 5: name -> (decided count, first
    /// listing). Repartition topics first, then changelogs in topology order; a name listed
    /// again keeps what its first listing decided.
    fn internal_topics(
        &self,
        counts: &[i32],
        tasks: &[i32],
    ) -> BTreeMap<&'a str, (i32, &'a TopicInfo)> {
        let mut internal: BTreeMap<&str, (i32, &TopicInfo)> = self
            .repartition
            .iter()
            .zip(counts)
            .map(|(&(name, info), &n)| (name, (n, info)))
            .to_map();
        for ((s, inputs), &n) in self.subtopologies.iter().zip(&self.inputs).zip(tasks) {
            for t in &s.state_changelog_topics {
                if !inputs.literal.contains(&t.name.as_str()) {
                    internal.entry(t.name.as_str()).or_insert((n, t));
                }
            }
        }
        internal
    }

    /// Step 5.
    fn check_existing_internal_topics(
        &self,
        internal: &BTreeMap<&str, (i32, &TopicInfo)>,
    ) -> Step<()> {
        let mismatches: Vec<(String, i32, i32)> = internal
            .iter()
            .filter_map(|(&name, &(expected, _))| {
                self.view
                    .get(name)
                    .filter(|&&found| found != expected)
                    .map(|&found| (name.to_owned(), expected, found))
            })
            .collect();
        match mismatches.is_empty() {
            true => Ok(()),
            false => Err(Configuration::InternalTopicsMismatch(mismatches)),
        }
    }

    /// Step 6.
    fn check_missing_internal_topics(
        &self,
        internal: &BTreeMap<&str, (i32, &TopicInfo)>,
    ) -> Step<()> {
        let missing: Vec<TopicToCreate> = internal
            .iter()
            .filter(|(name, _)| !self.view.contains_key(**name))
            .map(|(&name, &(n, info))| TopicToCreate {
                name: name.to_owned(),
                num_partitions: n,
                replication_factor: match info.replication_factor {
                    0 => -1,
                    r => r,
                },
                configs: info
                    .topic_configs
                    .iter()
                    .map(|c| TopicConfigEntry {
                        name: c.key.clone(),
                        value: c.value.clone(),
                    })
                    .collect(),
            })
            .collect();
        match missing.is_empty() {
            true => Ok(()),
            false => Err(Configuration::MissingInternalTopics(missing)),
        }
    }

    /// Step 7.
    fn ready(&self, counts: &[i32], tasks: &[i32]) -> Vec<ConfiguredSubtopology> {
        let mut ready: Vec<ConfiguredSubtopology> = self
            .subtopologies
            .iter()
            .zip(&self.inputs)
            .zip(tasks)
            .map(|((s, inputs), &num_tasks)| {
                let mut input_topics: BTreeMap<&str, i32> = inputs
                    .literal
                    .iter()
                    .copied()
                    .chain(inputs.matches.iter().flatten().copied())
                    .filter_map(|t| self.view.get(t).map(|&n| (t, n)))
                    .to_map();
                for &x in &inputs.repartition {
                    if let (Some(&(name, _)), Some(&n)) = (self.repartition.get(x), counts.get(x)) {
                        input_topics.insert(name, n);
                    }
                }
                ConfiguredSubtopology {
                    subtopology_id: s.subtopology_id.clone(),
                    num_tasks,
                    stateful: !s.state_changelog_topics.is_empty(),
                    input_topics: input_topics
                        .into_iter()
                        .map(|(t, n)| (t.to_owned(), n))
                        .collect(),
                }
            })
            .collect();
        ordered::sort_by(&mut ready, |a, b| a.subtopology_id.cmp(&b.subtopology_id));
        ready
    }

    fn position(&self, name: &str) -> Option<usize> {
        self.positions.get(name).copied()
    }
}

/// `Following topics do not have the same number of partitions: [{a=10, b=5}]`, over topics
/// already sorted by name.
fn different_counts(topics: &[(&str, i32)]) -> String {
    let list: Vec<String> = topics.iter().map(|(t, n)| format!("{t}={n}")).collect();
    format!(
        "Following topics do not have the same number of partitions: [{{{}}}]",
        list.join(", ")
    )
}
