// Inputs and reference for goto_state_machine: 64 random symbols per thread; the reference is the
// same machine written with a state variable and a switch.
#pragma once

#include "../common/problem.hpp"

struct GotoStateMachine {
    static constexpr const char* name = "goto_state_machine";
    static constexpr int n = 1024;
    static constexpr int length = 64;
    std::vector<unsigned> symbols, out, steps_out, want_out, want_steps;

    GotoStateMachine() : symbols(n * length), out(n, 0), steps_out(n, 0) {
        for (int i = 0; i < n * length; ++i)
            symbols[i] = examples::hash(static_cast<unsigned>(i) * 31u + 5u) % 64u;
        want_out = out;
        want_steps = steps_out;
        for (int t = 0; t < n; ++t) {
            const unsigned* s = symbols.data() + t * length;
            unsigned acc = 0;
            int i = 0;
            enum { Space, Word, Escape, Done } state = (s[0] & 1u) ? Word : Space;
            while (state != Done) {
                switch (state) {
                case Space:
                    if (i >= length) {
                        state = Done;
                    } else if (s[i] % 5u != 0u) {
                        acc += 1000u;
                        state = Word;
                    } else {
                        ++i;
                    }
                    break;
                case Word:
                    if (i >= length) {
                        state = Done;
                    } else if (s[i] % 5u == 0u) {
                        ++i;
                        state = Space;
                    } else if (s[i] % 7u == 3u) {
                        state = Escape;
                    } else {
                        acc = acc * 3u + s[i];
                        ++i;
                    }
                    break;
                case Escape:
                    ++i;
                    acc ^= 0x55u;
                    if (i < length && (s[i] & 2u)) {
                        ++i;
                        state = Word;
                    } else {
                        state = Space;
                    }
                    break;
                case Done:
                    break;
                }
            }
            want_out[t] = acc;
            want_steps[t] = static_cast<unsigned>(i);
        }
    }
    examples::Launch launch() const { return {n / 128, 128, 0}; }
    std::vector<examples::Buffer> buffers() {
        return {examples::in(symbols), examples::out(out), examples::out(steps_out)};
    }
    std::vector<int> scalars() const { return {n, length}; }
    int check() const {
        examples::Checker k(name);
        k.equal("out", out, want_out);
        k.equal("steps", steps_out, want_steps);
        return k.finish(n);
    }
};
