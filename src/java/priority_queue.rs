//! `java.util.PriorityQueue` with a comparator: the same binary heap in the same array, so that
//! elements that compare equal come out in the same order as in Java.
//!
//! The comparator is passed to every call rather than kept, so that it may read state that the
//! caller changes between calls (Kafka's queues order processes by a load that changes while a
//! process is out of the queue).

use std::cmp::Ordering;

/// A binary heap laid out and sifted exactly as `java.util.PriorityQueue`.
#[derive(Clone, Debug, Default)]
pub(crate) struct JavaPriorityQueue<T> {
    queue: Vec<T>,
}

impl<T> JavaPriorityQueue<T> {
    /// An empty queue.
    pub(crate) fn new() -> Self {
        JavaPriorityQueue { queue: Vec::new() }
    }

    /// `new PriorityQueue<>(collection, ..)` of a plain collection: the elements in their
    /// order, then `heapify`.
    pub(crate) fn from_collection<F>(items: Vec<T>, cmp: F) -> Self
    where
        F: Fn(&T, &T) -> Ordering,
    {
        let mut q = JavaPriorityQueue { queue: items };
        let n = q.queue.len();
        for i in (0..n / 2).rev() {
            q.sift_down(i, &cmp);
        }
        q
    }

    /// Number of elements.
    pub(crate) fn len(&self) -> usize {
        self.queue.len()
    }

    /// Whether the queue is empty.
    pub(crate) fn is_empty(&self) -> bool {
        self.queue.is_empty()
    }

    /// The heap array (the queue's iteration order).
    pub(crate) fn as_slice(&self) -> &[T] {
        &self.queue
    }

    /// `peek`.
    pub(crate) fn peek(&self) -> Option<&T> {
        self.queue.first()
    }

    /// `add` / `offer`.
    pub(crate) fn offer<F>(&mut self, item: T, cmp: F)
    where
        F: Fn(&T, &T) -> Ordering,
    {
        self.queue.push(item);
        let k = self.queue.len() - 1;
        self.sift_up(k, &cmp);
    }

    /// `addAll` (one `add` per element, in order).
    pub(crate) fn add_all<F>(&mut self, items: impl IntoIterator<Item = T>, cmp: F)
    where
        F: Fn(&T, &T) -> Ordering,
    {
        for item in items {
            self.offer(item, &cmp);
        }
    }

    /// `poll`.
    pub(crate) fn poll<F>(&mut self, cmp: F) -> Option<T>
    where
        F: Fn(&T, &T) -> Ordering,
    {
        if self.queue.is_empty() {
            return None;
        }
        let last = self.queue.len() - 1;
        self.queue.swap(0, last);
        let result = self.queue.pop();
        if !self.queue.is_empty() {
            self.sift_down(0, &cmp);
        }
        result
    }

    /// `remove(Object)`: removes the first element (in array order) equal to `item`.
    pub(crate) fn remove<F>(&mut self, item: &T, cmp: F) -> bool
    where
        T: PartialEq,
        F: Fn(&T, &T) -> Ordering,
    {
        match self.queue.iter().position(|x| x == item) {
            Some(i) => {
                self.remove_at(i, cmp);
                true
            }
            None => false,
        }
    }

    /// `removeAt(i)`: the last element takes slot `i`, sifts down, and up if it did not move.
    pub(crate) fn remove_at<F>(&mut self, i: usize, cmp: F) -> Option<T>
    where
        F: Fn(&T, &T) -> Ordering,
    {
        if i >= self.queue.len() {
            return None;
        }
        let last = self.queue.len() - 1;
        if i == last {
            return self.queue.pop();
        }
        self.queue.swap(i, last);
        let removed = self.queue.pop();
        if self.sift_down(i, &cmp) == i {
            self.sift_up(i, &cmp);
        }
        removed
    }

    /// `siftUpUsingComparator`: moves the element at `k` up; returns where it ends.
    fn sift_up<F>(&mut self, mut k: usize, cmp: &F) -> usize
    where
        F: Fn(&T, &T) -> Ordering,
    {
        while k > 0 {
            let parent = (k - 1) / 2;
            if cmp(&self.queue[k], &self.queue[parent]) != Ordering::Less {
                break;
            }
            self.queue.swap(k, parent);
            k = parent;
        }
        k
    }

    /// `siftDownUsingComparator`: moves the element at `k` down; returns where it ends.
    fn sift_down<F>(&mut self, mut k: usize, cmp: &F) -> usize
    where
        F: Fn(&T, &T) -> Ordering,
    {
        let n = self.queue.len();
        let half = n / 2;
        while k < half {
            let mut child = 2 * k + 1;
            let right = child + 1;
            if right < n && cmp(&self.queue[child], &self.queue[right]) == Ordering::Greater {
                child = right;
            }
            if cmp(&self.queue[k], &self.queue[child]) != Ordering::Greater {
                break;
            }
            self.queue.swap(k, child);
            k = child;
        }
        k
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    /// (key, label): ordered by key only, so the labels show how ties come out.
    fn by_key(a: &(i32, char), b: &(i32, char)) -> Ordering {
        a.0.cmp(&b.0)
    }

    fn drain(mut q: JavaPriorityQueue<(i32, char)>) -> String {
        std::iter::from_fn(|| q.poll(by_key))
            .map(|(_, c)| c)
            .collect()
    }

    #[test]
    fn ties_come_out_in_heap_order() {
        let mut q = JavaPriorityQueue::new();
        q.add_all([(0, 'a'), (0, 'b'), (0, 'c'), (0, 'd')], by_key);
        // poll moves the last to the root and sifts it down past equal children not at all.
        assert_eq!(drain(q), "adcb");
        let q = JavaPriorityQueue::from_collection(
            vec![(2, 'a'), (1, 'b'), (1, 'c'), (0, 'd'), (1, 'e')],
            by_key,
        );
        assert_eq!(
            q.as_slice().iter().map(|x| x.1).collect::<String>(),
            "dbcae"
        );
        assert_eq!(drain(q), "debca");
    }

    #[test]
    fn remove_at_sifts_down_then_up() {
        let mut q = JavaPriorityQueue::new();
        q.add_all(
            [(1, 'a'), (5, 'b'), (2, 'c'), (6, 'd'), (7, 'e'), (3, 'f')],
            by_key,
        );
        assert_eq!(
            q.as_slice().iter().map(|x| x.1).collect::<String>(),
            "abcdef"
        );
        // Removing 'd' (index 3) moves 'f' (3) there; it cannot go down, so it goes up past 'b'.
        assert!(q.remove(&(6, 'd'), by_key));
        assert_eq!(
            q.as_slice().iter().map(|x| x.1).collect::<String>(),
            "afcbe"
        );
        assert!(!q.remove(&(9, 'z'), by_key));
        assert_eq!(q.peek(), Some(&(1, 'a')));
        assert_eq!(q.len(), 5);
        assert_eq!(drain(q), "acfbe");
    }
}
