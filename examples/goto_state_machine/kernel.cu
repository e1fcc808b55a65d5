// A state machine written with goto: three states that jump to one another, two of them entered
// from outside (the start state depends on the input), so the cycle has several entries and the
// CFG is irreducible. Each thread scans its own string of symbols; a step counter bounds the run.
extern "C" __global__ void goto_state_machine(const unsigned* symbols, unsigned* out,
                                              unsigned* steps_out, int n, int length) {
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= n) return;
    const unsigned* s = symbols + t * length;
    unsigned acc = 0;
    int i = 0;
    if (s[0] & 1u) goto in_word;
space: // skipping separators
    if (i >= length) goto done;
    if (s[i] % 5u != 0u) {
        acc += 1000u; // a word starts
        goto in_word;
    }
    i++;
    goto space;
in_word: // inside a word
    if (i >= length) goto done;
    if (s[i] % 5u == 0u) {
        i++;
        goto space;
    }
    if (s[i] % 7u == 3u) goto escape;
    acc = acc * 3u + s[i];
    i++;
    goto in_word;
escape: // an escaped symbol, back to the word or to the separators
    i++;
    acc ^= 0x55u;
    if (i < length && (s[i] & 2u)) {
        i++;
        goto in_word;
    }
    goto space;
done:
    out[t] = acc;
    steps_out[t] = static_cast<unsigned>(i);
}
