//! Tiresias' shape classes: each distinct request shape gets a class number, in the order
//! shapes first appear, found through an open-addressing hash table of class numbers (a
//! few multiplies to hash a shape and, most often, one comparison to confirm it: less
//! than a scan of the classes or a tree's comparisons, and the same numbers); and, for
//! the classes below 64, the dominance relation between them as one row of bits per
//! class (a failed request of class `f` rules out the classes of its row in one step).

use super::{dominated, Shape};
use crate::model::GpuRequest;

/// The shapes seen, by class (see the module doc).
#[derive(Debug, Default)]
pub(super) struct Classes {
    shapes: Vec<Shape>,
    /// Class + 1 per slot (0: empty); a power of two long, at most half full.
    slots: Vec<u32>,
    /// Per class below 64: the classes below 64 that a failed request of it dominates
    /// (`greedy::dominated`, fixed for a cluster's smallest node).
    rows: Vec<u64>,
    /// The smallest node's GPUs the rows were computed with.
    rows_gpn: u32,
}

/// Mixes `h` with `x` (a multiply by an odd constant spreads low bits upwards).
fn mix(h: u64, x: u64) -> u64 {
    (h ^ x).wrapping_mul(0x9e37_79b9_7f4a_7c15)
}

fn hash(s: &Shape) -> u64 {
    let gpus = match s.0 {
        GpuRequest::None => 0,
        GpuRequest::Fraction(m) => 1 << 32 | m as u64,
        GpuRequest::Whole(w) => 2 << 32 | w as u64,
    };
    let h = mix(mix(0, gpus), s.1 .0);
    let h = mix(h, s.2 as u64 | (s.3 as u64) << 1);
    mix(h, s.4)
}

impl Classes {
    /// The class of `shape`, numbered next if it is new.
    #[inline]
    pub(super) fn of(&mut self, shape: Shape) -> u32 {
        if self.slots.is_empty() {
            self.slots = vec![0; 16];
        }
        let mask = self.slots.len() - 1;
        let mut i = (hash(&shape) >> 32) as usize & mask;
        loop {
            match self.slots[i] {
                0 => break,
                c if self.shapes[c as usize - 1] == shape => return c - 1,
                _ => i = (i + 1) & mask,
            }
        }
        let c = self.shapes.len() as u32;
        self.shapes.push(shape);
        self.slots[i] = c + 1;
        if self.shapes.len() * 2 > self.slots.len() {
            self.grow();
        }
        c
    }

    /// Doubles the table, placing every class again.
    fn grow(&mut self) {
        self.slots = vec![0; self.slots.len() * 2];
        let mask = self.slots.len() - 1;
        for (c, s) in self.shapes.iter().enumerate() {
            let mut i = (hash(s) >> 32) as usize & mask;
            while self.slots[i] != 0 {
                i = (i + 1) & mask;
            }
            self.slots[i] = c as u32 + 1;
        }
    }

    /// The shape of class `c`.
    pub(super) fn shape(&self, c: u32) -> &Shape {
        &self.shapes[c as usize]
    }

    /// Brings the rows up to date with the classes seen and `min_gpn` (a new class's row
    /// and column are added once; a change of `min_gpn` computes them afresh).
    pub(super) fn update_rows(&mut self, min_gpn: u32) {
        let n = self.shapes.len().min(64);
        if min_gpn != self.rows_gpn {
            self.rows.clear();
            self.rows_gpn = min_gpn;
        }
        while self.rows.len() < n {
            let f = self.rows.len();
            self.rows.push(0);
            for c in 0..=f {
                let (sf, sc) = (&self.shapes[f], &self.shapes[c]);
                if dominated(sf, sc, min_gpn) {
                    self.rows[f] |= 1 << c;
                }
                if c < f && dominated(sc, sf, min_gpn) {
                    self.rows[c] |= 1 << f;
                }
            }
        }
    }

    /// The classes below 64 that a failed request of class `c` dominates (`None` for a
    /// class of 64 or more, or before [`Classes::update_rows`] saw it).
    pub(super) fn row(&self, c: u32) -> Option<u64> {
        self.rows.get(c as usize).copied()
    }

    /// Number of classes.
    pub(super) fn len(&self) -> usize {
        self.shapes.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::TypeMask;

    /// Against a scan of the shapes in order of first appearance (what the numbering
    /// means): many shapes, most seen again, each must get the scan's number.
    #[test]
    fn numbers_shapes_in_order_of_first_appearance() {
        let mut next = crate::sched::lcg(0x1405_7b7e_f767_814f);
        let mut classes = Classes::default();
        let mut seen: Vec<Shape> = Vec::new();
        for _ in 0..5000 {
            let gpus = match next(3) {
                0 => GpuRequest::None,
                1 => GpuRequest::Fraction(1 + next(999) as u16),
                _ => GpuRequest::Whole(1 + next(40) as u32),
            };
            let shape = (
                gpus,
                TypeMask(next(4)),
                next(2) == 0,
                next(3) as u32 * 500,
                next(3) * 1024,
            );
            let want = match seen.iter().position(|s| *s == shape) {
                Some(c) => c as u32,
                None => {
                    seen.push(shape);
                    seen.len() as u32 - 1
                }
            };
            assert_eq!(classes.of(shape), want);
            assert_eq!(*classes.shape(want), shape);
            assert_eq!(classes.len(), seen.len());
        }
    }

    /// Against `dominated` itself, pair by pair, as classes arrive between updates.
    #[test]
    fn rows_are_the_dominance_relation() {
        let mut next = crate::sched::lcg(0x2d35_8dcc_aa6c_78a5);
        let mut classes = Classes::default();
        for round in 0..40 {
            for _ in 0..3 {
                let gpus = match next(4) {
                    0 => GpuRequest::Fraction(250 * (1 + next(3) as u16)),
                    _ => GpuRequest::Whole(1 + next(20) as u32),
                };
                let shape = (gpus, TypeMask(1 + next(2)), next(2) == 0, 0, next(2) * 512);
                classes.of(shape);
            }
            let gpn = if round < 20 { 8 } else { 4 };
            classes.update_rows(gpn);
            let n = classes.len().min(64) as u32;
            for f in 0..n {
                for c in 0..n {
                    let want = dominated(classes.shape(f), classes.shape(c), gpn);
                    let row = classes.row(f).unwrap();
                    assert_eq!(row >> c & 1 == 1, want, "round {round}, {f} over {c}");
                }
            }
            assert_eq!(classes.row(64), None);
        }
    }
}
