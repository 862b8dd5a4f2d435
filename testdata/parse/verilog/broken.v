module counter (input wire clk
    always @(posedge clk begin
        count <= count + ;
    end
