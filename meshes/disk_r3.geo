// Disk of radius 3 with the circles r = 1 and r = 2 embedded (the specification's section 1.2
// geometry). Default h = 0.4 (the reader's tests); make.sh also saves h = 0.2, 0.1, 0.05 for the
// distance-field accuracy tests (gmsh -2 disk_r3.geo -setnumber h 0.1).
// Regenerate: ./make.sh (needs `pip install gmsh`).
SetFactory("OpenCASCADE");
If(!Exists(h))
  h = 0.4;
EndIf
Disk(1) = {0, 0, 0, 1};
Disk(2) = {0, 0, 0, 2};
Disk(3) = {0, 0, 0, 3};
BooleanFragments{ Surface{3}; Delete; }{ Surface{1, 2}; Delete; }
MeshSize{ PointsOf{ Surface{:}; } } = h;
Mesh.MeshSizeFromCurvature = 0;
Mesh.MeshSizeMax = h;
// After the fragments (checked by tests/gmsh.rs): curve 1 is r = 3, 2 is r = 2, 3 is r = 1;
// surface 1 is the inner disk, 2 and 3 the rings.
Physical Curve("r1", 11) = {3};
Physical Curve("r2", 12) = {2};
Physical Curve("outer", 13) = {1};
Physical Surface("inner", 21) = {1};
Physical Surface("rings", 22) = {2, 3};
