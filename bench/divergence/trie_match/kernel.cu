// Exact-match search of short reads against a reference in the manner of mummergpu: the
// reference's substrings of up to `depth` letters are stored as a trie (four child indices per
// node, -1 for none); each thread takes one read and, from every start position, walks down the
// trie until a mismatch, a missing child, the read's end or the depth limit. Matches of at least
// min_match letters are counted, summed and the longest (first on a tie) kept.
extern "C" __global__ void trie_match(const int* child, const unsigned char* text, const int* start,
                                      const int* length, int* out, int reads, int depth,
                                      int min_match) {
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= reads) return;
    const unsigned char* read = text + start[t];
    int len = length[t];
    int matches = 0, total = 0, longest = 0, where = -1;
#pragma unroll 1
    for (int s = 0; s < len; ++s) {
        if (len - s < min_match) break;
        int node = 0, k = 0;
#pragma unroll 1
        while (s + k < len && k < depth) {
            int next = child[4 * node + read[s + k]];
            if (next < 0) break;
            node = next;
            ++k;
        }
        if (k >= min_match) {
            ++matches;
            total += k;
            if (k > longest) {
                longest = k;
                where = s;
            }
        }
    }
    out[4 * t] = matches;
    out[4 * t + 1] = total;
    out[4 * t + 2] = longest;
    out[4 * t + 3] = where;
}
