//! Source-topic regular expressions: full-match semantics on a linear-time engine.
//!
//! Java's `Pattern.matches` requires the whole topic name to match; we get the same by compiling
//! `^(?:pattern)$` with `regex-lite`, whose Pike VM runs in `O(pattern × name)` time on every
//! input (no backtracking, so no catastrophic patterns).

use std::collections::BTreeMap;
use std::ops::Bound;
use std::sync::{Mutex, MutexGuard};

use regex_lite::{Regex, RegexBuilder};

use super::model::Subtopology;

/// Upper bound on a compiled pattern's size (regex-lite's `size_limit`), so that matching a
/// 249-character topic name stays cheap even for a hostile pattern. Real Streams patterns (plain
/// alternations and wildcards) are a few hundred bytes; larger ones fail V10.
pub const PATTERN_SIZE_LIMIT: usize = 256 * 1024;

fn build(pattern: &str) -> Option<Regex> {
    build_within(pattern, PATTERN_SIZE_LIMIT)
}

fn build_within(pattern: &str, size_limit: usize) -> Option<Regex> {
    RegexBuilder::new(pattern)
        .size_limit(size_limit.min(PATTERN_SIZE_LIMIT))
        .build()
        .ok()
}

/// As [`compile_full_match`], with a smaller size limit (the coordinator's setting).
pub fn compile_full_match_within(pattern: &str, size_limit: usize) -> Option<Regex> {
    build_within(&format!("^(?:{pattern})$"), size_limit)
}

/// The compiled size of `pattern`'s full-match form, to the nearest power of two above it (the
/// smallest size limit it compiles within), or `None` if it does not compile at all.
pub fn compiled_size(pattern: &str) -> Option<usize> {
    let full = format!("^(?:{pattern})$");
    let fits = |limit: usize| RegexBuilder::new(&full).size_limit(limit).build().is_ok();
    if !fits(PATTERN_SIZE_LIMIT) {
        return None;
    }
    let mut size = 64;
    while size < PATTERN_SIZE_LIMIT && !fits(size) {
        size *= 2;
    }
    Some(size)
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
    source: String,
}

impl Pattern {
    fn compile(pattern: &str) -> Option<Pattern> {
        compile_full_match(pattern).map(|regex| Pattern {
            regex,
            prefix: literal_prefix(pattern).to_owned(),
            source: pattern.to_owned(),
        })
    }

    /// The cheap test: a full match starts with the literal prefix.
    fn could_match(&self, topic: &str) -> bool {
        topic.starts_with(&self.prefix)
    }

    fn is_match(&self, topic: &str) -> bool {
        self.could_match(topic) && self.regex.is_match(topic)
    }
}

/// A prefix of `pattern` that every full match starts with: the leading run of characters that
/// match only themselves (`[A-Za-z0-9_-]`), minus its last character if a quantifier follows,
/// and nothing if the pattern has a `|` anywhere (an alternation could bypass the prefix).
/// Streams patterns are typically `prefix-.*`, so this turns a scan of every topic into a range
/// query on the sorted topic view.
pub fn literal_prefix(pattern: &str) -> &str {
    if pattern.contains('|') || closes_outside(pattern) {
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

/// Whether `pattern` has a `)` that no `(` of its own opens: anchored, it would close the
/// anchoring group, and a quantifier after it could make the prefix optional (such a pattern
/// fails V10, but the prefix must stay sound for any pattern).
fn closes_outside(pattern: &str) -> bool {
    let mut depth = 0i32;
    let mut chars = pattern.chars();
    while let Some(c) = chars.next() {
        match c {
            '\\' => {
                chars.next();
            }
            '[' => {
                // A class ends at the first unescaped `]` after its first character.
                let mut first = true;
                while let Some(k) = chars.next() {
                    match k {
                        '\\' => {
                            chars.next();
                        }
                        ']' if !first => break,
                        _ => {}
                    }
                    first = false;
                }
            }
            '(' => depth += 1,
            ')' => {
                depth -= 1;
                if depth < 0 {
                    return true;
                }
            }
            _ => {}
        }
    }
    false
}

/// The compiled source-topic regexes of a topology, one entry per `sourceTopicRegex` entry of
/// each subtopology (in order); `None` for a pattern that does not compile, which matches
/// nothing. Compile once and reuse it across [`super::configure_with`] calls while the topology
/// stays the same: every (pattern, topic) match is remembered, so a regex meets each topic name
/// once, however often the group refreshes (bounded cost: a match can take milliseconds).
#[derive(Debug, Default)]
pub struct SourcePatterns {
    compiled: Vec<Vec<Option<Pattern>>>,
    /// Per topic name, per pattern (flattened): 0 not yet matched, 1 no match, 2 a match. A
    /// mutex (never contended: the coordinator is driven by one caller at a time) keeps the
    /// coordinator `Sync`.
    memo: Mutex<BTreeMap<String, Vec<u8>>>,
}

impl Clone for SourcePatterns {
    fn clone(&self) -> Self {
        SourcePatterns {
            compiled: self.compiled.clone(),
            memo: Mutex::new(self.memo().clone()),
        }
    }
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
            memo: Mutex::default(),
        }
    }

    /// The match memo; a poisoned lock (a panic elsewhere) still holds valid entries.
    fn memo(&self) -> MutexGuard<'_, BTreeMap<String, Vec<u8>>> {
        self.memo.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Whether these are the patterns of `subtopologies`, in order.
    pub fn is_for(&self, subtopologies: &[Subtopology]) -> bool {
        self.compiled.len() == subtopologies.len()
            && self.compiled.iter().zip(subtopologies).all(|(c, s)| {
                c.len() == s.source_topic_regex.len()
                    && c.iter().zip(&s.source_topic_regex).all(|(p, r)| {
                        p.as_ref().map(|p| p.source.as_str()) == Some(r.as_str())
                            || (p.is_none() && Pattern::compile(r).is_none())
                    })
            })
    }

    fn pattern(&self, i: usize, j: usize) -> Option<&Pattern> {
        self.compiled
            .get(i)
            .and_then(|s| s.get(j))
            .and_then(Option::as_ref)
    }

    /// The flat position of pattern `(i, j)` and the number of patterns.
    fn flat(&self, i: usize, j: usize) -> (usize, usize) {
        let before: usize = self.compiled.iter().take(i).map(Vec::len).sum();
        let total: usize = self.compiled.iter().map(Vec::len).sum();
        (before + j, total)
    }

    /// `pattern.is_match(topic)`, remembered per topic name.
    fn remembered(&self, i: usize, j: usize, pattern: &Pattern, topic: &str) -> bool {
        let (at, total) = self.flat(i, j);
        let mut memo = self.memo();
        if let Some(known) = memo.get(topic).and_then(|m| m.get(at)).filter(|v| **v != 0) {
            return *known == 2;
        }
        let matched = pattern.is_match(topic);
        let entry = memo
            .entry(topic.to_owned())
            .or_insert_with(|| vec![0; total]);
        if let Some(slot) = entry.get_mut(at) {
            *slot = if matched { 2 } else { 1 };
        }
        matched
    }

    /// Forgets the topics not in `keep` (the topic image after a change), so that the memory
    /// follows the image.
    pub fn retain_topics(&self, keep: impl Fn(&str) -> bool) {
        // Rebuilt rather than `retain`ed: no BTreeMap removal code for the memo's type (the
        // topic image changes seldom, and the memo holds one entry per topic).
        let mut memo = self.memo();
        let kept = std::mem::take(&mut *memo)
            .into_iter()
            .filter(|(t, _)| keep(t));
        memo.extend(kept);
    }

    /// Whether the `j`-th regex of the `i`-th subtopology matches the whole of `topic`. Out of
    /// range positions (patterns compiled for another topology) match nothing.
    pub fn is_match(&self, i: usize, j: usize, topic: &str) -> bool {
        self.pattern(i, j)
            .is_some_and(|p| p.could_match(topic) && self.remembered(i, j, p, topic))
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
            .filter(move |t| pattern.is_some_and(|p| self.remembered(i, j, p, t)))
    }

    /// Whether any regex of the topology matches the whole of `topic`.
    pub fn any_match(&self, topic: &str) -> bool {
        self.compiled.iter().enumerate().any(|(i, s)| {
            s.iter().enumerate().any(|(j, p)| {
                p.as_ref()
                    .is_some_and(|p| p.could_match(topic) && self.remembered(i, j, p, topic))
            })
        })
    }
}

#[cfg(test)]
mod memo_tests {
    use super::*;
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    #[test]
    fn each_topic_is_matched_once_and_forgotten_with_the_image() {
        let subs = [Subtopology {
            subtopology_id: "0".into(),
            source_topic_regex: vec!["a.*".into(), "(?:x|ab)c".into()],
            ..Default::default()
        }];
        let patterns = SourcePatterns::compile(&subs);
        assert!(patterns.is_for(&subs));
        assert!(patterns.is_match(0, 1, "abc"));
        assert!(patterns.is_match(0, 0, "abc"));
        assert!(!patterns.is_match(0, 1, "xy"));
        assert_eq!(patterns.memo().get("abc"), Some(&vec![2, 2]));
        // A remembered answer is what the regex says, for every position.
        assert_eq!(patterns.memo().get("xy"), Some(&vec![0, 1]));
        assert!(patterns.any_match("xc"));
        patterns.retain_topics(|t| t == "abc");
        assert_eq!(patterns.memo().len(), 1);
        let other = [Subtopology {
            source_topic_regex: vec!["a.*".into()],
            ..subs[0].clone()
        }];
        assert!(!patterns.is_for(&other));
    }
}
