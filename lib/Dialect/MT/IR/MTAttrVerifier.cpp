//===- MTAttrVerifier.cpp - the discardable mt.* attributes, verified -----===//
//
// Passes hand information to later passes and to the plan builder through
// `mt.*` attributes on ops, function arguments and results. A misspelt name
// or a value of the wrong kind would otherwise be ignored silently (the
// reader finds nothing and falls back), so the dialect checks every one
// where it appears: its name is known, it sits where it may, and its value
// has the kind its readers expect (docs/spec.md, "Discardable attributes").
// What a value means (a batch name the model declares, a layer in range) is
// checked by the passes that read it.
//
//===----------------------------------------------------------------------===//
#include "mt/Dialect/MT/IR/MTAttrNames.h"
#include "mt/Dialect/MT/IR/MTDialect.h"
#include "mt/Dialect/MT/IR/MTOps.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Diagnostics.h"

using namespace mlir;

namespace mt {
namespace {

enum Place : unsigned { OnOp = 1, OnArgument = 2, OnResult = 4 };

struct AttrRule {
  llvm::StringLiteral name;
  unsigned places;
  const char *kind;
  bool (*valid)(Attribute);
};

template <typename AttrT> bool is(Attribute a) { return isa<AttrT>(a); }
bool isI64(Attribute a) {
  auto i = dyn_cast<IntegerAttr>(a);
  return i && i.getType().isSignlessInteger(64);
}
bool isStringArray(Attribute a) {
  auto array = dyn_cast<ArrayAttr>(a);
  return array && llvm::all_of(array, [](Attribute e) { return isa<StringAttr>(e); });
}

constexpr const char *kUnit = "a unit attribute";
constexpr const char *kI64 = "an i64 integer";
constexpr const char *kString = "a string";
constexpr const char *kSymbol = "a symbol reference (@name)";
constexpr const char *kDictionary = "a dictionary";

const AttrRule kRules[] = {
    {kParamAttrName, OnArgument, "#mt.param<...> (or the name, on an exported entry point)",
     [](Attribute a) { return isa<ParamAttr, StringAttr>(a); }},
    {kBatchAttrName, OnArgument, kString, is<StringAttr>},
    {kSequenceAttrName, OnArgument, kString, is<StringAttr>},
    {kMetricAttrName, OnResult, kString, is<StringAttr>},
    {kModelAttrName, OnOp, kSymbol, is<FlatSymbolRefAttr>},
    {kGradientOfAttrName, OnOp, kSymbol, is<FlatSymbolRefAttr>},
    {kGradOfAttrName, OnResult, kString, is<StringAttr>},
    {kPartialOverAttrName, OnResult, "an array of mesh axis names", isStringArray},
    {kAccumulatorOfAttrName, OnArgument, kString, is<StringAttr>},
    {kInPlaceOfAttrName, OnResult, kI64, isI64},
    {kKvCacheAttrName, OnArgument | OnResult, kString, is<StringAttr>},
    {kIndependentIterationsAttrName, OnOp, kUnit, is<UnitAttr>},
    {kParallelTasksAttrName, OnOp, kUnit, is<UnitAttr>},
    {kWarpTasksAttrName, OnOp, kI64, isI64},
    {kAlongRowAttrName, OnOp, kUnit, is<UnitAttr>},
    {kLayerAttrName, OnOp, kI64, isI64},
    {kBackwardAttrName, OnOp, kUnit, is<UnitAttr>},
    {kRecomputedAttrName, OnOp, kUnit, is<UnitAttr>},
    {kRecomputePlanAttrName, OnOp, kDictionary, is<DictionaryAttr>},
    {kArenaBytesAttrName, OnOp, kI64, isI64},
    {kRoleAttrName, OnOp, "#mt<role ...>", is<FunctionRoleAttr>},
    {kBufferAttrName, OnArgument | OnResult, "#mt.buffer<...>", is<BufferAttr>},
    {kStageInputAttrName, OnArgument, kUnit, is<UnitAttr>},
    {kCotangentAttrName, OnArgument, kUnit, is<UnitAttr>},
    {kStageInputGradAttrName, OnResult, kUnit, is<UnitAttr>},
    {kStageOutputAttrName, OnResult, kUnit, is<UnitAttr>},
    {kSavedAttrName, OnArgument | OnResult, kI64, isI64},
    {kSavedFromAttrName, OnArgument, kString, is<StringAttr>},
    {kStageAttrName, OnOp, kI64, isI64},
    {kNumStagesAttrName, OnOp, kI64, isI64},
    {kPipelineOfAttrName, OnOp, kString, is<StringAttr>},
    {kLayerOffsetAttrName, OnArgument, kUnit, is<UnitAttr>},
    {kLayersInlineAttrName, OnOp, kUnit, is<UnitAttr>},
    {kSharedCodeAttrName, OnOp, kDictionary, is<DictionaryAttr>},
    {kFirstLayerAttrName, OnArgument, kI64, isI64},
    {kShardingAttrName, OnArgument, "#mt.sharding<...>", is<ShardingAttr>},
    {kSegmentsAttrName, OnArgument, kI64, isI64},
    {kUnpaddedRowsAttrName, OnArgument, kI64, isI64},
    {kKernelsAttrName, OnOp, kDictionary, is<DictionaryAttr>},
    {kCollectiveAttrName, OnOp, kI64, isI64},
};

const char *placeName(Place place) {
  return place == OnOp ? "an operation" : place == OnArgument ? "an argument" : "a result";
}

/// Checks `attribute` found at `place`; `where` emits the diagnostic.
LogicalResult verifyAt(Place place, NamedAttribute attribute,
                       llvm::function_ref<InFlightDiagnostic()> where) {
  StringRef name = attribute.getName().getValue();
  const AttrRule *rule = llvm::find_if(kRules, [&](const AttrRule &r) { return r.name == name; });
  if (rule == std::end(kRules))
    return where() << "violates D1: unknown attribute '" << name
                   << "': the mt dialect defines its `mt.*` attributes in MTAttrNames.h";
  // Bufferized functions return results through out-arguments, which keep
  // the results' attributes.
  unsigned places = rule->places & OnResult ? rule->places | OnArgument : rule->places;
  if (!(places & place))
    return where() << "violates D2: '" << name << "' does not belong on " << placeName(place);
  if (!rule->valid(attribute.getValue()))
    return where() << "violates D3: '" << name << "' must be " << rule->kind << ", got "
                   << attribute.getValue();
  return success();
}

} // namespace

LogicalResult MTDialect::verifyOperationAttribute(Operation *op, NamedAttribute attribute) {
  return verifyAt(OnOp, attribute, [&] { return op->emitOpError(); });
}

LogicalResult MTDialect::verifyRegionArgAttribute(Operation *op, unsigned region, unsigned argument,
                                                  NamedAttribute attribute) {
  return verifyAt(OnArgument, attribute,
                  [&] { return op->emitOpError() << "argument " << argument << ": "; });
}

LogicalResult MTDialect::verifyRegionResultAttribute(Operation *op, unsigned region,
                                                     unsigned result, NamedAttribute attribute) {
  return verifyAt(OnResult, attribute,
                  [&] { return op->emitOpError() << "result " << result << ": "; });
}

} // namespace mt
