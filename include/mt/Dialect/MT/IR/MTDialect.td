//===- MTDialect.td - the mt dialect and its base op class ---------------===//
#ifndef MT_DIALECT_TD
#define MT_DIALECT_TD

include "mlir/IR/OpBase.td"

def MT_Dialect : Dialect {
  let name = "mt";
  let cppNamespace = "::mt";
  let summary = "Transformer training graphs and their distribution";
  let description = [{
    The `mt` dialect describes a transformer model as a logical, unsharded
    tensor graph: parameters and a batch go in, a scalar loss comes out.
    Distribution is expressed separately: a `mt.mesh` names the device axes
    (tp, sp, pp, dp), `#mt.sharding` attributes say how tensors are laid out
    over them, and every change of layout is an explicit collective op
    (`mt.all_reduce`, `mt.all_gather`, `mt.reduce_scatter`, `mt.send`,
    `mt.recv`) that passes can see, move and remove.

    Constraints of every op are numbered (C1, C2, ...) in docs/spec.md; the
    verifier's messages cite them.
  }];
  let useDefaultAttributePrinterParser = 1;
  let usePropertiesForAttributes = 1;
  // The discardable `mt.*` attributes (MTAttrNames.h, MTAttrVerifier.cpp).
  let hasOperationAttrVerify = 1;
  let hasRegionArgAttrVerify = 1;
  let hasRegionResultAttrVerify = 1;
  let extraClassDeclaration = [{
    void registerAttributes();
  }];
}

class MT_Op<string mnemonic, list<Trait> traits = []>
    : Op<MT_Dialect, mnemonic, traits>;

#endif // MT_DIALECT_TD
