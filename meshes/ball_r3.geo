// Ball of radius 3 with the spheres r = 1 and r = 2 inside (the specification's section 1.3
// geometry), coarse (h = 0.8), for the reader's tests.
// Regenerate: ./make.sh (needs `pip install gmsh`).
SetFactory("OpenCASCADE");
h = 0.8;
Sphere(1) = {0, 0, 0, 1};
Sphere(2) = {0, 0, 0, 2};
Sphere(3) = {0, 0, 0, 3};
BooleanFragments{ Volume{3}; Delete; }{ Volume{1, 2}; Delete; }
Mesh.MeshSizeMax = h;
Mesh.MeshSizeFromCurvature = 0;
Physical Surface("r1", 11) = {1};
// After the fragments (checked by tests/gmsh.rs): surface 1 is r = 1, 2 is r = 3, 3 is r = 2.
Physical Surface("r2", 12) = {3};
Physical Surface("outer", 13) = {2};
Physical Volume("inner", 21) = {1};
Physical Volume("shells", 22) = {2, 3};
