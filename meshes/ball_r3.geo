// Ball of radius 3 with the spheres r = 1 and r = 2 inside (the specification's section 1.3
// geometry). Default h = 0.8 (the reader's tests); make.sh also saves h = 0.4 and 0.2 for the
// distance-field accuracy tests (gmsh -3 ball_r3.geo -setnumber h 0.4).
// Regenerate: ./make.sh (needs `pip install gmsh`).
SetFactory("OpenCASCADE");
If(!Exists(h))
  h = 0.8;
EndIf
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
