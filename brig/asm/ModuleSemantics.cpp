//===- brig/asm/ModuleSemantics.cpp - Semantic rules on BRIG --------------===//
//
// Part of openhsa. The rules run in the order the parser runs them on text
// (each variable and instruction where it stands, an arg block after its
// body, register limits after a code block, declarations against
// definitions last), so the first error is the one the text would give.
//
//===----------------------------------------------------------------------===//

#include "brig/asm/ModuleSemantics.h"

#include "brig/Validator.h"
#include "brig/asm/BrigToAst.h"
#include "brig/asm/Mnemonics.h"
#include "brig/asm/Semantics.h"

#include "llvm/ADT/Twine.h"

#include <string_view>
#include <unordered_map>
#include <variant>

namespace openhsa::brig::assembler {

namespace {

class Checker {
public:
  Checker(const BrigModule &M, const BrigAst &A) : M(M), A(A) {}
  llvm::Error run();

private:
  llvm::Error checkBody(const std::vector<Stmt> &Body, bool InArgBlock);
  /// Turns an AsmError raised on the decoded tree into a diagnostic naming
  /// the hsa_code entry (and operand) it is about.
  llvm::Error report(llvm::Error E) const;

  const BrigModule &M;
  const BrigAst &A;
  /// The last module-scope executable of each name (what checkArgBlock's
  /// search of the module finds), indexed once for the whole module.
  std::unordered_map<std::string_view, const Executable *> Callees;
};

llvm::Error Checker::report(llvm::Error E) const {
  return llvm::handleErrors(
      std::move(E), [&](const AsmError &Err) -> llvm::Error {
        const BrigOrigin *O = A.origin(Err.loc());
        std::string Where = O ? describeOrigin(M, *O) : "module";
        uint64_t Off = O ? O->CodeOffset : M.code().HeaderByteCount;
        return makeBrigError(M.name(), sectionName(M, BRIG_SECTION_INDEX_CODE),
                             Off, Where + ": " + Err.text());
      });
}

llvm::Error Checker::checkBody(const std::vector<Stmt> &Body, bool InArgBlock) {
  for (const Stmt &St : Body) {
    if (const auto *I = std::get_if<Instruction>(&St.V)) {
      const OpcodeInfo *Info = opcodeInfo(I->Opcode);
      // The validator admits the opcodes of brig/InstTable.h, all of which
      // Mnemonics.h has; this only guards against the two drifting apart.
      if (!Info)
        return report(llvm::make_error<AsmError>(
            I->Loc,
            "opcode " + std::to_string(I->Opcode) + " has no semantic rules"));
      if (llvm::Error E = checkInstruction(*Info, *I, A.Traits))
        return report(std::move(E));
    } else if (const auto *V = std::get_if<Variable>(&St.V)) {
      if (llvm::Error E = checkVariable(
              *V, InArgBlock ? VarScope::ArgBlock : VarScope::Local, A.Traits))
        return report(std::move(E));
    } else if (const auto *B = std::get_if<ArgBlock>(&St.V)) {
      if (llvm::Error E = checkBody(B->Body, /*InArgBlock=*/true))
        return E;
      auto Callee = [&](const std::string &Name) -> const Executable * {
        auto It = Callees.find(Name);
        return It == Callees.end() ? nullptr : It->second;
      };
      if (llvm::Error E = checkArgBlock(*B, Callee))
        return report(std::move(E));
    }
  }
  return llvm::Error::success();
}

llvm::Error Checker::run() {
  for (const Stmt &St : A.P.Stmts)
    if (const auto *X = std::get_if<Executable>(&St.V))
      Callees[X->Name] = X;
  for (const Stmt &St : A.P.Stmts) {
    if (const auto *V = std::get_if<Variable>(&St.V)) {
      if (llvm::Error E = checkVariable(*V, VarScope::Module, A.Traits))
        return report(std::move(E));
    } else if (const auto *X = std::get_if<Executable>(&St.V)) {
      VarScope Args = X->Kind == BRIG_KIND_DIRECTIVE_KERNEL
                          ? VarScope::KernelArg
                          : VarScope::FunctionArg;
      for (const std::vector<Variable> *List : {&X->OutArgs, &X->InArgs})
        for (const Variable &V : *List)
          if (llvm::Error E = checkVariable(V, Args, A.Traits))
            return report(std::move(E));
      if (!X->HasBody)
        continue;
      if (llvm::Error E = checkBody(X->Body, /*InArgBlock=*/false))
        return E;
      if (llvm::Error E = checkRegisterLimits(*X))
        return report(std::move(E));
    }
  }
  return report(checkModuleLinkageDefinitions(A.P.Stmts));
}

} // namespace

llvm::Error checkModuleSemantics(const BrigModule &M) {
  llvm::Expected<BrigAst> A = brigToAst(M);
  if (!A)
    return A.takeError();
  return Checker(M, *A).run();
}

llvm::Expected<BrigModule> loadCheckedModule(llvm::ArrayRef<uint8_t> Bytes,
                                             llvm::StringRef Name) {
  llvm::Expected<BrigModule> M = loadValidatedModule(Bytes, Name);
  if (!M)
    return M.takeError();
  if (llvm::Error E = checkModuleSemantics(*M))
    return E;
  return M;
}

} // namespace openhsa::brig::assembler
