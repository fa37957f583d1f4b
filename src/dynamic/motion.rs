//! A body's state from a front end's numbers and back: the checks of each part (its count, its
//! finiteness, a quaternion's norm) written once for a world and its split across ranks.

use super::error::{finite, length, Error};
use super::world::{rotation_sizes, BodyState};
use crate::body::{Dim, Kinematics, RigidBody, Rotation};
use crate::math::{Point, Vector};

/// A body's position and orientation from their numbers, each if given.
#[allow(clippy::type_complexity)]
pub(super) fn pose<const D: usize>(
    position: Option<&[f64]>,
    orientation: Option<&[f64]>,
) -> Result<(Option<Point<D>>, Option<Rotation<D>>), Error>
where
    Dim<D>: Kinematics<D>,
{
    let position = match position {
        Some(p) => {
            length("position", p, D)?;
            finite("position", p)?;
            Some(Point::<D>::from_column_slice(p))
        }
        None => None,
    };
    let rotation = match orientation {
        Some(o) => {
            length("orientation", o, rotation_sizes(D).0)?;
            finite("orientation", o)?;
            let norm = o.iter().map(|x| x * x).sum::<f64>().sqrt();
            if D == 3 && norm == 0.0 {
                return Err(Error::argument("orientation", "is a quaternion of norm 0"));
            }
            let unit: Vec<f64> = if D == 3 {
                o.iter().map(|x| x / norm).collect()
            } else {
                o.to_vec()
            };
            Some(<Dim<D> as Kinematics<D>>::rotation_exact(&unit).expect("the length was checked"))
        }
        None => None,
    };
    Ok((position, rotation))
}

/// Sets a body's position and orientation, each if given.
fn set_pose<const D: usize>(
    body: &mut RigidBody<D>,
    position: Option<&[f64]>,
    orientation: Option<&[f64]>,
) -> Result<(), Error>
where
    Dim<D>: Kinematics<D>,
{
    let (position, rotation) = pose::<D>(position, orientation)?;
    if let Some(p) = position {
        body.position = p;
    }
    if let Some(r) = rotation {
        body.rotation = r;
    }
    Ok(())
}

/// Sets a body's position, orientation, velocity and angular velocity, each if given (a 3D
/// quaternion is normalised); an error naming the first refused, with the body unchanged from
/// it on.
pub(super) fn set_motion<const D: usize>(
    b: &mut RigidBody<D>,
    position: Option<&[f64]>,
    orientation: Option<&[f64]>,
    velocity: Option<&[f64]>,
    angular_velocity: Option<&[f64]>,
) -> Result<(), Error>
where
    Dim<D>: Kinematics<D>,
{
    set_pose(b, position, orientation)?;
    if let Some(v) = velocity {
        length("velocity", v, D)?;
        finite("velocity", v)?;
        b.velocity = Vector::<D>::from_column_slice(v);
    }
    if let Some(s) = angular_velocity {
        length("angular_velocity", s, rotation_sizes(D).1)?;
        finite("angular_velocity", s)?;
        b.angular_velocity = <Dim<D> as Kinematics<D>>::angular_from(s).expect("the length was checked");
    }
    Ok(())
}

impl BodyState {
    /// Body `b`'s state.
    pub(super) fn of<const D: usize>(b: &RigidBody<D>) -> Self
    where
        Dim<D>: Kinematics<D>,
    {
        BodyState {
            position: b.position.as_slice().to_vec(),
            orientation: <Dim<D> as Kinematics<D>>::rotation_components(&b.rotation),
            velocity: b.velocity.as_slice().to_vec(),
            angular_velocity: <Dim<D> as Kinematics<D>>::angular_components(&b.angular_velocity),
            mass: b.mass,
        }
    }
}
