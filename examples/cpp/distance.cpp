// tumble from C++: the C example's steps with the handles owned by std::unique_ptr and failures
// turned into exceptions.
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
using Mesh = std::unique_ptr<TumbleMesh, MeshFree>;
using Distance = std::unique_ptr<TumbleDistance, DistanceFree>;

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
