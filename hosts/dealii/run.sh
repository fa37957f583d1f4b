#!/usr/bin/env bash
# The deal.II host on a fresh machine: installs what it needs (Debian's deal.II 9.4 with its MPI,
# p4est and PETSc/MUMPS, CMake, Open MPI), builds tumble's C ABI and the host, and runs the
# specification's case 4.2.3 on 2 MPI ranks into out/dealii_two_disks:
#
#   hosts/dealii/run.sh [host options: --out DIR --cells N --refine L --steps N --dt S --every N]
#
# RANKS (default 2) sets the number of MPI ranks; BUILD (default target/dealii) the build
# directory; INSTALL_ONLY=1 stops once the packages are installed. The host's options and what it
# writes: two_disks.cc's opening comment.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
build="${BUILD:-$root/target/dealii}"
ranks="${RANKS:-2}"
# The build directory holds apt-get's log too, so it exists before anything else runs (a fresh
# clone has no target/).
mkdir -p "$build"

missing=()
for package in libdeal.ii-dev cmake openmpi-bin pkg-config; do
    dpkg -s "$package" > /dev/null 2>&1 || missing+=("$package")
done
if [ ${#missing[@]} -gt 0 ]; then
    echo "installing ${missing[*]} (Debian's packages; about 2 GB with deal.II's dependencies)"
    sudo=""
    [ "$(id -u)" -eq 0 ] || sudo="sudo"
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${missing[@]}" > "$build/apt.log" 2>&1 ||
        { echo "apt-get failed; its log: $build/apt.log" >&2; exit 1; }
fi
[ "${INSTALL_ONLY:-0}" = 1 ] && exit 0

bash "$root/capi/install.sh" "$build/prefix"
PKG_CONFIG_PATH="$build/prefix/lib/pkgconfig" cmake -S "$here" -B "$build" -DCMAKE_BUILD_TYPE=Release > "$build/cmake.log"
cmake --build "$build" -j 2 > "$build/build.log" || { cat "$build/build.log" >&2; exit 1; }

# Open MPI refuses root unless told; each rank runs one thread (the ranks share the cores).
if [ "$(id -u)" -eq 0 ]; then
    export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
fi
export OMP_NUM_THREADS=1
cd "$root"
mpirun -n "$ranks" "$build/two_disks" --out out/dealii_two_disks "$@"
