//===- MTStructureOps.cpp - mesh, sharding and layer structure ops ---------===//
#include "mt/Dialect/MT/IR/MTOps.h"

#include "VerifyHelpers.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/OpImplementation.h"
#include "llvm/ADT/StringSet.h"

using namespace mlir;
using namespace mt;
using namespace mt::detail;

//===----------------------------------------------------------------------===//
// Helpers shared by every op that names a mesh
//===----------------------------------------------------------------------===//

MeshOp mt::detail::lookupMesh(Operation *op, FlatSymbolRefAttr mesh, SymbolTableCollection &symbols,
                              unsigned c) {
  auto found = symbols.lookupNearestSymbolFrom<MeshOp>(op, mesh.getAttr());
  if (!found)
    violates(op, c) << mesh << " does not name an mt.mesh";
  return found;
}

MeshShape mt::detail::meshShapeOf(MeshOp mesh) {
  std::vector<std::string> axes;
  for (Attribute a : mesh.getAxes())
    axes.push_back(cast<StringAttr>(a).str());
  ArrayRef<int64_t> shape = mesh.getShape();
  return MeshShape(axes, std::vector<int64_t>(shape.begin(), shape.end()));
}

LogicalResult mt::detail::verifyAxisList(Operation *op, ArrayAttr axes, unsigned c) {
  if (axes.empty())
    return violates(op, c) << "the group names no mesh axis";
  llvm::StringSet<> seen;
  for (Attribute a : axes)
    if (!seen.insert(cast<StringAttr>(a).getValue()).second)
      return violates(op, c) << "mesh axis '" << cast<StringAttr>(a).getValue()
                             << "' is named twice";
  return success();
}

//===----------------------------------------------------------------------===//
// mt.mesh
//===----------------------------------------------------------------------===//

std::optional<int64_t> MeshOp::getAxisSize(StringRef name) {
  for (auto [axis, size] : llvm::zip(getAxes(), getShape()))
    if (cast<StringAttr>(axis).getValue() == name)
      return size;
  return std::nullopt;
}

int64_t MeshOp::getNumRanks() { return meshShapeOf(*this).numRanks(); }

LogicalResult MeshOp::verify() {
  if (getAxes().empty() || getAxes().size() != getShape().size())
    return violates(*this, 1) << "expected one size per axis and at least one axis, got "
                              << getAxes().size() << " axes and " << getShape().size() << " sizes";
  llvm::StringSet<> seen;
  for (Attribute a : getAxes()) {
    StringRef name = cast<StringAttr>(a).getValue();
    if (name.empty() || !seen.insert(name).second)
      return violates(*this, 2) << "axis names must be non-empty and unique, '" << name
                                << "' is not";
  }
  for (auto [axis, size] : llvm::zip(getAxes(), getShape()))
    if (size < 1)
      return violates(*this, 3) << "axis '" << cast<StringAttr>(axis).getValue() << "' has size "
                                << size << ", sizes must be >= 1";
  return success();
}

//===----------------------------------------------------------------------===//
// mt.shard
//===----------------------------------------------------------------------===//

LogicalResult ShardOp::verify() {
  auto type = tensorType(getInput());
  if (getSharding().getDims().size() != static_cast<size_t>(type.getRank()))
    return violates(*this, 2) << "the sharding has " << getSharding().getDims().size()
                              << " dimensions but the tensor has rank " << type.getRank();
  return success();
}

LogicalResult ShardOp::verifySymbolUses(SymbolTableCollection &symbols) {
  MeshOp mesh = lookupMesh(*this, getSharding().getMesh(), symbols, 1);
  if (!mesh)
    return failure();
  MeshShape shape = meshShapeOf(mesh);
  for (StringRef axis : getSharding().getAllAxes())
    if (!shape.axisSize(axis.str()))
      return violates(*this, 3) << "mesh " << getSharding().getMesh() << " has no axis '" << axis
                                << "'";
  auto type = tensorType(getInput());
  for (unsigned d = 0; d < type.getRank(); ++d) {
    std::vector<std::string> axes;
    for (StringRef a : getSharding().getDimAxes(d))
      axes.push_back(a.str());
    int64_t parts = shape.groupSize(axes);
    if (!type.isDynamicDim(d) && !shardSize(type.getDimSize(d), parts))
      return violates(*this, 4) << "dimension " << d << " of size " << type.getDimSize(d)
                                << " does not split evenly into " << parts << " shards";
  }
  return success();
}

//===----------------------------------------------------------------------===//
// mt.layer_stack
//
//   %r = mt.layer_stack (%h = %x : T) layers (%w = %W : LxW) -> T { body }
//===----------------------------------------------------------------------===//

int64_t LayerStackOp::getNumLayers() { return tensorType(getStacked().front()).getDimSize(0); }

/// The type one layer sees of a stacked operand: the leading dimension dropped.
static RankedTensorType perLayerType(RankedTensorType stacked) {
  return RankedTensorType::get(stacked.getShape().drop_front(), stacked.getElementType(),
                               stacked.getEncoding());
}

ParseResult LayerStackOp::parse(OpAsmParser &parser, OperationState &result) {
  SmallVector<OpAsmParser::Argument> blockArgs;
  SmallVector<OpAsmParser::UnresolvedOperand> carried, stacked;
  SmallVector<Type> carriedTypes, stackedTypes;

  // `(%arg = %value : type, ...)`; per-layer block args drop the leading dim.
  auto parseBindings = [&](SmallVectorImpl<OpAsmParser::UnresolvedOperand> &operands,
                           SmallVectorImpl<Type> &types, bool isStacked) {
    return parser.parseCommaSeparatedList(OpAsmParser::Delimiter::Paren, [&]() -> ParseResult {
      OpAsmParser::Argument arg;
      OpAsmParser::UnresolvedOperand operand;
      Type type;
      if (parser.parseArgument(arg) || parser.parseEqual() || parser.parseOperand(operand) ||
          parser.parseColonType(type))
        return failure();
      auto ranked = dyn_cast<RankedTensorType>(type);
      if (!ranked || (isStacked && ranked.getRank() < 1))
        return (parser.emitError(
            parser.getCurrentLocation(),
            "mt.layer_stack violates C1: layer operands are ranked tensors with the layer "
            "index as leading dimension"));
      arg.type = isStacked ? Type(perLayerType(ranked)) : type;
      blockArgs.push_back(arg);
      operands.push_back(operand);
      types.push_back(type);
      return success();
    });
  };
  if (parseBindings(carried, carriedTypes, false) || parser.parseKeyword("layers") ||
      parseBindings(stacked, stackedTypes, true) || parser.parseArrowTypeList(result.types))
    return failure();
  if (parser.resolveOperands(carried, carriedTypes, parser.getNameLoc(), result.operands) ||
      parser.resolveOperands(stacked, stackedTypes, parser.getNameLoc(), result.operands))
    return failure();
  result.getOrAddProperties<Properties>().operandSegmentSizes = {
      static_cast<int32_t>(carried.size()), static_cast<int32_t>(stacked.size())};

  Region *body = result.addRegion();
  if (parser.parseRegion(*body, blockArgs))
    return failure();
  LayerStackOp::ensureTerminator(*body, parser.getBuilder(), result.location);
  return parser.parseOptionalAttrDictWithKeyword(result.attributes);
}

void LayerStackOp::print(OpAsmPrinter &p) {
  Block &block = getBody().front();
  unsigned numCarried = getCarried().size();
  auto printBindings = [&](OperandRange operands, unsigned argOffset) {
    p << "(";
    llvm::interleaveComma(llvm::enumerate(operands), p, [&](auto it) {
      p.printRegionArgument(block.getArgument(argOffset + it.index()), {},
                            /*omitType=*/true);
      p << " = " << it.value() << " : " << it.value().getType();
    });
    p << ")";
  };
  p << " ";
  printBindings(getCarried(), 0);
  p << " layers ";
  printBindings(getStacked(), numCarried);
  p << " -> ";
  if (getNumResults() == 1)
    p << getResult(0).getType();
  else
    p << "(" << getResultTypes() << ")";
  p << " ";
  p.printRegion(getBody(), /*printEntryBlockArgs=*/false, /*printBlockTerminators=*/true);
  p.printOptionalAttrDictWithKeyword((*this)->getAttrs(), {"operandSegmentSizes"});
}

LogicalResult LayerStackOp::verify() {
  if (getStacked().empty())
    return violates(*this, 1) << "expected at least one stacked layer operand";
  int64_t layers = tensorType(getStacked().front()).getRank() > 0
                       ? tensorType(getStacked().front()).getDimSize(0)
                       : ShapedType::kDynamic;
  for (Value v : getStacked()) {
    auto t = tensorType(v);
    if (t.getRank() < 1 || t.isDynamicDim(0) || t.getDimSize(0) != layers || layers < 1)
      return violates(*this, 1) << "every stacked operand needs the same static leading "
                                   "layer dimension >= 1, got "
                                << t;
  }
  if (getCarried().getTypes() != getResultTypes())
    return violates(*this, 2) << "result types must equal the carried operand types";
  if (getFirstLayerAttr() && getFirstLayerAttr().getInt() < 0)
    return violates(*this, 5) << "first_layer must be >= 0, got " << getFirstLayerAttr().getInt();
  return success();
}

LogicalResult LayerStackOp::verifyRegions() {
  Block &block = getBody().front();
  SmallVector<Type> expected(getCarried().getTypes());
  for (Value v : getStacked())
    expected.push_back(perLayerType(tensorType(v)));
  if (block.getArgumentTypes() != ArrayRef<Type>(expected))
    return violates(*this, 3) << "the body's arguments must be the carried types followed "
                                 "by the per-layer slices of the stacked operands";
  auto yield = cast<YieldOp>(block.getTerminator());
  if (yield.getValues().getTypes() != getCarried().getTypes())
    return violates(*this, 4) << "mt.yield must return the carried types, got ("
                              << yield.getValues().getTypes() << ")";
  return success();
}
