//! Mesh generators: boxes split into simplices (rectangles and boxes) and balls conforming to
//! nested spheres (disks and annuli in 2D). Every generator is one code path for 2D and 3D.

mod ball;
mod cut;
mod lattice;

pub use ball::{ball, box_with_balls, Sphere};
pub use lattice::{axis_box, check_lattice_size, kuhn_lattice};
