// A box for a sphere of diameter d dropped along its axis onto its bottom (Gondret, Lance & Petit
// 2002; cases/gondret_st*.toml, docs/validation.md "Gondret's bouncing spheres"): W x W x H,
// the bottom at z = 0, the axis at x = y = 0. Cells of size hp within rp of the axis (the
// sphere's path), hb within rb of the axis below zb (where it bounces), growing linearly to h
// over grow. Markers: "bottom" (z = 0), "top", "sides"; volume "fluid". Lengths in mm.
// Usage: gmsh -3 gondret.geo -setnumber d 6 -setnumber H 105 -format msh41 -o gondret_st27.msh
If (!Exists(d))
  d = 6.0;
EndIf
If (!Exists(W))
  W = 12 * d;
EndIf
If (!Exists(H))
  H = 17.5 * d;
EndIf
If (!Exists(hp))
  hp = d / 6;
EndIf
If (!Exists(rp))
  rp = 0.75 * d;
EndIf
If (!Exists(hb))
  hb = d / 8;
EndIf
If (!Exists(rb))
  rb = d;
EndIf
If (!Exists(zb))
  zb = 2 * d;
EndIf
If (!Exists(h))
  h = 2 * d;
EndIf
If (!Exists(grow))
  grow = 4 * d;
EndIf
SetFactory("OpenCASCADE");
Box(1) = {-W / 2, -W / 2, 0, W, W, H};
Physical Surface("sides") = {1, 2, 3, 4};
Physical Surface("bottom") = {5};
Physical Surface("top") = {6};
Physical Volume("fluid") = {1};
Point(100) = {0, 0, 0};
Point(101) = {0, 0, H};
Point(102) = {0, 0, zb};
Line(100) = {100, 101};
Line(101) = {100, 102};
Field[1] = Distance;
Field[1].CurvesList = {100};
Field[1].Sampling = 1000;
Field[2] = Threshold;
Field[2].InField = 1;
Field[2].SizeMin = hp;
Field[2].SizeMax = h;
Field[2].DistMin = rp;
Field[2].DistMax = rp + grow;
Field[3] = Distance;
Field[3].CurvesList = {101};
Field[3].Sampling = 200;
Field[4] = Threshold;
Field[4].InField = 3;
Field[4].SizeMin = hb;
Field[4].SizeMax = h;
Field[4].DistMin = rb;
Field[4].DistMax = rb + grow;
Field[5] = Min;
Field[5].FieldsList = {2, 4};
Background Field = 5;
Mesh.MeshSizeExtendFromBoundary = 0;
Mesh.MeshSizeFromPoints = 0;
Mesh.MeshSizeFromCurvature = 0;
