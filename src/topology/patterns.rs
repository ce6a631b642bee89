//! Source-topic regular expressions: full-match semantics on a linear-time engine.
//!
//! Java's `Pattern.matches` requires the whole topic name to match; we get the same by compiling
//! `^(?:pattern)$` with `regex-lite`, whose Pike VM runs in `O(pattern × name)` time on every
//! input (no backtracking, so no catastrophic patterns).

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

/// The compiled source-topic regexes of a topology, one entry per `sourceTopicRegex` entry of
/// each subtopology (in order); `None` for a pattern that does not compile, which matches
/// nothing. Compile once and reuse it across [`super::configure_with`] calls while the topology
/// stays the same.
#[derive(Clone, Debug, Default)]
pub struct SourcePatterns {
    compiled: Vec<Vec<Option<Regex>>>,
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
                        .map(|p| compile_full_match(p))
                        .collect()
                })
                .collect(),
        }
    }

    /// Whether the `j`-th regex of the `i`-th subtopology matches the whole of `topic`. Out of
    /// range positions (patterns compiled for another topology) match nothing.
    pub fn is_match(&self, i: usize, j: usize, topic: &str) -> bool {
        self.compiled
            .get(i)
            .and_then(|s| s.get(j))
            .and_then(Option::as_ref)
            .is_some_and(|r| r.is_match(topic))
    }

    /// Whether any regex of the topology matches the whole of `topic`.
    pub fn any_match(&self, topic: &str) -> bool {
        self.compiled
            .iter()
            .flatten()
            .flatten()
            .any(|r| r.is_match(topic))
    }
}
