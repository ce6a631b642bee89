// Fault injection on a simulated member's way to the coordinator: heartbeats lost or delayed.
// The member does not notice; it heartbeats on its interval and asks, for each heartbeat it
// sends, what becomes of it (`fate`).

/** The faults injected into one member's heartbeats (none at first). */
export class HeartbeatFaults {
  /** How many of the next heartbeats are lost. */
  dropCount = 0;
  /** Heartbeats sent before this time are lost. */
  dropUntil = -1;
  /** How long the next `delayCount` heartbeats take to arrive. */
  delayMs = 0;
  delayCount = 0;

  /** Loses the next `count` heartbeats or, with `{forMs}`, those sent in the next `forMs` ms. */
  drop(countOrOptions, now) {
    if (typeof countOrOptions === 'number') {
      this.dropCount = countOrOptions;
    } else {
      if (countOrOptions.count !== undefined) this.dropCount = countOrOptions.count;
      if (countOrOptions.forMs !== undefined) {
        this.dropUntil = now + countOrOptions.forMs;
      }
    }
  }

  /** Delays the next `count` heartbeats by `ms`. */
  delay(ms, count) {
    this.delayMs = ms;
    this.delayCount = count;
  }

  /**
   * What becomes of a heartbeat sent at `now`: `'lost'`, `'delayed'` (by `delayMs`) or
   * `'sent'`. A lost or delayed heartbeat uses up one of its fault's count.
   */
  fate(now) {
    if (this.dropCount > 0 || now < this.dropUntil) {
      if (this.dropCount > 0) this.dropCount -= 1;
      return 'lost';
    }
    if (this.delayMs > 0 && this.delayCount > 0) {
      this.delayCount -= 1;
      return 'delayed';
    }
    return 'sent';
  }
}
