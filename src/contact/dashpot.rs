//! The normal dashpot of the repulsive laws ([`super::ContactModel::damping`]): every contact
//! within range adds `−c ((v_i − v_j)·n) n` at the law's application points (`v_j = 0` for a
//! wall), `F` on `i` and `−F` on `j`, with its torques. Cost: one pass over the contacts.

use super::{Contact, ContactModel, WALL};
use crate::body::{Angular, Dim, Kinematics, RigidBody};
use crate::math::Vector;

/// Adds the dashpot of every contact of `contacts` within range to `force` and `torque`, in the
/// order of the contacts.
pub(super) fn add_damping<const D: usize>(
    model: &ContactModel,
    contacts: &[Contact<D>],
    (bodies, walls): (&[RigidBody<D>], &Vector<D>),
    force: &mut [Vector<D>],
    torque: &mut [Angular<D>],
) where
    Dim<D>: Kinematics<D>,
{
    for c in contacts.iter().filter(|c| c.gap <= model.range) {
        let (ai, aj) = model.law.application_points(&c.point_i, &c.point_j);
        let bi = &bodies[c.i as usize];
        let vj = match c.j {
            WALL => *walls,
            _ => c.other(bodies).point_velocity(&aj),
        };
        let f = c.normal * (-model.damping * (bi.point_velocity(&ai) - vj).dot(&c.normal));
        force[c.i as usize] += f;
        torque[c.i as usize] += <Dim<D> as Kinematics<D>>::torque(&(ai - bi.position), &f);
        if c.j != WALL {
            let gj = bodies[c.j as usize].position + c.shift;
            force[c.j as usize] -= f;
            torque[c.j as usize] += <Dim<D> as Kinematics<D>>::torque(&(aj - gj), &(-f));
        }
    }
}
