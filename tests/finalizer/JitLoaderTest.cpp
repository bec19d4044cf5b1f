//===- tests/finalizer/JitLoaderTest.cpp - Code objects in the JIT --------===//
//
// finalizer/JitLoader: every code object links into a JITDylib of its own in
// one ORC session the process shares. Objects are apart from each other
// (the same code object loaded twice is two copies), unloading one leaves
// the others working, loads run on several threads at once (TSan runs this
// file too), and an object reaches only the runtime's closed set of
// symbols, a missing one named in the error.
//
//===----------------------------------------------------------------------===//
#include "KernelRunner.h"

#include "finalizer/Codegen.h"

#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"

#include <thread>

using namespace openhsa::test;
using openhsa::finalizer::CodeObject;
using openhsa::finalizer::LoadedObject;

namespace {

const char *Source = R"(
module &m:1:0:$full:$large:$default;
kernel &k(kernarg_u64 %out)
{
	workitemabsid_u32	$s0, 0;
	cvt_u64_u32	$d0, $s0;
	shl_u64	$d0, $d0, 2;
	ld_kernarg_align(8)_width(all)_u64	$d1, [%out];
	add_u64	$d1, $d1, $d0;
	mul_u32	$s1, $s0, 3;
	st_global_u32	$s1, [$d1];
	ret;
};
)";

class JitLoaderTest : public ::testing::Test {
protected:
  void SetUp() override {
    if (runsOnGpu())
      GTEST_SKIP() << "the host's JIT loader";
    auto P = finalizeText(Source);
    ASSERT_TRUE(bool(P)) << llvm::toString(P.takeError());
    Code = std::move(P->Code);
    ASSERT_EQ(Code.Kernels.size(), 1u);
  }

  /// The kernel's entry in a fresh load of Code (null when it failed).
  void *entry(const std::unique_ptr<LoadedObject> &L) {
    auto A = L->address(Code.Kernels[0].EntrySymbol);
    if (!A) {
      ADD_FAILURE() << llvm::toString(A.takeError());
      return nullptr;
    }
    return *A;
  }

  CodeObject Code;
};

// The same object loaded twice: two copies at two addresses, and the second
// still resolves (and its memory stays mapped) once the first is gone.
TEST_F(JitLoaderTest, EachLoadIsACopyOfItsOwn) {
  auto First = LoadedObject::load(Code, {});
  ASSERT_TRUE(bool(First)) << llvm::toString(First.takeError());
  auto Second = LoadedObject::load(Code, {});
  ASSERT_TRUE(bool(Second)) << llvm::toString(Second.takeError());
  void *A = entry(*First), *B = entry(*Second);
  ASSERT_NE(A, nullptr);
  ASSERT_NE(B, nullptr);
  EXPECT_NE(A, B);
  // The second copy's code stays mapped and unchanged once the first is
  // unloaded.
  const uint8_t FirstByte = *static_cast<const uint8_t *>(A);
  First->reset();
  EXPECT_EQ(entry(*Second), B);
  EXPECT_EQ(*static_cast<const uint8_t *>(B), FirstByte);
}

// Loads, lookups and unloads on four threads at once, in one session.
TEST_F(JitLoaderTest, LoadsOnSeveralThreadsAtOnce) {
  std::atomic<unsigned> Loaded{0};
  std::vector<std::string> Errors(4);
  std::vector<std::thread> Threads;
  for (unsigned T = 0; T < 4; ++T)
    Threads.emplace_back([&, T] {
      for (unsigned I = 0; I < 10; ++I) {
        auto L = LoadedObject::load(Code, {});
        if (!L) {
          Errors[T] = llvm::toString(L.takeError());
          return;
        }
        auto A = (*L)->address(Code.Kernels[0].EntrySymbol);
        if (!A) {
          Errors[T] = llvm::toString(A.takeError());
          return;
        }
        ++Loaded;
      }
    });
  for (std::thread &T : Threads)
    T.join();
  for (const std::string &E : Errors)
    EXPECT_EQ(E, "");
  EXPECT_EQ(Loaded.load(), 40u);
}

/// An object whose function "entry" calls \p Callee (void, no arguments).
std::vector<uint8_t> objectCalling(llvm::StringRef Callee) {
  llvm::LLVMContext Ctx;
  llvm::Module M("calls", Ctx);
  auto *Void = llvm::FunctionType::get(llvm::Type::getVoidTy(Ctx), false);
  llvm::FunctionCallee Target = M.getOrInsertFunction(Callee, Void);
  auto *Entry =
      llvm::Function::Create(Void, llvm::Function::ExternalLinkage, "entry", M);
  llvm::IRBuilder<> B(llvm::BasicBlock::Create(Ctx, "", Entry));
  B.CreateCall(Target);
  B.CreateRetVoid();
  auto Object = openhsa::finalizer::compileToObject(M);
  EXPECT_TRUE(bool(Object)) << llvm::toString(Object.takeError());
  return Object ? std::move(*Object) : std::vector<uint8_t>();
}

CodeObject codeObjectOf(std::vector<uint8_t> Object) {
  CodeObject CO;
  CO.Object = std::move(Object);
  openhsa::finalizer::KernelSymbol K;
  K.Name = "&entry";
  K.EntrySymbol = "entry";
  CO.Kernels.push_back(K);
  return CO;
}

// The process's other functions are out of reach: getpid is in every
// process but not in the runtime's set, and the load says which symbol it
// missed. A symbol of the set (memset) links.
TEST_F(JitLoaderTest, OnlyTheRuntimesSymbolsAreInReach) {
  auto Refused = LoadedObject::load(codeObjectOf(objectCalling("getpid")), {});
  ASSERT_FALSE(bool(Refused));
  const std::string Why = llvm::toString(Refused.takeError());
  EXPECT_NE(Why.find("cannot load the code object"), std::string::npos) << Why;
  EXPECT_NE(Why.find("getpid"), std::string::npos) << Why;

  auto Linked = LoadedObject::load(codeObjectOf(objectCalling("memset")), {});
  EXPECT_TRUE(bool(Linked)) << llvm::toString(Linked.takeError());
}

// A refused load leaves the session as it was: the next load works.
TEST_F(JitLoaderTest, ARefusedLoadLeavesTheSessionWorking) {
  for (int I = 0; I < 3; ++I) {
    auto Refused =
        LoadedObject::load(codeObjectOf(objectCalling("no_such_symbol")), {});
    ASSERT_FALSE(bool(Refused));
    const std::string Why = llvm::toString(Refused.takeError());
    EXPECT_NE(Why.find("no_such_symbol"), std::string::npos) << Why;
    auto L = LoadedObject::load(Code, {});
    ASSERT_TRUE(bool(L)) << llvm::toString(L.takeError());
    EXPECT_NE(entry(*L), nullptr);
  }
}

} // namespace
