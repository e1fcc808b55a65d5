#!/usr/bin/env python3
"""Writes a large, valid PTX module for the front-end benchmark: many kernels, each a chain of
diamonds and loops whose branches depend on the thread index, with arithmetic and memory traffic
in every block."""
import argparse
import random


def kernel(index, blocks, rng):
    lines = [f".visible .entry gen_kernel_{index}(",
             "\t.param .u64 gen_param_0,", "\t.param .u32 gen_param_1", ")", "{",
             "\t.reg .pred %p<8>;", "\t.reg .b32 %r<16>;", "\t.reg .b64 %rd<8>;", "",
             "\tld.param.u64 %rd1, [gen_param_0];", "\tld.param.u32 %r1, [gen_param_1];",
             "\tcvta.to.global.u64 %rd2, %rd1;", "\tmov.u32 %r2, %tid.x;",
             "\tmov.u32 %r3, %ctaid.x;", "\tmad.lo.s32 %r4, %r3, %r1, %r2;",
             "\tmul.wide.s32 %rd3, %r4, 4;", "\tadd.s64 %rd4, %rd2, %rd3;",
             "\tld.global.u32 %r5, [%rd4];"]
    for b in range(blocks):
        shape = rng.choice(["diamond", "loop", "skip"])
        lbl = f"$L__gen{index}_{b}"
        lines.append(f"\tand.b32 %r6, %r2, {rng.randint(1, 31)};")
        lines.append(f"\tsetp.eq.s32 %p1, %r6, {rng.randint(0, 3)};")
        if shape == "diamond":
            lines += [f"\t@%p1 bra {lbl}_else;", f"\tadd.s32 %r5, %r5, {rng.randint(1, 99)};",
                      f"\tmul.lo.s32 %r7, %r5, {rng.randint(2, 9)};", f"\tbra.uni {lbl}_join;",
                      f"{lbl}_else:", f"\txor.b32 %r5, %r5, {rng.randint(1, 1 << 20)};",
                      "\tshl.b32 %r7, %r5, 2;", f"{lbl}_join:", "\tadd.s32 %r5, %r5, %r7;"]
        elif shape == "loop":
            lines += ["\tmov.u32 %r8, 0;", f"{lbl}_head:", "\tadd.s32 %r5, %r5, %r8;",
                      "\tadd.s32 %r8, %r8, 1;", "\tsetp.lt.u32 %p2, %r8, %r6;",
                      f"\t@%p2 bra {lbl}_head;"]
        else:
            lines += [f"\t@%p1 bra {lbl}_skip;", "\tst.global.u32 [%rd4], %r5;",
                      f"{lbl}_skip:", "\tadd.s32 %r5, %r5, 1;"]
    lines += ["\tst.global.u32 [%rd4], %r5;", "\tret;", "}", ""]
    return "\n".join(lines)


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("output")
    parser.add_argument("--kernels", type=int, default=200)
    parser.add_argument("--blocks", type=int, default=60, help="control-flow shapes per kernel")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    with open(args.output, "w") as out:
        out.write(".version 8.0\n.target sm_75\n.address_size 64\n\n")
        for k in range(args.kernels):
            out.write(kernel(k, args.blocks, rng))
            out.write("\n")


if __name__ == "__main__":
    main()
