// OperandList: an instruction's operands and an operand's elements, one pointer while empty and
// one block after, behave as a sequence of values through growth, reservation, copies, moves and
// nesting.
#include "ptx/ir.hpp"
#include "ptx/operand_builders.hpp"

#include <catch2/catch.hpp>

#include <string>
#include <utility>
#include <vector>

using cfr::ptx::Operand;
using cfr::ptx::OperandList;

namespace {

Operand named(const std::string& text) {
    return Operand(Operand::Kind::Symbol, text);
}

std::vector<std::string> texts(const OperandList& list) {
    std::vector<std::string> out;
    for (const Operand& operand : list)
        out.push_back(operand.text);
    return out;
}

// An address [base+offset] whose base is itself a list, so that copies go two levels deep.
Operand nested(const std::string& base) {
    Operand address(Operand::Kind::Address, "");
    address.elements.push_back(named(base));
    address.elements.front().elements.push_back(named(base + ".inner"));
    return address;
}

} // namespace

TEST_CASE("an empty operand list is one pointer and allocates nothing", "[ptx][operand]") {
    STATIC_REQUIRE(sizeof(OperandList) == sizeof(void*));
    const OperandList list;
    CHECK(list.empty());
    CHECK(list.size() == 0);
    CHECK(list.capacity() == 0);
    CHECK(list.begin() == list.end());
    CHECK(list == OperandList{});
}

TEST_CASE("operands appended past the capacity keep their order and values", "[ptx][operand]") {
    OperandList list;
    std::vector<std::string> expected;
    for (int i = 0; i < 37; ++i) {
        const std::string text = "%r" + std::to_string(i) + "_with_a_name_past_the_inline_size";
        if (i % 2) {
            const Operand& added = list.emplace_back(named(text));
            CHECK(&added == &list.back());
        } else {
            list.push_back(named(text));
        }
        expected.push_back(text);
        REQUIRE(list.size() == expected.size());
        CHECK(list.capacity() >= list.size());
    }
    CHECK(texts(list) == expected);
    CHECK(list.front().text == expected.front());
    CHECK(list[20].text == expected[20]);
}

TEST_CASE("reserve makes room once; appends within it do not move the operands", "[ptx][operand]") {
    OperandList list{named("a")};
    list.reserve(5);
    CHECK(list.capacity() == 5);
    const Operand* first = &list.front();
    for (const char* text : {"b", "c", "d", "e"})
        list.push_back(named(text));
    CHECK(&list.front() == first);
    CHECK(texts(list) == std::vector<std::string>{"a", "b", "c", "d", "e"});
    list.reserve(2); // never shrinks
    CHECK(list.capacity() == 5);
}

TEST_CASE("copies of operand lists are deep and equal; moves leave the source empty",
          "[ptx][operand]") {
    OperandList original{nested("%rd1"), named("x"), nested("%rd2")};
    OperandList copy = original;
    CHECK(copy == original);
    copy[0].elements.front().elements.front().text = "changed";
    CHECK(original[0].elements.front().elements.front().text == "%rd1.inner");
    CHECK_FALSE(copy == original);

    OperandList assigned{named("old")};
    assigned = original;
    CHECK(assigned == original);
    assigned = std::as_const(assigned); // self-assignment keeps the operands
    CHECK(assigned == original);

    OperandList moved = std::move(copy);
    CHECK(copy.empty()); // NOLINT(bugprone-use-after-move): a moved-from list is empty
    CHECK(moved[0].elements.front().elements.front().text == "changed");
    moved = std::move(assigned);
    CHECK(moved == original);

    moved = {named("p"), named("q")};
    CHECK(texts(moved) == std::vector<std::string>{"p", "q"});
}

TEST_CASE("operand lists compare element by element", "[ptx][operand]") {
    CHECK(OperandList{named("a"), named("b")} == OperandList{named("a"), named("b")});
    CHECK_FALSE(OperandList{named("a"), named("b")} == OperandList{named("b"), named("a")});
    CHECK_FALSE(OperandList{named("a")} == OperandList{named("a"), named("b")});
    CHECK_FALSE(OperandList{} == OperandList{named("a")});
}

TEST_CASE("an operand appended or assigned from its own list stays valid, as with std::vector",
          "[ptx][operand]") {
    OperandList list{named("a")}; // full: each append below grows it
    list.push_back(list.front());
    list.emplace_back(list[1]);
    list.push_back(std::as_const(list).back());
    CHECK(texts(list) == std::vector<std::string>{"a", "a", "a", "a"});

    Operand address = nested("%rd1");
    address = std::move(address.elements.front()); // the base replaces the address it is in
    CHECK(address.text == "%rd1");
    REQUIRE(address.elements.size() == 1);
    CHECK(address.elements.front().text == "%rd1.inner");

    Operand copied = nested("%rd2");
    copied = copied.elements.front();
    CHECK(copied.text == "%rd2");
    REQUIRE(copied.elements.size() == 1);
    CHECK(copied.elements.front().text == "%rd2.inner");
}
