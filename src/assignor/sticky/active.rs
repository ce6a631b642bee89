//! Active tasks: A1 (stickiness), A2 (standby promotion) and A3 (fill), the stateful class
//! first, then the stateless one; then L and the standbys.

use super::group::Group;
use super::loads::{Loads, Quota};
use super::{Placement, NONE};

impl Group<'_> {
    pub(super) fn place(&self) -> Placement {
        let num_tasks = self.num_tasks();
        let num_members = self.member_ids.len();
        let mut loads = Loads::new(&self.member_process, &self.capacity, &self.load_scale);
        let mut owner = vec![NONE; num_tasks];

        // Stateful tasks, then stateless ones, each through A1-A3 with its own quota `qc` beside
        // the overall quota `qa`; with one class only, `qc` and `qa` are the same.
        let mut qa = Quota::new(num_tasks as u64, num_members as u64);
        let mut class_count = vec![0u32; num_members];
        // Each member's stateful actives, as the stateful class leaves them (L moves some).
        let mut stateful_count = vec![0u32; num_members];
        for class in [true, false] {
            let stateful = self.num_stateful_tasks as usize;
            let class_tasks = if class {
                stateful
            } else {
                num_tasks - stateful
            };
            if class_tasks == 0 {
                continue;
            }
            let mut qc = Quota::new(class_tasks as u64, num_members as u64);
            if !class {
                stateful_count.copy_from_slice(&class_count);
            }
            class_count.fill(0);
            macro_rules! give {
                ($t:expr, $m:expr) => {{
                    let (t, m): (u32, u32) = ($t, $m);
                    owner[t as usize] = m;
                    loads.add_active(m);
                    class_count[m as usize] += 1;
                    qc.on_assigned(class_count[m as usize]);
                    qa.on_assigned(loads.active[m as usize]);
                }};
            }

            // A1: stickiness. Neither A1 nor A2 asks for the least-loaded member of the group.
            loads.unheap();
            for &t in &self.partition_order {
                let prev = self.prev_active[t as usize];
                if self.stateful(t) == class
                    && prev != NONE
                    && (!class || qc.below(class_count[prev as usize]))
                    && qa.below(loads.active[prev as usize])
                {
                    give!(t, prev);
                }
            }

            // A2: standby promotion.
            for &t in &self.partition_order {
                if self.stateful(t) != class || owner[t as usize] != NONE {
                    continue;
                }
                let best = self
                    .prev_standby_of(t)
                    .iter()
                    .copied()
                    .filter(|&c| {
                        (!class || qc.below(class_count[c as usize]))
                            && qa.below(loads.active[c as usize])
                    })
                    .reduce(|best, c| if loads.less(c, best) { c } else { best });
                if let Some(m) = best {
                    give!(t, m);
                }
            }

            // A3: fill, in (subtopology id, partition) order.
            for t in 0..num_tasks as u32 {
                if self.stateful(t) != class || owner[t as usize] != NONE {
                    continue;
                }
                if let Some(m) = loads.least_loaded() {
                    give!(t, m);
                }
            }
        }

        if self.num_stateful_tasks as usize == num_tasks {
            // No stateless class came after the stateful one.
            stateful_count.copy_from_slice(&class_count);
        }

        let warmup = self.place_warmups(&mut owner, &mut loads, &mut stateful_count);

        let mut standby = Vec::new();
        if self.replicas > 0 {
            standby = self.place_standbys(&owner, &warmup, &mut loads, &stateful_count);
        }

        Placement {
            active_owner: owner,
            active_count: loads.active,
            standby,
            warmup,
        }
    }
}
