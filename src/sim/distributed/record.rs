//! A body as the numbers one rank sends another: its id, its shape's index in the list every rank
//! holds, its density, its wall hint, and its state, bit for bit.
//!
//! ```text
//! [id, shape, density, hint, position (D), rotation (1 | 4), velocity (D), angular velocity (1 | 3)]
//! ```
//!
//! The shape travels as an index because its geometry (the surface and the distance field in the
//! body's frame, megabytes) never changes and every rank built the same list; ids and indices are
//! below 2⁵³, so a `f64` holds them exactly. The rotation travels as stored (a 3D quaternion not
//! renormalised), so that a body continues on its new rank as it would have on its old one.

use crate::body::{BodyGeometry, Dim, Kinematics, RigidBody};
use crate::math::Vector;
use std::sync::Arc;

/// The numbers of a rotation and of an angular velocity: `(1, 1)` in 2D, `(4, 3)` in 3D.
fn counts<const D: usize>() -> (usize, usize)
where
    Dim<D>: Kinematics<D>,
{
    let k = |r| <Dim<D> as Kinematics<D>>::rotation_components(r).len();
    let a = <Dim<D> as Kinematics<D>>::angular_components(&<Dim<D> as Kinematics<D>>::zero()).len();
    (k(&<Dim<D> as Kinematics<D>>::identity()), a)
}

/// The numbers of one record.
pub(super) fn width<const D: usize>() -> usize
where
    Dim<D>: Kinematics<D>,
{
    let (r, a) = counts::<D>();
    4 + 2 * D + r + a
}

/// Appends body `b`'s record to `out`.
pub(super) fn write<const D: usize>(id: u64, shape: usize, hint: u32, b: &RigidBody<D>, out: &mut Vec<f64>)
where
    Dim<D>: Kinematics<D>,
{
    out.extend_from_slice(&[id as f64, shape as f64, b.density, f64::from(hint)]);
    out.extend_from_slice(b.position.as_slice());
    out.extend(<Dim<D> as Kinematics<D>>::rotation_components(&b.rotation));
    out.extend_from_slice(b.velocity.as_slice());
    out.extend(<Dim<D> as Kinematics<D>>::angular_components(&b.angular_velocity));
}

/// A record read back: who it is and where its state is.
pub(super) struct Record<'a> {
    /// The body's id.
    pub id: u64,
    /// Its shape's index.
    pub shape: usize,
    /// Its density.
    pub density: f64,
    /// Its wall hint.
    pub hint: u32,
    numbers: &'a [f64],
}

impl<'a> Record<'a> {
    /// The record at the start of `numbers` (at least [`width`] of them).
    pub fn read(numbers: &'a [f64]) -> Self {
        Record {
            id: numbers[0] as u64,
            shape: numbers[1] as usize,
            density: numbers[2],
            hint: numbers[3] as u32,
            numbers,
        }
    }

    /// Sets `b`'s position, rotation, velocity and angular velocity to the record's.
    pub fn set_state<const D: usize>(&self, b: &mut RigidBody<D>)
    where
        Dim<D>: Kinematics<D>,
    {
        let (r, a) = counts::<D>();
        let n = &self.numbers[4..];
        b.position = Vector::<D>::from_column_slice(&n[..D]);
        b.rotation = <Dim<D> as Kinematics<D>>::rotation_exact(&n[D..D + r]).expect("a record holds a rotation");
        b.velocity = Vector::<D>::from_column_slice(&n[D + r..2 * D + r]);
        b.angular_velocity = <Dim<D> as Kinematics<D>>::angular_from(&n[2 * D + r..2 * D + r + a])
            .expect("a record holds an angular velocity");
    }

    /// A new body of the record's shape (out of `shapes`), density and state, named `#id`.
    pub fn body<const D: usize>(&self, shapes: &[Arc<BodyGeometry<D>>]) -> RigidBody<D>
    where
        Dim<D>: Kinematics<D>,
    {
        let mut b = RigidBody::new(
            &format!("#{}", self.id),
            shapes[self.shape].clone(),
            self.density,
            Vector::<D>::zeros(),
        );
        self.set_state(&mut b);
        b
    }
}
