/* tumble's bodies split across MPI ranks, from C: a thousand spheres thrown about a 2 x 1 x 1 box
 * under gravity, colliding with each other and the walls, the box cut into one slab a rank
 * across x. Every rank builds the same world; tumble_world_distribute keeps each rank's own
 * bodies and ghosts of its neighbours'; the bodies migrate and the ghosts are refreshed through
 * this program's communicator, which tumble reaches through the two callbacks below (tumble
 * itself links no MPI). Each rank prints the bodies it owns at the end, every number exactly
 * (%a); capi/tests/c_examples.rs checks that 1, 2 and 4 ranks print the same bodies, to the last
 * bit, as one world stepped alone (`ranks_mpi <prefix> alone`). Rank r writes its bodies to
 * the file <prefix>.r (one line a body, so that the ranks' lines do not mix).
 *
 *   cargo build --release -p tumble-capi
 *   mpicc -std=c99 -Wall -Iinclude examples/c/ranks_mpi.c -Ltarget/release -ltumble_c
 *      -Wl,-rpath,target/release -lm -o ranks_mpi      (one line)
 *   mpirun -n 4 ./ranks_mpi bodies      (writes bodies.0 to bodies.3) */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tumble.h"

enum { BODIES = 1000, STEPS = 150 };

static void check(TumbleStatus status, const char *what) {
    if (status != TUMBLE_STATUS_OK) {
        fprintf(stderr, "%s failed (status %d): %s\n", what, (int)status, tumble_last_error());
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
}

/* The two collectives tumble asks for, on the communicator behind `context`. */
static int counts(void *context, const int *send_counts, int *recv_counts) {
    MPI_Comm comm = *(MPI_Comm *)context;
    return MPI_Alltoall(send_counts, 1, MPI_INT, recv_counts, 1, MPI_INT, comm) != MPI_SUCCESS;
}

static int numbers(void *context, const double *send, const int *send_counts, const int *send_displacements,
                   double *recv, const int *recv_counts, const int *recv_displacements) {
    MPI_Comm comm = *(MPI_Comm *)context;
    return MPI_Alltoallv(send, send_counts, send_displacements, MPI_DOUBLE, recv, recv_counts, recv_displacements,
                         MPI_DOUBLE, comm) != MPI_SUCCESS;
}

/* A number in [-1, 1) from a fixed sequence (the same on every rank). */
static double random_number(uint64_t *seed) {
    *seed = *seed * 6364136223846793005ULL + 1442695040888963407ULL;
    return (double)(*seed >> 11) / 9007199254740992.0 * 2.0 - 1.0;
}

/* The world every rank builds: the box's six walls, gravity, a damped Glowinski law, and the
 * spheres of radius 0.04 on a 20 x 10 x 5 lattice, thrown at random. */
static TumbleWorld *build(void) {
    double lower[3] = {0.0, 0.0, 0.0}, upper[3] = {2.0, 1.0, 1.0};
    uint32_t cells[3] = {20, 10, 10};
    TumbleMesh *box = NULL;
    check(tumble_mesh_box(3, lower, upper, cells, &box), "the box");
    int32_t walls[6] = {1, 2, 3, 4, 5, 6};
    TumbleWorldOptions options = tumble_world_options_default();
    options.gravity[2] = -1.0;
    options.range = 0.01;
    options.stiffness = 1e-4;
    options.damping = 1e-3;
    options.lattice_step = 0.005;
    options.threads = 1;
    TumbleWorld *world = NULL;
    check(tumble_world_new(3, box, walls, 6, &options, &world), "the world");
    check(tumble_mesh_free(box), "freeing the box");
    uint64_t seed = 12345;
    double radii[3] = {0.04, 0.04, 0.04}, identity[4] = {1.0, 0.0, 0.0, 0.0};
    for (int k = 0; k < BODIES; k++) {
        double at[3] = {0.05 + 0.1 * (k % 20), 0.05 + 0.1 * ((k / 20) % 10), 0.05 + 0.1 * (k / 200)};
        size_t index = 0;
        check(tumble_world_add_ellipsoid(world, radii, 1.0, at, identity, &index), "a sphere");
        double velocity[3], spin[3];
        for (int a = 0; a < 3; a++) velocity[a] = random_number(&seed);
        for (int a = 0; a < 3; a++) spin[a] = 10.0 * random_number(&seed);
        check(tumble_world_set_body(world, index, NULL, NULL, velocity, spin), "a sphere's velocity");
    }
    return world;
}

static void print_body(FILE *out, uint64_t id, const double *x, const double *q, const double *v, const double *w) {
    fprintf(out, "body %llu %a %a %a %a %a %a %a %a %a %a %a %a %a\n", (unsigned long long)id, x[0], x[1], x[2], q[0],
            q[1], q[2], q[3], v[0], v[1], v[2], w[0], w[1], w[2]);
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    MPI_Comm comm = MPI_COMM_WORLD;
    int rank = 0, size = 1;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    const double dt = 2.5e-3;
    if (argc < 2) {
        fprintf(stderr, "usage: ranks_mpi <prefix> [alone]\n");
        MPI_Abort(comm, 2);
    }
    char path[4096];
    snprintf(path, sizeof path, "%s.%d", argv[1], rank);
    FILE *out = fopen(path, "w");
    if (out == NULL) {
        fprintf(stderr, "cannot write %s\n", path);
        MPI_Abort(comm, 1);
    }
    TumbleWorld *world = build();

    if (argc > 2 && strcmp(argv[2], "alone") == 0) {
        /* The reference: one world of all the bodies. */
        check(tumble_world_step(world, dt, STEPS), "the steps");
        for (uint64_t id = 0; id < BODIES; id++) {
            double x[3], q[4], v[3], w[3];
            check(tumble_world_get_body(world, id, x, q, v, w), "a body");
            print_body(out, id, x, q, v, w);
        }
        fclose(out);
        check(tumble_world_free(world), "freeing the world");
        MPI_Finalize();
        return 0;
    }

    /* One slab of the box a rank, across x. */
    size_t *boxes_per_rank = malloc(sizeof(size_t) * (size_t)size);
    double *boxes = malloc(sizeof(double) * 6 * (size_t)size);
    for (int r = 0; r < size; r++) {
        boxes_per_rank[r] = 1;
        double slab[6] = {2.0 * r / size, 0.0, 0.0, 2.0 * (r + 1) / size, 1.0, 1.0};
        memcpy(boxes + 6 * r, slab, sizeof slab);
    }
    TumbleExchange exchange = {&comm, rank, size, counts, numbers};
    TumbleRanks *ranks = NULL;
    check(tumble_world_distribute(world, &exchange, boxes_per_rank, (size_t)size, boxes, &ranks), "the split");
    check(tumble_world_free(world), "freeing the world");
    free(boxes_per_rank);
    free(boxes);

    check(tumble_ranks_step(ranks, dt, STEPS), "the steps");
    size_t owned = 0, ghosts = 0;
    check(tumble_ranks_owned_ids(ranks, NULL, 0, &owned), "counting the bodies");
    uint64_t *ids = malloc(sizeof(uint64_t) * (owned > 0 ? owned : 1));
    check(tumble_ranks_owned_ids(ranks, ids, owned, &owned), "the bodies' ids");
    check(tumble_ranks_num_ghosts(ranks, &ghosts), "counting the ghosts");
    fprintf(out, "rank %d owns %zu bodies and holds %zu ghosts\n", rank, owned, ghosts);
    for (size_t k = 0; k < owned; k++) {
        double x[3], q[4], v[3], w[3];
        check(tumble_ranks_get_body(ranks, ids[k], x, q, v, w), "a body");
        print_body(out, ids[k], x, q, v, w);
    }
    fclose(out);
    free(ids);
    check(tumble_ranks_free(ranks), "freeing the split world");
    MPI_Finalize();
    return 0;
}
