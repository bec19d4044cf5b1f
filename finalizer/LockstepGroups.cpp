//===- finalizer/LockstepGroups.cpp - Groups run as one vector ------------===//

#include "finalizer/LockstepGroups.h"

#include "finalizer/Codegen.h"
#include "finalizer/FixedGroupShape.h"
#include "finalizer/WorkItemVectorizer.h"

#include "llvm/ADT/ScopeExit.h"
#include "llvm/Analysis/LoopInfo.h"
#include "llvm/Analysis/ScalarEvolution.h"
#include "llvm/Analysis/ScalarEvolutionExpressions.h"
#include "llvm/Analysis/ValueTracking.h"
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
  if (!Shape.fixed() || !Shape.wholeGroups() || Shape.Size[2] != 1)
    return 0;
  // Rows of whole vectors of the width the kernel would have had: the
  // lanes' private blocks and its arithmetic stay as they were, and an
  // access consecutive along a row is a vector access per row.
  const unsigned X = Shape.Size[0], Natural = kernelVectorWidth(*K.Body);
  const uint64_t G = uint64_t(X) * Shape.Size[1];
  // Natural is the host's width, or half of it for a kernel of doubles.
  if (Natural < 2 || X < Natural || X % Natural != 0 ||
      G > uint64_t(LockstepLanesMax) * Natural / hostVectorWidth())
    return 0;
  return unsigned(G);
}

namespace {

/// Whether every group segment access in loop L is at an address L's
/// iterations do not change: lanes then exchange values at the same
/// offsets in every iteration, with plain vector accesses, and L need not
/// unroll (the tiled matrix product's loop over k-steps, whose trip count
/// is a kernel argument, copies the tiles to the same places each time).
bool groupAccessesStayPut(const llvm::Loop &L, llvm::ScalarEvolution &SE) {
  // Computed in L, and not a query (the same for the whole group, as the
  // vectorizer takes them) asked there of values from outside L: whatever
  // it is, it may change.
  auto Varies = [&](const llvm::Instruction *I) {
    const auto *CI = llvm::dyn_cast<llvm::CallInst>(I);
    const llvm::Function *Callee = CI ? CI->getCalledFunction() : nullptr;
    return L.contains(I) &&
           !(Callee && Callee->getName().starts_with("openhsa.") &&
             Callee->getName() != query::Barrier &&
             L.hasLoopInvariantOperands(CI));
  };
  auto ChangesWithL = [&](const llvm::SCEV *S) {
    if (const auto *AR = llvm::dyn_cast<llvm::SCEVAddRecExpr>(S))
      return AR->getLoop() == &L;
    if (const auto *U = llvm::dyn_cast<llvm::SCEVUnknown>(S))
      if (const auto *I = llvm::dyn_cast<llvm::Instruction>(U->getValue()))
        return Varies(I);
    return false;
  };
  for (const llvm::BasicBlock *BB : L.blocks())
    for (const llvm::Instruction &I : *BB) {
      const llvm::Value *Ptr = llvm::getLoadStorePointerOperand(&I);
      if (!Ptr)
        continue;
      const auto *Base = llvm::dyn_cast<llvm::CallInst>(
          llvm::getUnderlyingObject(Ptr, /*MaxLookup=*/0));
      const llvm::Function *Callee = Base ? Base->getCalledFunction() : nullptr;
      if (!Callee || Callee->getName() != query::GroupBase)
        continue;
      if (Varies(Base) ||
          llvm::SCEVExprContains(SE.getSCEV(const_cast<llvm::Value *>(Ptr)),
                                 ChangesWithL))
        return false;
    }
  return true;
}

} // namespace

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
    if (!Waits || groupAccessesStayPut(*L, SE))
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
