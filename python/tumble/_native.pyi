"""Type stubs of tumble's compiled module."""

from os import PathLike
from typing import Any, Dict, List, Optional, Sequence, Tuple, Union

import numpy as np
import numpy.typing as npt

__version__: str

class TumbleError(Exception):
    """The library refused the input or the state (an unreadable file, an inverted cell, an empty
    front, a body outside the domain)."""

class Mesh:
    """A triangle (2D) or tetrahedral (3D) mesh with its facet and cell tags."""

    def __init__(
        self,
        points: npt.NDArray[np.float64],
        cells: npt.NDArray[np.uint32],
        facets: npt.NDArray[np.uint32],
        facet_tags: npt.NDArray[np.int32],
        cell_tags: Optional[npt.NDArray[np.int32]] = None,
    ) -> None:
        """A mesh from `(N, dim)` points, `(M, dim + 1)` cells (counter-clockwise triangles,
        right-handed tetrahedra), `(F, dim)` tagged facets and their `(F,)` tags."""
    @staticmethod
    def read_gmsh(path: Union[str, PathLike[str]]) -> "Mesh":
        """Reads a Gmsh `.msh` file (2.2 or 4.1, ASCII or binary)."""
    @staticmethod
    def box_(lower: Sequence[float], upper: Sequence[float], cells: Sequence[int]) -> "Mesh":
        """The box [lower, upper] in cells[a] intervals per axis, faces tagged 1..2 dim (xmin,
        xmax, ymin, ymax, zmin, zmax)."""
    @staticmethod
    def balls(centres: npt.NDArray[np.float64], radii: Sequence[float], h: float) -> "Mesh":
        """A disk or ball (the last of `(n, dim)` centres and `(n,)` radii) with disks or balls
        in it, meshed conformingly at size `h`: sphere k's facets tagged k + 1 (`body<k>`, the
        last `wall`), the inner ones' insides meshed too. A host mesh to try HostContact on."""
    @staticmethod
    def box_with_balls(
        lower: Sequence[float],
        upper: Sequence[float],
        cells: Sequence[int],
        centres: npt.NDArray[np.float64],
        radii: Sequence[float],
        holes: bool = True,
    ) -> "Mesh":
        """The box [lower, upper] in cells[a] intervals per axis, conforming to the spheres of
        `(n, dim)` centres and `(n,)` radii inside it (their insides left out with `holes`):
        sphere k's facets tagged k + 1 (`body<k>`), the box's sides n + 1 … n + 2 dim."""
    @property
    def dim(self) -> int: ...
    @property
    def points(self) -> npt.NDArray[np.float64]:
        """`(N, dim)` node coordinates."""
    @property
    def cells(self) -> npt.NDArray[np.uint32]:
        """`(M, dim + 1)` node indices."""
    @property
    def facets(self) -> npt.NDArray[np.uint32]:
        """`(F, dim)` node indices of the tagged facets."""
    @property
    def facet_tags(self) -> npt.NDArray[np.int32]:
        """`(F,)` each tagged facet's tag."""
    def with_points(self, points: npt.NDArray[np.float64]) -> "Mesh":
        """The same mesh with its nodes at `(N, dim)` points (a moved host mesh; topology kept)."""
    def facet_tag(self, name: str) -> int:
        """The tag of the facets named `name`."""

class DistanceField:
    """The narrow-band distance to some tagged facets of a mesh, at its nodes."""

    def __init__(
        self,
        mesh: Mesh,
        tags: Sequence[int],
        max_distance: float = ...,
        default_value: Optional[float] = None,
        signed: bool = True,
        closest_point: bool = True,
        curved_front: bool = False,
    ) -> None: ...
    @property
    def values(self) -> npt.NDArray[np.float64]:
        """`(N,)`: the distance in the band, the default beyond it."""
    @property
    def reached(self) -> npt.NDArray[np.bool_]:
        """`(N,)`: whether each node is in the band."""
    def at(self, points: npt.NDArray[np.float64]) -> npt.NDArray[np.float64]:
        """The linear interpolant at `(K, dim)` points; NaN outside the mesh."""
    def argmin(self, tags: Sequence[int]) -> Optional[Tuple[npt.NDArray[np.float64], float]]:
        """Where the field is smallest on the facets tagged `tags`, and its value."""

class World:
    """Bodies repelling each other and the walls, with gravity and drag, without a fluid."""

    def __init__(
        self,
        dim: int,
        range: float,
        stiffness: Optional[float] = None,
        domain: Optional[Mesh] = None,
        wall_tags: Sequence[int] = ...,
        gravity: Optional[Sequence[float]] = None,
        drag_linear: float = 0.0,
        drag_angular: float = 0.0,
        law: str = "glowinski",
        wall_stiffness: Optional[float] = None,
        damping: Optional[float] = None,
        restitution: Optional[float] = None,
        duration: Optional[float] = None,
        friction: Optional[float] = None,
        rolling: Optional[float] = None,
        lubrication: Optional[Tuple[float, float, float]] = None,
        lubrication_share: Optional[float] = None,
        lubrication_tangential: bool = True,
        lattice_step: Optional[float] = None,
        threads: Optional[int] = None,
    ) -> None: ...
    def add_ellipsoid(
        self,
        semi_axes: Sequence[float],
        density: float,
        position: Sequence[float],
        orientation: Optional[Sequence[float]] = None,
    ) -> int:
        """Adds an ellipse or ellipsoid at rest; orientation: 2D [angle], 3D [w, x, y, z]."""
    def add_box(
        self,
        sides: Sequence[float],
        density: float,
        position: Sequence[float],
        orientation: Optional[Sequence[float]] = None,
    ) -> int:
        """Adds a rectangle or box at rest."""
    def add_polygon(
        self,
        vertices: npt.NDArray[np.float64],
        density: float,
        position: Sequence[float],
        orientation: Optional[Sequence[float]] = None,
    ) -> int:
        """Adds a polygon (2D) of `(N, 2)` corners in order around it; its centroid at `position`."""
    def add_spheres(
        self,
        centres: npt.NDArray[np.float64],
        radii: Sequence[float],
        density: float,
        position: Sequence[float],
        orientation: Optional[Sequence[float]] = None,
    ) -> int:
        """Adds a union of disks or balls of `(N, dim)` centres and `(N,)` radii; its centroid at
        `position`."""
    def add_mesh_body(
        self,
        body: Mesh,
        density: float,
        position: Sequence[float],
        orientation: Optional[Sequence[float]] = None,
    ) -> int:
        """Adds a body meshed on its own (a Mesh of the world's dimension); its centroid at
        `position`."""
    @property
    def num_bodies(self) -> int: ...
    def body(self, index: int) -> dict:
        """`position`, `orientation`, `velocity`, `angular_velocity` arrays and the `mass`."""
    def set_body(
        self,
        index: int,
        position: Optional[Sequence[float]] = None,
        orientation: Optional[Sequence[float]] = None,
        velocity: Optional[Sequence[float]] = None,
        angular_velocity: Optional[Sequence[float]] = None,
    ) -> None: ...
    def contact_forces(self) -> Tuple[npt.NDArray[np.float64], npt.NDArray[np.float64]]:
        """Forces `(n, dim)` and torques (2D `(n,)`, 3D `(n, 3)`) on the bodies now."""
    def save(self) -> bytes:
        """The state between two steps; `restore` continues from it bit for bit."""
    def restore(self, state: bytes) -> None:
        """Continues from a state `save` gave, of a world with the same bodies."""
    def step(self, dt: float, steps: int = 1) -> None:
        """Advances the world by `steps` steps of `dt`."""

class HostContact:
    """Contact on a host code's own mesh: the bodies are tagged facets of a mesh that follows
    them (the host-mesh mode)."""

    def __init__(
        self,
        mesh: Mesh,
        body_tags: Sequence[int],
        range: float,
        stiffness: float,
        wall_tags: Sequence[int] = (),
        law: str = "glowinski",
        wall_stiffness: Optional[float] = None,
        threads: Optional[int] = None,
    ) -> None:
        """Body k's boundary is the facets tagged `body_tags[k]`, the walls those tagged
        `wall_tags`; `range` ρ, `stiffness` ε, `wall_stiffness` ε_W (None: ε); `law` one of
        "spec", "glowinski", "patches" (every patch of contact); `threads` a pool of its own."""
    @property
    def dim(self) -> int: ...
    @property
    def num_bodies(self) -> int: ...
    def find_contacts(self, mesh: Mesh, centres: npt.NDArray[np.float64]) -> int:
        """Finds the contacts on `mesh` (the one given, or it moved by `with_points`) with the
        bodies' centres of mass `(n, dim)`; their number."""
    def contacts(self) -> Dict[str, npt.NDArray[Any]]:
        """The last contacts: `i`, `j` `(k,)` int64 (`j` = -1 for the walls), `gap` `(k,)`,
        `point_i`, `point_j`, `normal` `(k, dim)` (the normal from j towards i)."""
    def forces(self) -> Tuple[npt.NDArray[np.float64], npt.NDArray[np.float64]]:
        """The contact forces `(n, dim)` and torques about the centres (2D `(n,)`, 3D `(n, 3)`)."""
    def node_loads(self) -> npt.NDArray[np.float64]:
        """`(N, dim)` loads on the mesh's nodes: each contact's force spread over the nodes near
        it; a body's nodes' loads sum to its force and their moments to its torque."""


def run_case(case: str, out: str) -> Tuple[Optional[str], List[Tuple[str, str]], Optional[str]]:
    """Runs a case file into `out`: its summary.json as a string (None if the run failed), the
    run's notices `(kind, text)` (kind "note" or "warning"), and the error if it failed (see
    `tumble.run`)."""
