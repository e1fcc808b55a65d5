// The decoded form of the warp-level matrix instructions (wmma.load/store/mma, mma.sync, ldmatrix,
// stmatrix, movmatrix): which operation, shape, element types and layouts, and the registers of
// each fragment. One MatrixOp per instruction lives in Program::matrix_ops (Inst::aux).
// decode_matrix.cpp fills it; ops_matrix.cpp runs it.
#pragma once

#include <cstdint>
#include <vector>

namespace cfr::emu {

enum class MatrixKind : uint8_t {
    WmmaLoad,
    WmmaStore,
    WmmaMma,
    Mma,
    Ldmatrix,
    Stmatrix,
    Movmatrix
};

// The matrices of D = A x B + C: A is m x k, B is k x n, C and D are m x n.
enum class MatrixRole : uint8_t { A, B, C, D };

// Element types of matrix fragments. Tf32 is held in a 32-bit register like f32; the low 13 bits
// of its mantissa are ignored.
enum class MatrixElem : uint8_t { None, F16, BF16, Tf32, F32, F64, S8, U8, S32, B16 };

struct MatrixOp {
    MatrixKind kind = MatrixKind::WmmaMma;
    uint8_t m = 0, n = 0, k = 0;
    MatrixRole role = MatrixRole::A; // wmma.load / wmma.store: the matrix
    bool row_major = true;           // wmma.load/store: the layout in memory
    bool trans = false;              // ldmatrix, stmatrix, movmatrix
    bool satfinite = false;          // integer mma: clamp instead of wrapping
    uint8_t count = 1;               // ldmatrix/stmatrix: 8x8 matrices (x1, x2, x4)
    MatrixElem a = MatrixElem::None, b = MatrixElem::None, c = MatrixElem::None,
               d = MatrixElem::None; // element types; load/store use `a`
    // The fragments' registers by MatrixRole (mma: A, B, C, D); a wmma.load/store, ldmatrix,
    // stmatrix: regs[0]; movmatrix: regs[0] the destination, regs[1] the source.
    std::vector<uint32_t> regs[4];
    bool has_stride = false; // wmma.load/store: stride in Inst::s[0]
};

} // namespace cfr::emu
