// A box with a hole.
include <lib/shapes.scad>

size = [20, 10, 5];
hole = 3;

module holed_box(s, r) {
    difference() {
        cube(s, center = true);
        cylinder(h = s[2] + 1, r = r, center = true);
    }
}

function half(v) = v / 2;

for (i = [0:2]) {
    translate([i * 25, 0, 0]) holed_box(size, half(hole));
}
