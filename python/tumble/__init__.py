"""tumble: narrow-band distance fields on simplicial meshes and rigid bodies repelling each other
and the walls through them.

Mesh            a triangle (2D) or tetrahedral (3D) mesh with tagged facets
DistanceField   the narrow-band signed distance to some tagged facets
World           bodies, walls, gravity and contact (no fluid)
TumbleError     raised when the library refuses the input or the state (ValueError for a
                wrong argument)

The guide is docs/library.md in the repository; every number these objects give equals the Rust
library's on the same input, bit for bit.
"""

from ._native import DistanceField, Mesh, TumbleError, World, __version__

__all__ = ["DistanceField", "Mesh", "TumbleError", "World", "__version__"]
