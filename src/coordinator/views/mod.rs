//! Read-only views of the state: leaf modules that import no operation, service or dialect.

pub(crate) mod describe;
pub(crate) mod describe_groups;
pub(crate) mod endpoints;
pub(crate) mod list_groups;
pub(crate) mod snapshot;
pub(crate) mod statuses;
