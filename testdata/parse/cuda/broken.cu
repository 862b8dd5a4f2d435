__global__ void add(const float *a, int n {
    int i = blockIdx.x * ;
