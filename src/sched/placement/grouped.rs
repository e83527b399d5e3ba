//! A cluster kept as groups of nodes in identical states, for placement at scale.
//!
//! Nodes of one hardware type that hold the same free capacity are interchangeable to
//! every score, so the cluster keeps each distinct [`NodeState`] once with the sorted list
//! of nodes in it, and caches each policy's [`Choice`] per (state, task shape). Placing a
//! task scans the live distinct states (not the nodes) and scores only states it has not
//! seen with that shape before.
//!
//! Ties go to the lowest node number ([`TieBreak::LowestNode`]; the experiment numbers
//! nodes in the run's random order) or uniformly at random over the tied nodes
//! ([`TieBreak::Random`]). With a typical workload given ([`GroupedCluster::with_fragmentation`])
//! the cluster also keeps its total fragmentation, each distinct state measured once.

use super::node::{nth_share_gpu, share_gpu_count};
use super::{
    apply, Choice, GpuPick, NodeState, NodeType, Placement, Task, TieBreak, TypicalWorkload,
};
use crate::engine::SimRng;
use rand::Rng;
use std::collections::HashMap;

const NOT_LIVE: u32 = u32::MAX;

/// Nodes grouped by identical state, with a score cache.
#[derive(Debug, Clone)]
pub struct GroupedCluster {
    types: Vec<NodeType>,
    states: Vec<NodeState>,
    index: HashMap<NodeState, u32>,
    members: Vec<Vec<u32>>,
    live: Vec<u32>,
    live_pos: Vec<u32>,
    node_state: Vec<u32>,
    shapes: usize,
    cache: Vec<Option<Option<Choice>>>,
    typical: Option<TypicalWorkload>,
    state_frag: Vec<f64>,
    frag_total: f64,
}

impl GroupedCluster {
    /// Empty nodes: `node_types[i]` is node `i`'s index into `types`; tasks will come in
    /// `shapes` distinct shapes (ids `0..shapes`).
    pub fn new(types: Vec<NodeType>, node_types: &[u32], shapes: usize) -> GroupedCluster {
        let mut c = GroupedCluster {
            types,
            states: Vec::new(),
            index: HashMap::new(),
            members: Vec::new(),
            live: Vec::new(),
            live_pos: Vec::new(),
            node_state: Vec::with_capacity(node_types.len()),
            shapes,
            cache: Vec::new(),
            typical: None,
            state_frag: Vec::new(),
            frag_total: 0.0,
        };
        for (n, &t) in node_types.iter().enumerate() {
            let s = c.intern(NodeState::empty(t, &c.types[t as usize]));
            c.node_state.push(s);
            c.join(s, n as u32);
        }
        c
    }

    /// Keeps the cluster's fragmentation for `typical` ([`Self::fragmentation`]).
    pub fn with_fragmentation(mut self, typical: TypicalWorkload) -> GroupedCluster {
        self.state_frag = self
            .states
            .iter()
            .map(|st| typical.node_fragmentation(&self.types[st.ty as usize], st))
            .collect();
        self.frag_total = self
            .node_state
            .iter()
            .map(|&s| self.state_frag[s as usize])
            .sum();
        self.typical = Some(typical);
        self
    }

    /// The cluster's fragmentation (milli-GPU, summed over nodes) for the typical
    /// workload given to [`Self::with_fragmentation`]; 0 without one.
    pub fn fragmentation(&self) -> f64 {
        self.frag_total
    }

    fn intern(&mut self, state: NodeState) -> u32 {
        if let Some(&s) = self.index.get(&state) {
            return s;
        }
        if let Some(t) = &self.typical {
            self.state_frag
                .push(t.node_fragmentation(&self.types[state.ty as usize], &state));
        }
        let s = self.states.len() as u32;
        self.index.insert(state.clone(), s);
        self.states.push(state);
        self.members.push(Vec::new());
        self.live_pos.push(NOT_LIVE);
        self.cache.resize(self.cache.len() + self.shapes, None);
        s
    }

    fn join(&mut self, s: u32, n: u32) {
        let m = &mut self.members[s as usize];
        let at = m.binary_search(&n).unwrap_or_else(|e| e);
        m.insert(at, n);
        if self.live_pos[s as usize] == NOT_LIVE {
            self.live_pos[s as usize] = self.live.len() as u32;
            self.live.push(s);
        }
    }

    fn leave(&mut self, s: u32, n: u32) {
        let m = &mut self.members[s as usize];
        if let Ok(at) = m.binary_search(&n) {
            m.remove(at);
        }
        if m.is_empty() {
            let pos = self.live_pos[s as usize] as usize;
            self.live.swap_remove(pos);
            if pos < self.live.len() {
                self.live_pos[self.live[pos] as usize] = pos as u32;
            }
            self.live_pos[s as usize] = NOT_LIVE;
        }
    }

    /// Number of nodes.
    pub fn node_count(&self) -> usize {
        self.node_state.len()
    }

    /// The current state of node `n`.
    pub fn state_of(&self, n: u32) -> &NodeState {
        &self.states[self.node_state[n as usize] as usize]
    }

    /// The node types.
    pub fn types(&self) -> &[NodeType] {
        &self.types
    }

    /// Distinct node states currently held by at least one node.
    pub fn live_states(&self) -> usize {
        self.live.len()
    }

    /// Places `task` (of shape id `shape`) with `policy`: the best-scored node, ties
    /// broken per the policy. A `shape` at or past the count given to [`Self::new`] is
    /// scored afresh on every state, without the cache. Returns the node, or `None` when no node fits.
    pub fn place(
        &mut self,
        policy: &dyn Placement,
        task: &Task,
        shape: usize,
        rng: &mut SimRng,
    ) -> Option<u32> {
        let mut best = f64::NEG_INFINITY;
        let mut tied: Vec<(u32, Choice)> = Vec::new();
        for i in 0..self.live.len() {
            let s = self.live[i];
            let slot = s as usize * self.shapes + shape;
            let cached = if shape < self.shapes {
                self.cache[slot]
            } else {
                None
            };
            let choice = match cached {
                Some(c) => c,
                None => {
                    let st = &self.states[s as usize];
                    let c = policy.choose(&self.types[st.ty as usize], st, task);
                    if shape < self.shapes {
                        self.cache[slot] = Some(c);
                    }
                    c
                }
            };
            let Some(c) = choice else { continue };
            if c.score > best {
                best = c.score;
                tied.clear();
            }
            if c.score == best {
                tied.push((s, c));
            }
        }
        let (s, node, choice) = match policy.tie_break() {
            TieBreak::Random => {
                let total: usize = tied
                    .iter()
                    .map(|(s, _)| self.members[*s as usize].len())
                    .sum();
                if total == 0 {
                    return None;
                }
                let mut r = rng.random_range(0..total);
                let mut found = None;
                for &(s, c) in &tied {
                    let m = &self.members[s as usize];
                    if r < m.len() {
                        found = Some((s, m[r], c));
                        break;
                    }
                    r -= m.len();
                }
                found?
            }
            TieBreak::LowestNode => tied
                .iter()
                .map(|&(s, c)| (s, self.members[s as usize][0], c))
                .min_by_key(|&(_, n, _)| n)?,
        };
        let from = &self.states[s as usize];
        let pick = match choice.pick {
            GpuPick::RandomShare => {
                let k = share_gpu_count(from, task.gpu_milli);
                let r = rng.random_range(0..k.max(1));
                GpuPick::Share(nth_share_gpu(from, task.gpu_milli, r)? as u8)
            }
            p => p,
        };
        let next = apply(from, task, pick);
        let t = self.intern(next);
        if self.typical.is_some() {
            self.frag_total += self.state_frag[t as usize] - self.state_frag[s as usize];
        }
        self.leave(s, node);
        self.join(t, node);
        self.node_state[node as usize] = t;
        Some(node)
    }
}
