//! Source-topic regular expressions: full-match semantics on a linear-time engine.
//!
//! Java's `Pattern.matches` requires the whole topic name to match; we get the same by compiling
//! `^(?:pattern)$` with `regex-lite`, whose Pike VM runs in `O(pattern × name)` time on every
//! input (no backtracking, so no catastrophic patterns).

use std::collections::BTreeMap;
use std::ops::Bound;

use regex_lite::{Regex, RegexBuilder};

use super::model::Subtopology;

/// Upper bound on a compiled pattern's size (regex-lite's `size_limit`), so that matching a
/// 249-character topic name stays cheap even for a hostile pattern. Real Streams patterns (plain
/// alternations and wildcards) are a few hundred bytes; larger ones fail V10.
pub const PATTERN_SIZE_LIMIT: usize = 256 * 1024;

fn build(pattern: &str) -> Option<Regex> {
    RegexBuilder::new(pattern)
        .size_limit(PATTERN_SIZE_LIMIT)
        .build()
        .ok()
}

/// Compiles `pattern` for full matches, or `None` if it does not compile.
///
/// Only the anchored form is compiled, which is what configuration needs; a pattern with an
/// unbalanced `)` can compile here with another meaning, which is why validation (V10) uses
/// [`is_valid_pattern`], compiling the bare pattern as well.
pub fn compile_full_match(pattern: &str) -> Option<Regex> {
    build(&format!("^(?:{pattern})$"))
}

/// V10: the pattern compiles on its own and anchored. The bare compile rejects patterns that
/// would escape the anchoring group (`a)|(b`); the anchored one rejects patterns whose tail
/// swallows the anchors (a trailing `#` comment in `(?x)` mode).
pub fn is_valid_pattern(pattern: &str) -> bool {
    build(pattern).is_some() && compile_full_match(pattern).is_some()
}

/// A compiled pattern with the literal prefix every name it matches starts with.
#[derive(Clone, Debug)]
struct Pattern {
    regex: Regex,
    prefix: String,
}

impl Pattern {
    fn compile(pattern: &str) -> Option<Pattern> {
        compile_full_match(pattern).map(|regex| Pattern {
            regex,
            prefix: literal_prefix(pattern).to_owned(),
        })
    }

    fn is_match(&self, topic: &str) -> bool {
        topic.starts_with(&self.prefix) && self.regex.is_match(topic)
    }
}

/// A prefix of `pattern` that every full match starts with: the leading run of characters that
/// match only themselves (`[A-Za-z0-9_-]`), minus its last character if a quantifier follows,
/// and nothing if the pattern has a `|` anywhere (an alternation could bypass the prefix).
/// Streams patterns are typically `prefix-.*`, so this turns a scan of every topic into a range
/// query on the sorted topic view.
pub fn literal_prefix(pattern: &str) -> &str {
    if pattern.contains('|') {
        return "";
    }
    let end = pattern
        .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == '-'))
        .unwrap_or(pattern.len());
    let quantified = pattern[end..].starts_with(['?', '*', '+', '{']);
    match quantified {
        // The run is ASCII, so `end - 1` is a character boundary.
        true => &pattern[..end.saturating_sub(1)],
        false => &pattern[..end],
    }
}

/// The compiled source-topic regexes of a topology, one entry per `sourceTopicRegex` entry of
/// each subtopology (in order); `None` for a pattern that does not compile, which matches
/// nothing. Compile once and reuse it across [`super::configure_with`] calls while the topology
/// stays the same.
#[derive(Clone, Debug, Default)]
pub struct SourcePatterns {
    compiled: Vec<Vec<Option<Pattern>>>,
}

impl SourcePatterns {
    /// Compiles every `sourceTopicRegex` entry of the topology once.
    pub fn compile(subtopologies: &[Subtopology]) -> SourcePatterns {
        SourcePatterns {
            compiled: subtopologies
                .iter()
                .map(|s| {
                    s.source_topic_regex
                        .iter()
                        .map(|p| Pattern::compile(p))
                        .collect()
                })
                .collect(),
        }
    }

    fn pattern(&self, i: usize, j: usize) -> Option<&Pattern> {
        self.compiled
            .get(i)
            .and_then(|s| s.get(j))
            .and_then(Option::as_ref)
    }

    /// Whether the `j`-th regex of the `i`-th subtopology matches the whole of `topic`. Out of
    /// range positions (patterns compiled for another topology) match nothing.
    pub fn is_match(&self, i: usize, j: usize, topic: &str) -> bool {
        self.pattern(i, j).is_some_and(|p| p.is_match(topic))
    }

    /// The topics of `view` (sorted) that the `j`-th regex of the `i`-th subtopology matches,
    /// in name order.
    pub fn matches<'v, V>(
        &self,
        i: usize,
        j: usize,
        view: &'v BTreeMap<String, V>,
    ) -> impl Iterator<Item = &'v str> + use<'_, 'v, V> {
        let pattern = self.pattern(i, j);
        let prefix = pattern.map_or("", |p| p.prefix.as_str());
        view.range::<str, _>((Bound::Included(prefix), Bound::Unbounded))
            .map(|(t, _)| t.as_str())
            .take_while(move |t| t.starts_with(prefix))
            .filter(move |t| pattern.is_some_and(|p| p.regex.is_match(t)))
    }

    /// Whether any regex of the topology matches the whole of `topic`.
    pub fn any_match(&self, topic: &str) -> bool {
        self.compiled
            .iter()
            .flatten()
            .flatten()
            .any(|p| p.is_match(topic))
    }
}
