//===- finalizer/Codegen.h - LLVM IR to a host object file ------*- C++ -*-===//
#ifndef OPENHSA_FINALIZER_CODEGEN_H
#define OPENHSA_FINALIZER_CODEGEN_H

#include "llvm/Analysis/CGSCCPassManager.h"
#include "llvm/Analysis/LoopAnalysisManager.h"
#include "llvm/IR/Module.h"
#include "llvm/IR/OptBisect.h"
#include "llvm/IR/PassManager.h"
#include "llvm/Support/Error.h"

#include <string>
#include <vector>

namespace openhsa::finalizer {

/// The CPU the CPU agent's code is for (abi/CpuTarget.h: the host's, or
/// OPENHSA_CPU_TARGET's) as LLVM names it, and its features
/// ("+avx2,-avx512f,..."). Problem: why OPENHSA_CPU_TARGET's cannot be had
/// (every host compilation then fails with it); empty where it can.
struct HostTarget {
  std::string Triple;
  std::string Cpu;
  std::string Features;
  std::string Problem;
};
const HostTarget &hostTarget();
/// Whether the target CPU has feature Name (LLVM's spelling: "avx512f").
bool hostHasFeature(llvm::StringRef Name);
/// The data layout of code for the host (computed once).
const llvm::DataLayout &hostDataLayout();

/// Optimizes M (O3) for the host CPU and emits a relocatable object.
/// OPENHSA_DUMP_IR / OPENHSA_DUMP_ASM (set to a directory or "-") dump the
/// IR as lowered (<module>.lowered.ll) and optimized (<module>.ll), and the
/// assembly.
llvm::Expected<std::vector<uint8_t>> compileToObject(llvm::Module &M);

/// What compileToObject's code generation runs (set as the module's
/// context's gate before it): every pass but Loop Strength Reduction, whose
/// cost (a quarter to a half of code generation in kernels with loops)
/// buys nothing measurable in wave loops. Not for a module with a function
/// marked KeepsLoopStrengthReductionAttr (a lockstep group's work-group
/// function): there LSR's pointer increments keep the unrolled loops'
/// multiply-adds on plain base addresses.
llvm::OptPassGate &hostCodegenPassGate();
inline constexpr const char *KeepsLoopStrengthReductionAttr = "openhsa-lsr";

/// LLVM's analyses, registered and cross-wired, for passes run on one
/// function at a time outside the optimization pipeline (no target
/// machine): the clean-ups a transformation of ours asks of a function.
class StandaloneAnalyses {
public:
  StandaloneAnalyses();
  llvm::FunctionAnalysisManager &functions() { return FAM; }

private:
  llvm::LoopAnalysisManager LAM;
  llvm::FunctionAnalysisManager FAM;
  llvm::CGSCCAnalysisManager CGAM;
  llvm::ModuleAnalysisManager MAM;
};

/// Writes Text to $Var/<module>.<Ext> when the environment variable Var
/// names a directory, or to stderr when it is "-" (OPENHSA_DUMP_IR...).
void dump(const char *Var, const llvm::Module &M, llvm::StringRef Ext,
          llvm::StringRef Text);
/// dump() of M's IR under OPENHSA_DUMP_IR (printed only when it is set).
void dumpModule(const llvm::Module &M, llvm::StringRef Ext);

} // namespace openhsa::finalizer

#endif
