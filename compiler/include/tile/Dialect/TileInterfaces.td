//===- TileInterfaces.td - layout attribute interfaces ------*- tablegen -*-===//
#ifndef TILE_INTERFACES_TD
#define TILE_INTERFACES_TD

include "mlir/IR/OpBase.td"

def Tile_DistributedLayoutInterface : AttrInterface<"DistributedLayoutInterface"> {
  let cppNamespace = "::mlir::tile";
  let description = [{
    A layout that distributes a tensor's elements over the registers, lanes and warps of
    a thread block (#tile.blocked, #tile.slice, #tile.mma, #tile.dot_operand,
    #tile.linear). Whatever its parameters, it is one linear layout over GF(2)
    (tile/Layout/LinearLayout.h): in dims "register", "lane" (32), "warp", out dims
    "dim0".."dim{rank-1}" of the tensor's shape. The lowering asks only that map.
  }];
  let methods = [
    InterfaceMethod<[{
        The (register, lane, warp) -> coordinate map of a tensor of `shape` (powers of two)
        and `elementType` (only #tile.dot_operand reads it: 16-bit elements pack in pairs,
        tf32 ones do not). Coordinates past a dimension wrap: those threads hold replicas.
      }], "::tile::layout::LinearLayout", "toLinearLayout",
      (ins "::llvm::ArrayRef<int64_t>":$shape, "::mlir::Type":$elementType)>,
    InterfaceMethod<"The rank of the tensors this layout describes.", "unsigned", "getRank", (ins)>,
    InterfaceMethod<"Warps of the thread block the layout spreads over.", "unsigned", "getNumWarps", (ins)>,
  ];
}

#endif
