// When simulated members act next: the cluster's agenda, a binary min-heap of `{t, seq, member}`
// by time, then start order (`seq`). A member that reschedules leaves its old entry behind; the
// cluster drops entries whose time is no longer the member's `dueAt` as it meets them.

/** Whether agenda entry `a` comes before `b`: by time, then start order. */
function earlier(a, b) {
  return a.t < b.t || (a.t === b.t && a.seq < b.seq);
}

/** A binary min-heap of `{t, seq, member}` by time, then start order. */
export class Agenda {
  #heap = [];

  push(t, seq, member) {
    const h = this.#heap;
    h.push({ t, seq, member });
    let i = h.length - 1;
    while (i > 0) {
      const p = (i - 1) >> 1;
      if (!earlier(h[i], h[p])) break;
      [h[i], h[p]] = [h[p], h[i]];
      i = p;
    }
  }

  peek() {
    return this.#heap[0];
  }

  pop() {
    const h = this.#heap;
    const top = h[0];
    const last = h.pop();
    if (h.length > 0) {
      h[0] = last;
      let i = 0;
      for (;;) {
        const l = 2 * i + 1;
        const r = l + 1;
        let m = i;
        if (l < h.length && earlier(h[l], h[m])) m = l;
        if (r < h.length && earlier(h[r], h[m])) m = r;
        if (m === i) break;
        [h[i], h[m]] = [h[m], h[i]];
        i = m;
      }
    }
    return top;
  }
}
