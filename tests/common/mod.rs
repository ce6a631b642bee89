//! Helpers shared by the integration tests.
#![allow(dead_code)]

pub mod harness;
pub mod spread;

#[allow(unused_imports)]
pub use harness::send;
use streams_group_coordinator::Coordinator;

/// Everything observable of a coordinator: groups (hard, derived and soft state), timers and
/// the clock; equal strings mean a failed input changed nothing.
pub fn observed(c: &Coordinator) -> String {
    format!(
        "{:?}\n{:?}\n{}",
        c.groups(),
        c.timers().iter().collect::<Vec<_>>(),
        c.now_ms()
    )
}
