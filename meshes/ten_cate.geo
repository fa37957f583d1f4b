// ten Cate et al. (2002)'s box, 10 × 10 × 16 cm (x, y across, z up, bottom at z = 0), refined
// around the vertical line the sphere falls along (x = y = 5): size hb within rb of the axis,
// growing linearly to h at rb + grow (the walls away from the path keep h).
// Markers: "bottom" (z = 0), "top" (z = 16), "sides" (the four vertical walls); volume "fluid".
// Usage: gmsh -3 ten_cate.geo -setnumber hb 0.25 -setnumber h 1 -format msh41 -o ten_cate.msh
If (!Exists(h))
  h = 1.0;
EndIf
If (!Exists(hb))
  hb = 0.25;
EndIf
If (!Exists(rb))
  rb = 1.5;
EndIf
If (!Exists(grow))
  grow = 2.5;
EndIf
SetFactory("OpenCASCADE");
Box(1) = {0, 0, 0, 10, 10, 16};
Physical Surface("bottom") = {5};
Physical Surface("top") = {6};
Physical Surface("sides") = {1, 2, 3, 4};
Physical Volume("fluid") = {1};
Point(100) = {5, 5, 0};
Point(101) = {5, 5, 16};
Line(100) = {100, 101};
Field[1] = Distance;
Field[1].CurvesList = {100};
Field[1].Sampling = 200;
Field[2] = Threshold;
Field[2].InField = 1;
Field[2].SizeMin = hb;
Field[2].SizeMax = h;
Field[2].DistMin = rb;
Field[2].DistMax = rb + grow;
Background Field = 2;
Mesh.MeshSizeExtendFromBoundary = 0;
Mesh.MeshSizeFromPoints = 0;
Mesh.MeshSizeFromCurvature = 0;
