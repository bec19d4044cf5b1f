//===- finalizer/LockstepGroups.cpp - Groups run as one vector ------------===//

#include "finalizer/LockstepGroups.h"

#include "finalizer/Codegen.h"
#include "finalizer/FixedGroupShape.h"
#include "finalizer/WorkItemVectorizer.h"

#include "llvm/ADT/ScopeExit.h"
#include "llvm/Analysis/LoopInfo.h"
#include "llvm/Analysis/ScalarEvolution.h"
#include "llvm/Transforms/InstCombine/InstCombine.h"
#include "llvm/Transforms/Scalar/EarlyCSE.h"
#include "llvm/Transforms/Scalar/SROA.h"
#include "llvm/Transforms/Scalar/SimplifyCFG.h"
#include "llvm/Transforms/Utils/Cloning.h"

#include <cstdlib>
#include <cstring>

namespace openhsa::finalizer {

bool lockstepGroupsEnabled() {
  const char *Setting = std::getenv("OPENHSA_LOCKSTEP_GROUPS");
  return !Setting || std::strcmp(Setting, "0") != 0;
}

bool shapeVariantCandidate(const LoweredKernel &K, unsigned Width) {
  // Only kernels that wait at barriers gain; fbarriers need work-items
  // that wait apart.
  return Width == 0 && vectorizationEnabled() && lockstepGroupsEnabled() &&
         K.UsesBarrier && !K.Scheduled;
}

unsigned lockstepGroupWidth(const LoweredKernel &K, unsigned Width) {
  // The HSAIL wavefront must keep the agent's width.
  if (!shapeVariantCandidate(K, Width) || usesWavefronts(*K.Body) ||
      kernelVectorWidth(*K.Body) < 2)
    return 0;
  const FixedGroupShape Shape = fixedGroupShape(K.Symbol);
  if (!Shape.fixed() || !Shape.wholeGroups() || Shape.Size[1] != 1 ||
      Shape.Size[2] != 1)
    return 0;
  // Whole vectors of the width the kernel would have had: the lanes'
  // private blocks and its arithmetic stay as they were.
  const unsigned G = Shape.Size[0], Natural = kernelVectorWidth(*K.Body);
  if (Natural < 2 || G < Natural || G % Natural != 0 ||
      G > LockstepVectorsMax * Natural)
    return 0;
  return G;
}

std::string whyLockstepLoopsStay(const LoweredKernel &K, unsigned Vectors) {
  llvm::ValueToValueMapTy Map;
  llvm::Function *Copy = llvm::CloneFunction(K.Body, Map);
  auto Drop = llvm::make_scope_exit([&] { Copy->eraseFromParent(); });
  foldFixedGroupQueries(*Copy, fixedGroupShape(K.Symbol));
  StandaloneAnalyses Analyses;
  llvm::FunctionAnalysisManager &FAM = Analyses.functions();
  llvm::FunctionPassManager FPM;
  FPM.addPass(llvm::SROAPass(llvm::SROAOptions::ModifyCFG));
  FPM.addPass(llvm::EarlyCSEPass());
  FPM.addPass(llvm::InstCombinePass());
  FPM.addPass(llvm::SimplifyCFGPass());
  FPM.run(*Copy, FAM);
  auto &LI = FAM.getResult<llvm::LoopAnalysis>(*Copy);
  auto &SE = FAM.getResult<llvm::ScalarEvolutionAnalysis>(*Copy);
  for (llvm::Loop *L : LI.getLoopsInPreorder()) {
    size_t Size = 0;
    bool Waits = false;
    for (const llvm::BasicBlock *BB : L->blocks()) {
      Size += BB->size();
      for (const llvm::Instruction &I : *BB)
        if (const auto *CI = llvm::dyn_cast<llvm::CallInst>(&I))
          if (const llvm::Function *Callee = CI->getCalledFunction())
            Waits |= Callee->getName() == query::Barrier;
    }
    if (!Waits)
      continue;
    const unsigned Trips = SE.getSmallConstantTripCount(L);
    if (Trips == 0)
      return "a loop with barriers has no constant trip count";
    if (Trips > LockstepTripsMax ||
        uint64_t(Trips) * Size * Vectors > LockstepUnrolledMax)
      return "a loop with barriers is too long to unroll (" +
             std::to_string(Trips) + " iterations of " + std::to_string(Size) +
             " instructions)";
  }
  return {};
}

} // namespace openhsa::finalizer
