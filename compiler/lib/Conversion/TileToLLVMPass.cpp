//===- TileToLLVMPass.cpp - convert-tile-to-llvm --------------------------===//
// Three conversions in sequence:
//  1. tensors → per-thread scalars and tile ops → LLVM/NVVM (1:N type conversion,
//     scf ops rewritten structurally, scalar arith/math left for step 3);
//  2. scf → cf;
//  3. func/arith/math/cf → llvm, math functions as libdevice calls.
#include "TileToLLVM.h"
#include "tile/PassFailure.h"
#include "tile/TensorDescAbi.h"
#include "tile/Transforms/Passes.h"
#include "tile/Transforms/Preconditions.h"

#include "mlir/Conversion/ArithToLLVM/ArithToLLVM.h"
#include "mlir/Conversion/ControlFlowToLLVM/ControlFlowToLLVM.h"
#include "mlir/Conversion/FuncToLLVM/ConvertFuncToLLVM.h"
#include "mlir/Conversion/GPUToNVVM/GPUToNVVMPass.h"
#include "mlir/Conversion/LLVMCommon/ConversionTarget.h"
#include "mlir/Conversion/LLVMCommon/TypeConverter.h"
#include "mlir/Conversion/MathToLLVM/MathToLLVM.h"
#include "mlir/Conversion/SCFToControlFlow/SCFToControlFlow.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlowOps.h"
#include "mlir/Dialect/Func/Transforms/FuncConversions.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/SCF/Transforms/Patterns.h"
#include "mlir/Transforms/DialectConversion.h"

#include "llvm/Support/Debug.h"

#define DEBUG_TYPE "convert-tile-to-llvm"

namespace mlir::tile {
#define GEN_PASS_DEF_CONVERTTILETOLLVM
#include "tile/Transforms/Passes.h.inc"
} // namespace mlir::tile

using namespace mlir;
using namespace mlir::tile;

TileTypeConverter::TileTypeConverter(MLIRContext *ctx) {
  addConversion([](Type t) { return t; });
  addConversion([ctx](PtrType) -> Type { return LLVM::LLVMPointerType::get(ctx, /*addressSpace=*/1); });
  // A tensor descriptor is the address of its parameter (a byval struct, Descriptors.cpp).
  addConversion([ctx](TensorDescType) -> Type { return LLVM::LLVMPointerType::get(ctx); });
  // A shared-memory buffer is its base address.
  addConversion([ctx](MemDescType) -> Type { return LLVM::LLVMPointerType::get(ctx, /*addressSpace=*/3); });
  addConversion([this](RankedTensorType t, SmallVectorImpl<Type> &out) -> std::optional<LogicalResult> {
    if (!t.getEncoding()) return std::nullopt;
    Type elem = convertType(t.getElementType());
    out.append(ThreadLayout::get(t).numRegs(), elem);
    return success();
  });
}

Value SharedMemory::at(OpBuilder &b, Location loc, unsigned offset, unsigned bytes) {
  required = std::max(required, offset + bytes);
  Value base = LLVM::AddressOfOp::create(b, loc, global);
  if (!offset) return base;
  return LLVM::GEPOp::create(b, loc, base.getType(), b.getI8Type(), base, ArrayRef<LLVM::GEPArg>{int32_t(offset)});
}

Value SharedMemory::scratch(OpBuilder &b, Location loc, Operation *op, unsigned bytes) {
  auto offset = op->getAttrOfType<IntegerAttr>(kScratchOffsetAttr);
  return at(b, loc, offset ? offset.getInt() : 0, bytes);
}

Type mlir::tile::sharedStorageType(Type elemType) {
  return elemType.isInteger(1) ? IntegerType::get(elemType.getContext(), 8) : elemType;
}
Value mlir::tile::toShared(OpBuilder &b, Location loc, Value v) {
  if (v.getType().isInteger(1)) return arith::ExtUIOp::create(b, loc, b.getI8Type(), v);
  return v;
}
Value mlir::tile::fromShared(OpBuilder &b, Location loc, Value v, Type elemType) {
  if (elemType.isInteger(1)) return arith::TruncIOp::create(b, loc, elemType, v);
  return v;
}
Value mlir::tile::sharedElementPtr(OpBuilder &b, Location loc, Value base, Type elemType, Value index) {
  return LLVM::GEPOp::create(b, loc, base.getType(), sharedStorageType(elemType), base, ValueRange{index});
}

namespace {

constexpr llvm::StringLiteral kSharedGlobalName = "__tile_smem";

struct ConvertTileToLLVM : mlir::tile::impl::ConvertTileToLLVMBase<ConvertTileToLLVM> {
  /// Kernels with a tile.warp_specialize: the warps they launch (consumers and producer).
  std::map<std::string, int64_t> specializedLaunchWarps;

  void runOnOperation() override {
    if (failed(requireLayouts(getOperation(), getArgument())) || failed(requireRegisterBudget(getOperation())))
      return signalPassFailure();
    ModuleOp module = getOperation();
    if (failed(scalarize(module)) || failed(lowerControlFlow(module)) || failed(lowerToLLVM(module)))
      return signalPassFailure();
    markKernels(module);
  }

  /// Every tensor becomes its registers, one value each, unrolled: a tensor far larger than
  /// its threads (2^20 elements on one warp) would take minutes to lower and could never
  /// run from registers. Refused as a feature gap, at the first such value.
  static LogicalResult requireRegisterBudget(ModuleOp module) {
    constexpr unsigned kMaxRegistersPerThread = 1u << 15;
    DenseMap<Type, unsigned> registers;
    RankedTensorType offending;
    Operation *op = firstDefining(module, [&](Type t) {
      auto rt = dyn_cast<RankedTensorType>(t);
      if (!rt) return false;
      auto [it, fresh] = registers.try_emplace(t, 0);
      if (fresh) it->second = ThreadLayout::get(rt).numRegs();
      if (it->second <= kMaxRegistersPerThread) return false;
      if (!offending) offending = rt;
      return true;
    });
    if (!op) return success();
    return ::tile::compiler::emitUnsupported(op, "a tensor of ")
           << offending << " needs " << registers.lookup(offending) << " registers per thread, more than the "
           << kMaxRegistersPerThread << " the lowering unrolls: use smaller tiles or more warps";
  }

  /// Step 1. The shared-memory buffer is created up front and sized afterwards.
  LogicalResult scalarize(ModuleOp module) {
    MLIRContext *ctx = module.getContext();
    OpBuilder b(ctx);
    b.setInsertionPointToStart(module.getBody());
    auto i8 = IntegerType::get(ctx, 8);
    // Dynamic shared memory (`.extern .shared`): sized at launch from tile.shared_bytes,
    // so large reductions and layout conversions are not capped at 48 KB of static memory.
    // 1024-byte aligned, as 128-byte swizzled tiles read by wgmma/TMA need.
    auto global = LLVM::GlobalOp::create(b, module.getLoc(), LLVM::LLVMArrayType::get(i8, 0), /*isConstant=*/false,
                                         LLVM::Linkage::External, kSharedGlobalName, Attribute(),
                                         /*alignment=*/1024, /*addrSpace=*/3);
    SharedMemory smem(global);
    passDescriptorsByValue(module);
    specializedLaunchWarps = markWarpPartitions(module);

    TileTypeConverter converter(ctx);
    ConversionTarget target(*ctx);
    target.addLegalDialect<LLVM::LLVMDialect, NVVM::NVVMDialect>();
    target.addIllegalDialect<TileDialect>();
    target.markUnknownOpDynamicallyLegal([&](Operation *op) {
      if (auto func = dyn_cast<func::FuncOp>(op))
        return converter.isSignatureLegal(func.getFunctionType()) && converter.isLegal(&func.getBody());
      return converter.isLegal(op);
    });
    RewritePatternSet patterns(ctx);
    populateElementwisePatterns(converter, patterns);
    populateShapeOpPatterns(converter, patterns, smem);
    populateMemoryOpPatterns(converter, patterns);
    populateAtomicPatterns(converter, patterns, smem);
    populateReducePatterns(converter, patterns, smem);
    populateDotPatterns(converter, patterns);
    populateWarpGroupDotPatterns(converter, patterns);
    populateDescriptorPatterns(converter, patterns);
    populateWarpSpecializePatterns(converter, patterns);
    populateSharedMemoryPatterns(converter, patterns, smem);
    populateFunctionOpInterfaceTypeConversionPattern<func::FuncOp>(patterns, converter);
    populateReturnOpTypeConversionPattern(patterns, converter);
    scf::populateSCFStructuralTypeConversionsAndLegality(converter, patterns, target);
    if (failed(applyPartialConversion(module, target, std::move(patterns)))) return failure();

    if (smem.bytes() == 0) global.erase();
    else module->setAttr(kSharedBytesAttr, IntegerAttr::get(IntegerType::get(ctx, 32), smem.bytes()));
    return success();
  }

  /// A descriptor parameter is a tile::TensorDescParam passed by value (`byval`, 64-byte
  /// aligned) and read in place (`nvvm.grid_constant`: no local copy, so its address is the
  /// parameter's, which cp.async.bulk.tensor needs for the TMA map).
  static void passDescriptorsByValue(ModuleOp module) {
    MLIRContext *ctx = module.getContext();
    auto i8 = IntegerType::get(ctx, 8), i32 = IntegerType::get(ctx, 32), i64 = IntegerType::get(ctx, 64);
    auto dims = LLVM::LLVMArrayType::get(i32, ::tile::kMaxDescRank);
    auto param = LLVM::LLVMStructType::getLiteral(ctx, {LLVM::LLVMArrayType::get(i8, 128), i64, dims, dims});
    module.walk([&](func::FuncOp func) {
      for (unsigned i = 0; i < func.getNumArguments(); ++i) {
        if (!isa<TensorDescType>(func.getArgument(i).getType())) continue;
        func.setArgAttr(i, LLVM::LLVMDialect::getByValAttrName(), TypeAttr::get(param));
        func.setArgAttr(i, LLVM::LLVMDialect::getAlignAttrName(),
                        IntegerAttr::get(i64, alignof(::tile::TensorDescParam)));
        func.setArgAttr(i, NVVM::NVVMDialect::getGridConstantAttrName(), UnitAttr::get(ctx));
        func.removeArgAttr(i, kDivisibilityAttr);
      }
    });
  }

  /// Step 2.
  LogicalResult lowerControlFlow(ModuleOp module) {
    MLIRContext *ctx = module.getContext();
    ConversionTarget target(*ctx);
    target.addIllegalDialect<scf::SCFDialect>();
    target.markUnknownOpDynamicallyLegal([](Operation *) { return true; });
    RewritePatternSet patterns(ctx);
    populateSCFToControlFlowConversionPatterns(patterns);
    return applyPartialConversion(module, target, std::move(patterns));
  }

  /// Step 3.
  LogicalResult lowerToLLVM(ModuleOp module) {
    MLIRContext *ctx = module.getContext();
    // Pointer facts from specialisation become LLVM alignment facts.
    module.walk([&](func::FuncOp func) {
      for (unsigned i = 0; i < func.getNumArguments(); ++i) {
        auto div = func.getArgAttrOfType<IntegerAttr>(i, kDivisibilityAttr);
        if (!div) continue;
        func.removeArgAttr(i, kDivisibilityAttr);
        if (isa<LLVM::LLVMPointerType>(func.getArgument(i).getType()))
          func.setArgAttr(i, LLVM::LLVMDialect::getAlignAttrName(),
                          IntegerAttr::get(IntegerType::get(ctx, 64), div.getInt()));
      }
    });
    LowerToLLVMOptions options(ctx);
    options.overrideIndexBitwidth(64);
    LLVMTypeConverter converter(ctx, options);
    LLVMConversionTarget target(*ctx);
    target.addLegalDialect<NVVM::NVVMDialect>();
    target.addLegalOp<ModuleOp>();
    RewritePatternSet patterns(ctx);
    populateFuncToLLVMConversionPatterns(converter, patterns);
    arith::populateArithToLLVMConversionPatterns(converter, patterns);
    cf::populateControlFlowToLLVMConversionPatterns(converter, patterns);
    // What the user asked to approximate first (fast_exp2), then libdevice (exp, log, sqrt,
    // rsqrt, ... with correct rounding), LLVM intrinsics for what remains (fabs, ...).
    populateApproximateMathPatterns(converter, patterns);
    populateLibDeviceConversionPatterns(converter, patterns, /*benefit=*/10);
    populateMathToLLVMConversionPatterns(converter, patterns);
    return applyFullConversion(module, target, std::move(patterns));
  }

  void markKernels(ModuleOp module) {
    module.walk([&](LLVM::LLVMFuncOp func) {
      if (!func->hasAttr(kKernelAttr)) return;
      func->removeAttr(kKernelAttr);
      func->setAttr(NVVM::NVVMDialect::getKernelFuncAttrName(), UnitAttr::get(func.getContext()));
      if (std::optional<unsigned> kernelWarps = kernelNumWarps(func)) {
        // A warp-specialised kernel launches its producer warpgroup beside the layouts' warps.
        unsigned warps = *kernelWarps;
        if (auto it = specializedLaunchWarps.find(func.getSymName().str()); it != specializedLaunchWarps.end())
          warps = unsigned(it->second);
        LLVM_DEBUG(llvm::dbgs() << "kernel @" << func.getSymName() << ": layouts over " << *kernelWarps
                                << " warps, the launch runs " << warps << "\n");
        int32_t threads = int32_t(32 * warps);
        func->setAttr(NVVM::NVVMDialect::getMaxntidAttrName(),
                      DenseI32ArrayAttr::get(func.getContext(), {threads, 1, 1}));
        setLaunchWarps(module, warps);
        func->removeAttr(kNumWarpsAttr);
      }
      // ptxas honours setmaxnreg only where it knows the registers a thread starts with: one
      // program per SM at the launch's threads (research/tensor-cores, pitfall 4).
      if (func.walk([](NVVM::SetMaxRegisterOp) { return WalkResult::interrupt(); }).wasInterrupted())
        func->setAttr(NVVM::NVVMDialect::getMinctasmAttrName(),
                      IntegerAttr::get(IntegerType::get(func.getContext(), 32), 1));
    });
  }
};

} // namespace
