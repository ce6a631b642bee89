//! `TransactionCompleted`: a transaction's end marker in the partition (Kafka's
//! `OffsetMetadataManager.replayEndTransactionMarker`, which Kafka's coordinator applies when
//! the transaction coordinator's `WriteTxnMarkers` reaches it and when it loads the partition).
//! The producer's pending offsets leave every group; on a commit each becomes committed unless
//! a newer offset of its partition was committed since it was written. The marker is the log
//! entry: there is no record to write, and a host replaying its log reports the marker again at
//! its place (docs/transactions.md).

use super::Coordinator;
use crate::api::{Explain, Output, TransactionResult};

impl Coordinator {
    /// Applies the marker; `explain` tells each group that had pending offsets of the producer.
    pub(super) fn transaction_completed(
        &mut self,
        producer_id: i64,
        result: TransactionResult,
        out: &mut Output,
    ) {
        let commit = result == TransactionResult::Commit;
        for done in self.offsets.complete_transaction(producer_id, commit) {
            out.explain.push(Explain::TransactionCompleted {
                group_id: done.group_id,
                producer_id,
                result: result.name(),
                partitions: done.partitions,
                committed: done.committed,
            });
        }
    }
}
