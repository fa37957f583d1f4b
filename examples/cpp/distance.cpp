// tumble from C++: the C examples' steps (examples/c/distance.c, then the specification's 4.1.3
// ellipse on the floor of examples/c/ellipse_floor.c) with the handles owned by std::unique_ptr
// and failures turned into exceptions.
//
//   cargo build --release -p tumble-capi
//   c++ -std=c++17 -Wall -Iinclude examples/cpp/distance.cpp -Ltarget/release -ltumble_c
//       -Wl,-rpath,target/release -o distance_cpp      (one line)
//   ./distance_cpp meshes/disk_r3_h0.1.msh
#include <cmath>
#include <cstdio>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "tumble.h"

namespace {

// Throws the library's message if a call failed.
void check(TumbleStatus status, const char *what) {
    if (status != TUMBLE_STATUS_OK) {
        throw std::runtime_error(std::string(what) + ": " + tumble_last_error());
    }
}

struct MeshFree {
    void operator()(TumbleMesh *m) const { tumble_mesh_free(m); }
};
struct DistanceFree {
    void operator()(TumbleDistance *d) const { tumble_distance_free(d); }
};
struct WorldFree {
    void operator()(TumbleWorld *w) const { tumble_world_free(w); }
};
using Mesh = std::unique_ptr<TumbleMesh, MeshFree>;
using Distance = std::unique_ptr<TumbleDistance, DistanceFree>;
using World = std::unique_ptr<TumbleWorld, WorldFree>;

Mesh read_mesh(const char *path) {
    TumbleMesh *raw = nullptr;
    check(tumble_mesh_read_gmsh(path, &raw), "reading the mesh");
    return Mesh(raw);
}

// The field's values, asked for their count first.
std::vector<double> values_of(const TumbleDistance *field) {
    size_t count = 0;
    tumble_distance_values(field, nullptr, 0, &count);
    std::vector<double> values(count);
    check(tumble_distance_values(field, values.data(), values.size(), &count), "values");
    return values;
}

}  // namespace

int main(int argc, char **argv) try {
    const char *path = argc > 1 ? argv[1] : "meshes/disk_r3_h0.1.msh";
    Mesh mesh = read_mesh(path);
    uint32_t dim = 0;
    size_t num_points = 0;
    check(tumble_mesh_sizes(mesh.get(), &dim, &num_points, nullptr, nullptr), "sizes");
    std::vector<double> points(num_points * dim);
    size_t count = 0;
    check(tumble_mesh_points(mesh.get(), points.data(), points.size(), &count), "points");

    int32_t circle = 0;
    check(tumble_mesh_facet_tag(mesh.get(), "r1", &circle), "the tag of r1");
    TumbleDistanceOptions options = tumble_distance_options_default();
    options.max_distance = 1.2;
    TumbleDistance *raw = nullptr;
    check(tumble_distance_new(mesh.get(), &circle, 1, &options, &raw), "the distance field");
    Distance field(raw);

    std::vector<double> values = values_of(field.get());
    std::vector<uint8_t> reached(values.size());
    check(tumble_distance_reached(field.get(), reached.data(), reached.size(), &count), "reached");
    double worst = 0.0;
    size_t in_band = 0;
    for (size_t i = 0; i < values.size(); ++i) {
        if (reached[i]) {
            in_band += 1;
            worst = std::fmax(worst, std::fabs(values[i] - (std::hypot(points[2 * i], points[2 * i + 1]) - 1.0)));
        }
    }
    std::printf("mesh %s: %uD, %zu nodes\n", path, dim, num_points);
    std::printf("nodes in the band: %zu\n", in_band);
    std::printf("max error against |x| - 1: %.3e\n", worst);

    // The ellipse on the floor of the 2 x 2 box (cases/dry_ellipse_wall.toml).
    const double lower[2] = {0.0, 0.0}, upper[2] = {2.0, 2.0};
    const uint32_t cells[2] = {32, 32};
    TumbleMesh *raw_box = nullptr;
    check(tumble_mesh_box(2, lower, upper, cells, &raw_box), "the box");
    Mesh box(raw_box);
    const int32_t walls[4] = {1, 2, 3, 4};
    TumbleWorldOptions world_options = tumble_world_options_default();
    world_options.gravity[1] = -981.0;
    world_options.drag_linear = 20.0;
    world_options.drag_angular = 20.0;
    world_options.range = 0.03;
    world_options.stiffness = 1e-6;
    TumbleWorld *raw_world = nullptr;
    check(tumble_world_new(2, box.get(), walls, 4, &world_options, &raw_world), "the world");
    World world(raw_world);
    const double semi_axes[2] = {0.25, 0.125}, centre[2] = {1.0, 0.2246}, angle = 0.7853981633974483;
    check(tumble_world_add_ellipsoid(world.get(), semi_axes, 1.25, centre, &angle, nullptr), "the ellipse");
    double force[2], torque = 0.0, position[2];
    check(tumble_world_contact_forces(world.get(), force, &torque, 1, &count), "forces");
    std::printf("ellipse at t = 0: force %.17g %.17g torque %.17g\n", force[0], force[1], torque);
    check(tumble_world_step(world.get(), 1e-4, 20000), "stepping");
    check(tumble_world_get_body(world.get(), 0, position, nullptr, nullptr, nullptr), "the state");
    std::printf("ellipse at t = 2: position %.17g %.17g\n", position[0], position[1]);

    try {
        read_mesh("no/such/file.msh");
    } catch (const std::runtime_error &e) {
        std::printf("caught: %s\n", e.what());
    }
    return 0;
} catch (const std::exception &e) {
    std::fprintf(stderr, "%s\n", e.what());
    return 1;
}
