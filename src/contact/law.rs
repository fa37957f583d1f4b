//! The repulsive force laws: the force on body `i` of one contact, given the gap `d` (signed,
//! negative under overlap), the contact points `x_i ∈ ∂B_i`, `x_j ∈ ∂B_j` (or the wall) and the unit
//! normal `n` from `B_j` towards `B_i`. `R_i` is the radius of body `i`'s bounding sphere about
//! its centre of mass (the radius, for a circle or sphere).

use crate::math::{Point, Vector};

/// Which force law a simulation uses.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Law {
    /// The specification's law, `F_ij = (1/ε) (x_i − x_j) (ρ − d)²` for `0 ≤ d ≤ ρ`, with
    /// `d = |x_i − x_j|` (and `ε_W` for walls). Its magnitude `d (ρ − d)² / ε` vanishes at contact
    /// and peaks at `d = ρ/3` with `4ρ³/(27ε)`: a body heavier than that goes through. The torque
    /// acts at `x_i` on `i` and at `x_j` on `j`; `F` is parallel to `x_i − x_j`, so the pair's total
    /// torque vanishes.
    Spec,
    /// Along the unit normal, `F_ij = (1/ε) (ρ − d)² (R_i + R_j + d) n` for `d ≤ ρ`: for two circles
    /// or spheres, where `R_i + R_j + d = |G_i − G_j|` and `n = (G_i − G_j)/|G_i − G_j|`, this is
    /// exactly Glowinski's `(1/ε) (G_i − G_j) (R_i + R_j + ρ − |G_i − G_j|)²`. It grows as the gap
    /// closes and stays repulsive under overlap (negative `d`). Walls act as a mirror image of the
    /// body: `F_i = (1/ε_W) (ρ − d)² 2 (R_i + d) n`. One contact per pair: the patch of boundary
    /// nodes within `ρ` that holds the closest node, with `d` its smallest gap and the force at its
    /// centre of pressure (see [`super::patch_contacts`]), which moves continuously and lets a flat
    /// face rest on another. Both bodies take the force at the same point, so the pair's torques
    /// balance exactly.
    Glowinski,
    /// The `glowinski` law once per connected patch of boundary nodes within `ρ` of the other body
    /// (or wall), each at its own centre of pressure: a non-convex body resting on two lobes feels
    /// two forces, and no spurious torque.
    Patches,
    /// The collision law: a spring and dashpot along the normal from a restitution coefficient
    /// and a duration, with Coulomb friction and rolling resistance (see
    /// [`super::collision`]); its force depends on the bodies' motion and each contact's memory,
    /// so [`Law::force`] gives zero for it. One contact per patch, at its centre of pressure,
    /// each with its own springs.
    Collision,
}

/// How contacts are found between two bodies (or a body and the walls).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Detection {
    /// The closest boundary nodes on both sides (the specification's `argmin`s).
    ClosestPoints,
    /// The patch of nodes within range that holds the closest node.
    NearestPatch,
    /// Every patch of nodes within range.
    AllPatches,
}

impl Law {
    /// The names of the laws, for messages.
    pub const NAMES: &'static str = "spec, glowinski, patches, collision";

    /// The law called `name` in a case file.
    pub fn from_name(name: &str) -> Option<Law> {
        match name {
            "spec" => Some(Law::Spec),
            "glowinski" => Some(Law::Glowinski),
            "patches" => Some(Law::Patches),
            "collision" => Some(Law::Collision),
            _ => None,
        }
    }

    /// How this law finds its contacts.
    pub fn detection(self) -> Detection {
        match self {
            Law::Spec => Detection::ClosestPoints,
            Law::Glowinski => Detection::NearestPatch,
            Law::Patches | Law::Collision => Detection::AllPatches,
        }
    }

    /// Its name in a case file.
    pub fn name(self) -> &'static str {
        match self {
            Law::Spec => "spec",
            Law::Glowinski => "glowinski",
            Law::Patches => "patches",
            Law::Collision => "collision",
        }
    }

    /// The force on body `i` of a contact with range `rho` and stiffness `eps`; `radii` is
    /// `(R_i, Some(R_j))` for a body pair, `(R_i, None)` for a wall. Zero out of range.
    pub fn force<const D: usize>(
        self,
        gap: f64,
        normal: &Vector<D>,
        points: (&Point<D>, &Point<D>),
        radii: (f64, Option<f64>),
        rho: f64,
        eps: f64,
    ) -> Vector<D> {
        match self {
            Law::Spec => {
                let r = points.0 - points.1;
                let d = r.norm();
                if d <= rho {
                    r * ((rho - d).powi(2) / eps)
                } else {
                    Vector::<D>::zeros()
                }
            }
            Law::Collision => Vector::<D>::zeros(),
            Law::Glowinski | Law::Patches => {
                if gap > rho {
                    return Vector::<D>::zeros();
                }
                let lever = match radii.1 {
                    Some(rj) => radii.0 + rj + gap,
                    None => 2.0 * (radii.0 + gap),
                };
                normal * ((rho - gap).powi(2) * lever.max(0.0) / eps)
            }
        }
    }

    /// Where the force acts on `i` and on `j`.
    pub fn application_points<const D: usize>(self, xi: &Point<D>, xj: &Point<D>) -> (Point<D>, Point<D>) {
        match self {
            Law::Spec => (*xi, *xj),
            Law::Glowinski | Law::Patches | Law::Collision => {
                let m = (xi + xj) * 0.5;
                (m, m)
            }
        }
    }

    /// `|dF/dd|` at contact (`d = 0`) for bodies of bounding radii summing to `lever`: the stiffness
    /// that limits the explicit time step (the collision law's depends on the masses:
    /// [`super::ContactModel::stable_time_step`]; 0 here).
    pub fn stiffness(self, rho: f64, eps: f64, lever: f64) -> f64 {
        match self {
            Law::Collision => 0.0,
            Law::Spec => rho * rho / eps,
            Law::Glowinski | Law::Patches => (2.0 * rho * lever + rho * rho) / eps,
        }
    }
}
