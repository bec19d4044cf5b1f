//===- tests/brig/ValidatorTest.cpp - Malformed BRIG is rejected ----------===//
//
// Part of openhsa. Each test breaks one rule of a small valid module built by
// BrigTestBuilder and checks the diagnostic the validator gives.
//
//===----------------------------------------------------------------------===//

#include "BrigTestBuilder.h"

#include "brig/BrigModule.h"
#include "brig/Disassembler.h"
#include "brig/Validator.h"

#include "llvm/Support/Error.h"

#include <gtest/gtest.h>

using namespace openhsa::brig;
using namespace openhsa::brig::test;

namespace {

std::string validate(const AlignedBytes &B) {
  auto M = loadValidatedModule(B.bytes(), "m.brig");
  if (M)
    return "";
  return llvm::toString(M.takeError());
}

std::string hex(uint64_t V) {
  char Buf[32];
  snprintf(Buf, sizeof Buf, "0x%llx", (unsigned long long)V);
  return Buf;
}

class ValidatorTest : public ::testing::Test {
protected:
  SampleModule S = buildSampleModule();
  AlignedBytes &B = S.Bytes;
  void expectError(const std::string &Needle) {
    std::string E = validate(B);
    EXPECT_NE(E.find(Needle), std::string::npos)
        << "diagnostic: '" << E << "'\nexpected to contain: '" << Needle << "'";
  }
  size_t codeAt(uint32_t Off) const { return S.CodeBase + Off; }
};

TEST_F(ValidatorTest, SampleIsValid) {
  EXPECT_EQ(validate(B), "");
  auto M = loadValidatedModule(B.bytes(), "m.brig");
  ASSERT_TRUE(bool(M));
  EXPECT_EQ(disassembleToString(*M), "module &m:1:0:$full:$large:$default;\n"
                                     "\n"
                                     "prog kernel &k(kernarg_u32 %a)\n"
                                     "{\n"
                                     "\tadd_u32\t$s1, $s2, 3;\n"
                                     "\n"
                                     "@L:\n"
                                     "\tbr\t@L;\n"
                                     "\tld_kernarg_align(4)_u32\t$s1, [%a];\n"
                                     "\tret;\n"
                                     "};\n");
}

TEST_F(ValidatorTest, ExactDiagnosticFormat) {
  // Give the add the ld's two-element operand list.
  uint32_t LdOps =
      B.get<uint32_t>(codeAt(S.Ld) + offsetof(BrigInstBase, operands));
  B.put<uint32_t>(codeAt(S.Add) + offsetof(BrigInstBase, operands), LdOps);
  EXPECT_EQ(validate(B), "m.brig: hsa_code+" + hex(S.Add) +
                             ": instruction 'add' needs 3 operands (found 2)");
}

TEST_F(ValidatorTest, Truncated) {
  B.resize(50);
  expectError("m.brig: header+0x0: truncated module: 50 bytes");
}

TEST_F(ValidatorTest, TruncatedBelowByteCount) {
  B.resize(B.size() - 16);
  expectError("module byteCount");
}

TEST_F(ValidatorTest, BadMagic) {
  B.data()[0] = 'X';
  expectError("bad magic");
}

TEST_F(ValidatorTest, BadVersion) {
  B.put<uint32_t>(offsetof(BrigModuleHeader, brigMajor), 2);
  expectError("unsupported BRIG version 2.0");
}

TEST_F(ValidatorTest, ModuleByteCountNotMultipleOf16) {
  B.put<uint64_t>(offsetof(BrigModuleHeader, byteCount), B.size() - 4);
  expectError("is not a multiple of 16");
}

TEST_F(ValidatorTest, TooFewSections) {
  B.put<uint32_t>(offsetof(BrigModuleHeader, sectionCount), 2);
  expectError("less than the 3 standard sections");
}

TEST_F(ValidatorTest, SectionIndexOutOfBounds) {
  B.put<uint64_t>(offsetof(BrigModuleHeader, sectionIndex), 1u << 30);
  expectError("section index at 0x40000000");
}

TEST_F(ValidatorTest, SectionOffsetOutOfBounds) {
  B.put<uint64_t>(sizeof(BrigModuleHeader) + 8, 0x100000);
  expectError("hsa_code offset 0x100000 is misaligned or out of bounds");
}

TEST_F(ValidatorTest, SectionMisaligned) {
  B.put<uint64_t>(sizeof(BrigModuleHeader) + 16, S.OperandBase + 4);
  expectError("hsa_operand offset");
}

TEST_F(ValidatorTest, SectionsOverlap) {
  B.put<uint64_t>(sizeof(BrigModuleHeader) + 16, S.CodeBase);
  expectError("standard section 2 must be named 'hsa_operand'");
  // Same name, overlapping placement.
  SampleModule T = buildSampleModule();
  T.Bytes.put<uint64_t>(sizeof(BrigModuleHeader), T.CodeBase);
  T.Bytes.put<uint64_t>(sizeof(BrigModuleHeader) + 8, T.CodeBase);
  std::string E = validate(T.Bytes);
  EXPECT_NE(E.find("must be named 'hsa_data'"), std::string::npos) << E;
}

TEST_F(ValidatorTest, SectionByteCountPastEnd) {
  B.put<uint64_t>(S.OperandBase, 1u << 20);
  expectError("hsa_operand+0x0: section byteCount 1048576 runs past the end");
}

TEST_F(ValidatorTest, BadSectionHeader) {
  B.put<uint32_t>(S.CodeBase + 8, 2); // headerByteCount
  expectError("hsa_code+0x8: bad section header");
}

TEST_F(ValidatorTest, EntryByteCountZero) {
  B.put<uint16_t>(codeAt(S.Add), 0);
  expectError("hsa_code+" + hex(S.Add) +
              ": entry byteCount 0 is not a positive multiple of 4");
}

TEST_F(ValidatorTest, EntryByteCountUnaligned) {
  B.put<uint16_t>(codeAt(S.Add), 13);
  expectError("entry byteCount 13 is not a positive multiple of 4");
}

TEST_F(ValidatorTest, EntryByteCountPastEnd) {
  B.put<uint16_t>(codeAt(S.Add), 0xfffc);
  expectError("entry byteCount 65532 runs past the end of the section");
}

TEST_F(ValidatorTest, EntrySmallerThanStruct) {
  // A kernel directive shrunk to 8 bytes; the next entries are realigned by
  // turning the remaining 20 bytes into a padding entry.
  B.put<uint16_t>(codeAt(S.Kernel), 8);
  B.put<uint16_t>(codeAt(S.Kernel + 8), 20);
  B.put<uint16_t>(codeAt(S.Kernel + 10), BRIG_KIND_NONE);
  expectError("BRIG_KIND_DIRECTIVE_KERNEL entry byteCount 8 is smaller than "
              "its 28-byte struct");
}

TEST_F(ValidatorTest, OperandKindInCodeSection) {
  B.put<uint16_t>(codeAt(S.Add) + 2, BRIG_KIND_OPERAND_REGISTER);
  expectError("invalid entry kind BRIG_KIND_OPERAND_REGISTER in hsa_code");
}

TEST_F(ValidatorTest, UnknownKind) {
  B.put<uint16_t>(codeAt(S.Add) + 2, 0x7777);
  expectError("invalid entry kind kind 0x7777 in hsa_code");
}

TEST_F(ValidatorTest, ReservedOperandKind) {
  B.put<uint16_t>(S.OperandBase + S.Reg + 2, BRIG_KIND_OPERAND_RESERVED);
  expectError("hsa_operand+" + hex(S.Reg) +
              ": invalid entry kind BRIG_KIND_OPERAND_RESERVED");
}

TEST_F(ValidatorTest, NameOffsetIntoMiddleOfDataEntry) {
  B.put<uint32_t>(codeAt(S.Kernel) + offsetof(BrigDirectiveExecutable, name),
                  S.KernelName + 4);
  expectError("executable name offset " + hex(S.KernelName + 4) +
              " is not an hsa_data entry");
}

TEST_F(ValidatorTest, DataEntryPastEnd) {
  B.put<uint32_t>(S.DataBase + S.KernelName, 0x10000000);
  expectError("hsa_data+" + hex(S.KernelName) +
              ": hsa_data entry of 268435456 bytes runs past the end");
}

TEST_F(ValidatorTest, DataPaddingNotZero) {
  // "&k" has 2 bytes of padding after it.
  B.data()[S.DataBase + S.KernelName + 4 + 3] = 1;
  expectError("padding after hsa_data entry is not zero");
}

TEST_F(ValidatorTest, OperandListElementNotAnOperand) {
  B.put<uint32_t>(S.DataBase + S.AddOps + 8, S.Reg + 4);
  expectError("instruction 'add' operand 1 must be a register, constant or "
              "wavesize (found offset " +
              hex(S.Reg + 4) + ", not an hsa_operand entry)");
}

TEST_F(ValidatorTest, OperandOfWrongKind) {
  B.put<uint32_t>(S.DataBase + S.AddOps + 8, S.Addr);
  expectError("hsa_code+" + hex(S.Add) +
              ": instruction 'add' operand 1 must be a register, constant or "
              "wavesize (found BRIG_KIND_OPERAND_ADDRESS)");
}

TEST_F(ValidatorTest, DestinationMustBeRegister) {
  B.put<uint32_t>(S.DataBase + S.AddOps + 4, S.Imm);
  expectError("instruction 'add' operand 0 must be a register (found "
              "BRIG_KIND_OPERAND_CONSTANT_BYTES)");
}

TEST_F(ValidatorTest, UnknownOpcode) {
  B.put<uint16_t>(codeAt(S.Add) + offsetof(BrigInstBase, opcode), 500);
  expectError("unknown opcode 500");
}

// PRM 13.1.3: opcodes 0x8000-0xFFFF are vendor extensions'; the diagnostic
// says so (HSAIL-Tools' amd:gcn tests use them).
TEST_F(ValidatorTest, VendorExtensionOpcode) {
  B.put<uint16_t>(codeAt(S.Add) + offsetof(BrigInstBase, opcode), 0x8000);
  expectError("unknown opcode 32768 (a vendor extension's, which openhsa "
              "does not support)");
}

TEST_F(ValidatorTest, WrongFormatForOpcode) {
  // 'ret' (no operands) encoded with add's operands: count is checked.
  B.put<uint16_t>(codeAt(S.Add) + offsetof(BrigInstBase, opcode),
                  BRIG_OPCODE_RET);
  expectError("instruction 'ret' does not accept type u32");
  B.put<uint16_t>(codeAt(S.Add) + offsetof(BrigInstBase, type), BRIG_TYPE_NONE);
  expectError("instruction 'ret' needs 0 operands (found 3)");
  // 'ld' cannot be encoded as BrigInstBasic.
  B.put<uint16_t>(codeAt(S.Add) + offsetof(BrigInstBase, opcode),
                  BRIG_OPCODE_LD);
  expectError("instruction 'ld' cannot be encoded as BRIG_KIND_INST_BASIC");
}

TEST_F(ValidatorTest, InvalidType) {
  B.put<uint16_t>(codeAt(S.Add) + offsetof(BrigInstBase, type), 250);
  expectError("instruction 'add' does not accept type #250");
}

TEST_F(ValidatorTest, InvalidWidth) {
  B.data()[codeAt(S.Br) + offsetof(BrigInstBr, width)] = 99;
  expectError("instruction 'br' has invalid width 99");
}

TEST_F(ValidatorTest, BranchToNonLabel) {
  // Point the br's code ref at the add instruction.
  uint32_t BrOps = B.get<uint32_t>(codeAt(S.Br) + 8);
  uint32_t Ref = B.get<uint32_t>(S.DataBase + BrOps + 4);
  B.put<uint32_t>(S.OperandBase + Ref + 4, S.Add);
  expectError("instruction 'br' operand 0 must be a reference to a label "
              "(found a reference to BRIG_KIND_INST_BASIC)");
}

TEST_F(ValidatorTest, CodeRefOutOfBounds) {
  uint32_t BrOps = B.get<uint32_t>(codeAt(S.Br) + 8);
  uint32_t Ref = B.get<uint32_t>(S.DataBase + BrOps + 4);
  B.put<uint32_t>(S.OperandBase + Ref + 4, 0xfffffff0);
  expectError("hsa_operand+" + hex(Ref) +
              ": code reference 0xfffffff0 is not an hsa_code entry");
}

TEST_F(ValidatorTest, NextModuleEntryCycle) {
  B.put<uint32_t>(codeAt(S.Kernel) +
                      offsetof(BrigDirectiveExecutable, nextModuleEntry),
                  S.Kernel);
  expectError("'&k': nextModuleEntry " + hex(S.Kernel) +
              " is not a following hsa_code entry");
}

TEST_F(ValidatorTest, NextModuleEntryIntoMiddleOfEntry) {
  B.put<uint32_t>(codeAt(S.Kernel) +
                      offsetof(BrigDirectiveExecutable, nextModuleEntry),
                  S.Add + 4);
  expectError("nextModuleEntry");
}

TEST_F(ValidatorTest, FirstCodeBlockEntryOutside) {
  B.put<uint32_t>(codeAt(S.Kernel) +
                      offsetof(BrigDirectiveExecutable, firstCodeBlockEntry),
                  4);
  expectError("'&k': firstCodeBlockEntry 0x4 is outside the executable");
}

TEST_F(ValidatorTest, ArgumentCountMismatch) {
  B.put<uint16_t>(
      codeAt(S.Kernel) + offsetof(BrigDirectiveExecutable, inArgCount), 2);
  expectError("'&k' declares 2 arguments but argument 1 is not a variable");
}

TEST_F(ValidatorTest, KernelWithOutputArguments) {
  B.put<uint16_t>(
      codeAt(S.Kernel) + offsetof(BrigDirectiveExecutable, outArgCount), 1);
  expectError("kernel '&k' has output arguments");
}

TEST_F(ValidatorTest, KernargInWrongSegment) {
  B.data()[codeAt(S.Arg) + offsetof(BrigDirectiveVariable, segment)] =
      BRIG_SEGMENT_GLOBAL;
  expectError("argument 0 of '&k' must be in the kernarg segment");
}

TEST_F(ValidatorTest, InstructionOutsideKernel) {
  // End the kernel right before its first instruction.
  B.put<uint32_t>(codeAt(S.Kernel) +
                      offsetof(BrigDirectiveExecutable, nextModuleEntry),
                  S.Add);
  B.put<uint32_t>(codeAt(S.Kernel) +
                      offsetof(BrigDirectiveExecutable, firstCodeBlockEntry),
                  S.Add);
  expectError("hsa_code+" + hex(S.Add) +
              ": instruction outside of a kernel or function");
}

TEST_F(ValidatorTest, MissingModuleDirective) {
  B.put<uint16_t>(S.CodeBase + 24 + 2, BRIG_KIND_DIRECTIVE_COMMENT);
  expectError("before the module directive");
}

TEST_F(ValidatorTest, BadHsailVersion) {
  B.put<uint32_t>(S.CodeBase + 24 + offsetof(BrigDirectiveModule, hsailMajor),
                  7);
  expectError("unsupported HSAIL version 7.0");
}

TEST_F(ValidatorTest, AddressSymbolNotVariable) {
  B.put<uint32_t>(S.OperandBase + S.Addr + offsetof(BrigOperandAddress, symbol),
                  S.Add);
  expectError("hsa_operand+" + hex(S.Addr) + ": address symbol " + hex(S.Add) +
              " is not a variable directive");
}

TEST_F(ValidatorTest, InvalidRegisterKind) {
  B.put<uint16_t>(S.OperandBase + S.Reg + 4, 9);
  expectError("invalid register kind 9");
}

TEST_F(ValidatorTest, ConstantSizeMismatch) {
  // The constant 3 (u32) claims to be a u64.
  B.put<uint16_t>(S.OperandBase + S.Imm + 4, BRIG_TYPE_U64);
  expectError("constant of type u64 has 4 bytes");
}

TEST_F(ValidatorTest, ConstantOfBitType) {
  // PRM 18.6.6: HSAIL has no bit-typed constants.
  B.put<uint16_t>(S.OperandBase + S.Imm + 4, BRIG_TYPE_B32);
  expectError("constant bytes cannot have type b32");
}

TEST_F(ValidatorTest, ConstantOfImageType) {
  // Images are image constants, not bytes (found by fuzz_brig_reader: the
  // printer had no text for such a value).
  B.put<uint16_t>(S.OperandBase + S.Imm + 4, BRIG_TYPE_ROIMG_ARRAY);
  expectError("constant bytes cannot have type roimg");
}

TEST_F(ValidatorTest, ListByteCountNotMultipleOf4) {
  // 10 bytes: the chain of entries stays intact (padded to 12).
  B.put<uint32_t>(S.DataBase + S.AddOps, 10);
  expectError("has a byte count that is not a multiple of 4");
}

TEST_F(ValidatorTest, FromHeaderChecksAvailableBytes) {
  auto M = BrigModule::fromHeader(
      reinterpret_cast<const BrigModuleHeader *>(B.data()), "m.brig", 64);
  ASSERT_FALSE(bool(M));
  EXPECT_NE(llvm::toString(M.takeError()).find("exceeds the available 64"),
            std::string::npos);
  auto M2 = BrigModule::fromHeader(
      reinterpret_cast<const BrigModuleHeader *>(B.data()), "m.brig");
  ASSERT_TRUE(bool(M2)) << llvm::toString(M2.takeError());
  EXPECT_FALSE(bool(validateModule(*M2)));
}

TEST(BrigModuleTest, ReaderViews) {
  SampleModule S = buildSampleModule();
  auto M = BrigModule::create(S.Bytes.bytes(), "m.brig");
  ASSERT_TRUE(bool(M)) << llvm::toString(M.takeError());
  EXPECT_EQ(M->sectionCount(), 3u);
  EXPECT_EQ(M->data().Name, "hsa_data");
  EXPECT_EQ(M->code().Name, "hsa_code");
  EXPECT_EQ(M->operands().Name, "hsa_operand");
  EXPECT_EQ(M->string(S.KernelName), "&k");
  EXPECT_FALSE(M->dataBytes(S.KernelName + 1).has_value());
  auto K = M->code<BrigDirectiveExecutable>(S.Kernel);
  ASSERT_TRUE(bool(K));
  EXPECT_EQ(K->inArgCount, 1);
  EXPECT_FALSE(bool(M->code<BrigDirectiveVariable>(S.Kernel)));
  EXPECT_FALSE(bool(M->code(0)));
  EXPECT_FALSE(bool(M->code(0xfffffff0)));
  auto Add = M->code<BrigInstBase>(S.Add);
  ASSERT_TRUE(bool(Add));
  OffsetList Ops = M->offsetList(Add->operands);
  ASSERT_EQ(Ops.size(), 3u);
  EXPECT_EQ(Ops[0], S.Reg);
  EXPECT_EQ(Ops[2], S.Imm);
  EXPECT_EQ(Ops[7], 0u);
  EXPECT_TRUE(bool(M->operand<BrigOperandRegister>(Ops[0])));
  EXPECT_FALSE(bool(M->operand<BrigOperandAddress>(Ops[0])));
  unsigned Count = 0, Insts = 0;
  for (EntryRef<> E : M->codeEntries()) {
    ++Count;
    Insts += brigKindIsInst(E.kind());
  }
  EXPECT_EQ(Count, 8u); // module, kernel, arg, add, label, br, ld, ret
  EXPECT_EQ(Insts, 4u);
  unsigned InBody = 0;
  for (EntryRef<> E : M->codeRange(K->firstCodeBlockEntry, K->nextModuleEntry))
    InBody += E.Offset != 0;
  EXPECT_EQ(InBody, 5u);
  EXPECT_TRUE(bool(M->moduleDirective()));
  EXPECT_EQ(disassembleInst(*M, S.Add), "add_u32\t$s1, $s2, 3;");
  EXPECT_EQ(disassembleInst(*M, S.Kernel), "");
}

TEST(BrigModuleTest, RejectsUnalignedMemory) {
  SampleModule S = buildSampleModule();
  std::vector<uint8_t> Copy(S.Bytes.size() + 1);
  std::memcpy(Copy.data() + 1, S.Bytes.data(), S.Bytes.size());
  auto M = BrigModule::create(
      llvm::ArrayRef<uint8_t>(Copy.data() + 1, S.Bytes.size()), "m.brig");
  ASSERT_FALSE(bool(M));
  EXPECT_NE(llvm::toString(M.takeError()).find("not 16-byte aligned"),
            std::string::npos);
}

} // namespace
