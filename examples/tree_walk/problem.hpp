// Inputs and reference for tree_walk: the trie holds the suffixes (up to depth 16) of a random
// 64-base reference; queries are reference substrings with random substitutions and 'N's, so
// match lengths range from 0 to the full 16.
#pragma once

#include "../common/problem.hpp"

struct TreeWalk {
    static constexpr const char* name = "tree_walk";
    static constexpr int n = 1024;
    static constexpr int qlen = 16;
    static constexpr int ref_len = 64;
    static constexpr int depth = 16;
    static constexpr unsigned char base_n = 4;
    std::vector<int> children, match_len, end_node, want_len, want_node;
    std::vector<unsigned char> queries;

    TreeWalk() : children(4, -1), match_len(n, -1), end_node(n, -1), queries(n * qlen) {
        std::vector<unsigned char> ref(ref_len);
        for (int i = 0; i < ref_len; ++i)
            ref[i] = static_cast<unsigned char>(examples::hash(i + 500) % 4);
        for (int s = 0; s < ref_len; ++s) {
            int node = 0;
            for (int d = 0; d < depth && s + d < ref_len; ++d) {
                int& child = children[node * 4 + ref[s + d]];
                if (child < 0) {
                    child = static_cast<int>(children.size() / 4);
                    children.insert(children.end(), 4, -1);
                }
                node = children[node * 4 + ref[s + d]]; // re-read: insert may reallocate
            }
        }
        for (int t = 0; t < n; ++t) {
            unsigned start = examples::hash(t) % (ref_len - qlen);
            for (int k = 0; k < qlen; ++k) {
                unsigned r = examples::hash(t * qlen + k + 100000) % 64;
                unsigned char c = ref[start + k];
                if (r == 0)
                    c = base_n;
                else if (r < 4)
                    c = static_cast<unsigned char>((c + r) % 4);
                queries[t * qlen + k] = c;
            }
        }
        want_len = match_len;
        want_node = end_node;
        for (int t = 0; t < n; ++t) {
            int node = 0;
            int len = 0;
            for (; len < qlen; ++len) {
                unsigned char c = queries[t * qlen + len];
                if (c == base_n || children[node * 4 + c] < 0) break;
                node = children[node * 4 + c];
            }
            want_len[t] = len;
            want_node[t] = node;
        }
    }
    examples::Launch launch() const { return {n / 128, 128, 0}; }
    std::vector<examples::Buffer> buffers() {
        return {examples::in(children), examples::in(queries), examples::out(match_len),
                examples::out(end_node)};
    }
    std::vector<int> scalars() const { return {n}; }
    int check() const {
        examples::Checker k(name);
        k.equal("match_len", match_len, want_len);
        k.equal("end_node", end_node, want_node);
        return k.finish(n);
    }
};
