// A switch whose cases return: most cases store and return from the middle of the switch, one
// case returns only conditionally, others fall through or break to the code after the switch.
extern "C" __global__ void switch_return(const int* op, const int* a, int* out, int* tag, int n) {
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= n) return;
    int v = a[t];
    switch (op[t]) {
    case 0:
        out[t] = v + 1;
        return;
    case 1:
        out[t] = v * 3;
        return;
    case 2:
        if (v > 0) {
            out[t] = v - 7;
            return;
        }
        break;
    case 3:
        out[t] = v ^ 0x5a5a;
        tag[t] = 3;
        return;
    case 4:
    case 5:
        v = v * v;
        break;
    case 6:
        v = -v;
        [[fallthrough]];
    case 7:
        out[t] = v >> 1;
        return;
    default:
        break;
    }
    tag[t] = 1;
    out[t] = v + 100;
}
