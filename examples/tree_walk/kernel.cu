// A per-thread walk down a suffix trie stored in global memory, in the spirit of mummergpu: each
// thread matches its query from the root until a character has no child, an 'N' is read, or the
// query ends -- three data-dependent exits from the walk loop.
#define TW_QLEN 16
#define TW_N 4

extern "C" __global__ void tree_walk(const int* children, const unsigned char* queries,
                                     int* match_len, int* end_node, int n) {
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= n) return;
    const unsigned char* q = queries + t * TW_QLEN;
    int node = 0;
    int len = 0;
#pragma unroll 1
    while (len < TW_QLEN) {
        int c = q[len];
        if (c == TW_N) break;
        int next = children[node * 4 + c];
        if (next < 0) break;
        node = next;
        len++;
    }
    match_len[t] = len;
    end_node[t] = node;
}
