//! Topology ids and configuration (internal topics, task counts) for a topology of 1,000
//! subtopologies: `cargo bench --bench topology`.

use std::collections::BTreeMap;
use std::hint::black_box;

use criterion::{criterion_group, criterion_main, Criterion};
use streams_group_coordinator::topology::{
    configure, configure_with, topology_id, validate, Configuration, CopartitionGroup,
    SourcePatterns, Subtopology, TopicConfig, TopicInfo,
};

const SUBTOPOLOGIES: usize = 1_000;

/// A chain of subtopologies: each reads its own input topic and the repartition topic of the
/// previous one (copartitioned), writes a repartition topic for the next one and owns a state
/// store; every 50th also reads a regex that matches three topics.
fn topology() -> (Vec<Subtopology>, BTreeMap<String, i32>) {
    let repartition = |i: usize| format!("app-KSTREAM-{i:04}-repartition");
    let mut view = BTreeMap::new();
    let subtopologies: Vec<Subtopology> = (0..SUBTOPOLOGIES)
        .map(|i| {
            let input = format!("input-{i:04}");
            view.insert(input.clone(), 8);
            let mut s = Subtopology {
                subtopology_id: i.to_string(),
                source_topics: vec![input],
                state_changelog_topics: vec![TopicInfo {
                    name: format!("app-store-{i:04}-changelog"),
                    partitions: 0,
                    replication_factor: 3,
                    topic_configs: vec![
                        TopicConfig {
                            key: "cleanup.policy".into(),
                            value: "compact".into(),
                        },
                        TopicConfig {
                            key: "min.insync.replicas".into(),
                            value: "2".into(),
                        },
                    ],
                }],
                ..Default::default()
            };
            if i > 0 {
                s.repartition_source_topics.push(TopicInfo {
                    name: repartition(i - 1),
                    ..Default::default()
                });
                s.copartition_groups.push(CopartitionGroup {
                    source_topics: vec![0],
                    repartition_source_topics: vec![0],
                    ..Default::default()
                });
            }
            if i + 1 < SUBTOPOLOGIES {
                s.repartition_sink_topics.push(repartition(i));
            }
            if i % 50 == 0 {
                s.source_topic_regex.push(format!("events-{i:04}-.*"));
                for k in 0..3 {
                    view.insert(format!("events-{i:04}-{k}"), 4);
                }
            }
            s
        })
        .collect();
    (subtopologies, view)
}

fn bench(c: &mut Criterion) {
    let (subtopologies, external_view) = topology();
    assert_eq!(validate(&subtopologies), Ok(()));
    let Configuration::MissingInternalTopics(to_create) = configure(&subtopologies, &external_view)
    else {
        panic!("expected missing internal topics");
    };
    let mut full_view = external_view.clone();
    full_view.extend(to_create.iter().map(|t| (t.name.clone(), t.num_partitions)));
    assert!(matches!(
        configure(&subtopologies, &full_view),
        Configuration::Ready(_)
    ));
    let patterns = SourcePatterns::compile(&subtopologies);

    c.bench_function("topology_id/1000 subtopologies", |b| {
        b.iter(|| topology_id(black_box(&subtopologies)))
    });
    c.bench_function(
        "configure/1000 subtopologies, internal topics missing",
        |b| b.iter(|| configure(black_box(&subtopologies), black_box(&external_view))),
    );
    c.bench_function("configure/1000 subtopologies, ready", |b| {
        b.iter(|| configure(black_box(&subtopologies), black_box(&full_view)))
    });
    c.bench_function(
        "configure_with/1000 subtopologies, ready, patterns compiled",
        |b| b.iter(|| configure_with(black_box(&subtopologies), &patterns, black_box(&full_view))),
    );
    c.bench_function("validate/1000 subtopologies", |b| {
        b.iter(|| validate(black_box(&subtopologies)))
    });
}

criterion_group!(benches, bench);
criterion_main!(benches);
