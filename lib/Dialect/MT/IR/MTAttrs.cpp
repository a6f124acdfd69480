//===- MTAttrs.cpp - attributes and enums of the mt dialect ----------------===//
#include "mt/Dialect/MT/IR/MTAttrs.h"
#include "mt/Dialect/MT/IR/MTDialect.h"

#include "mlir/IR/Builders.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mt;

#include "mt/Dialect/MT/IR/MTEnums.cpp.inc"

#define GET_ATTRDEF_CLASSES
#include "mt/Dialect/MT/IR/MTAttrs.cpp.inc"

void MTDialect::registerAttributes() {
  addAttributes<
#define GET_ATTRDEF_LIST
#include "mt/Dialect/MT/IR/MTAttrs.cpp.inc"
      >();
}

//===----------------------------------------------------------------------===//
// ParamAttr
//===----------------------------------------------------------------------===//

LogicalResult BufferAttr::verify(function_ref<InFlightDiagnostic()> emitError, BufferRole role,
                                 StringAttr param) {
  bool named = param && !param.getValue().empty();
  if (role == BufferRole::hyper && param)
    return emitError() << "#mt.buffer violates C1: hyper belongs to no parameter";
  if (role != BufferRole::hyper && !named)
    return emitError() << "#mt.buffer violates C2: the " << stringifyBufferRole(role)
                       << " buffer names its parameter";
  return success();
}

LogicalResult ParamAttr::verify(function_ref<InFlightDiagnostic()> emitError, StringAttr name,
                                InitKind init, APFloat std) {
  double s = std.convertToDouble();
  if (!name || name.getValue().empty())
    return emitError() << "#mt.param violates C1: the parameter name is empty";
  if (!(s >= 0.0) || (init == InitKind::normal && !(s > 0.0)))
    return emitError() << "#mt.param violates C2: std must be positive for a "
                          "normal initializer and never negative, got "
                       << s;
  return success();
}

//===----------------------------------------------------------------------===//
// ShardingAttr: #mt.sharding<@mesh, [_, sp, {dp, tp}], partial = [tp]>
//===----------------------------------------------------------------------===//

SmallVector<StringRef> ShardingAttr::getDimAxes(unsigned dim) const {
  SmallVector<StringRef> axes;
  for (Attribute a : getDims()[dim])
    axes.push_back(cast<StringAttr>(a).getValue());
  return axes;
}

SmallVector<StringRef> ShardingAttr::getAllAxes() const {
  SmallVector<StringRef> axes;
  for (unsigned d = 0; d < getDims().size(); ++d)
    llvm::append_range(axes, getDimAxes(d));
  for (StringAttr a : getPartial())
    axes.push_back(a.getValue());
  return axes;
}

LogicalResult ShardingAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                                   FlatSymbolRefAttr mesh, ArrayRef<ArrayAttr> dims,
                                   ArrayRef<StringAttr> partial) {
  llvm::StringSet<> seen;
  auto check = [&](Attribute a) -> LogicalResult {
    auto s = dyn_cast<StringAttr>(a);
    if (!s || s.getValue().empty())
      return emitError() << "#mt.sharding violates C2: mesh axes are non-empty names";
    if (!seen.insert(s.getValue()).second)
      return emitError() << "#mt.sharding violates C1: mesh axis '" << s.getValue()
                         << "' is used more than once";
    return success();
  };
  for (ArrayAttr dim : dims)
    for (Attribute a : dim)
      if (failed(check(a)))
        return failure();
  for (StringAttr a : partial)
    if (failed(check(a)))
      return failure();
  return success();
}

static ParseResult parseAxisName(AsmParser &parser, SmallVectorImpl<Attribute> &out) {
  std::string name;
  if (parser.parseKeywordOrString(&name))
    return failure();
  out.push_back(parser.getBuilder().getStringAttr(name));
  return success();
}

Attribute ShardingAttr::parse(AsmParser &parser, Type) {
  MLIRContext *ctx = parser.getContext();
  FlatSymbolRefAttr mesh;
  SmallVector<ArrayAttr> dims;
  SmallVector<StringAttr> partial;
  if (parser.parseLess() || parser.parseAttribute(mesh) || parser.parseComma())
    return {};
  auto parseDim = [&]() -> ParseResult {
    SmallVector<Attribute> axes;
    if (succeeded(parser.parseOptionalKeyword("_"))) {
      // replicated
    } else if (succeeded(parser.parseOptionalLBrace())) {
      if (parser.parseCommaSeparatedList([&] { return parseAxisName(parser, axes); }) ||
          parser.parseRBrace())
        return failure();
    } else if (parseAxisName(parser, axes)) {
      return failure();
    }
    dims.push_back(ArrayAttr::get(ctx, axes));
    return success();
  };
  if (parser.parseCommaSeparatedList(AsmParser::Delimiter::Square, parseDim))
    return {};
  if (succeeded(parser.parseOptionalComma())) {
    if (parser.parseKeyword("partial") || parser.parseEqual())
      return {};
    auto parsePartial = [&]() -> ParseResult {
      SmallVector<Attribute> one;
      if (parseAxisName(parser, one))
        return failure();
      partial.push_back(cast<StringAttr>(one.front()));
      return success();
    };
    if (parser.parseCommaSeparatedList(AsmParser::Delimiter::Square, parsePartial))
      return {};
  }
  if (parser.parseGreater())
    return {};
  return getChecked([&] { return parser.emitError(parser.getNameLoc()); }, ctx, mesh, dims,
                    partial);
}

void ShardingAttr::print(AsmPrinter &printer) const {
  printer << "<" << getMesh() << ", [";
  llvm::interleaveComma(getDims(), printer, [&](ArrayAttr dim) {
    if (dim.empty()) {
      printer << "_";
    } else if (dim.size() == 1) {
      printer.printKeywordOrString(cast<StringAttr>(dim[0]).getValue());
    } else {
      printer << "{";
      llvm::interleaveComma(dim, printer, [&](Attribute a) {
        printer.printKeywordOrString(cast<StringAttr>(a).getValue());
      });
      printer << "}";
    }
  });
  printer << "]";
  if (!getPartial().empty()) {
    printer << ", partial = [";
    llvm::interleaveComma(getPartial(), printer,
                          [&](StringAttr a) { printer.printKeywordOrString(a.getValue()); });
    printer << "]";
  }
  printer << ">";
}
