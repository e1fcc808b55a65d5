// A bytecode interpreter: every thread runs one of six small register-machine programs (chosen by
// its input) in a fetch / switch-dispatch loop, so the lanes of a warp execute different opcodes
// at the same time. Instructions are pairs (op | d << 8 | a << 12 | b << 16, immediate).
#define VM_HALT 0
#define VM_LI 1
#define VM_ADD 2
#define VM_SUB 3
#define VM_MUL 4
#define VM_ADDI 5
#define VM_ANDI 6
#define VM_SHRI 7
#define VM_JZ 8
#define VM_JNZ 9
#define VM_JMP 10
#define VM_REM 11
#define VM_MIX 12
#define VM_LT 13
#define VM_LD 14

__device__ __forceinline__ unsigned vm_mix(unsigned v) {
    v ^= v >> 16;
    v *= 0x7feb352du;
    v ^= v >> 15;
    return v;
}

extern "C" __global__ void bytecode_vm(const int2* code, const int* entry, const unsigned* input,
                                       const unsigned* table, unsigned* out, int threads,
                                       int programs, int max_steps, int table_mask) {
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= threads) return;
    unsigned in = input[t];
    unsigned reg[8];
    reg[0] = in & 0xffff;
    reg[1] = (in >> 16) | 1u;
    for (int i = 2; i < 8; ++i)
        reg[i] = 0;
    int pc = entry[in % (unsigned)programs];
    int steps = 0;
#pragma unroll 1
    while (steps < max_steps) {
        int2 ins = code[pc];
        unsigned d = (ins.x >> 8) & 7, a = (ins.x >> 12) & 7, b = (ins.x >> 16) & 7;
        int imm = ins.y;
        ++steps;
        ++pc;
        switch (ins.x & 0xff) {
        case VM_LI:
            reg[d] = (unsigned)imm;
            break;
        case VM_ADD:
            reg[d] = reg[a] + reg[b];
            break;
        case VM_SUB:
            reg[d] = reg[a] - reg[b];
            break;
        case VM_MUL:
            reg[d] = reg[a] * reg[b];
            break;
        case VM_ADDI:
            reg[d] = reg[a] + (unsigned)imm;
            break;
        case VM_ANDI:
            reg[d] = reg[a] & (unsigned)imm;
            break;
        case VM_SHRI:
            reg[d] = reg[a] >> imm;
            break;
        case VM_JZ:
            if (reg[a] == 0) pc = imm;
            break;
        case VM_JNZ:
            if (reg[a] != 0) pc = imm;
            break;
        case VM_JMP:
            pc = imm;
            break;
        case VM_REM:
            reg[d] = reg[b] ? reg[a] % reg[b] : 0u;
            break;
        case VM_MIX:
            reg[d] = vm_mix(reg[a]);
            break;
        case VM_LT:
            reg[d] = reg[a] < reg[b] ? 1u : 0u;
            break;
        case VM_LD:
            reg[d] = table[reg[a] & (unsigned)table_mask];
            break;
        default: // VM_HALT and anything unknown
            goto halted;
        }
    }
halted:
    out[2 * t] = reg[2];
    out[2 * t + 1] = (unsigned)steps;
}
