"""tumble: narrow-band distance fields on simplicial meshes and rigid bodies repelling each other
and the walls through them.

Mesh            a triangle (2D) or tetrahedral (3D) mesh with tagged facets
DistanceField   the narrow-band signed distance to some tagged facets
World           bodies, walls, gravity and contact (no fluid)
HostContact     contacts, forces and node loads on a host code's own mesh (the host-mesh mode)
TumbleError     raised when the library refuses the input or the state (ValueError for a
                wrong argument)
run             runs a case file as `tumble run` does; its summary and the bodies' history
TumbleWarning   what `run` warns of: the warnings `tumble run` prints (`warning: ...`)

The guide is docs/library.md in the repository; every number these objects give equals the Rust
library's on the same input, bit for bit.
"""

import json
import os
import sys
import warnings
from typing import Dict, Optional, Union

import numpy as np

from ._native import DistanceField, HostContact, Mesh, TumbleError, World, __version__, run_case

__all__ = ["DistanceField", "HostContact", "Mesh", "TumbleError", "TumbleWarning", "World", "__version__", "run"]


class TumbleWarning(UserWarning):
    """A warning of a run (`run`): the text `tumble run` prints after `warning: `, e.g. a time
    step above the contact springs' stable one."""


def run(case: Union[str, "os.PathLike[str]"], out: Optional[Union[str, "os.PathLike[str]"]] = None) -> dict:
    """Runs the case file `case` as `tumble run` does, quietly, writing its outputs into `out`
    (default `out/<case name>`, as `tumble run`). Returns a dict: `summary`, the run's
    `summary.json`; `bodies`, for each body's name a dict of NumPy arrays, one per column of
    `bodies.csv` (`time`, `x`, `y`, (`z`,) the orientation, velocities, forces), empty for a
    flow without bodies; `out`, the output directory. The run's warnings are issued as
    `TumbleWarning`s, its notes printed on stderr (as `tumble run` gives them); a failed run
    raises `TumbleError` (its files and `summary.json` are kept)."""
    if out is None:
        name = os.path.splitext(os.path.basename(os.fspath(case)))[0]
        out = os.path.join("out", name)
    text, notices, error = run_case(os.fspath(case), os.fspath(out))
    for kind, notice in notices:
        if kind == "warning":
            warnings.warn(notice, TumbleWarning, stacklevel=2)
        else:
            print(f"note: {notice}", file=sys.stderr)
    if error is not None:
        raise TumbleError(error)
    summary = json.loads(text)
    bodies: Dict[str, Dict[str, np.ndarray]] = {}
    table = os.path.join(os.fspath(out), "bodies.csv")
    if os.path.exists(table):
        with open(table) as f:
            columns = f.readline().strip().split(",")
        names = np.loadtxt(table, delimiter=",", skiprows=1, usecols=[1], dtype=str, ndmin=1)
        numbers = [k for k, c in enumerate(columns) if c != "body"]
        values = np.loadtxt(table, delimiter=",", skiprows=1, usecols=numbers, ndmin=2)
        for name in dict.fromkeys(names):
            rows = values[names == name]
            bodies[name] = {columns[k]: rows[:, j] for j, k in enumerate(numbers)}
    return {"summary": summary, "bodies": bodies, "out": os.fspath(out)}
