//===- MmaLayouts.h - mma.sync (v2) fragments as linear layouts ------------===//
// The register fragments of PTX's mma.sync.m16n8k16 with 16-bit inputs (f16, bf16), and
// m16n8k8 with tf32 inputs, with f32 accumulators, as linear layouts over a whole tensor:
//  - accumulator [M, N]: per instruction tile 16 x 8, lane l holds (l/4, 2(l%4) + {0,1})
//    and the same 8 rows below; warps tile M first (warpsM of them), then N;
//  - operand a [M, K]: per 16 x 16 tile, lane l holds rows l/4 and l/4 + 8, columns
//    2(l%4) + {0,1} and the same 8 columns to the right; warps along N hold copies;
//  - operand b [K, N]: per 16 x 8 tile, lane l holds rows 2(l%4) + {0,1} and 8 below,
//    column l/4; warps along M hold copies;
//  - tf32 (32-bit elements, m16n8k8): a per 16 x 8 tile, lane l holds rows l/4 and l/4 + 8,
//    columns l%4 and l%4 + 4; b per 8 x 8 tile, rows l%4 and l%4 + 4, column l/4.
// Register numbering (what the lowering pairs up into mma.sync's operands): the
// fragment's own registers first, then repetitions along K (operands) or N
// (accumulator), then along M (a, accumulator) or N (b).
// The tensor's extents must be multiples of the warps' coverage: M of 16 * warpsM, N of
// 8 * warpsN, K of 16 (8 for tf32) (layout assignment only chooses these layouts then).
#ifndef TILE_LAYOUT_MMALAYOUTS_H
#define TILE_LAYOUT_MMALAYOUTS_H

#include "tile/Layout/LinearLayout.h"

namespace tile::layout {

LinearLayout mmaV2Accumulator(int warpsM, int warpsN, int64_t m, int64_t n);
/// opIdx 0: a [M, K]; 1: b [K, N] (`rows` x `cols` is the operand's own shape);
/// `elemBits` 16 (f16/bf16) or 32 (tf32).
LinearLayout mmaV2Operand(int opIdx, int warpsM, int warpsN, int64_t rows, int64_t cols, int elemBits = 16);

} // namespace tile::layout

#endif
