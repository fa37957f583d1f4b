// A closed channel [0, W] × [0, H] for sedimentation, refined in a box around the bodies' path:
// size hb inside [bx0, bx1] × [by0, by1], growing linearly to h over a distance grow outside it.
// Markers: walls (x = 0 and x = W), bottom (y = 0), top (y = H); surface "fluid".
// Usage: gmsh -2 channel_box.geo -setnumber W 2 -setnumber H 12 -setnumber h 0.2 -setnumber hb 0.01
//        -setnumber bx0 0.7 -setnumber bx1 1.3 -setnumber by0 5.4 -setnumber by1 6.3 -format msh41 -bin -o out.msh
If (!Exists(W))
  W = 2;
EndIf
If (!Exists(H))
  H = 12;
EndIf
If (!Exists(h))
  h = 0.2;
EndIf
If (!Exists(hb))
  hb = 0.01;
EndIf
If (!Exists(bx0))
  bx0 = 0.7;
EndIf
If (!Exists(bx1))
  bx1 = 1.3;
EndIf
If (!Exists(by0))
  by0 = 5.4;
EndIf
If (!Exists(by1))
  by1 = 6.3;
EndIf
If (!Exists(grow))
  grow = 1;
EndIf
Point(1) = {0, 0, 0, h};
Point(2) = {W, 0, 0, h};
Point(3) = {W, H, 0, h};
Point(4) = {0, H, 0, h};
Line(1) = {1, 2};
Line(2) = {2, 3};
Line(3) = {3, 4};
Line(4) = {4, 1};
Curve Loop(1) = {1, 2, 3, 4};
Plane Surface(1) = {1};
Physical Curve("bottom") = {1};
Physical Curve("walls") = {2, 4};
Physical Curve("top") = {3};
Physical Surface("fluid") = {1};
Field[1] = Box;
Field[1].VIn = hb;
Field[1].VOut = h;
Field[1].XMin = bx0;
Field[1].XMax = bx1;
Field[1].YMin = by0;
Field[1].YMax = by1;
Field[1].Thickness = grow;
Background Field = 1;
Mesh.MeshSizeExtendFromBoundary = 0;
Mesh.MeshSizeFromPoints = 0;
Mesh.MeshSizeFromCurvature = 0;
