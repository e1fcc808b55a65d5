// Lexer::statements_in_braces counts sixteen bytes at a time where it can; it must count as the
// plain definition does, one byte at a time: the ';' and the label ':' (not part of a '::') up to
// the matching '}', outside strings and comments.
#include "ptx/lexer.hpp"

#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <string_view>

namespace {

// The definition as a state machine over the bytes: what a byte means depends on whether it is
// in code, a string or a comment.
size_t counted_one_by_one(std::string_view s, size_t open) {
    enum class In { Code, String, LineComment, BlockComment };
    In in = In::Code;
    size_t statements = 0;
    int depth = 0;
    const auto at = [&](size_t i) { return i < s.size() ? s[i] : '\0'; };
    for (size_t i = open; i < s.size(); ++i) {
        const char c = s[i];
        switch (in) {
        case In::String: // a backslash escapes the byte after it, whatever it is
            if (c == '\\')
                ++i;
            else if (c == '"' || c == '\n')
                in = In::Code;
            break;
        case In::LineComment:
            if (c == '\n') in = In::Code;
            break;
        case In::BlockComment:
            if (c == '*' && at(i + 1) == '/') {
                in = In::Code;
                ++i;
            }
            break;
        case In::Code:
            if (c == '{') ++depth;
            if (c == '}' && --depth == 0) return statements;
            if (c == ';') ++statements;
            if (c == ':' && at(i + 1) != ':' && (i == 0 || s[i - 1] != ':')) ++statements;
            if (c == '"') in = In::String;
            if (c == '/' && at(i + 1) == '/') in = In::LineComment;
            if (c == '/' && at(i + 1) == '*') {
                in = In::BlockComment;
                ++i;
            }
            break;
        }
    }
    return 0; // the braces do not close, or a block comment does not end
}

// Every '{' of `text` as an opening brace: both counts agree.
size_t check_every_brace(const std::string& text) {
    const cfr::ptx::Lexer lexer(text);
    size_t braces = 0;
    for (size_t open = text.find('{'); open != std::string::npos; open = text.find('{', open + 1)) {
        INFO("brace at " << open);
        REQUIRE(lexer.statements_in_braces(static_cast<uint32_t>(open)) ==
                counted_one_by_one(text, open));
        ++braces;
    }
    return braces;
}

} // namespace

TEST_CASE("statements_in_braces counts as the definition does, in the example modules") {
    size_t braces = 0;
    const std::filesystem::path dir = std::filesystem::path(CFRJIT_BINARY_DIR) / "examples" / "ptx";
    for (const auto& entry : std::filesystem::directory_iterator(dir)) {
        if (entry.path().extension() != ".ptx") continue;
        std::ifstream in(entry.path());
        std::stringstream text;
        text << in.rdbuf();
        INFO(entry.path().filename().string());
        braces += check_every_brace(text.str());
    }
    CHECK(braces > 38);
}

TEST_CASE("statements_in_braces counts as the definition does, in random text of the characters "
          "it reads") {
    std::mt19937_64 rng(20261127);
    const std::string_view alphabet = "{{}};;;:::::\"\"//**\\\n  ab.%$_0";
    std::uniform_int_distribution<size_t> pick(0, alphabet.size() - 1);
    std::uniform_int_distribution<size_t> length(1, 300);
    size_t braces = 0;
    for (int round = 0; round < 3000; ++round) {
        std::string text(length(rng), ' ');
        for (char& c : text)
            c = alphabet[pick(rng)];
        // Runs of plain statements between the special characters, for the sixteen-byte path.
        for (size_t at = 0; at < text.size(); at += 40)
            text.replace(at, std::min<size_t>(20, text.size() - at),
                         std::string("add.s32 %r1, %r2;L:a::b;").substr(0, 20));
        INFO(text);
        braces += check_every_brace(text);
    }
    CHECK(braces > 3000);
}
