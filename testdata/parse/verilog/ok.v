// Counts clock edges.
module counter #(parameter WIDTH = 8) (
    input wire clk,
    input wire rst,
    output reg [WIDTH-1:0] count
);
    always @(posedge clk) begin
        if (rst)
            count <= 0;
        else
            count <= count + 1;
    end
endmodule

module top;
    reg clk = 0;
    wire [7:0] n;
    counter #(.WIDTH(8)) c (.clk(clk), .rst(1'b0), .count(n));
endmodule
