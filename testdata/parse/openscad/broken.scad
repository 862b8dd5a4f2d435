module holed_box(s, r {
    difference() {
        cube(s, center = 
