const std = @import("std");

pub fn main() void {
    const x = ;
    std.debug.print("{d}\n", .{x});
