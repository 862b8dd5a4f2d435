//! Says hello.
const std = @import("std");

const Greeter = struct {
    name: []const u8,
    count: u32 = 0,

    fn greet(self: *Greeter, who: []const u8) void {
        self.count += 1;
        std.debug.print("hello, {s} from {s}\n", .{ who, self.name });
    }
};

pub fn main() !void {
    var g = Greeter{ .name = "world" };
    for ([_][]const u8{ "a", "b" }) |n| {
        g.greet(n);
    }
    if (g.count != 2) return error.Unexpected;
}
