//===- EggDialect.td - EGG dialect definition --------------*- tablegen -*-===//
//
// The egg dialect makes the compiler's kernel-building decisions first-class
// IR: fusion groups (egg.kernel), the stage-1 algorithm structure, the stage-2
// hardware tuning and the hardware profile they are checked against.
//
//===----------------------------------------------------------------------===//

#ifndef EGG_DIALECT_TD
#define EGG_DIALECT_TD

include "mlir/IR/OpBase.td"

def Egg_Dialect : Dialect {
  let name = "egg";
  let cppNamespace = "::mlir::egg";
  let summary = "Expert-guided GPU kernel decisions as IR";
  let description = [{
    The `egg` dialect groups the linalg-on-tensors ops that become one GPU
    kernel into an `egg.kernel` op and records, as verified attributes, the
    decisions taken for it: the algorithm structure chosen in stage 1
    (`#egg.structure`), the mapping / tiling / memory decisions of stage 2
    (`#egg.tuning`) and the hardware profile they are checked against
    (`#egg.target`, attached to the module as `egg.target`).
  }];
  let useDefaultAttributePrinterParser = 1;
  let hasOperationAttrVerify = 1;
  let extraClassDeclaration = [{
    void registerAttributes();

    /// Name of the module attribute that carries the hardware profile.
    static constexpr ::llvm::StringLiteral getTargetAttrName() {
      return "egg.target";
    }
    /// Names under which an outlined kernel function keeps its decisions.
    static constexpr ::llvm::StringLiteral getStructureAttrName() {
      return "egg.structure";
    }
    static constexpr ::llvm::StringLiteral getTuningAttrName() {
      return "egg.tuning";
    }
    /// Name of the kernel attribute where an agent keeps why it decided:
    /// a dictionary from stage ("structure", "tuning") to a string.
    static constexpr ::llvm::StringLiteral getRationaleAttrName() {
      return "egg.rationale";
    }
    /// Name of the kernel attribute where an agent other than the expert
    /// records who took each decision: a dictionary from stage to a
    /// dictionary (`agent`, and for an LLM `model`, `prompt` (the template's
    /// version) or `fallback_from` when the expert decided instead).
    static constexpr ::llvm::StringLiteral getDecidedByAttrName() {
      return "egg.decided_by";
    }
    /// Name of the module's unit attribute by which the user allows f32
    /// products to read their inputs as TF32 on tensor cores.
    static constexpr ::llvm::StringLiteral getAllowTf32AttrName() {
      return "egg.allow_tf32";
    }
    /// Name of the module's unit attribute by which the user keeps products
    /// whole along K and column reductions along their rows (no split
    /// structure, whose workspace costs memory).
    static constexpr ::llvm::StringLiteral getNoSplitKAttrName() {
      return "egg.no_split_k";
    }
    /// Name of the unit attribute of a gpu.launch_func whose kernel begins
    /// with griddepcontrol.wait (egg-overlap-launches): it may be launched
    /// while the kernel before it runs.
    static constexpr ::llvm::StringLiteral getWaitsForPreviousAttrName() {
      return "egg.waits_for_previous";
    }
    /// Name of the string attribute of a gpu.launch_func that launches
    /// another kernel's identical code (egg-merge-identical-kernels): the
    /// name of the kernel it was outlined as, for reports.
    static constexpr ::llvm::StringLiteral getLaunchNameAttrName() {
      return "egg.launch_name";
    }
    /// Name of the unit attribute of a kernel (an egg.kernel, then the
    /// function it is outlined into) that should launch while the kernel
    /// before it runs: a split product's sum (egg-split-k).
    static constexpr ::llvm::StringLiteral getOverlapPreviousAttrName() {
      return "egg.overlap_previous";
    }
    /// Name of the i32 attribute of an op inside a gpu.launch (then the
    /// outlined kernel) whose lowering sized the kernel for that many
    /// blocks per SM (egg-distribute-rows with row_shared);
    /// egg-min-blocks-per-sm moves it to the kernel's `nvvm.minctasm`.
    static constexpr ::llvm::StringLiteral getMinBlocksPerSMAttrName() {
      return "egg.min_blocks_per_sm";
    }
  }];
}

class Egg_Op<string mnemonic, list<Trait> traits = []> :
    Op<Egg_Dialect, mnemonic, traits>;

#endif // EGG_DIALECT_TD
