fn vs_main(i: u32 -> VertexOut {
    var out: VertexOut
    return 
