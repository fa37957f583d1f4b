//! A body set split across the ranks of a host code's communicator: each rank owns the bodies
//! whose centres lie in its part of the domain ([`Partition`]), holds ghosts of the other ranks'
//! bodies within contact reach of its part, computes the contact force on each body it owns
//! against its own bodies and the ghosts, and moves its own; after the step the bodies that
//! crossed into another part migrate to their new owner and the ghosts are sent afresh, all in one
//! all-to-all ([`Exchange`]). The fluid stays the host's: this is the bodies' bookkeeping.
//!
//! **The same bodies as on one rank, to the last bit.** A rank holds its bodies and ghosts in the
//! order of their ids, so that its contact solver meets every pair the same way round and sums
//! each body's contacts in the same order (its partners by id, then the walls) as one
//! [`Simulation`] of all the bodies in the order of their ids; a ghost or a migrating body carries
//! its state as stored and its wall hint (where its last wall query ended). The forces on a pair
//! across two ranks are computed on both, the same way, each keeping its own body's: no forces
//! travel back.
//!
//! **Ghosts.** Body `b` goes to rank `s` when its centre is within `r_b + r_max + 2ρ` of `s`'s part
//! (`r_max` the largest bounding radius of the shapes, `ρ` the contact's range, `2ρ` the collision
//! law's largest reach): a body of `s` within contact reach of `b` has its centre in `s`'s part,
//! within `r_b + r_max + 2ρ` of `b`'s.
//!
//! **Cost a step**: the owner and the ghost ranks of each owned body (`O(boxes)` each), one
//! all-to-all of `4 + 2D + 2` (2D) or `4 + 2D + 7` (3D) numbers per body sent, a sort of what
//! arrived by id; a ghost that stays one keeps its body (no allocation), only a body new to the
//! rank is built (its geometry shared, [`record`]).
//!
//! **The collision law**: a body that migrates takes the springs of its contacts (ids, not
//! indices, [`springs`]), and every message carries its rank's fastest point speed, whose
//! largest over the ranks sets the law's reach a step ahead as one process's fastest body would.
//!
//! **Not yet**: the lubrication film (its tangential part keeps a state per pair too) and
//! periodic directions (the ghosts' images): each is refused with an error.

mod exchange;
mod partition;
mod record;
mod springs;

pub use exchange::{Alone, Exchange, Threads};
pub use partition::Partition;

use super::{advance, SimError, Simulation};
use crate::body::{BodyGeometry, Dim, Kinematics, RigidBody};
use rayon::prelude::*;
use record::Record;
use std::sync::Arc;

/// What stops a distributed body set.
#[derive(Debug, thiserror::Error)]
pub enum DistributedError {
    /// The rank's own bodies failed (a body through a wall, a non-finite state).
    #[error("{0}")]
    Sim(#[from] SimError),
    /// A part of the contact that a distributed body set does not carry yet.
    #[error("a body set split across ranks does not hold {0} yet")]
    Unsupported(&'static str),
    /// The bodies or the partition given do not fit.
    #[error("{0}")]
    Input(String),
    /// A body whose centre is in no rank's part of the domain.
    #[error("body {id}'s centre {position:?} is in no rank's part of the domain: the partition's boxes must cover every body's centre")]
    Outside {
        /// The body's id.
        id: u64,
        /// Its centre.
        position: Vec<f64>,
    },
    /// Another rank failed in the same step (its own error says why); every rank stops there.
    #[error("rank {rank} failed at this step, or the exchange with it did (its own error says why)")]
    OtherRank {
        /// The first rank that failed.
        rank: usize,
    },
}

/// The numbers that open every message: failed, the fastest point's speed, and the counts of
/// owned bodies, ghosts and springs.
const HEADER: usize = 5;

/// What becomes of a rank's body when the bodies are sent out.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Keep {
    /// It stays, owned here.
    Owned,
    /// It left, and stays as a ghost.
    Ghost,
    /// Gone, unless it comes back (a ghost sent again keeps its body).
    Spare,
}

/// One rank's share of a body set split across ranks.
pub struct Distributed<const D: usize>
where
    Dim<D>: Kinematics<D>,
{
    /// The rank's bodies, owned and ghosts, in the order of their ids, with the walls, gravity,
    /// drag and contact solver; after [`Self::contact_forces`], `sim.force[k]` and `sim.torque[k]`
    /// are the contact force and torque on `sim.bodies[k]` (whole for an owned body).
    pub sim: Simulation<D>,
    ids: Vec<u64>,
    owned: Vec<bool>,
    shape: Vec<u32>,
    exchange: Box<dyn Exchange>,
    partition: Partition<D>,
    shapes: Vec<Arc<BodyGeometry<D>>>,
    /// `r_max + 2ρ`: how far beyond its own radius a body reaches another rank's part.
    reach: f64,
    /// The bodies this rank has sent to a new owner so far.
    pub migrations: usize,
}

impl<const D: usize> Distributed<D>
where
    Dim<D>: Kinematics<D>,
{
    /// This rank's share of a body set: `sim` holds the bodies this rank starts with (any rank may
    /// hold any body, each body on one rank; rank 0 may hold them all) and `ids[k]` is
    /// `sim.bodies[k]`'s id, unique across ranks; every body's geometry is one of `shapes` (the
    /// same list, in the same order, on every rank); every rank calls this together, with the
    /// same `partition`. The bodies go to their owners at once, each named `#id` from then on.
    pub fn new(
        sim: Simulation<D>,
        ids: Vec<u64>,
        shapes: Vec<Arc<BodyGeometry<D>>>,
        partition: Partition<D>,
        exchange: Box<dyn Exchange>,
    ) -> Result<Self, DistributedError> {
        let model = &sim.contact.model;
        if model.lubrication.is_some() {
            return Err(DistributedError::Unsupported("the lubrication film"));
        }
        if sim.contact.period().any() {
            return Err(DistributedError::Unsupported("periodic directions"));
        }
        if partition.ranks() != exchange.size() {
            return Err(DistributedError::Input(format!(
                "the partition has {} ranks' parts and the communicator {} ranks",
                partition.ranks(),
                exchange.size()
            )));
        }
        let r_max = shapes.iter().map(|g| g.radius).fold(0.0, f64::max);
        let reach = r_max + 2.0 * model.range;
        let n = sim.bodies.len();
        let mut problem = (ids.len() != n)
            .then(|| DistributedError::Input(format!("{} bodies and {} ids: expected one id a body", n, ids.len())));
        let mut shape = Vec::with_capacity(n);
        for b in &sim.bodies {
            match shapes.iter().position(|g| Arc::ptr_eq(g, &b.geometry)) {
                Some(k) => shape.push(k as u32),
                None => {
                    problem = Some(DistributedError::Input(format!(
                        "body '{}' has a geometry that is not in the shapes every rank holds",
                        b.name
                    )));
                    break;
                }
            }
        }
        // In the order of the ids, as a rank always holds them.
        let mut order: Vec<usize> = (0..n).collect();
        if problem.is_none() {
            order.sort_by_key(|&k| ids[k]);
        }
        let mut sim = sim;
        let mut bodies: Vec<Option<RigidBody<D>>> = std::mem::take(&mut sim.bodies).into_iter().map(Some).collect();
        sim.bodies = order.iter().filter_map(|&k| bodies[k].take()).collect();
        let ids: Vec<u64> = order.iter().filter_map(|&k| ids.get(k).copied()).collect();
        // The springs of the collision law, by id, held again below in the new order.
        let given_springs = match ids.len() == n {
            true => springs::by_ids(sim.contact.memory(), &ids),
            false => Vec::new(),
        };
        let hints = std::mem::take(sim.contact.hints_mut());
        if hints.len() == n {
            *sim.contact.hints_mut() = order.iter().map(|&k| hints[k]).collect();
        }
        let shape = order.iter().filter_map(|&k| shape.get(k).copied()).collect();
        for (b, id) in sim.bodies.iter_mut().zip(&ids) {
            b.name = format!("#{id}");
        }
        let mut d = Distributed {
            sim,
            ids,
            owned: vec![true; n],
            shape,
            exchange,
            partition,
            shapes,
            reach,
            migrations: 0,
        };
        let memory = springs::by_index(given_springs.into_iter(), |id| d.index_of(id));
        d.sim.contact.set_memory(memory);
        d.send_out(problem)?;
        d.migrations = 0;
        let twice = d.ids.windows(2).find(|w| w[0] == w[1]).map(|w| {
            DistributedError::Input(format!(
                "body id {} is given twice: expected ids unique across ranks",
                w[0]
            ))
        });
        d.agree(twice)?;
        Ok(d)
    }

    /// This rank's share of a body set that every rank holds whole (`sim.bodies` the same bodies,
    /// in the same order, on every rank, as a host that reads one case on every rank makes it):
    /// the ids are the bodies' indices and the shapes their geometries as shared; each rank keeps
    /// the bodies it owns and takes its ghosts from their owners.
    pub fn replicated(
        mut sim: Simulation<D>,
        partition: Partition<D>,
        exchange: Box<dyn Exchange>,
    ) -> Result<Self, DistributedError> {
        let me = exchange.rank();
        let mut shapes: Vec<Arc<BodyGeometry<D>>> = Vec::new();
        for b in &sim.bodies {
            if !shapes.iter().any(|g| Arc::ptr_eq(g, &b.geometry)) {
                shapes.push(b.geometry.clone());
            }
        }
        // Every rank sees the same bodies: a body outside every part is an error on all of them.
        let n = sim.bodies.len();
        let mut ids = Vec::new();
        for (k, b) in sim.bodies.iter().enumerate() {
            match partition.owner(&b.position) {
                None => {
                    return Err(DistributedError::Outside {
                        id: k as u64,
                        position: b.position.as_slice().to_vec(),
                    })
                }
                Some(owner) if owner == me => ids.push(k as u64),
                Some(_) => {}
            }
        }
        // Every rank holds every spring (a world that stepped before): those of the pairs it
        // holds are its own.
        let all: Vec<u64> = (0..n as u64).collect();
        let every = springs::by_ids(sim.contact.memory(), &all);
        sim.contact.set_memory(Vec::new());
        let kept = |k: usize| ids.binary_search(&(k as u64)).is_ok();
        let mut k = 0;
        sim.bodies.retain(|_| {
            k += 1;
            kept(k - 1)
        });
        // The walls' hints, where a world that stepped before left them.
        let mut k = 0;
        sim.contact.hints_mut().retain(|_| {
            k += 1;
            kept(k - 1)
        });
        let mut d = Self::new(sim, ids, shapes, partition, exchange)?;
        let memory = springs::by_index(every.into_iter(), |id| d.index_of(id));
        d.sim.contact.set_memory(memory);
        Ok(d)
    }

    /// This rank's number.
    pub fn rank(&self) -> usize {
        self.exchange.rank()
    }

    /// The bodies this rank owns, with their ids, in the order of the ids.
    pub fn owned(&self) -> impl Iterator<Item = (u64, &RigidBody<D>)> {
        (0..self.ids.len())
            .filter(|&k| self.owned[k])
            .map(|k| (self.ids[k], &self.sim.bodies[k]))
    }

    /// The ghosts this rank holds now.
    pub fn ghosts(&self) -> usize {
        self.owned.iter().filter(|o| !**o).count()
    }

    /// The contact force and torque on every body this rank holds into `sim.force` and
    /// `sim.torque` ([`Simulation::contact_forces`]): whole for its own bodies, whose partners
    /// are all here; a ghost's is partial and left unused.
    pub fn contact_forces(&mut self, dt: f64) -> Result<(), SimError> {
        self.sim.contact_forces(dt)
    }

    /// One dry step of every rank's bodies, as [`Simulation::step`] takes it over all of them:
    /// the contact forces, the rank's own bodies moved ([`Self::step_own`]), then migrated and
    /// ghosted afresh ([`Self::redistribute_after`]). If a rank fails, every rank returns an
    /// error at the same step.
    pub fn step(&mut self, dt: f64) -> Result<(), DistributedError> {
        let failure = self.step_own(dt).err();
        self.redistribute_after(failure)
    }

    /// The first half of [`Self::step`], without a word to the other ranks: the contact forces
    /// and this rank's own bodies moved over `dt`. Every rank follows it with
    /// [`Self::redistribute_after`] and what it returned, failure or not.
    pub fn step_own(&mut self, dt: f64) -> Result<(), DistributedError> {
        self.sim.contact_forces(dt)?;
        let sim = &mut self.sim;
        let (g, drag) = (sim.gravity, sim.drag);
        sim.bodies
            .par_iter_mut()
            .zip(sim.force.par_iter().zip(sim.torque.par_iter()))
            .zip(self.owned.par_iter())
            .filter(|(_, owned)| **owned)
            .for_each(|((b, (f, t)), _)| advance(b, f, t, &g, drag, dt));
        sim.time += dt;
        sim.steps += 1;
        Ok(sim.check_finite()?)
    }

    /// After the host moved this rank's own bodies: each goes to the rank that owns its centre
    /// now, and the ghosts are sent afresh (every rank calls it together).
    pub fn redistribute(&mut self) -> Result<(), DistributedError> {
        self.redistribute_after(None)
    }

    /// [`Self::redistribute`] after this rank's `failure`, if any: a rank that failed sends only
    /// that, and every rank returns an error (its own, or [`DistributedError::OtherRank`]).
    pub fn redistribute_after(&mut self, failure: Option<DistributedError>) -> Result<(), DistributedError> {
        self.send_out(failure)
    }

    /// The position among [`Self::sim`]'s bodies of the body of id `id`, if this rank holds it.
    pub fn index_of(&self, id: u64) -> Option<usize> {
        self.ids.binary_search(&id).ok()
    }

    /// Whether this rank owns `sim.bodies[k]` (a ghost otherwise).
    pub fn is_owned(&self, k: usize) -> bool {
        self.owned[k]
    }

    /// Every rank learns whether each rank's `problem` is `None`: this rank's error, or
    /// [`DistributedError::OtherRank`] for the first rank that had one.
    fn agree(&self, problem: Option<DistributedError>) -> Result<(), DistributedError> {
        let flag = if problem.is_some() { 1.0 } else { 0.0 };
        let received = self.exchange.all_to_all(vec![vec![flag]; self.exchange.size()]);
        if let Some(e) = problem {
            return Err(e);
        }
        match received.iter().position(|m| m.first() != Some(&0.0)) {
            Some(rank) => Err(DistributedError::OtherRank { rank }),
            None => Ok(()),
        }
    }

    /// The one exchange: each rank's messages are `[failed, owned count, owned records…, ghost
    /// records…]`; a rank that failed (`failure`) sends only its flag, and every rank returns an
    /// error.
    fn send_out(&mut self, mut failure: Option<DistributedError>) -> Result<(), DistributedError> {
        let (size, me) = (self.exchange.size(), self.exchange.rank());
        let n = self.ids.len();
        let hints = self.sim.contact.wall_hints();
        let hint = |k: usize| hints.get(k).copied().unwrap_or(0);
        let mut to_own: Vec<Vec<f64>> = vec![Vec::new(); size];
        let mut to_ghost: Vec<Vec<f64>> = vec![Vec::new(); size];
        let mut to_springs: Vec<Vec<f64>> = vec![Vec::new(); size];
        let memory = self.sim.contact.memory();
        let mut fastest = 0.0_f64;
        let mut keep = vec![Keep::Spare; n];
        for (k, keep) in keep.iter_mut().enumerate() {
            if !self.owned[k] || failure.is_some() {
                continue;
            }
            let b = &self.sim.bodies[k];
            let Some(owner) = self.partition.owner(&b.position) else {
                failure = Some(DistributedError::Outside {
                    id: self.ids[k],
                    position: b.position.as_slice().to_vec(),
                });
                break;
            };
            let reach = b.geometry.radius + self.reach;
            let record = |out: &mut Vec<f64>| record::write(self.ids[k], self.shape[k] as usize, hint(k), b, out);
            fastest = fastest.max(b.fastest_point_speed());
            if owner == me {
                *keep = Keep::Owned;
            } else {
                record(&mut to_own[owner]);
                // The springs of its contacts go with it.
                for m in memory.iter().filter(|m| m.i as usize == k || m.j as usize == k) {
                    springs::write(&springs::by_id(m, &self.ids), &mut to_springs[owner]);
                }
                self.migrations += 1;
                if self.partition.distance(me, &b.position) <= reach {
                    *keep = Keep::Ghost;
                }
            }
            for s in (0..size).filter(|&s| s != owner && s != me) {
                if self.partition.distance(s, &b.position) <= reach {
                    record(&mut to_ghost[s]);
                }
            }
        }
        let (w, ws) = (record::width::<D>(), springs::width::<D>());
        let failed = failure.is_some();
        // [failed, the fastest point's speed, owned, ghosts, springs, their records…]
        let messages = to_own
            .into_iter()
            .zip(to_ghost)
            .zip(to_springs)
            .map(|((own, ghost), spring)| {
                if failed {
                    return vec![1.0];
                }
                let counts = [own.len() / w, ghost.len() / w, spring.len() / ws];
                let mut m = Vec::with_capacity(HEADER + own.len() + ghost.len() + spring.len());
                m.extend_from_slice(&[0.0, fastest]);
                m.extend(counts.map(|c| c as f64));
                m.extend(own);
                m.extend(ghost);
                m.extend(spring);
                m
            })
            .collect();
        let received = self.exchange.all_to_all(messages);
        if let Some(e) = failure {
            return Err(e);
        }
        if let Some(rank) = received
            .iter()
            .position(|m| m.first() != Some(&0.0) || m.len() < HEADER)
        {
            return Err(DistributedError::OtherRank { rank });
        }
        // What arrived, by id: (id, owned here, sender, offset); the springs that came with the
        // bodies now owned here; the fastest point of all.
        let mut incoming: Vec<(u64, bool, usize, usize)> = Vec::new();
        let mut carried = Vec::new();
        for (s, m) in received.iter().enumerate() {
            let (owned, ghosts, count) = (m[2] as usize, m[3] as usize, m[4] as usize);
            for q in 0..owned + ghosts {
                let at = HEADER + q * w;
                incoming.push((m[at] as u64, q < owned, s, at));
            }
            let at = HEADER + (owned + ghosts) * w;
            carried.extend((0..count).map(|q| springs::read::<D>(&m[at + q * ws..])));
            fastest = fastest.max(m[1]);
        }
        incoming.sort_by_key(|x| x.0);
        let springs = springs::by_ids(self.sim.contact.memory(), &self.ids);
        self.merge(&keep, &incoming, &received);
        // The springs: this rank's own, but those of a body now owned here that came from its old
        // owner; of bodies both still held.
        let arrived: Vec<u64> = incoming.iter().filter(|x| x.1).map(|x| x.0).collect();
        let new_here = |id: &u64| arrived.binary_search(id).is_ok();
        // A pair whose bodies both arrived came twice.
        carried.sort_by(|a, b| {
            let anchor = |s: &springs::Spring<D>| s.memory.anchor.iter().map(|x| x.to_bits()).collect::<Vec<u64>>();
            (a.i, a.j, anchor(a)).cmp(&(b.i, b.j, anchor(b)))
        });
        carried.dedup();
        let kept = springs
            .into_iter()
            .filter(|s| !new_here(&s.i) && !s.j.is_some_and(|j| new_here(&j)));
        let memory = springs::by_index(kept.chain(carried), |id| self.index_of(id));
        self.sim.contact.set_memory(memory);
        self.sim.contact.fastest = Some(fastest);
        Ok(())
    }

    /// The rank's bodies after an exchange: those it keeps and those that arrived, in the order of
    /// their ids; a body that arrives again as a ghost keeps its object, its state overwritten.
    fn merge(&mut self, keep: &[Keep], incoming: &[(u64, bool, usize, usize)], received: &[Vec<f64>]) {
        let walls = self.sim.walls.is_some();
        let old_hints = std::mem::take(self.sim.contact.hints_mut());
        let old_bodies = std::mem::take(&mut self.sim.bodies);
        let (old_ids, old_shape) = (std::mem::take(&mut self.ids), std::mem::take(&mut self.shape));
        self.owned.clear();
        let mut hints = Vec::new();
        let mut next = incoming.iter().peekable();
        let arrive = |d: &mut Self,
                      hints: &mut Vec<u32>,
                      reuse: Option<RigidBody<D>>,
                      &(id, owned, s, at): &(u64, bool, usize, usize)| {
            let r = Record::read(&received[s][at..]);
            let body = match reuse {
                Some(mut b) => {
                    r.set_state(&mut b);
                    b
                }
                None => r.body(&d.shapes),
            };
            d.sim.bodies.push(body);
            d.ids.push(id);
            d.owned.push(owned);
            d.shape.push(r.shape as u32);
            hints.push(r.hint);
        };
        for (k, body) in old_bodies.into_iter().enumerate() {
            let id = old_ids[k];
            while let Some(x) = next.next_if(|x| x.0 < id) {
                arrive(self, &mut hints, None, x);
            }
            match keep[k] {
                Keep::Owned | Keep::Ghost => {
                    self.sim.bodies.push(body);
                    self.ids.push(id);
                    self.owned.push(keep[k] == Keep::Owned);
                    self.shape.push(old_shape[k]);
                    hints.push(old_hints.get(k).copied().unwrap_or(0));
                }
                Keep::Spare => {
                    if let Some(x) = next.next_if(|x| x.0 == id) {
                        arrive(self, &mut hints, Some(body), x);
                    }
                }
            }
        }
        for x in next {
            arrive(self, &mut hints, None, x);
        }
        if walls {
            *self.sim.contact.hints_mut() = hints;
        }
        let n = self.sim.bodies.len();
        self.sim.force.clear();
        self.sim.force.resize(n, crate::math::Vector::<D>::zeros());
        self.sim.torque.clear();
        self.sim.torque.resize(n, <Dim<D> as Kinematics<D>>::zero());
    }
}
