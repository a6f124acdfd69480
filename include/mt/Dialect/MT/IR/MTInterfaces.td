//===- MTInterfaces.td - op interfaces of the mt dialect ------------------===//
#ifndef MT_INTERFACES_TD
#define MT_INTERFACES_TD

include "mlir/IR/OpBase.td"

def MT_CollectiveOpInterface : OpInterface<"CollectiveOpInterface"> {
  let cppNamespace = "::mt";
  let description = [{
    An op that communicates between ranks of a device mesh. The plan checker
    uses it to match every rank's sequence of collectives (order, group,
    sizes, element types) before a plan is emitted.
  }];
  let methods = [
    InterfaceMethod<"The mesh the op communicates over.",
      "::mlir::FlatSymbolRefAttr", "getMeshRef", (ins),
      [{ return $_op.getMeshAttr(); }]>,
    InterfaceMethod<"The mesh axes whose ranks take part, outermost first.",
      "::llvm::SmallVector<::llvm::StringRef>", "getGroupAxes">,
  ];
}

#endif // MT_INTERFACES_TD
