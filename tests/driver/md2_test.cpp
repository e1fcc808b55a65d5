// MD2 against the RFC 1319 test suite (appendix A.5), and the HMAC construction on top of it.
#include "emulator/driver/integrity.hpp"
#include "emulator/driver/md2.hpp"

#include <catch2/catch.hpp>

#include <cstdio>
#include <string>

namespace {

std::string hex(const cfr::driver::Md2::Digest& d) {
    std::string s;
    char buf[3];
    for (uint8_t b : d) {
        std::snprintf(buf, sizeof buf, "%02x", b);
        s += buf;
    }
    return s;
}

std::string md2(const std::string& text) {
    return hex(cfr::driver::Md2::of(
        std::span(reinterpret_cast<const uint8_t*>(text.data()), text.size())));
}

} // namespace

TEST_CASE("MD2 matches the RFC 1319 test suite") {
    CHECK(md2("") == "8350e5a3e24c153df2275c9f80692773");
    CHECK(md2("a") == "32ec01ec4a6dac72c0ab96fb34c0b5d1");
    CHECK(md2("abc") == "da853b0d3f88d99b30283a69e6ded6bb");
    CHECK(md2("message digest") == "ab4f496bfb2a530b219ff33031fe06b0");
    CHECK(md2("abcdefghijklmnopqrstuvwxyz") == "4e8ddff3650292ab5a4108c3aa47940b");
    CHECK(md2("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789") ==
          "da33def2a42df13975352846c30338cd");
    CHECK(md2("12345678901234567890123456789012345678901234567890123456789012345678901234567890") ==
          "d5976f79d83d3a0dc9806c3c66f3efd8");
}

TEST_CASE("MD2 gives the same digest however the input is split") {
    const std::string text = "The quick brown fox jumps over the lazy dog, twice over and again";
    cfr::driver::Md2 split;
    for (char c : text)
        split.update(&c, 1);
    CHECK(hex(split.finish()) == md2(text));
}

TEST_CASE("HMAC-MD2 is MD2(key^opad || MD2(key^ipad || message))") {
    std::array<uint8_t, 16> key;
    for (int i = 0; i < 16; ++i)
        key[i] = uint8_t(i * 7 + 1);
    const std::string message = "integrity";
    cfr::driver::HmacMd2 mac(key);
    mac.update(message.data(), message.size());

    std::string inner_input, outer_input;
    for (uint8_t k : key)
        inner_input += char(k ^ 0x36);
    inner_input += message;
    const auto inner = cfr::driver::Md2::of(
        std::span(reinterpret_cast<const uint8_t*>(inner_input.data()), inner_input.size()));
    for (uint8_t k : key)
        outer_input += char(k ^ 0x5c);
    outer_input.append(reinterpret_cast<const char*>(inner.data()), inner.size());
    CHECK(hex(mac.finish()) == md2(outer_input));
}

TEST_CASE("the integrity hash depends on every input") {
    cfr::driver::IntegrityInput in;
    in.driver_version = 13000;
    in.version = 13002;
    in.process = 1234;
    in.thread = 5678;
    in.unix_seconds = 1700000000;
    cfr::driver::IntegrityDevice dev{};
    dev.pci_bus = 1;
    const auto base = cfr::driver::integrity_hash(in, {dev});
    CHECK(base == cfr::driver::integrity_hash(in, {dev}));
    auto other = in;
    other.unix_seconds++;
    CHECK(base != cfr::driver::integrity_hash(other, {dev}));
    dev.uuid[3] = 1;
    CHECK(base != cfr::driver::integrity_hash(in, {dev}));
    CHECK(base != cfr::driver::integrity_hash(in, {}));
}
